#!/bin/bash
# H100: `pipeline` (cp.async rings) checked and measured: the suite at every level against
# its serial references (opt-3+pipeline included), the fuzzer and the tuner on the GPU,
# then the harness at opt-3+y, opt-3+pipeline and tune
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh kernels optimizer tune fuzz regressions nvrtc 2>&1 | tail -40
export MINT_DEVICE=cuda
MINT_REPORT=1 .gpu/bin/mint--bench--stencils --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt,heat3d-7pt,poisson3d-19pt \
  --levels opt-3+y,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
date -u
