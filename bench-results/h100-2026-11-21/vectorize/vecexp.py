# Experiment: which kernel shapes reach the copy bound for star stencils on Hopper.
import os, cupy as cp, numpy as np, itertools, sys, json
SRC = r'''
typedef REAL real;
constexpr int R = RAD;
constexpr int V = VB / sizeof(real);
typedef VT vec_t;
__device__ __forceinline__ void vld(const real* __restrict__ p, real* r) {
    const vec_t v = __ldg(reinterpret_cast<const vec_t*>(p));
    const real* q = reinterpret_cast<const real*>(&v);
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] = q[k];
}
__device__ __forceinline__ void vst(real* p, const real* r) {
    vec_t v; real* q = reinterpret_cast<real*>(&v);
#pragma unroll
    for (int k = 0; k < V; ++k) q[k] = r[k];
    *reinterpret_cast<vec_t*>(p) = v;
}
#define IDX(x,y,z) ((x) + (y)*pitch + (z)*slice)
extern "C" __global__ void direct(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x = R + blockIdx.x*blockDim.x + threadIdx.x, y = R + blockIdx.y*blockDim.y + threadIdx.y, z = R + blockIdx.z;
    if (x >= nx-R || y >= ny-R) return;
    const int i = IDX(x,y,z);
    real s = 0;
#pragma unroll
    for (int d = 1; d <= R; ++d) s += u[i-d] + u[i+d] + u[i-d*pitch] + u[i+d*pitch] + u[i-d*slice] + u[i+d*slice];
    v[i] = c0*u[i] + c1*s;
}
// V x-points per thread, CZ planes per thread, z column in registers; all loads 16 bytes.
template <int CZ>
__device__ __forceinline__ void vstream(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    constexpr int H = (R + V - 1) / V;  // halo vectors each side
    const int x0 = R + (blockIdx.x*blockDim.x + threadIdx.x)*V, y = R + blockIdx.y*blockDim.y + threadIdx.y;
    const int z0 = R + blockIdx.z*CZ, z1 = min(z0 + CZ, nz - R);
    if (x0 >= nx-R || y >= ny-R) return;
    real q[2*R+1][V];
#pragma unroll
    for (int d = 0; d < 2*R; ++d) vld(&u[IDX(x0, y, z0 - R + d)], q[d]);
    for (int z = z0; z < z1; ++z) {
        vld(&u[IDX(x0, y, z + R)], q[2*R]);
        real c[V + 2*H*V];
#pragma unroll
        for (int h = 0; h < H; ++h) { vld(&u[IDX(x0 - (H-h)*V, y, z)], &c[h*V]); vld(&u[IDX(x0 + (h+1)*V, y, z)], &c[(H+1+h)*V]); }
#pragma unroll
        for (int k = 0; k < V; ++k) c[H*V + k] = q[R][k];
        real s[V];
#pragma unroll
        for (int k = 0; k < V; ++k) s[k] = 0;
#pragma unroll
        for (int d = 1; d <= R; ++d) {
            real ym[V], yp[V];
            vld(&u[IDX(x0, y - d, z)], ym); vld(&u[IDX(x0, y + d, z)], yp);
#pragma unroll
            for (int k = 0; k < V; ++k) s[k] += c[H*V + k - d] + c[H*V + k + d] + ym[k] + yp[k] + q[R-d][k] + q[R+d][k];
        }
        real o[V];
#pragma unroll
        for (int k = 0; k < V; ++k) o[k] = c0*q[R][k] + c1*s[k];
        if (x0 + V <= nx - R) vst(&v[IDX(x0,y,z)], o);
        else for (int k = 0; k < V && x0 + k < nx - R; ++k) v[IDX(x0+k,y,z)] = o[k];
#pragma unroll
        for (int d = 0; d < 2*R; ++d)
#pragma unroll
            for (int k = 0; k < V; ++k) q[d][k] = q[d+1][k];
    }
}
extern "C" __global__ void __launch_bounds__(LB) vs1(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<1>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs2(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<2>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs4(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<4>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs8(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<8>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs16(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<16>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs32(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<32>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void __launch_bounds__(LB) vs64(const real* __restrict__ u, real* __restrict__ v, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) { vstream<64>(u,v,pitch,slice,nx,ny,nz,c0,c1); }
extern "C" __global__ void vcopy(const real* __restrict__ u, real* __restrict__ v, long n) {
    long i = ((long)blockIdx.x*blockDim.x + threadIdx.x)*V;
    if (i + V <= n) { real r[V]; vld(&u[i], r); vst(&v[i], r); }
}
'''
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

N = 512
res = {}
# memcpy bandwidth
a = cp.zeros(1 << 28, dtype=cp.float32); b = cp.zeros_like(a)
t = timeit(lambda: cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, 3, 0))
copy_bw = 2 * a.nbytes / t
print(f"memcpy D2D {copy_bw*1e-9:.0f} GB/s", flush=True)
del a, b
for prec, R in [(a.split(":")[0], int(a.split(":")[1])) for a in sys.argv[1:]]:
    real = "float" if prec == "f32" else "double"
    VB = int(os.environ.get("VB", "16")); LB = int(os.environ.get("LB", "1024"))
    vt = {("f32",16):"float4",("f64",16):"double2",("f32",8):"float2",("f64",8):"double"}[(prec,VB)]
    dt = np.float32 if prec == "f32" else np.float64
    es = 4 if prec == "f32" else 8
    V = VB // es
    mod = cp.RawModule(code=SRC.replace("REAL", real).replace("RAD", str(R)).replace("VT", vt).replace("VB", str(VB)).replace("LB", str(LB)), options=("-std=c++17", "-arch=sm_90"))
    # layout: rows padded to 128 B with x=R aligned
    al = 128 // es
    off = (al - R % al) % al
    pitch = ((N + off + 2 * al + al - 1) // al) * al
    slice_ = pitch * N
    buf_u = cp.random.random((N + 1) * slice_, dtype=cp.float64).astype(dt)
    buf_v = cp.zeros_like(buf_u)
    u = buf_u[off:]; v = buf_v[off:]
    uu = u[: N * slice_].reshape(N, N, pitch)[:, :, :N]
    c0, c1 = dt(0.4), dt(0.1)
    ref = c0 * uu[R:-R, R:-R, R:-R]
    sref = cp.zeros_like(ref)
    for d in range(1, R + 1):
        sref += uu[R:-R, R:-R, R - d:N - R - d] + uu[R:-R, R:-R, R + d:N - R + d] + uu[R:-R, R - d:N - R - d, R:-R] + uu[R:-R, R + d:N - R + d, R:-R] + uu[R - d:N - R - d, R:-R, R:-R] + uu[R + d:N - R + d, R:-R, R:-R]
    ref = ref + c1 * sref
    pts = (N - 2 * R) ** 3
    args_tail = (np.int32(pitch), np.int32(slice_), np.int32(N), np.int32(N), np.int32(N), c0, c1)
    n = N - 2 * R
    def check(name):
        vv = v[: N * slice_].reshape(N, N, pitch)[:, :, :N][R:-R, R:-R, R:-R]
        err = float(cp.max(cp.abs(vv - ref)))
        return err
    def run(name, grid, block):
        k = mod.get_function(name)
        v.fill(0)
        f = lambda: k(grid, block, (u, v) + args_tail)
        f(); err = check(name)
        t = timeit(f)
        gp = pts / t * 1e-9
        frac = pts * 2 * es / t / copy_bw
        print(f"{prec} R={R} {name:6s} grid={grid} block={block}: {gp:7.1f} GPts/s {100*frac:5.1f}% copy err={err:.1e}", flush=True)
        res[f"{prec} R{R} {name} {block}"] = (gp, frac)
    for bx, by in ([(32, 8), (128, 2)] if os.environ.get("DIRECT") else []):
        run("direct", ((n + bx - 1) // bx, (n + by - 1) // by, n), (bx, by, 1))
    for name, cz in [(f"vs{c}", c) for c in map(int, os.environ.get("CZ", "1,8,32").split(","))]:
        for bx, by in ([(32, 8), (32, 4), (64, 2)] if cz == 1 else [(32, 8), (32, 4)]):
            run(name, ((n + bx * V - 1) // (bx * V), (n + by - 1) // by, (n + cz - 1) // cz), (bx, by, 1))
    continue
    k = mod.get_function("vcopy")
    nn = N * slice_ - V
    f = lambda: k(((nn // V + 255) // 256,), (256,), (buf_u, buf_v, np.int64(nn)))
    t = timeit(f)
    print(f"{prec} vcopy kernel: {2*nn*es/t*1e-9:.0f} GB/s = {100*2*nn*es/t/copy_bw:.1f}% of memcpy", flush=True)
    del buf_u, buf_v, u, v, uu, ref, sref
    cp.get_default_memory_pool().free_all_blocks()
