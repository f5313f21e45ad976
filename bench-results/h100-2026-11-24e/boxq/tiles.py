"""`vectorize` with a z window at several tiles: the 27-point box, whose z queues now hold
every vector read at several planes (the rows y - 1, y, y + 1 and the x halo vectors),
and the radius-4 and radius-8 stars (taller tiles: fewer ghost rows per point),
dumped from the translator into `mint/` (`dump.sh`, on the build machine) and timed in one run on the GPU against the copy
bandwidth (issue #15). Each kernel runs with the register cap it was printed with and with
the cap doubled where it spills (as the runtime does). Arrays are laid out as
the runtime lays them out (element x = lo of each row 128-byte aligned); each kernel is
checked against a direct kernel; CUDA events, median of 5 x 5 launches at 512^3."""
import glob, os, re, sys
import cupy as cp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "h100-2026-11-24c", "star25"))
from proto import median_ms, copy_bw

REF = r'''
template <typename T> __global__ void star(const T* u, T* v, int n, int r, T coef) {
    const int x = r + blockIdx.x * blockDim.x + threadIdx.x, y = r + blockIdx.y, z = r + blockIdx.z;
    if (x >= n - r) return;
    const size_t s = (size_t)n * n, i = x + (size_t)y * n + z * s;
    T a = 0;
    for (int d = 1; d <= r; ++d) a += u[i - d] + u[i + d] + u[i - d * n] + u[i + d * n] + u[i - d * s] + u[i + d * s];
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

def zname(name, d):
    return f"{name}_z0" if d == 0 else f"{name}_zp{d}" if d > 0 else f"{name}_zm{-d}"

def no_prefetch(src):
    """The kernel with each z queue's leading plane loaded at the start of the step that
    first reads it instead of one step ahead: one plane fewer held in registers."""
    out = src
    for m in re.finditer(r"^(\s*)if \(z \+ 1 < mint_z_end\) mint_vload\((.*)\(z \+ (\d+)\)(.*), (\w+)_zp(\d+)\);$", src, re.M):
        ind, pre, h1, post, name = m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5)
        h = h1 - 1
        cur = zname(name, h)
        zexpr = "(z)" if h == 0 else f"(z + {h})" if h > 0 else f"(z - {-h})"
        out = out.replace(m.group(0), f"{ind}mint_vload({pre}{zexpr}{post}, {cur});")
        out = re.sub(r"^\s*mint_vload\([^\n]*mint_z0[^\n]*, " + re.escape(cur) + r"\);\n", "", out, flags=re.M)
        out = re.sub(r"^\s*mint_vmove\(" + re.escape(cur) + ", " + re.escape(zname(name, h1)) + r"\);\n", "", out, flags=re.M)
    return out

def scalar_halo(src):
    """The kernel with each vector of which the lanes use fewer than all elements (the x
    halo of a radius smaller than V) loaded element by element: fewer registers in flight."""
    out = src
    for m in re.finditer(r"^(\s*)((?:if \([^)]*\) )?)mint_vload\((\w+), (.*), (\w+)\);$", src, re.M):
        ind, cond, arr, idx, dst = m.groups()
        width = 4 if "float4" in src else 2
        # the elements read (the declarations' sizes are `[width]`)
        used = sorted({int(e) for e in re.findall(re.escape(dst) + r"\[(\d+)\]", src)} - {width})
        if not used or len(used) == width:
            continue
        loads = " ".join(f"{dst}[{e}] = __ldg(&{arr}[{idx} + {e}]);" for e in used)
        out = out.replace(m.group(0), f"{ind}{cond}{{ {loads} }}")
    return out

def variants(src, cz):
    yield "", src
    if os.environ.get("TILES_CAPS"):
        return
    if cz >= 4:
        yield " no-prefetch", no_prefetch(src)
    if "box27" in src or "mint_q_" in src:
        yield " scalar-halo", scalar_halo(src)

def main():
    n = 512
    bw = copy_bw()
    here = os.path.dirname(os.path.abspath(__file__))
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; copy {bw/1e9:.0f} GB/s", flush=True)
    rows = []
    for prec, dt, es in [("f64", cp.float64, 8), ("f32", cp.float32, 4)]:
        if os.environ.get("TILES_PREC") and prec != os.environ["TILES_PREC"]:
            continue
        tname = "double" if es == 8 else "float"
        vw = 16 // es
        ref = cp.RawModule(code=REF, options=("-std=c++17",), name_expressions=[f"box<{tname}>", f"star<{tname}>"])
        for kern, lo in [("box27", 1), ("star.r4_3d", 4), ("star.r8_3d", 8)]:
            if os.environ.get("TILES_KERNELS") and kern not in os.environ["TILES_KERNELS"].split(","):
                continue
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
            coef = dt(1.0 / (6 * lo))
            if kern == "box27":
                cs = [dt(0.5), dt(0.1), dt(0.05), dt(0.025)]
                ref.get_function(f"box<{tname}>")(((n - 2 + 127) // 128, n - 2, n - 2), (128,), (u, want, np.int32(n), *cs))
            else:
                ref.get_function(f"star<{tname}>")(((n - 2 * lo + 127) // 128, n - 2 * lo, n - 2 * lo), (128,), (u, want, np.int32(n), np.int32(lo), coef))
            inner = (slice(lo, n - lo),) * 3
            scale = float(cp.abs(want[inner]).max())
            pts = (n - 2 * lo) ** 3
            for f in sorted(glob.glob(os.path.join(here, "mint", f"*.{kern}.{prec}.*.cu"))):
                if os.environ.get("TILES_ONLY") and not any(t in os.path.basename(f) for t in os.environ["TILES_ONLY"].split(",")):
                    continue
                src0 = open(f).read()
                m = re.search(r"t(\d+)x(\d+)x(\d+)c(\d+)x(\d+)x(\d+)", os.path.basename(f))
                tile = [int(m.group(i)) for i in (1, 2, 3)]
                chunk = [int(m.group(i)) for i in (4, 5, 6)]
                entry = re.search(r"__global__ void __launch_bounds__\((\d+), (\d+)\) (\w+)\(", src0)
                threads, blocks, name = int(entry.group(1)), int(entry.group(2)), entry.group(3)
                head = src0.split(name + "(")[1].split(")\n{")[0]
                params = [l.strip().rstrip(",").replace("*", " ").split()[-1] for l in head.strip().splitlines()]
                vals = {"u": u, "unew": v, "coef": coef, "c0": dt(0.5), "c1": dt(0.1), "c2": dt(0.05), "c3": dt(0.025)}
                args = []
                for p in params:
                    if p in vals: args.append(vals[p])
                    elif p.startswith("mint_pitch"): args.append(np.int32(n))
                    elif p.startswith("mint_slice"): args.append(np.int32(n * n))
                    elif p.startswith(("mint_nx", "mint_ny", "mint_nz")): args.append(np.int32(n))
                    elif p.startswith("mint_lo"): args.append(np.int32(lo))
                    elif p.startswith("mint_hi"): args.append(np.int32(n - lo))
                    else: raise SystemExit(f"{f}: parameter {p}")
                block = (tile[0] // vw, tile[1] // chunk[1], 1)
                grid = tuple((n - 2 * lo + tile[i] - 1) // tile[i] for i in range(3))
                for var, srcv in variants(src0, chunk[2]):
                    spilled = True
                    caps = [("cap", blocks), ("cap x2", max(1, blocks // 2))]
                    if os.environ.get("TILES_CAPS"):
                        # registers per thread r -> the most blocks of this size with r each
                        caps = [(f"cap {r}", max(1, 65536 // (threads * int(r)))) for r in os.environ["TILES_CAPS"].split(",")]
                    for cap, b in caps:
                        if not spilled and not os.environ.get("TILES_CAPS"):
                            break  # the runtime doubles the cap only for a kernel that spills
                        src = srcv.replace(f"__launch_bounds__({threads}, {blocks})", f"__launch_bounds__({threads}, {b})")
                        k = cp.RawKernel(src, name, options=("-std=c++17",))
                        v.fill(cp.nan)
                        label = f"{kern} {prec} tile{tuple(tile)} chunk{tuple(chunk)} {cap}{var}"
                        try:
                            k(grid, block, tuple(args)); cp.cuda.Device().synchronize()
                        except Exception as e:
                            print(f"{label}: FAILED {e}", flush=True); continue
                        err = float(cp.abs(v[inner] - want[inner]).max()) / scale
                        ok = err < (1e-12 if es == 8 else 1e-5)
                        t = median_ms(lambda: k(grid, block, tuple(args))) if ok else float("nan")
                        frac = pts * 2 * es / (t * 1e-3) / bw
                        spilled = k.local_size_bytes > 0
                        rows.append((frac, label, k.num_regs, k.local_size_bytes, ok))
                        print(f"{label:62s} regs {k.num_regs:3d} spill {k.local_size_bytes:4d} {'ok' if ok else 'WRONG %.1e' % err} {pts/t/1e6:6.1f} GPts/s {100*frac:5.1f}% of copy", flush=True)
    print("summary")
    for key in [f"{k} {p}" for k in ["box27", "star.r4_3d", "star.r8_3d"] for p in ["f64", "f32"]]:
        for r in sorted([r for r in rows if r[1].startswith(key) and r[4]], reverse=True)[:4]:
            print(f"{r[1]:62s} regs {r[2]:3d} spill {r[3]:4d} {100*r[0]:5.1f}%")

main()
