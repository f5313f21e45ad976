#!/bin/bash
# H100, the rounds code (two y rows on the ring path, copies in rounds; results in rounds/): every test binary part-d did not
# run (it ran kernels, fuzz, nvrtc and tune), then the harness's `tune` (fresh searches)
# for the radius-4 star, the box and the 13-point star in f32 and f64.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda INSTA_WORKSPACE_ROOT=$PWD
for b in .gpu/bin/*; do
  base=$(basename "$b")
  case "$base" in *--bench--*|*--proc-macro--*|*--test--kernels|*--test--fuzz|*--test--nvrtc|*--test--tune) continue;; esac
  out=$(timeout 200 "$b" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "ok    $base  $(printf '%s\n' "$out" | grep -E '^test result:' | tail -1)"
  else echo "FAIL  $base"; printf '%s\n' "$out" | tail -30; fi
done > $OUT/run-gpu-e.log 2>&1
grep -c "^ok" $OUT/run-gpu-e.log; grep -A30 "^FAIL" $OUT/run-gpu-e.log | head -40
date -u
mkdir -p $OUT/harness-e
left=$((585 - $(date +%s) + T0)); echo "seconds left: $left"
MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 5)) .gpu/bin/mint--bench--stencils --kernels star3d-r4,box3d-27pt,star3d-13pt \
  --levels tune --precision f32,f64 --size 512 --out $OUT/harness-e 2> $OUT/harness-e/report.log | grep "^|"
grep "chose" $OUT/harness-e/report.log | sed -e 's/ on NVIDIA.*chose/ chose/' | cut -c1-170
date -u
