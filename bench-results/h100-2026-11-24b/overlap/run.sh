#!/bin/bash
# H100 (one GPU): overlapped halo exchanges, on/off, on slabs of one GPU and on 2 MPI ranks sharing it
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 MINT_QUIET=1
bash .gpu/run-gpu.sh --unpack
nvidia-smi -L; date -u
for t in decomposition directives transfer stream fault; do
  echo "=== test $t"; MINT_DEVICE=cuda timeout 300 .gpu/bin/mint--test--$t 2>&1 | grep -E "test result|panicked|differs" | cut -c1-300
done
echo "=== test mpi_ranks (2 ranks sharing GPU 0 with MINT_DEVICE=cuda)"
MINT_DEVICE=cuda timeout 300 .gpu/bin/mint--test--mpi_ranks --nocapture 2>&1 | grep -E "mpirun -np|differs|test result|panicked" | cut -c1-300
H=".gpu/examples/heat3d --steps 100 --precision f32 --level opt-3 --n 512"
echo "=== heat3d 512^3 f32: one GPU"; MINT_DEVICE=cuda timeout 60 $H 2>&1 | grep -E "time per step|whole"
for o in 0 1; do
  echo "=== heat3d: cuda:0,0 MINT_OVERLAP=$o"; MINT_OVERLAP=$o MINT_DEVICE=cuda:0,0 timeout 60 $H 2>&1 | grep -E "time per step|whole"
  echo "=== heat3d: mpirun -np 2 (sharing GPU 0) MINT_OVERLAP=$o"; timeout 120 mpirun --bind-to none -np 2 -x MINT_OVERLAP=$o -x MINT_DEVICE=cuda $H 2>&1 | grep -E "time per step|whole" | head -2
done
date -u
