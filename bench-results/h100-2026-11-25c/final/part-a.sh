#!/bin/bash
# H100, this session's code (`vectorize` with `pipeline`: the ring path): kernels (every
# level, vector+pipeline included, and the bit-for-bit test against vectorize alone),
# fuzz, nvrtc, tune, regressions, registers; then the harness for the radius-8 and
# radius-4 stars at vector+z, vector+pipeline and `tune` (fresh searches).
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 330 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions registers > $OUT/run-gpu-a.log 2>&1
tail -9 $OUT/run-gpu-a.log
grep -E "vector_pipeline|runs on the GPU|FAILED|panicked" $OUT/run-gpu-a.log | head -20
date -u
export MINT_DEVICE=cuda
mkdir -p $OUT/harness
left=$((585 - $(date +%s) + T0))
echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 10)) .gpu/bin/mint--bench--stencils --kernels star3d-r8,star3d-r4 \
  --levels vector+z,vector+pipeline,tune --precision f32,f64 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
grep "k_tune_0 on" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-150
date -u
