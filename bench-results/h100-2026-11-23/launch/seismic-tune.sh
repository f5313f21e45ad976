#!/usr/bin/env bash
# The seismic kernels with `tune` (the default) and without (MINT_TUNE=0), bench 512^3, on a
# GPU machine with the packed binaries: OUT=dir bash bench-results/h100-2026-11-23/launch/seismic-tune.sh
export MINT_CACHE_DIR=${MINT_CACHE_DIR:-/tmp/mc}; mkdir -p $OUT
[ -d .gpu/bin ] || bash .gpu/run-gpu.sh --unpack
nvidia-smi --query-gpu=name --format=csv,noheader
for t in 1 0; do
  echo "== seismic bench512 MINT_TUNE=$t"
  MINT_TUNE=$t MINT_REPORT=1 timeout ${LIMIT:-300} .gpu/examples/seismic examples/seismic/bench512.toml --resolution full > $OUT/seismic512-tune$t.txt 2>&1
  echo "rc=$?"
  grep -E "^mint report: tune|kernels \(CUDA|steps in|autotuner" $OUT/seismic512-tune$t.txt | cut -c1-330
done
