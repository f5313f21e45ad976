#!/bin/bash
# H100: place.py (the pipelined radius-4 star with unew at several offsets from u)
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 300 python3 bench-results/h100-2026-11-25b/place/place.py 2>&1 | tee $OUT/place.log
date -u
