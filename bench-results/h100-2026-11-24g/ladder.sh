#!/bin/bash
# H100: the register-cap ladder (96, 128, 168, 255 instead of doubling) against the 3-D
# suite's `tune` rows and the seismic bench512 (fresh searches), then the seismic kernels
# reading the stored choices with the L2 fetch granularity left alone and set to 128 bytes
# (MINT_L2_FETCH, an experiment).
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
mkdir -p $OUT/harness
MINT_TUNE=fresh MINT_REPORT=1 timeout 300 .gpu/bin/mint--bench--stencils --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt,heat3d-7pt,poisson3d-19pt \
  --levels tune --precision f64,f32 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
grep "chose" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-160
date -u
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 200 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|chose" $OUT/seismic512-search.log | grep -E "kernels|time_loop_(0|6) " | cut -c1-260
for l2 in none 128 none 128; do
  if [ $l2 = none ]; then unset MINT_L2_FETCH; else export MINT_L2_FETCH=$l2; fi
  timeout 60 $S examples/seismic/bench512.toml --duration 0.6 2>&1 | grep -E "kernels \(CUDA|L2_FETCH" | sed -e "s/^/l2=$l2 /"
done
date -u
