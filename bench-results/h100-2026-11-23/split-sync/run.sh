#!/usr/bin/env bash
# Split overhead on one GPU before and after the stream-ordered halo exchange (issue #12):
# heat3d 512^3 and seismic LOH.1 50 m on cuda:0 and on 2, 3, 4 slabs of it, with the
# binaries before (.gpu/old/*-old) and after the change, three runs each for heat3d.
# Packed with: ../shared/tools/gpu-pack --example seismic --example heat3d --test decomposition
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-split-out}; mkdir -p "$out"
exec > >(tee -a "$out/split-sync.log") 2>&1
bash .gpu/run-gpu.sh --unpack
export MINT_DEVICE=cuda NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash .gpu/run-gpu.sh decomposition
for p in f32 f64; do
  for dev in cuda:0 cuda:0,0 cuda:0,0,0 cuda:0,0,0,0; do
    for b in old new; do
      bin=.gpu/examples/heat3d; [ $b = old ] && bin=.gpu/old/heat3d-old
      for rep in 1 2 3; do
        echo "== heat3d $p $dev $b $rep: $($bin --precision $p --device $dev | grep 'time per step')"
      done
    done
  done
done
for dev in cuda:0 cuda:0,0; do
  for b in old new; do
    bin=.gpu/examples/seismic; [ $b = old ] && bin=.gpu/old/seismic-old
    echo "== seismic loh1 $dev $b"
    $bin examples/seismic/loh1.toml --resolution full --device $dev --quiet --out /tmp/s-$b-$dev 2>&1 | grep -E 'time loop|steps in'
  done
  cmp -s /tmp/s-old-$dev/r6000_8000.csv /tmp/s-new-$dev/r6000_8000.csv && echo "seismograms old = new on $dev"
done
for f in /tmp/s-new-cuda:0,0/*.csv; do cmp -s "$f" "/tmp/s-new-cuda:0/$(basename "$f")" || echo "DIFFERS: $f"; done
echo done
