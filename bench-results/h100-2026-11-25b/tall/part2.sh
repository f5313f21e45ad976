#!/bin/bash
# H100: the radius-8 star only, every cap of the ladder timed even where it spills
# (TALL_ALLCAPS), and a third variant: rolled with the leading plane loaded in its own step
# (TALL_NOPF, one plane fewer in registers). part1 showed the kernel bound by occupancy
# (t128x4x16 rolled: 52.0% at three blocks per SM, 37.9% at two), not by its tile's y
# ghost rows (128x12 at one block of 384: 49.9%).
export NCCL_NVLS_ENABLE=0 PATH=$PATH:/usr/local/cuda/bin
nvidia-smi -L; date -u
only=""
for t in t128x4x16c1x1x16 t64x8x16c1x1x16 t128x4x8c1x1x8 t128x4x4c1x1x4 t64x4x16c1x1x16 t64x4x8c1x1x8 t32x8x16c1x1x16 t32x4x16c1x1x16 t64x12x16c1x1x16; do
  only="$only,$t.mint_kernels.star.r8_3d"
done
TALL_ONLY=${only#,} TALL_ALLCAPS=1 TALL_NOPF=1 timeout 560 python3 bench-results/h100-2026-11-25b/tall/tall.py > $OUT/tall2.log 2>&1; echo "rc=$?"
grep -A12 summary $OUT/tall2.log
date -u
