#!/bin/bash
# H200: the harness at opt-3+y, opt-3+pipeline and tune for the radius-4 star and the box,
# then the seismic bench512 with `tune` (pipeline candidates included)
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
MINT_REPORT=1 .gpu/bin/mint--bench--stencils --kernels star3d-r4,box3d-27pt \
  --levels opt-3+y,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
MINT_REPORT=1 .gpu/examples/seismic examples/seismic/bench512.toml > $OUT/seismic512.log 2>&1
grep -E "kernels|of copy|steps in" $OUT/seismic512.log | cut -c1-400
grep "chose" $OUT/seismic512.log | grep "512, 512, 512" | cut -c1-260
date -u
