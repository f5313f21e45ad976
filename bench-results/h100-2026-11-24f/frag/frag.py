"""The radius-4 star's pipelined kernel (`r4-pipeline.cu`, Mint's opt-3+pipeline at tile
32x16x64, chunk 1x4x64, dumped by `dump_kernels`) timed on arrays from fresh device memory
and from device memory fragmented into 2 MiB holes (most of the card allocated in 2 MiB
blocks, every other one freed), with the plane (slice) stride a power of two
(512 x 512 elements, 2 MiB) and padded by 256 bytes. Question: does the kernel's speed
depend on where its arrays sit physically (the search of `tune` allocates and frees
scratch arrays and loads modules; the region it ran in then ran this kernel 3-25% slower)?
CuPy without its memory pool; CUDA events, median of 40 launches."""
import os, statistics, sys
import cupy as cp
import numpy as np

cp.cuda.set_allocator(None)
here = os.path.dirname(os.path.abspath(__file__))
n, lo, es = 512, 4, 8
src = open(os.path.join(here, "r4-pipeline.cu")).read()
k = cp.RawKernel(src, "mint_k_shared_register_pipeline_0", options=("-std=c++17",))
SHARED = 53760
k.max_dynamic_shared_size_bytes = SHARED
copyk = cp.ElementwiseKernel("float64 x", "float64 y", "y = x", "copyk")


def arrays(pad):
    """u, unew laid out as the runtime does (row x = lo 128-byte aligned), slice n*n+pad."""
    slice_ = n * n + pad
    total = (n * slice_ + 1024) * es
    out = []
    for _ in range(2):
        raw = cp.empty(total, dtype=cp.uint8)
        base = raw.data.ptr + 1024
        base += (128 - (base + lo * es) % 128) % 128
        out.append((raw, base))
    return out, slice_


def run(label, pad, reps=40):
    arrs, sl = arrays(pad)
    (ru, bu), (rv, bv) = arrs
    u = cp.ndarray((n * sl,), dtype=cp.float64, memptr=cp.cuda.MemoryPointer(ru.data.mem, bu - ru.data.mem.ptr))
    u[...] = cp.random.default_rng(1).random(n * sl)
    args = (np.uint64(bu), np.int32(n), np.int32(sl), np.int32(n), np.int32(n), np.int32(n),
            np.uint64(bv), np.int32(n), np.int32(sl), np.float64(1.0 / 24),
            np.int32(lo), np.int32(n - lo), np.int32(lo), np.int32(n - lo), np.int32(lo), np.int32(n - lo))
    grid = ((n - 2 * lo + 31) // 32, (n - 2 * lo + 15) // 16, (n - 2 * lo + 63) // 64)
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); k(grid, (32, 4, 1), args, shared_mem=SHARED); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    med = statistics.median(ts)
    c = []
    v = cp.ndarray((n * sl,), dtype=cp.float64, memptr=cp.cuda.MemoryPointer(rv.data.mem, bv - rv.data.mem.ptr))
    for _ in range(10):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); copyk(u, v); e.record(); e.synchronize()
        c.append(cp.cuda.get_elapsed_time(s, e))
    pts = (n - 2 * lo) ** 3
    print(f"{label:<44} star {med:.3f} ms ({pts * 16 / med / 1e6:.0f} GB/s eff., min {min(ts):.3f} max {max(ts):.3f})   copy {statistics.median(c):.3f} ms", flush=True)
    del u, v, ru, rv


run("fresh memory, slice 2 MiB", 0)
run("fresh memory, slice 2 MiB + 256 B", 32)
run("fresh memory, slice 2 MiB (again)", 0)
# fragment: fill most of the card with 2 MiB blocks, free every other one
free, total = cp.cuda.runtime.memGetInfo()
blocks = []
try:
    while len(blocks) * (2 << 20) < free - (512 << 20):
        blocks.append(cp.cuda.runtime.malloc(2 << 20))
except Exception as ex:
    print("stopped filling:", ex)
for b in blocks[::2]:
    cp.cuda.runtime.free(b)
print(f"filled {len(blocks)} blocks of 2 MiB, freed every other one; free now {cp.cuda.runtime.memGetInfo()[0] / 2**30:.1f} GiB", flush=True)
run("fragmented, slice 2 MiB", 0)
run("fragmented, slice 2 MiB + 256 B", 32)
run("fragmented, slice 2 MiB (again)", 0)
run("fragmented, slice 2 MiB + 256 B (again)", 32)
