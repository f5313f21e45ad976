#!/bin/bash
# H100: the ring prototype with two y rows per thread (rows/ring.py, rows.log), the plane
# copies in known rounds, at register caps 128, 168 and 255.
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
cd bench-results/h100-2026-11-25d/rows
timeout 560 python3 ring.py > $OUT/rows.log 2>&1
tail -14 $OUT/rows.log
date -u
