/*
 * The C peer of the seismic example's elastic solver (examples/seismic/solver.rs): the
 * staggered-grid velocity-stress scheme, 4th order in space (c1 = 9/8, c2 = -1/24), with
 * the Cerjan sponge, the free surface at plane k0 and point sources, recording the
 * receivers' seismograms and the peak ground velocity. Single precision.
 *
 * Every update is the Mint kernel's expression with the same operands in the same order
 * (the differences of examples/seismic/stencil.rs inlined), and the nests run in the
 * solver's order, so that with -ffp-contract=off the results are bitwise equal to Mint's
 * CPU backend and to the Rust peer. Arrays are row-major [k][j][i] (i fastest) with the
 * halo; the 3-D nests are OpenMP loops over k planes, the surface nests over j rows, static
 * schedule; the sources and receivers are serial loops.
 */
#include <math.h>
#include <omp.h>
#include <stddef.h>

typedef ptrdiff_t idx;

/* The layout of mint_peers::seismic::Raw (#[repr(C)]). */
typedef struct {
    /* d1 d2 d3 lam l2m mxy mxz myz, [nz][ny][nx] */
    const float *medium[8];
    /* x xs (nx), y ys (ny), z zs (nz) */
    const float *sponge[6];
    /* fsr [ny][nx]; dlam, dl2m [nz] */
    const float *fsr, *dlam, *dl2m;
    /* comp [ne], idx [ne][3], amp [ne], src [ne], stf [nsteps][nstf] */
    const int *src_comp, *src_idx;
    const float *src_amp;
    const int *src_src;
    const float *stf;
    /* idx [nrec][9], frac [nrec][9] */
    const int *rcv_idx;
    const float *rcv_frac;
    /* u1 v1 w1 xx yy zz xy xz yz, [nz][ny][nx] */
    float *fields[9];
    /* seis [nsteps][max(nrec, 1)][3]; pgv [ny][nx] */
    float *seis, *pgv;
    size_t n[3]; /* nz, ny, nx */
    size_t k0, nsteps, ne, nstf, nrec;
} mint_peer_seismic;

static const float C1 = 1.125f, C2 = -1.0f / 24.0f;

/* Forward difference at a[at] with stride s: c1*(a[+1] - a[0]) + c2*(a[+2] - a[-1]). */
static inline float dp(const float *restrict a, idx at, idx s) {
    return C1 * (a[at + s] - a[at]) + C2 * (a[at + 2 * s] - a[at - s]);
}

/* Backward difference: c1*(a[0] - a[-1]) + c2*(a[+1] - a[-2]). */
static inline float dm(const float *restrict a, idx at, idx s) {
    return C1 * (a[at] - a[at - s]) + C2 * (a[at + s] - a[at - 2 * s]);
}

static void velocity(const mint_peer_seismic *m) {
    const idx nz = m->n[0], ny = m->n[1], nx = m->n[2], p = ny * nx;
    float *restrict u1 = m->fields[0], *restrict v1 = m->fields[1], *restrict w1 = m->fields[2];
    const float *restrict xx = m->fields[3], *restrict yy = m->fields[4];
    const float *restrict zz = m->fields[5], *restrict xy = m->fields[6];
    const float *restrict xz = m->fields[7], *restrict yz = m->fields[8];
    const float *restrict d1 = m->medium[0], *restrict d2 = m->medium[1];
    const float *restrict d3 = m->medium[2];
    const float *sx = m->sponge[0], *sxs = m->sponge[1], *sy = m->sponge[2];
    const float *sys = m->sponge[3], *sz = m->sponge[4], *szs = m->sponge[5];
#pragma omp parallel for schedule(static)
    for (idx k = 2; k < nz - 2; k++)
        for (idx j = 2; j < ny - 2; j++)
            for (idx i = 2; i < nx - 2; i++) {
                const idx at = (k * ny + j) * nx + i;
                u1[at] = (u1[at] + d1[at] * (dm(xx, at, 1) + dm(xy, at, nx) + dm(xz, at, p)))
                         * (sxs[i] * sy[j] * sz[k]);
                v1[at] = (v1[at] + d2[at] * (dp(xy, at, 1) + dp(yy, at, nx) + dm(yz, at, p)))
                         * (sx[i] * sys[j] * sz[k]);
                w1[at] = (w1[at] + d3[at] * (dp(xz, at, 1) + dm(yz, at, nx) + dp(zz, at, p)))
                         * (sx[i] * sy[j] * szs[k]);
            }
}

/* The velocities above the free surface (zero traction), then the receivers and the peak
 * ground velocity of step `step`. */
static void surface_velocity(const mint_peer_seismic *m, size_t step) {
    const idx ny = m->n[1], nx = m->n[2], p = ny * nx, k0 = (idx)m->k0;
    float *restrict u1 = m->fields[0], *restrict v1 = m->fields[1], *restrict w1 = m->fields[2];
    const float *fsr = m->fsr;
#pragma omp parallel for schedule(static)
    for (idx j = 2; j < ny - 2; j++)
        for (idx i = 2; i < nx - 2; i++) {
            const idx at = k0 * p + j * nx + i;
            const float inc = fsr[j * nx + i] * (u1[at + 1] - u1[at] + v1[at] - v1[at - nx]);
            w1[at - p] = w1[at] + inc;
            w1[at - 2 * p] = w1[at] + 2.0f * inc;
        }
#pragma omp parallel for schedule(static)
    for (idx j = 2; j < ny - 2; j++)
        for (idx i = 2; i < nx - 2; i++) {
            const idx at = k0 * p + j * nx + i, up = at - p;
            u1[up] = u1[at] + w1[up] - w1[up - 1];
            v1[up] = v1[at] + w1[up + nx] - w1[up];
            u1[up - p] = u1[up];
            v1[up - p] = v1[up];
        }
    const size_t nr = m->nrec > 0 ? m->nrec : 1;
    for (size_t r = 0; r < m->nrec; r++)
        for (int c = 0; c < 3; c++) {
            const float *a = m->fields[c];
            const int *ix = m->rcv_idx + r * 9 + 3 * c;
            const float *f = m->rcv_frac + r * 9 + 3 * c;
            const idx at = ((idx)ix[0] * ny + (idx)ix[1]) * nx + (idx)ix[2];
            const float fz = f[0], fy = f[1], fx = f[2];
            m->seis[(step * nr + r) * 3 + (size_t)c] =
                (1.0f - fz) * ((1.0f - fy) * ((1.0f - fx) * a[at] + fx * a[at + 1])
                               + fy * ((1.0f - fx) * a[at + nx] + fx * a[at + nx + 1]))
                + fz * ((1.0f - fy) * ((1.0f - fx) * a[at + p] + fx * a[at + p + 1])
                        + fy * ((1.0f - fx) * a[at + p + nx] + fx * a[at + p + nx + 1]));
        }
    float *pgv = m->pgv;
#pragma omp parallel for schedule(static)
    for (idx j = 2; j < ny - 2; j++)
        for (idx i = 2; i < nx - 2; i++) {
            const idx at = k0 * p + j * nx + i;
            const float vx = 0.5f * (u1[at] + u1[at + 1]);
            const float vy = 0.5f * (v1[at - nx] + v1[at]);
            const float vz = 0.5f * (w1[at - p] + w1[at]);
            const float v = sqrtf(vx * vx + vy * vy + vz * vz);
            if (v > pgv[j * nx + i])
                pgv[j * nx + i] = v;
        }
}

static void stress(const mint_peer_seismic *m) {
    const idx nz = m->n[0], ny = m->n[1], nx = m->n[2], p = ny * nx;
    const float *restrict u1 = m->fields[0], *restrict v1 = m->fields[1];
    const float *restrict w1 = m->fields[2];
    float *restrict xx = m->fields[3], *restrict yy = m->fields[4], *restrict zz = m->fields[5];
    float *restrict xy = m->fields[6], *restrict xz = m->fields[7], *restrict yz = m->fields[8];
    const float *restrict lam = m->medium[3], *restrict l2m = m->medium[4];
    const float *restrict mxy = m->medium[5], *restrict mxz = m->medium[6];
    const float *restrict myz = m->medium[7];
    const float *sx = m->sponge[0], *sxs = m->sponge[1], *sy = m->sponge[2];
    const float *sys = m->sponge[3], *sz = m->sponge[4], *szs = m->sponge[5];
    const float *dlam = m->dlam, *dl2m = m->dl2m;
#pragma omp parallel for schedule(static)
    for (idx k = 2; k < nz - 2; k++)
        for (idx j = 2; j < ny - 2; j++)
            for (idx i = 2; i < nx - 2; i++) {
                const idx at = (k * ny + j) * nx + i;
                const float vxx = dp(u1, at, 1), vyy = dm(v1, at, nx), vzz = dm(w1, at, p);
                const float l = lam[at], l2 = l2m[at], lz = l + dlam[k];
                const float dc = sx[i] * sy[j] * sz[k];
                xx[at] = (xx[at] + l2 * vxx + l * vyy + lz * vzz) * dc;
                yy[at] = (yy[at] + l2 * vyy + l * vxx + lz * vzz) * dc;
                zz[at] = (zz[at] + (l2 + dl2m[k]) * vzz + lz * (vxx + vyy)) * dc;
                xy[at] = (xy[at] + mxy[at] * (dp(u1, at, nx) + dm(v1, at, 1)))
                         * (sxs[i] * sys[j] * sz[k]);
                xz[at] = (xz[at] + mxz[at] * (dp(u1, at, p) + dm(w1, at, 1)))
                         * (sxs[i] * sy[j] * szs[k]);
                yz[at] = (yz[at] + myz[at] * (dp(v1, at, p) + dp(w1, at, nx)))
                         * (sx[i] * sys[j] * szs[k]);
            }
}

/* The point sources of step `step`, then the stress imaging about the free surface. */
static void surface_stress(const mint_peer_seismic *m, size_t step) {
    const idx ny = m->n[1], nx = m->n[2], p = ny * nx, k0 = (idx)m->k0;
    for (size_t e = 0; e < m->ne; e++) {
        const int *ix = m->src_idx + 3 * e;
        const idx at = ((idx)ix[0] * ny + (idx)ix[1]) * nx + (idx)ix[2];
        const float a = m->src_amp[e] * m->stf[step * m->nstf + (size_t)m->src_src[e]];
        const int c = m->src_comp[e];
        m->fields[3 + (c >= 0 && c < 5 ? c : 5)][at] += a;
    }
    float *restrict zz = m->fields[5], *restrict xz = m->fields[7], *restrict yz = m->fields[8];
#pragma omp parallel for schedule(static)
    for (idx j = 2; j < ny - 2; j++)
        for (idx i = 2; i < nx - 2; i++) {
            const idx at = k0 * p + j * nx + i;
            zz[at] = 0.0f;
            zz[at - p] = -zz[at + p];
            zz[at - 2 * p] = -zz[at + 2 * p];
            xz[at - p] = -xz[at];
            xz[at - 2 * p] = -xz[at + p];
            yz[at - p] = -yz[at];
            yz[at - 2 * p] = -yz[at + p];
        }
}

/* The solver's `nsteps` steps from the fields as they are, on `threads` OpenMP threads. */
void mint_peer_seismic_f32(const mint_peer_seismic *m, int threads) {
    omp_set_num_threads(threads);
    for (size_t step = 0; step < m->nsteps; step++) {
        velocity(m);
        surface_velocity(m, step);
        stress(m);
        surface_stress(m, step);
    }
}
