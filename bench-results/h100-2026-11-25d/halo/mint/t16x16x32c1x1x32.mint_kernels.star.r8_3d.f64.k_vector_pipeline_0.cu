// Mint for Rust: kernel `k_vector_pipeline_0` of fn `k_vector_pipeline` at kernels/src/star.rs:77:18
// nest(3) tile(16, 16, 32) chunksize(2, 1, 32): 8x16x1 threads per block
// optimizations: vectorize (2 x points per thread, 16-byte loads) + sliding window along z (register queue) + pipeline (x/y neighbours from shared-memory rings, cp.async) + unroll
// vector width 2; 25 16-byte loads per thread and step
typedef int idx_t;
// 16-byte vector accesses (vectorize): V = 16 / sizeof(T) consecutive elements of a row
template <typename T> struct mint_vec;
template <> struct mint_vec<double> { typedef double2 type; };
__device__ __forceinline__ bool mint_valigned(const void* p, size_t pitch_bytes, size_t slice_bytes) {
    return (((size_t)p | pitch_bytes | slice_bytes) & 15) == 0;
}
// r = a[i .. i + V) through the read-only path: a whole aligned vector (the caller checked)
template <typename T>
__device__ __forceinline__ void mint_vload(const T* __restrict__ a, idx_t i, T* r) {
    const typename mint_vec<T>::type w = __ldg(reinterpret_cast<const typename mint_vec<T>::type*>(a + i));
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
// r = a[i .. i + V) of an array the kernel writes (a plain load)
template <typename T>
__device__ __forceinline__ void mint_vload_rw(const T* a, idx_t i, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(a + i);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
// a[i .. i + V) = r
template <typename T>
__device__ __forceinline__ void mint_vstore(T* a, idx_t i, const T* r) {
    typename mint_vec<T>::type w;
    T* q = reinterpret_cast<T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) q[k] = r[k];
    *reinterpret_cast<typename mint_vec<T>::type*>(a + i) = w;
}
// a[i .. i + min(n, V)) = r: the last thread of a row, whose lanes past the loop end are
// not stored
template <typename T>
__device__ __forceinline__ void mint_vstore_part(T* a, idx_t i, idx_t n, const T* r) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k)
        if (k < n) a[i + k] = r[k];
}
template <typename T>
__device__ __forceinline__ void mint_vmove(T* d, const T* s) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) d[k] = s[k];
}
// r = s[0 .. V) from shared memory (the ring path): one 16-byte load
template <typename T>
__device__ __forceinline__ void mint_vload_shared(const T* s, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(s);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
template <typename T> static __device__ __forceinline__ void mint_cp_async(T* dst, const T* src, bool inside) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4 or 8 bytes here");
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" :: "r"(s), "l"(src), "n"(sizeof(T)), "r"(inside ? (int)sizeof(T) : 0) : "memory");
}
static __device__ __forceinline__ void mint_cp_async16(void* dst, const void* src, bool inside) {
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(s), "l"(src), "r"(inside ? 16 : 0) : "memory");
}
static __device__ __forceinline__ void mint_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void mint_cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
extern "C" __global__ void __launch_bounds__(128, 8) mint_k_vector_pipeline_0(
    const double* __restrict__ u,
    const idx_t mint_pitch_u,
    const idx_t mint_slice_u,
    const idx_t mint_nx_u,
    const idx_t mint_ny_u,
    const idx_t mint_nz_u,
    double* __restrict__ unew,
    const idx_t mint_pitch_unew,
    const idx_t mint_slice_unew,
    const idx_t mint_nx_unew,
    const idx_t mint_ny_unew,
    const idx_t mint_nz_unew,
    const double coef,
    const idx_t mint_lo_z,
    const idx_t mint_hi_z,
    const idx_t mint_lo_y,
    const idx_t mint_hi_y,
    const idx_t mint_lo_x,
    const idx_t mint_hi_x
)
{
    // vectorize: 2 consecutive x points per thread, 16-byte loads and stores
    const idx_t mint_x0 = mint_lo_x + (idx_t)blockIdx.x * 16 + (idx_t)threadIdx.x * 2;
    const idx_t mint_y0 = mint_lo_y + (idx_t)blockIdx.y * 16 + (idx_t)threadIdx.y * 1;
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * 32 + (idx_t)threadIdx.z * 32;
    // 16-byte accesses when every vectorized array's rows are 16-byte aligned at x = lo
    const bool mint_vec = mint_valigned(u + mint_lo_x, (size_t)mint_pitch_u * sizeof(double), (size_t)mint_slice_u * sizeof(double)) && mint_valigned(unew + mint_lo_x, (size_t)mint_pitch_unew * sizeof(double), (size_t)mint_slice_unew * sizeof(double));
    // pipeline: the steps read their x and y neighbours from shared-memory rings of 4 planes that cp.async fills 3 planes ahead
    __shared__ __align__(16) double mint_ring_u[4][32][32];
    const idx_t mint_x_tile = mint_lo_x + (idx_t)blockIdx.x * 16;
    const idx_t mint_y_tile = mint_lo_y + (idx_t)blockIdx.y * 16;
    const int mint_tid = threadIdx.x + 8 * threadIdx.y;
    const bool mint_active = mint_x0 < mint_hi_x && mint_y0 < mint_hi_y;
    const idx_t y = mint_y0;
    const idx_t mint_z_end = min(mint_z0 + 32, mint_hi_z);
    // the block's planes exist and its rows are 16-byte aligned: the whole block takes the ring path
    if (mint_vec && mint_z0 - 8 >= 0 && mint_z_end + 7 < mint_nz_u) {
        // sliding window along z: center vectors of the dy = 0 rows in a register queue,
        // the next step's leading plane prefetched one step ahead
        double mint_u_zm8[2], mint_u_zm7[2], mint_u_zm6[2], mint_u_zm5[2], mint_u_zm4[2], mint_u_zm3[2], mint_u_zm2[2], mint_u_zm1[2], mint_u_z0[2], mint_u_zp1[2], mint_u_zp2[2], mint_u_zp3[2], mint_u_zp4[2], mint_u_zp5[2], mint_u_zp6[2], mint_u_zp7[2], mint_u_zp8[2], mint_u_zp9[2];
        if (mint_active) {
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 8) * mint_slice_u + mint_x0, mint_u_zm8);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 7) * mint_slice_u + mint_x0, mint_u_zm7);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 6) * mint_slice_u + mint_x0, mint_u_zm6);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 5) * mint_slice_u + mint_x0, mint_u_zm5);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 4) * mint_slice_u + mint_x0, mint_u_zm4);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 3) * mint_slice_u + mint_x0, mint_u_zm3);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 2) * mint_slice_u + mint_x0, mint_u_zm2);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0, mint_u_zm1);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0, mint_u_z0);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0, mint_u_zp1);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 2) * mint_slice_u + mint_x0, mint_u_zp2);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 3) * mint_slice_u + mint_x0, mint_u_zp3);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 4) * mint_slice_u + mint_x0, mint_u_zp4);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 5) * mint_slice_u + mint_x0, mint_u_zp5);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 6) * mint_slice_u + mint_x0, mint_u_zp6);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 7) * mint_slice_u + mint_x0, mint_u_zp7);
            mint_vload(u, (y) * mint_pitch_u + (mint_z0 + 8) * mint_slice_u + mint_x0, mint_u_zp8);
        }
        // the first 3 planes into the rings, one commit group each
        if (mint_z0 + 0 < mint_z_end) {
            // 32 rows x 16 copies of 2 element(s): 4 round(s) of 128 threads
            #pragma unroll
            for (int mint_le = 0; mint_le < 4; ++mint_le) {
                const int mint_lr = (int)((unsigned int)(mint_tid) / 16u) + 8 * mint_le;
                const int mint_lc = (int)((unsigned int)(mint_tid) % 16u) * 2;
                const idx_t mint_gx = mint_x_tile - 8 + mint_lc;
                const idx_t mint_gy = mint_y_tile - 8 + mint_lr;
                const bool mint_in = mint_gy >= 0 && mint_gy < mint_ny_u && mint_gx >= -32 && mint_gx + 2 <= mint_nx_u + 32;
                mint_cp_async16(&mint_ring_u[0][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 0) * mint_slice_u] : u, mint_in);
            }
        }
        mint_cp_async_commit();
        if (mint_z0 + 1 < mint_z_end) {
            // 32 rows x 16 copies of 2 element(s): 4 round(s) of 128 threads
            #pragma unroll
            for (int mint_le = 0; mint_le < 4; ++mint_le) {
                const int mint_lr = (int)((unsigned int)(mint_tid) / 16u) + 8 * mint_le;
                const int mint_lc = (int)((unsigned int)(mint_tid) % 16u) * 2;
                const idx_t mint_gx = mint_x_tile - 8 + mint_lc;
                const idx_t mint_gy = mint_y_tile - 8 + mint_lr;
                const bool mint_in = mint_gy >= 0 && mint_gy < mint_ny_u && mint_gx >= -32 && mint_gx + 2 <= mint_nx_u + 32;
                mint_cp_async16(&mint_ring_u[1][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 1) * mint_slice_u] : u, mint_in);
            }
        }
        mint_cp_async_commit();
        if (mint_z0 + 2 < mint_z_end) {
            // 32 rows x 16 copies of 2 element(s): 4 round(s) of 128 threads
            #pragma unroll
            for (int mint_le = 0; mint_le < 4; ++mint_le) {
                const int mint_lr = (int)((unsigned int)(mint_tid) / 16u) + 8 * mint_le;
                const int mint_lc = (int)((unsigned int)(mint_tid) % 16u) * 2;
                const idx_t mint_gx = mint_x_tile - 8 + mint_lc;
                const idx_t mint_gy = mint_y_tile - 8 + mint_lr;
                const bool mint_in = mint_gy >= 0 && mint_gy < mint_ny_u && mint_gx >= -32 && mint_gx + 2 <= mint_nx_u + 32;
                mint_cp_async16(&mint_ring_u[2][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 2) * mint_slice_u] : u, mint_in);
            }
        }
        mint_cp_async_commit();
        #pragma unroll 4
        for (idx_t mint_s = 0; mint_s < 32; ++mint_s) {
            const idx_t z = mint_z0 + mint_s;
            if (z >= mint_z_end) break;
            if (mint_active && z + 1 < mint_z_end) mint_vload(u, (y) * mint_pitch_u + (z + 9) * mint_slice_u + mint_x0, mint_u_zp9);
            mint_cp_async_wait<2>(); // this step's plane has landed
            __syncthreads(); // and the slot the copy below refills is read by no thread
            if (z + 3 < mint_z_end) {
                // 32 rows x 16 copies of 2 element(s): 4 round(s) of 128 threads
                #pragma unroll
                for (int mint_le = 0; mint_le < 4; ++mint_le) {
                    const int mint_lr = (int)((unsigned int)(mint_tid) / 16u) + 8 * mint_le;
                    const int mint_lc = (int)((unsigned int)(mint_tid) % 16u) * 2;
                    const idx_t mint_gx = mint_x_tile - 8 + mint_lc;
                    const idx_t mint_gy = mint_y_tile - 8 + mint_lr;
                    const bool mint_in = mint_gy >= 0 && mint_gy < mint_ny_u && mint_gx >= -32 && mint_gx + 2 <= mint_nx_u + 32;
                    mint_cp_async16(&mint_ring_u[(int)((mint_s + 3) % 4)][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (z + 3) * mint_slice_u] : u, mint_in);
                }
            }
            mint_cp_async_commit();
            const int mint_slot = (int)(mint_s % 4);
            if (mint_active) {
                double mint_v_u_ym8_z0_h0[2];
                double mint_v_u_ym7_z0_h0[2];
                double mint_v_u_ym6_z0_h0[2];
                double mint_v_u_ym5_z0_h0[2];
                double mint_v_u_ym4_z0_h0[2];
                double mint_v_u_ym3_z0_h0[2];
                double mint_v_u_ym2_z0_h0[2];
                double mint_v_u_ym1_z0_h0[2];
                double mint_v_u_y0_z0_hm4[2];
                double mint_v_u_y0_z0_hm3[2];
                double mint_v_u_y0_z0_hm2[2];
                double mint_v_u_y0_z0_hm1[2];
                double mint_v_u_y0_z0_hp1[2];
                double mint_v_u_y0_z0_hp2[2];
                double mint_v_u_y0_z0_hp3[2];
                double mint_v_u_y0_z0_hp4[2];
                double mint_v_u_yp1_z0_h0[2];
                double mint_v_u_yp2_z0_h0[2];
                double mint_v_u_yp3_z0_h0[2];
                double mint_v_u_yp4_z0_h0[2];
                double mint_v_u_yp5_z0_h0[2];
                double mint_v_u_yp6_z0_h0[2];
                double mint_v_u_yp7_z0_h0[2];
                double mint_v_u_yp8_z0_h0[2];
                double mint_w_unew[2];
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 0][threadIdx.x * 2 + 8], mint_v_u_ym8_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 1][threadIdx.x * 2 + 8], mint_v_u_ym7_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 2][threadIdx.x * 2 + 8], mint_v_u_ym6_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 3][threadIdx.x * 2 + 8], mint_v_u_ym5_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 4][threadIdx.x * 2 + 8], mint_v_u_ym4_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 5][threadIdx.x * 2 + 8], mint_v_u_ym3_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 6][threadIdx.x * 2 + 8], mint_v_u_ym2_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 7][threadIdx.x * 2 + 8], mint_v_u_ym1_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 0], mint_v_u_y0_z0_hm4);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 2], mint_v_u_y0_z0_hm3);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 4], mint_v_u_y0_z0_hm2);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 6], mint_v_u_y0_z0_hm1);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 10], mint_v_u_y0_z0_hp1);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 12], mint_v_u_y0_z0_hp2);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 14], mint_v_u_y0_z0_hp3);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 8][threadIdx.x * 2 + 16], mint_v_u_y0_z0_hp4);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 9][threadIdx.x * 2 + 8], mint_v_u_yp1_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 10][threadIdx.x * 2 + 8], mint_v_u_yp2_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 11][threadIdx.x * 2 + 8], mint_v_u_yp3_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 12][threadIdx.x * 2 + 8], mint_v_u_yp4_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 13][threadIdx.x * 2 + 8], mint_v_u_yp5_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 14][threadIdx.x * 2 + 8], mint_v_u_yp6_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 15][threadIdx.x * 2 + 8], mint_v_u_yp7_z0_h0);
                mint_vload_shared(&mint_ring_u[mint_slot][threadIdx.y + 16][threadIdx.x * 2 + 8], mint_v_u_yp8_z0_h0);
                {
                    const idx_t x = mint_x0;
                    double s = 0.0;
                    {
                        {
                            s += mint_v_u_y0_z0_hm1[1] + mint_u_z0[1] + mint_v_u_ym1_z0_h0[0] + mint_v_u_yp1_z0_h0[0] + mint_u_zm1[0] + mint_u_zp1[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm1[0] + mint_v_u_y0_z0_hp1[0] + mint_v_u_ym2_z0_h0[0] + mint_v_u_yp2_z0_h0[0] + mint_u_zm2[0] + mint_u_zp2[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm2[1] + mint_v_u_y0_z0_hp1[1] + mint_v_u_ym3_z0_h0[0] + mint_v_u_yp3_z0_h0[0] + mint_u_zm3[0] + mint_u_zp3[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm2[0] + mint_v_u_y0_z0_hp2[0] + mint_v_u_ym4_z0_h0[0] + mint_v_u_yp4_z0_h0[0] + mint_u_zm4[0] + mint_u_zp4[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm3[1] + mint_v_u_y0_z0_hp2[1] + mint_v_u_ym5_z0_h0[0] + mint_v_u_yp5_z0_h0[0] + mint_u_zm5[0] + mint_u_zp5[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm3[0] + mint_v_u_y0_z0_hp3[0] + mint_v_u_ym6_z0_h0[0] + mint_v_u_yp6_z0_h0[0] + mint_u_zm6[0] + mint_u_zp6[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm4[1] + mint_v_u_y0_z0_hp3[1] + mint_v_u_ym7_z0_h0[0] + mint_v_u_yp7_z0_h0[0] + mint_u_zm7[0] + mint_u_zp7[0];
                        }
                        {
                            s += mint_v_u_y0_z0_hm4[0] + mint_v_u_y0_z0_hp4[0] + mint_v_u_ym8_z0_h0[0] + mint_v_u_yp8_z0_h0[0] + mint_u_zm8[0] + mint_u_zp8[0];
                        }
                    }
                    mint_w_unew[0] = __fma_rn(coef, s, -(mint_u_z0[0]));
                }
                {
                    const idx_t x = mint_x0 + 1;
                    double s_1 = 0.0;
                    {
                        {
                            s_1 += mint_u_z0[0] + mint_v_u_y0_z0_hp1[0] + mint_v_u_ym1_z0_h0[1] + mint_v_u_yp1_z0_h0[1] + mint_u_zm1[1] + mint_u_zp1[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm1[1] + mint_v_u_y0_z0_hp1[1] + mint_v_u_ym2_z0_h0[1] + mint_v_u_yp2_z0_h0[1] + mint_u_zm2[1] + mint_u_zp2[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm1[0] + mint_v_u_y0_z0_hp2[0] + mint_v_u_ym3_z0_h0[1] + mint_v_u_yp3_z0_h0[1] + mint_u_zm3[1] + mint_u_zp3[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm2[1] + mint_v_u_y0_z0_hp2[1] + mint_v_u_ym4_z0_h0[1] + mint_v_u_yp4_z0_h0[1] + mint_u_zm4[1] + mint_u_zp4[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm2[0] + mint_v_u_y0_z0_hp3[0] + mint_v_u_ym5_z0_h0[1] + mint_v_u_yp5_z0_h0[1] + mint_u_zm5[1] + mint_u_zp5[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm3[1] + mint_v_u_y0_z0_hp3[1] + mint_v_u_ym6_z0_h0[1] + mint_v_u_yp6_z0_h0[1] + mint_u_zm6[1] + mint_u_zp6[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm3[0] + mint_v_u_y0_z0_hp4[0] + mint_v_u_ym7_z0_h0[1] + mint_v_u_yp7_z0_h0[1] + mint_u_zm7[1] + mint_u_zp7[1];
                        }
                        {
                            s_1 += mint_v_u_y0_z0_hm4[1] + mint_v_u_y0_z0_hp4[1] + mint_v_u_ym8_z0_h0[1] + mint_v_u_yp8_z0_h0[1] + mint_u_zm8[1] + mint_u_zp8[1];
                        }
                    }
                    mint_w_unew[1] = __fma_rn(coef, s_1, -(mint_u_z0[1]));
                }
                if (mint_x0 + 2 <= mint_hi_x) mint_vstore(unew, (y) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_w_unew);
                else mint_vstore_part(unew, (y) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_hi_x - mint_x0, mint_w_unew);
            }
            mint_vmove(mint_u_zm8, mint_u_zm7);
            mint_vmove(mint_u_zm7, mint_u_zm6);
            mint_vmove(mint_u_zm6, mint_u_zm5);
            mint_vmove(mint_u_zm5, mint_u_zm4);
            mint_vmove(mint_u_zm4, mint_u_zm3);
            mint_vmove(mint_u_zm3, mint_u_zm2);
            mint_vmove(mint_u_zm2, mint_u_zm1);
            mint_vmove(mint_u_zm1, mint_u_z0);
            mint_vmove(mint_u_z0, mint_u_zp1);
            mint_vmove(mint_u_zp1, mint_u_zp2);
            mint_vmove(mint_u_zp2, mint_u_zp3);
            mint_vmove(mint_u_zp3, mint_u_zp4);
            mint_vmove(mint_u_zp4, mint_u_zp5);
            mint_vmove(mint_u_zp5, mint_u_zp6);
            mint_vmove(mint_u_zp6, mint_u_zp7);
            mint_vmove(mint_u_zp7, mint_u_zp8);
            mint_vmove(mint_u_zp8, mint_u_zp9);
        }
    } else if (mint_active) {
        // edge block (planes outside the arrays, or rows not 16-byte aligned): the loop body per lane
        for (idx_t z = mint_z0; z < mint_z_end; ++z) {
            #pragma unroll 1
            for (int mint_l = 0; mint_l < 2; ++mint_l) {
                const idx_t x = mint_x0 + mint_l;
                if (x < mint_hi_x) {
                    double s_2 = 0.0;
                    {
                        {
                            s_2 += __ldg(&u[x - 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 1) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 2 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 2 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 2) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 2) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 2) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 2) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 3 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 3 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 3) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 3) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 3) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 3) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 4 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 4 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 4) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 4) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 4) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 4) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 5 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 5 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 5) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 5) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 5) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 5) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 6 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 6 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 6) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 6) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 6) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 6) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 7 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 7 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 7) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 7) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 7) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 7) * mint_slice_u]);
                        }
                        {
                            s_2 += __ldg(&u[x - 8 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 8 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 8) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 8) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 8) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 8) * mint_slice_u]);
                        }
                    }
                    unew[x + y * mint_pitch_unew + z * mint_slice_unew] = __fma_rn(coef, s_2, -(__ldg(&u[x + y * mint_pitch_u + z * mint_slice_u])));
                }
            }
        }
    }
}
