#!/bin/bash
# H100, the final commit (the pack of d93f572: stored choices version 2, the candidate
# list written with named option sets): the autotuner's and the generator's test binaries,
# then the seismic bench512, a run that searches and one that reads the stored choices
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 200 bash .gpu/run-gpu.sh tune nvrtc fuzz regressions 2>&1 | tee $OUT/run-gpu-c.log | grep -E "^(ok|FAIL)|passed|failed" | tail -8
export MINT_DEVICE=cuda
S=.gpu/examples/seismic
MINT_REPORT=1 timeout 200 $S examples/seismic/bench512.toml > $OUT/seismic512-search.log 2>&1
grep -E "kernels \(CUDA|tuned in|chose" $OUT/seismic512-search.log | grep -E "kernels|tuned|time_loop_(0|6) " | cut -c1-300
MINT_REPORT=1 timeout 60 $S examples/seismic/bench512.toml > $OUT/seismic512-stored.log 2>&1
grep -E "kernels \(CUDA|tuned in" $OUT/seismic512-stored.log
date -u
