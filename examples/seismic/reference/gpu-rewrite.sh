#!/usr/bin/env bash
# Issue #11 on a GPU machine: the seismic example rewritten with structs and device
# functions against the code before the rewrite (packed as .gpu/old/seismic), on LOH.1
# and LOH.3 at 50 m (seismograms, by same.py) and on the benchmark configurations (time
# per step, old and new interleaved three times each).
#
#   bash examples/seismic/reference/gpu-rewrite.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-rewrite-out}
mkdir -p "$out"
exec > >(tee -a "$out/rewrite.log") 2>&1
bash .gpu/run-gpu.sh --unpack >/dev/null
NEW=.gpu/examples/seismic
OLD=.gpu/old/seismic
export MINT_DEVICE=${MINT_DEVICE:-cuda}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for n in loh1 loh3; do
    for v in new old; do
        bin=$NEW; [ $v = old ] && bin=$OLD
        echo "=== $n $v"
        "$bin" examples/seismic/$n.toml --quiet --resolution full --out /tmp/rw-$n-$v 2>&1 | grep "ms/step\|kernels"
    done
    python3 examples/seismic/reference/same.py /tmp/rw-$n-new /tmp/rw-$n-old | tail -n 8
done
for b in bench192 bench512 bench192-q bench512-q; do
    for rep in 1 2 3; do
        for v in old new; do
            bin=$NEW; [ $v = old ] && bin=$OLD
            echo "=== $b $v $rep"
            "$bin" examples/seismic/$b.toml --quiet --resolution full --tile 32,8,1 --out /tmp/rw-$b 2>&1 | grep "ms/step\|kernels"
        done
    done
done
