#!/bin/bash
# H100, the review commit 8d94017 (one predicate for where swizzle applies): the test
# binaries that run generated kernels (kernels: every level and tune candidate against the
# serial references; fuzz: swizzle in a quarter of its cases; nvrtc, tune, regressions)
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 540 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions 2>&1 | tee $OUT/run-gpu-a.log | grep -E "^(ok|FAIL)|passed|failed" | tail -8
date -u
