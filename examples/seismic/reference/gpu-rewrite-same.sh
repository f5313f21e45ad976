#!/usr/bin/env bash
# The seismogram half of gpu-rewrite.sh alone: LOH.1 and LOH.3 at 50 m, the rewritten
# solver against .gpu/old/seismic, every trace compared by same.py.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-rewrite-out}
mkdir -p "$out"
exec > >(tee -a "$out/rewrite-same.log") 2>&1
bash .gpu/run-gpu.sh --unpack >/dev/null
export MINT_DEVICE=${MINT_DEVICE:-cuda}
for n in loh1 loh3; do
    .gpu/examples/seismic examples/seismic/$n.toml --quiet --resolution full --out /tmp/rw-$n-new 2>&1 | grep "ms/step"
    .gpu/old/seismic examples/seismic/$n.toml --quiet --resolution full --out /tmp/rw-$n-old 2>&1 | grep "ms/step"
    echo "=== $n: rewritten against old"
    python3 examples/seismic/reference/same.py /tmp/rw-$n-new /tmp/rw-$n-old
done
