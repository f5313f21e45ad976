//! The discretized problem: the staggered grid, the material coefficients at their
//! staggered positions, the Cerjan sponge, and the sources and receivers mapped to grid
//! points. Everything here is host-side set-up; the time loop is in `solver.rs`.
//!
//! Arrays are `[z, y, x]` with a halo of [`HALO`] points on every side; index `i` of an
//! array holding normal stresses is at x = (i − HALO)·h. The staggering (thesis Sec. 7.1,
//! Eqs. 7.2–7.12; AWP-ODC's layout with z pointing down):
//!
//! | field | position |
//! |---|---|
//! | xx, yy, zz, λ, μ, ρ | (i, j, k) |
//! | u1 (vx) | (i − ½, j, k) |
//! | v1 (vy) | (i, j + ½, k) |
//! | w1 (vz, down) | (i, j, k + ½) |
//! | xy | (i − ½, j + ½, k) |
//! | xz | (i − ½, j, k + ½) |
//! | yz | (i, j + ½, k + ½) |

use crate::config::{Attenuation, Config, ConfigError, Material};
use crate::stencil::{harmonic4, mean2};
use mint::SlabArray3;
use ndarray::{Array1, Array2, Array3};
use std::ops::Range;

/// Ghost points on each side: the 4th-order differences reach two points.
pub const HALO: usize = 2;

/// Staggered offsets (x, y, z) in grid steps of the velocity components u1, v1, w1.
pub const VELOCITY_OFFSETS: [[f64; 3]; 3] = [[-0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.5]];
/// Staggered offsets of the stress components xx, yy, zz, xy, xz, yz.
pub const STRESS_OFFSETS: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [-0.5, 0.5, 0.0],
    [-0.5, 0.0, 0.5],
    [0.0, 0.5, 0.5],
];

/// Material coefficients, premultiplied by dt/h, at the staggered positions of the
/// fields they update; all `[nz + 4, ny + 4, nx + 4]`. The 3-D ones are
/// [`mint::SlabArray3`]s: under `mpirun` each rank builds and holds only its own planes
/// and [`HALO`] ghost planes on each side (on one process, all of them).
pub struct Medium {
    /// dt/(h·ρ̄) at u1, v1, w1 (ρ averaged over the two neighbours).
    pub d1: SlabArray3<f32>,
    pub d2: SlabArray3<f32>,
    pub d3: SlabArray3<f32>,
    /// dt/h·λ and dt/h·(λ + 2μ) at the normal stresses.
    pub lam: SlabArray3<f32>,
    pub l2m: SlabArray3<f32>,
    /// dt/h·μ̄ at xy, xz, yz (harmonic mean of the four neighbours).
    pub mxy: SlabArray3<f32>,
    pub mxz: SlabArray3<f32>,
    pub myz: SlabArray3<f32>,
    /// The Cerjan damping, separable: the factor of a field at (x, y, z) is
    /// `sponge.x·sponge.y·sponge.z` evaluated at its staggered position.
    pub sponge: Sponge,
    /// λ/(λ + 2μ) at the free surface, `[ny + 4, nx + 4]`.
    pub fsr: Array2<f32>,
    /// The layered model's corrections to the normal-stress moduli of depth index k,
    /// `[nz + 4]`, premultiplied by dt/h: `dlam` = C13 − C12 and `dl2m` = C33 − C11 of the
    /// Backus average (see [`cell_average`]); the stress nests use `lam` (C12) and `l2m`
    /// (C11) within the horizontal plane, `lam + dlam` (C13) between it and z, and
    /// `l2m + dl2m` (C33) along z. Zero away from interfaces and for other models.
    pub dlam: Array1<f32>,
    pub dl2m: Array1<f32>,
    /// The memory-variable coefficients of an anelastic run; `None` for an elastic one.
    pub anelastic: Option<Anelastic>,
    /// The largest P velocity (m/s), unrelaxed when anelastic (it sets the CFL number).
    pub vp_max: f64,
    pub vs_min: f64,
}

/// The coefficients of the anelastic stress update (thesis Table 7.2, lines 16–33, and
/// Table 7.1's qpa, h, h1.., vx1, vx2), all `[nz + 4, ny + 4, nx + 4]` at the positions of
/// the stresses they update. With Rᵢ = dt·rᵢ the memory variable of stress σᵢ (the r1..r6
/// of Table 7.1: xx, yy, zz, xy, xz, yz) and D the 4th-order differences of the
/// velocities (no 1/h), one step is (Crank–Nicolson for τṙ + r = −M·y·ε̇):
///
/// ```text
/// R1' = (tau2·R1 − qn·(Dxx + Dyy + Dzz) + qsn·(Dyy + Dzz))·tau1
/// xx' = (xx + l2m·Dxx + lam·(Dyy + Dzz) + ½(R1 + R1'))·dcrj
/// R4' = (tau2·R4 − qxy·(Dxy + Dyx))·tau1
/// xy' = (xy + mxy·(Dxy + Dyx) + ½(R4 + R4'))·dcrj
/// ```
///
/// where lam, l2m, mxy.. hold the unrelaxed moduli of each stress point's cell
/// ([`Relaxation::cell_unrelaxed`]). Below, Mᵤ is the unrelaxed modulus of the medium
/// that holds every relaxation time, M/[`Relaxation::dispersion`], so that Mᵤ·y is the
/// cell's defect ([`Relaxation::cell_defect`]).
pub struct Anelastic {
    /// dt/h·(λ + 2μ)ᵤ·y_p: the P part of the normal stresses' relaxation, with
    /// y_p = 8·w_c/Qp the coarse-grained weight of the cell's relaxation time c.
    pub qn: SlabArray3<f32>,
    /// dt/h·2μᵤ·y_s: the S part, y_s = 8·w_c/Qs.
    pub qsn: SlabArray3<f32>,
    /// dt/h·μ̄ᵤ·y_s at xy, xz, yz (1/Qs the mean of the four nodes').
    pub qxy: SlabArray3<f32>,
    pub qxz: SlabArray3<f32>,
    pub qyz: SlabArray3<f32>,
    /// 1/(τ_c/dt + ½) and τ_c/dt − ½ of the cell's relaxation time τ_c.
    pub tau1: SlabArray3<f32>,
    pub tau2: SlabArray3<f32>,
    /// The fitted model, for the run's report.
    pub relaxation: Relaxation,
}

impl Anelastic {
    /// 1×1×1 stand-ins passed to the solver of an elastic run, whose anelastic nest is
    /// never launched.
    pub fn unused() -> Anelastic {
        let z = || SlabArray3::zeros((1, 1, 1), HALO);
        Anelastic {
            qn: z(),
            qsn: z(),
            qxy: z(),
            qxz: z(),
            qyz: z(),
            tau1: z(),
            tau2: z(),
            relaxation: Relaxation {
                tau: [1.0; 8],
                weight: [0.0; 8],
                reference: 1.0,
            },
        }
    }
}

/// A constant-Q relaxation spectrum (Day & Bradley 2001; Emmerich & Korn 1987): eight
/// relaxation times τ_k (s) and weights w_k such that, for a material of quality factor
/// Q with memory-variable weights y_k = w_k/Q,
/// Q⁻¹(ω) ≈ Σ_k y_k·ωτ_k/(1 + ω²τ_k²) is 1/Q over the band.
#[derive(Clone, Copy, Debug)]
pub struct Relaxation {
    pub tau: [f64; 8],
    pub weight: [f64; 8],
    /// The reference frequency (Hz) of the given velocities.
    pub reference: f64,
}

impl Relaxation {
    /// τ_k log-spaced over the band widened by 1.5× at each end (τ = 1/(2πf)), weights by non-negative least squares
    /// on 96 log-spaced frequencies of the band (plain least squares oscillates, and a
    /// negative weight can make a coarse-grained cell's relaxed modulus negative).
    pub fn fit(a: &Attenuation) -> Relaxation {
        let [f0, f1] = a.band;
        let lerp = |x: f64| (f0.ln() + x * (f1.ln() - f0.ln())).exp();
        // the relaxation frequencies reach a little past the band, so that its edges are
        // covered as well as its middle
        let (e0, e1) = ((f0 / 1.5).ln(), (f1 * 1.5).ln());
        let tau: [f64; 8] = std::array::from_fn(|k| {
            1.0 / (2.0 * std::f64::consts::PI * (e0 + (e1 - e0) * k as f64 / 7.0).exp())
        });
        let nf = 96;
        // the normal equations G w = c of the fit Σ_k w_k F_k(ω_f) = 1
        let mut g = [[0.0f64; 8]; 8];
        let mut c = [0.0f64; 8];
        for f in 0..nf {
            let w = 2.0 * std::f64::consts::PI * lerp(f as f64 / (nf - 1) as f64);
            let row: [f64; 8] = std::array::from_fn(|k| w * tau[k] / (1.0 + (w * tau[k]).powi(2)));
            for a in 0..8 {
                for b in 0..8 {
                    g[a][b] += row[a] * row[b];
                }
                c[a] += row[a];
            }
        }
        Relaxation {
            tau,
            weight: nnls8(&g, &c),
            reference: a.reference_frequency,
        }
    }

    /// 1/Q(f) of a material with quality factor `q` (the first-order formula the fit
    /// uses), at frequency `f` in Hz.
    pub fn inverse_q(&self, q: f64, f: f64) -> f64 {
        let w = 2.0 * std::f64::consts::PI * f;
        (0..8)
            .map(|k| self.weight[k] / q * w * self.tau[k] / (1.0 + (w * self.tau[k]).powi(2)))
            .sum()
    }

    /// M(ω_ref)/Mᵤ for inverse quality factor `qi`: the real part of the relaxation
    /// function 1 − Σ y_k/(1 + iωτ_k) at the reference frequency. The given velocities
    /// are phase velocities there, so a medium that holds every relaxation time has
    /// Mᵤ = ρv²/this.
    pub fn dispersion(&self, qi: f64) -> f64 {
        let w = 2.0 * std::f64::consts::PI * self.reference;
        1.0 - (0..8)
            .map(|k| self.weight[k] * qi / (1.0 + (w * self.tau[k]).powi(2)))
            .sum::<f64>()
    }

    /// ΔM/M of coarse-grained cell `c` for inverse quality factor `qi`, M the given
    /// modulus (at the reference frequency): the modulus defect Mᵤ·y_c of the cell's one
    /// relaxation time τ_c, y_c = 8·w_c·qi (Day & Bradley 2001), with Mᵤ = M/[`dispersion`]
    /// the unrelaxed modulus of the medium that holds every relaxation time. Its memory
    /// variable relaxes by this defect, so the 8 cells' mean is that medium's complex
    /// modulus.
    ///
    /// [`dispersion`]: Relaxation::dispersion
    pub fn cell_defect(&self, qi: f64, c: usize) -> f64 {
        8.0 * self.weight[c] * qi / self.dispersion(qi)
    }

    /// Mᵤ/M of coarse-grained cell `c`: 1 + ΔM/M·Re 1/(1 + iω_ref·τ_c), the unrelaxed
    /// modulus that gives the cell the given modulus M at the reference frequency.
    ///
    /// With one Mᵤ for every cell instead, the cells' moduli at ω_ref differ by up to
    /// ΔM — 26% at Q = 40 over 0.05–10 Hz — and the waves see a checkerboard whose
    /// effective modulus is below the cells' mean: LOH.3's waves arrived 0.2% late.
    /// The cells' imaginary parts, and so Q, are the same either way.
    pub fn cell_unrelaxed(&self, qi: f64, c: usize) -> f64 {
        let w = 2.0 * std::f64::consts::PI * self.reference;
        1.0 + self.cell_defect(qi, c) / (1.0 + (w * self.tau[c]).powi(2))
    }
}

/// Minimizes ‖Aw − b‖² over w ≥ 0 given G = AᵀA and c = Aᵀb with non-negative entries,
/// by the multiplicative update w ← w·c/(Gw) (Lee & Seung 2001), which keeps w positive
/// and does not increase the residual.
fn nnls8(g: &[[f64; 8]; 8], c: &[f64; 8]) -> [f64; 8] {
    let mut w = [1.0f64; 8];
    for _ in 0..20_000 {
        let gw: [f64; 8] = std::array::from_fn(|a| (0..8).map(|b| g[a][b] * w[b]).sum());
        for a in 0..8 {
            w[a] *= c[a] / gw[a];
        }
    }
    w
}

/// The relaxation time index of cell (k, j, i): one of the 8 cells of its 2×2×2 block.
pub fn cell_of(k: usize, j: usize, i: usize) -> usize {
    (i & 1) + 2 * (j & 1) + 4 * (k & 1)
}

/// Cerjan damping factors along each axis (1 outside the sponge), at the normal-stress
/// points (`x`, `y`, `z`, index i at position i) and at the staggered points (`xs` at
/// i − ½, `ys` at j + ½, `zs` at k + ½), so that every field is damped at its own
/// position and the damping is mirror-symmetric.
pub struct Sponge {
    pub x: Array1<f32>,
    pub xs: Array1<f32>,
    pub y: Array1<f32>,
    pub ys: Array1<f32>,
    pub z: Array1<f32>,
    pub zs: Array1<f32>,
}

/// The point sources as stress increments: entry `e` adds `amp[e]·stf[[n, src[e]]]` to
/// stress component `comp[e]` (0..6 = xx, yy, zz, xy, xz, yz) at `idx[[e, 0..3]]` = (k, j, i)
/// in step `n`.
pub struct Sources {
    pub comp: Vec<i32>,
    pub idx: Array2<i32>,
    pub amp: Vec<f32>,
    pub src: Vec<i32>,
    /// Normalized moment rate of each source at t = (n + ½)·dt, `[nsteps, nsources]`.
    pub stf: Array2<f32>,
}

/// Receivers: trilinear interpolation of each velocity component on its own staggered
/// grid. `idx[[r, 3c..3c+3]]` = (k, j, i) of the lower corner for component c, `frac` the
/// matching (z, y, x) weights.
pub struct Receivers {
    pub names: Vec<String>,
    pub locations: Vec<[f64; 3]>,
    pub idx: Array2<i32>,
    pub frac: Array2<f32>,
}

/// The problem on one resolution.
pub struct Setup {
    pub title: String,
    /// Interior points [nx, ny, nz].
    pub n: [usize; 3],
    pub h: f64,
    pub dt: f64,
    pub nsteps: usize,
    pub medium: Medium,
    pub sources: Sources,
    pub receivers: Receivers,
}

impl Setup {
    /// The array shape `[nz + 4, ny + 4, nx + 4]`.
    pub fn shape(&self) -> (usize, usize, usize) {
        shape_of(self.n)
    }
    /// Grid points updated per step.
    pub fn points(&self) -> f64 {
        self.n.iter().map(|&v| v as f64).product()
    }
}

fn shape_of(n: [usize; 3]) -> (usize, usize, usize) {
    (n[2] + 2 * HALO, n[1] + 2 * HALO, n[0] + 2 * HALO)
}

/// Builds the problem of `c` at spacing `h` and step `dt`.
///
/// Under `mpirun` (the `mpi` feature) each rank builds the material and the coefficient
/// arrays of its own planes only ([`mint::slab::held_planes`]), reading only those planes
/// of a material file; the largest P and smallest S velocity, which set the CFL check,
/// are taken over all ranks ([`mint::ranks::all_max`]). So no rank ever holds the whole
/// model, and every rank builds the same values for the planes it holds as one process
/// does.
///
/// # Errors
/// [`ConfigError::Cfl`] when the step is unstable; [`ConfigError::MaterialFile`] for a
/// material file that cannot be read or has the wrong size; [`ConfigError::Value`] for a
/// grid too small for the sponge; [`ConfigError::Ranks`] when another rank failed to
/// build its part (the failing rank reports its own error) or the ranks cannot exchange.
pub fn build(c: &Config, h: f64, dt: f64) -> Result<Setup, ConfigError> {
    let n = [0, 1, 2].map(|a| (c.grid.extent[a] / h).round() as usize + 1);
    if n.iter().any(|&v| v < 2 * c.sponge.width + 8) {
        return Err(ConfigError::Value {
            field: "grid.spacing".into(),
            value: h.to_string(),
            why: format!(
                "the grid has {}×{}×{} points, too few for a sponge of {} points on each side",
                n[0], n[1], n[2], c.sponge.width
            ),
        });
    }
    let nsteps = (c.grid.duration / dt).round().max(1.0) as usize;
    let shape = shape_of(n);
    // this rank's planes of the coefficient arrays, and the material one plane further
    // down, which the averages at the staggered z + ½ points read
    let held = mint::slab::held_planes(shape.0, HALO);
    let mut f = agree(material(c, n, h, held.start..(held.end + 1).min(shape.0)))?;
    // the free surface's plane, for λ/(λ + 2μ) there, which every rank holds
    let surface = agree(material(c, n, h, HALO..HALO + 1))?;
    let vs_min = all(
        mint::ranks::all_min,
        f.vs.a.iter().fold(f32::INFINITY, |m, &v| m.min(v)) as f64,
    )?;
    let relaxation = f.q.as_ref().map(|_| Relaxation::fit(&c.attenuation));
    // the given velocities hold at the reference frequency: with Q the unrelaxed (high
    // frequency) moduli are higher, each by its own cell's factor (`anelastic` below)
    let vp_max = match (&f.q, &relaxation) {
        (Some((qpi, _)), Some(r)) => {
            ndarray::Zip::indexed(&f.vp.a)
                .and(&qpi.a)
                .fold(0.0f64, |m, (k, j, i), &v, &q| {
                    m.max(
                        v as f64
                            * r.cell_unrelaxed(q as f64, cell_of(k + f.vp.lo, j, i))
                                .sqrt(),
                    )
                })
        }
        _ => f.vp.a.iter().fold(0.0f32, |m, &v| m.max(v)) as f64,
    };
    let vp_max = all(mint::ranks::all_max, vp_max)?;
    Config::check_cfl(h, dt, vp_max)?;
    if let (Some(prof), Some(r)) = (&mut f.layered, &relaxation) {
        // the per-depth corrections C13 − C12 and C33 − C11 (zero away from interfaces)
        // take the cells' mean factor: they are one value per depth
        for p in prof.iter_mut() {
            p.c13_c12 /= r.dispersion(p.qpi);
            p.c33_c11 /= r.dispersion(p.qpi);
        }
    }
    let mut medium = coefficients(&f, shape, h, dt, vp_max, vs_min, c);
    medium.fsr = free_surface(&surface, dt / h, relaxation.as_ref());
    if let Some(r) = relaxation {
        medium.anelastic = Some(anelastic(&mut medium, &f, r, dt));
    }
    let sources = sources(c, n, h, dt, nsteps);
    let receivers = receivers(c, n, h);
    Ok(Setup {
        title: c.title.clone(),
        n,
        h,
        dt,
        nsteps,
        medium,
        sources,
        receivers,
    })
}

/// Makes a step of [`build`] fail on every rank when it failed on any: a rank that went
/// on alone would wait for the others in the next collective. The failing rank keeps its
/// own error.
fn agree<T>(local: Result<T, ConfigError>) -> Result<T, ConfigError> {
    if mint::ranks::size() == 1 {
        return local;
    }
    let failed = all(mint::ranks::all_max, f64::from(u8::from(local.is_err())))?;
    match local {
        Ok(_) if failed > 0.0 => Err(ConfigError::Ranks {
            why: "another rank could not build its planes of the model (it reports why)".into(),
        }),
        other => other,
    }
}

/// A collective of [`mint::ranks`] on `x`, its error as a [`ConfigError`].
fn all(op: fn(f64) -> mint::Result<f64>, x: f64) -> Result<f64, ConfigError> {
    op(x).map_err(|e| ConfigError::Ranks { why: e.to_string() })
}

/// Material values of the padded grid on some of its planes, read by global index.
struct Planes {
    /// The first plane held.
    lo: usize,
    /// Planes `lo..lo + a.len_of(Axis(0))`, `[planes, ny + 4, nx + 4]`.
    a: Array3<f32>,
}

impl Planes {
    fn from_fn(
        planes: &Range<usize>,
        (ny, nx): (usize, usize),
        mut f: impl FnMut(usize, usize, usize) -> f32,
    ) -> Planes {
        let lo = planes.start;
        Planes {
            lo,
            a: Array3::from_shape_fn((planes.len(), ny, nx), |(k, j, i)| f(lo + k, j, i)),
        }
    }

    fn at(&self, k: usize, j: usize, i: usize) -> f32 {
        self.a[[k - self.lo, j, i]]
    }
}

/// The material at every grid point of some planes, halo included (copied from the
/// nearest interior point).
struct Fields {
    vp: Planes,
    vs: Planes,
    rho: Planes,
    /// 1/Qp and 1/Qs (0 where a material has none) when any material has a Q.
    q: Option<(Planes, Planes)>,
    /// For a layered model, what each depth index needs beyond the node values above
    /// (see [`Staggered`]), for every depth; `None` for other models.
    layered: Option<Vec<Staggered>>,
    /// The padded grid's shape `[nz + 4, ny + 4, nx + 4]`.
    shape: (usize, usize, usize),
}

impl Fields {
    /// (k, j, i) clamped to the grid: the staggered averages at the last index read
    /// one beyond it.
    fn clamp(&self, k: usize, j: usize, i: usize) -> (usize, usize, usize) {
        let (nz, ny, nx) = self.shape;
        (k.min(nz - 1), j.min(ny - 1), i.min(nx - 1))
    }
    /// μ = ρ·Vs² (Pa).
    fn mu(&self, k: usize, j: usize, i: usize) -> f64 {
        let (k, j, i) = self.clamp(k, j, i);
        self.rho.at(k, j, i) as f64 * (self.vs.at(k, j, i) as f64).powi(2)
    }
    /// λ = ρ·(Vp² − 2·Vs²) (Pa), at a node.
    fn lam(&self, k: usize, j: usize, i: usize) -> f64 {
        let (vp, vs) = (self.vp.at(k, j, i) as f64, self.vs.at(k, j, i) as f64);
        self.rho.at(k, j, i) as f64 * (vp.powi(2) - 2.0 * vs.powi(2))
    }
    /// dt/h·λ and dt/h·(λ + 2μ) at a node, `s` = dt/h, as the coefficient arrays hold
    /// them.
    fn moduli(&self, s: f64, k: usize, j: usize, i: usize) -> (f32, f32) {
        let (lam, mu) = (self.lam(k, j, i), self.mu(k, j, i));
        ((s * lam) as f32, (s * (lam + 2.0 * mu)) as f32)
    }
    fn rho(&self, k: usize, j: usize, i: usize) -> f64 {
        let (k, j, i) = self.clamp(k, j, i);
        self.rho.at(k, j, i) as f64
    }
    /// 1/Qp and 1/Qs (clamped), 0 without attenuation.
    fn qpi(&self, k: usize, j: usize, i: usize) -> f64 {
        let (k, j, i) = self.clamp(k, j, i);
        self.q.as_ref().map_or(0.0, |q| q.0.at(k, j, i) as f64)
    }
    fn qsi(&self, k: usize, j: usize, i: usize) -> f64 {
        let (k, j, i) = self.clamp(k, j, i);
        self.q.as_ref().map_or(0.0, |q| q.1.at(k, j, i) as f64)
    }
}

/// What a layered model needs of depth index k beyond the node values (which give every
/// coefficient at the node's own depth, `mxy` included): at the xz, yz and w1 nodes,
/// depth z_k + h/2, the averages over their cell [z_k, z_k + h] (Backus 1962) — `mu_z`
/// the harmonic mean of μ (C44, shear across the layers) and `rho_z` the arithmetic mean
/// of ρ — and the node's C13 − C12 and C33 − C11 ([`CellMaterial`]) and 1/Qp.
#[derive(Clone, Copy, Debug)]
pub struct Staggered {
    pub mu_z: f64,
    pub rho_z: f64,
    pub c13_c12: f64,
    pub c33_c11: f64,
    /// The node's 1/Qp, as the 1/Qp field holds it.
    pub qpi: f64,
}

/// [`Staggered`] for the node at depth `z` (m), spacing `h`, whose own cell average is
/// `node`.
pub fn staggered(
    layers: &[crate::config::Layer],
    z: f64,
    h: f64,
    node: &CellMaterial,
) -> Staggered {
    let below = overlaps(layers, z, z + h);
    Staggered {
        mu_z: 1.0
            / below
                .iter()
                .map(|(w, l)| w / (l.rho * l.vs * l.vs))
                .sum::<f64>(),
        rho_z: below.iter().map(|(w, l)| w * l.rho).sum(),
        c13_c12: node.c13_c12,
        c33_c11: node.c33_c11,
        qpi: node.qpi as f64,
    }
}

/// The layers overlapping depths [lo, hi] with the fraction of the interval in each
/// (the last layer extends down for ever).
fn overlaps(layers: &[crate::config::Layer], lo: f64, hi: f64) -> Vec<(f64, crate::config::Layer)> {
    let mut out = Vec::new();
    let mut top = 0.0f64;
    for (i, l) in layers.iter().enumerate() {
        let bottom = match l.thickness {
            Some(t) if i + 1 < layers.len() => top + t,
            _ => f64::INFINITY,
        };
        let w = (hi.min(bottom) - lo.max(top)).max(0.0) / (hi - lo);
        if w > 0.0 {
            out.push((w, *l));
        }
        top = bottom;
        if top >= hi {
            break;
        }
    }
    out
}

/// 1/Q of an optional quality factor (none: no attenuation).
fn inverse(q: Option<f64>) -> f32 {
    q.map_or(0.0, |q| (1.0 / q) as f32)
}

/// The material of `c` on `planes` of the padded grid of `n` interior points. A material
/// file is read only in those planes (each plane of the file is contiguous).
fn material(
    c: &Config,
    n: [usize; 3],
    h: f64,
    planes: Range<usize>,
) -> Result<Fields, ConfigError> {
    let shape = shape_of(n);
    let plane = (shape.1, shape.2);
    let clamp = |v: usize, len: usize| v.clamp(HALO, len + HALO - 1) - HALO;
    let anelastic = c.anelastic();
    let constant = |v: f32| Planes::from_fn(&planes, plane, |_, _, _| v);
    match &c.material {
        Material::Homogeneous {
            vp,
            vs,
            rho,
            qp,
            qs,
        } => Ok(Fields {
            vp: constant(*vp as f32),
            vs: constant(*vs as f32),
            rho: constant(*rho as f32),
            q: anelastic.then(|| (constant(inverse(*qp)), constant(inverse(*qs)))),
            layered: None,
            shape,
        }),
        Material::Layered { layers } => {
            // the effective material of each depth index: a volume average over the
            // node's cell (see `cell_average`), so that an interface sits at its depth
            let per_k: Vec<CellMaterial> = (0..shape.0)
                .map(|k| cell_average(layers, clamp(k, n[2]) as f64 * h, h))
                .collect();
            let field = |f: fn(&CellMaterial) -> f32| {
                Planes::from_fn(&planes, plane, |k, _, _| f(&per_k[k]))
            };
            Ok(Fields {
                vp: field(|c| c.vp),
                vs: field(|c| c.vs),
                rho: field(|c| c.rho),
                q: anelastic.then(|| (field(|c| c.qpi), field(|c| c.qsi))),
                layered: Some(
                    (0..shape.0)
                        .map(|k| staggered(layers, clamp(k, n[2]) as f64 * h, h, &per_k[k]))
                        .collect(),
                ),
                shape,
            })
        }
        Material::File { path, qp, qs } => {
            let bytes = read_planes(path, n, planes.clone().map(|k| clamp(k, n[2])))?;
            // `bytes` holds the file's planes in the order asked for, one per grid plane
            let per_plane = n[0] * n[1] * 12;
            let at = |k: usize, j: usize, i: usize, f: usize| {
                let o = (k - planes.start) * per_plane
                    + 12 * (clamp(j, n[1]) * n[0] + clamp(i, n[0]))
                    + 4 * f;
                f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
            };
            let field = |f: usize| Planes::from_fn(&planes, plane, |k, j, i| at(k, j, i, f));
            let (vp, vs, rho) = (field(0), field(1), field(2));
            if let Some(bad) =
                vp.a.iter()
                    .zip(vs.a.iter())
                    .zip(rho.a.iter())
                    .find(|((p, s), r)| {
                        !(**p > 0.0 && **s > 0.0 && **r > 0.0 && **p * **p > 4.0 / 3.0 * **s * **s)
                    })
            {
                return Err(ConfigError::MaterialFile {
                    path: path.clone(),
                    why: format!(
                        "a point has Vp = {}, Vs = {}, ρ = {}: all must be positive and Vp > Vs·√(4/3)",
                        bad.0.0, bad.0.1, bad.1
                    ),
                });
            }
            Ok(Fields {
                vp,
                vs,
                rho,
                q: anelastic.then(|| (constant(inverse(*qp)), constant(inverse(*qs)))),
                layered: None,
                shape,
            })
        }
    }
}

/// The planes `ks` (interior depth indices, in order) of the material file at `path` for
/// a grid of `n` interior points: three little-endian f32 (Vp, Vs, ρ) per point, x
/// fastest, then y, then z. Checks the file's size first.
fn read_planes(
    path: &std::path::Path,
    n: [usize; 3],
    ks: impl Iterator<Item = usize>,
) -> Result<Vec<u8>, ConfigError> {
    use std::io::{Read, Seek, SeekFrom};
    let err = |why: String| ConfigError::MaterialFile {
        path: path.to_path_buf(),
        why,
    };
    let mut file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let len = file.metadata().map_err(|e| err(e.to_string()))?.len() as usize;
    let per_plane = n[0] * n[1] * 12;
    if len != per_plane * n[2] {
        return Err(err(format!(
            "{len} bytes, but a {}×{}×{} grid needs {} (three f32 per point)",
            n[0],
            n[1],
            n[2],
            per_plane * n[2]
        )));
    }
    let mut out = Vec::new();
    for k in ks {
        let at = out.len();
        out.resize(at + per_plane, 0);
        file.seek(SeekFrom::Start((k * per_plane) as u64))
            .and_then(|_| file.read_exact(&mut out[at..]))
            .map_err(|e| err(format!("plane {k}: {e}")))?;
    }
    Ok(out)
}

/// λ/(λ + 2μ) at the free surface, `[ny + 4, nx + 4]`, from the material of its plane
/// (`surface` holds plane [`HALO`]), `s` = dt/h. With attenuation, of the unrelaxed
/// moduli exactly as [`anelastic`] makes them (the same roundings to f32).
fn free_surface(surface: &Fields, s: f64, relaxation: Option<&Relaxation>) -> Array2<f32> {
    let (_, ny, nx) = surface.shape;
    let k = HALO;
    Array2::from_shape_fn((ny, nx), |(j, i)| match relaxation {
        None => {
            let (l, m) = (surface.lam(k, j, i), surface.mu(k, j, i));
            (l / (l + 2.0 * m)) as f32
        }
        Some(r) => {
            let (lam_u, l2m_u) = unrelaxed_node(r, surface, surface.moduli(s, k, j, i), k, j, i);
            lam_u / l2m_u
        }
    })
}

/// The unrelaxed dt/h·λ and dt/h·(λ + 2μ) of node (k, j, i) from its elastic ones
/// (`(lam, l2m)`, f32 as the arrays hold them), by its cell's factors for its 1/Qp and
/// 1/Qs in `f` ([`Relaxation::cell_unrelaxed`]; 2μ = l2m − lam). [`anelastic`] and
/// [`free_surface`] both use it, so the surface's λ/(λ + 2μ) is that of the arrays.
fn unrelaxed_node(
    r: &Relaxation,
    f: &Fields,
    (lam, l2m): (f32, f32),
    k: usize,
    j: usize,
    i: usize,
) -> (f32, f32) {
    let c = cell_of(k, j, i);
    let l2m_u = (l2m as f64 * r.cell_unrelaxed(f.qpi(k, j, i), c)) as f32;
    let mu2 = l2m - lam;
    (
        l2m_u - (mu2 as f64 * r.cell_unrelaxed(f.qsi(k, j, i), c)) as f32,
        l2m_u,
    )
}

/// The effective material of one grid node of a layered model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellMaterial {
    /// P and S velocity (m/s) and density (kg/m³).
    pub vp: f32,
    pub vs: f32,
    pub rho: f32,
    /// 1/Qp and 1/Qs (0 without attenuation).
    pub qpi: f32,
    pub qsi: f32,
    /// C13 − C12 and C33 − C11 (Pa) of the averaged cell; 0 inside a layer.
    pub c13_c12: f64,
    pub c33_c11: f64,
}

/// The material of the node at depth `z` (m) on a grid of spacing `h`: the `layers`
/// (the last one extends down for ever) averaged over the node's cell, depths
/// [z − h/2, z + h/2] clipped at the free surface z = 0, as the effective medium of
/// thin layers (Backus 1962, JGR 67(11)): density and 1/Q arithmetically, and of the
/// transversely isotropic stiffness the in-plane moduli
/// C66 = ⟨μ⟩, C11 = ⟨M − λ²/M⟩ + ⟨λ/M⟩²·C33 and C12 = C11 − 2·C66, and across them
/// C33 = ⟨1/M⟩⁻¹ and C13 = ⟨λ/M⟩·C33 (M = λ + 2μ). The node's isotropic λ + 2μ and μ
/// are C11 and C66; `c13_c12` and `c33_c11` carry the rest, which the stress nests add
/// for the normal stresses' z terms ([`Medium::dlam`], [`Medium::dl2m`]). The xy nodes
/// lie at the node's depth, so their harmonic mean of four equal node values is C66 too.
/// C44 = ⟨1/μ⟩⁻¹ is at the xz and yz nodes (see [`staggered`]). So a planar interface, on a node or
/// between nodes, acts as the thin-layer medium it is to first order in h.
///
/// A node whose cell lies in one layer gets that layer. Without this a node took the
/// layer at its own depth, and the staggered averages then put an interface that falls
/// on a node half a cell too shallow: LOH.1's 1000 m layer behaved as 1000 − h/2 m, and
/// its waves arrived early (issue #18; see the README's comparison with FK). Isotropic
/// averages cannot serve both directions: harmonic averages of μ and of the bulk modulus
/// (Moczo et al. 2002) made the in-plane shear of an interface node too soft (at 50 m,
/// LOH.1's transverse wave at 10 km and 37° azimuth came 10 ms late); C11 and C66 alone
/// made its vertical stiffness too high (the radial and vertical waves came 5 ms early).
pub fn cell_average(layers: &[crate::config::Layer], z: f64, h: f64) -> CellMaterial {
    let cell = overlaps(layers, (z - 0.5 * h).max(0.0), z + 0.5 * h);
    if let [(_, l)] = cell.as_slice() {
        // inside one layer: its values as given
        return CellMaterial {
            vp: l.vp as f32,
            vs: l.vs as f32,
            rho: l.rho as f32,
            qpi: inverse(l.qp),
            qsi: inverse(l.qs),
            c13_c12: 0.0,
            c33_c11: 0.0,
        };
    }
    let (mut rho, mut mu, mut qpi, mut qsi) = (0.0, 0.0, 0.0, 0.0);
    // ⟨1/M⟩, ⟨λ/M⟩, ⟨M − λ²/M⟩
    let (mut inv_m, mut l_m, mut m_l2) = (0.0, 0.0, 0.0);
    for (w, l) in cell {
        let m = l.rho * l.vp * l.vp;
        let mu_l = l.rho * l.vs * l.vs;
        let lam = m - 2.0 * mu_l;
        rho += w * l.rho;
        mu += w * mu_l;
        inv_m += w / m;
        l_m += w * lam / m;
        m_l2 += w * (m - lam * lam / m);
        qpi += w * inverse(l.qp) as f64;
        qsi += w * inverse(l.qs) as f64;
    }
    let c33 = 1.0 / inv_m;
    let c11 = m_l2 + l_m * l_m * c33;
    let (c12, c13) = (c11 - 2.0 * mu, l_m * c33);
    CellMaterial {
        vp: (c11 / rho).sqrt() as f32,
        vs: (mu / rho).sqrt() as f32,
        rho: rho as f32,
        qpi: qpi as f32,
        qsi: qsi as f32,
        c13_c12: c13 - c12,
        c33_c11: c33 - c11,
    }
}

/// Turns the elastic moduli in `m`, which hold at the reference frequency, into the
/// unrelaxed moduli of an anelastic run, and returns the memory-variable coefficients
/// (see [`Anelastic`]), given 1/Qp and 1/Qs at every node.
///
/// Every stress point takes its own cell's defect ([`Relaxation::cell_defect`]) and
/// unrelaxed modulus ([`Relaxation::cell_unrelaxed`]), for the 1/Q its memory variable
/// uses: at a node, the node's 1/Qp for λ + 2μ and 1/Qs for μ; at an xy, xz or yz point,
/// the mean 1/Qs of its four nodes for μ̄.
fn anelastic(m: &mut Medium, f: &Fields, r: Relaxation, dt: f64) -> Anelastic {
    let shape = f.shape;
    let mean = |v: [f64; 4]| v.iter().sum::<f64>() / 4.0;
    let make = |g: &dyn Fn(usize, usize, usize) -> f64| {
        SlabArray3::from_fn(shape, HALO, |(k, j, i)| g(k, j, i) as f32)
    };
    // 1/Q at each stress point: normal stresses at the nodes, shear ones the mean of
    // their four nodes
    let qi_xy = |k: usize, j: usize, i: usize| {
        let im = i.saturating_sub(1);
        mean([
            f.qsi(k, j, im),
            f.qsi(k, j, i),
            f.qsi(k, j + 1, im),
            f.qsi(k, j + 1, i),
        ])
    };
    let qi_xz = |k: usize, j: usize, i: usize| {
        let im = i.saturating_sub(1);
        mean([
            f.qsi(k, j, im),
            f.qsi(k, j, i),
            f.qsi(k + 1, j, im),
            f.qsi(k + 1, j, i),
        ])
    };
    let qi_yz = |k: usize, j: usize, i: usize| {
        mean([
            f.qsi(k, j, i),
            f.qsi(k, j + 1, i),
            f.qsi(k + 1, j, i),
            f.qsi(k + 1, j + 1, i),
        ])
    };
    // the elastic arrays hold dt/h·modulus, 2μ at a node being l2m − lam; each gives the
    // memory variable's defect and the unrelaxed modulus of its cell
    let defect = |a: &SlabArray3<f32>, qi: &dyn Fn(usize, usize, usize) -> f64| {
        make(&|k, j, i| a[[k, j, i]] as f64 * r.cell_defect(qi(k, j, i), cell_of(k, j, i)))
    };
    let unrelaxed = |a: &SlabArray3<f32>, qi: &dyn Fn(usize, usize, usize) -> f64| {
        make(&|k, j, i| a[[k, j, i]] as f64 * r.cell_unrelaxed(qi(k, j, i), cell_of(k, j, i)))
    };
    let mu2 = m.l2m.zip_with(&m.lam, |l2m, lam| l2m - lam);
    let (p, s) = (|k, j, i| f.qpi(k, j, i), |k, j, i| f.qsi(k, j, i));
    let (qn, qsn) = (defect(&m.l2m, &p), defect(&mu2, &s));
    let (qxy, qxz, qyz) = (
        defect(&m.mxy, &qi_xy),
        defect(&m.mxz, &qi_xz),
        defect(&m.myz, &qi_yz),
    );
    let node = |k, j, i| unrelaxed_node(&r, f, (m.lam[[k, j, i]], m.l2m[[k, j, i]]), k, j, i);
    let lam = SlabArray3::from_fn(shape, HALO, |(k, j, i)| node(k, j, i).0);
    m.l2m = SlabArray3::from_fn(shape, HALO, |(k, j, i)| node(k, j, i).1);
    m.lam = lam;
    m.mxy = unrelaxed(&m.mxy, &qi_xy);
    m.mxz = unrelaxed(&m.mxz, &qi_xz);
    m.myz = unrelaxed(&m.myz, &qi_yz);
    let tau1 = make(&|k, j, i| 1.0 / (r.tau[cell_of(k, j, i)] / dt + 0.5));
    let tau2 = make(&|k, j, i| r.tau[cell_of(k, j, i)] / dt - 0.5);
    Anelastic {
        qn,
        qsn,
        qxy,
        qxz,
        qyz,
        tau1,
        tau2,
        relaxation: r,
    }
}

/// The elastic coefficients ([`Medium`]) of this rank's planes from the material `f`
/// (which holds them and one plane more), on the padded grid of `shape`. The free
/// surface's `fsr` is left empty: [`free_surface`] fills it.
fn coefficients(
    f: &Fields,
    shape: (usize, usize, usize),
    h: f64,
    dt: f64,
    vp_max: f64,
    vs_min: f64,
    c: &Config,
) -> Medium {
    let layered = &f.layered;
    let nz = shape.0;
    let s = dt / h;
    let (mu, r) = (|k, j, i| f.mu(k, j, i), |k, j, i| f.rho(k, j, i));
    let harmonic = |m: [f64; 4]| harmonic4(m[0], m[1], m[2], m[3]);
    let make = |g: &dyn Fn(usize, usize, usize) -> f64| {
        SlabArray3::from_fn(shape, HALO, |(k, j, i)| g(k, j, i) as f32)
    };
    let d1 = make(&|k, j, i| s / mean2(r(k, j, i), r(k, j, i.saturating_sub(1))));
    let d2 = make(&|k, j, i| s / mean2(r(k, j, i), r(k, j + 1, i)));
    let d3 = make(&|k, j, i| match &layered {
        Some(p) => s / p[k].rho_z,
        None => s / mean2(r(k, j, i), r(k + 1, j, i)),
    });
    let lam_a = SlabArray3::from_fn(shape, HALO, |(k, j, i)| f.moduli(s, k, j, i).0);
    let l2m = SlabArray3::from_fn(shape, HALO, |(k, j, i)| f.moduli(s, k, j, i).1);
    let mxy = make(&|k, j, i| {
        let im = i.saturating_sub(1);
        s * harmonic([mu(k, j, im), mu(k, j, i), mu(k, j + 1, im), mu(k, j + 1, i)])
    });
    let mxz = make(&|k, j, i| {
        if let Some(p) = &layered {
            return s * p[k].mu_z;
        }
        let im = i.saturating_sub(1);
        s * harmonic([mu(k, j, im), mu(k, j, i), mu(k + 1, j, im), mu(k + 1, j, i)])
    });
    let myz = make(&|k, j, i| {
        if let Some(p) = &layered {
            return s * p[k].mu_z;
        }
        s * harmonic([
            mu(k, j, i),
            mu(k, j + 1, i),
            mu(k + 1, j, i),
            mu(k + 1, j + 1, i),
        ])
    });
    Medium {
        d1,
        d2,
        d3,
        lam: lam_a,
        l2m,
        mxy,
        mxz,
        myz,
        sponge: sponge(shape, c),
        fsr: Array2::zeros((0, 0)),
        dlam: Array1::from_shape_fn(nz, |k| {
            layered.as_ref().map_or(0.0, |p| s * p[k].c13_c12) as f32
        }),
        dl2m: Array1::from_shape_fn(nz, |k| {
            layered.as_ref().map_or(0.0, |p| s * p[k].c33_c11) as f32
        }),
        anelastic: None,
        vp_max,
        vs_min,
    }
}

/// Cerjan et al. (1985): each step, fields within `width` points of the sides and the
/// bottom are multiplied by exp(−(α·(width − d))²), d the distance in points from the
/// edge (fractional for staggered points), α chosen so that the outermost point gets
/// `edge_factor`. No damping at the free surface.
fn sponge(shape: (usize, usize, usize), c: &Config) -> Sponge {
    let (nz, ny, nx) = shape;
    let w = c.sponge.width as f64;
    let alpha = (-c.sponge.edge_factor.ln()).sqrt() / w;
    let g = |d: f64| {
        if d >= w {
            1.0
        } else {
            (-(alpha * (w - d)).powi(2)).exp()
        }
    };
    // the factor at position p (in points from the first interior point) on an axis of
    // `len` array points, damped at both ends or only at the high end
    let axis = |len: usize, off: f64, both: bool| {
        let last = (len - 1 - 2 * HALO) as f64;
        Array1::from_shape_fn(len, |i| {
            let p = (i as f64 - HALO as f64 + off).clamp(0.0, last);
            let lo = if both { g(p) } else { 1.0 };
            (lo * g(last - p)) as f32
        })
    };
    Sponge {
        x: axis(nx, 0.0, true),
        xs: axis(nx, -0.5, true),
        y: axis(ny, 0.0, true),
        ys: axis(ny, 0.5, true),
        z: axis(nz, 0.0, false),
        zs: axis(nz, 0.5, false),
    }
}

/// Index along one axis of position `p` (m) on a grid staggered by `off` steps.
fn continuous(p: f64, h: f64, off: f64) -> f64 {
    p / h - off + HALO as f64
}

fn sources(c: &Config, n: [usize; 3], h: f64, dt: f64, nsteps: usize) -> Sources {
    let mut comp = Vec::new();
    let mut idx = Vec::new();
    let mut amp = Vec::new();
    let mut src = Vec::new();
    let upper = [n[0] + HALO - 1, n[1] + HALO - 1, n[2] + HALO - 1];
    for (s, so) in c.sources.iter().enumerate() {
        for (cc, m) in so.moment.components().into_iter().enumerate() {
            if m == 0.0 {
                continue;
            }
            // the point moment is shared among the (up to 8) nodes of its component's
            // staggered grid around it with trilinear weights, which keep its total and
            // its centroid: Mxy of a source on a normal-stress node goes ¼ to each of the
            // four xy nodes around it, half a cell away in x and y (rounding to the
            // nearest of them moved LOH.1's source h/2 towards the north-east)
            for (g, w) in stencil_weights(so.location, STRESS_OFFSETS[cc], h, upper) {
                comp.push(cc as i32);
                idx.extend([g[2] as i32, g[1] as i32, g[0] as i32]);
                // ∂σ/∂t = … − Ṁ δ(x − xs): over one step, −M·rate·dt spread over one cell
                amp.push((-m * w * dt / (h * h * h)) as f32);
                src.push(s as i32);
            }
        }
    }
    let ne = comp.len();
    let stf = Array2::from_shape_fn((nsteps, c.sources.len()), |(t, s)| {
        c.sources[s].stf.rate((t as f64 + 0.5) * dt) as f32
    });
    Sources {
        comp,
        idx: Array2::from_shape_vec((ne, 3), idx).expect("three indices per entry"),
        amp,
        src,
        stf,
    }
}

/// The nodes (x, y, z array indices) of a grid staggered by `off` steps around the
/// point `p` (m) and their trilinear weights (summing to 1), indices clamped to
/// `HALO..=upper`; nodes that clamp together are merged and zero weights dropped, so
/// each node appears once.
pub fn stencil_weights(
    p: [f64; 3],
    off: [f64; 3],
    h: f64,
    upper: [usize; 3],
) -> Vec<([usize; 3], f64)> {
    let f = [0, 1, 2].map(|a| continuous(p[a], h, off[a]));
    let base = f.map(f64::floor);
    let mut out: Vec<([usize; 3], f64)> = Vec::with_capacity(8);
    for corner in 0..8 {
        let mut w = 1.0;
        let mut g = [0usize; 3];
        for a in 0..3 {
            let up = (corner >> a) & 1 == 1;
            let frac = f[a] - base[a];
            w *= if up { frac } else { 1.0 - frac };
            let i = base[a] as i64 + up as i64;
            g[a] = (i.max(HALO as i64) as usize).min(upper[a]);
        }
        if w <= 1e-12 {
            continue;
        }
        match out.iter_mut().find(|(q, _)| *q == g) {
            Some((_, v)) => *v += w,
            None => out.push((g, w)),
        }
    }
    out
}

fn receivers(c: &Config, n: [usize; 3], h: f64) -> Receivers {
    let nr = c.receivers.len();
    let mut idx = Array2::zeros((nr, 9));
    let mut frac = Array2::zeros((nr, 9));
    let upper = [n[0] + HALO - 1, n[1] + HALO - 1, n[2] + HALO - 1];
    for (r, rec) in c.receivers.iter().enumerate() {
        for (comp, off) in VELOCITY_OFFSETS.iter().enumerate() {
            for a in 0..3 {
                let f = continuous(rec.location[a], h, off[a]);
                // the lower corner; a receiver at the surface reads w1 between its ghost
                // (k = HALO − 1, at −h/2) and the first interior value
                let lowest = if a == 2 { HALO - 1 } else { HALO };
                let base = (f.floor() as usize).clamp(lowest, upper[a] - 1);
                let w = (f - base as f64).clamp(0.0, 1.0);
                // idx holds (k, j, i) for each component: axis a = 0 (x) goes last
                idx[[r, 3 * comp + (2 - a)]] = base as i32;
                frac[[r, 3 * comp + (2 - a)]] = w as f32;
            }
        }
    }
    Receivers {
        names: c.receivers.iter().map(|r| r.name.clone()).collect(),
        locations: c.receivers.iter().map(|r| r.location).collect(),
        idx,
        frac,
    }
}
