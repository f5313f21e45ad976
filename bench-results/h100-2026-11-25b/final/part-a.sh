#!/bin/bash
# H100, this session's code (roll_z decided in optimizer::vector, the fma rule as one
# branch, the rolled 64x4x16 candidate): kernels, fuzz, nvrtc, tune, regressions,
# registers; then the harness's `tune` for the stars and the box (fresh searches) and the
# seismic bench512 with `tune` (fresh search), as time allows.
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
timeout 330 bash .gpu/run-gpu.sh kernels fuzz nvrtc tune regressions registers > $OUT/run-gpu-a.log 2>&1
tail -9 $OUT/run-gpu-a.log
date -u
export MINT_DEVICE=cuda
mkdir -p $OUT/harness
left=$((585 - $(date +%s) + T0))
echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 70)) .gpu/bin/mint--bench--stencils --kernels star3d-r8,star3d-r4,box3d-27pt,star3d-13pt \
  --levels tune --precision f32,f64 --size 512 --out $OUT/harness 2> $OUT/harness/report.log | grep "^|"
grep "k_tune_0 on" $OUT/harness/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-150
left=$((585 - $(date +%s) + T0))
echo "seconds left: $left"
if [ $left -gt 50 ]; then
  S=.gpu/examples/seismic
  MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 5)) $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
  grep -E "kernels \(CUDA" $OUT/seismic512-search.log
fi
date -u
