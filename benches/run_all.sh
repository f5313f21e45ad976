#!/usr/bin/env bash
# Runs the whole comparison on a GPU machine: the Rust harness (every kernel of the suite,
# every optimization level, the autotuner's candidates and the Hand-CUDA references),
# then the CuPy, PyTorch and Numba peers on the same GPU, then merges them into
# DIR/report.md, DIR/all.json and the charts DIR/fig6.2-f64.png, fig6.2-f32.png, fig6.4.png.
#
#   bash benches/run_all.sh [DIR] [extra arguments of the stencils bench]
#
# Uses the packed bench binary .gpu/bin/mint--bench--stencils when present (see the
# README: built on a machine with Rust, run where the GPU is), else `cargo bench`.
# A peer whose framework is missing is skipped with a message.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/bench}
shift || true
mkdir -p "$dir"
size=${MINT_BENCH_SIZE:-512}
steps=${MINT_BENCH_STEPS:-20}
reps=${MINT_BENCH_REPS:-5}
py=${PYTHON:-python3}

echo "== Mint (Rust) harness: ${size}^3, ${reps} runs of ${steps} steps"
if [ -x .gpu/bin/mint--bench--stencils ]; then
    .gpu/bin/mint--bench--stencils --size "$size" --steps "$steps" --reps "$reps" --tune --out "$dir" "$@" \
        || { echo "the Rust harness failed"; exit 1; }
else
    cargo bench --bench stencils -- --size "$size" --steps "$steps" --reps "$reps" --tune --out "$dir" "$@" \
        || { echo "the Rust harness failed"; exit 1; }
fi

for peer in cupy torch numba; do
    echo "== peer: $peer"
    "$py" benches/peers/${peer}_peers.py --size "$size" --steps "$steps" --reps "$reps" \
        --out "$dir/peers-$peer.json" || echo "peer $peer failed or is not installed; skipped"
done

echo "== report"
"$py" benches/peers/report.py "$dir"
