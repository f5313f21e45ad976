#!/usr/bin/env bash
# Launch overhead, cardiac n=256 and the seismic kernels with and without tune (issue #15), on a GPU
# machine with the packed binaries: OUT=dir bash bench-results/h100-2026-11-23/launch/measure.sh
export MINT_CACHE_DIR=/tmp/mc; mkdir -p $OUT
bash .gpu/run-gpu.sh --unpack
.gpu/bin/mint--bench--launch > $OUT/launch.txt 2>&1; tail -11 $OUT/launch.txt
for p in f32 f64; do .gpu/examples/cardiac -n 256 -t 50 --precision $p > /dev/null 2>&1; for env in "MINT_GRAPHS=1" "MINT_GRAPHS=0" "MINT_SYNC=1"; do echo "== cardiac $p $env"; env $env .gpu/examples/cardiac -n 256 -t 2000 --precision $p 2>&1 | grep -E "iteration|fused" ; done; done 2>&1 | tee $OUT/cardiac256.txt
for t in 1 0; do echo "== seismic bench512 MINT_TUNE=$t"; MINT_TUNE=$t MINT_REPORT=1 timeout 240 .gpu/examples/seismic examples/seismic/bench512.toml --resolution full > $OUT/seismic512-tune$t.txt 2>&1; grep -E "^mint report: tune|kernels \(CUDA|steps in|autotuner" $OUT/seismic512-tune$t.txt | cut -c1-400; done
