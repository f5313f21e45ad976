#!/bin/bash
# H100: the box and the radius-4/8 stars with `vectorize` at 15 tiles (CuPy, dumped
# kernels; the box's z queues hold every vector read at several planes)
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
TILES_KERNELS=${TILES_KERNELS:-} timeout 540 python3 bench-results/h100-2026-11-24e/boxq/tiles.py > $OUT/tiles.log 2>&1; echo "tiles rc=$?"
grep -A30 summary $OUT/tiles.log
date -u
