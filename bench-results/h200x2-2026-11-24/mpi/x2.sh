#!/bin/bash
# nvidia-h200-x2: regions across 2 MPI ranks on 2 GPUs, against one process on 2 GPUs and one GPU
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 MINT_QUIET=1
bash .gpu/run-gpu.sh --unpack
nvidia-smi -L; nvidia-smi topo -m | head -5
date -u
echo "=== mpi_ranks (MINT_DEVICE=cuda: 2 ranks on GPUs 0 and 1, bitwise against one GPU)"
MINT_DEVICE=cuda timeout 200 .gpu/bin/mint--test--mpi_ranks --nocapture 2>&1 | grep -E "mpirun -np|differs|test result|panicked|peak" | cut -c1-300
H=".gpu/examples/heat3d --steps 100 --precision f32 --level opt-3"
for n in 512 768; do
  echo "=== heat3d n=$n: one GPU"; MINT_DEVICE=cuda timeout 60 $H --n $n 2>&1 | grep -E "time per step|rate"
  echo "=== heat3d n=$n: cuda:all (one process)"; MINT_DEVICE=cuda:all timeout 60 $H --n $n 2>&1 | grep -E "time per step|rate|whole"
  echo "=== heat3d n=$n: mpirun -np 2 (one GPU each)"; timeout 90 mpirun --bind-to none -np 2 -x MINT_DEVICE=cuda $H --n $n 2>&1 | grep -E "time per step|rate|whole" | head -2
done
S=".gpu/examples/seismic examples/seismic/loh1.toml --out /tmp/s"
echo "=== seismic LOH.1 50 m: one GPU"; MINT_DEVICE=cuda timeout 90 $S 2>&1 | grep -E "steps in|kernels"
echo "=== seismic: cuda:all"; MINT_DEVICE=cuda:all timeout 90 $S 2>&1 | grep -E "steps in|kernels"
echo "=== seismic: mpirun -np 2"; timeout 100 mpirun --bind-to none -np 2 -x MINT_DEVICE=cuda $S 2>&1 | grep -E "steps in|kernels" | head -2
echo "=== decomposition (cuda:all bitwise)"; MINT_DEVICE=cuda timeout 150 .gpu/bin/mint--test--decomposition 2>&1 | grep -E "test result|panicked|differs" | cut -c1-300
date -u
