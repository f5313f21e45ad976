#!/bin/bash
# H100: vectorize's z queues for every vector read at several planes. The box and the
# radius-4/8 stars with `vectorize` at several tiles (CuPy, dumped kernels), then the
# harness for the box at vector+z, opt-3+pipeline and tune
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
timeout 330 python3 bench-results/h100-2026-11-24e/boxq/tiles.py > $OUT/tiles.log 2>&1; echo "tiles rc=$?"
grep -A30 summary $OUT/tiles.log
date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
export MINT_DEVICE=cuda
MINT_REPORT=1 timeout 220 .gpu/bin/mint--bench--stencils --kernels box3d-27pt \
  --levels vector+z,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
grep "chose" $OUT/stencils-report.log | grep "510, 510" | cut -c1-420
date -u
