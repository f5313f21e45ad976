#!/bin/bash
# H100: racecheck, synccheck and memcheck over opt-3+pipeline of the radius-4 and radius-8
# stars, the box, the 13-point star, heat and Poisson-19 in f32 and f64 at 67^3 (the
# harness checks each against its serial reference), then the suite at every level and
# the fuzzer without the sanitizer. (The full sweep, every level and candidate under
# racecheck with a cold JIT cache, did not finish in 600 s.)
export MINT_DEVICE=cuda NCCL_NVLS_ENABLE=0
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck memcheck; do
  t0=$(date +%s)
  "$cs" --tool $tool --print-limit 20 --error-exitcode 99 .gpu/bin/mint--bench--stencils \
    --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt,heat3d-7pt,poisson3d-19pt --levels opt-3+pipeline \
    --precision f64,f32 --size 67 --out /tmp/san-$tool > $OUT/$tool-pipeline.log 2>&1
  rc=$?
  echo "$tool rc=$rc $(( $(date +%s) - t0 )) s: $(grep -E 'SUMMARY' $OUT/$tool-pipeline.log | tr '\n' ' ') checked ok: $(grep -cE ' ok ?$| ok \|' $OUT/$tool-pipeline.log)"
done
grep -E "^\|" $OUT/memcheck-pipeline.log | head -16
bash .gpu/run-gpu.sh kernels fuzz optimizer 2>&1 | tail -5
