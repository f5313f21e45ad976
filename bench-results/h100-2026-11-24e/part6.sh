#!/bin/bash
# H100: ncu on the best `vectorize` kernels of the radius-4 and radius-8 stars and the box
# (the dumped kernels of boxq/mint/, launched by boxq/tiles.py at the runtime's doubled
# register cap of 128), to see what limits them
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
prof() { # kernel precision tile-prefix
  TILES_CAPS=128 TILES_KERNELS=$1 TILES_PREC=$2 TILES_ONLY=$3 timeout 150 ncu --kernel-name mint_k_vector_0 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
    python3 bench-results/h100-2026-11-24e/boxq/tiles.py > $OUT/ncu-$1-$2-$3.log 2>&1
  echo "== $1 $2 $3 rc=$?"
  grep -E "Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Duration|Stall|Issued Warp|No Eligible|Mem Busy|Max Bandwidth|Mem Pipes" $OUT/ncu-$1-$2-$3.log | head -30
}
prof star.r4_3d f32 t128x4x8c
prof box27 f32 t128x4x2c
prof star.r8_3d f32 t128x4x16c
date -u
