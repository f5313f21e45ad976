#!/usr/bin/env bash
# The FK comparison on a GPU machine (issue #18): runs LOH.1, LOH.3 and the half-space
# control at the full resolution (50 m), LOH.1 at 100 m, and compares each with its FK
# reference at 3 Hz (and 1.5 Hz at 100 m). Uses the binaries packed by
# ../shared/tools/gpu-pack (`--example seismic --test seismic`). Writes logs and overlay
# pictures under $OUT (or ./fk-out).
#
#   bash examples/seismic/reference/gpu-fk.sh            # all of it
#   bash examples/seismic/reference/gpu-fk.sh quick      # LOH.1, LOH.3 at 50 m, LOH.1 at 100 m
#   bash examples/seismic/reference/gpu-fk.sh 25         # LOH.1 at 25 m (an H200: ~70 GB)
#   bash examples/seismic/reference/gpu-fk.sh wide       # loh1-wide.toml, loh3-wide.toml
#   bash examples/seismic/reference/gpu-fk.sh q          # the seismic tests, loh3.toml and
#                                                         # loh3-wide.toml at 50 m
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-fk-out}
mkdir -p "$out"
# one log (the device tool brings back at most 8 files)
exec > >(tee -a "$out/fk-${1:-50}.log") 2>&1
bash .gpu/run-gpu.sh --unpack
S=.gpu/examples/seismic
ref=examples/seismic/reference
export MINT_DEVICE=${MINT_DEVICE:-cuda}
run() { # name config extra-args...
    local name=$1 cfg=$2; shift 2
    echo "=== $name: $cfg $*"
    "$S" "$cfg" --quiet --out "/tmp/fk-$name" "$@" 2>&1 | grep -v '^  /\|^wrote'
}
cmp() { # name config refdir fc
    echo "--- $1 against $3 at $4 Hz"
    "$S" compare "$2" "/tmp/fk-$1" "$3" --lowpass "$4" --plots "/tmp/fk-$1" 2>&1
}
full() { # name (a configuration in examples/seismic/) refdir: 50 m, 3 Hz, overlay
    run $1 examples/seismic/$1.toml --resolution full
    cmp $1 examples/seismic/$1.toml $ref/$2 3
    cp /tmp/fk-$1/compare-r6000_8000.png "$out/$1-r6000_8000.png"
}
if [ "${1:-}" = wide ]; then
    full loh1-wide loh1
    full loh3-wide loh3
    exit 0
fi
if [ "${1:-}" = q ]; then
    bash .gpu/run-gpu.sh seismic
    full loh3 loh3
    full loh3-wide loh3
    exit 0
fi
if [ "${1:-}" = 25 ]; then
    # 1201×1201×681 points, dt = 0.002 s; the seismograms beside the 50 m ones
    sed 's/^spacing = 50.0 .*/spacing = 25.0/; s/^dt = 0.004 .*/dt = 0.002/' \
        examples/seismic/loh1.toml > /tmp/loh1-25.toml
    run loh1-25 /tmp/loh1-25.toml --resolution full
    cmp loh1-25 /tmp/loh1-25.toml $ref/loh1 3
    cp /tmp/fk-loh1-25/compare-r6000_8000.png "$out/loh1-25-r6000_8000.png"
    tar -czf "$out/loh1-25-traces.tgz" -C /tmp/fk-loh1-25 $(cd /tmp/fk-loh1-25 && ls *.csv)
    exit 0
fi
[ "${1:-}" = quick ] || bash .gpu/run-gpu.sh seismic
run loh1 examples/seismic/loh1.toml --resolution full
cmp loh1 examples/seismic/loh1.toml $ref/loh1 3
if [ -x .gpu/old/seismic ] && [ "${1:-}" != quick ]; then
    # the code before issue #18 (nearest-node source, point-sampled layers), if packed
    # there: the same run, for the arrival error it had and its time per step
    echo "=== loh1-old: the solver before the fix"
    .gpu/old/seismic examples/seismic/loh1.toml --quiet --out /tmp/fk-loh1-old --resolution full 2>&1 | grep -v '^  /\|^wrote'
    cmp loh1-old examples/seismic/loh1.toml $ref/loh1 3
fi
run loh3 examples/seismic/loh3.toml --resolution full
cmp loh3 examples/seismic/loh3.toml $ref/loh3 3
if [ "${1:-}" != quick ]; then
    run halfspace $ref/halfspace.toml --resolution full
    cmp halfspace $ref/halfspace.toml $ref/halfspace 3
fi
sed 's/^spacing = 50.0 .*/spacing = 100.0/; s/^dt = 0.004 .*/dt = 0.008/' \
    examples/seismic/loh1.toml > /tmp/loh1-100.toml
run loh1-100 /tmp/loh1-100.toml --resolution full
cmp loh1-100 /tmp/loh1-100.toml $ref/loh1 3
cmp loh1-100 /tmp/loh1-100.toml $ref/loh1 1.5
[ "${1:-}" = quick ] && exit 0
for b in bench192 bench512 bench192-q bench512-q; do
    run $b examples/seismic/$b.toml --resolution full --tile 32,8,1
done
cp /tmp/fk-loh1/compare-r6000_8000.png "$out/loh1-r6000_8000.png"
cp /tmp/fk-loh3/compare-r6000_8000.png "$out/loh3-r6000_8000.png"
[ -d /tmp/fk-loh1-old ] && cp /tmp/fk-loh1-old/compare-r6000_8000.png "$out/loh1-old-r6000_8000.png"
tar -czf "$out/traces.tgz" -C /tmp fk-loh1 fk-loh3 fk-halfspace fk-loh1-100 --exclude='*.png' 2>/dev/null
grep -h "^===\|ms/step" "$out/fk-50.log"
