"""Times Mint's ring-path kernels of the radius-8 star (mint/, written by dump.sh from
this session's code) as printed and with the interior of each plane stored from the z
queue (transform.py), at the register caps 128, 168 and 255; every kernel is compared bit
for bit with the first (printed) kernel of its tile. CUDA events, median of 5 x 5
launches at 512^3, against a 1 GiB device-to-device copy."""
import glob, os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "h100-2026-11-24c", "star25"))
sys.path.insert(0, HERE)
from proto import median_ms, copy_bw
from transform import transform

def build(stem):
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "--fmad=true", "-Xptxas", "-v",
                        "-o", stem + ".cubin", stem + ".cu"], capture_output=True, text=True)
    regs = re.search(r"Used (\d+) registers", r.stderr)
    spill = re.search(r"(\d+) bytes spill stores", r.stderr)
    if r.returncode: print(r.stderr[-3000:], flush=True)
    return (int(regs.group(1)) if regs else -1, int(spill.group(1)) if spill else -1, r.returncode)

CAPS = [int(c) for c in os.environ.get("CAPS", "128,168,255").split(",")]
ONLY = os.environ.get("ONLY", "")

def main():
    n = 512
    work = tempfile.mkdtemp()
    jobs = []
    for f in sorted(glob.glob(os.path.join(HERE, "mint", "*.cu"))):
        src0 = open(f).read()
        if ONLY and not re.search(ONLY, f):
            continue
        if "mint_ring_" not in src0:
            continue  # the rings do not fit (f64 at 64x8: 61 KB): the plain vector path
        entry = re.search(r"__global__ void __launch_bounds__\((\d+), (\d+)\) (\w+)\(", src0)
        threads, name = int(entry.group(1)), entry.group(3)
        forms = {"printed": src0, "halo": transform(src0)}
        for form, src1 in forms.items():
            for cap in CAPS:
                b = max(1, 65536 // (cap * threads))
                src = src1.replace(entry.group(0), f"__global__ void __launch_bounds__({threads}, {b}) {name}(")
                stem = os.path.join(work, f"{os.path.basename(f)[:-3]}.{form}.c{cap}")
                open(stem + ".cu", "w").write(src)
                jobs.append((f, form, cap, stem, name))
    with ThreadPoolExecutor(os.cpu_count()) as ex:
        built = list(ex.map(lambda j: build(j[3]), jobs))
    bw = copy_bw()
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; copy {bw/1e9:.0f} GB/s", flush=True)
    state = {}
    rows = []
    for (f, form, cap, stem, name), (regs, spill, rc) in zip(jobs, built):
        base = os.path.basename(f)
        m = re.search(r"t(\d+)x(\d+)x(\d+)c(\d+)x(\d+)x(\d+)\.mint_kernels\.star\.(r\d)_3d\.(f\d+)", base)
        tile = [int(m.group(i)) for i in (1, 2, 3)]
        kern, prec = m.group(7), m.group(8)
        R = int(kern[1:])
        es = 8 if prec == "f64" else 4
        dt = cp.float64 if es == 8 else cp.float32
        label = f"{kern} {prec} t{tile[0]}x{tile[1]}x{tile[2]} {form:8s} cap {cap:3d}"
        if rc or regs < 0:
            print(f"{label}: nvcc failed", flush=True); continue
        key = (base,)
        if key not in state:
            state.clear(); cp.get_default_memory_pool().free_all_blocks()
            raws = [cp.zeros(n ** 3 * es + 4 * n * n * es, dtype=cp.uint8) for _ in range(2)]
            def place(raw):
                b0 = raw.data.ptr + 1024
                b0 += (128 - (b0 + R * es) % 128) % 128
                return cp.ndarray((n, n, n), dtype=dt, memptr=cp.cuda.MemoryPointer(raw.data.mem, b0 - raw.data.mem.ptr))
            u, v = place(raws[0]), place(raws[1])
            u[...] = cp.random.default_rng(1).random((n, n, n), dtype=cp.float64).astype(dt)
            state[key] = dict(raws=raws, u=u, v=v, want=None)
        st = state[key]
        u, v = st["u"], st["v"]
        coef = dt(1.0 / (6 * R))
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
            elif p.startswith("mint_lo"): args.append(np.int32(R))
            elif p.startswith("mint_hi"): args.append(np.int32(n - R))
            else: raise SystemExit(f"parameter {p}")
        vw = 16 // es
        block = (tile[0] // vw, tile[1], 1)
        grid = tuple((n - 2 * R + tile[i] - 1) // tile[i] for i in range(3))
        k = cp.RawModule(path=stem + ".cubin").get_function(name)
        v.fill(cp.nan)
        run = lambda: k(grid, block, tuple(args))
        run(); cp.cuda.Device().synchronize()
        inner = (slice(R, n - R),) * 3
        got = v[inner].copy()
        if st["want"] is None:
            st["want"] = got; note = "reference"
        else:
            iv = cp.uint32 if es == 4 else cp.uint64
            same = bool((got.view(iv) == st["want"].view(iv)).all())
            note = "bitwise" if same else "DIFFERS"
        t = median_ms(run)
        pts = (n - 2 * R) ** 3
        frac = pts * 2 * es / (t * 1e-3) / bw
        rows.append((kern, prec, frac, label, regs, spill))
        print(f"{label:44s} regs {regs:3d} spill {spill:4d} {note:9s} {pts/t/1e6:6.1f} GPts/s {100*frac:5.1f}% of copy", flush=True)
    print("summary (best six of each precision)")
    for prec in ("f32", "f64"):
        for r in sorted([r for r in rows if r[1] == prec], key=lambda r: -r[2])[:6]:
            print(f"{r[3]:44s} regs {r[4]:3d} spill {r[5]:4d} {100*r[2]:5.1f}%")

main()
