#!/bin/bash
# H100: NCCL halos on slabs of one GPU, with tests running concurrently; timings with and without
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 MINT_QUIET=1 MINT_REQUIRE_NCCL=1
bash .gpu/run-gpu.sh --unpack
date -u
echo "=== test decomposition"; MINT_DEVICE=cuda timeout 300 .gpu/bin/mint--test--decomposition 2>&1 | grep -E "^test |test result|panicked|differs|skipped|called" | cut -c1-400
echo "=== test mpi_ranks"; MINT_DEVICE=cuda timeout 400 .gpu/bin/mint--test--mpi_ranks --nocapture 2>&1 | grep -E "mpirun -np|differs|test result|panicked|skipped" | cut -c1-300
H=".gpu/examples/heat3d --steps 100 --precision f32 --level opt-3 --n 512"
for nc in 0 1; do
  echo "=== heat3d: cuda:0,0 MINT_NCCL=$nc"; MINT_NCCL=$nc MINT_DEVICE=cuda:0,0 timeout 60 $H 2>&1 | grep -E "time per step|whole"
  echo "=== heat3d: mpirun -np 2 MINT_NCCL=$nc"; timeout 120 mpirun --bind-to none -np 2 -x MINT_NCCL=$nc -x MINT_DEVICE=cuda $H 2>&1 | grep -E "time per step|whole" | head -2
done
date -u
