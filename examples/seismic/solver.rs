//! The time loop: the velocity–stress system (thesis Eqs. 7.2–7.12) on the staggered grid
//! of `model.rs`, 4th order in space (c1 = 9/8, c2 = −1/24) and 2nd-order leapfrog in
//! time, written as ordinary Rust loops with Mint annotations (thesis Table 7.2): the
//! velocity nest, two free-surface velocity nests, the stress nest, the source nest, the
//! free-surface stress imaging nest, and two recording nests (receivers, peak ground
//! velocity). On a GPU each nest is one CUDA kernel; on the CPU the same loops run in
//! parallel with rayon.
//!
//! Free surface (z = 0, index k0 = HALO): stress imaging (Levander 1988; Graves 1996):
//! σzz = 0 on the surface, σzz, σxz, σyz odd about it; the velocities above it from the
//! zero-traction conditions in 2nd order. Cerjan sponge: every field is multiplied by
//! the damping factor at its own staggered position each step (AWP-ODC's `dcrj`, kept
//! separable as three 1-D factors).
//!
//! Layered models: a node whose cell an interface cuts holds the thin-layer (Backus)
//! average, transversely isotropic; the normal stresses add its C13 − C12 and C33 − C11
//! (`dlam`, `dl2m`, per depth, zero elsewhere) to their z terms (see
//! [`crate::model::cell_average`]).
//!
//! Attenuation (when the material has Q): the coarse-grained memory variables of
//! AWP-ODC (Day & Bradley 2001), r1..r6 of thesis Table 7.1, one per stress component,
//! updated in the stress nest with the coefficients of [`crate::model::Anelastic`]. An
//! elastic run launches the elastic stress nest instead and never touches them.

use crate::model::{Anelastic, HALO, Setup};
use ndarray::{Array1, Array2, Array3};

/// The 4th-order staggered coefficients (thesis Table 7.2).
pub const C1: f32 = 9.0 / 8.0;
pub const C2: f32 = -1.0 / 24.0;

/// Floating-point operations per grid point per step of the velocity and stress nests
/// as the thesis counts them with attenuation (Table 7.3: 60 + 142).
pub const THESIS_FLOPS_PER_POINT: f64 = 202.0;
/// Words moved per point per step in the thesis's count (Table 7.3: 41 reads, 15 writes).
pub const THESIS_WORDS_PER_POINT: f64 = 56.0;
/// Words the elastic solver moves per point per step at least: velocity nest 12 reads
/// (6 stresses, 3 velocities, 3 densities) and 3 writes, stress nest 14 reads (3
/// velocities, 6 stresses, 5 moduli) and 6 writes; the sponge factors are 1-D.
pub const WORDS_PER_POINT: f64 = 35.0;
/// Words with attenuation: the stress nest also reads and writes r1..r6 and reads the
/// 7 coefficient arrays (39 reads and 15 writes in all, against the thesis's 41 and 15).
pub const ANELASTIC_WORDS_PER_POINT: f64 = 54.0;

/// What a run produces.
pub struct Output {
    /// Velocity seismograms `[nsteps, nreceivers, 3]` (vx, vy, vz with z down), m/s, at
    /// t = (n + ½)·dt.
    pub seismograms: Array3<f32>,
    /// Peak ground velocity at the surface `[ny + 4, nx + 4]` (halo included), m/s.
    pub pgv: Array2<f32>,
    /// Wall-clock seconds of the time loop (transfers included).
    pub seconds: f64,
}

/// Runs the simulation of `s`; `progress(step)` is called after every step (host code).
///
/// # Errors
/// [`mint::Error`] from the device.
pub fn run(s: &Setup, tile: [u32; 3], progress: &mut dyn FnMut(usize)) -> mint::Result<Output> {
    let shape = s.shape();
    let z = || Array3::<f32>::zeros(shape);
    let (mut u1, mut v1, mut w1) = (z(), z(), z());
    let (mut xx, mut yy, mut zz) = (z(), z(), z());
    let (mut xy, mut xz, mut yz) = (z(), z(), z());
    let nrec = s.receivers.names.len();
    let mut seis = Array3::<f32>::zeros((s.nsteps, nrec.max(1), 3));
    let mut pgv = Array2::<f32>::zeros((shape.1, shape.2));
    let m = &s.medium;
    let src = &s.sources;
    let comp = Array1::from(src.comp.clone());
    let amp = Array1::from(src.amp.clone());
    let srcn = Array1::from(src.src.clone());
    let unused;
    let (an, mshape) = match &m.anelastic {
        Some(a) => (a, shape),
        None => {
            unused = Anelastic::unused();
            (&unused, (1, 1, 1))
        }
    };
    let zm = || Array3::<f32>::zeros(mshape);
    let (mut r1, mut r2, mut r3) = (zm(), zm(), zm());
    let (mut r4, mut r5, mut r6) = (zm(), zm(), zm());
    let t0 = std::time::Instant::now();
    time_loop(
        &mut u1,
        &mut v1,
        &mut w1,
        &mut xx,
        &mut yy,
        &mut zz,
        &mut xy,
        &mut xz,
        &mut yz,
        &m.d1,
        &m.d2,
        &m.d3,
        &m.lam,
        &m.l2m,
        &m.mxy,
        &m.mxz,
        &m.myz,
        &m.sponge.x,
        &m.sponge.xs,
        &m.sponge.y,
        &m.sponge.ys,
        &m.sponge.z,
        &m.sponge.zs,
        &m.fsr,
        &m.dlam,
        &m.dl2m,
        m.anelastic.is_some(),
        &mut r1,
        &mut r2,
        &mut r3,
        &mut r4,
        &mut r5,
        &mut r6,
        &an.qn,
        &an.qsn,
        &an.qxy,
        &an.qxz,
        &an.qyz,
        &an.tau1,
        &an.tau2,
        &comp,
        &src.idx,
        &amp,
        &srcn,
        &src.stf,
        &s.receivers.idx,
        &s.receivers.frac,
        &mut seis,
        &mut pgv,
        s.nsteps,
        nrec,
        tile,
        progress,
    )?;
    Ok(Output {
        seismograms: seis,
        pgv,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

#[allow(clippy::too_many_arguments)]
#[mint::parallel]
fn time_loop(
    u1: &mut Array3<f32>,
    v1: &mut Array3<f32>,
    w1: &mut Array3<f32>,
    xx: &mut Array3<f32>,
    yy: &mut Array3<f32>,
    zz: &mut Array3<f32>,
    xy: &mut Array3<f32>,
    xz: &mut Array3<f32>,
    yz: &mut Array3<f32>,
    d1: &Array3<f32>,
    d2: &Array3<f32>,
    d3: &Array3<f32>,
    lam: &Array3<f32>,
    l2m: &Array3<f32>,
    mxy: &Array3<f32>,
    mxz: &Array3<f32>,
    myz: &Array3<f32>,
    gx: &Array1<f32>,
    gxs: &Array1<f32>,
    gy: &Array1<f32>,
    gys: &Array1<f32>,
    gz: &Array1<f32>,
    gzs: &Array1<f32>,
    fsr: &Array2<f32>,
    dlam: &Array1<f32>,
    dl2m: &Array1<f32>,
    anelastic: bool,
    r1: &mut Array3<f32>,
    r2: &mut Array3<f32>,
    r3: &mut Array3<f32>,
    r4: &mut Array3<f32>,
    r5: &mut Array3<f32>,
    r6: &mut Array3<f32>,
    qn: &Array3<f32>,
    qsn: &Array3<f32>,
    qxy: &Array3<f32>,
    qxz: &Array3<f32>,
    qyz: &Array3<f32>,
    tau1: &Array3<f32>,
    tau2: &Array3<f32>,
    comp: &Array1<i32>,
    sidx: &Array2<i32>,
    amp: &Array1<f32>,
    srcn: &Array1<i32>,
    stf: &Array2<f32>,
    ridx: &Array2<i32>,
    rfrac: &Array2<f32>,
    seis: &mut Array3<f32>,
    pgv: &mut Array2<f32>,
    nsteps: usize,
    nrec: usize,
    tile: [u32; 3],
    progress: &mut dyn FnMut(usize),
) -> mint::Result<()> {
    let (nz, ny, nx) = u1.dim();
    let ne = comp.len();
    let k0: usize = HALO;
    let (c1, c2) = (C1, C2);
    mint::copy!(u1, to_device);
    mint::copy!(v1, to_device);
    mint::copy!(w1, to_device);
    mint::copy!(xx, to_device);
    mint::copy!(yy, to_device);
    mint::copy!(zz, to_device);
    mint::copy!(xy, to_device);
    mint::copy!(xz, to_device);
    mint::copy!(yz, to_device);
    mint::copy!(d1, to_device);
    mint::copy!(d2, to_device);
    mint::copy!(d3, to_device);
    mint::copy!(lam, to_device);
    mint::copy!(l2m, to_device);
    mint::copy!(mxy, to_device);
    mint::copy!(mxz, to_device);
    mint::copy!(myz, to_device);
    mint::copy!(gx, to_device);
    mint::copy!(gxs, to_device);
    mint::copy!(gy, to_device);
    mint::copy!(gys, to_device);
    mint::copy!(gz, to_device);
    mint::copy!(gzs, to_device);
    mint::copy!(fsr, to_device);
    mint::copy!(dlam, to_device);
    mint::copy!(dl2m, to_device);
    mint::copy!(r1, to_device);
    mint::copy!(r2, to_device);
    mint::copy!(r3, to_device);
    mint::copy!(r4, to_device);
    mint::copy!(r5, to_device);
    mint::copy!(r6, to_device);
    mint::copy!(qn, to_device);
    mint::copy!(qsn, to_device);
    mint::copy!(qxy, to_device);
    mint::copy!(qxz, to_device);
    mint::copy!(qyz, to_device);
    mint::copy!(tau1, to_device);
    mint::copy!(tau2, to_device);
    mint::copy!(comp, to_device);
    mint::copy!(sidx, to_device);
    mint::copy!(amp, to_device);
    mint::copy!(srcn, to_device);
    mint::copy!(stf, to_device);
    mint::copy!(ridx, to_device);
    mint::copy!(rfrac, to_device);
    mint::copy!(seis, to_device);
    mint::copy!(pgv, to_device);
    for step in 0..nsteps {
        // velocity (thesis Table 7.2, lines 10-14), v^{n+1/2} from σ^n
        #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
        for k in 2..nz - 2 {
            for j in 2..ny - 2 {
                for i in 2..nx - 2 {
                    u1[[k, j, i]] = (u1[[k, j, i]]
                        + d1[[k, j, i]]
                            * (c1 * (xx[[k, j, i]] - xx[[k, j, i - 1]])
                                + c2 * (xx[[k, j, i + 1]] - xx[[k, j, i - 2]])
                                + c1 * (xy[[k, j, i]] - xy[[k, j - 1, i]])
                                + c2 * (xy[[k, j + 1, i]] - xy[[k, j - 2, i]])
                                + c1 * (xz[[k, j, i]] - xz[[k - 1, j, i]])
                                + c2 * (xz[[k + 1, j, i]] - xz[[k - 2, j, i]])))
                        * (gxs[i] * gy[j] * gz[k]);
                    v1[[k, j, i]] = (v1[[k, j, i]]
                        + d2[[k, j, i]]
                            * (c1 * (xy[[k, j, i + 1]] - xy[[k, j, i]])
                                + c2 * (xy[[k, j, i + 2]] - xy[[k, j, i - 1]])
                                + c1 * (yy[[k, j + 1, i]] - yy[[k, j, i]])
                                + c2 * (yy[[k, j + 2, i]] - yy[[k, j - 1, i]])
                                + c1 * (yz[[k, j, i]] - yz[[k - 1, j, i]])
                                + c2 * (yz[[k + 1, j, i]] - yz[[k - 2, j, i]])))
                        * (gx[i] * gys[j] * gz[k]);
                    w1[[k, j, i]] = (w1[[k, j, i]]
                        + d3[[k, j, i]]
                            * (c1 * (xz[[k, j, i + 1]] - xz[[k, j, i]])
                                + c2 * (xz[[k, j, i + 2]] - xz[[k, j, i - 1]])
                                + c1 * (yz[[k, j, i]] - yz[[k, j - 1, i]])
                                + c2 * (yz[[k, j + 1, i]] - yz[[k, j - 2, i]])
                                + c1 * (zz[[k + 1, j, i]] - zz[[k, j, i]])
                                + c2 * (zz[[k + 2, j, i]] - zz[[k - 1, j, i]])))
                        * (gx[i] * gy[j] * gzs[k]);
                }
            }
        }
        // free surface, vertical velocity above it: σzz = 0 at k0 gives
        // ∂w/∂z = −λ/(λ+2μ)·(∂u/∂x + ∂v/∂y) (table 7.2, line 5)
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                let inc = fsr[[j, i]]
                    * (u1[[k0, j, i + 1]] - u1[[k0, j, i]] + v1[[k0, j, i]] - v1[[k0, j - 1, i]]);
                w1[[k0 - 1, j, i]] = w1[[k0, j, i]] + inc;
                w1[[k0 - 2, j, i]] = w1[[k0, j, i]] + 2.0 * inc;
            }
        }
        // horizontal velocities above it: σxz = σyz = 0 give ∂u/∂z = −∂w/∂x, ∂v/∂z = −∂w/∂y
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                u1[[k0 - 1, j, i]] = u1[[k0, j, i]] + w1[[k0 - 1, j, i]] - w1[[k0 - 1, j, i - 1]];
                v1[[k0 - 1, j, i]] = v1[[k0, j, i]] + w1[[k0 - 1, j + 1, i]] - w1[[k0 - 1, j, i]];
                u1[[k0 - 2, j, i]] = u1[[k0 - 1, j, i]];
                v1[[k0 - 2, j, i]] = v1[[k0 - 1, j, i]];
            }
        }
        // receivers: trilinear interpolation of each component on its staggered grid
        #[mint::r#for(tile(32))]
        for r in 0..nrec {
            let ka = ridx[[r, 0]] as usize;
            let ja = ridx[[r, 1]] as usize;
            let ia = ridx[[r, 2]] as usize;
            let fz = rfrac[[r, 0]];
            let fy = rfrac[[r, 1]];
            let fx = rfrac[[r, 2]];
            seis[[step, r, 0]] = (1.0 - fz)
                * ((1.0 - fy) * ((1.0 - fx) * u1[[ka, ja, ia]] + fx * u1[[ka, ja, ia + 1]])
                    + fy * ((1.0 - fx) * u1[[ka, ja + 1, ia]] + fx * u1[[ka, ja + 1, ia + 1]]))
                + fz * ((1.0 - fy)
                    * ((1.0 - fx) * u1[[ka + 1, ja, ia]] + fx * u1[[ka + 1, ja, ia + 1]])
                    + fy * ((1.0 - fx) * u1[[ka + 1, ja + 1, ia]]
                        + fx * u1[[ka + 1, ja + 1, ia + 1]]));
            let kb = ridx[[r, 3]] as usize;
            let jb = ridx[[r, 4]] as usize;
            let ib = ridx[[r, 5]] as usize;
            let gz = rfrac[[r, 3]];
            let gy = rfrac[[r, 4]];
            let gx = rfrac[[r, 5]];
            seis[[step, r, 1]] = (1.0 - gz)
                * ((1.0 - gy) * ((1.0 - gx) * v1[[kb, jb, ib]] + gx * v1[[kb, jb, ib + 1]])
                    + gy * ((1.0 - gx) * v1[[kb, jb + 1, ib]] + gx * v1[[kb, jb + 1, ib + 1]]))
                + gz * ((1.0 - gy)
                    * ((1.0 - gx) * v1[[kb + 1, jb, ib]] + gx * v1[[kb + 1, jb, ib + 1]])
                    + gy * ((1.0 - gx) * v1[[kb + 1, jb + 1, ib]]
                        + gx * v1[[kb + 1, jb + 1, ib + 1]]));
            let kc = ridx[[r, 6]] as usize;
            let jc = ridx[[r, 7]] as usize;
            let ic = ridx[[r, 8]] as usize;
            let hz = rfrac[[r, 6]];
            let hy = rfrac[[r, 7]];
            let hx = rfrac[[r, 8]];
            seis[[step, r, 2]] = (1.0 - hz)
                * ((1.0 - hy) * ((1.0 - hx) * w1[[kc, jc, ic]] + hx * w1[[kc, jc, ic + 1]])
                    + hy * ((1.0 - hx) * w1[[kc, jc + 1, ic]] + hx * w1[[kc, jc + 1, ic + 1]]))
                + hz * ((1.0 - hy)
                    * ((1.0 - hx) * w1[[kc + 1, jc, ic]] + hx * w1[[kc + 1, jc, ic + 1]])
                    + hy * ((1.0 - hx) * w1[[kc + 1, jc + 1, ic]]
                        + hx * w1[[kc + 1, jc + 1, ic + 1]]));
        }
        // peak ground velocity: the velocity at the surface points (i, j, k0)
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                let vx = 0.5 * (u1[[k0, j, i]] + u1[[k0, j, i + 1]]);
                let vy = 0.5 * (v1[[k0, j - 1, i]] + v1[[k0, j, i]]);
                let vz = 0.5 * (w1[[k0 - 1, j, i]] + w1[[k0, j, i]]);
                let v = (vx * vx + vy * vy + vz * vz).sqrt();
                if v > pgv[[j, i]] {
                    pgv[[j, i]] = v;
                }
            }
        }
        if anelastic {
            // stress with attenuation (thesis Table 7.2, lines 16-33): each memory
            // variable R = dt·r by Crank–Nicolson, the stress by the mean of its old and
            // new value (model::Anelastic)
            #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
            for k in 2..nz - 2 {
                for j in 2..ny - 2 {
                    for i in 2..nx - 2 {
                        let vxx = c1 * (u1[[k, j, i + 1]] - u1[[k, j, i]])
                            + c2 * (u1[[k, j, i + 2]] - u1[[k, j, i - 1]]);
                        let vyy = c1 * (v1[[k, j, i]] - v1[[k, j - 1, i]])
                            + c2 * (v1[[k, j + 1, i]] - v1[[k, j - 2, i]]);
                        let vzz = c1 * (w1[[k, j, i]] - w1[[k - 1, j, i]])
                            + c2 * (w1[[k + 1, j, i]] - w1[[k - 2, j, i]]);
                        let l = lam[[k, j, i]];
                        let l2 = l2m[[k, j, i]];
                        let lz = l + dlam[k];
                        let dc = gx[i] * gy[j] * gz[k];
                        let t1 = tau1[[k, j, i]];
                        let t2 = tau2[[k, j, i]];
                        let a = qn[[k, j, i]] * (vxx + vyy + vzz);
                        let b = qsn[[k, j, i]];
                        let o1 = r1[[k, j, i]];
                        let n1 = (t2 * o1 - a + b * (vyy + vzz)) * t1;
                        r1[[k, j, i]] = n1;
                        xx[[k, j, i]] =
                            (xx[[k, j, i]] + l2 * vxx + l * vyy + lz * vzz + 0.5 * (o1 + n1)) * dc;
                        let o2 = r2[[k, j, i]];
                        let n2 = (t2 * o2 - a + b * (vxx + vzz)) * t1;
                        r2[[k, j, i]] = n2;
                        yy[[k, j, i]] =
                            (yy[[k, j, i]] + l2 * vyy + l * vxx + lz * vzz + 0.5 * (o2 + n2)) * dc;
                        let o3 = r3[[k, j, i]];
                        let n3 = (t2 * o3 - a + b * (vxx + vyy)) * t1;
                        r3[[k, j, i]] = n3;
                        zz[[k, j, i]] = (zz[[k, j, i]]
                            + (l2 + dl2m[k]) * vzz
                            + lz * (vxx + vyy)
                            + 0.5 * (o3 + n3))
                            * dc;
                        let vxy = c1 * (u1[[k, j + 1, i]] - u1[[k, j, i]])
                            + c2 * (u1[[k, j + 2, i]] - u1[[k, j - 1, i]]);
                        let vyx = c1 * (v1[[k, j, i]] - v1[[k, j, i - 1]])
                            + c2 * (v1[[k, j, i + 1]] - v1[[k, j, i - 2]]);
                        let o4 = r4[[k, j, i]];
                        let n4 = (t2 * o4 - qxy[[k, j, i]] * (vxy + vyx)) * t1;
                        r4[[k, j, i]] = n4;
                        xy[[k, j, i]] =
                            (xy[[k, j, i]] + mxy[[k, j, i]] * (vxy + vyx) + 0.5 * (o4 + n4))
                                * (gxs[i] * gys[j] * gz[k]);
                        let vxz = c1 * (u1[[k + 1, j, i]] - u1[[k, j, i]])
                            + c2 * (u1[[k + 2, j, i]] - u1[[k - 1, j, i]]);
                        let vzx = c1 * (w1[[k, j, i]] - w1[[k, j, i - 1]])
                            + c2 * (w1[[k, j, i + 1]] - w1[[k, j, i - 2]]);
                        let o5 = r5[[k, j, i]];
                        let n5 = (t2 * o5 - qxz[[k, j, i]] * (vxz + vzx)) * t1;
                        r5[[k, j, i]] = n5;
                        xz[[k, j, i]] =
                            (xz[[k, j, i]] + mxz[[k, j, i]] * (vxz + vzx) + 0.5 * (o5 + n5))
                                * (gxs[i] * gy[j] * gzs[k]);
                        let vyz = c1 * (v1[[k + 1, j, i]] - v1[[k, j, i]])
                            + c2 * (v1[[k + 2, j, i]] - v1[[k - 1, j, i]]);
                        let vzy = c1 * (w1[[k, j + 1, i]] - w1[[k, j, i]])
                            + c2 * (w1[[k, j + 2, i]] - w1[[k, j - 1, i]]);
                        let o6 = r6[[k, j, i]];
                        let n6 = (t2 * o6 - qyz[[k, j, i]] * (vyz + vzy)) * t1;
                        r6[[k, j, i]] = n6;
                        yz[[k, j, i]] =
                            (yz[[k, j, i]] + myz[[k, j, i]] * (vyz + vzy) + 0.5 * (o6 + n6))
                                * (gx[i] * gys[j] * gzs[k]);
                    }
                }
            }
        } else {
            // stress (thesis Table 7.2, lines 16-33, elastic), σ^{n+1}
            #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
            for k in 2..nz - 2 {
                for j in 2..ny - 2 {
                    for i in 2..nx - 2 {
                        let vxx = c1 * (u1[[k, j, i + 1]] - u1[[k, j, i]])
                            + c2 * (u1[[k, j, i + 2]] - u1[[k, j, i - 1]]);
                        let vyy = c1 * (v1[[k, j, i]] - v1[[k, j - 1, i]])
                            + c2 * (v1[[k, j + 1, i]] - v1[[k, j - 2, i]]);
                        let vzz = c1 * (w1[[k, j, i]] - w1[[k - 1, j, i]])
                            + c2 * (w1[[k + 1, j, i]] - w1[[k - 2, j, i]]);
                        let l = lam[[k, j, i]];
                        let l2 = l2m[[k, j, i]];
                        // C13 and C33 of a layered model's interface nodes (model::Medium)
                        let lz = l + dlam[k];
                        let dc = gx[i] * gy[j] * gz[k];
                        xx[[k, j, i]] = (xx[[k, j, i]] + l2 * vxx + l * vyy + lz * vzz) * dc;
                        yy[[k, j, i]] = (yy[[k, j, i]] + l2 * vyy + l * vxx + lz * vzz) * dc;
                        zz[[k, j, i]] =
                            (zz[[k, j, i]] + (l2 + dl2m[k]) * vzz + lz * (vxx + vyy)) * dc;
                        let vxy = c1 * (u1[[k, j + 1, i]] - u1[[k, j, i]])
                            + c2 * (u1[[k, j + 2, i]] - u1[[k, j - 1, i]]);
                        let vyx = c1 * (v1[[k, j, i]] - v1[[k, j, i - 1]])
                            + c2 * (v1[[k, j, i + 1]] - v1[[k, j, i - 2]]);
                        xy[[k, j, i]] = (xy[[k, j, i]] + mxy[[k, j, i]] * (vxy + vyx))
                            * (gxs[i] * gys[j] * gz[k]);
                        let vxz = c1 * (u1[[k + 1, j, i]] - u1[[k, j, i]])
                            + c2 * (u1[[k + 2, j, i]] - u1[[k - 1, j, i]]);
                        let vzx = c1 * (w1[[k, j, i]] - w1[[k, j, i - 1]])
                            + c2 * (w1[[k, j, i + 1]] - w1[[k, j, i - 2]]);
                        xz[[k, j, i]] = (xz[[k, j, i]] + mxz[[k, j, i]] * (vxz + vzx))
                            * (gxs[i] * gy[j] * gzs[k]);
                        let vyz = c1 * (v1[[k + 1, j, i]] - v1[[k, j, i]])
                            + c2 * (v1[[k + 2, j, i]] - v1[[k - 1, j, i]]);
                        let vzy = c1 * (w1[[k, j + 1, i]] - w1[[k, j, i]])
                            + c2 * (w1[[k, j + 2, i]] - w1[[k, j - 1, i]]);
                        yz[[k, j, i]] = (yz[[k, j, i]] + myz[[k, j, i]] * (vyz + vzy))
                            * (gx[i] * gys[j] * gzs[k]);
                    }
                }
            }
        }
        // point sources: −M·rate·dt/h³ on the stress component at its staggered point
        #[mint::r#for(tile(32))]
        for e in 0..ne {
            let k = sidx[[e, 0]] as usize;
            let j = sidx[[e, 1]] as usize;
            let i = sidx[[e, 2]] as usize;
            let a = amp[e] * stf[[step, srcn[e] as usize]];
            let c = comp[e];
            if c == 0 {
                xx[[k, j, i]] += a;
            } else if c == 1 {
                yy[[k, j, i]] += a;
            } else if c == 2 {
                zz[[k, j, i]] += a;
            } else if c == 3 {
                xy[[k, j, i]] += a;
            } else if c == 4 {
                xz[[k, j, i]] += a;
            } else {
                yz[[k, j, i]] += a;
            }
        }
        // free surface, stress imaging: σzz = 0 on it, σzz, σxz, σyz odd about it
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                zz[[k0, j, i]] = 0.0;
                zz[[k0 - 1, j, i]] = -zz[[k0 + 1, j, i]];
                zz[[k0 - 2, j, i]] = -zz[[k0 + 2, j, i]];
                xz[[k0 - 1, j, i]] = -xz[[k0, j, i]];
                xz[[k0 - 2, j, i]] = -xz[[k0 + 1, j, i]];
                yz[[k0 - 1, j, i]] = -yz[[k0, j, i]];
                yz[[k0 - 2, j, i]] = -yz[[k0 + 1, j, i]];
            }
        }
        progress(step);
    }
    mint::copy!(seis, from_device);
    mint::copy!(pgv, from_device);
    Ok(())
}
