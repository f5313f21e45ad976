//! 3-D elastic wave propagation in the style of AWP-ODC (Mint thesis Sec. 7.1): the
//! velocity–stress system on a staggered grid, 4th order in space and 2nd in time, with
//! a free surface and a Cerjan sponge, driven by moment-tensor point sources, written as
//! Mint-annotated loops.
//!
//! ```text
//! cargo run --release --example seismic -- examples/seismic/loh1.toml
//! cargo run --release --example seismic -- examples/seismic/loh1.toml --resolution coarse
//! cargo run --release --example seismic -- compare examples/seismic/loh1.toml seismic-out \
//!     examples/seismic/reference/loh1 --lowpass 3
//! ```
//!
//! Reads a TOML configuration (see `loh1.toml`), checks it (CFL number, receivers inside
//! the grid, ...), runs on the GPU when there is one (the full resolution) and on the CPU
//! otherwise (the `[grid.coarse]` resolution), and writes per-receiver seismograms as CSV
//! (t, vx, vy, vz in m/s; x east, y north, z up), `seismograms.png` and a map of peak
//! ground velocity `pgv.png`.
//!
//! The region has the `tune` option: on a GPU each kernel is autotuned at its first
//! launch for the grid (`--tile` is then the configuration as written, one candidate
//! among others), and the choice is stored for the next run (README, "Autotuning").
//! `MINT_TUNE=0` runs the kernels as written.

mod compare;
mod config;
mod model;
mod output;
mod solver;
mod stencil;

use clap::Parser;
use config::Config;
use indicatif::{ProgressBar, ProgressStyle};
use mint::{Backend, Device};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    about = "AWP-ODC-style 3-D elastic wave propagation (Mint thesis Sec. 7.1)",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The configuration file (TOML), e.g. examples/seismic/loh1.toml.
    #[arg(required = true)]
    config: Option<PathBuf>,
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

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Compares a run's seismograms with reference ones (e.g. the FK traces in
    /// examples/seismic/reference/): both low-passed by a zero-phase 4th-order
    /// Butterworth filter, rotated to radial/transverse/vertical; prints correlation,
    /// lag, peak ratio and relative L2 misfit per component and draws compare-NAME.png.
    Compare {
        /// The configuration of the run (for the epicentre and the receivers).
        config: PathBuf,
        /// The run's output directory (its NAME.csv files).
        run: PathBuf,
        /// The directory of the reference NAME.csv files.
        reference: PathBuf,
        /// Corner frequency (Hz) of the low-pass.
        #[arg(long, default_value_t = 3.0)]
        lowpass: f64,
        /// Where the overlay pictures go (default: the run's directory).
        #[arg(long)]
        plots: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match &args.command {
        Some(Command::Compare {
            config,
            run,
            reference,
            lowpass,
            plots,
        }) => compare_runs(config, run, reference, *lowpass, plots.as_deref()),
        None => run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seismic: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `seismic compare`: see [`Command::Compare`].
fn compare_runs(
    config: &std::path::Path,
    run: &std::path::Path,
    reference: &std::path::Path,
    fc: f64,
    plots: Option<&std::path::Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    if !config::positive(fc) {
        return Err(format!("--lowpass {fc} must be a positive frequency (Hz)").into());
    }
    let cfg = Config::load(config)?;
    let Some(src) = cfg.sources.first() else {
        return Err(format!("{} has no source: no epicentre", config.display()).into());
    };
    let epicentre = [src.location[0], src.location[1]];
    println!(
        "{:<12} {:<10} {:>11} {:>9} {:>10} {:>8}   (low-passed at {fc} Hz; lag < 0: {} early)",
        "receiver",
        "component",
        "correlation",
        "lag (ms)",
        "peak ratio",
        "misfit",
        run.display()
    );
    let mut compared = 0;
    for r in &cfg.receivers {
        let ref_path = reference.join(format!("{}.csv", r.name));
        if !ref_path.exists() {
            println!("{:<12} no reference {}", r.name, ref_path.display());
            continue;
        }
        let ours = compare::Trace::read(&run.join(format!("{}.csv", r.name)))?;
        let theirs = compare::Trace::read(&ref_path)?;
        let az = compare::azimuth(epicentre, [r.location[0], r.location[1]]);
        let c = compare::compare(&ours, &theirs, az, fc);
        for (k, m) in c.measures.iter().enumerate() {
            match m {
                Some(m) => println!(
                    "{:<12} {:<10} {:>11.4} {:>+9.1} {:>10.3} {:>7.1}%",
                    r.name,
                    compare::COMPONENTS[k],
                    m.correlation,
                    m.lag * 1e3,
                    m.peak_ratio,
                    100.0 * m.misfit
                ),
                None => println!(
                    "{:<12} {:<10} nodal in the reference (peak under {}% of the receiver's)",
                    r.name,
                    compare::COMPONENTS[k],
                    100.0 * compare::NODAL
                ),
            }
        }
        let dir = plots.unwrap_or(run);
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let png = dir.join(format!("compare-{}.png", r.name));
        compare::overlay_png(
            &png,
            &format!(
                "{} {} — low-passed at {fc} Hz (azimuth {az:.1}°)",
                cfg.title, r.name
            ),
            &c,
            "Mint",
            "reference",
        )
        .map_err(|e| format!("drawing {}: {e}", png.display()))?;
        compared += 1;
    }
    if compared == 0 {
        return Err(format!(
            "no receiver of {} has a reference in {}",
            config.display(),
            reference.display()
        )
        .into());
    }
    Ok(())
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let config = args
        .config
        .as_ref()
        .expect("clap requires the configuration");
    let mut cfg = Config::load(config)?;
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
        let gpus = matches!(backend, Backend::CudaSplit(_));
        let coarse = match args.resolution.as_str() {
            "full" => false,
            "coarse" => true,
            "auto" => !(on_gpu || gpus),
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
        if let Some(a) = &setup.medium.anelastic {
            let r = &a.relaxation;
            let [f0, f1] = cfg.attenuation.band;
            // the fitted 1/Q over the band, relative to the target (first order in 1/Q)
            let dev = (0..=64)
                .map(|n| f0 * (f1 / f0).powf(n as f64 / 64.0))
                .map(|f| (r.inverse_q(1.0, f) - 1.0).abs())
                .fold(0.0f64, f64::max);
            println!(
                "anelastic: 8 relaxation times over {f0}–{f1} Hz (memory variables r1..r6), Q \
                 constant within ±{:.1}% over the band; Vp, Vs are phase velocities at {} Hz",
                100.0 * dev,
                r.reference
            );
        }
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
        mint::set_timing(on_gpu || gpus);
        let out = solver::run(&setup, tile, &mut progress)?;
        mint::set_timing(false);
        if on_gpu || gpus {
            // every kernel of a step, without the transfers before and after the time loop:
            // CUDA events on one GPU; on several, each launch timed on the host from its
            // halo exchange to the slowest GPU
            let step: f64 = mint::kernel_stats()
                .iter()
                .filter(|s| s.timed_launches > 0)
                .map(|s| s.device_seconds / s.timed_launches as f64)
                .sum();
            println!(
                "time loop without transfers: {:.3} ms/step ({})",
                step * 1e3,
                if gpus {
                    "launches timed on the host, halo exchanges included"
                } else {
                    "CUDA events"
                }
            );
        }
        bar.finish();
        if mint::tune::searches() > 0 {
            println!(
                "autotuner (`tune`): {} kernel(s) tuned in {:.2} s, included in the time below; a second run reads the stored choices",
                mint::tune::searches(),
                mint::tune::search_seconds()
            );
        }
        let per_step = out.seconds / setup.nsteps as f64;
        let words = if setup.medium.anelastic.is_some() {
            solver::ANELASTIC_WORDS_PER_POINT
        } else {
            solver::WORDS_PER_POINT
        };
        println!(
            "{} steps in {:.2} s: {:.3} ms/step, {:.1} Mpts/s, {:.1} GFLOP/s and {:.0} GB/s in the \
             thesis's counts ({} flops, {} words per point, Table 7.3); {:.0} GB/s of this solver's \
             compulsory traffic ({words} words per point)",
            setup.nsteps,
            out.seconds,
            per_step * 1e3,
            points / per_step * 1e-6,
            points * solver::THESIS_FLOPS_PER_POINT / per_step * 1e-9,
            points * solver::THESIS_WORDS_PER_POINT * 4.0 / per_step * 1e-9,
            solver::THESIS_FLOPS_PER_POINT,
            solver::THESIS_WORDS_PER_POINT,
            points * words * 4.0 / per_step * 1e-9,
        );
        if on_gpu {
            // device time of each kernel (CUDA events), and the bandwidth of the two that
            // carry the work (the nests over every interior point, velocity first in the
            // source), against the device-to-device copy
            let copy = mint::device_copy_bandwidth(1 << 30, 10)? * 1e-9;
            let stats = mint::kernel_stats();
            let per = |s: &mint::KernelStats| s.device_seconds / s.timed_launches.max(1) as f64;
            let line = |s: &mint::KernelStats| {
                s.location
                    .rsplit(':')
                    .next()
                    .and_then(|l| l.parse::<u32>().ok())
                    .unwrap_or(0)
            };
            let mut big: Vec<&mint::KernelStats> = stats
                .iter()
                .filter(|s| s.timed_launches > 0)
                .filter(|s| (s.points / s.timed_launches as f64 - points).abs() < 0.5)
                .collect();
            big.sort_by_key(|s| line(s));
            let (vel, str_) = match big.as_slice() {
                [v, s] => (per(v), per(s)),
                _ => {
                    return Err(
                        "expected two kernels over the whole grid (velocity, stress)".into(),
                    );
                }
            };
            let other: f64 = stats.iter().map(per).sum::<f64>() - vel - str_;
            let gbs = |words: f64, sec: f64| points * words * 4.0 / sec * 1e-9;
            println!(
                "kernels (CUDA events, per step): velocity {:.3} ms ({:.0} GB/s), stress {:.3} ms ({:.0} GB/s), \
                 the small ones {:.3} ms; velocity + stress {:.1} GFLOP/s in the thesis's count, \
                 {:.0} GB/s = {:.1}% of the {copy:.0} GB/s copy in the thesis's 56 words, {:.1}% in this \
                 solver's {words} words",
                vel * 1e3,
                gbs(15.0, vel),
                str_ * 1e3,
                gbs(words - 15.0, str_),
                other * 1e3,
                points * solver::THESIS_FLOPS_PER_POINT / (vel + str_) * 1e-9,
                gbs(solver::THESIS_WORDS_PER_POINT, vel + str_),
                100.0 * gbs(solver::THESIS_WORDS_PER_POINT, vel + str_) / copy,
                100.0 * gbs(words, vel + str_) / copy,
            );
        }
        // Across MPI ranks (`--features mpi`, `mpirun -np P`) each rank writes the
        // seismograms of the receivers in the planes its devices own, and the rank that
        // owns the free surface the pictures (one process: everything).
        let share = output::Share::of(&setup);
        let dir = args.out.clone().unwrap_or_else(|| cfg.output.dir.clone());
        let written = output::write(&dir, &setup, &out, cfg.output.plots, &share)?;
        if written.is_empty() {
            return Ok(());
        }
        if mint::ranks::size() > 1 {
            print!("rank {}: ", mint::ranks::rank());
        }
        println!("wrote {} files to {}:", written.len(), dir.display());
        for w in written {
            println!("  {}", w.display());
        }
        Ok(())
    })
}
