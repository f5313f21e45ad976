//! 3-D elastic wave propagation in the style of AWP-ODC (Mint thesis Sec. 7.1): the
//! velocity–stress system on a staggered grid, 4th order in space and 2nd in time, with
//! a free surface and a Cerjan sponge, driven by moment-tensor point sources, written as
//! Mint-annotated loops.
//!
//! ```text
//! cargo run --release --example seismic -- examples/seismic/loh1.toml
//! cargo run --release --example seismic -- examples/seismic/loh1.toml --resolution coarse
//! ```
//!
//! Reads a TOML configuration (see `loh1.toml`), checks it (CFL number, receivers inside
//! the grid, ...), runs on the GPU when there is one (the full resolution) and on the CPU
//! otherwise (the `[grid.coarse]` resolution), and writes per-receiver seismograms as CSV
//! (t, vx, vy, vz in m/s; x east, y north, z up), `seismograms.png` and a map of peak
//! ground velocity `pgv.png`.

mod config;
mod model;
mod output;
mod solver;

use clap::Parser;
use config::Config;
use indicatif::{ProgressBar, ProgressStyle};
use mint::{Backend, Device};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(about = "AWP-ODC-style 3-D elastic wave propagation (Mint thesis Sec. 7.1)")]
struct Args {
    /// The configuration file (TOML), e.g. examples/seismic/loh1.toml.
    config: PathBuf,
    /// full, coarse, or auto: full on a GPU, the `[grid.coarse]` resolution on the CPU.
    #[arg(long, default_value = "auto")]
    resolution: String,
    /// Simulated seconds (default: the configuration's duration).
    #[arg(long)]
    duration: Option<f64>,
    /// Output directory (default: the configuration's `output.dir`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// tile(x, y, z) of the velocity and stress kernels.
    #[arg(long, value_delimiter = ',', num_args = 1, default_value = "32,4,1")]
    tile: Vec<u32>,
    /// auto, cpu, cuda or cuda:N (default: MINT_DEVICE, else auto).
    #[arg(long)]
    device: Option<String>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seismic: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let mut cfg = Config::load(&args.config)?;
    if let Some(d) = args.duration {
        if !config::positive(d) {
            return Err(format!("--duration {d} must be positive (seconds)").into());
        }
        cfg.grid.duration = d;
    }
    let device = match &args.device {
        Some(d) => Device::parse(d)?,
        None => Device::from_env()?,
    };
    mint::with_device(device, || {
        let backend = mint::backend()?;
        let on_gpu = matches!(backend, Backend::Cuda(_));
        let coarse = match args.resolution.as_str() {
            "full" => false,
            "coarse" => true,
            "auto" => !on_gpu,
            other => {
                return Err(
                    format!("--resolution must be full, coarse or auto, not `{other}`").into(),
                );
            }
        };
        let (h, dt) = match (coarse, cfg.grid.coarse) {
            (true, Some(c)) => (c.spacing, c.dt),
            _ => (cfg.grid.spacing, cfg.grid.dt),
        };
        let setup = model::build(&cfg, h, dt)?;
        let [nx, ny, nz] = setup.n;
        println!(
            "seismic: {} — {}×{}×{} points at h = {h} m, dt = {dt} s, {} steps ({} s); CFL {:.3}; \
             {:.1} points per minimum S wavelength at 1 Hz",
            if setup.title.is_empty() {
                "run"
            } else {
                &setup.title
            },
            nx,
            ny,
            nz,
            setup.nsteps,
            cfg.grid.duration,
            dt * setup.medium.vp_max / h,
            setup.medium.vs_min / h
        );
        println!("backend: {}", backend.describe());
        let bar = if args.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(setup.nsteps as u64)
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {msg}  eta {eta}")
                .expect("a valid template"),
        );
        let t0 = std::time::Instant::now();
        let points = setup.points();
        let mut progress = |step: usize| {
            if step % 10 == 9 || step + 1 == setup.nsteps {
                let el = t0.elapsed().as_secs_f64();
                bar.set_position(step as u64 + 1);
                bar.set_message(format!(
                    "t = {:.3} s, {:.1} Mpts/s",
                    (step + 1) as f64 * dt,
                    points * (step + 1) as f64 / el * 1e-6
                ));
            }
        };
        let tile = <[u32; 3]>::try_from(args.tile.as_slice())
            .map_err(|_| format!("--tile takes three values x,y,z, got {}", args.tile.len()))?;
        mint::set_timing(on_gpu);
        let out = solver::run(&setup, tile, &mut progress)?;
        mint::set_timing(false);
        bar.finish();
        let per_step = out.seconds / setup.nsteps as f64;
        println!(
            "{} steps in {:.2} s: {:.3} ms/step, {:.1} Mpts/s, {:.1} GFLOP/s and {:.0} GB/s in the \
             thesis's counts ({} flops, {} words per point, Table 7.3); {:.0} GB/s of this solver's \
             compulsory traffic ({} words per point)",
            setup.nsteps,
            out.seconds,
            per_step * 1e3,
            points / per_step * 1e-6,
            points * solver::THESIS_FLOPS_PER_POINT / per_step * 1e-9,
            points * solver::THESIS_WORDS_PER_POINT * 4.0 / per_step * 1e-9,
            solver::THESIS_FLOPS_PER_POINT,
            solver::THESIS_WORDS_PER_POINT,
            points * solver::WORDS_PER_POINT * 4.0 / per_step * 1e-9,
            solver::WORDS_PER_POINT
        );
        if on_gpu {
            // device time of each kernel (CUDA events), and the bandwidth of the two that
            // carry the work, against the device-to-device copy
            let copy = mint::device_copy_bandwidth(1 << 30, 10)? * 1e-9;
            let stats = mint::kernel_stats();
            let (mut vel, mut str_, mut other) = (0.0, 0.0, 0.0);
            for s in &stats {
                let per = s.device_seconds / s.timed_launches.max(1) as f64;
                match s.kernel.rsplit('_').next() {
                    Some("0") => vel = per,
                    Some("5") => str_ = per,
                    _ => other += per,
                }
            }
            let gbs = |words: f64, sec: f64| points * words * 4.0 / sec * 1e-9;
            println!(
                "kernels (CUDA events, per step): velocity {:.3} ms ({:.0} GB/s), stress {:.3} ms ({:.0} GB/s), \
                 the 6 small ones {:.3} ms; velocity + stress {:.1} GFLOP/s in the thesis's count, \
                 {:.0} GB/s = {:.1}% of the {copy:.0} GB/s copy in the thesis's 56 words, {:.1}% in this \
                 solver's {} words",
                vel * 1e3,
                gbs(15.0, vel),
                str_ * 1e3,
                gbs(20.0, str_),
                other * 1e3,
                points * solver::THESIS_FLOPS_PER_POINT / (vel + str_) * 1e-9,
                gbs(solver::THESIS_WORDS_PER_POINT, vel + str_),
                100.0 * gbs(solver::THESIS_WORDS_PER_POINT, vel + str_) / copy,
                100.0 * gbs(solver::WORDS_PER_POINT, vel + str_) / copy,
                solver::WORDS_PER_POINT
            );
        }
        let dir = args.out.clone().unwrap_or_else(|| cfg.output.dir.clone());
        let written = output::write(&dir, &setup, &out, cfg.output.plots)?;
        println!("wrote {} files to {}:", written.len(), dir.display());
        for w in written {
            println!("  {}", w.display());
        }
        Ok(())
    })
}
