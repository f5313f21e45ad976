import cupy as cp, numpy as np, subprocess, os
d = os.path.dirname(os.path.abspath(__file__))
src = open(f"{d}/k2.cu").read()
n = 4096
rng = np.random.default_rng(1)
a = rng.integers(-50, 50, n).astype(np.int32); b = rng.integers(-50, 50, n).astype(np.int32)
mn, mx = np.minimum, np.maximum
ka = mn(mn(a, -a), b); kc = mx(a, mx(a, -b))
ref = {"ka_m64": ka, "kc_x64": kc, "ka_sel": ka, "kc_sel": kc, "ka_neg": ka, "kc_neg": kc, "ka_plain": ka, "kc_plain": kc,
  "kg_plain": mn(mn(a, b), -b), "kh_plain": mx(mx(a, -a), b), "ki_plain": mn(b, mn(a, -a)), "kj_plain": mn(mn(a, -a), -b),
  "kk_plain": mn(mn(a, 3 - a), b), "kl_plain": mn(mn(a, ~a), b), "km_plain": mx(a, mx(a, b)), "kn_plain": mx(a, mx(a, 5 - b))}
da, db = cp.asarray(a), cp.asarray(b)
m = cp.RawModule(code=src, options=("-arch=sm_90",), backend="nvrtc")
for k, r in ref.items():
    out = cp.zeros(n, cp.int32)
    m.get_function(k)((n // 128,), (128,), (da, db, out, np.int32(n)))
    o = cp.asnumpy(out); bad = int((o != r).sum())
    print(f"{k:10s}: {'ok' if bad == 0 else f'WRONG {bad} of {n}'}")
subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", f"{d}/k2.cubin", f"{d}/k2.cu"])
s = subprocess.run(["cuobjdump", "-sass", f"{d}/k2.cubin"], capture_output=True, text=True).stdout
import re
for fn in re.split(r"\t\tFunction : ", s)[1:]:
    name = fn.split("\n")[0]
    ins = [re.sub(r"/\*.*?\*/", "", l).strip() for l in fn.split("\n") if re.match(r"\s+/\*0", l)]
    ins = [i for i in ins if i and not i.startswith(("NOP", "BRA", "LDC", "ULDC", "S2R", "S2UR", "IMAD R", "ISETP.GE", "@P0 EXIT", "LDG", "IMAD.WIDE"))]
    print(name, " | ".join(ins))
