#!/bin/bash
# H100, two y rows per thread on the ring path, plane copies in rounds (results in rounds/): the GPU tests that run it (kernels:
# vector+pipeline bit for bit against vectorize at one and two rows per thread; fuzz;
# nvrtc; tune), then the harness's radius-8 star at vector+pipeline and `tune` (fresh).
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 330 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune > $OUT/run-gpu-d.log 2>&1
grep -E "test result|FAILED|panicked|runs on the GPU" $OUT/run-gpu-d.log | head -20
date -u
export MINT_DEVICE=cuda
mkdir -p $OUT/harness
left=$((585 - $(date +%s) + T0))
echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 10)) .gpu/bin/mint--bench--stencils --kernels star3d-r8 \
  --levels vector+pipeline,tune --precision f64,f32 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
grep "k_tune_0 on\|chose" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-170
date -u
