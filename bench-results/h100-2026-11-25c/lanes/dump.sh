#!/bin/bash
# Writes Mint's vector+pipeline kernels of the radius-8 star (the ring path as printed
# today) into mint/, for lanes.py. Run on the build machine from the repository root.
set -e
cargo build --release --example dump_kernels
here=bench-results/h100-2026-11-25c/lanes
mkdir -p $here/mint
tmp=$(mktemp -d)
for tc in 32,16,32:1,1,32 16,16,64:1,1,64 64,8,32:1,1,32; do
  t=${tc%%:*}; c=${tc##*:}
  rm -rf "$tmp"/*
  target/release/examples/dump_kernels "$tmp" vector+pipeline "$t" "$c" > /dev/null 2>&1 || true
  for f in "$tmp"/*; do
    b=$(basename "$f")
    case $b in *star.r8_3d.f*k_vector_pipeline_0.cu) cp "$f" "$here/mint/t${t//,/x}c${c//,/x}.$b";; esac
  done
done
rm -rf "$tmp"
ls $here/mint
