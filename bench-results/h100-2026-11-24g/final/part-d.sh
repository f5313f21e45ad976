#!/bin/bash
# H100: the 3-D kernels of the suite not measured since `swizzle` (512³): levels, every
# tune candidate as its own kernel (--tune) and `tune` (a fresh search), f64 and f32
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
mkdir -p $OUT/harness3d
MINT_TUNE=fresh MINT_REPORT=1 timeout 540 .gpu/bin/mint--bench--stencils --kernels poisson3d-7pt,heat3d-7pt-var,star3d-r1,star3d-r2,miniamr-7pt \
  --levels baseline,opt-3,vector+z,opt-3+pipeline,tune --precision f64,f32 --tune --size 512 --out $OUT/harness3d 2> $OUT/harness3d/report.log | grep "^|"
grep -E " tune  " $OUT/harness3d/report.log | head -12
date -u
