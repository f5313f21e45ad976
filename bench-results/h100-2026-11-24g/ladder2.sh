#!/bin/bash
# H100: the seismic bench512 with the register-cap ladder (fresh search), then reading the
# stored choices with the L2 fetch granularity left alone and set to 128 bytes
# (MINT_L2_FETCH, an experiment); the 13-point star in f32 (the harness, `tune`).
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 300 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|chose|search took" $OUT/seismic512-search.log | grep -E "kernels|time_loop_(0|6)[ :]" | cut -c1-260
for l2 in none 128 none 128; do
  if [ $l2 = none ]; then unset MINT_L2_FETCH; else export MINT_L2_FETCH=$l2; fi
  timeout 60 $S examples/seismic/bench512.toml --duration 0.6 2>&1 | grep -E "kernels \(CUDA|L2_FETCH" | sed -e "s/^/l2=$l2 /"
done
unset MINT_L2_FETCH
date -u
mkdir -p $OUT/harness13
MINT_TUNE=fresh MINT_REPORT=1 timeout 100 .gpu/bin/mint--bench--stencils --kernels star3d-13pt --levels tune --precision f32 --size 512 --out $OUT/harness13 2> $OUT/harness13/report.log | grep "^|"
date -u
