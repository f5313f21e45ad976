#!/bin/bash
# H100, final code (swizzle, the second round, the harness's warm-up region): the GPU
# tests that run generated kernels (kernels, fuzz, nvrtc, tune, regressions), then the
# seismic bench512: a run that searches and one that reads the stored choices
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 400 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions 2>&1 | tee $OUT/run-gpu-a.log | grep -E "^(ok|FAIL)|passed|failed" | tail -20
date -u
export MINT_DEVICE=cuda
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 150 $S examples/seismic/bench512.toml > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|tuned in|chose" $OUT/seismic512-search.log | grep -E "kernels|tuned|time_loop_(0|6) " | cut -c1-420
MINT_REPORT=1 timeout 60 $S examples/seismic/bench512.toml > $OUT/seismic512-stored.log 2>&1
grep -E "kernels \(CUDA" $OUT/seismic512-stored.log
date -u
