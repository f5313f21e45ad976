#!/bin/bash
# H100, final code: the harness for the 3-D suite at vector+z, opt-3+pipeline and tune
# (a warm-up region first for every row: `tune` searches there)
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
MINT_REPORT=1 timeout 560 .gpu/bin/mint--bench--stencils --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt,heat3d-7pt,poisson3d-19pt \
  --levels vector+z,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
grep "chose" $OUT/stencils-report.log | grep -v "\[[0-9][0-9], " | cut -c1-260
date -u
