#!/bin/bash
# H100, final code: every other test binary (the six of part-a excepted)
# then the seismic bench512 with `tune` (fresh search, stored choices) and ncu on its
# velocity and stress kernels, to set beside the same on the H200 (../h200-2026-11-25/)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda INSTA_WORKSPACE_ROOT=$PWD
for b in .gpu/bin/*; do
  base=$(basename "$b")
  case "$base" in *--bench--*|*--proc-macro--*|*--test--kernels|*--test--fuzz|*--test--nvrtc|*--test--tune|*--test--regressions|*--test--registers) continue;; esac
  out=$(timeout 300 "$b" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "ok    $base  $(printf '%s\n' "$out" | grep -E '^test result:' | tail -1)"
  else echo "FAIL  $base"; printf '%s\n' "$out" | tail -30; fi
done > $OUT/run-gpu-b.log 2>&1
grep -c "^ok" $OUT/run-gpu-b.log; grep -A30 "^FAIL" $OUT/run-gpu-b.log | head -40
date -u
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 150 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|chose" $OUT/seismic512-search.log | grep -E "kernels|time_loop_(0|6)[ :]" | cut -c1-260
MINT_REPORT=1 timeout 60 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-stored.log 2>&1
grep -E "kernels \(CUDA" $OUT/seismic512-stored.log
date -u
left=$((570 - $(date +%s) + T0))
timeout $left ncu --clock-control none --kernel-name regex:'time_loop_(0|6)' --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed \
  $S examples/seismic/bench512.toml --duration 0.03 > $OUT/ncu-seismic.log 2>&1
echo "ncu rc=$?"
grep -E "mint_time_loop|dram__bytes|lts__|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|L2 Hit|Registers Per|Duration|Achieved Occupancy|pct_of_peak" $OUT/ncu-seismic.log | head -60
date -u
