"""Mint's `pipeline` kernels of the radius-4 star and the 27-point box at twelve tiles
(dumped from the translator into `mint/`), timed in one run on the GPU against the copy
bandwidth, to pick the autotuner's `pipeline` candidates (issue #15). Arrays are laid
out as the runtime lays them out: rows of 512 elements, element x = lo of each row
128-byte aligned, a guard band before. Each kernel is checked against a direct kernel
(relative error) and timed with CUDA events, median of 5 x 5 launches at 512^3."""
import glob, os, re, sys
import cupy as cp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "h100-2026-11-24c", "star25"))
from proto import median_ms, copy_bw

REF = r'''
template <typename T> __global__ void star4(const T* u, T* v, int n, T coef) {
    const int x = 4 + blockIdx.x * blockDim.x + threadIdx.x, y = 4 + blockIdx.y, z = 4 + blockIdx.z;
    if (x >= n - 4) return;
    const size_t s = (size_t)n * n, i = x + (size_t)y * n + z * s;
    T a = 0;
    for (int d = 1; d <= 4; ++d) a += u[i - d] + u[i + d] + u[i - d * n] + u[i + d * n] + u[i - d * s] + u[i + d * s];
    v[i] = coef * a - u[i];
}
template <typename T> __global__ void box(const T* u, T* v, int n, T c0, T c1, T c2, T c3) {
    const int x = 1 + blockIdx.x * blockDim.x + threadIdx.x, y = 1 + blockIdx.y, z = 1 + blockIdx.z;
    if (x >= n - 1) return;
    const size_t s = (size_t)n * n, i = x + (size_t)y * n + z * s;
    T f = 0, e = 0, c = 0;
    for (int dz = -1; dz <= 1; ++dz) for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
        const int k = (dz != 0) + (dy != 0) + (dx != 0);
        const T w = u[i + dx + dy * (size_t)n + dz * s];
        if (k == 1) f += w; else if (k == 2) e += w; else if (k == 3) c += w;
    }
    v[i] = c0 * u[i] + c1 * f + c2 * e + c3 * c;
}
'''

def main():
    n = 512
    bw = copy_bw()
    here = os.path.dirname(os.path.abspath(__file__))
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; copy {bw/1e9:.0f} GB/s", flush=True)
    rows = []
    for prec, dt, es in [("f64", cp.float64, 8), ("f32", cp.float32, 4)]:
        tname = "double" if es == 8 else "float"
        ref = cp.RawModule(code=REF, options=("-std=c++17",), name_expressions=[f"star4<{tname}>", f"box<{tname}>"])
        for kern, lo in [("star.r4_3d", 4), ("box27", 1)]:
            # the runtime's layout: guard band, then element x = lo of row 0 128-byte aligned
            total = n ** 3 * es
            raw_u = cp.zeros(total + 4096, dtype=cp.uint8)
            raw_v = cp.zeros(total + 4096, dtype=cp.uint8)
            def place(raw):
                base = raw.data.ptr + 1024
                base += (128 - (base + lo * es) % 128) % 128
                mem = cp.cuda.MemoryPointer(raw.data.mem, base - raw.data.mem.ptr)
                return cp.ndarray((n, n, n), dtype=dt, memptr=mem)
            u, v = place(raw_u), place(raw_v)
            u[...] = cp.random.default_rng(1).random((n, n, n), dtype=cp.float64).astype(dt)
            want = cp.full((n, n, n), cp.nan, dtype=dt)
            if kern == "box27":
                cs = [dt(0.5), dt(0.1), dt(0.05), dt(0.025)]
                ref.get_function(f"box<{tname}>")(((n - 2 + 127) // 128, n - 2, n - 2), (128,), (u, want, np.int32(n), *cs))
            else:
                coef = dt(1.0 / 24.0)
                ref.get_function(f"star4<{tname}>")(((n - 8 + 127) // 128, n - 8, n - 8), (128,), (u, want, np.int32(n), coef))
            inner = (slice(lo, n - lo),) * 3
            scale = float(cp.abs(want[inner]).max())
            pts = (n - 2 * lo) ** 3
            for f in sorted(glob.glob(os.path.join(here, "mint", f"*.{kern}.{prec}.*.cu"))):
                src = open(f).read()
                m = re.search(r"t(\d+)x(\d+)x(\d+)c(\d+)x(\d+)x(\d+)", os.path.basename(f))
                tile = [int(m.group(i)) for i in (1, 2, 3)]
                chunk = [int(m.group(i)) for i in (4, 5, 6)]
                sm = re.search(r"\(\*mint_sh_u\)\[(\d+)\]\[(\d+)\].*// (\d+) slot", src)
                smem = int(sm.group(1)) * int(sm.group(2)) * int(sm.group(3)) * es
                head = src.split("mint_k_shared_register_pipeline_0(")[1].split(")\n{")[0]
                params = [l.strip().rstrip(",").replace("*", " ").split()[-1] for l in head.strip().splitlines()]
                vals = {"u": u, "unew": v, "coef": dt(1.0 / 24.0), "c0": dt(0.5), "c1": dt(0.1), "c2": dt(0.05), "c3": dt(0.025)}
                args = []
                for p in params:
                    if p in vals: args.append(vals[p])
                    elif p.startswith("mint_pitch"): args.append(np.int32(n))
                    elif p.startswith("mint_slice"): args.append(np.int32(n * n))
                    elif p.startswith(("mint_nx", "mint_ny", "mint_nz")): args.append(np.int32(n))
                    elif p.startswith("mint_lo"): args.append(np.int32(lo))
                    elif p.startswith("mint_hi"): args.append(np.int32(n - lo))
                    else: raise SystemExit(f"{f}: parameter {p}")
                k = cp.RawKernel(src, "mint_k_shared_register_pipeline_0", options=("-std=c++17",))
                if smem > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = smem
                block = (tile[0] // chunk[0], tile[1] // chunk[1], 1)
                grid = tuple((n - 2 * lo + tile[i] - 1) // tile[i] for i in range(3))
                v.fill(cp.nan)
                label = f"{kern} {prec} tile{tuple(tile)} chunk{tuple(chunk)}"
                try:
                    k(grid, block, tuple(args), shared_mem=smem); cp.cuda.Device().synchronize()
                except Exception as e:
                    print(f"{label}: FAILED {e}", flush=True); continue
                err = float(cp.abs(v[inner] - want[inner]).max()) / scale
                ok = err < (1e-12 if es == 8 else 1e-5)
                t = median_ms(lambda: k(grid, block, tuple(args), shared_mem=smem)) if ok else float("nan")
                frac = pts * 2 * es / (t * 1e-3) / bw
                rows.append((frac, label, k.num_regs, smem, ok))
                print(f"{label:55s} regs {k.num_regs:3d} smem {smem:6d} {'ok' if ok else 'WRONG %.1e' % err} {100*frac:5.1f}% of copy", flush=True)
    print("summary")
    for key in ["star.r4_3d f64", "star.r4_3d f32", "box27 f64", "box27 f32"]:
        rs = sorted([r for r in rows if r[1].startswith(key) and r[4]], reverse=True)[:4]
        for r in rs:
            print(f"{r[1]:55s} regs {r[2]:3d} {100*r[0]:5.1f}%")

main()
