#!/bin/bash
# H100, the code with `roll_z`: kernels (every level and tune candidate against the serial
# references; the tune level's search now has the rolled candidates), fuzz (roll_z in a
# third of the generated kernels), nvrtc, tune, regressions, registers; then the seismic
# bench512 with `tune` (fresh search, stored choices) and, time permitting, the harness's
# `tune` for the stars and the box (fresh searches).
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 400 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions registers > $OUT/run-gpu-a.log 2>&1
tail -9 $OUT/run-gpu-a.log
date -u
export MINT_DEVICE=cuda
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 120 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "tune seismic::solver::time_loop_(0|6) " $OUT/seismic512-search.log | sed -e 's/.*time_loop_\([06]\) on [^:]*: chose/\1 chose/' | cut -c1-110
MINT_REPORT=1 timeout 40 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-stored.log 2>&1
grep -E "kernels \(CUDA" $OUT/seismic512-stored.log
left=$((575 - $(date +%s) + T0))
echo "seconds left: $left"
mkdir -p $OUT/harness
if [ $left -gt 60 ]; then
  MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 10)) .gpu/bin/mint--bench--stencils --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt \
    --levels tune --precision f32,f64 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
  grep "k_tune_0 on" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-150
fi
date -u
