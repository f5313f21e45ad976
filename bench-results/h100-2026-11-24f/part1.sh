#!/bin/bash
# H100: (1) why the radius-4 star's `tune` (f64) ran slower right after its search than
# the same kernel at its level: three harness runs with clocks, power and throttle reasons
# sampled every 100 ms (smi.csv; marks.log has each run's start and end), and each run's
# per-rep times in the JSON (rep_seconds); (2) ncu on the seismic velocity and stress
# kernels as `tune` chose them (bench512, a first run stores the choices).
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,temperature.memory,clocks_throttle_reasons.active --format=csv -lms 100 > $OUT/smi.csv 2>&1 &
SMI=$!
B=.gpu/bin/mint--bench--stencils
r4() { # name levels
  mkdir -p $OUT/$1
  echo "== $1 $(date +%T.%N)" >> $OUT/marks.log
  MINT_REPORT=1 timeout 120 $B --kernels star3d-r4 --precision f64 --size 512 --levels $2 --out $OUT/$1 2> $OUT/$1.log | grep "^| star"
  echo "== end $1 $(date +%T.%N)" >> $OUT/marks.log
  python3 -c "
import json; d=json.load(open('$OUT/$1/stencils.json'))
for r in d['rows']: print('   ', r['level'], ['%.4f' % (t*1e3) for t in r['rep_seconds']])"
}
MINT_TUNE=fresh r4 search opt-3+pipeline,tune
r4 stored opt-3+pipeline,tune
MINT_TUNE=fresh r4 search-first tune,opt-3+pipeline
kill $SMI
date -u
MINT_REPORT=1 timeout 200 .gpu/examples/seismic examples/seismic/bench512.toml > $OUT/seismic512.log 2>&1
grep -E "kernels \(CUDA|tuned in|chose" $OUT/seismic512.log | cut -c1-300
date -u
timeout 240 ncu --clock-control none --kernel-name regex:'time_loop_(0|6)' --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \
  .gpu/examples/seismic examples/seismic/bench512.toml --duration 0.03 > $OUT/ncu-seismic.log 2>&1
echo "ncu rc=$?"
grep -E "time_loop|dram__bytes|lts__t_sectors|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Duration|Block Limit" $OUT/ncu-seismic.log | head -60
date -u
