#!/bin/bash
# H100, final code: kernels (every level and tune candidate against the serial
# references), fuzz, nvrtc, tune, regressions, registers
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 570 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions registers > $OUT/run-gpu-a.log 2>&1
tail -9 $OUT/run-gpu-a.log
date -u
