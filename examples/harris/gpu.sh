#!/usr/bin/env bash
# The Harris example's GPU runs (issue #16), on a GPU machine with the packed binaries
# (.gpu/, ../shared/tools/gpu-pack) and the real volume carried along (the GPU machines
# have no network): here, `bash examples/harris/fetch-mni.sh harris-data`, then run with
# carry [".gpu", "harris-data"]:
#
#   OUT=dir bash examples/harris/gpu.sh
#
# Runs the template with the 5³ window (tuned, then as written), the 256³ phantom with
# each window (3³ and 5³ tuned, 7³ as written: a search compiles every fully unrolled 7³
# candidate with NVRTC, minutes) and a 1024³ phantom as written, into OUT.
set -uo pipefail
mkdir -p "$OUT"
export MINT_CACHE_DIR=${MINT_CACHE_DIR:-/tmp/mint-cache}
[ -d .gpu/examples ] || bash .gpu/run-gpu.sh --unpack
h=.gpu/examples/harris
for t in 1 0; do
    MINT_TUNE=$t MINT_REPORT=1 $h harris-data/mni_icbm152_t1.nii.gz --verify --out "$OUT/mni-tune$t" \
        > "$OUT/mni-tune$t.txt" 2>&1
    grep -vE "^mint report: kernel|^  " "$OUT/mni-tune$t.txt"
done
for w in 3 5 7; do
    t=1; [ $w = 7 ] && t=0
    MINT_TUNE=$t $h --phantom 256 --window $w --out "$OUT/phantom256-w$w" 2>&1 | tee "$OUT/phantom256-w$w.txt"
done
MINT_TUNE=0 $h --phantom 1024 --out "$OUT/phantom1024" 2>&1 | tee "$OUT/phantom1024.txt"
