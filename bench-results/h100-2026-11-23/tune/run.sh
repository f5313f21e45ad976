#!/usr/bin/env bash
# The autotuner against the harness's best variant (issue #15), on a GPU machine with the
# packed binaries (.gpu/, see README "Performance"):
#
#   bash bench-results/h100-2026-11-23/tune/run.sh OUT KERNEL...
#
# For each kernel of the suite: the harness at 512^3 (8192^2 in 2-D), every level (the
# `tune` level included: `tune` with the default clauses) and the --tune candidates, the
# median of 5 runs of 10 steps. OUT/KERNEL/stencils.{md,json} hold the results and
# OUT/KERNEL.tune.log the autotuner's report lines (MINT_REPORT=1). Stops starting new
# kernels after BUDGET seconds (default 480).
set -uo pipefail
out=$1
shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
export MINT_CACHE_DIR=${MINT_CACHE_DIR:-/tmp/mint-cache}
[ -x .gpu/bin/mint--bench--stencils ] || bash .gpu/run-gpu.sh --unpack >/dev/null
start=$SECONDS
for k in "$@"; do
    if ((SECONDS - start > ${BUDGET:-480})); then
        echo "stopped before $k: time budget"
        break
    fi
    MINT_REPORT=1 timeout 400 .gpu/bin/mint--bench--stencils --kernels "$k" --size 512 \
        --steps 10 --reps 5 --tune --out "$out/$k" >/dev/null 2>"$out/$k.err"
    grep -E "^mint report: tune|^  " "$out/$k.err" | grep -v "^  *\(array\|  \)" >"$out/$k.tune.log"
    rm -f "$out/$k.err"
    echo "$k: done at $((SECONDS - start)) s"
    grep -E "^\| $k" "$out/$k/stencils.md" || true
done
