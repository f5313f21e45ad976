"""Does the 2.5-D star kernel lack bytes in flight? (issue #15)

proto.py and Mint's `shared, register` kernels prefetch one plane ahead through registers,
so with 255 registers (one 256-thread block per SM) an SM has about one plane of its tile
in flight. This prototype fills a ring of NS xy planes (tile + halo R) in shared memory
with cp.async (16-byte chunks, no registers), D planes ahead of the newest plane it
reads. QREG: the z neighbours come from a register queue fed from the ring (NS = R+1+D);
otherwise they are read from the ring too (NS = 2R+1+D). The x and y neighbours are read
as in proto.py (a column of PY+2R vectors, a row span of VX+2R words). Checked against a
direct kernel and timed as in proto.py, against the same run's copy bandwidth; the best
proto.py shapes are timed in the same run as the baseline.
"""
import itertools, json, os, sys, time
import cupy as cp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "h100-2026-11-24c", "star25"))
from proto import SRC as PROTO_SRC, median_ms, copy_bw

SRC = PROTO_SRC + r'''
__device__ __forceinline__ void cp16(void* s, const void* g, int bytes) {
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(sa), "l"(g), "r"(bytes));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void wait_groups() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }

template <typename T, int R, int BX, int BY, int VX, int PY, int CZ, int D, bool QREG>
__global__ void __launch_bounds__(BX * BY) astar(const T* __restrict__ u, T* __restrict__ v,
        int pitch, int slice, int nx, int ny, int nz, T coef)
{
    typedef AV<T, VX> V;
    constexpr int TX = BX * VX, TY = BY * PY, SX = TX + 2 * R, SY = TY + 2 * R, NT = BX * BY;
    constexpr int W = 16 / sizeof(T), CX = SX / W, NC = CX * SY;
    constexpr int NS = QREG ? R + 1 + D : 2 * R + 1 + D;
    static_assert(SX % W == 0, "row of whole chunks");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T (*ring)[SY][SX] = reinterpret_cast<T (*)[SY][SX]>(smem_raw);
    const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + BX * ty;
    const int xg0 = blockIdx.x * TX, yg0 = blockIdx.y * TY;      // ring[.][0][0] is (xg0, yg0)
    const int x = R + xg0 + tx * VX, y0 = R + yg0 + ty * PY;
    const int z0 = R + blockIdx.z * CZ, z1 = min(z0 + CZ, nz - R);
    auto issue = [&](int zz) {
        if (zz < nz) {
            const int s = zz % NS;
            for (int c = tid; c < NC; c += NT) {
                const int ly = c / CX, lx = (c % CX) * W, gx = xg0 + lx, gy = yg0 + ly;
                const bool ok = gx < nx && gy < ny;
                cp16(&ring[s][ly][lx], ok ? (const void*)&u[gx + gy * pitch + (size_t)zz * slice] : (const void*)u, ok ? 16 : 0);
            }
        }
        commit();
    };
    const int first = QREG ? z0 : z0 - R;
    for (int zz = first; zz < z0 + R + D; ++zz) issue(zz);
    T q[QREG ? PY : 1][QREG ? 2 * R + 1 : 1][VX];
    if (QREG) {
#pragma unroll
        for (int p = 0; p < PY; ++p)
#pragma unroll
            for (int d = 0; d < 2 * R; ++d) {
                const int zz = z0 - R + d, yy = y0 + p;
                if (x + VX - 1 < nx && yy < ny) {
                    const V w = *reinterpret_cast<const V*>(&u[x + yy * pitch + (size_t)zz * slice]);
#pragma unroll
                    for (int i = 0; i < VX; ++i) q[p][d][i] = w.a[i];
                } else {
#pragma unroll
                    for (int i = 0; i < VX; ++i) q[p][d][i] = T(0);
                }
            }
    }
    for (int z = z0; z < z1; ++z) {
        wait_groups<D - 1>();
        __syncthreads();
        issue(z + R + D);
        const int sz = z % NS;
        if (QREG) {
            const int sn = (z + R) % NS;
#pragma unroll
            for (int p = 0; p < PY; ++p) {
                const V w = *reinterpret_cast<const V*>(&ring[sn][R + ty * PY + p][R + tx * VX]);
#pragma unroll
                for (int i = 0; i < VX; ++i) q[p][2 * R][i] = w.a[i];
            }
        }
        T col[PY + 2 * R][VX];
#pragma unroll
        for (int j = 0; j < PY + 2 * R; ++j) {
            const V w = *reinterpret_cast<const V*>(&ring[sz][ty * PY + j][R + tx * VX]);
#pragma unroll
            for (int i = 0; i < VX; ++i) col[j][i] = w.a[i];
        }
#pragma unroll
        for (int p = 0; p < PY; ++p) {
            const int yy = y0 + p;
            T row[VX + 2 * R];
#pragma unroll
            for (int j = 0; j < (VX + 2 * R) / VX; ++j) {
                const V w = *reinterpret_cast<const V*>(&ring[sz][R + ty * PY + p][tx * VX + j * VX]);
#pragma unroll
                for (int i = 0; i < VX; ++i) row[j * VX + i] = w.a[i];
            }
            T zm[R][VX], zp[R][VX];
#pragma unroll
            for (int d = 1; d <= R; ++d) {
                if (QREG) {
#pragma unroll
                    for (int i = 0; i < VX; ++i) { zm[d - 1][i] = q[p][R - d][i]; zp[d - 1][i] = q[p][R + d][i]; }
                } else {
                    const V a = *reinterpret_cast<const V*>(&ring[(z - d) % NS][R + ty * PY + p][R + tx * VX]);
                    const V b = *reinterpret_cast<const V*>(&ring[(z + d) % NS][R + ty * PY + p][R + tx * VX]);
#pragma unroll
                    for (int i = 0; i < VX; ++i) { zm[d - 1][i] = a.a[i]; zp[d - 1][i] = b.a[i]; }
                }
            }
            if (yy < ny - R && x < nx - R) {
                V out;
#pragma unroll
                for (int i = 0; i < VX; ++i) {
                    T s = 0;
#pragma unroll
                    for (int d = 1; d <= R; ++d)
                        s += row[R + i - d] + row[R + i + d] + col[R + p - d][i] + col[R + p + d][i]
                           + zm[d - 1][i] + zp[d - 1][i];
                    out.a[i] = coef * s - col[R + p][i];
                }
                *reinterpret_cast<V*>(&v[x + yy * pitch + (size_t)z * slice]) = out;
            }
        }
        if (QREG) {
#pragma unroll
            for (int p = 0; p < PY; ++p)
#pragma unroll
                for (int d = 0; d < 2 * R; ++d)
#pragma unroll
                    for (int i = 0; i < VX; ++i) q[p][d][i] = q[p][d + 1][i];
        }
    }
}
'''


def main():
    n = 512
    radii = [int(r) for r in os.environ.get("RADII", "4,8").split(",")]
    precs = os.environ.get("PRECS", "double,float").split(",")
    bw = copy_bw()
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; copy {bw/1e9:.0f} GB/s; n={n}", flush=True)
    rows = []
    for tname, R in itertools.product(precs, radii):
        dt = cp.float64 if tname == "double" else cp.float32
        size = 8 if tname == "double" else 4
        W = 16 // size
        base = {("double", 4): [(32, 8, 2, 4, 64), (32, 8, 1, 4, 64)], ("float", 4): [(32, 8, 4, 4, 64), (32, 8, 1, 4, 64)],
                ("double", 8): [(32, 16, 2, 1, 512), (32, 8, 1, 2, 64)], ("float", 8): [(64, 8, 1, 4, 512), (32, 8, 1, 2, 64)]}[(tname, R)]
        confs = []
        vxs = [1, 2] if size == 8 else [1, 2, 4]
        for (bx, by), vx, py, cz, d, qreg in itertools.product([(32, 4), (32, 8), (64, 4), (32, 16)], vxs, [1, 2, 4], [64], [1, 2, 3], [True, False]):
            tx, ty = bx * vx, by * py
            ns = (R + 1 + d) if qreg else (2 * R + 1 + d)
            smem = ns * (tx + 2 * R) * (ty + 2 * R) * size
            if smem > 200 * 1024 or (tx + 2 * R) % W or (2 * R) % vx or (n - 2 * R) % vx:
                continue
            if not qreg and py > 2:
                continue
            confs.append((bx, by, vx, py, cz, d, qreg, smem))
        names = [f"astar<{tname},{R},{bx},{by},{vx},{py},{cz},{d},{'true' if q else 'false'}>" for bx, by, vx, py, cz, d, q, _ in confs]
        pnames = [f"star<{tname},{R},{bx},{by},{vx},{py},{cz}>" for bx, by, vx, py, cz in base]
        t0 = time.time()
        mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names + pnames + [f"ref<{tname},{R}>"])
        mod.compile()
        print(f"{tname} r{R}: compiled {len(names) + len(pnames)} kernels in {time.time()-t0:.1f} s", flush=True)
        rng = cp.random.default_rng(1)
        u = rng.random((n, n, n), dtype=cp.float64).astype(dt)
        v = cp.full((n, n, n), cp.nan, dtype=dt)
        want = cp.full((n, n, n), cp.nan, dtype=dt)
        coef = dt(1.0 / (6 * R))
        a = (u, want, np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n), coef)
        mod.get_function(f"ref<{tname},{R}>")(((n - 2 * R + 127) // 128, n - 2 * R, n - 2 * R), (128,), a)
        inner = (slice(R, n - R),) * 3
        scale = float(cp.abs(want[inner]).max())
        pts = (n - 2 * R) ** 3
        args = (u, v, np.int32(n), np.int32(n * n), np.int32(n), np.int32(n), np.int32(n), coef)

        def run(label, f, grid, block, smem, extra):
            v.fill(cp.nan)
            try:
                if smem > 48 * 1024:
                    f.max_dynamic_shared_size_bytes = smem
                f(grid, block, args, shared_mem=smem)
                cp.cuda.Device().synchronize()
            except Exception as e:
                print(f"  {label}: FAILED {e}", flush=True)
                return
            err = float(cp.abs(v[inner] - want[inner]).max()) / scale
            ok = err < (1e-12 if size == 8 else 1e-5)
            t = median_ms(lambda: f(grid, block, args, shared_mem=smem)) if ok else float("nan")
            frac = pts * 2 * size / (t * 1e-3) / bw
            row = dict(prec=tname, r=R, label=label, regs=f.num_regs, spill=f.local_size_bytes, smem=smem, ok=ok, err=err, ms=t, of_copy=frac, **extra)
            rows.append(row)
            print(f"  {tname} r{R} {label:44s} regs {f.num_regs:3d} spill {f.local_size_bytes:3d} smem {smem:6d} "
                  f"{'ok' if ok else 'WRONG %.1e' % err} {100*frac:5.1f}%", flush=True)

        for nm, (bx, by, vx, py, cz) in zip(pnames, base):
            grid = ((n - 2 * R + bx * vx - 1) // (bx * vx), (n - 2 * R + by * py - 1) // (by * py), (n - 2 * R + cz - 1) // cz)
            run(f"proto b{bx}x{by} vx{vx} py{py} cz{cz}", mod.get_function(nm), grid, (bx, by), 0, dict(kind="proto"))
        for nm, (bx, by, vx, py, cz, d, q, smem) in zip(names, confs):
            grid = ((n - 2 * R + bx * vx - 1) // (bx * vx), (n - 2 * R + by * py - 1) // (by * py), (n - 2 * R + cz - 1) // cz)
            run(f"async b{bx}x{by} vx{vx} py{py} cz{cz} D{d} {'qreg' if q else 'qsh'}", mod.get_function(nm), grid, (bx, by), smem,
                dict(kind="async", d=d, qreg=q))
    out = os.environ.get("OUT", ".")
    json.dump(dict(copy_bw=bw, rows=rows), open(os.path.join(out, "proto3.json"), "w"), indent=1)
    print("summary (best 4 of each)")
    for tname, R in itertools.product(precs, radii):
        rs = sorted([r for r in rows if r["prec"] == tname and r["r"] == R and r["ok"]], key=lambda r: -r["of_copy"])
        for r in [x for x in rs if x["kind"] == "proto"][:1] + [x for x in rs if x["kind"] == "async"][:4]:
            print(f"{tname} r{R}: {r['label']} regs {r['regs']} smem {r['smem']} {100*r['of_copy']:.1f}%")


if __name__ == "__main__":
    main()
