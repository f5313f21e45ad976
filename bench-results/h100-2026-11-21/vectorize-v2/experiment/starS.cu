#ifndef MINB
#define MINB 1
#endif
template <typename T>
__device__ __forceinline__ void mint_vload_el(const T* __restrict__ row, idx_t xv, idx_t nx, T* r) {
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = (xv + k >= 0 && xv + k < nx) ? __ldg(row + xv + k) : T(0);
}
#if SLOWEL
#define SLOWLOAD(row, xv, nx, vec, r) mint_vload_el(row, xv, nx, r)
#else
#define SLOWLOAD(row, xv, nx, vec, r) mint_vload(row, xv, nx, vec, r)
#endif
#define LANE0 c0 * mint_u_z0[0] + c1 * (mint_v_u_y0_z0_hm1[1] + mint_u_z0[1] + mint_v_u_ym1_z0_h0[0] + mint_v_u_yp1_z0_h0[0] + mint_u_zm1[0] + mint_u_zp1[0]) + c2 * (mint_v_u_y0_z0_hm1[0] + mint_v_u_y0_z0_hp1[0] + mint_v_u_ym2_z0_h0[0] + mint_v_u_yp2_z0_h0[0] + mint_u_zm2[0] + mint_u_zp2[0])
#define LANE1 c0 * mint_u_z0[1] + c1 * (mint_u_z0[0] + mint_v_u_y0_z0_hp1[0] + mint_v_u_ym1_z0_h0[1] + mint_v_u_yp1_z0_h0[1] + mint_u_zm1[1] + mint_u_zp1[1]) + c2 * (mint_v_u_y0_z0_hm1[1] + mint_v_u_y0_z0_hp1[1] + mint_v_u_ym2_z0_h0[1] + mint_v_u_yp2_z0_h0[1] + mint_u_zm2[1] + mint_u_zp2[1])
extern "C" __global__ void __launch_bounds__(TX / 2 * TY, MINB) starS(
    double* __restrict__ unew, const idx_t mint_pitch_unew, const idx_t mint_slice_unew, const idx_t mint_nx_unew, const idx_t mint_ny_unew, const idx_t mint_nz_unew,
    const double* __restrict__ u, const idx_t mint_pitch_u, const idx_t mint_slice_u, const idx_t mint_nx_u, const idx_t mint_ny_u, const idx_t mint_nz_u,
    const double c0, const double c1, const double c2,
    const idx_t mint_lo_z, const idx_t mint_hi_z, const idx_t mint_lo_y, const idx_t mint_hi_y, const idx_t mint_lo_x, const idx_t mint_hi_x)
{
    const idx_t mint_x0 = mint_lo_x + (idx_t)blockIdx.x * TX + (idx_t)threadIdx.x * 2;
    const idx_t mint_y0 = mint_lo_y + (idx_t)blockIdx.y * TY + (idx_t)threadIdx.y * 1;
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * CZ;
    const bool mint_vec = mint_valigned(unew + mint_lo_x, (size_t)mint_pitch_unew * sizeof(double), (size_t)mint_slice_unew * sizeof(double)) && mint_valigned(u + mint_lo_x, (size_t)mint_pitch_u * sizeof(double), (size_t)mint_slice_u * sizeof(double));
    if (mint_x0 < mint_hi_x) {
        const idx_t y = mint_y0;
        if (y < mint_hi_y) {
            const idx_t mint_z_end = min(mint_z0 + CZ, mint_hi_z);
            double mint_u_zm2[2], mint_u_zm1[2], mint_u_z0[2], mint_u_zp1[2], mint_u_zp2[2], mint_u_zp3[2];
            if (mint_vec && mint_x0 + 2 <= mint_hi_x && mint_x0 - 2 >= 0 && mint_x0 + 4 <= mint_nx_u && y - 2 >= 0 && y + 2 < mint_ny_u && mint_z0 - 2 >= 0 && mint_z_end + 2 <= mint_nz_u) {
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 - 2) * mint_slice_u, mint_x0, mint_u_zm2);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u, mint_x0, mint_u_zm1);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0) * mint_slice_u, mint_x0, mint_u_z0);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u, mint_x0, mint_u_zp1);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 + 2) * mint_slice_u, mint_x0, mint_u_zp2);
#if UNROLL
#pragma unroll
                for (int s = 0; s < CZ; ++s) {
                    const idx_t z = mint_z0 + s;
                    if (z >= mint_z_end) break;
#else
                for (idx_t z = mint_z0; z < mint_z_end; ++z) {
#endif
                    double mint_w_unew[2], mint_v_u_ym2_z0_h0[2], mint_v_u_ym1_z0_h0[2], mint_v_u_y0_z0_hm1[2], mint_v_u_y0_z0_hp1[2], mint_v_u_yp1_z0_h0[2], mint_v_u_yp2_z0_h0[2];
                    
#if PREFETCH
                    if (z + 1 < mint_z_end) mint_vload_fast(u + (y) * mint_pitch_u + (z + 3) * mint_slice_u, mint_x0, mint_u_zp3);
#else
                    mint_vload_fast(u + (y) * mint_pitch_u + (z + 2) * mint_slice_u, mint_x0, mint_u_zp2);
#endif

                    mint_vload_fast(u + (y - 2) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_ym2_z0_h0);
                    mint_vload_fast(u + (y - 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_ym1_z0_h0);
                    mint_vload_fast(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 - 2, mint_v_u_y0_z0_hm1);
                    mint_vload_fast(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 + 2, mint_v_u_y0_z0_hp1);
                    mint_vload_fast(u + (y + 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_yp1_z0_h0);
                    mint_vload_fast(u + (y + 2) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_yp2_z0_h0);
                    mint_w_unew[0] = LANE0;
                    mint_w_unew[1] = LANE1;
                    mint_vstore(unew + (y) * mint_pitch_unew + (z) * mint_slice_unew, mint_x0, mint_x0 + 2, true, mint_w_unew);
                    mint_vmove(mint_u_zm2, mint_u_zm1); mint_vmove(mint_u_zm1, mint_u_z0); mint_vmove(mint_u_z0, mint_u_zp1); mint_vmove(mint_u_zp1, mint_u_zp2); mint_vmove(mint_u_zp2, mint_u_zp3);
                }
            } else {

                // slow path: the loop body per lane, straight from device memory
                for (idx_t z = mint_z0; z < mint_z_end; ++z) {
#pragma unroll
                    for (int k = 0; k < VW; ++k) {
                        const idx_t x = mint_x0 + k;
                        if (x < mint_hi_x) {
                            unew[x + y * mint_pitch_unew + z * mint_slice_unew] = c0 * u[x + y * mint_pitch_u + z * mint_slice_u] + c1 * (u[x - 1 + y * mint_pitch_u + z * mint_slice_u] + u[x + 1 + y * mint_pitch_u + z * mint_slice_u] + u[x + (y - 1) * mint_pitch_u + z * mint_slice_u] + u[x + (y + 1) * mint_pitch_u + z * mint_slice_u] + u[x + y * mint_pitch_u + (z - 1) * mint_slice_u] + u[x + y * mint_pitch_u + (z + 1) * mint_slice_u]) + c2 * (u[x - 2 + y * mint_pitch_u + z * mint_slice_u] + u[x + 2 + y * mint_pitch_u + z * mint_slice_u] + u[x + (y - 2) * mint_pitch_u + z * mint_slice_u] + u[x + (y + 2) * mint_pitch_u + z * mint_slice_u] + u[x + y * mint_pitch_u + (z - 2) * mint_slice_u] + u[x + y * mint_pitch_u + (z + 2) * mint_slice_u]);
                        }
                    }
                }
            }
        }
    }
}
