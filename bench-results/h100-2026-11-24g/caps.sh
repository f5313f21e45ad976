#!/bin/bash
# H100: the radius-4 and radius-8 stars' `tune` rows searched afresh under fixed register
# caps for the vectorized kernels (MINT_MAX_REGISTERS=N keeps N even where the kernel
# spills; "auto": 64, raised until nothing spills). Usage: caps.sh CAP...
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
B=.gpu/bin/mint--bench--stencils
for cap in "$@"; do
  if [ "$cap" = auto ]; then unset MINT_MAX_REGISTERS; else export MINT_MAX_REGISTERS=$cap; fi
  mkdir -p $OUT/cap$cap
  echo "== cap $cap"
  MINT_TUNE=fresh MINT_REPORT=1 timeout 200 $B --kernels star3d-r4,star3d-r8 --levels tune --precision f32,f64 --size 512 \
    --out $OUT/cap$cap 2> $OUT/cap$cap/report.log | grep "^| star"
  grep "chose" $OUT/cap$cap/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-200
  date -u
done
