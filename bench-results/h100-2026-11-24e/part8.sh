#!/bin/bash
# H100, final code (vectorize: z queues for every vector, y rows per thread, prefetch
# only within QUEUE_REGISTERS): the GPU tests that run vectorized kernels, then the
# harness for the box and the radius-4/8 stars with `tune`
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 450 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions 2>&1 | tee $OUT/run-gpu-a.log | grep -E "^(ok|FAIL)|passed|failed" | tail -20
date -u
export MINT_DEVICE=cuda
MINT_REPORT=1 timeout 120 .gpu/bin/mint--bench--stencils --kernels box3d-27pt,star3d-r4 \
  --levels vector+z,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
grep "chose" $OUT/stencils-report.log | grep "510, 510\|504, 504" | cut -c1-330
date -u
