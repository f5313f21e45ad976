// Mint for Rust: kernel `k_shared_register_pipeline_0` of fn `k_shared_register_pipeline` at kernels/src/star.rs:77:18
// nest(3) tile(32, 16, 64) chunksize(1, 4, 64): 32x4x1 threads per block
// optimizations: shared + register + sliding window along z + pipeline (cp.async) + unroll
// shared: `u` 1 plane(s), halo -x4 +x4 -y4 +y4
// registers: `u` z -4..=4
typedef int idx_t;
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
extern "C" __global__ void __launch_bounds__(128) mint_k_shared_register_pipeline_0(
    const double* __restrict__ u,
    const idx_t mint_pitch_u,
    const idx_t mint_slice_u,
    const idx_t mint_nx_u,
    const idx_t mint_ny_u,
    const idx_t mint_nz_u,
    double* __restrict__ unew,
    const idx_t mint_pitch_unew,
    const idx_t mint_slice_unew,
    const double coef,
    const idx_t mint_lo_z,
    const idx_t mint_hi_z,
    const idx_t mint_lo_y,
    const idx_t mint_hi_y,
    const idx_t mint_lo_x,
    const idx_t mint_hi_x
)
{
    // tile origin and this thread's points in each plane
    const int mint_tx = threadIdx.x;
    const int mint_ty = threadIdx.y;
    const idx_t mint_x_tile = mint_lo_x + (idx_t)blockIdx.x * 32;
    const idx_t mint_y_tile = mint_lo_y + (idx_t)blockIdx.y * 16;
    const int mint_lx0 = mint_tx;
    const idx_t mint_x0 = mint_x_tile + mint_lx0;
    const int mint_ly0 = mint_ty * 4;
    const idx_t mint_y0 = mint_y_tile + mint_ly0;
    const int mint_ly1 = mint_ty * 4 + 1;
    const idx_t mint_y1 = mint_y_tile + mint_ly1;
    const int mint_ly2 = mint_ty * 4 + 2;
    const idx_t mint_y2 = mint_y_tile + mint_ly2;
    const int mint_ly3 = mint_ty * 4 + 3;
    const idx_t mint_y3 = mint_y_tile + mint_ly3;
    extern __shared__ __align__(16) unsigned char mint_smem[];
    double (*mint_sh_u)[24][40] = reinterpret_cast<double (*)[24][40]>(mint_smem + 0); // 7 slot(s)
    // sliding window along z (thesis Sec. 5.8)
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * 64;
    const idx_t mint_z_end = min(mint_z0 + 64, mint_hi_z);
    double mint_u_p0_zm4 = 0, mint_u_p0_zm3 = 0, mint_u_p0_zm2 = 0, mint_u_p0_zm1 = 0, mint_u_p0_z0 = 0, mint_u_p0_zp1 = 0, mint_u_p0_zp2 = 0, mint_u_p0_zp3 = 0, mint_u_p0_zp4 = 0;
    double mint_u_p1_zm4 = 0, mint_u_p1_zm3 = 0, mint_u_p1_zm2 = 0, mint_u_p1_zm1 = 0, mint_u_p1_z0 = 0, mint_u_p1_zp1 = 0, mint_u_p1_zp2 = 0, mint_u_p1_zp3 = 0, mint_u_p1_zp4 = 0;
    double mint_u_p2_zm4 = 0, mint_u_p2_zm3 = 0, mint_u_p2_zm2 = 0, mint_u_p2_zm1 = 0, mint_u_p2_z0 = 0, mint_u_p2_zp1 = 0, mint_u_p2_zp2 = 0, mint_u_p2_zp3 = 0, mint_u_p2_zp4 = 0;
    double mint_u_p3_zm4 = 0, mint_u_p3_zm3 = 0, mint_u_p3_zm2 = 0, mint_u_p3_zm1 = 0, mint_u_p3_z0 = 0, mint_u_p3_zp1 = 0, mint_u_p3_zp2 = 0, mint_u_p3_zp3 = 0, mint_u_p3_zp4 = 0;
    mint_u_p0_zm4 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 4) >= 0 && (mint_z0 - 4) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 - 4) * mint_slice_u]) : double(0);
    mint_u_p1_zm4 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 4) >= 0 && (mint_z0 - 4) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 - 4) * mint_slice_u]) : double(0);
    mint_u_p2_zm4 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 4) >= 0 && (mint_z0 - 4) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 - 4) * mint_slice_u]) : double(0);
    mint_u_p3_zm4 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 4) >= 0 && (mint_z0 - 4) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 - 4) * mint_slice_u]) : double(0);
    mint_u_p0_zm3 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 3) >= 0 && (mint_z0 - 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 - 3) * mint_slice_u]) : double(0);
    mint_u_p1_zm3 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 3) >= 0 && (mint_z0 - 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 - 3) * mint_slice_u]) : double(0);
    mint_u_p2_zm3 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 3) >= 0 && (mint_z0 - 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 - 3) * mint_slice_u]) : double(0);
    mint_u_p3_zm3 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 3) >= 0 && (mint_z0 - 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 - 3) * mint_slice_u]) : double(0);
    mint_u_p0_zm2 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 2) >= 0 && (mint_z0 - 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 - 2) * mint_slice_u]) : double(0);
    mint_u_p1_zm2 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 2) >= 0 && (mint_z0 - 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 - 2) * mint_slice_u]) : double(0);
    mint_u_p2_zm2 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 2) >= 0 && (mint_z0 - 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 - 2) * mint_slice_u]) : double(0);
    mint_u_p3_zm2 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 2) >= 0 && (mint_z0 - 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 - 2) * mint_slice_u]) : double(0);
    mint_u_p0_zm1 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p1_zm1 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p2_zm1 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p3_zm1 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p0_z0 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p1_z0 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p2_z0 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p3_z0 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p0_zp1 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 + 1) * mint_slice_u]) : double(0);
    mint_u_p1_zp1 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 + 1) * mint_slice_u]) : double(0);
    mint_u_p2_zp1 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 + 1) * mint_slice_u]) : double(0);
    mint_u_p3_zp1 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 + 1) * mint_slice_u]) : double(0);
    mint_u_p0_zp2 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 + 2) * mint_slice_u]) : double(0);
    mint_u_p1_zp2 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 + 2) * mint_slice_u]) : double(0);
    mint_u_p2_zp2 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 + 2) * mint_slice_u]) : double(0);
    mint_u_p3_zp2 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 + 2) * mint_slice_u]) : double(0);
    mint_u_p0_zp3 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 + 3) * mint_slice_u]) : double(0);
    mint_u_p1_zp3 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 + 3) * mint_slice_u]) : double(0);
    mint_u_p2_zp3 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 + 3) * mint_slice_u]) : double(0);
    mint_u_p3_zp3 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 + 3) * mint_slice_u]) : double(0);
    // pipeline: the first planes into the rings, 2 plane(s) in flight ahead of each step's newest
    // copy `u` z = mint_z0 into ring slot 0: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[0][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u;
            mint_cp_async(&mint_sh_u[0][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 1 into ring slot 1: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[1][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 1) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u;
            mint_cp_async(&mint_sh_u[1][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 1) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 2 into ring slot 2: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[2][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 2) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u;
            mint_cp_async(&mint_sh_u[2][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 2) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 3 into ring slot 3: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[3][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 3) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 3) >= 0 && (mint_z0 + 3) < mint_nz_u;
            mint_cp_async(&mint_sh_u[3][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 3) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 4 into ring slot 4: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 4) >= 0 && (mint_z0 + 4) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[4][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 4) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 4) >= 0 && (mint_z0 + 4) < mint_nz_u;
            mint_cp_async(&mint_sh_u[4][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 4) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 5 into ring slot 5: 24 x 40 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
            const int mint_lr = mint_le / 20;
            const int mint_lc = mint_le % 20 * 2;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 5) >= 0 && (mint_z0 + 5) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[5][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 5) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
            const int mint_lr = mint_le / 40;
            const int mint_lc = mint_le % 40;
            const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 5) >= 0 && (mint_z0 + 5) < mint_nz_u;
            mint_cp_async(&mint_sh_u[5][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 5) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    for (idx_t z = mint_z0; z < mint_z_end; ++z) {
        mint_cp_async_wait<1>(); // this step's planes have landed
        __syncthreads();
        if (z + 2 < mint_z_end) {
            // copy `u` z = z + 6 into ring slot (int)((z - mint_z0 + 6) % 7): 24 x 40 cells, asynchronously
            if ((((size_t)(u + (mint_x_tile - 4))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
                for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 480; mint_le += 128) {
                    const int mint_lr = mint_le / 20;
                    const int mint_lc = mint_le % 20 * 2;
                    const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
                    const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
                    const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (z + 6) >= 0 && (z + 6) < mint_nz_u;
                    mint_cp_async16(&mint_sh_u[(int)((z - mint_z0 + 6) % 7)][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (z + 6) * mint_slice_u] : u, mint_in);
                }
            } else {
                for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 960; mint_le += 128) {
                    const int mint_lr = mint_le / 40;
                    const int mint_lc = mint_le % 40;
                    const idx_t mint_gx = mint_x_tile - 4 + mint_lc;
                    const idx_t mint_gy = mint_y_tile - 4 + mint_lr;
                    const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (z + 6) >= 0 && (z + 6) < mint_nz_u;
                    mint_cp_async(&mint_sh_u[(int)((z - mint_z0 + 6) % 7)][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (z + 6) * mint_slice_u] : u, mint_in);
                }
            }
        }
        mint_cp_async_commit();
        const int mint_slot_u_0 = (int)((z - mint_z0) % 7);
        mint_u_p0_zp4 = mint_sh_u[(int)((z - mint_z0 + 4) % 7)][mint_ly0 + 4][mint_lx0 + 4];
        mint_u_p1_zp4 = mint_sh_u[(int)((z - mint_z0 + 4) % 7)][mint_ly1 + 4][mint_lx0 + 4];
        mint_u_p2_zp4 = mint_sh_u[(int)((z - mint_z0 + 4) % 7)][mint_ly2 + 4][mint_lx0 + 4];
        mint_u_p3_zp4 = mint_sh_u[(int)((z - mint_z0 + 4) % 7)][mint_ly3 + 4][mint_lx0 + 4];
        // point 0: column 0, row 0 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y0;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p0;
                double s = 0.0;
                {
                    {
                        s += mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 5] + mint_sh_u[mint_slot_u_0][mint_ly0 + 3][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly0 + 5][mint_lx0 + 4] + mint_u_p0_zm1 + mint_u_p0_zp1;
                    }
                    {
                        s += mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 6] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly0 + 6][mint_lx0 + 4] + mint_u_p0_zm2 + mint_u_p0_zp2;
                    }
                    {
                        s += mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 7] + mint_sh_u[mint_slot_u_0][mint_ly0 + 1][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly0 + 7][mint_lx0 + 4] + mint_u_p0_zm3 + mint_u_p0_zp3;
                    }
                    {
                        s += mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0] + mint_sh_u[mint_slot_u_0][mint_ly0 + 4][mint_lx0 + 8] + mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly0 + 8][mint_lx0 + 4] + mint_u_p0_zm4 + mint_u_p0_zp4;
                    }
                }
                mint_unew_p0 = coef * s - mint_u_p0_z0;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p0;
            }
        }
        // point 1: column 0, row 1 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y1;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p1;
                double s_1 = 0.0;
                {
                    {
                        s_1 += mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 5] + mint_sh_u[mint_slot_u_0][mint_ly1 + 3][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly1 + 5][mint_lx0 + 4] + mint_u_p1_zm1 + mint_u_p1_zp1;
                    }
                    {
                        s_1 += mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 6] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly1 + 6][mint_lx0 + 4] + mint_u_p1_zm2 + mint_u_p1_zp2;
                    }
                    {
                        s_1 += mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 7] + mint_sh_u[mint_slot_u_0][mint_ly1 + 1][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly1 + 7][mint_lx0 + 4] + mint_u_p1_zm3 + mint_u_p1_zp3;
                    }
                    {
                        s_1 += mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0] + mint_sh_u[mint_slot_u_0][mint_ly1 + 4][mint_lx0 + 8] + mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly1 + 8][mint_lx0 + 4] + mint_u_p1_zm4 + mint_u_p1_zp4;
                    }
                }
                mint_unew_p1 = coef * s_1 - mint_u_p1_z0;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p1;
            }
        }
        // point 2: column 0, row 2 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y2;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p2;
                double s_2 = 0.0;
                {
                    {
                        s_2 += mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 5] + mint_sh_u[mint_slot_u_0][mint_ly2 + 3][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly2 + 5][mint_lx0 + 4] + mint_u_p2_zm1 + mint_u_p2_zp1;
                    }
                    {
                        s_2 += mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 6] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly2 + 6][mint_lx0 + 4] + mint_u_p2_zm2 + mint_u_p2_zp2;
                    }
                    {
                        s_2 += mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 7] + mint_sh_u[mint_slot_u_0][mint_ly2 + 1][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly2 + 7][mint_lx0 + 4] + mint_u_p2_zm3 + mint_u_p2_zp3;
                    }
                    {
                        s_2 += mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0] + mint_sh_u[mint_slot_u_0][mint_ly2 + 4][mint_lx0 + 8] + mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly2 + 8][mint_lx0 + 4] + mint_u_p2_zm4 + mint_u_p2_zp4;
                    }
                }
                mint_unew_p2 = coef * s_2 - mint_u_p2_z0;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p2;
            }
        }
        // point 3: column 0, row 3 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y3;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p3;
                double s_3 = 0.0;
                {
                    {
                        s_3 += mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 5] + mint_sh_u[mint_slot_u_0][mint_ly3 + 3][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly3 + 5][mint_lx0 + 4] + mint_u_p3_zm1 + mint_u_p3_zp1;
                    }
                    {
                        s_3 += mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 6] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly3 + 6][mint_lx0 + 4] + mint_u_p3_zm2 + mint_u_p3_zp2;
                    }
                    {
                        s_3 += mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 7] + mint_sh_u[mint_slot_u_0][mint_ly3 + 1][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly3 + 7][mint_lx0 + 4] + mint_u_p3_zm3 + mint_u_p3_zp3;
                    }
                    {
                        s_3 += mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0] + mint_sh_u[mint_slot_u_0][mint_ly3 + 4][mint_lx0 + 8] + mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx0 + 4] + mint_sh_u[mint_slot_u_0][mint_ly3 + 8][mint_lx0 + 4] + mint_u_p3_zm4 + mint_u_p3_zp4;
                    }
                }
                mint_unew_p3 = coef * s_3 - mint_u_p3_z0;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p3;
            }
        }
        // rotate: registers move down the queue, planes by swapping slot indices
        mint_u_p0_zm4 = mint_u_p0_zm3;
        mint_u_p0_zm3 = mint_u_p0_zm2;
        mint_u_p0_zm2 = mint_u_p0_zm1;
        mint_u_p0_zm1 = mint_u_p0_z0;
        mint_u_p0_z0 = mint_u_p0_zp1;
        mint_u_p0_zp1 = mint_u_p0_zp2;
        mint_u_p0_zp2 = mint_u_p0_zp3;
        mint_u_p0_zp3 = mint_u_p0_zp4;
        mint_u_p1_zm4 = mint_u_p1_zm3;
        mint_u_p1_zm3 = mint_u_p1_zm2;
        mint_u_p1_zm2 = mint_u_p1_zm1;
        mint_u_p1_zm1 = mint_u_p1_z0;
        mint_u_p1_z0 = mint_u_p1_zp1;
        mint_u_p1_zp1 = mint_u_p1_zp2;
        mint_u_p1_zp2 = mint_u_p1_zp3;
        mint_u_p1_zp3 = mint_u_p1_zp4;
        mint_u_p2_zm4 = mint_u_p2_zm3;
        mint_u_p2_zm3 = mint_u_p2_zm2;
        mint_u_p2_zm2 = mint_u_p2_zm1;
        mint_u_p2_zm1 = mint_u_p2_z0;
        mint_u_p2_z0 = mint_u_p2_zp1;
        mint_u_p2_zp1 = mint_u_p2_zp2;
        mint_u_p2_zp2 = mint_u_p2_zp3;
        mint_u_p2_zp3 = mint_u_p2_zp4;
        mint_u_p3_zm4 = mint_u_p3_zm3;
        mint_u_p3_zm3 = mint_u_p3_zm2;
        mint_u_p3_zm2 = mint_u_p3_zm1;
        mint_u_p3_zm1 = mint_u_p3_z0;
        mint_u_p3_z0 = mint_u_p3_zp1;
        mint_u_p3_zp1 = mint_u_p3_zp2;
        mint_u_p3_zp2 = mint_u_p3_zp3;
        mint_u_p3_zp3 = mint_u_p3_zp4;
    }
    mint_cp_async_wait<0>();
}
