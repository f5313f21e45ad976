//! The Aliev-Panfilov cardiac model (Mint thesis Sec. 7.3, Table 7.10) in Mint-annotated
//! loops: a spiral wave of electrical excitation on an n×n sheet of tissue.
//!
//! ```text
//! cargo run --release --example cardiac -- -n 4096 -t 100 --precision f32
//! cargo run --release --example cardiac -- -n 512 -t 1000 --plot 2000     # PNG frames
//! ```
//!
//! Prints `Max: … L2norm: …` of the final E (as the thesis's code does), the iteration
//! count, the time, GFLOP/s (28 flops per point, Table 7.9) and GB/s (4 words per point).
//!
//! The region has the `tune` option: on a GPU each kernel is autotuned at its first
//! launch (`--tile` is then the configuration as written, one candidate among others),
//! and the choice is stored for the next run (README, "Autotuning"). `MINT_TUNE=0` runs
//! the kernels as written.

mod model;

use clap::Parser;
use mint::{Backend, Device};
use ndarray::Array2;
use plotters::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(about = "Aliev-Panfilov cardiac model (Mint thesis Sec. 7.3)")]
struct Args {
    /// Interior points per side (the arrays are (n+2)×(n+2)). Default: 4096 on a GPU,
    /// 512 on the CPU.
    #[arg(short = 'n')]
    n: Option<usize>,
    /// Simulated time (model units).
    #[arg(short = 't', default_value_t = 100.0)]
    t: f64,
    /// f32 or f64.
    #[arg(long, default_value = "f64", value_parser = ["f32", "f64"])]
    precision: String,
    /// Write a PNG frame of E every INTERVAL iterations (0: none).
    #[arg(long, default_value_t = 0)]
    plot: usize,
    /// Directory for the frames.
    #[arg(long, default_value = "cardiac-out")]
    out: PathBuf,
    /// tile(x, y) of the fused kernel.
    #[arg(long, value_delimiter = ',', num_args = 1, default_value = "32,8")]
    tile: Vec<u32>,
    /// auto, cpu, cuda or cuda:N (default: MINT_DEVICE, else auto).
    #[arg(long)]
    device: Option<String>,
    /// Also run the plain serial loops from the same start and compare.
    #[arg(long)]
    verify: bool,
    /// Run the model written to be blocked over time (`model::simulate_blocked`: the
    /// walls mirrored into the subscripts, R in a second buffer; on a GPU the time loop
    /// fuses several steps per launch, its depth chosen by timing). Not with `--plot`.
    #[arg(long)]
    blocked: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cardiac: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A diverging blue–white–red map of E over [−0.2, 1.2] (resting tissue blue, excited red).
fn color(v: f64) -> RGBColor {
    let x = ((v + 0.2) / 1.4).clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64, s: f64| (a + (b - a) * s) as u8;
    let (blue, white, red) = (
        (59.0, 76.0, 192.0),
        (242.0, 242.0, 242.0),
        (180.0, 4.0, 38.0),
    );
    let (c0, c1, s) = if x < 0.5 {
        (blue, white, x * 2.0)
    } else {
        (white, red, (x - 0.5) * 2.0)
    };
    RGBColor(
        lerp(c0.0, c1.0, s),
        lerp(c0.1, c1.1, s),
        lerp(c0.2, c1.2, s),
    )
}

/// Writes `dir/E_<iteration>.png`, at most 800×800 pixels (each the mean of the points
/// it covers).
fn write_frame<T: Copy + Into<f64>>(
    dir: &std::path::Path,
    it: usize,
    e: &Array2<T>,
) -> Result<PathBuf, String> {
    let n = e.nrows() - 2;
    let px = n.min(800);
    let path = dir.join(format!("E_{it:07}.png"));
    let root = BitMapBackend::new(&path, (px as u32, px as u32)).into_drawing_area();
    for y in 0..px {
        for x in 0..px {
            let (j0, j1) = (1 + y * n / px, 1 + ((y + 1) * n / px).max(y * n / px + 1));
            let (i0, i1) = (1 + x * n / px, 1 + ((x + 1) * n / px).max(x * n / px + 1));
            let mut s = 0.0;
            for j in j0..j1 {
                for i in i0..i1 {
                    s += e[[j, i]].into();
                }
            }
            let v = s / ((j1 - j0) * (i1 - i0)) as f64;
            // row j grows upwards in the picture
            root.draw_pixel((x as i32, (px - 1 - y) as i32), &color(v))
                .map_err(|e| format!("drawing {}: {e}", path.display()))?;
        }
    }
    root.present()
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    drop(root);
    Ok(path)
}

macro_rules! run_precision {
    ($t:ident, $args:expr, $n:expr) => {{
        let (args, n) = ($args, $n);
        let (mut e_prev, mut r) = model::initial::<$t>(n);
        let mut e = e_prev.clone();
        let mut frames = Vec::new();
        let mut frame_err = None;
        let mut frame = |it: usize, ep: &Array2<$t>| match write_frame(&args.out, it, ep) {
            Ok(p) => frames.push(p),
            Err(err) => frame_err = Some(err),
        };
        let tile = <[u32; 2]>::try_from(args.tile.as_slice())
            .map_err(|_| format!("--tile takes two values x,y, got {}", args.tile.len()))?;
        let mut r_next = r.clone();
        let t0 = std::time::Instant::now();
        let niter = if args.blocked {
            let steps = model::iterations(n, args.t);
            model::simulate_blocked::<$t>(&mut e, &mut e_prev, &mut r, &mut r_next, steps)?;
            steps
        } else {
            model::simulate::<$t>(&mut e, &mut e_prev, &mut r, args.t, tile, args.plot, &mut frame)?
        };
        let secs = t0.elapsed().as_secs_f64();
        if let Some(err) = frame_err {
            return Err(err.into());
        }
        let (mx, l2) = model::stats(&e_prev);
        if args.verify {
            let (mut want, mut r_want) = model::initial::<$t>(n);
            let iters = model::serial::<$t>(&mut want, &mut r_want, args.t);
            // the interior: the blocked model leaves the ghost ring that the mirror writes
            let inner = ndarray::s![1..n + 1, 1..n + 1];
            let (got, want) = (e_prev.slice(inner), want.slice(inner));
            let scale = want.iter().fold(0.0f64, |m, &v| m.max((v as f64).abs()));
            let err = got
                .iter()
                .zip(want.iter())
                .fold(0.0f64, |m, (&a, &b)| m.max(((a - b) as f64).abs()))
                / scale;
            println!("verify: {iters} serial iterations; largest difference of E {err:.3e} of its maximum");
        }
        // The kernels' device times, from a short continuation with every launch timed
        // by CUDA events (timing holds launches back from CUDA graphs, so the run above
        // is not timed).
        let (dt, _) = model::step_size(n);
        let timed = niter.min(2000);
        mint::reset_kernel_stats();
        mint::set_timing(true);
        if args.blocked {
            model::simulate_blocked::<$t>(&mut e.clone(), &mut e_prev.clone(), &mut r.clone(), &mut r_next, timed)?;
        } else {
            model::simulate::<$t>(
                &mut e.clone(),
                &mut e_prev.clone(),
                &mut r.clone(),
                dt * (timed as f64 - 0.5),
                tile,
                0,
                &mut |_, _| {},
            )?;
        }
        mint::set_timing(false);
        (niter, timed, secs, mx, l2, frames, std::mem::size_of::<$t>())
    }};
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    if !(args.t > 0.0 && args.t.is_finite()) {
        return Err(format!("-t {} must be a positive simulated time", args.t).into());
    }
    let device = match &args.device {
        Some(d) => Device::parse(d)?,
        None => Device::from_env()?,
    };
    mint::with_device(device, || {
        let backend = mint::backend()?;
        let on_gpu = matches!(backend, Backend::Cuda(_));
        let n = args.n.unwrap_or(if on_gpu { 4096 } else { 512 });
        if n < 3 {
            return Err(
                format!("-n {n}: the domain needs at least 3 interior points per side").into(),
            );
        }
        if args.plot > 0 && args.blocked {
            return Err("--plot copies E back between steps, which a blocked time loop cannot: drop --blocked".into());
        }
        if args.plot > 0 {
            std::fs::create_dir_all(&args.out)
                .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
        }
        let (dt, alpha) = model::step_size(n);
        println!(
            "cardiac: Aliev-Panfilov, {n}×{n} points, T = {}, dt = {dt:.6e}, alpha = {alpha:.6e}, {}",
            args.t, args.precision
        );
        println!("backend: {}", backend.describe());
        let (niter, timed, secs, mx, l2, frames, bytes) = if args.precision == "f32" {
            run_precision!(f32, args, n)
        } else {
            run_precision!(f64, args, n)
        };
        let points = (n * n) as f64 * niter as f64;
        println!("Max: {mx:.6e} L2norm: {l2:.6e}");
        if mint::tune::searches() > 0 {
            println!(
                "autotuner (`tune`): {} kernel(s) tuned in {:.2} s, included in the time below; a second run reads the stored choices",
                mint::tune::searches(),
                mint::tune::search_seconds()
            );
        }
        println!(
            "{niter} iterations in {secs:.3} s (transfers included): {:.1} GFLOP/s ({} flops/point), {:.1} GB/s ({} words/point)",
            points * model::FLOPS_PER_POINT / secs * 1e-9,
            model::FLOPS_PER_POINT,
            points * model::WORDS_PER_POINT * bytes as f64 / secs * 1e-9,
            model::WORDS_PER_POINT
        );
        let stats = mint::kernel_stats();
        // a blocked launch runs several iterations: the device time over the iterations
        let per_iteration: f64 = stats
            .iter()
            .filter(|s| s.kernel.contains("simulate_") && s.timed_launches > 0)
            .map(|s| s.device_seconds)
            .sum::<f64>()
            / timed as f64;
        if per_iteration > 0.0 {
            println!(
                "{:.2} us per iteration, the kernels {:.2} us of it on the device (CUDA events, a timed continuation): {:.2}x",
                secs / niter as f64 * 1e6,
                per_iteration * 1e6,
                secs / niter as f64 / per_iteration
            );
        }
        if let Some(s) = stats
            .into_iter()
            .find(|s| s.kernel.ends_with("simulate_1") && s.timed_launches > 0)
        {
            let per = s.device_seconds / s.timed_launches as f64;
            let gbs = (n * n) as f64 * model::WORDS_PER_POINT * bytes as f64 / per * 1e-9;
            let copy = mint::device_copy_bandwidth(1 << 30, 10)
                .map(|b| b * 1e-9)
                .unwrap_or(f64::NAN);
            println!(
                "fused kernel alone (CUDA events): {:.3} ms/iteration, {:.1} GFLOP/s, {gbs:.1} GB/s = {:.1}% of the \
                 {copy:.0} GB/s device-to-device copy",
                per * 1e3,
                (n * n) as f64 * model::FLOPS_PER_POINT / per * 1e-9,
                100.0 * gbs / copy
            );
        }
        if !frames.is_empty() {
            println!("wrote {} frames to {}", frames.len(), args.out.display());
        }
        Ok(())
    })
}
