#!/usr/bin/env bash
# Runs the generated kernels under NVIDIA compute-sanitizer on a GPU machine (issue #14):
# memcheck, racecheck, synccheck and initcheck over
#   - every suite kernel at every level and every autotuner candidate, f32 and f64, on an
#     odd grid (tests/kernels.rs, sanitizer_sweep_every_level_and_candidate_at_an_odd_size),
#   - the heat3d, cardiac and seismic (LOH.1 elastic, LOH.3 anelastic) examples at small sizes,
#   - the fuzz regressions (tests/regressions.rs).
#
# Build here, then on the GPU machine:
#   ../shared/tools/gpu-pack                      # or: --test kernels --test regressions --examples
#   bash tests/sanitize.sh                        # all four tools
#   TOOLS="memcheck racecheck" bash tests/sanitize.sh
#
# Prints one line per tool and target with the sanitizer's error count, and exits non-zero
# when any count is not zero or a target fails. Full logs go to $SANITIZE_LOGS (default
# sanitize-logs/).
set -uo pipefail
cd "$(dirname "$0")/.."
bash .gpu/run-gpu.sh --unpack
export MINT_DEVICE=cuda NCCL_NVLS_ENABLE=0
# compile every variant once (the first tool), then read them from the cache
export MINT_CACHE_DIR=${MINT_CACHE_DIR:-$PWD/.sanitize-cache}
logs=${SANITIZE_LOGS:-sanitize-logs}
mkdir -p "$logs"
tools=${TOOLS:-memcheck racecheck synccheck initcheck}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

targets=(
  "suite|.gpu/bin/mint--test--kernels --ignored --exact sanitizer_sweep_every_level_and_candidate_at_an_odd_size --nocapture"
  "regressions|.gpu/bin/mint--test--regressions"
  "heat3d|.gpu/examples/heat3d --n 37 --steps 3 --verify"
  "heat3d-f32-vector|.gpu/examples/heat3d --n 45 --steps 3 --level vector --precision f32 --verify"
  "cardiac|.gpu/examples/cardiac -n 67 -t 2 --verify"
  "seismic-loh1|.gpu/examples/seismic examples/seismic/loh1.toml --resolution coarse --duration 0.08 --quiet --out /tmp/mint-sanitize-loh1"
  "seismic-loh3|.gpu/examples/seismic examples/seismic/loh3.toml --resolution coarse --duration 0.08 --quiet --out /tmp/mint-sanitize-loh3"
)

fail=0
printf '%-10s %-20s %8s %6s %8s\n' tool target errors rc seconds
for tool in $tools; do
  for t in "${targets[@]}"; do
    name=${t%%|*}; cmd=${t#*|}
    log="$logs/$tool-$name.log"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$cs" --tool "$tool" --print-limit 20 --error-exitcode 99 $cmd >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    # "ERROR SUMMARY: N errors" (memcheck, synccheck, initcheck) or
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
    errs=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
    [ -z "$errs" ] && errs=$(grep -oE '\([0-9]+ errors' "$log" | tail -1 | grep -oE '[0-9]+')
    [ -z "$errs" ] && errs="?"
    printf '%-10s %-20s %8s %6s %8s\n' "$tool" "$name" "$errs" "$rc" "$secs"
    if [ "$rc" != 0 ] || [ "$errs" != 0 ]; then fail=1; tail -30 "$log"; fi
  done
done
exit $fail
