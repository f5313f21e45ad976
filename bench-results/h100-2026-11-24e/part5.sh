#!/bin/bash
# H100: vectorize kernels under intermediate register caps (64, 80, 96, 128, 168, 255
# registers per thread through __launch_bounds__' minimum blocks per SM)
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
TILES_CAPS=64,80,96,128,168,255 TILES_ONLY=t128x4x2c,t64x4x2c,t128x4x4c,t128x4x8c,t128x4x16c,t64x16x32c \
  timeout 540 python3 bench-results/h100-2026-11-24e/boxq/tiles.py > $OUT/tiles-caps.log 2>&1; echo "tiles rc=$?"
grep -A30 summary $OUT/tiles-caps.log
date -u
