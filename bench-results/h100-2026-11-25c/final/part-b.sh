#!/bin/bash
# H100, this session's code: every other test binary (kernels, fuzz and nvrtc ran in
# part-a; tune, regressions and registers did not fit its time limit, so they run here).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda INSTA_WORKSPACE_ROOT=$PWD
for b in .gpu/bin/*; do
  base=$(basename "$b")
  case "$base" in *--bench--*|*--proc-macro--*|*--test--kernels|*--test--fuzz|*--test--nvrtc) continue;; esac
  out=$(timeout 300 "$b" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "ok    $base  $(printf '%s\n' "$out" | grep -E '^test result:' | tail -1)"
  else echo "FAIL  $base"; printf '%s\n' "$out" | tail -30; fi
done > $OUT/run-gpu-b.log 2>&1
grep -c "^ok" $OUT/run-gpu-b.log; grep -A30 "^FAIL" $OUT/run-gpu-b.log | head -40
date -u
date -u
