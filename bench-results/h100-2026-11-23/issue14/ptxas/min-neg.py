import cupy as cp, numpy as np, subprocess, sys, os
src = open(os.path.join(os.path.dirname(__file__), "min-neg.cu")).read()
n = 4096
rng = np.random.default_rng(1)
a = rng.integers(-50, 50, n).astype(np.int32); b = rng.integers(-50, 50, n).astype(np.int32)
x = np.arange(n, dtype=np.int32)
ref = {"ka": np.minimum(np.minimum(a, -a), b), "kb": np.minimum(a, -4 * x), "kc": np.maximum(a, np.maximum(a, -b)),
       "kd": np.maximum(a, -b), "ke": np.minimum(a, -b), "kf": np.minimum(a, -b)}
da, db = cp.asarray(a), cp.asarray(b)
def run(mod, tag):
    for k, r in ref.items():
        out = cp.zeros(n, cp.int32)
        mod.get_function(k)((n // 128,), (128,), (da, db, out, np.int32(n)))
        o = cp.asnumpy(out); bad = int((o != r).sum())
        print(f"{tag:28s} {k}: {'ok' if bad == 0 else f'WRONG {bad} of {n}, e.g. got {o[o!=r][:3]} want {r[o!=r][:3]}'}")
for opts in [("-arch=sm_90",), ("-arch=sm_90", "-G")]:
    try:
        m = cp.RawModule(code=src, options=opts, backend="nvrtc"); m.compile(); run(m, "cupy-nvrtc " + " ".join(opts[1:]))
    except Exception as e: print("nvrtc", opts, e)
d = os.path.dirname(os.path.abspath(__file__))
for lvl in ["3", "2", "1", "0"]:
    cub = f"{d}/k{lvl}.cubin"
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", f"-Xptxas=-O{lvl}", "-o", cub, f"{d}/min-neg.cu"], capture_output=True, text=True)
    if r.returncode: print(r.stderr); continue
    run(cp.RawModule(path=cub), f"nvcc ptxas -O{lvl}")
r = subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-o", f"{d}/k.ptx", f"{d}/min-neg.cu"], capture_output=True, text=True)
print(r.stderr)
run(cp.RawModule(path=f"{d}/k.ptx"), "driver JIT of nvcc's PTX")
print(subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout[-120:])
print(subprocess.run(["cuobjdump", "-sass", f"{d}/k3.cubin"], capture_output=True, text=True).stdout[:9000])
print(open(f"{d}/k.ptx").read()[:4000])
