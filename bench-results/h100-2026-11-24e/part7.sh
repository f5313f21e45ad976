#!/bin/bash
# H100: `vectorize` with two or four y rows per thread (chunksize y > 1: the rows' shared
# row vectors loaded once) for the box and the radius-4/8 stars, at ten tiles (CuPy,
# dumped kernels in boxq/mint/ named t..c1x2x.. and t..c1x4x..), at the register caps the
# runtime would use
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
TILES_ONLY=c1x2x,c1x4x timeout 540 python3 bench-results/h100-2026-11-24e/boxq/tiles.py > $OUT/tiles-yrows.log 2>&1; echo "tiles rc=$?"
grep -A30 summary $OUT/tiles-yrows.log
date -u
