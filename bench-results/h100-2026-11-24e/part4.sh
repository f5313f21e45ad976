#!/bin/bash
# H100: the harness at vector+z, opt-3+pipeline and tune for the 3-D suite kernels, then
# the seismic bench512 with `tune`
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
# the NCCL test that failed in part3 (3 slabs on one GPU: no exchange went through NCCL), again, with why
MINT_DEVICE=cuda MINT_REPORT=1 NCCL_DEBUG=WARN timeout 60 .gpu/bin/mint--test--decomposition nccl_halos > $OUT/nccl-rerun.log 2>&1; echo "nccl rerun rc=$?"
grep -E "test nccl|NCCL not used|NCCL WARN|panicked|no exchange" $OUT/nccl-rerun.log | sort | uniq -c | head -20
export MINT_DEVICE=cuda
MINT_REPORT=1 timeout 330 .gpu/bin/mint--bench--stencils --kernels star3d-r4,star3d-r8,box3d-27pt,star3d-13pt,heat3d-7pt,poisson3d-19pt \
  --levels vector+z,opt-3+pipeline,tune --precision f64,f32 --size 512 --out $OUT 2> $OUT/stencils-report.log | grep "^|"
date -u
MINT_REPORT=1 timeout 230 .gpu/examples/seismic examples/seismic/bench512.toml > $OUT/seismic512.log 2>&1
grep -E "kernels|tuned|of copy|steps in|chose" $OUT/seismic512.log | cut -c1-400
date -u
