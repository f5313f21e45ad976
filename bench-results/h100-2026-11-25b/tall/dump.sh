#!/bin/bash
# Writes the `vectorize` (+ z window) kernels of the radius-4 and radius-8 stars that
# tall.py times into mint/, at the tiles below: the taller blocks of 384 and 512 threads
# (one block per SM at up to 168 or 128 registers) beside today's best shapes. Run on the
# build machine from the repository root: bash bench-results/h100-2026-11-25b/tall/dump.sh
# tall.py makes each kernel's `roll_z` twin itself (the one pragma the option prints).
set -e
cargo build --release --example dump_kernels
here=bench-results/h100-2026-11-25b/tall
mkdir -p $here/mint
tmp=$(mktemp -d)
for tc in 128,4,16:1,1,16 128,4,4:1,1,4 64,8,16:1,1,16 \
          128,12,4:1,1,4 128,12,8:1,1,8 128,12,16:1,1,16 128,16,16:1,1,16 128,8,16:1,1,16 \
          64,12,16:1,1,16 64,12,4:1,1,4 64,24,16:1,1,16 64,16,16:1,1,16 256,6,16:1,1,16 \
          128,4,8:1,1,8 64,4,16:1,1,16 64,4,8:1,1,8 32,8,16:1,1,16 32,4,16:1,1,16; do
  t=${tc%%:*}; c=${tc##*:}
  rm -rf "$tmp"/*
  target/release/examples/dump_kernels "$tmp" vector+z "$t" "$c" > /dev/null 2>&1 || true
  for f in "$tmp"/*; do
    b=$(basename "$f")
    case $b in *star.r4_3d.f*k_vector_0.cu|*star.r8_3d.f*k_vector_0.cu) cp "$f" "$here/mint/t${t//,/x}c${c//,/x}.$b";; esac
  done
done
rm -rf "$tmp"
ls $here/mint | wc -l
