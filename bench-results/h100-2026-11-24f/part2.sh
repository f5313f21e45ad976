#!/bin/bash
# H100: the radius-4 star's `tune` (f64) after its search, continued. part1 showed the
# clocks steady (1980 MHz) and the level's kernel fast right after a slow tuned run.
# (1) per-launch times (MINT_HARNESS_SAMPLES) and a second `tune` row in the same process
#     (the choice then comes from memory, no search);
# (2) ncu (one pass: duration, grid, registers, DRAM bytes) of every launch of the two
#     sites, serialized, so that nothing else runs beside them.
export NCCL_NVLS_ENABLE=0 MINT_DEVICE=cuda
nvidia-smi -L; date -u
bash .gpu/run-gpu.sh --unpack > /dev/null 2>&1 || true
B=.gpu/bin/mint--bench--stencils
mkdir -p $OUT/twice
MINT_HARNESS_SAMPLES=1 MINT_TUNE=fresh MINT_REPORT=1 timeout 120 $B --kernels star3d-r4 --precision f64 --size 512 \
  --levels opt-3+pipeline,tune,tune,opt-3+pipeline --out $OUT/twice 2> $OUT/twice.log | grep "^| star"
grep -E "^harness samples|^  star3d" $OUT/twice.log | cut -c1-900
date -u
timeout 300 ncu --clock-control none --kernel-name regex:'mint_k_(tune|shared_register_pipeline)_0' --csv \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum,launch__shared_mem_per_block_dynamic \
  env MINT_TUNE=fresh $B --kernels star3d-r4 --precision f64 --size 512 --levels opt-3+pipeline,tune --steps 5 --reps 3 > $OUT/ncu-r4.csv 2> $OUT/ncu-r4.err
echo "ncu rc=$?"; wc -l $OUT/ncu-r4.csv
python3 - $OUT/ncu-r4.csv > $OUT/ncu-r4.txt <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; rows = rows[1:]
ki, mi, vi, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
by = collections.OrderedDict()
for r in rows:
    by.setdefault((r[ii], r[ki]), {})[r[mi]] = r[vi]
last = None
for (i, k), m in by.items():
    key = (k, m.get("launch__grid_size"), m.get("launch__registers_per_thread"))
    d = m.get("gpu__time_duration.sum")
    print(i, k, "grid", m.get("launch__grid_size"), "block", m.get("launch__block_size"), "regs", m.get("launch__registers_per_thread"),
          "dyn", m.get("launch__shared_mem_per_block_dynamic"), "dur", d, "rd", m.get("dram__bytes_read.sum"), "wr", m.get("dram__bytes_write.sum"))
PY
date -u
awk '$3 == "grid" && $4+0 > 10000' $OUT/ncu-r4.txt | head -20; echo ...; tail -12 $OUT/ncu-r4.txt
