#!/bin/bash
# H100, the final code (two y rows on the ring path, plane copies as before this session):
# the radius-8 star's `tune` (fresh searches) first, then the GPU tests that run the ring
# path (kernels, fuzz), then `tune` for the radius-4 star, the box and the 13-point star.
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda
mkdir -p $OUT/harness-r8 $OUT/harness-b
MINT_TUNE=fresh MINT_REPORT=1 timeout 100 .gpu/bin/mint--bench--stencils --kernels star3d-r8 \
  --levels vector+pipeline,tune --precision f64,f32 --size 512 --out $OUT/harness-r8 2> $OUT/harness-r8/report.log | grep "^|"
grep "chose" $OUT/harness-r8/report.log | grep "504, 504\|496, 496" | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-200
date -u
unset MINT_DEVICE
timeout 300 bash .gpu/run-gpu.sh kernels fuzz > $OUT/run-gpu-g.log 2>&1
grep -E "test result|FAILED|panicked|runs on the GPU" $OUT/run-gpu-g.log | head -20
date -u
export MINT_DEVICE=cuda
left=$((560 - $(date +%s) + T0)); echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 5)) .gpu/bin/mint--bench--stencils --kernels star3d-r4,box3d-27pt,star3d-13pt \
  --levels tune --precision f64,f32 --size 512 --out $OUT/harness-b 2> $OUT/harness-b/report.log | grep "^|"
date -u
