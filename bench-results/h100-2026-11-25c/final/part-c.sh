#!/bin/bash
# H100, this session's code: the harness's `tune` (fresh searches) for the other 3-D
# kernels whose goals #15 names (the box, the 13-point star), then the seismic bench512
# with a fresh `tune` search.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
mkdir -p $OUT/harness-b
MINT_TUNE=fresh MINT_REPORT=1 timeout 330 .gpu/bin/mint--bench--stencils --kernels box3d-27pt,star3d-13pt \
  --levels tune --precision f32,f64 --size 512 --out $OUT/harness-b 2> $OUT/harness-b/report.log | grep "^|"
grep "k_tune_0 on" $OUT/harness-b/report.log | grep -v "\[[0-9][0-9], " | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-150
left=$((585 - $(date +%s) + T0)); echo "seconds left: $left"
if [ $left -gt 50 ]; then
  MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 5)) .gpu/examples/seismic examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
  grep -E "kernels \(CUDA" $OUT/seismic512-search.log
fi
date -u
