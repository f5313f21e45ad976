"""The streaming ceiling of the seismic kernels' traffic (issue #15).

The velocity kernel reads 12 arrays (3 of them written back) and writes 3: 15 words per
point; the stress kernel reads 14 and writes 6: 20 words. This times pointwise kernels
with exactly that traffic (no neighbours, so no halo or cache effects) at 512^3 f32, to
find what fraction of the copy bandwidth the traffic mix itself allows. Variants: words
per thread (1, 2, 4 via vector loads), block size, and where the arrays lie: separate
allocations, or one buffer with array m at m * (bytes + delta). CUDA events, median of 15
launches, against a 1 GiB device-to-device copy in the same run.

H200 copy (2026-11-25): the denominator is the driver's device-to-device copy, as in
the seismic bench; CuPy's copy kernel is printed beside it.
"""
import json, os, sys
import cupy as cp
import numpy as np

N = 512 ** 3
OUT = os.environ.get("OUT", ".")


def med_ms(fn, reps=15):
    fn(); cp.cuda.runtime.deviceSynchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


def copy_gbs():
    """The driver's 1 GiB device-to-device copy (the denominator of the seismic bench),
    and CuPy's own copy kernel."""
    a = cp.ones(1 << 28, dtype=cp.float32); b = cp.empty_like(a)
    rt = cp.cuda.runtime
    t = med_ms(lambda: rt.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, rt.memcpyDeviceToDevice, 0))
    tk = med_ms(lambda: b.__setitem__(slice(None), a))
    return 2 * a.nbytes / t / 1e6, 2 * a.nbytes / tk / 1e6


def source(nr, nw, vec):
    T = {1: "float", 2: "float2", 4: "float4"}[vec]
    comps = ["x", "y", "z", "w"][:vec] if vec > 1 else [None]
    args = [f"const {T}* __restrict__ r{m}" for m in range(nr)] + [f"{T}* __restrict__ w{m}" for m in range(nw)]
    body = [f"const {T} a{m} = r{m}[i];" for m in range(nr)]
    for m in range(nw):
        body.append(f"{T} o{m} = w{m}[i];")
        for c in comps:
            f = (lambda n: n) if c is None else (lambda n, c=c: f"{n}.{c}")
            terms = " + ".join(f"{0.5 + 0.01 * (m + q)}f * {f(f'a{q}')}" for q in range(nr))
            body.append(f"{f(f'o{m}')} = ({f(f'o{m}')} + {terms}) * 0.999f;")
        body.append(f"w{m}[i] = o{m};")
    return (f'extern "C" __global__ void k({", ".join(args)}, long long n) {{\n'
            f"  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  "
            + "\n  ".join(body) + "\n}\n")


def arrays(count, layout):
    if layout == "separate":
        return [cp.zeros(N, dtype=cp.float32) for _ in range(count)], None
    delta = int(layout.split("+")[1])
    stride = N * 4 + delta
    buf = cp.zeros(stride * count // 4 + 1024, dtype=cp.float32)
    return [buf[m * stride // 4: m * stride // 4 + N] for m in range(count)], buf


def main():
    copy, kcopy = copy_gbs()
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, copy {copy:.1f} GB/s "
          f"(driver device-to-device; CuPy's copy kernel {kcopy:.1f} GB/s)", flush=True)
    rows = []
    for name, nr, nw in [("copy-like 1r+1w", 1, 1), ("velocity 9r+3rw", 9, 3), ("stress 8r+6rw", 8, 6)]:
        words = nr + 2 * nw
        for layout in ["separate", "packed+0", "packed+4096", "packed+65792", "packed+1048832"]:
            arrs, buf = arrays(nr + nw, layout)
            for vec in (1, 2, 4):
                k = cp.RawKernel(source(nr, nw, vec), "k")
                n = N // vec
                for bs in (128, 256, 512):
                    grid = (n + bs - 1) // bs
                    t = med_ms(lambda: k((grid,), (bs,), (*arrs, np.int64(n))))
                    gbs = words * 4 * N / t / 1e6
                    r = dict(kernel=name, words=words, layout=layout, vec=vec, block=bs, ms=t, gbs=gbs, of_copy=gbs / copy)
                    rows.append(r)
                    print(f"{name:18s} {layout:16s} vec {vec} block {bs:4d}: {t:.3f} ms {gbs:7.1f} GB/s {100 * gbs / copy:5.1f}%", flush=True)
            del arrs, buf
            cp.get_default_memory_pool().free_all_blocks()
    for name in sorted({r["kernel"] for r in rows}):
        b = max((r for r in rows if r["kernel"] == name), key=lambda r: r["gbs"])
        print(f"best {name}: {b['layout']} vec {b['vec']} block {b['block']} {b['gbs']:.1f} GB/s = {100 * b['of_copy']:.1f}% of copy")
    json.dump(dict(copy=copy, rows=rows), open(os.path.join(OUT, "streams.json"), "w"), indent=1)


main()
