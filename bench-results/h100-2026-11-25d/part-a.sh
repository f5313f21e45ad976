#!/bin/bash
# H100, the plane copies in known rounds (this session): the GPU tests that run the copies
# (kernels: every level, vector+pipeline bit for bit against vectorize; fuzz; nvrtc), then
# the harness for the radius-8 star at vector+z, vector+pipeline and `tune` (fresh search).
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 300 bash .gpu/run-gpu.sh kernels fuzz nvrtc > $OUT/run-gpu-a.log 2>&1
tail -5 $OUT/run-gpu-a.log
grep -E "test result|FAILED|panicked" $OUT/run-gpu-a.log | head -20
date -u
export MINT_DEVICE=cuda
mkdir -p $OUT/harness
left=$((585 - $(date +%s) + T0))
echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 10)) .gpu/bin/mint--bench--stencils --kernels star3d-r8 \
  --levels vector+z,vector+pipeline,tune --precision f32,f64 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
grep "k_tune_0 on" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-150
date -u
