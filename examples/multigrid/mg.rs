//! Geometric multigrid for −Δu = f on the unit cube with u = 0 on the boundary (issue
//! #16, seed 002, Lücke): red-black Gauss-Seidel smoothing, the residual, full-weighting
//! restriction and trilinear prolongation, each a Mint kernel, in V-cycles and full
//! multigrid (FMG).
//!
//! **The grids.** Level 0 has n = 2^k + 1 points per side (h = 1/(n − 1)); level ℓ + 1
//! has (n_ℓ + 1)/2, down to 3 points (one unknown). All levels of one quantity live in
//! one flat array, level ℓ at offset [`Hierarchy::offset`], each level in `[z, y, x]`
//! order: `u[o + (z·n + y)·n + x]`. One region holds the three arrays (`u`, `f`, the
//! residual `r`) and the exact solution for the error, so a whole solve runs on the
//! device with no transfer between cycles; the kernels take a level's offset and size as
//! scalars. The stencil analyzer does not see a 3-D stencil through the flat index, so
//! these kernels read their neighbours from global memory (through the caches).
//!
//! **The problem** (a manufactured solution): u*(x, y, z) = sin(πx)·sin(πy)·sin(πz),
//! f = 3π²·u*. The 7-point Laplacian's discretization error falls as h².

use mint::Real;

/// The levels of a grid of 2^k + 1 points per side: sizes and offsets into the flat
/// arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    /// Points per side of each level, finest first: 2^k + 1, 2^(k−1) + 1, …, 3.
    pub n: Vec<usize>,
    /// Offset of each level in the flat arrays, in elements.
    pub offset: Vec<usize>,
    /// Elements of a flat array (all levels).
    pub len: usize,
}

impl Hierarchy {
    /// The hierarchy of a grid with 2^k + 1 points per side, k ≥ 1.
    ///
    /// # Errors
    /// When k is 0 or above 10 (1025³ points).
    pub fn new(k: u32) -> Result<Hierarchy, String> {
        if !(1..=10).contains(&k) {
            return Err(format!(
                "2^k + 1 points per side needs k from 1 to 10, not {k}"
            ));
        }
        let mut n = Vec::new();
        let mut offset = Vec::new();
        let mut len = 0;
        for j in (1..=k).rev() {
            let m = (1usize << j) + 1;
            n.push(m);
            offset.push(len);
            len += m * m * m;
        }
        Ok(Hierarchy { n, offset, len })
    }

    /// The number of levels.
    pub fn levels(&self) -> usize {
        self.n.len()
    }

    /// Mesh width of level `l`.
    pub fn h(&self, l: usize) -> f64 {
        1.0 / (self.n[l] - 1) as f64
    }

    /// The exact solution u* at grid point (z, y, x) of level `l`.
    pub fn exact(&self, l: usize, z: usize, y: usize, x: usize) -> f64 {
        let h = self.h(l);
        let s = |i: usize| (std::f64::consts::PI * i as f64 * h).sin();
        s(z) * s(y) * s(x)
    }

    /// The flat arrays of a solve: `u` = 0, `f` = 3π²u* sampled on every level (FMG's
    /// coarse right-hand sides; a V-cycle overwrites the coarse levels with restricted
    /// residuals), `r` = 0, and u* on level 0.
    pub fn problem<T: Real>(&self) -> (Vec<T>, Vec<T>, Vec<T>, Vec<T>) {
        let mut f = vec![T::new(0.0); self.len];
        for l in 0..self.levels() {
            let (n, o) = (self.n[l], self.offset[l]);
            for z in 0..n {
                for y in 0..n {
                    for x in 0..n {
                        let v = 3.0 * std::f64::consts::PI.powi(2) * self.exact(l, z, y, x);
                        f[o + (z * n + y) * n + x] = T::new(v);
                    }
                }
            }
        }
        let n = self.n[0];
        let mut ex = vec![T::new(0.0); n * n * n];
        for z in 0..n {
            for y in 0..n {
                for x in 0..n {
                    ex[(z * n + y) * n + x] = T::new(self.exact(0, z, y, x));
                }
            }
        }
        (
            vec![T::new(0.0); self.len],
            f,
            vec![T::new(0.0); self.len],
            ex,
        )
    }
}

/// One Gauss-Seidel update of point `i` of a level with `n` points per side (mesh width
/// squared `h2`), over-relaxed by `w`: u + w·(g − u), where g makes the 7-point equation
/// −Δu = f hold there (w = 1: Gauss-Seidel).
#[mint::device]
pub fn relax<T: Real>(u: &Vec<T>, f: &Vec<T>, i: usize, n: usize, h2: T, w: T) -> T {
    let g = (h2 * f[i] + u[i - 1] + u[i + 1] + u[i - n] + u[i + n] + u[i - n * n] + u[i + n * n])
        / T::new(6.0);
    u[i] + w * (g - u[i])
}

/// h²·(−Δu) at point `i` of a level with `n` points per side (7-point stencil).
#[mint::device]
pub fn neg_laplacian<T: Real>(u: &Vec<T>, i: usize, n: usize) -> T {
    T::new(6.0) * u[i] - u[i - 1] - u[i + 1] - u[i - n] - u[i + n] - u[i - n * n] - u[i + n * n]
}

/// Trilinear interpolation at fine point (z, y, x) from the coarse level at offset `oc`
/// with `nc` points per side (coarse point j sits at fine point 2j): the mean of the 8
/// coarse points (z/2 or (z+1)/2, the same for y and x), which is the coarse value, the
/// mean of 2, 4 or 8 neighbours as the fine point lies on a coarse point, edge, face or
/// cell.
#[mint::device]
#[allow(clippy::manual_div_ceil)] // the kernel language has no `div_ceil`
pub fn interpolate<T: Real>(u: &Vec<T>, oc: usize, nc: usize, z: usize, y: usize, x: usize) -> T {
    let za = z / 2;
    let zb = (z + 1) / 2;
    let ya = y / 2;
    let yb = (y + 1) / 2;
    let xa = x / 2;
    let xb = (x + 1) / 2;
    let s = u[oc + (za * nc + ya) * nc + xa]
        + u[oc + (za * nc + ya) * nc + xb]
        + u[oc + (za * nc + yb) * nc + xa]
        + u[oc + (za * nc + yb) * nc + xb]
        + u[oc + (zb * nc + ya) * nc + xa]
        + u[oc + (zb * nc + ya) * nc + xb]
        + u[oc + (zb * nc + yb) * nc + xa]
        + u[oc + (zb * nc + yb) * nc + xb];
    T::new(0.125) * s
}

/// Full weighting at coarse point (z, y, x) of the fine level at offset `of` with `nf`
/// points per side: the 27 fine points around fine point (2z, 2y, 2x), weighted
/// (2 − |dz|)(2 − |dy|)(2 − |dx|)/64.
#[mint::device]
pub fn restrict<T: Real>(r: &Vec<T>, of: usize, nf: usize, z: usize, y: usize, x: usize) -> T {
    let mut s = T::new(0.0);
    for dz in 0..3usize {
        let wz = if dz == 1 { T::new(2.0) } else { T::new(1.0) };
        for dy in 0..3usize {
            let wy = if dy == 1 { T::new(2.0) } else { T::new(1.0) };
            for dx in 0..3usize {
                let wx = if dx == 1 { T::new(2.0) } else { T::new(1.0) };
                let j = of + ((2 * z + dz - 1) * nf + 2 * y + dy - 1) * nf + 2 * x + dx - 1;
                s += wz * wy * wx * r[j];
            }
        }
    }
    s / T::new(64.0)
}

/// What [`solve`] runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Start with one FMG cycle (then `cycles` V-cycles).
    pub fmg: bool,
    /// V-cycles after the FMG cycle (or from u = 0).
    pub cycles: usize,
    /// Red-black sweeps before each restriction.
    pub pre: usize,
    /// Red-black sweeps after each prolongation.
    pub post: usize,
    /// Over-relaxation factor of the smoother (1: Gauss-Seidel).
    pub omega: f64,
}

/// Red-black Gauss-Seidel sweeps on the coarsest level (3³ points: one unknown, which one
/// sweep solves exactly).
const COARSE_SWEEPS: usize = 2;

/// One step of a multigrid schedule; [`solve`] runs each with one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A sweep of one color (x + y + z ≡ `color` mod 2) on `level`, over-relaxed by the
    /// plan's ω, or plain Gauss-Seidel (`gs`) on the coarsest level.
    Sweep {
        level: usize,
        color: usize,
        gs: bool,
    },
    /// r_l = f_l + Δu_l.
    Residual(usize),
    /// f_(l+1) = full weighting of r_l.
    Restrict(usize),
    /// u_l = 0.
    Zero(usize),
    /// u_l += trilinear interpolation of u_(l+1).
    Prolong(usize),
    /// The residual's norm and the error on level 0, into the history.
    Measure,
}

fn sweeps(out: &mut Vec<Step>, level: usize, count: usize, gs: bool) {
    for _ in 0..count {
        for color in 0..2 {
            out.push(Step::Sweep { level, color, gs });
        }
    }
}

/// One V-cycle from level `top` down to the coarsest of `levels`.
fn v_cycle(out: &mut Vec<Step>, top: usize, levels: usize, plan: &Plan) {
    for l in top..levels - 1 {
        sweeps(out, l, plan.pre, false);
        out.extend([Step::Residual(l), Step::Restrict(l), Step::Zero(l + 1)]);
    }
    sweeps(out, levels - 1, COARSE_SWEEPS, true);
    for l in (top..levels - 1).rev() {
        out.push(Step::Prolong(l));
        sweeps(out, l, plan.post, false);
    }
}

/// The steps of `plan` on `levels` levels: FMG (solve the coarsest level; for each finer
/// level, interpolate the coarser solution and run one V-cycle from it), then V-cycles
/// from level 0, each followed by [`Step::Measure`]. The schedule is plain host code;
/// the region only runs it.
pub fn schedule(levels: usize, plan: &Plan) -> Vec<Step> {
    let mut out = Vec::new();
    if plan.fmg {
        sweeps(&mut out, levels - 1, COARSE_SWEEPS, true);
        for top in (0..levels - 1).rev() {
            out.extend([Step::Zero(top), Step::Prolong(top)]);
            v_cycle(&mut out, top, levels, plan);
        }
        out.push(Step::Measure);
    }
    for _ in 0..plan.cycles {
        v_cycle(&mut out, 0, levels, plan);
        out.push(Step::Measure);
    }
    out
}

/// Solves on the hierarchy `hi` with the flat arrays of [`Hierarchy::problem`], running
/// [`schedule`], and returns, after the FMG cycle (if any) and after each V-cycle, the
/// residual's 2-norm on level 0 scaled by h^(3/2) (the discrete L2 norm) and the largest
/// error |u − u*| on level 0. `u` holds the solution afterwards (every level; level 0 is
/// the answer).
///
/// # Errors
/// The runtime's: no device, out of device memory, a launch failure.
pub fn solve<T: Real>(
    u: &mut Vec<T>,
    f: &mut Vec<T>,
    r: &mut Vec<T>,
    ex: &Vec<T>,
    hi: &Hierarchy,
    plan: Plan,
) -> mint::Result<Vec<(T, T)>> {
    run(u, f, r, ex, hi, &schedule(hi.levels(), &plan), plan.omega)
}

/// `sweeps` red-black sweeps on level 0 alone: the smoother on its own, for its rate
/// (`examples/multigrid` times it with CUDA events).
pub fn smoothing(sweeps_on_0: usize) -> Vec<Step> {
    let mut out = Vec::new();
    sweeps(&mut out, 0, sweeps_on_0, false);
    out
}

/// Runs `steps` (ω = `omega`) on the flat arrays of [`Hierarchy::problem`], one kernel per
/// step, and returns what each [`Step::Measure`] measured ([`solve`]).
///
/// # Errors
/// The runtime's: no device, out of device memory, a launch failure.
#[mint::parallel]
pub fn run<T: Real>(
    u: &mut Vec<T>,
    f: &mut Vec<T>,
    r: &mut Vec<T>,
    ex: &Vec<T>,
    hi: &Hierarchy,
    steps: &[Step],
    omega: f64,
) -> mint::Result<Vec<(T, T)>> {
    let omega = T::new(omega);
    mint::copy!(u, to_device);
    mint::copy!(f, to_device);
    mint::copy!(r, to_device);
    mint::copy!(ex, to_device);
    let mut history = Vec::new();
    for &step in steps {
        if let Step::Sweep { level, color, gs } = step {
            let (n, o, c) = (hi.n[level], hi.offset[level], color);
            let h2 = T::new(hi.h(level).powi(2));
            let w = if gs { T::new(1.0) } else { omega };
            #[mint::r#for(nest(all), tile(32, 4, 1))]
            for z in 1..n - 1 {
                for y in 1..n - 1 {
                    for x in 1..n - 1 {
                        if (x + y + z) % 2 == c {
                            let i = o + (z * n + y) * n + x;
                            u[i] = relax(&u, &f, i, n, h2, w);
                        }
                    }
                }
            }
        } else if let Step::Residual(l) = step {
            let (n, o) = (hi.n[l], hi.offset[l]);
            let ih2 = T::new(hi.h(l).powi(-2));
            #[mint::r#for(nest(all), tile(32, 4, 1))]
            for z in 1..n - 1 {
                for y in 1..n - 1 {
                    for x in 1..n - 1 {
                        let i = o + (z * n + y) * n + x;
                        r[i] = f[i] - ih2 * neg_laplacian(&u, i, n);
                    }
                }
            }
        } else if let Step::Restrict(l) = step {
            let (nf, of) = (hi.n[l], hi.offset[l]);
            let (nc, oc) = (hi.n[l + 1], hi.offset[l + 1]);
            #[mint::r#for(nest(all), tile(32, 4, 1))]
            for z in 1..nc - 1 {
                for y in 1..nc - 1 {
                    for x in 1..nc - 1 {
                        f[oc + (z * nc + y) * nc + x] = restrict(&r, of, nf, z, y, x);
                    }
                }
            }
        } else if let Step::Zero(l) = step {
            let (n, o) = (hi.n[l], hi.offset[l]);
            #[mint::r#for]
            for i in o..o + n * n * n {
                u[i] = T::new(0.0);
            }
        } else if let Step::Prolong(l) = step {
            let (nf, of) = (hi.n[l], hi.offset[l]);
            let (nc, oc) = (hi.n[l + 1], hi.offset[l + 1]);
            #[mint::r#for(nest(all), tile(32, 4, 1))]
            for z in 1..nf - 1 {
                for y in 1..nf - 1 {
                    for x in 1..nf - 1 {
                        let c = interpolate(&u, oc, nc, z, y, x);
                        u[of + (z * nf + y) * nf + x] += c;
                    }
                }
            }
        } else {
            let n = hi.n[0];
            let ih2 = T::new(hi.h(0).powi(-2));
            let mut sum: T = T::new(0.0);
            #[mint::r#for(nest(all), tile(32, 4, 1), reduction(+: sum))]
            for z in 1..n - 1 {
                for y in 1..n - 1 {
                    for x in 1..n - 1 {
                        let i = (z * n + y) * n + x;
                        let v = f[i] - ih2 * neg_laplacian(&u, i, n);
                        sum += v * v;
                    }
                }
            }
            let mut err: T = T::new(0.0);
            #[mint::r#for(nest(all), tile(32, 4, 1), reduction(max: err))]
            for z in 1..n - 1 {
                for y in 1..n - 1 {
                    for x in 1..n - 1 {
                        let i = (z * n + y) * n + x;
                        err = err.max((u[i] - ex[i]).abs());
                    }
                }
            }
            let h = T::new(hi.h(0));
            history.push(((sum * h * h * h).sqrt(), err));
        }
    }
    mint::copy!(u, from_device);
    Ok(history)
}
