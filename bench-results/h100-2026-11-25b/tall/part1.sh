#!/bin/bash
# H100: tall.py (taller vectorize blocks for the stars, rolled and unrolled z steps)
export NCCL_NVLS_ENABLE=0 PATH=$PATH:/usr/local/cuda/bin
nvidia-smi -L; date -u; which nvcc; nvcc --version | tail -2
timeout 560 python3 bench-results/h100-2026-11-25b/tall/tall.py > $OUT/tall.log 2>&1; echo "rc=$?"
grep -A20 summary $OUT/tall.log
date -u
