// Hand-edited form of the generated heat3d f32 vector kernel: one fast/slow test per thread
// (loop unswitching), no per-lane guards and an unconditional vector store on the fast path.
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
#define LEFT(k) ((k) == 0 ? mint_v_u_y0_z0_hm1[VW - 1] : mint_u_z0[(k) == 0 ? 0 : (k) - 1])
#define RIGHT(k) ((k) == VW - 1 ? mint_v_u_y0_z0_hp1[0] : mint_u_z0[(k) == VW - 1 ? 0 : (k) + 1])
#define LANE(k) c0 * mint_u_z0[k] + c1 * (LEFT(k) + RIGHT(k) + mint_v_u_ym1_z0_h0[k] + mint_v_u_yp1_z0_h0[k] + mint_u_zm1[k] + mint_u_zp1[k])
extern "C" __global__ void __launch_bounds__(TX / VW * TY, MINB) heatH(
    REAL* __restrict__ unew, const idx_t mint_pitch_unew, const idx_t mint_slice_unew, const idx_t mint_nx_unew, const idx_t mint_ny_unew, const idx_t mint_nz_unew,
    const REAL* __restrict__ u, const idx_t mint_pitch_u, const idx_t mint_slice_u, const idx_t mint_nx_u, const idx_t mint_ny_u, const idx_t mint_nz_u,
    const REAL c0, const REAL c1,
    const idx_t mint_lo_z, const idx_t mint_hi_z, const idx_t mint_lo_y, const idx_t mint_hi_y, const idx_t mint_lo_x, const idx_t mint_hi_x)
{
    const idx_t mint_x0 = mint_lo_x + (idx_t)blockIdx.x * TX + (idx_t)threadIdx.x * VW;
    const idx_t mint_y0 = mint_lo_y + (idx_t)blockIdx.y * TY + (idx_t)threadIdx.y * 1;
    const idx_t mint_z0 = mint_lo_z + (idx_t)blockIdx.z * CZ;
    const bool mint_vec = mint_valigned(unew + mint_lo_x, (size_t)mint_pitch_unew * sizeof(REAL), (size_t)mint_slice_unew * sizeof(REAL)) && mint_valigned(u + mint_lo_x, (size_t)mint_pitch_u * sizeof(REAL), (size_t)mint_slice_u * sizeof(REAL));
    if (mint_x0 < mint_hi_x) {
        const idx_t y = mint_y0;
        if (y < mint_hi_y) {
            const idx_t mint_z_end = min(mint_z0 + CZ, mint_hi_z);
            REAL mint_u_zm1[VW], mint_u_z0[VW], mint_u_zp1[VW], mint_u_zp2[VW];
            if (mint_vec && mint_x0 + VW <= mint_hi_x && mint_x0 - VW >= 0 && mint_x0 + 2 * VW <= mint_nx_u && y - 1 >= 0 && y + 1 < mint_ny_u && mint_z0 - 1 >= 0 && mint_z_end + 1 <= mint_nz_u) {
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u, mint_x0, mint_u_zm1);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0) * mint_slice_u, mint_x0, mint_u_z0);
                mint_vload_fast(u + (y) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u, mint_x0, mint_u_zp1);
#if UNROLL
#pragma unroll
                for (int s = 0; s < CZ; ++s) {
                    const idx_t z = mint_z0 + s;
                    if (z >= mint_z_end) break;
#else
                for (idx_t z = mint_z0; z < mint_z_end; ++z) {
#endif
                    REAL mint_w_unew[VW];
                    REAL mint_v_u_ym1_z0_h0[VW];
                    REAL mint_v_u_y0_z0_hm1[VW];
                    REAL mint_v_u_y0_z0_hp1[VW];
                    REAL mint_v_u_yp1_z0_h0[VW];
                    
#if PREFETCH
                    if (z + 1 < mint_z_end) mint_vload_fast(u + (y) * mint_pitch_u + (z + 2) * mint_slice_u, mint_x0, mint_u_zp2);
#else
                    mint_vload_fast(u + (y) * mint_pitch_u + (z + 1) * mint_slice_u, mint_x0, mint_u_zp1);
#endif

                    mint_vload_fast(u + (y - 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_ym1_z0_h0);
                    mint_vload_fast(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 - VW, mint_v_u_y0_z0_hm1);
                    mint_vload_fast(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 + VW, mint_v_u_y0_z0_hp1);
                    mint_vload_fast(u + (y + 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_v_u_yp1_z0_h0);
#pragma unroll
                    for (int k = 0; k < VW; ++k) mint_w_unew[k] = LANE(k);
                    mint_vstore(unew + (y) * mint_pitch_unew + (z) * mint_slice_unew, mint_x0, mint_x0 + VW, true, mint_w_unew);
                    mint_vmove(mint_u_zm1, mint_u_z0);
                    mint_vmove(mint_u_z0, mint_u_zp1);
                    mint_vmove(mint_u_zp1, mint_u_zp2);
                }
            } else {
#if NOSLOW
    }
#else
                if ((mint_z0 - 1) >= 0 && (mint_z0 - 1) < mint_nz_u) SLOWLOAD(u + (y) * mint_pitch_u + (mint_z0 - 1) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_u_zm1); else mint_vzero(mint_u_zm1);
                SLOWLOAD(u + (y) * mint_pitch_u + (mint_z0) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_u_z0);
                if ((mint_z0 + 1) >= 0 && (mint_z0 + 1) < mint_nz_u) SLOWLOAD(u + (y) * mint_pitch_u + (mint_z0 + 1) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_u_zp1); else mint_vzero(mint_u_zp1);
                for (idx_t z = mint_z0; z < mint_z_end; ++z) {
                    REAL mint_w_unew[VW];
                    REAL mint_v_u_ym1_z0_h0[VW];
                    REAL mint_v_u_y0_z0_hm1[VW];
                    REAL mint_v_u_y0_z0_hp1[VW];
                    REAL mint_v_u_yp1_z0_h0[VW];
                    if ((z + 2) >= 0 && (z + 2) < mint_nz_u) SLOWLOAD(u + (y) * mint_pitch_u + (z + 2) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_u_zp2); else mint_vzero(mint_u_zp2);
                    if ((y - 1) >= 0 && (y - 1) < mint_ny_u) SLOWLOAD(u + (y - 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_v_u_ym1_z0_h0); else mint_vzero(mint_v_u_ym1_z0_h0);
                    SLOWLOAD(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 - VW, mint_nx_u, mint_vec, mint_v_u_y0_z0_hm1);
                    SLOWLOAD(u + (y) * mint_pitch_u + (z) * mint_slice_u, mint_x0 + VW, mint_nx_u, mint_vec, mint_v_u_y0_z0_hp1);
                    if ((y + 1) >= 0 && (y + 1) < mint_ny_u) SLOWLOAD(u + (y + 1) * mint_pitch_u + (z) * mint_slice_u, mint_x0, mint_nx_u, mint_vec, mint_v_u_yp1_z0_h0); else mint_vzero(mint_v_u_yp1_z0_h0);
#pragma unroll
                    for (int k = 0; k < VW; ++k) if (mint_x0 + k < mint_hi_x) mint_w_unew[k] = LANE(k);
                    mint_vstore(unew + (y) * mint_pitch_unew + (z) * mint_slice_unew, mint_x0, mint_hi_x, mint_vec, mint_w_unew);
                    mint_vmove(mint_u_zm1, mint_u_z0);
                    mint_vmove(mint_u_z0, mint_u_zp1);
                    mint_vmove(mint_u_zp1, mint_u_zp2);
                }
            }
#endif
        }
    }
}
