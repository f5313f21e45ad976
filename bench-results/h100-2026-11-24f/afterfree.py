"""Does a kernel run slower right after other large allocations were copied into and
freed? (the radius-4 star's `tune` ran 20-25% slower for the rest of the region in which
its search ran; a second region ran at full speed). CuPy without its memory pool, so
that `del` calls cudaFree. A streaming kernel over two 1 GiB arrays is timed with CUDA
events, median of 30 launches, (a) alone, (b) right after two 1 GiB scratch copies were
made and freed, (c) after they were made and kept, (d) 2 s after a free."""
import cupy as cp, time, statistics

cp.cuda.set_allocator(None)
n = 1 << 27  # 1 GiB of f64
a = cp.random.rand(n)
b = cp.empty_like(a)
k = cp.ElementwiseKernel("float64 x", "float64 y", "y = 0.5 * x + 1.0", "scale")


def timed(label, launches=30):
    ts = []
    for _ in range(launches):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); k(a, b); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    med = statistics.median(ts)
    print(f"{label:<40} median {med:.3f} ms  first {ts[0]:.3f}  last {ts[-1]:.3f}  -> {2 * n * 8 / med / 1e6:.0f} GB/s", flush=True)
    return med


timed("alone")
timed("alone again")
s1 = b.copy(); s2 = b.copy(); cp.cuda.Device().synchronize()
del s1, s2
timed("right after 2 GiB copied and freed")
timed("  and again")
s1 = b.copy(); s2 = b.copy(); cp.cuda.Device().synchronize()
timed("with 2 GiB copied and kept")
del s1, s2
time.sleep(2)
timed("2 s after they were freed")
for i in range(3):
    s1 = b.copy(); s2 = b.copy(); del s1, s2
    timed(f"right after free, round {i}")
