#!/bin/bash
# Build machine, no GPU: every kernel the final code prints equals, byte for byte, the
# kernel of one of the two builds that ran on the H100 this session: 61a3bad (copies as a
# loop everywhere, ../final-loop/) or 3895a9f (copies in rounds everywhere, ../rounds/).
# OLD_LOOP and OLD_ROUNDS are `dump_kernels` built from those commits (git worktree,
# CARGO_TARGET_DIR elsewhere); the device budget was spent before the final code's own run.
NEW=${NEW:-target/release/examples/dump_kernels}
for combo in "32,16,32 1,1,32" "16,16,64 1,1,64" "16,16,64 1,2,64" "32,8,32 1,2,32" "128,8,8 1,2,8" "32,16,64 1,4,64" "64,8,32 1,1,32"; do
  set -- $combo
  rm -rf /tmp/cf /tmp/cl /tmp/cr; mkdir -p /tmp/cf /tmp/cl /tmp/cr
  $NEW /tmp/cf vector+pipeline $1 $2 > /dev/null 2>&1
  $OLD_LOOP /tmp/cl vector+pipeline $1 $2 > /dev/null 2>&1
  $OLD_ROUNDS /tmp/cr vector+pipeline $1 $2 > /dev/null 2>&1
  sl=0; sr=0; nb=0
  for f in /tmp/cf/*; do
    b=$(basename $f)
    if cmp -s $f /tmp/cl/$b; then sl=$((sl+1)); elif cmp -s $f /tmp/cr/$b; then sr=$((sr+1)); else nb=$((nb+1)); echo "  neither: $b"; fi
  done
  echo "tile $1 chunk $2: as 61a3bad $sl, as 3895a9f $sr, neither $nb"
done
