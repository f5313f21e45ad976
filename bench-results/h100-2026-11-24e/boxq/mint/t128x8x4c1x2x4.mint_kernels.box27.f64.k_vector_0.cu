// Mint for Rust: kernel `k_vector_0` of fn `k_vector` at kernels/src/box27.rs:23:18
// nest(3) tile(128, 8, 4) chunksize(2, 2, 4): 64x4x1 threads per block
// optimizations: vectorize (2 x points per thread, 16-byte loads) + sliding window along z (register queue) + unroll
// vector width 2; 12 16-byte loads per thread and step
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
extern "C" __global__ void __launch_bounds__(256, 4) mint_k_vector_0(
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
    const double c0,
    const double c1,
    const double c2,
    const double c3,
    const idx_t mint_lo_z,
    const idx_t mint_hi_z,
    const idx_t mint_lo_y,
    const idx_t mint_hi_y,
    const idx_t mint_lo_x,
    const idx_t mint_hi_x
)
{
    // vectorize: 2 consecutive x points per thread, 16-byte loads and stores
    const idx_t mint_x0 = mint_lo_x + (idx_t)blockIdx.x * 128 + (idx_t)threadIdx.x * 2;
    const idx_t mint_y0 = mint_lo_y + (idx_t)blockIdx.y * 8 + (idx_t)threadIdx.y * 2;
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * 4 + (idx_t)threadIdx.z * 4;
    // 16-byte accesses when every vectorized array's rows are 16-byte aligned at x = lo
    const bool mint_vec = mint_valigned(u + mint_lo_x, (size_t)mint_pitch_u * sizeof(double), (size_t)mint_slice_u * sizeof(double)) && mint_valigned(unew + mint_lo_x, (size_t)mint_pitch_unew * sizeof(double), (size_t)mint_slice_unew * sizeof(double));
    if (mint_x0 < mint_hi_x) {
        if (mint_y0 < mint_hi_y) {
            const idx_t mint_z_end = min(mint_z0 + 4, mint_hi_z);
            if (mint_vec && mint_x0 - 2 >= -32 && mint_x0 + 4 <= mint_nx_u + 32 && mint_y0 - 1 >= 0 && mint_y0 + 2 < mint_ny_u && mint_z0 - 1 >= 0 && mint_z_end < mint_nz_u && mint_x0 + 2 <= mint_nx_unew + 32 && mint_y0 + 2 <= mint_hi_y) {
                // every access of this thread's chunk is a whole aligned vector within the allocation
                // sliding window along z: center vectors of the dy = 0 rows in a register queue,
                // the next step's leading plane prefetched one step ahead
                // (and so are the other vectors read at several planes, in queues of their own)
                double mint_q_u_ym1_hm1_zm1[2], mint_q_u_ym1_hm1_z0[2], mint_q_u_ym1_hm1_zp1[2], mint_q_u_ym1_hm1_zp2[2];
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 - 2, mint_q_u_ym1_hm1_zm1);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 - 2, mint_q_u_ym1_hm1_z0);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 - 2, mint_q_u_ym1_hm1_zp1);
                double mint_q_u_ym1_h0_zm1[2], mint_q_u_ym1_h0_z0[2], mint_q_u_ym1_h0_zp1[2], mint_q_u_ym1_h0_zp2[2];
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0, mint_q_u_ym1_h0_zm1);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0, mint_q_u_ym1_h0_z0);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0, mint_q_u_ym1_h0_zp1);
                double mint_q_u_ym1_hp1_zm1[2], mint_q_u_ym1_hp1_z0[2], mint_q_u_ym1_hp1_zp1[2], mint_q_u_ym1_hp1_zp2[2];
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 + 2, mint_q_u_ym1_hp1_zm1);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 + 2, mint_q_u_ym1_hp1_z0);
                mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 + 2, mint_q_u_ym1_hp1_zp1);
                double mint_q_u_y0_hm1_zm1[2], mint_q_u_y0_hm1_z0[2], mint_q_u_y0_hm1_zp1[2], mint_q_u_y0_hm1_zp2[2];
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 - 2, mint_q_u_y0_hm1_zm1);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 - 2, mint_q_u_y0_hm1_z0);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 - 2, mint_q_u_y0_hm1_zp1);
                double mint_u_zm1[2], mint_u_z0[2], mint_u_zp1[2], mint_u_zp2[2];
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0, mint_u_zm1);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0, mint_u_z0);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0, mint_u_zp1);
                double mint_q_u_y0_hp1_zm1[2], mint_q_u_y0_hp1_z0[2], mint_q_u_y0_hp1_zp1[2], mint_q_u_y0_hp1_zp2[2];
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 + 2, mint_q_u_y0_hp1_zm1);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 + 2, mint_q_u_y0_hp1_z0);
                mint_vload(u, (mint_y0) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 + 2, mint_q_u_y0_hp1_zp1);
                double mint_q_u_yp1_hm1_zm1[2], mint_q_u_yp1_hm1_z0[2], mint_q_u_yp1_hm1_zp1[2], mint_q_u_yp1_hm1_zp2[2];
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 - 2, mint_q_u_yp1_hm1_zm1);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 - 2, mint_q_u_yp1_hm1_z0);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 - 2, mint_q_u_yp1_hm1_zp1);
                double mint_q_u_yp1_h0_zm1[2], mint_q_u_yp1_h0_z0[2], mint_q_u_yp1_h0_zp1[2], mint_q_u_yp1_h0_zp2[2];
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0, mint_q_u_yp1_h0_zm1);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0, mint_q_u_yp1_h0_z0);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0, mint_q_u_yp1_h0_zp1);
                double mint_q_u_yp1_hp1_zm1[2], mint_q_u_yp1_hp1_z0[2], mint_q_u_yp1_hp1_zp1[2], mint_q_u_yp1_hp1_zp2[2];
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 + 2, mint_q_u_yp1_hp1_zm1);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 + 2, mint_q_u_yp1_hp1_z0);
                mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 + 2, mint_q_u_yp1_hp1_zp1);
                double mint_q_u_yp2_hm1_zm1[2], mint_q_u_yp2_hm1_z0[2], mint_q_u_yp2_hm1_zp1[2], mint_q_u_yp2_hm1_zp2[2];
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 - 2, mint_q_u_yp2_hm1_zm1);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 - 2, mint_q_u_yp2_hm1_z0);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 - 2, mint_q_u_yp2_hm1_zp1);
                double mint_q_u_yp2_h0_zm1[2], mint_q_u_yp2_h0_z0[2], mint_q_u_yp2_h0_zp1[2], mint_q_u_yp2_h0_zp2[2];
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0, mint_q_u_yp2_h0_zm1);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0, mint_q_u_yp2_h0_z0);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0, mint_q_u_yp2_h0_zp1);
                double mint_q_u_yp2_hp1_zm1[2], mint_q_u_yp2_hp1_z0[2], mint_q_u_yp2_hp1_zp1[2], mint_q_u_yp2_hp1_zp2[2];
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u + mint_x0 + 2, mint_q_u_yp2_hp1_zm1);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0) * mint_slice_u + mint_x0 + 2, mint_q_u_yp2_hp1_z0);
                mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u + mint_x0 + 2, mint_q_u_yp2_hp1_zp1);
                #pragma unroll
                for (idx_t mint_s = 0; mint_s < 4; ++mint_s) {
                    const idx_t z = mint_z0 + mint_s;
                    if (z >= mint_z_end) break;
                    double mint_w_unew[2];
                    double mint_w1_unew[2];
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 - 2, mint_q_u_ym1_hm1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0, mint_q_u_ym1_h0_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 - 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 + 2, mint_q_u_ym1_hp1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 - 2, mint_q_u_y0_hm1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0, mint_u_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 + 2, mint_q_u_y0_hp1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 - 2, mint_q_u_yp1_hm1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0, mint_q_u_yp1_h0_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 1) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 + 2, mint_q_u_yp1_hp1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 - 2, mint_q_u_yp2_hm1_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0, mint_q_u_yp2_h0_zp2);
                    if (z + 1 < mint_z_end) mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (z + 2) * mint_slice_u + mint_x0 + 2, mint_q_u_yp2_hp1_zp2);
                    {
                        const idx_t y = mint_y0;
                        {
                            const idx_t x = mint_x0;
                            double faces = mint_q_u_y0_hm1_z0[1] + mint_u_z0[1] + mint_q_u_ym1_h0_z0[0] + mint_q_u_yp1_h0_z0[0] + mint_u_zm1[0] + mint_u_zp1[0];
                            double edges = mint_q_u_ym1_hm1_z0[1] + mint_q_u_ym1_h0_z0[1] + mint_q_u_yp1_hm1_z0[1] + mint_q_u_yp1_h0_z0[1] + mint_q_u_y0_hm1_zm1[1] + mint_u_zm1[1] + mint_q_u_y0_hm1_zp1[1] + mint_u_zp1[1] + mint_q_u_ym1_h0_zm1[0] + mint_q_u_yp1_h0_zm1[0] + mint_q_u_ym1_h0_zp1[0] + mint_q_u_yp1_h0_zp1[0];
                            double corners = mint_q_u_ym1_hm1_zm1[1] + mint_q_u_ym1_h0_zm1[1] + mint_q_u_yp1_hm1_zm1[1] + mint_q_u_yp1_h0_zm1[1] + mint_q_u_ym1_hm1_zp1[1] + mint_q_u_ym1_h0_zp1[1] + mint_q_u_yp1_hm1_zp1[1] + mint_q_u_yp1_h0_zp1[1];
                            mint_w_unew[0] = __fma_rn(c1, faces, c0 * mint_u_z0[0]) + c2 * edges + c3 * corners;
                        }
                        {
                            const idx_t x = mint_x0 + 1;
                            double faces_1 = mint_u_z0[0] + mint_q_u_y0_hp1_z0[0] + mint_q_u_ym1_h0_z0[1] + mint_q_u_yp1_h0_z0[1] + mint_u_zm1[1] + mint_u_zp1[1];
                            double edges_1 = mint_q_u_ym1_h0_z0[0] + mint_q_u_ym1_hp1_z0[0] + mint_q_u_yp1_h0_z0[0] + mint_q_u_yp1_hp1_z0[0] + mint_u_zm1[0] + mint_q_u_y0_hp1_zm1[0] + mint_u_zp1[0] + mint_q_u_y0_hp1_zp1[0] + mint_q_u_ym1_h0_zm1[1] + mint_q_u_yp1_h0_zm1[1] + mint_q_u_ym1_h0_zp1[1] + mint_q_u_yp1_h0_zp1[1];
                            double corners_1 = mint_q_u_ym1_h0_zm1[0] + mint_q_u_ym1_hp1_zm1[0] + mint_q_u_yp1_h0_zm1[0] + mint_q_u_yp1_hp1_zm1[0] + mint_q_u_ym1_h0_zp1[0] + mint_q_u_ym1_hp1_zp1[0] + mint_q_u_yp1_h0_zp1[0] + mint_q_u_yp1_hp1_zp1[0];
                            mint_w_unew[1] = __fma_rn(c1, faces_1, c0 * mint_u_z0[1]) + c2 * edges_1 + c3 * corners_1;
                        }
                    }
                    {
                        const idx_t y = mint_y0 + 1;
                        {
                            const idx_t x = mint_x0;
                            double faces_2 = mint_q_u_yp1_hm1_z0[1] + mint_q_u_yp1_h0_z0[1] + mint_u_z0[0] + mint_q_u_yp2_h0_z0[0] + mint_q_u_yp1_h0_zm1[0] + mint_q_u_yp1_h0_zp1[0];
                            double edges_2 = mint_q_u_y0_hm1_z0[1] + mint_u_z0[1] + mint_q_u_yp2_hm1_z0[1] + mint_q_u_yp2_h0_z0[1] + mint_q_u_yp1_hm1_zm1[1] + mint_q_u_yp1_h0_zm1[1] + mint_q_u_yp1_hm1_zp1[1] + mint_q_u_yp1_h0_zp1[1] + mint_u_zm1[0] + mint_q_u_yp2_h0_zm1[0] + mint_u_zp1[0] + mint_q_u_yp2_h0_zp1[0];
                            double corners_2 = mint_q_u_y0_hm1_zm1[1] + mint_u_zm1[1] + mint_q_u_yp2_hm1_zm1[1] + mint_q_u_yp2_h0_zm1[1] + mint_q_u_y0_hm1_zp1[1] + mint_u_zp1[1] + mint_q_u_yp2_hm1_zp1[1] + mint_q_u_yp2_h0_zp1[1];
                            mint_w1_unew[0] = __fma_rn(c1, faces_2, c0 * mint_q_u_yp1_h0_z0[0]) + c2 * edges_2 + c3 * corners_2;
                        }
                        {
                            const idx_t x = mint_x0 + 1;
                            double faces_3 = mint_q_u_yp1_h0_z0[0] + mint_q_u_yp1_hp1_z0[0] + mint_u_z0[1] + mint_q_u_yp2_h0_z0[1] + mint_q_u_yp1_h0_zm1[1] + mint_q_u_yp1_h0_zp1[1];
                            double edges_3 = mint_u_z0[0] + mint_q_u_y0_hp1_z0[0] + mint_q_u_yp2_h0_z0[0] + mint_q_u_yp2_hp1_z0[0] + mint_q_u_yp1_h0_zm1[0] + mint_q_u_yp1_hp1_zm1[0] + mint_q_u_yp1_h0_zp1[0] + mint_q_u_yp1_hp1_zp1[0] + mint_u_zm1[1] + mint_q_u_yp2_h0_zm1[1] + mint_u_zp1[1] + mint_q_u_yp2_h0_zp1[1];
                            double corners_3 = mint_u_zm1[0] + mint_q_u_y0_hp1_zm1[0] + mint_q_u_yp2_h0_zm1[0] + mint_q_u_yp2_hp1_zm1[0] + mint_u_zp1[0] + mint_q_u_y0_hp1_zp1[0] + mint_q_u_yp2_h0_zp1[0] + mint_q_u_yp2_hp1_zp1[0];
                            mint_w1_unew[1] = __fma_rn(c1, faces_3, c0 * mint_q_u_yp1_h0_z0[1]) + c2 * edges_3 + c3 * corners_3;
                        }
                    }
                    if (mint_x0 + 2 <= mint_hi_x) mint_vstore(unew, (mint_y0) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_w_unew);
                    else mint_vstore_part(unew, (mint_y0) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_hi_x - mint_x0, mint_w_unew);
                    if (mint_x0 + 2 <= mint_hi_x) mint_vstore(unew, (mint_y0 + 1) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_w1_unew);
                    else mint_vstore_part(unew, (mint_y0 + 1) * mint_pitch_unew + (z) * mint_slice_unew + mint_x0, mint_hi_x - mint_x0, mint_w1_unew);
                    mint_vmove(mint_q_u_ym1_hm1_zm1, mint_q_u_ym1_hm1_z0);
                    mint_vmove(mint_q_u_ym1_hm1_z0, mint_q_u_ym1_hm1_zp1);
                    mint_vmove(mint_q_u_ym1_hm1_zp1, mint_q_u_ym1_hm1_zp2);
                    mint_vmove(mint_q_u_ym1_h0_zm1, mint_q_u_ym1_h0_z0);
                    mint_vmove(mint_q_u_ym1_h0_z0, mint_q_u_ym1_h0_zp1);
                    mint_vmove(mint_q_u_ym1_h0_zp1, mint_q_u_ym1_h0_zp2);
                    mint_vmove(mint_q_u_ym1_hp1_zm1, mint_q_u_ym1_hp1_z0);
                    mint_vmove(mint_q_u_ym1_hp1_z0, mint_q_u_ym1_hp1_zp1);
                    mint_vmove(mint_q_u_ym1_hp1_zp1, mint_q_u_ym1_hp1_zp2);
                    mint_vmove(mint_q_u_y0_hm1_zm1, mint_q_u_y0_hm1_z0);
                    mint_vmove(mint_q_u_y0_hm1_z0, mint_q_u_y0_hm1_zp1);
                    mint_vmove(mint_q_u_y0_hm1_zp1, mint_q_u_y0_hm1_zp2);
                    mint_vmove(mint_u_zm1, mint_u_z0);
                    mint_vmove(mint_u_z0, mint_u_zp1);
                    mint_vmove(mint_u_zp1, mint_u_zp2);
                    mint_vmove(mint_q_u_y0_hp1_zm1, mint_q_u_y0_hp1_z0);
                    mint_vmove(mint_q_u_y0_hp1_z0, mint_q_u_y0_hp1_zp1);
                    mint_vmove(mint_q_u_y0_hp1_zp1, mint_q_u_y0_hp1_zp2);
                    mint_vmove(mint_q_u_yp1_hm1_zm1, mint_q_u_yp1_hm1_z0);
                    mint_vmove(mint_q_u_yp1_hm1_z0, mint_q_u_yp1_hm1_zp1);
                    mint_vmove(mint_q_u_yp1_hm1_zp1, mint_q_u_yp1_hm1_zp2);
                    mint_vmove(mint_q_u_yp1_h0_zm1, mint_q_u_yp1_h0_z0);
                    mint_vmove(mint_q_u_yp1_h0_z0, mint_q_u_yp1_h0_zp1);
                    mint_vmove(mint_q_u_yp1_h0_zp1, mint_q_u_yp1_h0_zp2);
                    mint_vmove(mint_q_u_yp1_hp1_zm1, mint_q_u_yp1_hp1_z0);
                    mint_vmove(mint_q_u_yp1_hp1_z0, mint_q_u_yp1_hp1_zp1);
                    mint_vmove(mint_q_u_yp1_hp1_zp1, mint_q_u_yp1_hp1_zp2);
                    mint_vmove(mint_q_u_yp2_hm1_zm1, mint_q_u_yp2_hm1_z0);
                    mint_vmove(mint_q_u_yp2_hm1_z0, mint_q_u_yp2_hm1_zp1);
                    mint_vmove(mint_q_u_yp2_hm1_zp1, mint_q_u_yp2_hm1_zp2);
                    mint_vmove(mint_q_u_yp2_h0_zm1, mint_q_u_yp2_h0_z0);
                    mint_vmove(mint_q_u_yp2_h0_z0, mint_q_u_yp2_h0_zp1);
                    mint_vmove(mint_q_u_yp2_h0_zp1, mint_q_u_yp2_h0_zp2);
                    mint_vmove(mint_q_u_yp2_hp1_zm1, mint_q_u_yp2_hp1_z0);
                    mint_vmove(mint_q_u_yp2_hp1_z0, mint_q_u_yp2_hp1_zp1);
                    mint_vmove(mint_q_u_yp2_hp1_zp1, mint_q_u_yp2_hp1_zp2);
                }
            } else {
                // edge thread (or rows not 16-byte aligned): the loop body per lane
                for (idx_t y = mint_y0, mint_y_end = min(mint_y0 + 2, mint_hi_y); y < mint_y_end; ++y) {
                    for (idx_t z = mint_z0; z < mint_z_end; ++z) {
                        {
                            const idx_t x = mint_x0;
                            if (x < mint_hi_x) {
                                double faces_4 = __ldg(&u[x - 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 1) * mint_slice_u]);
                                double edges_4 = __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x - 1 + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + y * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]);
                                double corners_4 = __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]);
                                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = __fma_rn(c1, faces_4, c0 * __ldg(&u[x + y * mint_pitch_u + z * mint_slice_u])) + c2 * edges_4 + c3 * corners_4;
                            }
                        }
                        {
                            const idx_t x = mint_x0 + 1;
                            if (x < mint_hi_x) {
                                double faces_5 = __ldg(&u[x - 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + y * mint_pitch_u + (z + 1) * mint_slice_u]);
                                double edges_5 = __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + z * mint_slice_u]) + __ldg(&u[x - 1 + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + y * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + y * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]);
                                double corners_5 = __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + (z - 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y - 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x - 1 + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]) + __ldg(&u[x + 1 + (y + 1) * mint_pitch_u + (z + 1) * mint_slice_u]);
                                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = __fma_rn(c1, faces_5, c0 * __ldg(&u[x + y * mint_pitch_u + z * mint_slice_u])) + c2 * edges_5 + c3 * corners_5;
                            }
                        }
                    }
                }
            }
        }
    }
}
