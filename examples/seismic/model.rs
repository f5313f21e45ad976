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

use crate::config::{Config, ConfigError, Material};
use ndarray::{Array1, Array2, Array3};

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
/// fields they update; all `[nz + 4, ny + 4, nx + 4]`.
pub struct Medium {
    /// dt/(h·ρ̄) at u1, v1, w1 (ρ averaged over the two neighbours).
    pub d1: Array3<f32>,
    pub d2: Array3<f32>,
    pub d3: Array3<f32>,
    /// dt/h·λ and dt/h·(λ + 2μ) at the normal stresses.
    pub lam: Array3<f32>,
    pub l2m: Array3<f32>,
    /// dt/h·μ̄ at xy, xz, yz (harmonic mean of the four neighbours).
    pub mxy: Array3<f32>,
    pub mxz: Array3<f32>,
    pub myz: Array3<f32>,
    /// The Cerjan damping, separable: the factor of a field at (x, y, z) is
    /// `sponge.x·sponge.y·sponge.z` evaluated at its staggered position.
    pub sponge: Sponge,
    /// λ/(λ + 2μ) at the free surface, `[ny + 4, nx + 4]`.
    pub fsr: Array2<f32>,
    pub vp_max: f64,
    pub vs_min: f64,
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
/// # Errors
/// [`ConfigError::Cfl`] when the step is unstable; [`ConfigError::MaterialFile`] for a
/// material file that cannot be read or has the wrong size; [`ConfigError::Value`] for a
/// grid too small for the sponge.
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
    let (vp, vs, rho) = material(c, n, h)?;
    let vp_max = vp.iter().fold(0.0f32, |m, &v| m.max(v)) as f64;
    let vs_min = vs.iter().fold(f32::INFINITY, |m, &v| m.min(v)) as f64;
    Config::check_cfl(h, dt, vp_max)?;
    let medium = coefficients(&vp, &vs, &rho, h, dt, vp_max, vs_min, c);
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

type Fields3 = (Array3<f32>, Array3<f32>, Array3<f32>);

/// Vp, Vs and ρ at every grid point, halo included (copied from the nearest interior
/// point).
fn material(c: &Config, n: [usize; 3], h: f64) -> Result<Fields3, ConfigError> {
    let shape = shape_of(n);
    let clamp = |v: usize, len: usize| v.clamp(HALO, len + HALO - 1) - HALO;
    match &c.material {
        Material::Homogeneous { vp, vs, rho } => Ok((
            Array3::from_elem(shape, *vp as f32),
            Array3::from_elem(shape, *vs as f32),
            Array3::from_elem(shape, *rho as f32),
        )),
        Material::Layered { layers } => {
            // the layer of each depth index
            let nzh = shape.0;
            let mut per_k = Vec::with_capacity(nzh);
            for k in 0..nzh {
                let z = clamp(k, n[2]) as f64 * h;
                let mut top = 0.0;
                let mut pick = layers.last().copied().expect("checked: at least one layer");
                for l in layers {
                    match l.thickness {
                        Some(t) if z < top + t => {
                            pick = *l;
                            break;
                        }
                        Some(t) => top += t,
                        None => {
                            pick = *l;
                            break;
                        }
                    }
                }
                per_k.push(pick);
            }
            Ok((
                Array3::from_shape_fn(shape, |(k, _, _)| per_k[k].vp as f32),
                Array3::from_shape_fn(shape, |(k, _, _)| per_k[k].vs as f32),
                Array3::from_shape_fn(shape, |(k, _, _)| per_k[k].rho as f32),
            ))
        }
        Material::File { path } => {
            let bytes = std::fs::read(path).map_err(|e| ConfigError::MaterialFile {
                path: path.clone(),
                why: e.to_string(),
            })?;
            let points = n[0] * n[1] * n[2];
            if bytes.len() != points * 12 {
                return Err(ConfigError::MaterialFile {
                    path: path.clone(),
                    why: format!(
                        "{} bytes, but a {}×{}×{} grid needs {} (three f32 per point)",
                        bytes.len(),
                        n[0],
                        n[1],
                        n[2],
                        points * 12
                    ),
                });
            }
            let at = |q: usize, f: usize| {
                let o = 12 * q + 4 * f;
                f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
            };
            let field = |f: usize| {
                Array3::from_shape_fn(shape, |(k, j, i)| {
                    let (k, j, i) = (clamp(k, n[2]), clamp(j, n[1]), clamp(i, n[0]));
                    at((k * n[1] + j) * n[0] + i, f)
                })
            };
            let (vp, vs, rho) = (field(0), field(1), field(2));
            if let Some(bad) = vp
                .iter()
                .zip(vs.iter())
                .zip(rho.iter())
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
            Ok((vp, vs, rho))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn coefficients(
    vp: &Array3<f32>,
    vs: &Array3<f32>,
    rho: &Array3<f32>,
    h: f64,
    dt: f64,
    vp_max: f64,
    vs_min: f64,
    c: &Config,
) -> Medium {
    let shape = vp.dim();
    let (nz, ny, nx) = shape;
    let s = dt / h;
    let mu = |k: usize, j: usize, i: usize| {
        let (k, j, i) = (k.min(nz - 1), j.min(ny - 1), i.min(nx - 1));
        rho[[k, j, i]] as f64 * (vs[[k, j, i]] as f64).powi(2)
    };
    let lam = |k: usize, j: usize, i: usize| {
        rho[[k, j, i]] as f64
            * ((vp[[k, j, i]] as f64).powi(2) - 2.0 * (vs[[k, j, i]] as f64).powi(2))
    };
    let r =
        |k: usize, j: usize, i: usize| rho[[k.min(nz - 1), j.min(ny - 1), i.min(nx - 1)]] as f64;
    let harmonic = |m: [f64; 4]| 4.0 / m.iter().map(|v| 1.0 / v).sum::<f64>();
    let f = |g: &dyn Fn(usize, usize, usize) -> f64| {
        Array3::from_shape_fn(shape, |(k, j, i)| g(k, j, i) as f32)
    };
    let d1 = f(&|k, j, i| s / (0.5 * (r(k, j, i) + r(k, j, i.saturating_sub(1)))));
    let d2 = f(&|k, j, i| s / (0.5 * (r(k, j, i) + r(k, j + 1, i))));
    let d3 = f(&|k, j, i| s / (0.5 * (r(k, j, i) + r(k + 1, j, i))));
    let lam_a = f(&|k, j, i| s * lam(k, j, i));
    let l2m = f(&|k, j, i| s * (lam(k, j, i) + 2.0 * mu(k, j, i)));
    let mxy = f(&|k, j, i| {
        let im = i.saturating_sub(1);
        s * harmonic([mu(k, j, im), mu(k, j, i), mu(k, j + 1, im), mu(k, j + 1, i)])
    });
    let mxz = f(&|k, j, i| {
        let im = i.saturating_sub(1);
        s * harmonic([mu(k, j, im), mu(k, j, i), mu(k + 1, j, im), mu(k + 1, j, i)])
    });
    let myz = f(&|k, j, i| {
        s * harmonic([
            mu(k, j, i),
            mu(k, j + 1, i),
            mu(k + 1, j, i),
            mu(k + 1, j + 1, i),
        ])
    });
    let fsr = Array2::from_shape_fn((ny, nx), |(j, i)| {
        let (l, m) = (lam(HALO, j, i), mu(HALO, j, i));
        (l / (l + 2.0 * m)) as f32
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
        fsr,
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
            let off = STRESS_OFFSETS[cc];
            let g = [0, 1, 2].map(|a| {
                (continuous(so.location[a], h, off[a]).round() as usize).clamp(HALO, upper[a])
            });
            comp.push(cc as i32);
            idx.extend([g[2] as i32, g[1] as i32, g[0] as i32]);
            // ∂σ/∂t = … − Ṁ δ(x − xs): over one step, −M·rate·dt spread over one cell
            amp.push((-m * dt / (h * h * h)) as f32);
            src.push(s as i32);
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
