#!/bin/bash
# H100: the halo prototype (halo/: Mint's ring kernels as printed and with the plane's
# interior stored from the z queue), then the GPU tests tune, regressions and registers.
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
cd bench-results/h100-2026-11-25d/halo
timeout 330 python3 halo.py > $OUT/halo.log 2>&1
tail -16 $OUT/halo.log
cd - > /dev/null
left=$((585 - $(date +%s) + T0)); echo "seconds left: $left"
timeout $((left - 5)) bash .gpu/run-gpu.sh tune regressions registers > $OUT/run-gpu-b.log 2>&1
grep -E "test result|FAILED|panicked" $OUT/run-gpu-b.log | head
date -u
