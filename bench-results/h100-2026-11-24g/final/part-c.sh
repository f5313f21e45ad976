#!/bin/bash
# H100: the 2-D kernels of the suite (8192²) at every level, every tune candidate
# (--tune) and `tune` itself (a fresh search), f64 and f32: "tune of best" for 2-D
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
mkdir -p $OUT/harness2d
MINT_TUNE=fresh MINT_REPORT=1 timeout 520 .gpu/bin/mint--bench--stencils --kernels heat2d-5pt,star2d-r1,star2d-r2,star2d-r4,star2d-r8 \
  --precision f64,f32 --tune --out $OUT/harness2d 2> $OUT/harness2d/report.log | grep "^|"
grep "chose" $OUT/harness2d/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-200
date -u
