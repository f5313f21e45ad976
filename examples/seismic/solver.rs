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
//! The region takes its arrays in structs ([`Wavefield`], [`Medium`], [`Anelastic`],
//! [`Sources`], [`Receivers`], [`Recording`]) and its differences from the device
//! functions of [`crate::stencil`], which the elastic and anelastic stress nests share.
//!
//! Attenuation (when the material has Q): the coarse-grained memory variables of
//! AWP-ODC (Day & Bradley 2001), r1..r6 of thesis Table 7.1, one per stress component,
//! updated in the stress nest with the coefficients of [`crate::model::Anelastic`]. An
//! elastic run launches the elastic stress nest instead and never touches them.

use crate::model::{Anelastic, HALO, Medium, Receivers, Setup, Sources};
use crate::stencil::{dxm, dxp, dym, dyp, dzm, dzp, trilinear};
use mint::SlabArray3;
use ndarray::{Array2, Array3};

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

/// The fields the time loop advances, each `[nz, ny, nx]` with the halo, f32: under
/// `mpirun` each rank holds only its planes and [`HALO`] ghost planes
/// ([`mint::SlabArray3`]).
pub struct Wavefield {
    /// Particle velocities (m/s) at their staggered nodes: vx at (i+½, j, k), vy at
    /// (i, j+½, k), vz at (i, j, k+½).
    pub u1: SlabArray3<f32>,
    pub v1: SlabArray3<f32>,
    pub w1: SlabArray3<f32>,
    /// Stresses (Pa): normal ones at the cell centre, shear ones on the edges.
    pub xx: SlabArray3<f32>,
    pub yy: SlabArray3<f32>,
    pub zz: SlabArray3<f32>,
    pub xy: SlabArray3<f32>,
    pub xz: SlabArray3<f32>,
    pub yz: SlabArray3<f32>,
    /// Memory variables of attenuation (thesis Table 7.1), one per stress component;
    /// `[1, 1, 1]` when the model has no Q.
    pub r1: SlabArray3<f32>,
    pub r2: SlabArray3<f32>,
    pub r3: SlabArray3<f32>,
    pub r4: SlabArray3<f32>,
    pub r5: SlabArray3<f32>,
    pub r6: SlabArray3<f32>,
}

impl Wavefield {
    /// A medium at rest on a grid of `shape`, with memory variables when `anelastic`.
    pub fn at_rest(shape: (usize, usize, usize), anelastic: bool) -> Wavefield {
        let z = || SlabArray3::<f32>::zeros(shape, HALO);
        let m = || SlabArray3::<f32>::zeros(if anelastic { shape } else { (1, 1, 1) }, HALO);
        Wavefield {
            u1: z(),
            v1: z(),
            w1: z(),
            xx: z(),
            yy: z(),
            zz: z(),
            xy: z(),
            xz: z(),
            yz: z(),
            r1: m(),
            r2: m(),
            r3: m(),
            r4: m(),
            r5: m(),
            r6: m(),
        }
    }
}

/// What the time loop records.
pub struct Recording {
    /// Velocity seismograms `[nsteps, nreceivers, 3]` (vx, vy, vz with z down), m/s, at
    /// t = (n + ½)·dt.
    pub seis: Array3<f32>,
    /// Peak ground velocity at the surface `[ny + 4, nx + 4]` (halo included), m/s.
    pub pgv: Array2<f32>,
}

/// What a run produces.
pub struct Output {
    /// Velocity seismograms `[nsteps, nreceivers, 3]` (vx, vy, vz with z down), m/s, at
    /// t = (n + ½)·dt.
    pub seismograms: Array3<f32>,
    /// Peak ground velocity at the surface `[ny + 4, nx + 4]` (halo included), m/s.
    pub pgv: Array2<f32>,
    /// Wall-clock seconds of the time loop (transfers included).
    pub seconds: f64,
    /// The fields after the last step (the CPU benchmark compares them with its peers';
    /// the example itself writes only the seismograms and the peak ground velocity).
    #[allow(dead_code)]
    pub wavefield: Wavefield,
}

/// Runs the simulation of `s`; `progress(step)` is called after every step (host code).
///
/// # Errors
/// [`mint::Error`] from the device.
pub fn run(s: &Setup, tile: [u32; 3], progress: &mut dyn FnMut(usize)) -> mint::Result<Output> {
    let shape = s.shape();
    let m = &s.medium;
    let mut w = Wavefield::at_rest(shape, m.anelastic.is_some());
    let mut rec = Recording {
        seis: Array3::zeros((s.nsteps, s.receivers.names.len().max(1), 3)),
        pgv: Array2::zeros((shape.1, shape.2)),
    };
    let unused = Anelastic::unused();
    let an = m.anelastic.as_ref().unwrap_or(&unused);
    let t0 = std::time::Instant::now();
    time_loop(
        &mut w,
        m,
        an,
        &s.sources,
        &s.receivers,
        &mut rec,
        s.nsteps,
        tile,
        progress,
    )?;
    Ok(Output {
        seismograms: rec.seis,
        pgv: rec.pgv,
        seconds: t0.elapsed().as_secs_f64(),
        wavefield: w,
    })
}

/// `nsteps` steps of the staggered-grid velocity–stress scheme: the one Mint region,
/// with its arrays as fields of the structs it takes.
#[allow(clippy::too_many_arguments)]
#[mint::parallel(tune)]
fn time_loop(
    w: &mut Wavefield,
    m: &Medium,
    an: &Anelastic,
    src: &Sources,
    rcv: &Receivers,
    out: &mut Recording,
    nsteps: usize,
    tile: [u32; 3],
    progress: &mut dyn FnMut(usize),
) -> mint::Result<()> {
    let (nz, ny, nx) = w.u1.dim();
    let ne = src.comp.len();
    let nrec = rcv.names.len();
    let anelastic = m.anelastic.is_some();
    let k0: usize = HALO;
    mint::copy!(w.u1, to_device);
    mint::copy!(w.v1, to_device);
    mint::copy!(w.w1, to_device);
    mint::copy!(w.xx, to_device);
    mint::copy!(w.yy, to_device);
    mint::copy!(w.zz, to_device);
    mint::copy!(w.xy, to_device);
    mint::copy!(w.xz, to_device);
    mint::copy!(w.yz, to_device);
    mint::copy!(w.r1, to_device);
    mint::copy!(w.r2, to_device);
    mint::copy!(w.r3, to_device);
    mint::copy!(w.r4, to_device);
    mint::copy!(w.r5, to_device);
    mint::copy!(w.r6, to_device);
    mint::copy!(m.d1, to_device);
    mint::copy!(m.d2, to_device);
    mint::copy!(m.d3, to_device);
    mint::copy!(m.lam, to_device);
    mint::copy!(m.l2m, to_device);
    mint::copy!(m.mxy, to_device);
    mint::copy!(m.mxz, to_device);
    mint::copy!(m.myz, to_device);
    mint::copy!(m.sponge.x, to_device);
    mint::copy!(m.sponge.xs, to_device);
    mint::copy!(m.sponge.y, to_device);
    mint::copy!(m.sponge.ys, to_device);
    mint::copy!(m.sponge.z, to_device);
    mint::copy!(m.sponge.zs, to_device);
    mint::copy!(m.fsr, to_device);
    mint::copy!(m.dlam, to_device);
    mint::copy!(m.dl2m, to_device);
    mint::copy!(an.qn, to_device);
    mint::copy!(an.qsn, to_device);
    mint::copy!(an.qxy, to_device);
    mint::copy!(an.qxz, to_device);
    mint::copy!(an.qyz, to_device);
    mint::copy!(an.tau1, to_device);
    mint::copy!(an.tau2, to_device);
    mint::copy!(src.comp, to_device);
    mint::copy!(src.idx, to_device);
    mint::copy!(src.amp, to_device);
    mint::copy!(src.src, to_device);
    mint::copy!(src.stf, to_device);
    mint::copy!(rcv.idx, to_device);
    mint::copy!(rcv.frac, to_device);
    mint::copy!(out.seis, to_device);
    mint::copy!(out.pgv, to_device);
    for step in 0..nsteps {
        // velocity (thesis Table 7.2, lines 10-14), v^{n+1/2} from σ^n
        #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
        for k in 2..nz - 2 {
            for j in 2..ny - 2 {
                for i in 2..nx - 2 {
                    w.u1[[k, j, i]] = (w.u1[[k, j, i]]
                        + m.d1[[k, j, i]]
                            * (dxm(&w.xx, k, j, i) + dym(&w.xy, k, j, i) + dzm(&w.xz, k, j, i)))
                        * (m.sponge.xs[i] * m.sponge.y[j] * m.sponge.z[k]);
                    w.v1[[k, j, i]] = (w.v1[[k, j, i]]
                        + m.d2[[k, j, i]]
                            * (dxp(&w.xy, k, j, i) + dyp(&w.yy, k, j, i) + dzm(&w.yz, k, j, i)))
                        * (m.sponge.x[i] * m.sponge.ys[j] * m.sponge.z[k]);
                    w.w1[[k, j, i]] = (w.w1[[k, j, i]]
                        + m.d3[[k, j, i]]
                            * (dxp(&w.xz, k, j, i) + dym(&w.yz, k, j, i) + dzp(&w.zz, k, j, i)))
                        * (m.sponge.x[i] * m.sponge.y[j] * m.sponge.zs[k]);
                }
            }
        }
        // free surface, vertical velocity above it: σzz = 0 at k0 gives
        // ∂w/∂z = −λ/(λ+2μ)·(∂u/∂x + ∂v/∂y) (table 7.2, line 5)
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                let inc = m.fsr[[j, i]]
                    * (w.u1[[k0, j, i + 1]] - w.u1[[k0, j, i]] + w.v1[[k0, j, i]]
                        - w.v1[[k0, j - 1, i]]);
                w.w1[[k0 - 1, j, i]] = w.w1[[k0, j, i]] + inc;
                w.w1[[k0 - 2, j, i]] = w.w1[[k0, j, i]] + 2.0 * inc;
            }
        }
        // horizontal velocities above it: σxz = σyz = 0 give ∂u/∂z = −∂w/∂x, ∂v/∂z = −∂w/∂y
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                w.u1[[k0 - 1, j, i]] =
                    w.u1[[k0, j, i]] + w.w1[[k0 - 1, j, i]] - w.w1[[k0 - 1, j, i - 1]];
                w.v1[[k0 - 1, j, i]] =
                    w.v1[[k0, j, i]] + w.w1[[k0 - 1, j + 1, i]] - w.w1[[k0 - 1, j, i]];
                w.u1[[k0 - 2, j, i]] = w.u1[[k0 - 1, j, i]];
                w.v1[[k0 - 2, j, i]] = w.v1[[k0 - 1, j, i]];
            }
        }
        // receivers: trilinear interpolation of each component on its staggered grid
        #[mint::r#for(tile(32))]
        for r in 0..nrec {
            out.seis[[step, r, 0]] = trilinear(&w.u1, &rcv.idx, &rcv.frac, r, 0);
            out.seis[[step, r, 1]] = trilinear(&w.v1, &rcv.idx, &rcv.frac, r, 1);
            out.seis[[step, r, 2]] = trilinear(&w.w1, &rcv.idx, &rcv.frac, r, 2);
        }
        // peak ground velocity: the velocity at the surface points (i, j, k0)
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                let vx = 0.5 * (w.u1[[k0, j, i]] + w.u1[[k0, j, i + 1]]);
                let vy = 0.5 * (w.v1[[k0, j - 1, i]] + w.v1[[k0, j, i]]);
                let vz = 0.5 * (w.w1[[k0 - 1, j, i]] + w.w1[[k0, j, i]]);
                let v = (vx * vx + vy * vy + vz * vz).sqrt();
                if v > out.pgv[[j, i]] {
                    out.pgv[[j, i]] = v;
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
                        let vxx = dxp(&w.u1, k, j, i);
                        let vyy = dym(&w.v1, k, j, i);
                        let vzz = dzm(&w.w1, k, j, i);
                        let l = m.lam[[k, j, i]];
                        let l2 = m.l2m[[k, j, i]];
                        let lz = l + m.dlam[k];
                        let dc = m.sponge.x[i] * m.sponge.y[j] * m.sponge.z[k];
                        let t1 = an.tau1[[k, j, i]];
                        let t2 = an.tau2[[k, j, i]];
                        let a = an.qn[[k, j, i]] * (vxx + vyy + vzz);
                        let b = an.qsn[[k, j, i]];
                        let o1 = w.r1[[k, j, i]];
                        let n1 = (t2 * o1 - a + b * (vyy + vzz)) * t1;
                        w.r1[[k, j, i]] = n1;
                        w.xx[[k, j, i]] =
                            (w.xx[[k, j, i]] + l2 * vxx + l * vyy + lz * vzz + 0.5 * (o1 + n1))
                                * dc;
                        let o2 = w.r2[[k, j, i]];
                        let n2 = (t2 * o2 - a + b * (vxx + vzz)) * t1;
                        w.r2[[k, j, i]] = n2;
                        w.yy[[k, j, i]] =
                            (w.yy[[k, j, i]] + l2 * vyy + l * vxx + lz * vzz + 0.5 * (o2 + n2))
                                * dc;
                        let o3 = w.r3[[k, j, i]];
                        let n3 = (t2 * o3 - a + b * (vxx + vyy)) * t1;
                        w.r3[[k, j, i]] = n3;
                        w.zz[[k, j, i]] = (w.zz[[k, j, i]]
                            + (l2 + m.dl2m[k]) * vzz
                            + lz * (vxx + vyy)
                            + 0.5 * (o3 + n3))
                            * dc;
                        let exy = dyp(&w.u1, k, j, i) + dxm(&w.v1, k, j, i);
                        let o4 = w.r4[[k, j, i]];
                        let n4 = (t2 * o4 - an.qxy[[k, j, i]] * exy) * t1;
                        w.r4[[k, j, i]] = n4;
                        w.xy[[k, j, i]] =
                            (w.xy[[k, j, i]] + m.mxy[[k, j, i]] * exy + 0.5 * (o4 + n4))
                                * (m.sponge.xs[i] * m.sponge.ys[j] * m.sponge.z[k]);
                        let exz = dzp(&w.u1, k, j, i) + dxm(&w.w1, k, j, i);
                        let o5 = w.r5[[k, j, i]];
                        let n5 = (t2 * o5 - an.qxz[[k, j, i]] * exz) * t1;
                        w.r5[[k, j, i]] = n5;
                        w.xz[[k, j, i]] =
                            (w.xz[[k, j, i]] + m.mxz[[k, j, i]] * exz + 0.5 * (o5 + n5))
                                * (m.sponge.xs[i] * m.sponge.y[j] * m.sponge.zs[k]);
                        let eyz = dzp(&w.v1, k, j, i) + dyp(&w.w1, k, j, i);
                        let o6 = w.r6[[k, j, i]];
                        let n6 = (t2 * o6 - an.qyz[[k, j, i]] * eyz) * t1;
                        w.r6[[k, j, i]] = n6;
                        w.yz[[k, j, i]] =
                            (w.yz[[k, j, i]] + m.myz[[k, j, i]] * eyz + 0.5 * (o6 + n6))
                                * (m.sponge.x[i] * m.sponge.ys[j] * m.sponge.zs[k]);
                    }
                }
            }
        } else {
            // stress (thesis Table 7.2, lines 16-33, elastic), σ^{n+1}
            #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
            for k in 2..nz - 2 {
                for j in 2..ny - 2 {
                    for i in 2..nx - 2 {
                        let vxx = dxp(&w.u1, k, j, i);
                        let vyy = dym(&w.v1, k, j, i);
                        let vzz = dzm(&w.w1, k, j, i);
                        let l = m.lam[[k, j, i]];
                        let l2 = m.l2m[[k, j, i]];
                        // C13 and C33 of a layered model's interface nodes (model::Medium)
                        let lz = l + m.dlam[k];
                        let dc = m.sponge.x[i] * m.sponge.y[j] * m.sponge.z[k];
                        w.xx[[k, j, i]] = (w.xx[[k, j, i]] + l2 * vxx + l * vyy + lz * vzz) * dc;
                        w.yy[[k, j, i]] = (w.yy[[k, j, i]] + l2 * vyy + l * vxx + lz * vzz) * dc;
                        w.zz[[k, j, i]] =
                            (w.zz[[k, j, i]] + (l2 + m.dl2m[k]) * vzz + lz * (vxx + vyy)) * dc;
                        w.xy[[k, j, i]] = (w.xy[[k, j, i]]
                            + m.mxy[[k, j, i]] * (dyp(&w.u1, k, j, i) + dxm(&w.v1, k, j, i)))
                            * (m.sponge.xs[i] * m.sponge.ys[j] * m.sponge.z[k]);
                        w.xz[[k, j, i]] = (w.xz[[k, j, i]]
                            + m.mxz[[k, j, i]] * (dzp(&w.u1, k, j, i) + dxm(&w.w1, k, j, i)))
                            * (m.sponge.xs[i] * m.sponge.y[j] * m.sponge.zs[k]);
                        w.yz[[k, j, i]] = (w.yz[[k, j, i]]
                            + m.myz[[k, j, i]] * (dzp(&w.v1, k, j, i) + dyp(&w.w1, k, j, i)))
                            * (m.sponge.x[i] * m.sponge.ys[j] * m.sponge.zs[k]);
                    }
                }
            }
        }
        // point sources: −M·rate·dt/h³ on the stress component at its staggered point
        #[mint::r#for(tile(32))]
        for e in 0..ne {
            let k = src.idx[[e, 0]] as usize;
            let j = src.idx[[e, 1]] as usize;
            let i = src.idx[[e, 2]] as usize;
            let a = src.amp[e] * src.stf[[step, src.src[e] as usize]];
            let c = src.comp[e];
            if c == 0 {
                w.xx[[k, j, i]] += a;
            } else if c == 1 {
                w.yy[[k, j, i]] += a;
            } else if c == 2 {
                w.zz[[k, j, i]] += a;
            } else if c == 3 {
                w.xy[[k, j, i]] += a;
            } else if c == 4 {
                w.xz[[k, j, i]] += a;
            } else {
                w.yz[[k, j, i]] += a;
            }
        }
        // free surface, stress imaging: σzz = 0 on it, σzz, σxz, σyz odd about it
        #[mint::r#for(nest(all), tile(32, 8))]
        for j in 2..ny - 2 {
            for i in 2..nx - 2 {
                w.zz[[k0, j, i]] = 0.0;
                w.zz[[k0 - 1, j, i]] = -w.zz[[k0 + 1, j, i]];
                w.zz[[k0 - 2, j, i]] = -w.zz[[k0 + 2, j, i]];
                w.xz[[k0 - 1, j, i]] = -w.xz[[k0, j, i]];
                w.xz[[k0 - 2, j, i]] = -w.xz[[k0 + 1, j, i]];
                w.yz[[k0 - 1, j, i]] = -w.yz[[k0, j, i]];
                w.yz[[k0 - 2, j, i]] = -w.yz[[k0 + 1, j, i]];
            }
        }
        progress(step);
    }
    mint::copy!(out.seis, from_device);
    mint::copy!(out.pgv, from_device);
    Ok(())
}
