#!/bin/bash
# H200: the seismic bench512 with `tune` searched afresh under fixed register caps for the
# vectorized kernels (MINT_MAX_REGISTERS=N keeps N even where the kernel spills; "auto" is
# the default, 64 raised until nothing spills). Usage: caps.sh CAP...
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
for cap in "$@"; do
  if [ "$cap" = auto ]; then unset MINT_MAX_REGISTERS; else export MINT_MAX_REGISTERS=$cap; fi
  MINT_TUNE=fresh MINT_REPORT=1 timeout 280 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/seismic512-cap$cap.log 2>&1
  echo "== cap $cap rc=$?"
  grep -E "kernels \(CUDA|chose" $OUT/seismic512-cap$cap.log | grep -E "kernels|time_loop_(0|6) " | cut -c1-300
  date -u
done
