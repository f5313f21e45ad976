#!/bin/bash
# H200, branch cluster-exp: the seismic bench512 with `tune`'s stored choices (a fresh
# search first, without clusters), then the same choices with the vectorized kernels'
# blocks in thread-block clusters of several shapes (MINT_CLUSTER=x,y,z ->
# __cluster_dims__): does co-scheduling neighbouring blocks on one GPC cut the L2 fabric
# traffic (ltcfabric at 94%/90% of its peak)? Then ncu of the best shape.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u; T0=$(date +%s)
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
S=.gpu/examples/seismic
MINT_TUNE=fresh MINT_REPORT=1 timeout 150 $S examples/seismic/bench512.toml --duration 0.6 > $OUT/search.log 2>&1
grep -E "kernels \(CUDA" $OUT/search.log
for c in none 1,2,1 1,1,2 2,1,1 1,4,1 2,2,1 1,2,2 1,1,4 1,2,1 none; do
  if [ $c = none ]; then unset MINT_CLUSTER; else export MINT_CLUSTER=$c; fi
  r=$(timeout 60 $S examples/seismic/bench512.toml --duration 0.6 2>&1 | grep -oE "velocity [0-9.]+ ms|stress [0-9.]+ ms|[0-9.]+ GB/s copy|[0-9.]+% in this solver|rror.{0,200}" | tr '\n' ' ')
  echo "cluster $c: $r"
done | tee $OUT/clusters.log
unset MINT_CLUSTER
date -u
