"""Does the radius-4 star's pipelined kernel (f64, Mint's opt-3+pipeline at tile
32x16x64, chunk 1x4x64: `../../h100-2026-11-24f/frag/r4-pipeline.cu`) depend on where
`unew` sits relative to `u`? In the region that ran `tune`'s search this kernel ran 3-25%
slower than the same kernel in any later region (`h100-2026-11-24f/`), and the arrays of
the two regions differ only in where they were allocated. Here both arrays live in one
allocation (one mapping, so their low 21 address bits and their 2 MiB pages' order are
fixed) with `unew` at u + size + delta, for deltas from 0 to 6 MiB. CUDA events, median
of 30 launches, each delta twice (in two passes)."""
import os, statistics
import cupy as cp
import numpy as np

cp.cuda.set_allocator(None)
here = os.path.dirname(os.path.abspath(__file__))
n, lo, es = 512, 4, 8
src = open(os.path.join(here, "..", "..", "h100-2026-11-24f", "frag", "r4-pipeline.cu")).read()
k = cp.RawKernel(src, "mint_k_shared_register_pipeline_0", options=("-std=c++17",))
SHARED = 53760
k.max_dynamic_shared_size_bytes = SHARED
size = n * n * n * es + 4096
deltas = [0, 256, 4096, 65536, 1 << 20, (1 << 20) + 65536, 2 << 20, 3 << 20, 4 << 20, 6 << 20]
raw = cp.empty(2 * size + (8 << 20), dtype=cp.uint8)
base0 = raw.data.ptr + 1024
base0 += (128 - (base0 + lo * es) % 128) % 128
u = cp.ndarray((n ** 3,), dtype=cp.float64, memptr=cp.cuda.MemoryPointer(raw.data.mem, base0 - raw.data.mem.ptr))
u[...] = cp.random.default_rng(1).random(n ** 3)
grid = ((n - 2 * lo + 31) // 32, (n - 2 * lo + 15) // 16, (n - 2 * lo + 63) // 64)
pts = (n - 2 * lo) ** 3
ref = None
for p in range(2):
    for d in deltas:
        bv = base0 + size + d
        bv += (128 - (bv + lo * es) % 128) % 128
        args = (np.uint64(base0), np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n),
                np.uint64(bv), np.int32(n), np.int32(n * n), np.float64(1.0 / 24),
                np.int32(lo), np.int32(n - lo), np.int32(lo), np.int32(n - lo), np.int32(lo), np.int32(n - lo))
        k(grid, (32, 4, 1), args, shared_mem=SHARED)
        v = cp.ndarray((n ** 3,), dtype=cp.float64, memptr=cp.cuda.MemoryPointer(raw.data.mem, bv - raw.data.mem.ptr))
        got = float(v.reshape(n, n, n)[lo:-lo, lo:-lo, lo:-lo].sum())
        ref = got if ref is None else ref
        ts = []
        for _ in range(30):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(); k(grid, (32, 4, 1), args, shared_mem=SHARED); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        med = statistics.median(ts)
        print(f"pass {p} unew at u + size + {d:>8} B (+{bv - base0 - size:>8}): {med:.3f} ms "
              f"({pts * 16 / med / 1e6:.0f} GB/s eff., min {min(ts):.3f} max {max(ts):.3f}) sum {'ok' if got == ref else 'DIFFERS'}", flush=True)
