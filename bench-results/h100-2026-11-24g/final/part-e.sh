#!/bin/bash
# H100, the commit that prints every float sum with a product as an explicit fma: fuzz,
# tune, regressions, nvrtc; then heat3d-7pt-var with every level and candidate (--tune)
# and `tune` (fresh): no candidate rejected, tune of best
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 200 bash .gpu/run-gpu.sh fuzz tune regressions nvrtc > $OUT/run-gpu-e.log 2>&1
tail -6 $OUT/run-gpu-e.log
export MINT_DEVICE=cuda
mkdir -p $OUT/heat7var
MINT_TUNE=fresh MINT_REPORT=1 timeout 150 .gpu/bin/mint--bench--stencils --kernels heat3d-7pt-var \
  --levels baseline,vector+z,tune --precision f32,f64 --tune --size 512 --out $OUT/heat7var 2> $OUT/heat7var/report.log | grep "^|"
grep "k_tune_0 on" $OUT/heat7var/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-330
date -u
