"""Taller `vectorize` blocks for the radius-4 and radius-8 stars (issue #15, the radius-8
goal of 60% of copy). Today's best radius-8 kernel in f32 (t128x4x16, 166 registers, three
blocks of 128 threads per SM) reads each plane's y ghost rows again for every block: a
128x4 tile reads 20 rows for 4, and L2 serves about 5x the compulsory bytes. One block of
384 threads (128x12) holds the same 12 warps per SM at up to 168 registers and reads 28
rows for 12. This times the kernels dump.sh wrote (mint/), each as printed and with its z
steps rolled (`roll_z`: `#pragma unroll 1` on the z-step loop), at the register caps the
runtime's ladder (96, 128, 168, 255) reaches: compiled with nvcc in parallel, the first cap
that does not spill is timed (the runtime's rule), and the others that do not spill too.
Checked against a direct kernel; CUDA events, median of 5 x 5 launches at 512^3, against a
1 GiB device-to-device copy measured in the same run."""
import glob, os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
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
'''
STEPS = [64, 96, 128, 168, 255]

def min_blocks(cap, threads):
    return max(1, 65536 // max(1, cap * threads))

def ladder(threads):
    out = [64]
    while True:
        nxt = [c for c in STEPS if c > out[-1] and min_blocks(c, threads) < min_blocks(out[-1], threads)]
        if not nxt:
            return out
        out.append(nxt[0])

def rolled(src):
    m = re.findall(r"#pragma unroll\n(\s*for \(idx_t mint_s = 0;)", src)
    assert len(m) == 1, "z-step loop not found"
    return re.sub(r"#pragma unroll\n(\s*for \(idx_t mint_s = 0;)", r"#pragma unroll 1\n\1", src)

def zname(name, d):
    return f"{name}_z0" if d == 0 else f"{name}_zp{d}" if d > 0 else f"{name}_zm{-d}"

def no_prefetch(src):
    """The kernel with each z queue's leading plane loaded at the start of the step that
    first reads it instead of one step ahead: one plane fewer held in registers (from
    h100-2026-11-24e/boxq/tiles.py)."""
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

def main():
    n = 512
    here = os.path.dirname(os.path.abspath(__file__))
    only = os.environ.get("TALL_ONLY", "")
    files = sorted(glob.glob(os.path.join(here, "mint", "*.cu")))
    order = lambda f: (0 if "r8_3d.f32" in f else 1 if "r8_3d.f64" in f else 2 if "r4_3d.f32" in f else 3, f)
    files = sorted([f for f in files if not only or any(o in f for o in only.split(","))], key=order)
    work = tempfile.mkdtemp()
    jobs = []
    for f in files:
        src0 = open(f).read()
        entry = re.search(r"__global__ void __launch_bounds__\((\d+), (\d+)\) (\w+)\(", src0)
        threads, name = int(entry.group(1)), entry.group(3)
        cz = int(re.search(r"c\d+x\d+x(\d+)", os.path.basename(f)).group(1))
        kinds = ["unr", "roll"] if cz > 1 else ["unr"]
        if os.environ.get("TALL_NOPF") and cz > 1:
            kinds.append("roll-nopf")
        # TALL_UNROLLS=2,4: the z-step loop unrolled by 2, 4 (the queue moves of two or four
        # steps folded into one set)
        for u in os.environ.get("TALL_UNROLLS", "").split(","):
            if u and cz > int(u):
                kinds.append(f"unroll{u}")
        for roll in kinds:
            src1 = rolled(src0) if roll != "unr" else src0
            if roll.startswith("unroll"):
                src1 = src1.replace("#pragma unroll 1\n", f"#pragma unroll {roll[6:]}\n", 1)
                assert f"#pragma unroll {roll[6:]}\n" in src1
            if roll == "roll-nopf":
                src1 = no_prefetch(src1)
                assert src1 != src0
            for cap in ladder(threads):
                b = min_blocks(cap, threads)
                src = src1.replace(entry.group(0), f"__global__ void __launch_bounds__({threads}, {b}) {name}(")
                stem = os.path.join(work, f"{os.path.basename(f)[:-3]}.{roll}.b{b}")
                open(stem + ".cu", "w").write(src)
                jobs.append((f, roll, cap, b, stem, name))
    def build(j):
        stem = j[4]
        r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "--fmad=true", "-Xptxas", "-v",
                            "-o", stem + ".cubin", stem + ".cu"], capture_output=True, text=True)
        regs = re.search(r"Used (\d+) registers", r.stderr)
        spill = re.search(r"(\d+) bytes spill stores", r.stderr)
        return (int(regs.group(1)) if regs else -1, int(spill.group(1)) if spill else -1, r.returncode)
    with ThreadPoolExecutor(os.cpu_count()) as ex:
        built = list(ex.map(build, jobs))
    print(f"compiled {len(jobs)} kernels", flush=True)
    bw = copy_bw()
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; copy {bw/1e9:.0f} GB/s", flush=True)
    rows = []
    cache = {}
    for (f, roll, cap, b, stem, name), (regs, spill, rc) in zip(jobs, built):
        base = os.path.basename(f)
        m = re.search(r"t(\d+)x(\d+)x(\d+)c(\d+)x(\d+)x(\d+)\.mint_kernels\.star\.(r\d)_3d\.(f\d+)", base)
        tile = [int(m.group(i)) for i in (1, 2, 3)]
        chunk = [int(m.group(i)) for i in (4, 5, 6)]
        kern, prec = m.group(7), m.group(8)
        lo = int(kern[1:])
        label = f"{kern} {prec} t{tile[0]}x{tile[1]}x{tile[2]} {roll:9s} cap {cap:3d} ({b} blk)"
        if rc != 0 or regs < 0:
            print(f"{label}: nvcc failed", flush=True); continue
        if spill > 0 and not os.environ.get("TALL_ALLCAPS"):
            print(f"{label:52s} regs {regs:3d} spill {spill:4d}: not timed", flush=True); continue
        es = 8 if prec == "f64" else 4
        dt = cp.float64 if es == 8 else cp.float32
        key = (kern, prec)
        if key not in cache:
            cache.clear(); cp.get_default_memory_pool().free_all_blocks()
            tname = "double" if es == 8 else "float"
            ref = cp.RawModule(code=REF, options=("-std=c++17",), name_expressions=[f"star<{tname}>"])
            total = n ** 3 * es
            raws = [cp.zeros(total + 4096, dtype=cp.uint8) for _ in range(2)]
            def place(raw):
                base = raw.data.ptr + 1024
                base += (128 - (base + lo * es) % 128) % 128
                mem = cp.cuda.MemoryPointer(raw.data.mem, base - raw.data.mem.ptr)
                return cp.ndarray((n, n, n), dtype=dt, memptr=mem)
            u, v = place(raws[0]), place(raws[1])
            u[...] = cp.random.default_rng(1).random((n, n, n), dtype=cp.float64).astype(dt)
            want = cp.full((n, n, n), cp.nan, dtype=dt)
            coef = dt(1.0 / (6 * lo))
            ref.get_function(f"star<{tname}>")(((n - 2 * lo + 127) // 128, n - 2 * lo, n - 2 * lo), (128,), (u, want, np.int32(n), np.int32(lo), coef))
            cache[key] = (raws, u, v, want, coef)
        raws, u, v, want, coef = cache[key]
        inner = (slice(lo, n - lo),) * 3
        scale = float(cp.abs(want[inner]).max())
        pts = (n - 2 * lo) ** 3
        src = open(stem + ".cu").read()
        head = src.split(name + "(")[1].split(")\n{")[0]
        params = [l.strip().rstrip(",").replace("*", " ").split()[-1] for l in head.strip().splitlines()]
        vals = {"u": u, "unew": v, "coef": coef}
        args = []
        for p in params:
            if p in vals: args.append(vals[p])
            elif p.startswith("mint_pitch"): args.append(np.int32(n))
            elif p.startswith("mint_slice"): args.append(np.int32(n * n))
            elif p.startswith(("mint_nx", "mint_ny", "mint_nz")): args.append(np.int32(n))
            elif p.startswith("mint_lo"): args.append(np.int32(lo))
            elif p.startswith("mint_hi"): args.append(np.int32(n - lo))
            else: raise SystemExit(f"{f}: parameter {p}")
        vw = 16 // es
        block = (tile[0] // vw, tile[1] // chunk[1], 1)
        grid = tuple((n - 2 * lo + tile[i] - 1) // tile[i] for i in range(3))
        k = cp.RawModule(path=stem + ".cubin").get_function(name)
        v.fill(cp.nan)
        k(grid, block, tuple(args)); cp.cuda.Device().synchronize()
        err = float(cp.abs(v[inner] - want[inner]).max()) / scale
        ok = err < (1e-12 if es == 8 else 1e-5)
        t = median_ms(lambda: k(grid, block, tuple(args))) if ok else float("nan")
        frac = pts * 2 * es / (t * 1e-3) / bw
        rows.append((kern, prec, frac, label, regs, spill))
        print(f"{label:52s} regs {regs:3d} spill {spill:4d} {'ok' if ok else 'WRONG %.1e' % err} {pts/t/1e6:6.1f} GPts/s {100*frac:5.1f}% of copy", flush=True)
    print("summary (best four of each)")
    for key in [("r8", "f32"), ("r8", "f64"), ("r4", "f32"), ("r4", "f64")]:
        for r in sorted([r for r in rows if r[:2] == key], key=lambda r: -r[2])[:4]:
            print(f"{r[3]:52s} regs {r[4]:3d} spill {r[5]:4d} {100*r[2]:5.1f}%")

main()
