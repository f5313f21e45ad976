//! The CPU benchmark with peers (issue #42): Mint's CPU backend against a hand-written
//! Rust reference (rayon over z planes, unchecked inner rows) and a C reference (OpenMP,
//! `gcc -O3 -march=native -fopenmp -ffp-contract=off`), both in `benches/peers`, on the
//! same data in the same run.
//!
//! ```text
//! cargo bench --bench cpu -- [--size 256] [--size2d 1024] [--steps 10] [--reps 5]
//!     [--threads 1,16] [--kernels heat3d-7pt,cardiac] [--precision f64,f32] [--quick]
//!     [--out DIR]
//! ```
//!
//! Kernels: `heat3d-7pt`, `poisson3d-19pt`, `star3d-r4` and `heat3d-7pt-clamped` (the
//! suite's, on N³ grids), `cardiac` (Aliev–Panfilov, examples/cardiac, on N² points), each
//! in f64 and f32, and `seismic` (LOH.1 at 200 m, examples/seismic, f32, each run from
//! rest; its peers have only the elastic solver, which LOH.1 is). For every kernel and
//! thread count it reports the median over `--reps` timed runs of the time per step of
//! each implementation, as points per second. The implementations take turns, one timed
//! run each per round, each turn after 30 ms of idle host and an untimed run, so that a
//! host whose speed drifts (a shared VM) slows them alike and one's waiting threads
//! (OpenMP's spin) do not take cores from the next. It reports Mint's ratio to each
//! peer; the compulsory bytes per point times points per second as a fraction of a rayon
//! copy's bandwidth at that thread count (bytes read plus written); whether the three
//! results are bitwise equal (else the largest relative difference from Mint's); and each
//! implementation's speed-up from 1 thread (with the parallel efficiency, speed-up ÷
//! threads).
//!
//! `--quick` (64³, 256², 2 steps, 1 rep) is the cheap regression guard. Writes
//! `DIR/cpu.json` and `DIR/cpu.md` (default DIR: `target/bench`) and prints the table.
//! A failed Mint run is reported in its row, not panicked on.

#[allow(dead_code)]
#[path = "../examples/cardiac/model.rs"]
mod cardiac;
#[allow(dead_code)]
#[path = "../examples/seismic/config.rs"]
mod config;
#[allow(dead_code)]
#[path = "../examples/seismic/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../examples/seismic/solver.rs"]
mod solver;
#[allow(dead_code)]
#[path = "../examples/seismic/stencil.rs"]
mod stencil;

use clap::Parser;
use mint_kernels::suite::Instance;
use mint_kernels::{Kernel, Level, Opts, Precision};
use mint_peers::{self as c, CardiacParams, Real as PeerReal, rust as rs, seismic as sp};
use ndarray::Array2;
use rayon::ThreadPool;
use rayon::prelude::*;
use serde_json::{Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// The kernels, in the order they are measured.
const KERNELS: [&str; 6] = [
    "heat3d-7pt",
    "poisson3d-19pt",
    "star3d-r4",
    "heat3d-7pt-clamped",
    "cardiac",
    "seismic",
];

/// The command line.
#[derive(Parser)]
#[command(about = "Mint's CPU backend against Rust and C (OpenMP) peers")]
struct Args {
    /// 3-D grids are N³ points.
    #[arg(long, default_value_t = 256)]
    size: usize,
    /// The cardiac model has N² interior points.
    #[arg(long, default_value_t = 1024)]
    size2d: usize,
    /// Steps per timed run.
    #[arg(long, default_value_t = 10)]
    steps: usize,
    /// Timed runs (the median is reported), after one untimed run.
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Thread counts (default: 1 and the number of cores).
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Kernels (default: all).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(KERNELS))]
    kernels: Vec<String>,
    /// Precisions of the kernels with peers (default: f64,f32; seismic is f32 only).
    #[arg(long, value_delimiter = ',', value_parser = ["f64", "f32"])]
    precision: Vec<String>,
    /// The cheap regression guard: 64³, 256², 2 steps, 1 rep.
    #[arg(long)]
    quick: bool,
    /// Where cpu.json and cpu.md go.
    #[arg(long, default_value = "target/bench")]
    out: std::path::PathBuf,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// The three implementations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Mint,
    Rust,
    C,
}

const WHO: [Who; 3] = [Who::Mint, Who::Rust, Who::C];

/// What a case is, for the table.
struct Info {
    kernel: String,
    precision: &'static str,
    grid: String,
    /// Updated points per step.
    points: f64,
    /// Compulsory bytes per updated point per step.
    bytes_per_point: f64,
    /// Whether it has the Rust and C peers.
    peers: bool,
}

/// One kernel in one precision: Mint and its peers, each with its own copy of the data.
trait Case {
    fn info(&self) -> Info;
    /// Every implementation back at the initial data.
    fn reset(&mut self);
    /// `steps` steps by `who` on `pool`'s threads; the seconds they took.
    fn run(&mut self, who: Who, steps: usize, pool: &ThreadPool) -> Result<f64, String>;
    /// `who`'s current solution, as `f64`.
    fn state(&self, who: Who) -> Vec<f64>;
}

/// A value moved onto a pool's thread although its type does not say it may be: the
/// Mint regions' arguments (`Box<dyn Instance>`, closures over them), used by one thread
/// at a time while the caller waits.
struct AssertSend<T>(T);
// SAFETY: the wrapped values are plain arrays and scalars behind trait objects that do
// not declare `Send`; `pool.install` runs them on one thread while the caller blocks.
unsafe impl<T> Send for AssertSend<T> {}
impl<T> AssertSend<T> {
    fn into_inner(self) -> T {
        self.0
    }
}

/// Runs the Mint region `f` on the CPU backend on `pool`'s threads: its value and the
/// seconds it took, or its error (or panic) as text.
fn mint_run<R: Send>(
    pool: &ThreadPool,
    f: impl FnOnce() -> mint::Result<R>,
) -> Result<(R, f64), String> {
    let f = AssertSend(f);
    pool.install(move || {
        let f = f.into_inner();
        let t = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| mint::with_device(mint::Device::Cpu, f)));
        let secs = t.elapsed().as_secs_f64();
        match r {
            Ok(Ok(v)) => Ok((v, secs)),
            Ok(Err(e)) => Err(format!("Mint: {e}")),
            Err(p) => Err(format!("Mint panicked: {}", panic_text(&*p))),
        }
    })
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// The seconds `f` takes.
fn secs(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// The seconds `f` (a C peer's run) takes, or its error as text.
fn timed<E: ToString>(f: impl FnOnce() -> Result<(), E>) -> Result<f64, String> {
    let mut r = Ok(());
    let s = secs(|| r = f());
    r.map(|()| s).map_err(|e| e.to_string())
}

/// A copy of `v` made in parallel (the pages first touched by the pool's threads).
fn par_copy<T: Copy + Send + Sync>(v: &[T]) -> Vec<T> {
    v.par_iter().copied().collect()
}

/// `v` in precision `T`.
fn to_t<T: PeerReal>(v: &[f64]) -> Vec<T> {
    v.par_iter().map(|&x| T::from_f64(x)).collect()
}

/// `v` as `f64`.
fn to_f64<T: PeerReal>(v: &[T]) -> Vec<f64> {
    v.par_iter().map(|&x| x.to_f64()).collect()
}

/// A peer's buffers: the solution, the second buffer, the right-hand side (if any).
struct Bufs<T> {
    u: Vec<T>,
    v: Vec<T>,
    b: Vec<T>,
}

impl<T: PeerReal> Bufs<T> {
    fn empty() -> Bufs<T> {
        Bufs {
            u: Vec::new(),
            v: Vec::new(),
            b: Vec::new(),
        }
    }

    fn new(u: &[T], b: &[T]) -> Bufs<T> {
        Bufs {
            u: par_copy(u),
            v: par_copy(u),
            b: par_copy(b),
        }
    }
}

/// A kernel of `mint_kernels`' suite (3-D, N³) against its peers.
struct Suite<T> {
    k: Kernel,
    p: Precision,
    shape: [usize; 3],
    mint: Box<dyn Instance>,
    /// The initial solution and right-hand side (empty if none), and the coefficients.
    u0: Vec<T>,
    b0: Vec<T>,
    coefs: Vec<T>,
    rust: Bufs<T>,
    c: Bufs<T>,
}

const SEED: u64 = 42;

impl<T: PeerReal> Suite<T> {
    fn new(k: Kernel, p: Precision, n: usize) -> Suite<T> {
        let shape = [n, n, n];
        let mint = k.instance(p, &shape, SEED);
        let arrays = mint.arrays();
        let get = |name| {
            arrays
                .iter()
                .find(|(a, _)| *a == name)
                .map(|(_, v)| to_t(v))
        };
        let (u0, b0) = (
            get("u").expect("the solution u"),
            get("b").unwrap_or_default(),
        );
        let coefs = mint.coefs().iter().map(|&v| T::from_f64(v)).collect();
        // the peers' buffers are filled by `reset`
        let (rust, c) = (Bufs::empty(), Bufs::empty());
        Suite {
            k,
            p,
            shape,
            mint,
            u0,
            b0,
            coefs,
            rust,
            c,
        }
    }

    /// The first two coefficients (zero where the kernel has fewer).
    fn c01(&self) -> [T; 2] {
        [0, 1].map(|i| self.coefs.get(i).copied().unwrap_or(T::ZERO))
    }
}

/// `steps` steps of suite kernel `k`'s Rust peer on `bufs`.
fn rust_peer<T: PeerReal>(k: Kernel, d: [usize; 3], cf: [T; 2], bufs: &mut Bufs<T>, steps: usize) {
    let Bufs { u, v, b } = bufs;
    match k {
        Kernel::Heat3d => rs::heat3d(u, v, d, cf, steps),
        Kernel::Poisson19 => rs::poisson19(u, v, b, d, cf, steps),
        Kernel::Star3d(4) => rs::star3d::<T, 4>(u, v, d, steps),
        Kernel::HeatClamped => rs::heat_clamped(u, v, d, cf, steps),
        _ => unreachable!("no peer for {}", k.name()),
    }
}

/// `steps` steps of suite kernel `k`'s C peer on `bufs`, on `threads` OpenMP threads.
fn c_peer<T: PeerReal>(
    k: Kernel,
    d: [usize; 3],
    cf: [T; 2],
    bufs: &mut Bufs<T>,
    steps: usize,
    threads: usize,
) -> Result<(), c::NotBuilt> {
    let Bufs { u, v, b } = bufs;
    match k {
        Kernel::Heat3d => c::heat3d(u, v, d, cf, steps, threads),
        Kernel::Poisson19 => c::poisson19(u, v, b, d, cf, steps, threads),
        Kernel::Star3d(4) => c::star3d_r4(u, v, d, steps, threads),
        Kernel::HeatClamped => c::heat_clamped(u, v, d, cf, steps, threads),
        _ => unreachable!("no peer for {}", k.name()),
    }
}

impl<T: PeerReal> Case for Suite<T> {
    fn info(&self) -> Info {
        let n = self.shape[0];
        Info {
            kernel: self.k.name(),
            precision: self.p.name(),
            grid: format!("{n}³"),
            points: self.k.points(&self.shape),
            bytes_per_point: self.k.words_per_point() * self.p.bytes() as f64,
            peers: true,
        }
    }

    fn reset(&mut self) {
        self.mint = self.k.instance(self.p, &self.shape, SEED);
        self.rust = Bufs::new(&self.u0, &self.b0);
        self.c = Bufs::new(&self.u0, &self.b0);
    }

    fn run(&mut self, who: Who, steps: usize, pool: &ThreadPool) -> Result<f64, String> {
        match who {
            Who::Mint => {
                let (tile, chunk) = Level::Opt3.config(3);
                let inst = &mut self.mint;
                mint_run(pool, || inst.run(Opts::None, tile, chunk, steps)).map(|(_, s)| s)
            }
            Who::Rust => {
                let (k, d, cf, bufs) = (self.k, self.shape, self.c01(), &mut self.rust);
                Ok(pool.install(|| secs(|| rust_peer(k, d, cf, bufs, steps))))
            }
            Who::C => {
                let (k, d, cf, th) = (self.k, self.shape, self.c01(), pool.current_num_threads());
                timed(|| c_peer(k, d, cf, &mut self.c, steps, th))
            }
        }
    }

    fn state(&self, who: Who) -> Vec<f64> {
        match who {
            Who::Mint => self.mint.output(),
            Who::Rust => to_f64(&self.rust.u),
            Who::C => to_f64(&self.c.u),
        }
    }
}

/// The cardiac model (examples/cardiac/model.rs) on n² interior points: E_prev, E, R.
struct Cardiac<T> {
    n: usize,
    params: CardiacParams<T>,
    mint: [Array2<T>; 3],
    rust: [Vec<T>; 3],
    c: [Vec<T>; 3],
}

impl<T: PeerReal + mint::Real + From<f32>> Cardiac<T> {
    fn new(n: usize) -> Cardiac<T> {
        let (dt, alpha) = cardiac::step_size(n);
        let t = T::from_f64;
        let params = CardiacParams {
            alpha: t(alpha),
            dt: t(dt),
            kk: t(cardiac::KK),
            a: t(cardiac::A),
            b: t(cardiac::B),
            epsilon: t(cardiac::EPSILON),
            m1: t(cardiac::M1),
            m2: t(cardiac::M2),
        };
        let (mint, rust, c) = Self::initial(n);
        Cardiac {
            n,
            params,
            mint,
            rust,
            c,
        }
    }

    /// Every implementation's initial (E_prev, E, R), from `cardiac::initial`.
    #[allow(clippy::type_complexity)]
    fn initial(n: usize) -> ([Array2<T>; 3], [Vec<T>; 3], [Vec<T>; 3]) {
        let (e, r) = cardiac::initial::<T>(n);
        let flat = |a: &Array2<T>| a.iter().copied().collect::<Vec<T>>();
        let peer = || [flat(&e), flat(&e), flat(&r)];
        ([e.clone(), e.clone(), r.clone()], peer(), peer())
    }

    /// `steps` steps of Mint's `simulate`: it runs while t < t_end, t += dt.
    fn mint(&mut self, steps: usize, pool: &ThreadPool) -> Result<f64, String> {
        let t_end = (steps as f64 - 0.5) * cardiac::step_size(self.n).0;
        let [e_prev, e, r] = &mut self.mint;
        let run = || cardiac::simulate::<T>(e, e_prev, r, t_end, [32, 8], 0, &mut |_, _| {});
        let (niter, secs) = mint_run(pool, run)?;
        if niter != steps {
            return Err(format!("Mint: cardiac ran {niter} steps, not {steps}"));
        }
        Ok(secs)
    }
}

impl<T: PeerReal + mint::Real + From<f32>> Case for Cardiac<T> {
    fn info(&self) -> Info {
        let bytes = std::mem::size_of::<T>() as f64;
        Info {
            kernel: "cardiac".into(),
            precision: if bytes == 4.0 { "f32" } else { "f64" },
            grid: format!("{}²", self.n),
            points: (self.n * self.n) as f64,
            bytes_per_point: cardiac::WORDS_PER_POINT * bytes,
            peers: true,
        }
    }

    fn reset(&mut self) {
        (self.mint, self.rust, self.c) = Self::initial(self.n);
    }

    fn run(&mut self, who: Who, steps: usize, pool: &ThreadPool) -> Result<f64, String> {
        let (n, p) = (self.n, self.params);
        match who {
            Who::Mint => self.mint(steps, pool),
            Who::Rust => {
                let [ep, e, r] = &mut self.rust;
                Ok(pool.install(|| secs(|| rs::cardiac(ep, e, r, n, &p, steps))))
            }
            Who::C => {
                let [ep, e, r] = &mut self.c;
                let th = pool.current_num_threads();
                timed(|| c::cardiac(ep, e, r, n, &p, steps, th))
            }
        }
    }

    /// E then R.
    fn state(&self, who: Who) -> Vec<f64> {
        let layout = "a standard-layout array";
        let (ep, r): (&[T], &[T]) = match who {
            Who::Mint => (
                self.mint[0].as_slice().expect(layout),
                self.mint[2].as_slice().expect(layout),
            ),
            Who::Rust => (&self.rust[0], &self.rust[2]),
            Who::C => (&self.c[0], &self.c[2]),
        };
        [to_f64(ep), to_f64(r)].concat()
    }
}

/// The seismic example's LOH.1 at its coarse resolution (200 m) against the elastic
/// solver's peers (`mint_peers::seismic`), each run from rest for the setup's steps.
struct Seismic {
    setup: model::Setup,
    /// The peers' copy of what the steps read; `None` for a model with attenuation (the
    /// peers have only the elastic stress nest).
    model: Option<sp::Model>,
    /// The fields, seismograms and peak ground velocity each implementation left.
    out: [Option<sp::State>; 3],
}

impl Seismic {
    /// LOH.1 for `steps` steps of the coarse dt.
    fn new(steps: usize) -> Result<Seismic, String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seismic/loh1.toml");
        let mut cfg =
            config::Config::load(std::path::Path::new(path)).map_err(|e| e.to_string())?;
        let coarse = cfg.grid.coarse.ok_or("loh1.toml has no [grid.coarse]")?;
        cfg.grid.duration = steps as f64 * coarse.dt;
        let setup = model::build(&cfg, coarse.spacing, coarse.dt).map_err(|e| e.to_string())?;
        let model = setup.medium.anelastic.is_none().then(|| peer_model(&setup));
        Ok(Seismic {
            setup,
            model,
            out: [None, None, None],
        })
    }
}

/// The arrays of `s` as the seismic peers take them: flat, row-major, `[z, y, x]`.
fn peer_model(s: &model::Setup) -> sp::Model {
    let flat3 = |a: &mint::SlabArray3<f32>| a.local().iter().copied().collect::<Vec<f32>>();
    let (m, src, rcv) = (&s.medium, &s.sources, &s.receivers);
    let (nz, ny, nx) = s.shape();
    let sp = &m.sponge;
    sp::Model {
        n: [nz, ny, nx],
        k0: model::HALO,
        nsteps: s.nsteps,
        medium: [&m.d1, &m.d2, &m.d3, &m.lam, &m.l2m, &m.mxy, &m.mxz, &m.myz].map(flat3),
        sponge: [&sp.x, &sp.xs, &sp.y, &sp.ys, &sp.z, &sp.zs].map(|a| a.to_vec()),
        fsr: m.fsr.iter().copied().collect(),
        dlam: m.dlam.to_vec(),
        dl2m: m.dl2m.to_vec(),
        src_comp: src.comp.clone(),
        src_idx: src.idx.iter().copied().collect(),
        src_amp: src.amp.clone(),
        src_src: src.src.clone(),
        stf: src.stf.iter().copied().collect(),
        nstf: src.stf.ncols(),
        rcv_idx: rcv.idx.iter().copied().collect(),
        rcv_frac: rcv.frac.iter().copied().collect(),
    }
}

/// What Mint's run left, as the peers hold it.
fn mint_state(out: solver::Output) -> sp::State {
    let w = out.wavefield;
    let f = [
        &w.u1, &w.v1, &w.w1, &w.xx, &w.yy, &w.zz, &w.xy, &w.xz, &w.yz,
    ];
    sp::State {
        fields: f.map(|a| a.local().iter().copied().collect()),
        seis: out.seismograms.iter().copied().collect(),
        pgv: out.pgv.iter().copied().collect(),
    }
}

impl Case for Seismic {
    fn info(&self) -> Info {
        let [nx, ny, nz] = self.setup.n;
        let words = if self.setup.medium.anelastic.is_some() {
            solver::ANELASTIC_WORDS_PER_POINT
        } else {
            solver::WORDS_PER_POINT
        };
        Info {
            kernel: "seismic LOH.1 200 m".into(),
            precision: "f32",
            grid: format!("{nx}×{ny}×{nz}"),
            points: self.setup.points(),
            bytes_per_point: words * 4.0,
            peers: self.model.is_some(),
        }
    }

    fn reset(&mut self) {
        self.out = [None, None, None];
    }

    /// A whole run from rest of the setup's steps (`steps` when it was built): Mint's
    /// own time of its time loop, the peers' time of theirs.
    fn run(&mut self, who: Who, _steps: usize, pool: &ThreadPool) -> Result<f64, String> {
        let s = &self.setup;
        if who == Who::Mint {
            let (out, _) = mint_run(pool, || solver::run(s, [32, 4, 1], &mut |_| {}))?;
            let secs = out.seconds;
            self.out[0] = Some(mint_state(out));
            return Ok(secs);
        }
        let m = self
            .model
            .as_ref()
            .ok_or("the peers have no anelastic solver")?;
        let mut state = pool.install(|| m.at_rest());
        let secs = if who == Who::Rust {
            pool.install(|| secs(|| sp::rust(m, &mut state)))
        } else {
            timed(|| sp::c(m, &mut state, pool.current_num_threads()))?
        };
        self.out[who as usize] = Some(state);
        Ok(secs)
    }

    /// The nine fields, the seismograms and the peak ground velocity.
    fn state(&self, who: Who) -> Vec<f64> {
        let Some(s) = &self.out[who as usize] else {
            return Vec::new();
        };
        let parts = s.fields.iter().chain([&s.seis, &s.pgv]);
        parts
            .flat_map(|v| v.iter().map(|&x| f64::from(x)))
            .collect()
    }
}

/// The (kernel, precision) pairs the command line asks for, in order.
fn cases(a: &Args) -> Vec<(&'static str, &str)> {
    let chosen = KERNELS
        .into_iter()
        .filter(|k| a.kernels.iter().any(|x| x == k));
    chosen
        .flat_map(|k| match k {
            "seismic" => vec![(k, "f32")],
            _ => a.precision.iter().map(|p| (k, p.as_str())).collect(),
        })
        .collect()
}

/// Sets up kernel `name` in precision `p` (built one at a time: a 256³ case holds a dozen
/// arrays).
fn case(a: &Args, name: &str, p: &str) -> Result<Box<dyn Case>, String> {
    Ok(match (name, p) {
        ("seismic", _) => Box::new(Seismic::new(a.steps)?),
        ("cardiac", "f64") => Box::new(Cardiac::<f64>::new(a.size2d)),
        ("cardiac", _) => Box::new(Cardiac::<f32>::new(a.size2d)),
        (k, "f64") => Box::new(Suite::<f64>::new(kernel(k), Precision::F64, a.size)),
        (k, _) => Box::new(Suite::<f32>::new(kernel(k), Precision::F32, a.size)),
    })
}

fn kernel(name: &str) -> Kernel {
    Kernel::parse(name).unwrap_or_else(|| panic!("{name} is a suite kernel"))
}

/// One line of the table: a case at a thread count.
struct Row {
    info: Info,
    threads: usize,
    /// Copy bandwidth at this thread count, bytes per second.
    copy: f64,
    /// Seconds per step of Mint, Rust, C (`None`: no such peer).
    secs: [Option<Result<f64, String>>; 3],
    /// Whether the results that exist are bitwise equal, else the largest relative
    /// difference from the first (`None`: fewer than two results).
    bitwise: Option<bool>,
    rel_err: Option<f64>,
    /// Speed-up from 1 thread of Mint, Rust, C.
    speedup: [Option<f64>; 3],
}

impl Row {
    fn ok(&self, i: usize) -> Option<f64> {
        self.secs[i].as_ref().and_then(|r| r.as_ref().ok().copied())
    }
    fn points_per_s(&self, i: usize) -> Option<f64> {
        self.ok(i).map(|s| self.info.points / s)
    }
    /// The fraction of the copy bandwidth that implementation `i`'s compulsory traffic is.
    fn bw(&self, i: usize) -> Option<f64> {
        self.points_per_s(i)
            .map(|p| p * self.info.bytes_per_point / self.copy)
    }
    fn ratio(&self, i: usize) -> Option<f64> {
        Some(self.points_per_s(0)? / self.points_per_s(i)?)
    }
    fn errors(&self) -> Vec<String> {
        self.secs
            .iter()
            .flatten()
            .filter_map(|r| r.as_ref().err().cloned())
            .collect()
    }
}

/// How long the host is left idle before each implementation's turn: longer than any
/// implementation's threads wait busily after a parallel loop (libgomp's default spin,
/// Mint's `MINT_CPU_SPIN_US`), so that the one before does not take cores from the next.
const QUIET: std::time::Duration = std::time::Duration::from_millis(30);

/// Median seconds per step of each of `who`'s `reps` runs of `steps` steps. The
/// implementations take turns, one timed run each per round, so that a host whose speed
/// drifts during the measurement (a shared VM) slows them alike and their ratios hold;
/// each turn starts after [`QUIET`] with an untimed run, which wakes the turn's threads
/// and brings its arrays into cache. An implementation that fails is not run again.
fn measure(
    case: &mut dyn Case,
    who: &[Who],
    steps: usize,
    reps: usize,
    pool: &ThreadPool,
) -> Vec<Result<f64, String>> {
    let mut t: Vec<Result<Vec<f64>, String>> = vec![Ok(Vec::with_capacity(reps)); who.len()];
    for _ in 0..reps {
        for (&w, t) in who.iter().zip(&mut t) {
            if let Ok(v) = t {
                std::thread::sleep(QUIET);
                match case
                    .run(w, steps, pool)
                    .and_then(|_| case.run(w, steps, pool))
                {
                    Ok(s) => v.push(s / steps as f64),
                    Err(e) => *t = Err(e),
                }
            }
        }
    }
    t.into_iter().map(|t| t.map(median)).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Bitwise equality of the states of the implementations that ran, else the largest
/// relative difference from the first.
fn compare(case: &dyn Case, ran: &[Who]) -> (Option<bool>, Option<f64>) {
    let states: Vec<Vec<f64>> = ran.iter().map(|&w| case.state(w)).collect();
    let Some((first, rest)) = states.split_first() else {
        return (None, None);
    };
    if rest.is_empty() {
        return (None, None);
    }
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    if rest.iter().all(|s| bits(s) == bits(first)) {
        return (Some(true), None);
    }
    let err = rest
        .iter()
        .map(|s| mint_kernels::suite::max_rel_err(s, first))
        .fold(0.0, f64::max);
    (Some(false), Some(err))
}

/// Measures `case` at `threads` threads.
fn measure_case(case: &mut dyn Case, a: &Args, threads: usize, copy: f64) -> Row {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let info = case.info();
    case.reset();
    // those that run, in `WHO`'s order; `None` for a peer the case has not
    let who: Vec<Who> = WHO
        .into_iter()
        .filter(|&w| w == Who::Mint || info.peers)
        .collect();
    let mut timed = measure(case, &who, a.steps, a.reps, &pool).into_iter();
    let secs = WHO.map(|w| if who.contains(&w) { timed.next() } else { None });
    let ran: Vec<Who> = WHO
        .iter()
        .zip(&secs)
        .filter(|(_, s)| matches!(s, Some(Ok(_))))
        .map(|(w, _)| *w)
        .collect();
    let (bitwise, rel_err) = compare(case, &ran);
    Row {
        info,
        threads,
        copy,
        secs,
        bitwise,
        rel_err,
        speedup: [None; 3],
    }
}

/// Each row's speed-up from the 1-thread row of the same case.
fn speedups(rows: &mut [Row]) {
    let Some(one) = rows.iter().position(|r| r.threads == 1) else {
        return;
    };
    let base: Vec<Option<f64>> = (0..3).map(|i| rows[one].ok(i)).collect();
    for r in rows.iter_mut() {
        for (i, b) in base.iter().enumerate() {
            r.speedup[i] = b.zip(r.ok(i)).map(|(t1, tn)| t1 / tn);
        }
    }
}

/// Bytes per second (read + written) of a rayon copy of `n` f64 at `threads` threads:
/// the median of 5 runs after one untimed.
fn copy_bandwidth(threads: usize, n: usize) -> f64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let src = vec![1.0f64; n];
    let mut dst = vec![0.0f64; n];
    let mut t = Vec::new();
    pool.install(|| {
        for _ in 0..6 {
            let t0 = Instant::now();
            dst.par_chunks_mut(1 << 16)
                .zip(src.par_chunks(1 << 16))
                .for_each(|(d, s)| d.copy_from_slice(s));
            t.push(t0.elapsed().as_secs_f64());
        }
    });
    (2 * n * 8) as f64 / median(t[1..].to_vec())
}

/// One progress line for `r`.
fn progress(r: &Row) {
    let cell = |i: usize| match &r.secs[i] {
        None => "—".to_string(),
        Some(Ok(s)) => format!("{:.3} ms/step", s * 1e3),
        Some(Err(e)) => format!("error ({e})"),
    };
    let eq = match r.bitwise {
        Some(true) => "yes".to_string(),
        Some(false) => format!(
            "no (max relative error {:.2e})",
            r.rel_err.unwrap_or(f64::NAN)
        ),
        None => "— (fewer than two results)".to_string(),
    };
    println!(
        "{} {} {}, {} thread(s): Mint {}, Rust {}, C {}; bitwise equal: {eq}",
        r.info.kernel,
        r.info.precision,
        r.info.grid,
        r.threads,
        cell(0),
        cell(1),
        cell(2)
    );
    for e in r.errors() {
        println!("  error: {e}");
    }
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".into())
}

/// The markdown table.
fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| kernel | prec | grid | thr | Mint Mpt/s | Rust Mpt/s | C Mpt/s | Mint/Rust | Mint/C | Mint ms/step \
         | % copy BW M/R/C | bitwise | speed-up M | speed-up R | speed-up C | notes |\n\
         |---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|---|\n",
    );
    for r in rows {
        s.push_str(&md_row(r));
    }
    s
}

fn md_row(r: &Row) -> String {
    let mpts = |i| opt(r.points_per_s(i), |p| format!("{:.1}", p * 1e-6));
    let bw = (0..3)
        .map(|i| opt(r.bw(i), |f| format!("{:.0}", f * 100.0)))
        .collect::<Vec<_>>()
        .join("/");
    let sp = |i| match (r.threads, r.speedup[i]) {
        (1, _) | (_, None) => "—".to_string(),
        (n, Some(x)) => format!("{x:.2}× ({:.0}%)", 100.0 * x / n as f64),
    };
    let eq = match (r.bitwise, r.rel_err) {
        (Some(true), _) => "yes".to_string(),
        (Some(false), e) => format!("no ({:.1e})", e.unwrap_or(f64::NAN)),
        (None, _) => "—".to_string(),
    };
    let mut notes = r.errors();
    if !r.info.peers {
        notes.insert(0, "Mint only (no peers)".into());
    }
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {bw} | {eq} | {} | {} | {} | {} |\n",
        r.info.kernel,
        r.info.precision,
        r.info.grid,
        r.threads,
        mpts(0),
        mpts(1),
        mpts(2),
        opt(r.ratio(1), |x| format!("{x:.2}")),
        opt(r.ratio(2), |x| format!("{x:.2}")),
        opt(r.ok(0), |s| format!("{:.2}", s * 1e3)),
        sp(0),
        sp(1),
        sp(2),
        notes.join("; ").replace('|', "\\|"),
    )
}

/// The run's context, repeated in every JSON row.
struct Meta {
    command: String,
    cores: usize,
    date: String,
    commit: Option<String>,
    steps: usize,
    reps: usize,
    /// The 1, 5 and 15-minute load averages when the run started (Linux), a sign of
    /// other work on the machine.
    load: Option<String>,
}

fn meta(a: &Args) -> Meta {
    // the commit the benchmark was built at; where it was built outside git, the checkout's
    let commit = c::BUILT_AT.map(String::from).or_else(|| {
        std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    });
    Meta {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        cores: cores(),
        date: utc_now(),
        commit,
        steps: a.steps,
        reps: a.reps,
        load: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")),
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The current UTC time, ISO 8601.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    // days to a civil date (H. Hinnant's algorithm)
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn json_row(r: &Row, m: &Meta) -> Value {
    let imp = |i: usize| match &r.secs[i] {
        None => Value::Null,
        Some(res) => json!({
            "seconds_per_step": res.as_ref().ok(),
            "points_per_s": r.points_per_s(i),
            "copy_bw_fraction": r.bw(i),
            "speedup_from_1": r.speedup[i],
            "efficiency": r.speedup[i].map(|x| x / r.threads as f64),
            "error": res.as_ref().err(),
        }),
    };
    json!({
        "command": m.command, "cores": m.cores, "date": m.date, "commit": m.commit,
        "load_average": m.load,
        "kernel": r.info.kernel, "precision": r.info.precision, "grid": r.info.grid,
        "threads": r.threads, "steps": m.steps, "reps": m.reps,
        "points_per_step": r.info.points, "bytes_per_point": r.info.bytes_per_point,
        "copy_bytes_per_s": r.copy,
        "mint": imp(0), "rust": imp(1), "c": imp(2),
        "mint_over_rust": r.ratio(1), "mint_over_c": r.ratio(2),
        "bitwise_equal": r.bitwise, "max_rel_err": r.rel_err,
        "peers": r.info.peers,
    })
}

/// The command line with `--quick` and the defaults applied.
fn args() -> Result<Args, String> {
    let mut a = Args::parse();
    if a.quick {
        (a.size, a.size2d, a.steps, a.reps) = (64, 256, 2, 1);
    }
    let mut threads = Vec::new();
    for t in std::mem::take(&mut a.threads) {
        if t > 0 && !threads.contains(&t) {
            threads.push(t);
        }
    }
    a.threads = threads;
    if a.threads.is_empty() {
        a.threads = if cores() > 1 {
            vec![1, cores()]
        } else {
            vec![1]
        };
    }
    if a.kernels.is_empty() {
        a.kernels = KERNELS.map(String::from).to_vec();
    }
    if a.precision.is_empty() {
        a.precision = vec!["f64".into(), "f32".into()];
    }
    if a.size < 10 || a.size2d < 3 || a.steps == 0 || a.reps == 0 {
        return Err(
            "--size must be at least 10 (the radius-4 star), --size2d at least 3, \
                    --steps and --reps at least 1"
                .into(),
        );
    }
    Ok(a)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = args()?;
    let m = meta(&a);
    println!(
        "cpu benchmark: {} cores, threads {:?}, {} steps × {} reps, commit {}",
        m.cores,
        a.threads,
        a.steps,
        a.reps,
        m.commit.as_deref().unwrap_or("unknown")
    );
    if let Some(l) = &m.load {
        println!("load average (1, 5, 15 min) at the start: {l}");
    }
    if let Err(e) = c::available() {
        println!("{e}");
    }
    let copy_n = if a.quick { 1 << 23 } else { 1 << 25 };
    let copy: Vec<f64> = a
        .threads
        .iter()
        .map(|&t| copy_bandwidth(t, copy_n))
        .collect();
    for (t, b) in a.threads.iter().zip(&copy) {
        println!(
            "copy bandwidth (rayon, {} MiB per array), {t} thread(s): {:.2} GB/s",
            (copy_n * 8) >> 20,
            b * 1e-9
        );
    }
    let mut rows = Vec::new();
    for (name, p) in cases(&a) {
        let mut case = match case(&a, name, p) {
            Ok(c) => c,
            Err(e) => {
                println!("{name} {p}: not set up: {e}");
                continue;
            }
        };
        let mut case_rows: Vec<Row> = a
            .threads
            .iter()
            .zip(&copy)
            .map(|(&t, &bw)| {
                let r = measure_case(case.as_mut(), &a, t, bw);
                progress(&r);
                r
            })
            .collect();
        speedups(&mut case_rows);
        rows.extend(case_rows);
    }
    let md = markdown(&rows);
    let json: Vec<Value> = rows.iter().map(|r| json_row(r, &m)).collect();
    std::fs::create_dir_all(&a.out)?;
    std::fs::write(a.out.join("cpu.json"), serde_json::to_string_pretty(&json)?)?;
    std::fs::write(a.out.join("cpu.md"), &md)?;
    println!("\n{md}");
    println!("wrote {}/cpu.json and cpu.md", a.out.display());
    Ok(())
}
