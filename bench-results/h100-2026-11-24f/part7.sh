#!/bin/bash
# H100, final code: every other test binary (part5 ran kernels, fuzz, nvrtc, tune,
# regressions)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda INSTA_WORKSPACE_ROOT=$PWD
pass=0; fail=0
for b in .gpu/bin/*; do
  base=$(basename "$b")
  case "$base" in *--bench--*|*--proc-macro--*|*--test--kernels|*--test--fuzz|*--test--nvrtc|*--test--tune|*--test--regressions) continue;; esac
  out=$(timeout 300 "$b" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then pass=$((pass+1)); echo "ok    $base  $(printf '%s\n' "$out" | grep -E '^test result:' | tail -1)"
  else fail=$((fail+1)); echo "FAIL  $base"; printf '%s\n' "$out" | tail -30; fi
done > $OUT/run-gpu-b.log 2>&1
grep -E "^(ok|FAIL)" $OUT/run-gpu-b.log | cut -c1-150; grep -c "^ok" $OUT/run-gpu-b.log; grep -A30 "^FAIL" $OUT/run-gpu-b.log | head -40
date -u
