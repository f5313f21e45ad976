#!/bin/bash
# H100: every test binary but seismic, MINT_DEVICE=cuda (the session's final code)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 MINT_REQUIRE_NCCL=1
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh optimizer fault transfer device_fns directives graphs packing baseline cardiac shrink tune analyzer smoke harris stream structs interp fuzz regressions jit_cache decomposition oom mpi mpi_ranks large user_crate generic harness multigrid nvrtc compile_fail registers kernels
date -u
