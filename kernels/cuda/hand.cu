// Hand-tuned CUDA references for the Mint kernel suite (the "Hand-CUDA" column of the
// benchmark), written for Hopper (sm_90). The harness compiles this file with NVRTC
// through mint-runtime after `typedef float real;` or `typedef double real;`, and
// launches the kernels on Mint's device arrays: element [z][y][x] at
// p[x + y*pitch + z*slice], rows padded to 128 bytes, the first interior element
// (x = R for a stencil of radius R) of every row 128-byte aligned.
//
// Three strategies per stencil; the harness times each and keeps the fastest correct one:
//   *_direct : one point per thread, read-only loads (L1/L2 capture the reuse);
//   *_vec    : V consecutive x points per thread with 16-byte loads and stores
//              (V = 4 for float, 2 for double); the row's ends fall back to scalars;
//   *_stream : 2.5-D blocking: the xy tile plus halo in shared memory, the z column in
//              a register queue, streaming along z with the next plane prefetched.

#define IDX(x, y, z) ((x) + (y) * pitch + (z) * slice)

constexpr int V = 16 / sizeof(real);

__device__ __forceinline__ void vload(const real* __restrict__ p, real* r) {
    if constexpr (sizeof(real) == 4) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(p));
        r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
    } else {
        const double2 v = __ldg(reinterpret_cast<const double2*>(p));
        r[0] = v.x; r[1] = v.y;
    }
}

__device__ __forceinline__ void vstore(real* __restrict__ p, const real* r) {
    if constexpr (sizeof(real) == 4) {
        *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
    } else {
        *reinterpret_cast<double2*>(p) = make_double2(r[0], r[1]);
    }
}

// ------------------------------------------------------------------ star stencils
// KIND 0: heat      v = c0*u + c1*S            (S = sum of the 2*3*R neighbours)
// KIND 1: poisson   v = c0*b + c1*S
// KIND 2: farstad   v = c0*S - u               (c0 = 1 / (6 R))
template <int KIND>
__device__ __forceinline__ real finish(real u, real b, real s, real c0, real c1) {
    if constexpr (KIND == 0) return c0 * u + c1 * s;
    else if constexpr (KIND == 1) return c0 * b + c1 * s;
    else return c0 * s - u;
}

template <int R, int KIND>
__device__ __forceinline__ void star_direct(const real* __restrict__ u, real* __restrict__ v, const real* __restrict__ b,
                                            int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x = R + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = R + blockIdx.y * blockDim.y + threadIdx.y;
    const int z = R + blockIdx.z;
    if (x >= nx - R || y >= ny - R || z >= nz - R) return;
    const int i = IDX(x, y, z);
    real s = 0;
#pragma unroll
    for (int d = 1; d <= R; ++d)
        s += __ldg(&u[i - d]) + __ldg(&u[i + d]) + __ldg(&u[i - d * pitch]) + __ldg(&u[i + d * pitch])
           + __ldg(&u[i - d * slice]) + __ldg(&u[i + d * slice]);
    v[i] = finish<KIND>(__ldg(&u[i]), KIND == 1 ? __ldg(&b[i]) : real(0), s, c0, c1);
}

template <int R, int KIND>
__device__ __forceinline__ void star_vec(const real* __restrict__ u, real* __restrict__ v, const real* __restrict__ b,
                                         int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x0 = R + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int y = R + blockIdx.y * blockDim.y + threadIdx.y;
    const int z = R + blockIdx.z;
    if (x0 >= nx - R || y >= ny - R || z >= nz - R) return;
    const int i = IDX(x0, y, z);
    if (x0 + V <= nx - R) {
        real c[V + 2 * R];
        vload(&u[i], &c[R]);
#pragma unroll
        for (int k = 0; k < R; ++k) {
            c[k] = __ldg(&u[i - R + k]);
            c[R + V + k] = __ldg(&u[i + V + k]);
        }
        real s[V];
#pragma unroll
        for (int w = 0; w < V; ++w) s[w] = 0;
#pragma unroll
        for (int d = 1; d <= R; ++d) {
            real ym[V], yp[V], zm[V], zp[V];
            vload(&u[i - d * pitch], ym);
            vload(&u[i + d * pitch], yp);
            vload(&u[i - d * slice], zm);
            vload(&u[i + d * slice], zp);
#pragma unroll
            for (int w = 0; w < V; ++w) s[w] += c[R + w - d] + c[R + w + d] + ym[w] + yp[w] + zm[w] + zp[w];
        }
        real bb[V];
        if constexpr (KIND == 1) vload(&b[i], bb);
        real out[V];
#pragma unroll
        for (int w = 0; w < V; ++w) out[w] = finish<KIND>(c[R + w], KIND == 1 ? bb[w] : real(0), s[w], c0, c1);
        vstore(&v[i], out);
    } else {
        for (int x = x0; x < nx - R; ++x) {
            const int j = IDX(x, y, z);
            real s = 0;
            for (int d = 1; d <= R; ++d)
                s += __ldg(&u[j - d]) + __ldg(&u[j + d]) + __ldg(&u[j - d * pitch]) + __ldg(&u[j + d * pitch])
                   + __ldg(&u[j - d * slice]) + __ldg(&u[j + d * slice]);
            v[j] = finish<KIND>(__ldg(&u[j]), KIND == 1 ? __ldg(&b[j]) : real(0), s, c0, c1);
        }
    }
}

// 2.5-D blocking: a BX x BY block streams CZ planes; the xy tile with a halo of R lives in
// shared memory (two buffers, one barrier per plane), the z column in a register queue
// of 2R+1, and the next plane is fetched into registers one step ahead.
template <int R, int KIND, int BX, int BY, int CZ>
__device__ __forceinline__ void star_stream(const real* __restrict__ u, real* __restrict__ v, const real* __restrict__ b,
                                            int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    constexpr int SX = BX + 2 * R, SY = BY + 2 * R, NT = BX * BY, K = (SX * SY + NT - 1) / NT;
    __shared__ real tile[2][SY][SX];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + BX * ty;
    const int xt = R + blockIdx.x * BX, yt = R + blockIdx.y * BY;
    const int x = xt + tx, y = yt + ty;
    const int z0 = R + blockIdx.z * CZ, z1 = min(z0 + CZ, nz - R);
    const bool in = x < nx - R && y < ny - R;
    const bool col = x < nx && y < ny;
    real q[2 * R + 2];
#pragma unroll
    for (int d = 0; d < 2 * R + 1; ++d) {
        const int zz = z0 - R + d;
        q[d] = (col && zz < nz) ? __ldg(&u[IDX(x, y, zz)]) : real(0);
    }
    real pf[K];
    // fetch the tile of plane zz into registers
    auto fetch = [&](int zz) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int e = tid + k * NT;
            const int lx = e % SX, ly = e / SX;
            const int gx = xt - R + lx, gy = yt - R + ly;
            pf[k] = (e < SX * SY && gx < nx && gy < ny && zz < nz) ? __ldg(&u[IDX(gx, gy, zz)]) : real(0);
        }
    };
    fetch(z0);
    int buf = 0;
    for (int z = z0; z < z1; ++z) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int e = tid + k * NT;
            if (e < SX * SY) tile[buf][e / SX][e % SX] = pf[k];
        }
        q[2 * R + 1] = (col && z + R + 1 < nz) ? __ldg(&u[IDX(x, y, z + R + 1)]) : real(0);
        fetch(z + 1);
        __syncthreads();
        if (in) {
            real s = 0;
#pragma unroll
            for (int d = 1; d <= R; ++d)
                s += tile[buf][ty + R][tx + R - d] + tile[buf][ty + R][tx + R + d] + tile[buf][ty + R - d][tx + R]
                   + tile[buf][ty + R + d][tx + R] + q[R - d] + q[R + d];
            const int i = IDX(x, y, z);
            v[i] = finish<KIND>(q[R], KIND == 1 ? __ldg(&b[i]) : real(0), s, c0, c1);
        }
#pragma unroll
        for (int d = 0; d < 2 * R + 1; ++d) q[d] = q[d + 1];
        buf ^= 1;
    }
}

#define STAR_ENTRIES(NAME, R, KIND)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) NAME##_direct(const real* __restrict__ u, real* __restrict__ v, \
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {            \
        star_direct<R, KIND>(u, v, b, pitch, slice, nx, ny, nz, c0, c1);                                         \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) NAME##_vec(const real* __restrict__ u, real* __restrict__ v,    \
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {            \
        star_vec<R, KIND>(u, v, b, pitch, slice, nx, ny, nz, c0, c1);                                            \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) NAME##_stream(const real* __restrict__ u, real* __restrict__ v, \
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {            \
        star_stream<R, KIND, 32, 8, 32>(u, v, b, pitch, slice, nx, ny, nz, c0, c1);                              \
    }

STAR_ENTRIES(heat7, 1, 0)
STAR_ENTRIES(poisson7, 1, 1)
STAR_ENTRIES(star_r4, 4, 2)

// ------------------------------------------------------------------ 2-D heat, 5 points
extern "C" __global__ void __launch_bounds__(256) heat5_direct(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx - 1 || y >= ny - 1) return;
    const int i = x + y * pitch;
    v[i] = c0 * __ldg(&u[i]) + c1 * (__ldg(&u[i - 1]) + __ldg(&u[i + 1]) + __ldg(&u[i - pitch]) + __ldg(&u[i + pitch]));
}

extern "C" __global__ void __launch_bounds__(256) heat5_vec(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x0 = 1 + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x0 >= nx - 1 || y >= ny - 1) return;
    const int i = x0 + y * pitch;
    if (x0 + V <= nx - 1) {
        real c[V + 2], n[V], s[V], out[V];
        vload(&u[i], &c[1]);
        c[0] = __ldg(&u[i - 1]);
        c[V + 1] = __ldg(&u[i + V]);
        vload(&u[i - pitch], n);
        vload(&u[i + pitch], s);
#pragma unroll
        for (int w = 0; w < V; ++w) out[w] = c0 * c[1 + w] + c1 * (c[w] + c[w + 2] + n[w] + s[w]);
        vstore(&v[i], out);
    } else {
        for (int x = x0; x < nx - 1; ++x) {
            const int j = x + y * pitch;
            v[j] = c0 * __ldg(&u[j]) + c1 * (__ldg(&u[j - 1]) + __ldg(&u[j + 1]) + __ldg(&u[j - pitch]) + __ldg(&u[j + pitch]));
        }
    }
}

// ------------------------------------------------------------------ variable coefficient
// v = u + b + c0 * sum over the 6 faces of (K + K_nb) * (u_nb - u), signs as in Table 6.3.
__device__ __forceinline__ real var_point(const real* __restrict__ u, const real* __restrict__ b,
                                          const real* __restrict__ kk, int i, int pitch, int slice, real c) {
    const real uc = __ldg(&u[i]), kc = __ldg(&kk[i]);
    return uc + __ldg(&b[i])
        + c * ((kc + __ldg(&kk[i + 1])) * (__ldg(&u[i + 1]) - uc) - (kc + __ldg(&kk[i - 1])) * (uc - __ldg(&u[i - 1]))
             + (kc + __ldg(&kk[i + pitch])) * (__ldg(&u[i + pitch]) - uc) - (kc + __ldg(&kk[i - pitch])) * (uc - __ldg(&u[i - pitch]))
             + (kc + __ldg(&kk[i + slice])) * (__ldg(&u[i + slice]) - uc) - (kc + __ldg(&kk[i - slice])) * (uc - __ldg(&u[i - slice])));
}

extern "C" __global__ void __launch_bounds__(256) var7_direct(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, const real* __restrict__ kk, int pitch, int slice, int nx, int ny, int nz, real c, real unused) {
    const int x = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const int z = 1 + blockIdx.z;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    const int i = IDX(x, y, z);
    v[i] = var_point(u, b, kk, i, pitch, slice, c);
}

extern "C" __global__ void __launch_bounds__(256) var7_vec(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, const real* __restrict__ kk, int pitch, int slice, int nx, int ny, int nz, real c, real unused) {
    const int x0 = 1 + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const int z = 1 + blockIdx.z;
    if (x0 >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    const int i = IDX(x0, y, z);
    if (x0 + V <= nx - 1) {
        real uc[V + 2], kc[V + 2], un[V], us[V], ud[V], uu[V], kn[V], ks[V], kd[V], ku[V], bb[V], out[V];
        vload(&u[i], &uc[1]);
        uc[0] = __ldg(&u[i - 1]);
        uc[V + 1] = __ldg(&u[i + V]);
        vload(&kk[i], &kc[1]);
        kc[0] = __ldg(&kk[i - 1]);
        kc[V + 1] = __ldg(&kk[i + V]);
        vload(&u[i - pitch], un);
        vload(&u[i + pitch], us);
        vload(&u[i - slice], ud);
        vload(&u[i + slice], uu);
        vload(&kk[i - pitch], kn);
        vload(&kk[i + pitch], ks);
        vload(&kk[i - slice], kd);
        vload(&kk[i + slice], ku);
        vload(&b[i], bb);
#pragma unroll
        for (int w = 0; w < V; ++w) {
            const real cu = uc[w + 1], ck = kc[w + 1];
            out[w] = cu + bb[w]
                + c * ((ck + kc[w + 2]) * (uc[w + 2] - cu) - (ck + kc[w]) * (cu - uc[w])
                     + (ck + ks[w]) * (us[w] - cu) - (ck + kn[w]) * (cu - un[w])
                     + (ck + ku[w]) * (uu[w] - cu) - (ck + kd[w]) * (cu - ud[w]));
        }
        vstore(&v[i], out);
    } else {
        for (int x = x0; x < nx - 1; ++x) v[IDX(x, y, z)] = var_point(u, b, kk, IDX(x, y, z), pitch, slice, c);
    }
}

// ------------------------------------------------------------------ Poisson, 19 points
// v = c0 * (b + c1 * (6 faces) + (12 edges))
__device__ __forceinline__ real p19_point(const real* __restrict__ u, const real* __restrict__ b, int i, int pitch, int slice, real c0, real c1) {
    const real faces = __ldg(&u[i - 1]) + __ldg(&u[i + 1]) + __ldg(&u[i - pitch]) + __ldg(&u[i + pitch]) + __ldg(&u[i - slice]) + __ldg(&u[i + slice]);
    const real edges = __ldg(&u[i - pitch - 1]) + __ldg(&u[i - pitch + 1]) + __ldg(&u[i + pitch - 1]) + __ldg(&u[i + pitch + 1])
        + __ldg(&u[i - slice - 1]) + __ldg(&u[i - slice + 1]) + __ldg(&u[i + slice - 1]) + __ldg(&u[i + slice + 1])
        + __ldg(&u[i - slice - pitch]) + __ldg(&u[i - slice + pitch]) + __ldg(&u[i + slice - pitch]) + __ldg(&u[i + slice + pitch]);
    return c0 * (__ldg(&b[i]) + c1 * faces + edges);
}

extern "C" __global__ void __launch_bounds__(256) p19_direct(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    const int x = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const int z = 1 + blockIdx.z;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    const int i = IDX(x, y, z);
    v[i] = p19_point(u, b, i, pitch, slice, c0, c1);
}

// 2.5-D: three planes of the tile in shared memory (with their halo, corners included),
// rotated by index; the next plane prefetched into registers.
extern "C" __global__ void __launch_bounds__(256) p19_stream(const real* __restrict__ u, real* __restrict__ v,
        const real* __restrict__ b, int pitch, int slice, int nx, int ny, int nz, real c0, real c1) {
    constexpr int BX = 32, BY = 8, CZ = 32, SX = BX + 2, SY = BY + 2, NT = BX * BY, K = (SX * SY + NT - 1) / NT;
    __shared__ real tile[4][SY][SX];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + BX * ty;
    const int xt = 1 + blockIdx.x * BX, yt = 1 + blockIdx.y * BY;
    const int x = xt + tx, y = yt + ty;
    const int z0 = 1 + blockIdx.z * CZ, z1 = min(z0 + CZ, nz - 1);
    const bool in = x < nx - 1 && y < ny - 1;
    real pf[K];
    auto fetch = [&](int zz) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int e = tid + k * NT;
            const int gx = xt - 1 + e % SX, gy = yt - 1 + e / SX;
            pf[k] = (e < SX * SY && gx < nx && gy < ny && zz < nz) ? __ldg(&u[IDX(gx, gy, zz)]) : real(0);
        }
    };
    auto store = [&](int slot) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int e = tid + k * NT;
            if (e < SX * SY) tile[slot][e / SX][e % SX] = pf[k];
        }
    };
    int lo = 0, mid = 1, hi = 2, spare = 3;
    fetch(z0 - 1);
    store(lo);
    fetch(z0);
    store(mid);
    fetch(z0 + 1);
    for (int z = z0; z < z1; ++z) {
        store(hi);
        fetch(z + 2);
        __syncthreads();
        if (in) {
            const int lx = tx + 1, ly = ty + 1;
            const real faces = tile[mid][ly][lx - 1] + tile[mid][ly][lx + 1] + tile[mid][ly - 1][lx] + tile[mid][ly + 1][lx]
                + tile[lo][ly][lx] + tile[hi][ly][lx];
            const real edges = tile[mid][ly - 1][lx - 1] + tile[mid][ly - 1][lx + 1] + tile[mid][ly + 1][lx - 1] + tile[mid][ly + 1][lx + 1]
                + tile[lo][ly][lx - 1] + tile[lo][ly][lx + 1] + tile[hi][ly][lx - 1] + tile[hi][ly][lx + 1]
                + tile[lo][ly - 1][lx] + tile[lo][ly + 1][lx] + tile[hi][ly - 1][lx] + tile[hi][ly + 1][lx];
            const int i = IDX(x, y, z);
            v[i] = c0 * (__ldg(&b[i]) + c1 * faces + edges);
        }
        const int t = lo;
        lo = mid; mid = hi; hi = spare; spare = t;
    }
}
