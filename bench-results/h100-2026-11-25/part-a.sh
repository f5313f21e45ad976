#!/bin/bash
# H100, main with the explicit fma restored: kernels (every level and tune candidate
# against the serial references), fuzz, nvrtc, tune, regressions, registers; then
# heat3d-7pt-var with every level and candidate (--tune) and `tune` searched afresh:
# no candidate rejected, tune of the best variant
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 330 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions registers > $OUT/run-gpu-a.log 2>&1
tail -9 $OUT/run-gpu-a.log
date -u
export MINT_DEVICE=cuda
mkdir -p $OUT/heat7var
left=$((570 - $(date +%s) + T0))
MINT_TUNE=fresh MINT_REPORT=1 timeout $left .gpu/bin/mint--bench--stencils --kernels heat3d-7pt-var \
  --levels baseline,vector+z,tune --precision f32,f64 --tune --size 512 --out $OUT/heat7var 2> $OUT/heat7var/report.log | grep "^|"
grep "k_tune_0 on" $OUT/heat7var/report.log | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-400
grep -c -i "reject\|differ" $OUT/heat7var/report.log
date -u
