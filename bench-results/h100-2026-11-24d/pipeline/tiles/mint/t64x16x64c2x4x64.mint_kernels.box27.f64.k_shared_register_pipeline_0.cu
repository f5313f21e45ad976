// Mint for Rust: kernel `k_shared_register_pipeline_0` of fn `k_shared_register_pipeline` at kernels/src/box27.rs:23:18
// nest(3) tile(64, 16, 64) chunksize(2, 4, 64): 32x4x1 threads per block
// optimizations: shared + register + sliding window along z + pipeline (cp.async) + unroll
// shared: `u` 3 plane(s), halo -x1 +x1 -y1 +y1 with corners
// registers: `u` z -1..=1
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
    // tile origin and this thread's points in each plane
    const int mint_tx = threadIdx.x;
    const int mint_ty = threadIdx.y;
    const idx_t mint_x_tile = mint_lo_x + (idx_t)blockIdx.x * 64;
    const idx_t mint_y_tile = mint_lo_y + (idx_t)blockIdx.y * 16;
    const int mint_lx0 = mint_tx;
    const idx_t mint_x0 = mint_x_tile + mint_lx0;
    const int mint_lx1 = mint_tx + 32;
    const idx_t mint_x1 = mint_x_tile + mint_lx1;
    const int mint_ly0 = mint_ty * 4;
    const idx_t mint_y0 = mint_y_tile + mint_ly0;
    const int mint_ly1 = mint_ty * 4 + 1;
    const idx_t mint_y1 = mint_y_tile + mint_ly1;
    const int mint_ly2 = mint_ty * 4 + 2;
    const idx_t mint_y2 = mint_y_tile + mint_ly2;
    const int mint_ly3 = mint_ty * 4 + 3;
    const idx_t mint_y3 = mint_y_tile + mint_ly3;
    extern __shared__ __align__(16) unsigned char mint_smem[];
    double (*mint_sh_u)[18][68] = reinterpret_cast<double (*)[18][68]>(mint_smem + 0); // 5 slot(s)
    // sliding window along z (thesis Sec. 5.8)
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * 64;
    const idx_t mint_z_end = min(mint_z0 + 64, mint_hi_z);
    double mint_u_p0_zm1 = 0, mint_u_p0_z0 = 0, mint_u_p0_zp1 = 0;
    double mint_u_p1_zm1 = 0, mint_u_p1_z0 = 0, mint_u_p1_zp1 = 0;
    double mint_u_p2_zm1 = 0, mint_u_p2_z0 = 0, mint_u_p2_zp1 = 0;
    double mint_u_p3_zm1 = 0, mint_u_p3_z0 = 0, mint_u_p3_zp1 = 0;
    double mint_u_p4_zm1 = 0, mint_u_p4_z0 = 0, mint_u_p4_zp1 = 0;
    double mint_u_p5_zm1 = 0, mint_u_p5_z0 = 0, mint_u_p5_zp1 = 0;
    double mint_u_p6_zm1 = 0, mint_u_p6_z0 = 0, mint_u_p6_zp1 = 0;
    double mint_u_p7_zm1 = 0, mint_u_p7_z0 = 0, mint_u_p7_zp1 = 0;
    mint_u_p0_zm1 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p1_zm1 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p2_zm1 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p3_zm1 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p4_zm1 = (mint_x1 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y0 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p5_zm1 = (mint_x1 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y1 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p6_zm1 = (mint_x1 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y2 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p7_zm1 = (mint_x1 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y3 * mint_pitch_u + (mint_z0 - 1) * mint_slice_u]) : double(0);
    mint_u_p0_z0 = (mint_x0 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y0 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p1_z0 = (mint_x0 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y1 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p2_z0 = (mint_x0 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y2 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p3_z0 = (mint_x0 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x0 + mint_y3 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p4_z0 = (mint_x1 < mint_nx_u && mint_y0 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y0 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p5_z0 = (mint_x1 < mint_nx_u && mint_y1 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y1 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p6_z0 = (mint_x1 < mint_nx_u && mint_y2 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y2 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    mint_u_p7_z0 = (mint_x1 < mint_nx_u && mint_y3 < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u) ? __ldg(&u[mint_x1 + mint_y3 * mint_pitch_u + (mint_z0) * mint_slice_u]) : double(0);
    // pipeline: the first planes into the rings, 2 plane(s) in flight ahead of each step's newest
    // copy `u` z = mint_z0 - 1 into ring slot 0: 18 x 68 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 2))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 612; mint_le += 128) {
            const int mint_lr = mint_le / 34;
            const int mint_lc = mint_le % 34 * 2;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[0][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 - 1) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 1224; mint_le += 128) {
            const int mint_lr = mint_le / 68;
            const int mint_lc = mint_le % 68;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u;
            mint_cp_async(&mint_sh_u[0][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 - 1) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 into ring slot 1: 18 x 68 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 2))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 612; mint_le += 128) {
            const int mint_lr = mint_le / 34;
            const int mint_lc = mint_le % 34 * 2;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[1][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 1224; mint_le += 128) {
            const int mint_lr = mint_le / 68;
            const int mint_lc = mint_le % 68;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0) >= 0 && (mint_z0) < mint_nz_u;
            mint_cp_async(&mint_sh_u[1][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 1 into ring slot 2: 18 x 68 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 2))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 612; mint_le += 128) {
            const int mint_lr = mint_le / 34;
            const int mint_lc = mint_le % 34 * 2;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[2][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 1) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 1224; mint_le += 128) {
            const int mint_lr = mint_le / 68;
            const int mint_lc = mint_le % 68;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u;
            mint_cp_async(&mint_sh_u[2][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 1) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    // copy `u` z = mint_z0 + 2 into ring slot 3: 18 x 68 cells, asynchronously
    if ((((size_t)(u + (mint_x_tile - 2))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 612; mint_le += 128) {
            const int mint_lr = mint_le / 34;
            const int mint_lc = mint_le % 34 * 2;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u;
            mint_cp_async16(&mint_sh_u[3][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 2) * mint_slice_u] : u, mint_in);
        }
    } else {
        for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 1224; mint_le += 128) {
            const int mint_lr = mint_le / 68;
            const int mint_lc = mint_le % 68;
            const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
            const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
            const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (mint_z0 + 2) >= 0 && (mint_z0 + 2) < mint_nz_u;
            mint_cp_async(&mint_sh_u[3][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (mint_z0 + 2) * mint_slice_u] : u, mint_in);
        }
    }
    mint_cp_async_commit();
    for (idx_t z = mint_z0; z < mint_z_end; ++z) {
        mint_cp_async_wait<1>(); // this step's planes have landed
        __syncthreads();
        if (z + 2 < mint_z_end) {
            // copy `u` z = z + 3 into ring slot (int)((z - mint_z0 + 4) % 5): 18 x 68 cells, asynchronously
            if ((((size_t)(u + (mint_x_tile - 2))) & 15) == 0 && (mint_pitch_u * 8) % 16 == 0 && (mint_slice_u * 8) % 16 == 0) {
                for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 612; mint_le += 128) {
                    const int mint_lr = mint_le / 34;
                    const int mint_lc = mint_le % 34 * 2;
                    const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
                    const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
                    const bool mint_in = mint_gx + 2 > 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (z + 3) >= 0 && (z + 3) < mint_nz_u;
                    mint_cp_async16(&mint_sh_u[(int)((z - mint_z0 + 4) % 5)][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (z + 3) * mint_slice_u] : u, mint_in);
                }
            } else {
                for (int mint_le = mint_tx + 32 * mint_ty; mint_le < 1224; mint_le += 128) {
                    const int mint_lr = mint_le / 68;
                    const int mint_lc = mint_le % 68;
                    const idx_t mint_gx = mint_x_tile - 2 + mint_lc;
                    const idx_t mint_gy = mint_y_tile - 1 + mint_lr;
                    const bool mint_in = mint_gx >= 0 && mint_gx < mint_nx_u && mint_gy >= 0 && mint_gy < mint_ny_u && (z + 3) >= 0 && (z + 3) < mint_nz_u;
                    mint_cp_async(&mint_sh_u[(int)((z - mint_z0 + 4) % 5)][mint_lr][mint_lc], mint_in ? &u[mint_gx + mint_gy * mint_pitch_u + (z + 3) * mint_slice_u] : u, mint_in);
                }
            }
        }
        mint_cp_async_commit();
        const int mint_slot_u_0 = (int)((z - mint_z0) % 5);
        const int mint_slot_u_1 = (int)((z - mint_z0 + 1) % 5);
        const int mint_slot_u_2 = (int)((z - mint_z0 + 2) % 5);
        mint_u_p0_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly0 + 1][mint_lx0 + 2];
        mint_u_p1_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly1 + 1][mint_lx0 + 2];
        mint_u_p2_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly2 + 1][mint_lx0 + 2];
        mint_u_p3_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly3 + 1][mint_lx0 + 2];
        mint_u_p4_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly0 + 1][mint_lx1 + 2];
        mint_u_p5_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly1 + 1][mint_lx1 + 2];
        mint_u_p6_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly2 + 1][mint_lx1 + 2];
        mint_u_p7_zp1 = mint_sh_u[(int)((z - mint_z0 + 2) % 5)][mint_ly3 + 1][mint_lx1 + 2];
        // point 0: column 0, row 0 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y0;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p0;
                double faces = mint_sh_u[mint_slot_u_1][mint_ly0 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx0 + 2] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx0 + 2] + mint_u_p0_zm1 + mint_u_p0_zp1;
                double edges = mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx0 + 2];
                double corners = mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx0 + 3];
                mint_unew_p0 = __fma_rn(c1, faces, c0 * mint_u_p0_z0) + c2 * edges + c3 * corners;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p0;
            }
        }
        // point 1: column 0, row 1 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y1;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p1;
                double faces_1 = mint_sh_u[mint_slot_u_1][mint_ly1 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx0 + 2] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx0 + 2] + mint_u_p1_zm1 + mint_u_p1_zp1;
                double edges_1 = mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx0 + 2];
                double corners_1 = mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx0 + 3];
                mint_unew_p1 = __fma_rn(c1, faces_1, c0 * mint_u_p1_z0) + c2 * edges_1 + c3 * corners_1;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p1;
            }
        }
        // point 2: column 0, row 2 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y2;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p2;
                double faces_2 = mint_sh_u[mint_slot_u_1][mint_ly2 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx0 + 2] + mint_u_p2_zm1 + mint_u_p2_zp1;
                double edges_2 = mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx0 + 2];
                double corners_2 = mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx0 + 3];
                mint_unew_p2 = __fma_rn(c1, faces_2, c0 * mint_u_p2_z0) + c2 * edges_2 + c3 * corners_2;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p2;
            }
        }
        // point 3: column 0, row 3 of this thread's chunk
        {
            const idx_t x = mint_x0;
            const idx_t y = mint_y3;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p3;
                double faces_3 = mint_sh_u[mint_slot_u_1][mint_ly3 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx0 + 2] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx0 + 2] + mint_u_p3_zm1 + mint_u_p3_zp1;
                double edges_3 = mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx0 + 3] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3 + 1][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3 + 1][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx0 + 2] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx0 + 2] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx0 + 2];
                double corners_3 = mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx0 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx0 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx0 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx0 + 3];
                mint_unew_p3 = __fma_rn(c1, faces_3, c0 * mint_u_p3_z0) + c2 * edges_3 + c3 * corners_3;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p3;
            }
        }
        // point 4: column 1, row 0 of this thread's chunk
        {
            const idx_t x = mint_x1;
            const idx_t y = mint_y0;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p4;
                double faces_4 = mint_sh_u[mint_slot_u_1][mint_ly0 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx1 + 2] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx1 + 2] + mint_u_p4_zm1 + mint_u_p4_zp1;
                double edges_4 = mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly0 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx1 + 2] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx1 + 2];
                double corners_4 = mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly0 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly0 + 2][mint_lx1 + 3];
                mint_unew_p4 = __fma_rn(c1, faces_4, c0 * mint_u_p4_z0) + c2 * edges_4 + c3 * corners_4;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p4;
            }
        }
        // point 5: column 1, row 1 of this thread's chunk
        {
            const idx_t x = mint_x1;
            const idx_t y = mint_y1;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p5;
                double faces_5 = mint_sh_u[mint_slot_u_1][mint_ly1 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx1 + 2] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx1 + 2] + mint_u_p5_zm1 + mint_u_p5_zp1;
                double edges_5 = mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly1 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx1 + 2] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx1 + 2];
                double corners_5 = mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly1 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly1 + 2][mint_lx1 + 3];
                mint_unew_p5 = __fma_rn(c1, faces_5, c0 * mint_u_p5_z0) + c2 * edges_5 + c3 * corners_5;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p5;
            }
        }
        // point 6: column 1, row 2 of this thread's chunk
        {
            const idx_t x = mint_x1;
            const idx_t y = mint_y2;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p6;
                double faces_6 = mint_sh_u[mint_slot_u_1][mint_ly2 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx1 + 2] + mint_u_p6_zm1 + mint_u_p6_zp1;
                double edges_6 = mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly2 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx1 + 2];
                double corners_6 = mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly2 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly2 + 2][mint_lx1 + 3];
                mint_unew_p6 = __fma_rn(c1, faces_6, c0 * mint_u_p6_z0) + c2 * edges_6 + c3 * corners_6;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p6;
            }
        }
        // point 7: column 1, row 3 of this thread's chunk
        {
            const idx_t x = mint_x1;
            const idx_t y = mint_y3;
            if (x < mint_hi_x && y < mint_hi_y) {
                double mint_unew_p7;
                double faces_7 = mint_sh_u[mint_slot_u_1][mint_ly3 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx1 + 2] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx1 + 2] + mint_u_p7_zm1 + mint_u_p7_zp1;
                double edges_7 = mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3][mint_lx1 + 3] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_1][mint_ly3 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3 + 1][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3 + 1][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx1 + 2] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx1 + 2] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx1 + 2];
                double corners_7 = mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3][mint_lx1 + 3] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_0][mint_ly3 + 2][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3][mint_lx1 + 3] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx1 + 1] + mint_sh_u[mint_slot_u_2][mint_ly3 + 2][mint_lx1 + 3];
                mint_unew_p7 = __fma_rn(c1, faces_7, c0 * mint_u_p7_z0) + c2 * edges_7 + c3 * corners_7;
                unew[x + y * mint_pitch_unew + z * mint_slice_unew] = mint_unew_p7;
            }
        }
        // rotate: registers move down the queue, planes by swapping slot indices
        mint_u_p0_zm1 = mint_u_p0_z0;
        mint_u_p0_z0 = mint_u_p0_zp1;
        mint_u_p1_zm1 = mint_u_p1_z0;
        mint_u_p1_z0 = mint_u_p1_zp1;
        mint_u_p2_zm1 = mint_u_p2_z0;
        mint_u_p2_z0 = mint_u_p2_zp1;
        mint_u_p3_zm1 = mint_u_p3_z0;
        mint_u_p3_z0 = mint_u_p3_zp1;
        mint_u_p4_zm1 = mint_u_p4_z0;
        mint_u_p4_z0 = mint_u_p4_zp1;
        mint_u_p5_zm1 = mint_u_p5_z0;
        mint_u_p5_z0 = mint_u_p5_zp1;
        mint_u_p6_zm1 = mint_u_p6_z0;
        mint_u_p6_z0 = mint_u_p6_zp1;
        mint_u_p7_zm1 = mint_u_p7_z0;
        mint_u_p7_z0 = mint_u_p7_zp1;
    }
}
