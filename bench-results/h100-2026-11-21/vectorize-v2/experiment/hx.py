# Experiment: generated `vectorize` kernels against hand-edited forms (unswitched fast path).
import os, re, sys, glob, cupy as cp, numpy as np
N = 512
PAD = 0
HERE = os.path.dirname(os.path.abspath(__file__))

def timeit(f, reps=7, it=10):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    f(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s.record()
        for _ in range(it): f()
        e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) / it * 1e-3)
    return float(np.median(ts))

a = cp.zeros(1 << 28, dtype=cp.float32); b = cp.zeros_like(a)
t = timeit(lambda: cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, 3, 0))
COPY = 2 * a.nbytes / t
print(f"memcpy D2D {COPY*1e-9:.0f} GB/s", flush=True)
del a, b

class Arr:
    def __init__(self, dt, lo, fill):
        es = np.dtype(dt).itemsize
        self.front = ((128 - (lo * es) % 128) % 128) // es
        self.pitch = ((N * es + 127) // 128 * 128) // es + PAD * (128 // es)
        self.slice = self.pitch * N
        n = self.front + N * self.slice + 256
        self.buf = (cp.random.random(n, dtype=cp.float64).astype(dt) if fill else cp.zeros(n, dtype=dt))
        self.es = es
    def ptr(self):
        return self.buf.data.ptr + self.front * self.es
    def view(self):
        return self.buf[self.front:self.front + N * self.slice].reshape(N, N, self.pitch)[:, :, :N]

SETUPS = {}
def setup(kind, dt):
    key = (kind, dt, PAD)
    if key in SETUPS: return SETUPS[key]
    R = 1 if kind == "heat" else 2
    u = Arr(dt, R, True); v = Arr(dt, R, False)
    uu = u.view()
    c = [dt(0.4), dt(0.1), dt(0.05)][: R + 1]
    s = c[0] * uu[R:-R, R:-R, R:-R]
    for d in range(1, R + 1):
        nb = uu[R:-R, R:-R, R - d:N - R - d] + uu[R:-R, R:-R, R + d:N - R + d] + uu[R:-R, R - d:N - R - d, R:-R] + uu[R:-R, R + d:N - R + d, R:-R] + uu[R - d:N - R - d, R:-R, R:-R] + uu[R + d:N - R + d, R:-R, R:-R]
        s = s + c[d] * nb
    SETUPS[key] = (R, u, v, c, s)
    return SETUPS[key]

RES = []
def run(label, src, name, kind, dt, tile, threads, opts=()):
    R, u, v, c, ref = setup(kind, dt)
    try:
        mod = cp.RawModule(code=src, options=("-std=c++17", "-arch=sm_90") + tuple(opts))
        k = mod.get_function(name)
        regs = k.num_regs
    except Exception as ex:
        print(f"{label}: compile failed {str(ex)[:300]}", flush=True); return
    I = np.int32
    args = []
    for arr in (v, u):
        args += [cp.uint64(arr.ptr()) if False else arr.ptr(), I(arr.pitch), I(arr.slice), I(N), I(N), I(N)]
    args += list(c)
    for d in range(3):
        args += [I(R), I(N - R)]
    args = tuple(np.uint64(a) if isinstance(a, int) else a for a in args)
    n = N - 2 * R
    grid = tuple((n + tile[i] - 1) // tile[i] for i in range(3))
    f = lambda: k(grid, threads, args)
    v.buf.fill(0)
    f(); cp.cuda.Device().synchronize()
    err = float(cp.max(cp.abs(v.view()[R:-R, R:-R, R:-R] - ref)) / cp.max(cp.abs(ref)))
    t = timeit(f)
    pts = n ** 3
    gp = pts / t * 1e-9
    frac = pts * 2 * u.es / t / COPY
    print(f"{kind}{8*u.es} {label:40s} regs={regs:3d}: {gp:7.1f} GPts/s {100*frac:5.1f}% copy err={err:.1e}", flush=True)
    RES.append((kind, u.es, label, gp, frac, regs, err))

def gen(kind, dt, cfgdir, mb=1, d="gen"):
    fn = f"{HERE}/{d}/{cfgdir}/{kind}{8*np.dtype(dt).itemsize}.cu"
    src = open(fn).read()
    m = re.search(r"tile\((\d+), (\d+), (\d+)\).*: (\d+)x(\d+)x(\d+) threads", src)
    tile = tuple(int(x) for x in m.group(1, 2, 3)); thr = tuple(int(x) for x in m.group(4, 5, 6))
    if mb != 0: src = re.sub(r"__launch_bounds__\((\d+)(, \d+)?\)", lambda m: f"__launch_bounds__({m.group(1)}, {mb})", src)
    run(f"{d} {cfgdir} mb{mb}", src, "mint_k_vector_0", kind, dt, tile, thr)

def hand(kind, dt, tx, ty, cz, slowel=1, unroll=0, minb=1, pf=1, form='S'):
    es = np.dtype(dt).itemsize; V = 16 // es
    pre = open(f"{HERE}/prelude{'64' if es == 8 else ''}.cu").read()
    body = open(f"{HERE}/{kind}{form}.cu").read()
    defs = f"#define TX {tx}\n#define TY {ty}\n#define CZ {cz}\n#define SLOWEL {slowel}\n#define UNROLL {unroll}\n#define MINB {minb}\n#define VW {V}\n#define PREFETCH {pf}\n#define NOSLOW 0\n#define REAL {'double' if es == 8 else 'float'}\n"
    run(f"{form} t{tx}x{ty}x{cz} el{slowel} un{unroll} pf{pf} mb{minb}", defs + pre + body, f"{kind}{form}", kind, dt, (tx, ty, cz), (tx // V, ty, 1))

which = sys.argv[1:] or ["all"]
f32, f64 = np.float32, np.float64
CF = ["t128x4x1c1x1x1", "t128x8x1c1x1x1", "t128x4x2c1x1x2", "t128x4x4c1x1x4", "t128x4x8c1x1x8", "t64x4x2c1x1x2", "t64x4x4c1x1x4", "t64x4x8c1x1x8"]
for kind, dt in [("heat", f32), ("heat", f64), ("star", f64), ("star", f32)]:
    for c in CF:
        gen(kind, dt, c, 0, "gen3")
    if kind == "heat":
        for c in ["t128x4x1c1x1x1", "t128x8x1c1x1x1", "t64x4x2c1x1x2"]:
            gen(kind, dt, c, 12, "gen3")
import json
json.dump(RES, open(os.environ.get("OUT", ".") + "/hx.json", "w"))
