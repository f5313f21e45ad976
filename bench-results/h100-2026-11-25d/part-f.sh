#!/bin/bash
# H100: the plane copies in known rounds against the code before this session (6707771,
# .gpu/old/stencils-prev), same machine, alternating: opt-3+pipeline (chunk.rs) for the
# radius-4 star and the 27-point box, vector+pipeline (the ring path) for the radius-8 star.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
xz -dkf .gpu/old/stencils-prev.xz && chmod +x .gpu/old/stencils-prev
mkdir -p $OUT/ab
# (first try of this call printed nothing: the harness writes its lines to stderr)
for round in 1 2; do
  for which in old new; do
    if [ $which = old ]; then B=.gpu/old/stencils-prev; else B=.gpu/bin/mint--bench--stencils; fi
    d=/tmp/ab/$which$round; mkdir -p $d
    $B --kernels star3d-r4,box3d-27pt --levels opt-3+pipeline --precision f64,f32 --size 512 --out $d-a > /dev/null 2>&1
    $B --kernels star3d-r8 --levels vector+pipeline --precision f64,f32 --size 512 --out $d-b > /dev/null 2>&1
    grep -h "copy 2\|^| \(star\|box\)" $d-a/stencils.md $d-b/stencils.md | sed "s/^/$which$round /"
  done
done > $OUT/ab/ab.log 2>&1
cat $OUT/ab/ab.log | cut -c1-120
date -u
