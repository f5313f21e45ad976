#!/bin/bash
# H200, the code with `roll_z`: the seismic bench512 with `tune` (fresh search, then the
# stored choices twice), the choices' registers.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 200 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-search.log 2>&1
grep -E "tune seismic::solver::time_loop_(0|6) " $OUT/seismic512-search.log | cut -c1-600
grep -E "time_loop_(0|6): the search took" $OUT/seismic512-search.log
for i in 1 2; do
  MINT_REPORT=1 timeout 60 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-stored$i.log 2>&1
  grep -E "kernels \(CUDA" $OUT/seismic512-stored$i.log
done
awk '/mint report: kernel time_loop_(0|6) /{k=$4; print "  " $0} /registers\/thread/{if(k!=""){print "  " k ": " substr($0, index($0, "registers/thread")); k=""}}' $OUT/seismic512-stored1.log | cut -c1-200
date -u
