#!/bin/bash
# Second GPU call: rows per thread, deeper rings, more block shapes (ring2.log), then ncu
# on today's best ring kernels and Mint's (ncu-*.log).
cd "$(dirname "$0")"
export NCCL_NVLS_ENABLE=0
python3 ring.py > $OUT/ring2.log 2>&1
tail -40 $OUT/ring2.log
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis"
for only in r8_f32_b16x8_py1_c16_d2_b4 r8_f64_b16x8_py1_c64_d2_b4; do
  RING_ONLY=$only timeout 150 ncu --kernel-name regex:'ring|mint' --launch-count 2 $S python3 ring.py > $OUT/ncu-$only.log 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\)|Issue Slots Busy|No Eligible|Stall|Shared Memory|Mem Busy|Mem Pipes" $OUT/ncu-$only.log | head -60
done
