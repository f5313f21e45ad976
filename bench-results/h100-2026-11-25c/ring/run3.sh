#!/bin/bash
# Third GPU call: narrower and taller tiles, deeper rings, z neighbours read from the ring's
# planes (ZR), register caps 96-168 (ring3.log); then ncu on the best ring kernels of
# ring2.log (ncu3-*.log).
cd "$(dirname "$0")"
export NCCL_NVLS_ENABLE=0
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
for only in r8_f32_b8x16_py1_c16_d3_b4_z0 r8_f64_b8x16_py1_c32_d3_b4_z0; do
  RING_ONLY=$only timeout 150 ncu --kernel-name regex:ring --launch-count 1 $S python3 ring.py > $OUT/ncu3-$only.log 2>&1
  grep -E "Duration|Achieved Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\)|Issue Slots Busy|No Eligible|Mem Busy|Mem Pipes|Max Bandwidth|L1/TEX Cache Throughput|L2 Cache Throughput|Shared.*Bank" $OUT/ncu3-$only.log | head -30
done
python3 ring.py > $OUT/ring3.log 2>&1
grep -A12 summary $OUT/ring3.log
