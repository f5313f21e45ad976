#!/bin/bash
# H100: every test binary on the final code (vectorize's z queues for every vector read
# at several planes)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 570 bash .gpu/run-gpu.sh 2>&1 | tee $OUT/run-gpu.log | grep -E "^(ok|FAIL)|passed|failed" | tail -60
date -u
