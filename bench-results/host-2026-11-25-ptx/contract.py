# counts, in each kernel's PTX, the plain products (mul.f32/f64) whose result an add or
# sub consumes: the pairs ptxas may fuse or not depending on the code around them
import sys, glob, re, os
sys.argv=['x']
exec(open('/tmp/ptx/nvrtc.py').read().split("for f in sys.argv")[0])
d = os.environ["DUMP"]
tot = 0; kernels = 0; with_pairs = []
for f in sorted(glob.glob(d + '/*.cu')):
    p = ptx(open(f).read())
    muls = set()
    pairs = 0
    for l in p.splitlines():
        t = l.strip().rstrip(';').replace(',', ' ').split()
        if not t: continue
        op = t[0]
        if re.match(r'mul(\.rn)?\.f(32|64)$', op) and not op.startswith('mul.rn'):
            muls.add(t[1])
        elif re.match(r'(add|sub)\.f(32|64)$', op):
            pairs += sum(1 for r in t[2:4] if r in muls)
    kernels += 1; tot += pairs
    if pairs: with_pairs.append((os.path.basename(f), pairs))
print(d, "kernels", kernels, "contractible pairs", tot, "kernels with any", len(with_pairs))
for k, n in with_pairs[:8]: print("  ", k, n)
