#!/bin/bash
# H100: the seismic bench512 with `tune` and the `swizzle` candidates: a first run that
# searches (MINT_TUNE=fresh), a second that reads the stored choices (the steady figure),
# then ncu on the velocity and stress kernels as chosen (DRAM bytes against the
# compulsory words: how much the blocks' order saves).
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 240 $S examples/seismic/bench512.toml > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|tuned in|chose" $OUT/seismic512-search.log | grep -E "kernels|tuned|time_loop_(0|6) " | cut -c1-420
date -u
for i in 1 2; do
  MINT_REPORT=1 timeout 120 $S examples/seismic/bench512.toml > $OUT/seismic512-stored$i.log 2>&1
  grep -E "kernels \(CUDA" $OUT/seismic512-stored$i.log
done
date -u
timeout 200 ncu --clock-control none --kernel-name regex:'time_loop_(0|6)' --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum \
  $S examples/seismic/bench512.toml --duration 0.03 > $OUT/ncu-seismic.log 2>&1
echo "ncu rc=$?"
grep -E "time_loop|dram__bytes|DRAM Throughput|L2 Hit|Registers Per|Duration|Achieved Occupancy" $OUT/ncu-seismic.log | head -30
date -u
