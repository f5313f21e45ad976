#!/bin/bash
# H100: the radius-8 star's z-step loop unrolled by 2 and 4 (TALL_UNROLLS) beside rolled
# and fully unrolled, at three tiles, every cap timed
export NCCL_NVLS_ENABLE=0 PATH=$PATH:/usr/local/cuda/bin
nvidia-smi -L; date -u
only=""
for t in t128x4x16c1x1x16 t64x8x16c1x1x16 t64x4x16c1x1x16; do only="$only,$t.mint_kernels.star.r8_3d"; done
TALL_ONLY=${only#,} TALL_ALLCAPS=1 TALL_UNROLLS=2,4 timeout 300 python3 bench-results/h100-2026-11-25b/tall/tall.py > $OUT/tall3.log 2>&1; echo "rc=$?"
grep -A12 summary $OUT/tall3.log
date -u
