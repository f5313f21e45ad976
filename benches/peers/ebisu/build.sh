#!/usr/bin/env bash
# Builds EBISU's 3-D 7-point (3d7pt, star) and 27-point box (3d27pt) Jacobi programs for
# sm_90 with the local nvcc (CUDA 13). Only compiles: nothing is run.
#
#   bash benches/peers/ebisu/build.sh [BUILD_DIR]        (default /tmp/ebisu)
#
# BUILD_DIR/src    the carried sources (./src) with ./patches/*.patch applied
# BUILD_DIR/bin    3d7pt_ebisu.exe, 3d27pt_ebisu.exe (each has float and double: --fp32
#                  picks float) and devinfo (SM count, for run.sh)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), EBISU_ARCH
# (default 90), EBISU_NVCC_FLAGS (appended), JOBS (parallel compiles, default 4).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:-/tmp/ebisu}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
arch="${EBISU_ARCH:-90}"
jobs="${JOBS:-4}"

say() { printf '+ %s\n' "$*" >&2; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# ---- nvcc
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then nvcc="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
  else die "nvcc not found (set NVCC=/path/to/nvcc)"; fi
fi
say "$nvcc --version"
"$nvcc" --version | tail -2
# A pip-installed CUDA (nvidia-cuda-nvcc wheels) keeps its libraries in ../lib, where
# nvcc's profile does not look; a toolkit install does not need this.
ldflags=()
cudalib="$(dirname "$nvcc")/../lib"
if [ -e "$cudalib/libcudart_static.a" ]; then ldflags+=("-L$cudalib"); fi

# ---- sources + patches
say "rm -rf $dest/src $dest/obj $dest/bin && cp -r $here/src $dest/src"
case "$dest" in /|/usr|/usr/*|/bin|/etc|/home|"$here"|"$here"/*) die "refusing BUILD_DIR=$dest" ;; esac
rm -rf "${dest:?}/src" "${dest:?}/obj" "${dest:?}/bin"
cp -r "$here/src" "$dest/src"
mkdir -p "$dest/obj" "$dest/bin"
for p in "$here"/patches/*.patch; do
  if command -v patch >/dev/null 2>&1; then
    say "patch -p1 -d $dest/src < $p"
    patch -p1 --forward --no-backup-if-mismatch -s -d "$dest/src" < "$p" || die "patch $p failed"
  else # no `patch` installed: the same unified diff, applied by a small Python script
    say "python3 apply_patch.py $dest/src $p"
    python3 "$here/apply_patch.py" "$dest/src" "$p" || die "apply $p failed"
  fi
done

# ---- compile
# -std=c++17: CUDA 13's CCCL headers need C++17 (upstream CMake sets C++14).
# -static-global-template-stub=false: j3d.cu launches kernel3d_temporal<> instantiated in
#   j3d-temporal(-box).cu; CUDA 13 makes template kernel stubs TU-local by default (warning
#   20280), upstream built this whole-program without -rdc on CUDA 11/12, where they were not.
# -D_TIMER_ -DEBISU -D__PRINT__: upstream's CMake definitions (3dstencil/3d*/CMakeLists.txt).
common=(-std=c++17 -O3 -gencode "arch=compute_${arch},code=sm_${arch}"
        -static-global-template-stub=false)
# shellcheck disable=SC2206
extra=(${EBISU_NVCC_FLAGS:-})
cd "$dest/src/3dstencil"

pids=(); names=()
run_bg() { # name cmd...
  local name="$1"; shift
  say "$*"
  ( "$@" > "$dest/obj/$name.log" 2>&1 ) &
  pids+=($!); names+=("$name")
  if [ "${#pids[@]}" -ge "$jobs" ]; then wait_all; fi
}
failed=0
wait_all() {
  local i
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      echo "build.sh: FAILED ${names[$i]}:" >&2; cat "$dest/obj/${names[$i]}.log" >&2; failed=1
    elif grep -qi "warning\|error" "$dest/obj/${names[$i]}.log"; then
      grep -i -A3 "warning\|error" "$dest/obj/${names[$i]}.log" | head -20 >&2
    fi
  done
  pids=(); names=()
}

for st in 3d7pt 3d27pt; do
  if [ "$st" = 3d7pt ]; then kern=j3d-temporal.cu; else kern=j3d-temporal-box.cu; fi
  o="$dest/obj/$st"
  inc=(-I"$st")
  run_bg "${st}_kernel"  "$nvcc" "${common[@]}" "${extra[@]}" "${inc[@]}" -D_TIMER_ -Xptxas -v \
    -c "$kern" -o "${o}_kernel.o"
  run_bg "${st}_host"    "$nvcc" "${common[@]}" "${extra[@]}" "${inc[@]}" -D_TIMER_ -DEBISU -D__PRINT__ \
    -c j3d.cu -o "${o}_j3d.o"
  run_bg "${st}_driver"  "$nvcc" "${common[@]}" "${extra[@]}" "${inc[@]}" -c j3d.driver.cpp -o "${o}_driver.o"
  run_bg "${st}_gold"    "$nvcc" "${common[@]}" "${extra[@]}" "${inc[@]}" -c "$st/${st}_gold.cpp" -o "${o}_gold.o"
  run_bg "${st}_goldgen" "$nvcc" "${common[@]}" "${extra[@]}" "${inc[@]}" -c "$st/${st}_gold_gen.cpp" -o "${o}_goldgen.o"
done
run_bg devinfo "$nvcc" -O2 -gencode "arch=compute_${arch},code=sm_${arch}" "$here/devinfo.cu" \
  "${ldflags[@]}" -o "$dest/bin/devinfo"
wait_all
[ "$failed" = 0 ] || die "compilation failed"

for st in 3d7pt 3d27pt; do
  o="$dest/obj/$st"
  say "$nvcc -gencode arch=compute_${arch},code=sm_${arch} ${o}_*.o -o $dest/bin/${st}_ebisu.exe"
  "$nvcc" -gencode "arch=compute_${arch},code=sm_${arch}" "${ldflags[@]}" \
    "${o}_kernel.o" "${o}_j3d.o" "${o}_driver.o" "${o}_gold.o" "${o}_goldgen.o" \
    -o "$dest/bin/${st}_ebisu.exe"
done

# registers / spills of the kernels (ptxas -v), one line per instantiation
for st in 3d7pt 3d27pt; do
  awk -v st="$st" '/Compiling entry function/ { t = ($0 ~ /IfLi/) ? "f32" : "f64" }
       /Used [0-9]+ registers/ { sub(/^ptxas info *: /, ""); print "ptxas " st " " t ": " $0 }
       /spill stores/ { gsub(/^ +/, ""); print "ptxas " st " " t ": " $0 }' "$dest/obj/${st}_kernel.log"
done
ls -l "$dest/bin"
echo "build.sh: OK -> $dest/bin"
