#!/bin/bash
# H200, branch zunroll-exp (zunroll.patch): the z steps of a vectorized kernel's chunk are
# unrolled completely up to 16 (`#pragma unroll`). MINT_ZUNROLL=N prints `#pragma unroll N`
# instead. For each setting: the seismic bench512 with `tune` searched afresh, then the
# stored choices; the choices, their registers and spills, and the kernels' times.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
for u in full 1 2 full; do
  if [ $u = full ]; then unset MINT_ZUNROLL; else export MINT_ZUNROLL=$u; fi
  left=$((560 - $(date +%s) + T0)); [ $left -lt 60 ] && break
  MINT_TUNE=fresh MINT_REPORT=1 timeout $((left - 30)) $S examples/seismic/bench512.toml --duration 0.6 > $OUT/search-$u.log 2>&1
  MINT_REPORT=1 timeout 40 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/stored-$u.log 2>&1
  echo "== unroll $u: $(grep -oE "velocity [0-9.]+ ms|stress [0-9.]+ ms|[0-9.]+% in this solver" $OUT/stored-$u.log | tr '\n' ' ')"
  grep -E "tune seismic::solver::time_loop_(0|6) " $OUT/search-$u.log | sed -e 's/.*time_loop_\([06]\) on [^:]*: chose/\1 chose/' | cut -c1-100
  grep -oE "time_loop_(0|6) on.*[0-9]+ rejected" $OUT/search-$u.log | grep -oE "time_loop_[06]|[0-9]+ rejected" | tr '\n' ' '; echo
  awk '/mint report: kernel time_loop_(0|6) /{k=$4} /registers\/thread/{if(k!=""){print "  " k ": " substr($0, index($0, "registers/thread")); k=""}}' $OUT/stored-$u.log | cut -c1-150
done
date -u
