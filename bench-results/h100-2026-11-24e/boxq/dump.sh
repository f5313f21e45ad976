#!/bin/bash
# Writes the kernels tiles.py times into mint/ (run on the build machine, which has Rust;
# the GPU machines have none): `vectorize` at the vector+z level of the box and the
# radius-4/8 stars, at each tile and chunk below, named t<tile>c<chunk>.<kernel>.cu.
# From the repository root: bash bench-results/h100-2026-11-24e/boxq/dump.sh
# The two- and four-row kernels that part7.sh timed (tiles-yrows.log) were dumped before
# vectorize's QUEUE_REGISTERS limit: where the queues exceed it, a dump made now is what
# tiles.py calls the `no-prefetch` variant of those. The one-row kernels dump byte for
# byte as they were timed.
set -e
cargo build --release --example dump_kernels
here=bench-results/h100-2026-11-24e/boxq
mkdir -p $here/mint
tmp=$(mktemp -d)
# one row per thread (part2.sh), then two and four rows (part7.sh)
for tc in 128,4,8:1,1,8 128,4,16:1,1,16 128,8,16:1,1,16 64,16,16:1,1,16 64,16,32:1,1,32 128,8,32:1,1,32 \
          64,4,2:1,1,2 128,4,2:1,1,2 64,4,4:1,1,4 128,4,4:1,1,4 128,8,2:1,1,2 128,8,4:1,1,4 64,8,4:1,1,4 64,16,4:1,1,4 64,8,8:1,1,8 \
          128,8,2:1,2,2 64,8,2:1,2,2 128,8,4:1,2,4 128,16,2:1,4,2 64,8,4:1,2,4 128,8,8:1,2,8 128,16,8:1,4,8 64,8,8:1,2,8 128,8,16:1,2,16 128,16,4:1,4,4; do
  t=${tc%%:*}; c=${tc##*:}
  rm -rf "$tmp"/*
  target/release/examples/dump_kernels "$tmp" vector+z "$t" "$c" > /dev/null
  for f in "$tmp"/*; do
    b=$(basename "$f")
    case $b in *box27.f*k_vector_0.cu|*star.r4_3d.f*k_vector_0.cu|*star.r8_3d.f*k_vector_0.cu) cp "$f" "$here/mint/t${t//,/x}c${c//,/x}.$b";; esac
  done
done
rm -rf "$tmp"
ls $here/mint | wc -l
