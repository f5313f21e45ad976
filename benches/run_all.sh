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

echo "== Mint (Rust) harness: ${size}^3 (8192^2 in 2-D), ${reps} runs of ${steps} steps, levels + autotuner + Hand-CUDA"
# kernel by kernel, each into its own JSON, so that a run cut short keeps what it measured;
# the kernels the peers implement first, then the peers, then the rest of the suite
first=${MINT_BENCH_FIRST:-heat3d-7pt poisson3d-19pt star3d-r4}
rest=${MINT_BENCH_REST:-heat2d-5pt poisson3d-7pt heat3d-7pt-var star3d-13pt box3d-27pt miniamr-7pt star2d-r1 star2d-r2 star2d-r4 star2d-r8 star3d-r1 star3d-r2 star3d-r8}
rm -f "$dir"/stencils*.json "$dir"/peers-*.json
i=0
harness() {
    for k in "$@"; do
        i=$((i + 1))
        local out="$dir/k$(printf %02d $i)"
        if [ -x .gpu/bin/mint--bench--stencils ]; then
            .gpu/bin/mint--bench--stencils --kernels "$k" --size "$size" --steps "$steps" --reps "$reps" --tune --out "$out" "${extra[@]}" >/dev/null \
                || echo "the Rust harness failed on $k"
        else
            cargo bench --bench stencils -- --kernels "$k" --size "$size" --steps "$steps" --reps "$reps" --tune --out "$out" "${extra[@]}" >/dev/null \
                || echo "the Rust harness failed on $k"
        fi
        [ -f "$out/stencils.json" ] && cp "$out/stencils.json" "$dir/stencils-$(printf %02d $i)-$k.json"
    done
}
extra=("$@")
# shellcheck disable=SC2086
harness $first

for peer in cupy torch numba; do
    echo "== peer: $peer"
    "$py" benches/peers/${peer}_peers.py --size "$size" --steps "$steps" --reps "$reps" \
        --out "$dir/peers-$peer.json" || echo "peer $peer failed or is not installed; skipped"
done

# shellcheck disable=SC2086
harness $rest

echo "== report"
"$py" benches/peers/report.py "$dir"
