#!/bin/bash
# H100, final code: every other test binary; then the radius-4 star in f32 with `tune`
# (the harness, a fresh search) and, time permitting, the seismic bench512's search
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda INSTA_WORKSPACE_ROOT=$PWD
for b in .gpu/bin/*; do
  base=$(basename "$b")
  case "$base" in *--bench--*|*--proc-macro--*|*--test--kernels|*--test--fuzz|*--test--nvrtc|*--test--tune|*--test--regressions|*--test--registers) continue;; esac
  out=$(timeout 300 "$b" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "ok    $base  $(printf '%s\n' "$out" | grep -E '^test result:' | tail -1)"
  else echo "FAIL  $base"; printf '%s\n' "$out" | tail -30; fi
done > $OUT/run-gpu-b.log 2>&1
grep -c "^ok" $OUT/run-gpu-b.log; grep -A30 "^FAIL" $OUT/run-gpu-b.log | head -40
date -u
mkdir -p $OUT/r4
MINT_TUNE=fresh MINT_REPORT=1 timeout 60 .gpu/bin/mint--bench--stencils --kernels star3d-r4 --levels tune --precision f32 --size 512 --out $OUT/r4 2> $OUT/r4/report.log | grep "^|"
left=$((560 - $(date +%s) + T0))
echo "seconds left: $left"
if [ $left -gt 150 ]; then
  MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 10)) .gpu/examples/seismic examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
  grep -E "kernels \(CUDA|chose|search took" $OUT/seismic512-search.log | grep -E "kernels|time_loop_(0|6)[ :]" | cut -c1-200
fi
date -u
