#!/bin/bash
# H100: is the slower `tune` after a search transient (it recovers within the region) or
# bound to the region? Two `tune` rows per kernel with MINT_TUNE=fresh: the first region
# searches, the second uses the choice from memory. Per-launch samples summarized per 100
# launches. The radius-4 star at 2000 launches per region; heat3d and the box at 100.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
B=.gpu/bin/mint--bench--stencils
go() { # name kernel precision steps
  mkdir -p $OUT/$1
  MINT_HARNESS_SAMPLES=1 MINT_TUNE=fresh MINT_REPORT=1 timeout 200 $B --kernels $2 --precision $3 --size 512 \
    --levels tune,tune --steps $4 --reps 5 --out $OUT/$1 2> $OUT/$1.log | grep "^| "
  grep -E "^harness samples" $OUT/$1.log | python3 -c "
import sys, statistics
for line in sys.stdin:
    s = [float(x) for x in line.split(':', 1)[1].split()]
    print('   ', ' '.join('%.3f' % statistics.median(s[i:i + 100]) for i in range(0, len(s), 100)))"
  grep -E "chose" $OUT/$1.log | grep -v "\[6\|\[7" | cut -c1-200
}
go r4 star3d-r4 f64 400
go heat heat3d-7pt f64 20
go box box3d-27pt f64 20
go r4f32 star3d-r4 f32 20
date -u
