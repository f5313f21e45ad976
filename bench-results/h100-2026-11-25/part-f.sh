#!/bin/bash
# H100: the same breakdown as ../h200-2026-11-25/part-h.sh, for comparison (seismic only).
# The seismic bench512 with `tune` (fresh search, then the stored choices), then ncu on
# the velocity and stress kernels as chosen: DRAM bytes, L2 sectors, the throughput
# breakdown (which unit is at its peak).
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 150 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|chose" $OUT/seismic512-search.log | grep -E "kernels|time_loop_(0|6)[ :]" | cut -c1-260
MINT_REPORT=1 timeout 60 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-stored.log 2>&1
grep -E "kernels \(CUDA" $OUT/seismic512-stored.log
date -u
left=$((570 - $(date +%s) + T0))
timeout $left ncu --clock-control none --kernel-name regex:'time_loop_(0|6)' --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed \
  $S examples/seismic/bench512.toml --duration 0.03 > $OUT/ncu-seismic.log 2>&1
echo "ncu rc=$?"
grep -E "mint_time_loop|dram__bytes|lts__|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|L2 Hit|Registers Per|Duration|Achieved Occupancy|pct_of_peak" $OUT/ncu-seismic.log | grep -v " 0$" | head -90
date -u
