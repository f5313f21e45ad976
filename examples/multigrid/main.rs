//! Geometric multigrid for −Δu = f on the unit cube (issue #16, seed 002): V-cycles or
//! full multigrid with red-black Gauss-Seidel, on the GPU when there is one.
//!
//! ```text
//! cargo run --release --example multigrid -- --k 5                 # 33³, V(2,2)
//! cargo run --release --example multigrid -- --k 6 --cycle fmg --cycles 2
//! cargo run --release --example multigrid -- --k 8 --precision f32 --pre 1 --post 1
//! ```
//!
//! Prints, per cycle, the residual's discrete L2 norm, its reduction factor and the
//! largest error against the exact solution sin(πx)sin(πy)sin(πz); then the time per
//! cycle (wall clock of a second, identical solve, so no compilation is counted),
//! unknowns per second, and on a GPU the red-black smoother's rate on the finest level
//! against the device's copy bandwidth. See `mg.rs` for the grids and kernels.

mod mg;

use clap::Parser;
use mint::{Backend, Device};
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(about = "Geometric multigrid for -Δu = f on the unit cube")]
struct Args {
    /// 2^k + 1 points per side (k from 1 to 10).
    #[arg(long, default_value_t = 5)]
    k: u32,
    /// v (V-cycles from u = 0) or fmg (one full-multigrid cycle, then V-cycles).
    #[arg(long, default_value = "v")]
    cycle: String,
    /// V-cycles (after the FMG cycle with --cycle fmg).
    #[arg(long, default_value_t = 8)]
    cycles: usize,
    /// Red-black sweeps before each restriction.
    #[arg(long, default_value_t = 2)]
    pre: usize,
    /// Red-black sweeps after each prolongation.
    #[arg(long, default_value_t = 2)]
    post: usize,
    /// Over-relaxation factor of the red-black smoother: 1 is Gauss-Seidel; 1.15, the
    /// default, is near the best for 3-D V-cycles (Yavneh 1996) and takes V(2,2) from a
    /// residual factor of 0.116 to 0.067 per cycle.
    #[arg(long, default_value_t = 1.15)]
    omega: f64,
    /// f32 or f64.
    #[arg(long, default_value = "f64")]
    precision: String,
    /// auto, cpu, cpu:N or cuda[:N] (default: MINT_DEVICE, else auto).
    #[arg(long)]
    device: Option<String>,
}

macro_rules! run {
    ($t:ty, $hi:expr, $plan:expr) => {{
        let (hi, plan) = ($hi, $plan);
        let (mut u, mut f, mut r, ex) = hi.problem::<$t>();
        let history = mg::solve(&mut u, &mut f, &mut r, &ex, hi, plan)?;
        // again, timed: the kernels are compiled (or loaded) now
        let (mut u2, mut f2, mut r2, ex2) = hi.problem::<$t>();
        mint::reset_kernel_stats();
        let t = Instant::now();
        let again = mg::solve(&mut u2, &mut f2, &mut r2, &ex2, hi, plan)?;
        let wall = t.elapsed().as_secs_f64() - {
            let s = mint::transfer_stats();
            s.to_device_seconds + s.from_device_seconds
        };
        if again != history || u2 != u {
            return Err("a second, identical solve gave other results".into());
        }
        let h: Vec<(f64, f64)> = history.iter().map(|&(a, b)| (a as f64, b as f64)).collect();
        (h, wall, std::mem::size_of::<$t>())
    }};
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let hi = mg::Hierarchy::new(args.k)?;
    let fmg = match args.cycle.as_str() {
        "v" => false,
        "fmg" => true,
        c => return Err(format!("--cycle must be v or fmg, not {c}").into()),
    };
    let plan = mg::Plan {
        fmg,
        cycles: args.cycles,
        pre: args.pre,
        post: args.post,
        omega: args.omega,
    };
    let device = match &args.device {
        Some(d) => Device::parse(d)?,
        None => Device::from_env()?,
    };
    mint::with_device(device, || -> Result<(), Box<dyn std::error::Error>> {
        let backend = mint::backend()?;
        let n = hi.n[0];
        println!(
            "multigrid: -Δu = f on the unit cube, {n}³ points ({} levels), {}V({}, {}) × {}, {}",
            hi.levels(),
            if fmg { "FMG + " } else { "" },
            plan.pre,
            plan.post,
            plan.cycles,
            args.precision
        );
        println!("backend: {}", backend.describe());
        let (history, wall, word) = match args.precision.as_str() {
            "f64" => run!(f64, &hi, plan),
            "f32" => run!(f32, &hi, plan),
            p => return Err(format!("--precision must be f32 or f64, not {p}").into()),
        };
        println!("| cycle | residual (L2) | factor | max error |");
        println!("| --- | --- | --- | --- |");
        let r0 = {
            // the residual of u = 0 is f itself
            let h = hi.h(0);
            let mut s = 0.0;
            for z in 1..n - 1 {
                for y in 1..n - 1 {
                    for x in 1..n - 1 {
                        s += (3.0 * std::f64::consts::PI.powi(2) * hi.exact(0, z, y, x)).powi(2);
                    }
                }
            }
            (s * h * h * h).sqrt()
        };
        println!("| 0 | {r0:.3e} | | 1.000e0 |");
        let mut prev = r0;
        for (i, (res, err)) in history.iter().enumerate() {
            let name = if fmg && i == 0 {
                "FMG".to_string()
            } else {
                format!("{}", i + usize::from(!fmg))
            };
            println!("| {name} | {res:.3e} | {:.3} | {err:.3e} |", res / prev);
            prev = *res;
        }
        let unknowns = ((n - 2) as f64).powi(3);
        let cycles = history.len() as f64;
        println!(
            "time: {:.3} ms per cycle (wall clock of the whole solve without its transfers), {:.1} M unknowns/s",
            wall / cycles * 1e3,
            unknowns * cycles / wall * 1e-6
        );
        if matches!(backend, Backend::Cuda(_)) {
            match args.precision.as_str() {
                "f32" => smoother_rate::<f32>(&hi, args.omega)?,
                _ => smoother_rate::<f64>(&hi, args.omega)?,
            }
            let _ = word;
        }
        Ok(())
    })
}

/// The red-black smoother on the finest level alone ([`mg::smoothing`], 20 sweeps
/// after a warm-up), from the kernels' CUDA-event times: a color sweep reads u and f and
/// writes u, 3 words a point (both colors share every cache line), against the measured
/// device-to-device copy bandwidth.
fn smoother_rate<T: mint::Real>(
    hi: &mg::Hierarchy,
    omega: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let (mut u, mut f, mut r, ex) = hi.problem::<T>();
    mg::run(&mut u, &mut f, &mut r, &ex, hi, &mg::smoothing(1), omega)?;
    mint::reset_kernel_stats();
    mint::set_timing(true);
    mg::run(&mut u, &mut f, &mut r, &ex, hi, &mg::smoothing(20), omega)?;
    mint::set_timing(false);
    // the only kernel those steps launch: the sweep
    let s = mint::kernel_stats()
        .into_iter()
        .find(|s| s.timed_launches > 0)
        .ok_or("the smoother was not timed")?;
    let mut t = s.samples.clone();
    t.sort_by(|a, b| a.total_cmp(b));
    let per_sweep = t[t.len() / 2];
    let n = hi.n[0];
    let bytes = 3.0 * (n as f64).powi(3) * std::mem::size_of::<T>() as f64;
    let bw = mint::device_copy_bandwidth(1 << 30, 10)?;
    println!(
        "smoother on {n}³: {:.3} ms per color sweep (median of {}), {:.1} GB/s, {:.1}% of the device-to-device copy bandwidth ({:.1} GB/s)",
        per_sweep * 1e3,
        t.len(),
        bytes / per_sweep * 1e-9,
        100.0 * bytes / per_sweep / bw,
        bw * 1e-9
    );
    Ok(())
}
