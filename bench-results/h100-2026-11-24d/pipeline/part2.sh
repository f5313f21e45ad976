#!/bin/bash
# H100: the seismic tests and bench512 with `tune` (pipeline candidates included)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
date -u
bash .gpu/run-gpu.sh seismic 2>&1 | tail -5
export MINT_DEVICE=cuda
MINT_REPORT=1 .gpu/examples/seismic examples/seismic/bench512.toml > $OUT/seismic512.log 2>&1
grep -E "kernels|tuned|of copy|steps in|chose" $OUT/seismic512.log | cut -c1-400
date -u
