"""Mint's generated shared + register kernels of the radius-4 and radius-8 stars (dumped
by `cargo run --example dump_kernels -- DIR opt-3 TILE CHUNK` into `mint/`: d1 = tile
(32, 16, 64) chunk (1, 4, 64), d2 = tile (32, 8, 64) chunk (1, 1, 64); n1, n2 the same tiles after the translator's ghost cells
became the whole block's work, `optimizer/chunk.rs::plane_groups`) against the
prototype of `proto.py` in the same shapes, in one run: which of the prototype's
differences carries its speed."""
import os, re, glob
import cupy as cp
import numpy as np
from proto import SRC, median_ms, copy_bw

def main():
    n = 512
    bw = copy_bw()
    print(f"copy {bw/1e9:.0f} GB/s", flush=True)
    shapes = {"d1": ((32, 4), (32, 16, 64)), "d2": ((32, 8), (32, 8, 64)), "n1": ((32, 4), (32, 16, 64)), "n2": ((32, 8), (32, 8, 64))}
    rows = []
    for tname, dt, size in [("double", cp.float64, 8), ("float", cp.float32, 4)]:
        for R in (4, 8):
            confs = [(32, 4, 1, 4), (32, 8, 1, 1), (32, 8, 2, 4)]
            confs = [c for c in confs if 2 * (c[0] * c[2] + 2 * R) * (c[1] * c[3] + 2 * R) * size <= 48 * 1024]
            names = [f"star<{tname},{R},{bx},{by},{vx},{py},64>" for bx, by, vx, py in confs] + [f"ref<{tname},{R}>"]
            mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
            rng = cp.random.default_rng(1)
            u = rng.random((n, n, n), dtype=cp.float64).astype(dt)
            v = cp.full((n, n, n), cp.nan, dtype=dt)
            want = cp.full((n, n, n), cp.nan, dtype=dt)
            coef = dt(1.0 / (6 * R))
            mod.get_function(names[-1])(((n - 2 * R + 127) // 128, n - 2 * R, n - 2 * R), (128,),
                                       (u, want, np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n), coef))
            inner = (slice(R, n - R),) * 3
            scale = float(cp.abs(want[inner]).max())
            pts = (n - 2 * R) ** 3
            def check_time(label, launch, regs):
                v.fill(cp.nan)
                launch()
                err = float(cp.abs(v[inner] - want[inner]).max()) / scale
                ok = err < (1e-12 if size == 8 else 1e-5)
                t = median_ms(launch) if ok else float("nan")
                frac = pts * 2 * size / (t * 1e-3) / bw
                rows.append((tname, R, label, regs, ok, frac))
                print(f"{tname} r{R} {label:28s} regs {regs:3d} {'ok' if ok else 'WRONG %.1e' % err} {100*frac:5.1f}%", flush=True)
            # the prototype
            for nm, (bx, by, vx, py) in zip(names, confs):
                f = mod.get_function(nm)
                grid = ((n - 2 * R + bx * vx - 1) // (bx * vx), (n - 2 * R + by * py - 1) // (by * py), (n - 2 * R + 63) // 64)
                a = (u, v, np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n), coef)
                check_time(f"proto b{bx}x{by} vx{vx} py{py}", lambda f=f, grid=grid, bx=bx, by=by, a=a: f(grid, (bx, by), a), f.num_regs)
            # Mint's
            p = "f64" if size == 8 else "f32"
            for d, (block, tile) in shapes.items():
                src = open(f"mint/{d}.r{R}.{p}.cu").read()
                m = re.search(r"\(\*mint_sh_u\)\[(\d+)\]\[(\d+)\].*// (\d+) slot", src)
                smem = int(m.group(1)) * int(m.group(2)) * int(m.group(3)) * size
                k = cp.RawKernel(src, "mint_k_shared_register_0", options=("-std=c++17",))
                if smem > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = smem
                lo, hi = R, n - R
                grid = tuple((hi - lo + t - 1) // t for t in tile)
                a = (u, np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n), v, np.int32(n), np.int32(n * n), coef,
                     np.int32(lo), np.int32(hi), np.int32(lo), np.int32(hi), np.int32(lo), np.int32(hi))
                check_time(f"mint {d} t{tile} b{block}", lambda k=k, grid=grid, block=block, a=a, smem=smem: k(grid, block, a, shared_mem=smem), k.num_regs)
    print("summary")
    for r in rows:
        print(f"{r[0]} r{r[1]} {r[2]:32s} regs {r[3]:3d} {100*r[5]:5.1f}%")

if __name__ == "__main__":
    main()
