#!/bin/bash
# H100: seismic and kernels tests, then the transfer and stream benches and heat3d splits (final code)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 MINT_QUIET=1
date -u
bash .gpu/run-gpu.sh seismic kernels
.gpu/bin/mint--bench--transfer --bench 2>&1 | grep -v "^mint:"
timeout 200 .gpu/bin/mint--bench--stream --bench --harris 1024 2>&1 | grep -v "^mint:"
H=".gpu/examples/heat3d --steps 100 --precision f32 --level opt-3 --n 512"
echo "=== heat3d one GPU"; MINT_DEVICE=cuda timeout 60 $H 2>&1 | grep -E "time per step"
for o in 0 1; do
  echo "=== heat3d cuda:0,0 MINT_OVERLAP=$o"; MINT_OVERLAP=$o MINT_DEVICE=cuda:0,0 timeout 60 $H 2>&1 | grep -E "time per step"
  echo "=== heat3d mpirun -np 2 (GPU 0 shared) MINT_OVERLAP=$o"; timeout 120 mpirun --bind-to none -np 2 -x MINT_OVERLAP=$o -x MINT_DEVICE=cuda $H 2>&1 | grep -E "time per step" | head -1
done
echo "=== heat3d mpirun -np 2 MINT_NCCL=1 (refused before NCCL is touched)"; timeout 120 mpirun --bind-to none -np 2 -x MINT_REPORT=1 -x MINT_NCCL=1 -x MINT_DEVICE=cuda $H 2>&1 | grep -E "time per step|NCCL" | head -3
echo "=== harris example --pinned --stream 1024"; MINT_DEVICE=cuda timeout 120 .gpu/examples/harris --phantom 1024 --pinned --stream --out /tmp/h 2>&1 | grep -E "page-locked|streamed|scores|corners found"
date -u
