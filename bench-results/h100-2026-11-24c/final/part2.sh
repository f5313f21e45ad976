#!/bin/bash
# H100: the seismic tests, the stencil harness with `tune` for the 3-D kernels, and the
# seismic bench512 with `tune` (the session's final code)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
date -u
bash .gpu/run-gpu.sh seismic
export MINT_DEVICE=cuda
MINT_REPORT=1 .gpu/bin/mint--bench--stencils --kernels heat3d-7pt,poisson3d-19pt,star3d-13pt,box3d-27pt,star3d-r4,star3d-r8 \
  --levels opt-3,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
.gpu/examples/seismic examples/seismic/bench512.toml 2>&1 | grep -E "kernels|tuned|of copy|steps in"
date -u
