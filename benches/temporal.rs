//! Temporal blocking (`#[mint::time_loop(block = k)]`, issue #45) on the GPU against the
//! step-by-step loop and the device-to-device copy, measured in the same run.
//!
//! ```text
//! cargo bench --bench temporal -- [--size 512] [--size2 8192] [--cardiac 4096] [--steps 60]
//!                                   [--reps 5] [--out DIR]
//!                                   [--only LIST] [--device D]...
//! ```
//!
//! For the 3-D heat equation (7 points, thesis Table 3.1) in f32 and f64, heat with a
//! variable coefficient and Poisson 19-point (Table 6.3) in f32 and f64, and the
//! radius-4 star in f32, and 2-D heat (5 points, Table 6.3) on a `size2²` grid in f32
//! (depths 1, 3, 5, 7) and f64 (1, 3, 5), and the cardiac model (Aliev-Panfilov,
//! `examples/cardiac`) on `cardiac²` points in f32 (1, 3, 5, 7) and f64 (1, 3, 5), against
//! the example's region and its fused kernel alone (4 words a point: E and R read and
//! written): the autotuned
//! step-by-step kernel (`mint_kernels`, level `tune`) and the blocked loop (depths 1, 3,
//! 5 and 7 for heat; 1 and 3 for the others; `block = auto` with `tune` for heat and
//! Poisson, whose warm-up run tunes the kernel at depth 1 and then chooses the depth; its
//! row's depth reads 0). Prints the median of `reps` runs of `steps`
//! steps: device ms per step (CUDA events around each launch), GPts/s (interior points ×
//! steps / s) and the multiple of the per-step copy bound (copy GB/s ÷ the words each
//! point reads and writes: 2 for heat and the star, 3 for Poisson's `u`, `b` and `u'`,
//! 4 for the variable coefficient's `u`, `b`, `κ` and `u'`).
//! Each blocked row is checked bitwise against the same loop at depth 1 over 7 steps,
//! and says so where it differs. `MINT_BENCH_DEPTHS=1,0` times only the blocked rows of
//! the depths listed (0: `block = auto`). `MINT_TIME_TILE=x,y,z[,rows]` sets the fused launch's
//! block and the tile rows per thread (by default `temporal::default_tile`: 32×32
//! tile, 64 planes, two rows per thread up to `depth × element bytes` of 32, fewer thread
//! rows where the rings would not fit).
//! `--only` takes a comma-separated list of `heat` (or `heat-f32`, `heat-f64`),
//! `heatvar`, `poisson`, `star`, `heat2d` and `cardiac`; all six by default. Writes
//! `DIR/temporal.json`.
//!
//! `--device D` (repeatable: `--device cuda:0 --device cuda:all`) runs every row on each
//! device in turn (`MINT_DEVICE`'s spellings) and prints each row's speed-up against the
//! first device's. A launch on several GPUs is timed on the host, from before its halo
//! exchange to the end of its slowest GPU (CUDA events cannot span GPUs); on one GPU with
//! CUDA events. The per-step bound stays one GPU's. Without `--device`, rows run on the
//! process's device (`MINT_DEVICE`).

use mint_kernels::{Level, heat2d, heat3d};
use ndarray::{Array2, Array3};

#[allow(dead_code)]
#[macro_use]
#[path = "../examples/cardiac/model.rs"]
mod model;

/// The cardiac model written to be blocked (`examples/cardiac/model.rs`), at depths 1, 3,
/// 5 and 7.
mod cardiac {
    use super::model::*;
    use mint::Real;
    use ndarray::Array2;
    blocked_model!(k1, [#[mint::time_loop(block = 1)]]);
    blocked_model!(k3, [#[mint::time_loop(block = 3)]]);
    blocked_model!(k5, [#[mint::time_loop(block = 5)]]);
    blocked_model!(k7, [#[mint::time_loop(block = 7)]]);
}

macro_rules! blocked {
    ($name:ident, $t:ty, $k:tt $(, $opt:ident)?) => {
        #[mint::parallel($($opt)?)]
        fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            #[mint::time_loop(block = $k)]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = 0.4 * u[[z, y, x]]
                                + 0.1
                                    * (u[[z, y, x - 1]]
                                        + u[[z, y, x + 1]]
                                        + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]]
                                        + u[[z - 1, y, x]]
                                        + u[[z + 1, y, x]]);
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

macro_rules! poisson {
    ($name:ident, $t:ty, $k:tt $(, $opt:ident)?) => {
        #[mint::parallel($($opt)?)]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            u: &mut Array3<$t>,
            unew: &mut Array3<$t>,
            b: &Array3<$t>,
            c0: $t,
            c1: $t,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(b, to_device);
            #[mint::time_loop(block = $k)]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = c0
                                * (b[[z, y, x]]
                                    + c1 * (u[[z, y, x - 1]]
                                        + u[[z, y, x + 1]]
                                        + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]]
                                        + u[[z - 1, y, x]]
                                        + u[[z + 1, y, x]])
                                    + u[[z, y - 1, x - 1]]
                                    + u[[z, y - 1, x + 1]]
                                    + u[[z, y + 1, x - 1]]
                                    + u[[z, y + 1, x + 1]]
                                    + u[[z - 1, y, x - 1]]
                                    + u[[z - 1, y, x + 1]]
                                    + u[[z + 1, y, x - 1]]
                                    + u[[z + 1, y, x + 1]]
                                    + u[[z - 1, y - 1, x]]
                                    + u[[z - 1, y + 1, x]]
                                    + u[[z + 1, y - 1, x]]
                                    + u[[z + 1, y + 1, x]]);
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

macro_rules! star4 {
    ($name:ident, $t:ty, $k:tt) => {
        #[mint::parallel(unroll)]
        fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            let coef = 1.0 / 24.0;
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            #[mint::time_loop(block = $k)]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 4..nz - 4 {
                    for y in 4..ny - 4 {
                        for x in 4..nx - 4 {
                            let mut s = 0.0;
                            for d in 1..5 {
                                s += u[[z, y, x - d]]
                                    + u[[z, y, x + d]]
                                    + u[[z, y - d, x]]
                                    + u[[z, y + d, x]]
                                    + u[[z - d, y, x]]
                                    + u[[z + d, y, x]];
                            }
                            unew[[z, y, x]] = coef * s - u[[z, y, x]];
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

macro_rules! heatvar {
    ($name:ident, $t:ty, $k:tt) => {
        #[mint::parallel]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            u: &mut Array3<$t>,
            unew: &mut Array3<$t>,
            b: &Array3<$t>,
            kappa: &Array3<$t>,
            c: $t,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(b, to_device);
            mint::copy!(kappa, to_device);
            #[mint::time_loop(block = $k)]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            let uc = u[[z, y, x]];
                            let kc = kappa[[z, y, x]];
                            unew[[z, y, x]] = uc
                                + b[[z, y, x]]
                                + c * ((kc + kappa[[z, y, x + 1]]) * (u[[z, y, x + 1]] - uc)
                                    - (kc + kappa[[z, y, x - 1]]) * (uc - u[[z, y, x - 1]])
                                    + (kc + kappa[[z, y + 1, x]]) * (u[[z, y + 1, x]] - uc)
                                    - (kc + kappa[[z, y - 1, x]]) * (uc - u[[z, y - 1, x]])
                                    + (kc + kappa[[z + 1, y, x]]) * (u[[z + 1, y, x]] - uc)
                                    - (kc + kappa[[z - 1, y, x]]) * (uc - u[[z - 1, y, x]]));
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

heatvar!(heatvar32_k1, f32, 1);
heatvar!(heatvar32_k3, f32, 3);
heatvar!(heatvar64_k1, f64, 1);
heatvar!(heatvar64_k3, f64, 3);
poisson!(poisson32_k1, f32, 1);
poisson!(poisson32_k3, f32, 3);
poisson!(poisson64_k1, f64, 1);
poisson!(poisson64_k3, f64, 3);
poisson!(poisson32_auto, f32, auto, tune);
poisson!(poisson64_auto, f64, auto, tune);
star4!(star32_k1, f32, 1);
star4!(star32_k3, f32, 3);

blocked!(heat32_k1, f32, 1);
blocked!(heat32_k3, f32, 3);
blocked!(heat32_k5, f32, 5);
blocked!(heat32_k7, f32, 7);
blocked!(heat64_k1, f64, 1);
blocked!(heat64_k3, f64, 3);
blocked!(heat64_k5, f64, 5);
blocked!(heat32_auto, f32, auto, tune);
blocked!(heat64_auto, f64, auto, tune);

/// 2-D heat, 5 points (thesis Table 6.3, `mint_kernels::heat2d`), blocked at depth `$k`.
macro_rules! heat2 {
    ($name:ident, $t:ty, $k:tt) => {
        #[mint::parallel]
        fn $name(u: &mut Array2<$t>, unew: &mut Array2<$t>, steps: usize) -> mint::Result<()> {
            let (ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            #[mint::time_loop(block = $k)]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        unew[[y, x]] = 0.6 * u[[y, x]]
                            + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

heat2!(heat2d32_k1, f32, 1);
heat2!(heat2d32_k3, f32, 3);
heat2!(heat2d32_k5, f32, 5);
heat2!(heat2d32_k7, f32, 7);
heat2!(heat2d64_k1, f64, 1);
heat2!(heat2d64_k3, f64, 3);
heat2!(heat2d64_k5, f64, 5);

struct Row {
    device: String,
    name: String,
    precision: &'static str,
    depth: u32,
    grid: Grid,
    ms_per_step: f64,
    gpts: f64,
    of_bound: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median seconds per step over `reps` runs of `steps` steps of `f` (after one warm-up
/// run, which compiles and tunes): the kernels' time (`mint::set_timing`), summed over the
/// run's launches and divided by its steps. On one GPU a launch is timed with CUDA events
/// (device time); on several, on the host from before its halo exchange to the end of its
/// slowest GPU (events cannot span GPUs; such a launch waits for its GPUs anyway).
fn time(reps: usize, f: impl FnMut(usize) -> mint::Result<()>, steps: usize) -> f64 {
    time_where(reps, f, steps, |_| true)
}

/// [`time`], counting only the kernels whose names `which` accepts.
fn time_where(
    reps: usize,
    mut f: impl FnMut(usize) -> mint::Result<()>,
    steps: usize,
    which: impl Fn(&str) -> bool,
) -> f64 {
    f(steps).expect("warm-up run");
    mint::set_timing(true);
    let per_step = (0..reps)
        .map(|_| {
            mint::reset_kernel_stats();
            f(steps).expect("run");
            let s: f64 = (mint::kernel_stats().iter())
                .filter(|k| which(&k.kernel))
                .map(|k| k.device_seconds)
                .sum();
            s / steps as f64
        })
        .collect();
    mint::set_timing(false);
    median(per_step)
}

/// `(kernel, precision, depth, seconds per step, bytes per word, words per point, grid)`.
type Add<'a> = dyn FnMut(&str, &'static str, u32, f64, f64, f64, Grid) + 'a;

/// The points a step updates: `n − 2r` per side of an `n`-point grid of `dims`
/// dimensions.
#[derive(Clone, Copy)]
struct Grid {
    n: usize,
    dims: u32,
    radius: usize,
}

/// The grid of the cube `u`, for a stencil of radius `radius`.
fn cube<T>(u: &Array3<T>, radius: usize) -> Grid {
    Grid {
        n: u.dim().0,
        dims: 3,
        radius,
    }
}

impl Grid {
    fn points(self) -> f64 {
        ((self.n - 2 * self.radius) as f64).powi(self.dims as i32)
    }
}

/// A run of `steps` steps from the given `u` and `unew` (arrays `A`: `Array3` or `Array2`).
type Steps<'a, A> = &'a dyn Fn(&mut A, &mut A, usize) -> mint::Result<()>;

/// One kernel in one precision: what each row of it shares.
struct Kernel<'a, A> {
    name: &'a str,
    precision: &'static str,
    /// Bytes per word, words each point reads and writes, the grid and stencil radius.
    bytes: f64,
    words: f64,
    grid: Grid,
    /// The initial `u` (and `unew`: a copy).
    u0: &'a A,
}

/// The rows of one kernel: the autotuned step-by-step kernel `tuned`, then the blocked
/// loop at each depth of `blocked` (depth 1 first: the reference; depth 0 is
/// `block = auto`, whose warm-up run tunes it). Each blocked depth is
/// checked bitwise against depth 1 over 7 steps, and its row says so where it differs, so
/// that a fast wrong kernel cannot pass unnoticed.
fn rows<A: Clone + PartialEq>(
    (reps, steps): (usize, usize),
    k: &Kernel<A>,
    tuned: Steps<A>,
    blocked: &[(u32, Steps<A>)],
    add: &mut Add,
) {
    let run = |f: Steps<A>, st: usize| {
        let (mut u, mut v) = (k.u0.clone(), k.u0.clone());
        f(&mut u, &mut v, st).map(|()| u)
    };
    let s = time(reps, |st| run(tuned, st).map(drop), steps);
    let tuned_name = format!("{} step by step (tune)", k.name);
    add(&tuned_name, k.precision, 1, s, k.bytes, k.words, k.grid);
    let reference = run(blocked[0].1, 7).expect("run");
    for &(depth, f) in blocked.iter().filter(|(d, _)| timed(*d)) {
        let s = time(reps, |st| run(f, st).map(drop), steps);
        let same = run(f, 7).expect("run") == reference;
        let name = format!(
            "{} time_loop{}{}",
            k.name,
            if depth == 0 {
                " (block = auto, tune)"
            } else {
                ""
            },
            if same {
                ""
            } else {
                "  DIFFERS from step by step"
            }
        );
        add(&name, k.precision, depth, s, k.bytes, k.words, k.grid);
    }
}

/// Whether the blocked row of `depth` is timed: every depth unless `MINT_BENCH_DEPTHS`
/// lists some (`1,0`: depth 1 and `block = auto`). The bitwise check's reference, depth 1
/// over 7 steps, runs either way.
fn timed(depth: u32) -> bool {
    std::env::var("MINT_BENCH_DEPTHS").map_or(true, |v| {
        v.split(',').any(|d| d.trim().parse() == Ok(depth))
    })
}

/// 3-D heat in f32 (depths 1, 3, 5, 7) and f64 (1, 3, 5), where `precisions` names them.
fn heat_rows(
    rs: (usize, usize),
    (u32_, u64_): (&Array3<f32>, &Array3<f64>),
    precisions: [bool; 2],
    add: &mut Add,
) {
    let opts = Level::Tuned.opts();
    let k = Kernel {
        name: "heat3d",
        precision: "f32",
        bytes: 4.0,
        words: 2.0,
        grid: cube(u32_, 1),
        u0: u32_,
    };
    let tuned = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| {
        heat3d::f32::run(opts, u, v, 0.4, 0.1, st, [32, 8, 1], [1, 1, 1])
    };
    let depths: [(u32, Steps<Array3<f32>>); 5] = [
        (1, &heat32_k1),
        (3, &heat32_k3),
        (5, &heat32_k5),
        (7, &heat32_k7),
        (0, &heat32_auto),
    ];
    if precisions[0] {
        rows(rs, &k, &tuned, &depths, add);
    }
    let k = Kernel {
        name: "heat3d",
        precision: "f64",
        bytes: 8.0,
        words: 2.0,
        grid: cube(u64_, 1),
        u0: u64_,
    };
    let tuned = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| {
        heat3d::f64::run(opts, u, v, 0.4, 0.1, st, [32, 8, 1], [1, 1, 1])
    };
    let depths: [(u32, Steps<Array3<f64>>); 4] = [
        (1, &heat64_k1),
        (3, &heat64_k3),
        (5, &heat64_k5),
        (0, &heat64_auto),
    ];
    if precisions[1] {
        rows(rs, &k, &tuned, &depths, add);
    }
}

/// Poisson 19-point (thesis Table 6.3) in f64 and f32, depths 1 and 3; three words per
/// point (`u`, `b` read; `u'` written).
fn poisson_rows(rs: (usize, usize), u64_: &Array3<f64>, add: &mut Add) {
    use mint_kernels::poisson19;
    let opts = Level::Tuned.opts();
    let b64 = u64_.mapv(|v| 0.001 * v);
    let (c0, c1) = (1.0 / 18.0, 0.5);
    let k = Kernel {
        name: "poisson19",
        precision: "f64",
        bytes: 8.0,
        words: 3.0,
        grid: cube(u64_, 1),
        u0: u64_,
    };
    let tuned = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| {
        poisson19::f64::run(opts, u, v, &b64, c0, c1, st, [32, 8, 1], [1, 1, 1])
    };
    let k1 = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| poisson64_k1(u, v, &b64, c0, c1, st);
    let k3 = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| poisson64_k3(u, v, &b64, c0, c1, st);
    let ka = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| poisson64_auto(u, v, &b64, c0, c1, st);
    rows(rs, &k, &tuned, &[(1, &k1), (3, &k3), (0, &ka)], add);
    let u32_ = u64_.mapv(|v| v as f32);
    let b32 = b64.mapv(|v| v as f32);
    let (c0, c1) = (c0 as f32, c1 as f32);
    let k = Kernel {
        name: "poisson19",
        precision: "f32",
        bytes: 4.0,
        words: 3.0,
        grid: cube(&u32_, 1),
        u0: &u32_,
    };
    let tuned = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| {
        poisson19::f32::run(opts, u, v, &b32, c0, c1, st, [32, 8, 1], [1, 1, 1])
    };
    let k1 = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| poisson32_k1(u, v, &b32, c0, c1, st);
    let k3 = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| poisson32_k3(u, v, &b32, c0, c1, st);
    let ka = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| poisson32_auto(u, v, &b32, c0, c1, st);
    rows(rs, &k, &tuned, &[(1, &k1), (3, &k3), (0, &ka)], add);
}

/// Heat with a variable coefficient and a source (`mint_kernels::heat7var`, thesis Table
/// 6.3) in f32 and f64, depths 1 and 3: a step that reads two arrays besides its input,
/// the conductivity at 7 points; four words per point (`u`, `b`, `κ` read; `u'`
/// written).
fn heatvar_rows(rs: (usize, usize), u64_: &Array3<f64>, add: &mut Add) {
    use mint_kernels::heat7var;
    let opts = Level::Tuned.opts();
    let b64 = u64_.mapv(|v| 0.001 * v);
    let k64 = u64_.mapv(|v| 0.5 + 0.01 * v);
    let c = 0.05;
    let k = Kernel {
        name: "heat7var",
        precision: "f64",
        bytes: 8.0,
        words: 4.0,
        grid: cube(u64_, 1),
        u0: u64_,
    };
    let tuned = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| {
        heat7var::f64::run(opts, u, v, &b64, &k64, c, st, [32, 8, 1], [1, 1, 1])
    };
    let k1 = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| heatvar64_k1(u, v, &b64, &k64, c, st);
    let k3 = |u: &mut Array3<f64>, v: &mut Array3<f64>, st| heatvar64_k3(u, v, &b64, &k64, c, st);
    rows(rs, &k, &tuned, &[(1, &k1), (3, &k3)], add);
    let u32_ = u64_.mapv(|v| v as f32);
    let (b32, k32) = (b64.mapv(|v| v as f32), k64.mapv(|v| v as f32));
    let c = c as f32;
    let k = Kernel {
        name: "heat7var",
        precision: "f32",
        bytes: 4.0,
        words: 4.0,
        grid: cube(&u32_, 1),
        u0: &u32_,
    };
    let tuned = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| {
        heat7var::f32::run(opts, u, v, &b32, &k32, c, st, [32, 8, 1], [1, 1, 1])
    };
    let k1 = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| heatvar32_k1(u, v, &b32, &k32, c, st);
    let k3 = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| heatvar32_k3(u, v, &b32, &k32, c, st);
    rows(rs, &k, &tuned, &[(1, &k1), (3, &k3)], add);
}

/// 2-D heat (thesis Table 6.3) on an `n × n` grid in f32 (depths 1, 3, 5, 7) and f64
/// (1, 3, 5): a 2-D step streams along y with tiles of one row.
fn heat2d_rows(rs: (usize, usize), n: usize, add: &mut Add) {
    let opts = Level::Tuned.opts();
    let u64_ = Array2::from_shape_fn((n, n), |(y, x)| ((y * 13 + x * 29) % 17) as f64);
    let grid = Grid {
        n,
        dims: 2,
        radius: 1,
    };
    let u32_ = u64_.mapv(|v| v as f32);
    let k = Kernel {
        name: "heat2d",
        precision: "f32",
        bytes: 4.0,
        words: 2.0,
        grid,
        u0: &u32_,
    };
    let tuned = |u: &mut Array2<f32>, v: &mut Array2<f32>, st| {
        heat2d::f32::run(opts, u, v, 0.6, 0.1, st, [32, 8, 1], [1, 1, 1])
    };
    let depths: [(u32, Steps<Array2<f32>>); 4] = [
        (1, &heat2d32_k1),
        (3, &heat2d32_k3),
        (5, &heat2d32_k5),
        (7, &heat2d32_k7),
    ];
    rows(rs, &k, &tuned, &depths, add);
    let k = Kernel {
        name: "heat2d",
        precision: "f64",
        bytes: 8.0,
        words: 2.0,
        grid,
        u0: &u64_,
    };
    let tuned = |u: &mut Array2<f64>, v: &mut Array2<f64>, st| {
        heat2d::f64::run(opts, u, v, 0.6, 0.1, st, [32, 8, 1], [1, 1, 1])
    };
    let depths: [(u32, Steps<Array2<f64>>); 3] =
        [(1, &heat2d64_k1), (3, &heat2d64_k3), (5, &heat2d64_k5)];
    rows(rs, &k, &tuned, &depths, add);
}

/// The radius-4 star (Farstad 2021) in f32, depths 1 and 3.
fn star_rows(rs: (usize, usize), n: usize, add: &mut Add) {
    use mint_kernels::star::r4_3d;
    let u0 = Array3::from_shape_fn((n, n, n), |(z, y, x)| {
        ((z * 7 + y * 13 + x * 29) % 17) as f32 * 0.1
    });
    let k = Kernel {
        name: "star r4",
        precision: "f32",
        bytes: 4.0,
        words: 2.0,
        grid: cube(&u0, 4),
        u0: &u0,
    };
    let tuned = |u: &mut Array3<f32>, v: &mut Array3<f32>, st| {
        r4_3d::f32::run(Level::Tuned.opts(), u, v, st, [32, 8, 1], [1, 1, 1])
    };
    rows(rs, &k, &tuned, &[(1, &star32_k1), (3, &star32_k3)], add);
}

/// A run of the cardiac model from `(E, R)`, `steps` iterations: `(E, R)` after it.
type Model<'a, T> =
    &'a dyn Fn(&Array2<T>, &Array2<T>, usize) -> mint::Result<(Array2<T>, Array2<T>)>;

/// The cardiac model (Aliev-Panfilov, `examples/cardiac`) on `n²` points in `T`: the
/// example's region as it is (a mirror kernel and the fused PDE/ODE kernel, `tune`), its
/// fused kernel alone, and the model written to be blocked ([`cardiac`]) at the depths
/// `depths` (1 first: the tuned step-by-step kernel of that source). The state is the
/// model's after `warm` iterations, fronts under way. Each blocked row is checked
/// bitwise against its depth 1 over 7 steps, and depth 1 against the example's region.
fn cardiac_rows<T: mint::Real + From<f32> + Into<f64>>(
    (reps, steps): (usize, usize),
    (n, warm): (usize, usize),
    (precision, depths): (&'static str, &[(u32, Model<T>)]),
    add: &mut Add,
) {
    let grid = Grid {
        n: n + 2,
        dims: 2,
        radius: 1,
    };
    let (e0, r0) = model::initial::<T>(n);
    let (e0, r0) = (depths[0].1)(&e0, &r0, warm).expect("warm-up");
    let (dt, _) = model::step_size(n);
    let example = |st: usize| {
        let (mut e, mut ep, mut r) = (e0.clone(), e0.clone(), r0.clone());
        let t_end = dt * (st as f64 - 0.5);
        model::simulate(&mut e, &mut ep, &mut r, t_end, [32, 8], 0, &mut |_, _| {})?;
        Ok((ep, r))
    };
    let bytes = std::mem::size_of::<T>() as f64;
    let words = model::WORDS_PER_POINT;
    let s = time(reps, |st| example(st).map(drop), steps);
    add(
        "cardiac, the example (mirror + kernel, tune)",
        precision,
        1,
        s,
        bytes,
        words,
        grid,
    );
    let s = time_where(
        reps,
        |st| example(st).map(drop),
        steps,
        |k| k.ends_with("simulate_1"),
    );
    add(
        "cardiac, the example's kernel alone",
        precision,
        1,
        s,
        bytes,
        words,
        grid,
    );
    let reference = (depths[0].1)(&e0, &r0, 7).expect("run");
    // the example's mirror kernel writes the ghost ring, which the blocked source leaves
    let inner = |(e, r): (Array2<T>, Array2<T>)| {
        let s = ndarray::s![1..n + 1, 1..n + 1];
        (e.slice(s).to_owned(), r.slice(s).to_owned())
    };
    let same_as_example = inner(example(7).expect("run")) == inner(reference.clone());
    for &(depth, f) in depths.iter().filter(|(d, _)| timed(*d)) {
        let s = time(reps, |st| f(&e0, &r0, st).map(drop), steps);
        let same = f(&e0, &r0, 7).expect("run") == reference;
        let name = format!(
            "cardiac time_loop{}{}",
            if same {
                ""
            } else {
                "  DIFFERS from step by step"
            },
            if depth == 1 && !same_as_example {
                "  DIFFERS from the example"
            } else {
                ""
            }
        );
        add(&name, precision, depth, s, bytes, words, grid);
    }
}

/// A [`Model`] of the blocked model `f` (a `cardiac::k*` instance).
macro_rules! model_run {
    ($f:path, $t:ty) => {
        &|e: &Array2<$t>, r: &Array2<$t>, st: usize| {
            let (mut e, mut ep, mut r, mut rn) = (e.clone(), e.clone(), r.clone(), r.clone());
            $f(&mut e, &mut ep, &mut r, &mut rn, st)?;
            Ok((ep, r))
        }
    };
}

/// The command line: `--size`, `--steps`, `--reps`, `--out`, `--only` and the devices of
/// `--device` (none: the process's device, `MINT_DEVICE`).
struct Args {
    n: usize,
    n2: usize,
    nc: usize,
    steps: usize,
    reps: usize,
    out: Option<std::path::PathBuf>,
    only: String,
    devices: Vec<(Option<mint::Device>, String)>,
}

fn parse_args() -> Result<Args, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut a = Args {
        n: 512,
        n2: 8192,
        nc: 4096,
        steps: 60,
        reps: 5,
        out: None,
        only: String::from("heat,heatvar,poisson,star,heat2d,cardiac"),
        devices: Vec::new(),
    };
    while let Some(flag) = args.next() {
        let mut val = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--size" => a.n = val()?.parse()?,
            "--size2" => a.n2 = val()?.parse()?,
            "--cardiac" => a.nc = val()?.parse()?,
            "--steps" => a.steps = val()?.parse()?,
            "--reps" => a.reps = val()?.parse()?,
            "--out" => a.out = Some(std::path::PathBuf::from(val()?)),
            "--only" => a.only = val()?,
            "--device" => {
                let d = val()?;
                a.devices.push((Some(mint::Device::parse(&d)?), d));
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if a.devices.is_empty() {
        let d = std::env::var("MINT_DEVICE").unwrap_or_else(|_| "auto".into());
        a.devices.push((None, d));
    }
    Ok(a)
}

/// The rows as `DIR/temporal.json`; `copy_gbs` is one GPU's copy bandwidth, the bound of
/// `of_per_step_bound` on every device.
fn write_json(dir: &std::path::Path, rows: &[Row], copy: f64) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"device\": \"{}\", \"kernel\": \"{}\", \"precision\": \"{}\", \"depth\": {}, \"size\": {}, \"dims\": {}, \"ms_per_step\": {:.4}, \"gpts\": {:.2}, \"of_per_step_bound\": {:.3}, \"copy_gbs\": {:.1}}}",
                r.device, r.name, r.precision, r.depth, r.grid.n, r.grid.dims, r.ms_per_step, r.gpts, r.of_bound, copy * 1e-9
            )
        })
        .collect();
    std::fs::write(
        dir.join("temporal.json"),
        format!("[\n  {}\n]\n", json.join(",\n  ")),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Args {
        n,
        n2,
        nc,
        steps,
        reps,
        out,
        only,
        devices,
    } = parse_args()?;
    let several = devices.iter().any(|d| d.0.is_some());
    let names: Vec<&str> = only.split(',').map(str::trim).collect();
    let known = [
        "heat", "heat-f32", "heat-f64", "heatvar", "poisson", "star", "heat2d", "cardiac",
    ];
    if let Some(w) = names.iter().find(|w| !known.contains(w)) {
        return Err(format!("--only: unknown kernel {w:?}; the kernels are {known:?}").into());
    }
    if !mint::cuda_available() {
        println!("temporal: no CUDA device; the benchmark measures fused launches on a GPU");
        return Ok(());
    }
    let copy = mint::device_copy_bandwidth(1 << 30, 20)?;
    println!(
        "temporal: {n}^3 ({n2}^2 in 2-D), {steps} steps, median of {reps}; copy {:.1} GB/s (one GPU){}",
        copy * 1e-9,
        if several {
            "; launches on several GPUs are timed on the host"
        } else {
            ""
        }
    );
    let device = std::cell::Cell::new(0);
    let mut rows = Vec::new();
    let mut add = |name: &str,
                   precision: &'static str,
                   depth: u32,
                   s: f64,
                   bytes: f64,
                   words: f64,
                   grid: Grid| {
        let gpts = grid.points() / s * 1e-9;
        let bound = copy / (words * bytes) * 1e-9;
        let on = devices[device.get()].1.clone();
        // the same row on the first device, for the speed-up of the others
        let base = |n: &str| n.split("  DIFFERS").next().unwrap_or("").to_string();
        let first = rows.iter().find(|r: &&Row| {
            r.device == devices[0].1
                && base(&r.name) == base(name)
                && r.precision == precision
                && r.depth == depth
        });
        let speedup = first.map_or(String::new(), |f| {
            format!("  {:.2}x {}", f.ms_per_step / (s * 1e3), f.device)
        });
        println!(
            "  {on:10} {name:28} {precision} depth {depth}: {:8.3} ms/step {gpts:8.1} GPts/s  {:.2}x the per-step bound ({bound:.0} GPts/s){speedup}",
            s * 1e3,
            gpts / bound
        );
        rows.push(Row {
            device: on,
            name: name.into(),
            precision,
            depth,
            grid,
            ms_per_step: s * 1e3,
            gpts,
            of_bound: gpts / bound,
        });
    };
    let u32_ = Array3::from_shape_fn((n, n, n), |(z, y, x)| {
        ((z * 7 + y * 13 + x * 29) % 17) as f32
    });
    let u64_ = u32_.mapv(f64::from);
    let heat = |p: &str| {
        names
            .iter()
            .any(|&w| w == "heat" || w == format!("heat-{p}"))
    };
    for (i, &(d, _)) in devices.iter().enumerate() {
        device.set(i);
        let on = |f: &mut dyn FnMut()| match d {
            Some(d) => mint::with_device(d, f),
            None => f(),
        };
        on(&mut || {
            if heat("f32") || heat("f64") {
                heat_rows(
                    (reps, steps),
                    (&u32_, &u64_),
                    [heat("f32"), heat("f64")],
                    &mut add,
                );
            }
            if names.contains(&"heatvar") {
                heatvar_rows((reps, steps), &u64_, &mut add);
            }
            if names.contains(&"poisson") {
                poisson_rows((reps, steps), &u64_, &mut add);
            }
            if names.contains(&"star") {
                star_rows((reps, steps), n, &mut add);
            }
            if names.contains(&"heat2d") {
                heat2d_rows((reps, steps), n2, &mut add);
            }
            if names.contains(&"cardiac") {
                let f32s: [(u32, Model<f32>); 4] = [
                    (1, model_run!(cardiac::k1::<f32>, f32)),
                    (3, model_run!(cardiac::k3::<f32>, f32)),
                    (5, model_run!(cardiac::k5::<f32>, f32)),
                    (7, model_run!(cardiac::k7::<f32>, f32)),
                ];
                cardiac_rows((reps, steps), (nc, 2000), ("f32", &f32s), &mut add);
                let f64s: [(u32, Model<f64>); 3] = [
                    (1, model_run!(cardiac::k1::<f64>, f64)),
                    (3, model_run!(cardiac::k3::<f64>, f64)),
                    (5, model_run!(cardiac::k5::<f64>, f64)),
                ];
                cardiac_rows((reps, steps), (nc, 2000), ("f64", &f64s), &mut add);
            }
        });
    }
    if let Some(dir) = out {
        write_json(&dir, &rows, copy)?;
    }
    Ok(())
}
