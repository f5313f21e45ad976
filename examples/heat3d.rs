//! The 7-point 3-D heat equation of the Mint thesis (Table 3.1), on the GPU when there is
//! one and on the CPU otherwise.
//!
//! ```text
//! cargo run --release --example heat3d -- --verify
//! cargo run --release --example heat3d -- --n 512 --steps 100 --precision f32
//! cargo run --release --example heat3d -- --n 512 --steps 100 --level opt-3
//! cargo run --release --example heat3d -- --level baseline --tile 32,8,1 --chunk 1,1,1
//! ```
//!
//! The kernel is tuned by default (`--level tune`: `#[mint::parallel(tune)]`, see the
//! README's "Autotuning"); the warm-up run of two steps tunes it (and makes the first
//! halo exchange on several devices), so the timed steps run the choice.
//! Prints the backend, time per step, GPts/s, GFLOP/s (8 flops per point, thesis Table
//! 6.3), effective bandwidth (one read and one write per point per step) and, on a GPU,
//! its fraction of the device-to-device copy bandwidth measured in the same run. The
//! host↔device copies (`copy!`) are reported on their own line.

use clap::Parser;
use mint::{Backend, Device};
use mint_kernels::{Level, heat3d};
use ndarray::Array3;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(about = "7-point 3-D heat equation (Mint thesis Table 3.1)")]
struct Args {
    /// Grid points per dimension (the grid is n×n×n, boundary included).
    /// Default: 512 on a GPU, 128 on the CPU.
    #[arg(long)]
    n: Option<usize>,
    /// Time steps. Default: 100 on a GPU, 20 on the CPU.
    #[arg(long)]
    steps: Option<usize>,
    /// Optimization level: tune (the default: the autotuner picks options, tile and
    /// chunksize at the first launch on a GPU and stores the choice), baseline, opt-1
    /// (shared), opt-2 (shared + chunksize in z), opt-3 (opt-2 + register), register,
    /// opt-3+L1, opt-3+y (thesis Sec. 6.2.2), vector, vector+z.
    #[arg(long, default_value = "tune")]
    level: String,
    /// tile(x, y, z): points one thread block computes (default: the level's).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    tile: Option<Vec<u32>>,
    /// chunksize(x, y, z): points one thread computes (default: the level's).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    chunk: Option<Vec<u32>>,
    /// f32 or f64.
    #[arg(long, default_value = "f64")]
    precision: String,
    /// auto, cpu, cpu:N, cuda, cuda:N, cuda:0,1 or cuda:all (default: MINT_DEVICE, else auto).
    #[arg(long)]
    device: Option<String>,
    /// Compare with a serial reference run on the same input.
    #[arg(long)]
    verify: bool,
}

fn init<T: From<f32> + Copy>(n: usize) -> Array3<T> {
    // a smooth bump plus a deterministic ripple: every point differs
    Array3::from_shape_fn((n, n, n), |(z, y, x)| {
        let (fz, fy, fx) = (
            z as f32 / n as f32,
            y as f32 / n as f32,
            x as f32 / n as f32,
        );
        let bump = (-(((fx - 0.5).powi(2) + (fy - 0.5).powi(2) + (fz - 0.5).powi(2)) * 20.0)).exp();
        T::from(bump + 0.01 * (((x * 7 + y * 13 + z * 29) % 17) as f32))
    })
}

macro_rules! run {
    ($t:ident, $args:expr, $n:expr, $steps:expr, $on_gpu:expr) => {{
        let args = $args;
        let (n, steps) = ($n, $steps);
        let (level, tile, chunk) = clauses(args)?;
        let opts = level.opts();
        let (c0, c1): ($t, $t) = (0.4, 0.1);
        let u0 = init::<$t>(n);
        // warm-up: compiles (or loads) the kernel, touches the device and, in its second
        // step, makes the first halo exchange on several devices (NCCL's communicator)
        {
            let (mut u, mut v) = (u0.clone(), u0.clone());
            heat3d::$t::run(opts, &mut u, &mut v, c0, c1, 2, tile, chunk)?;
        }
        mint::reset_kernel_stats();
        mint::set_timing($on_gpu);
        let (mut u, mut v) = (u0.clone(), u0.clone());
        let t0 = Instant::now();
        heat3d::$t::run(opts, &mut u, &mut v, c0, c1, steps, tile, chunk)?;
        let wall = t0.elapsed().as_secs_f64();
        mint::set_timing(false);
        // the level's kernel (`k_<level>_0`) of this precision's module
        let kernel_s = mint::kernel_stats()
            .into_iter()
            .find(|s| {
                s.kernel
                    .starts_with(concat!("mint_kernels::heat3d::", stringify!($t), "::"))
                    && s.timed_launches > 0
            })
            .map(|s| s.device_seconds / s.timed_launches as f64);
        let verify = if args.verify {
            let mut r = u0.clone();
            let t = Instant::now();
            heat3d::$t::serial(&mut r, c0, c1, steps);
            let scale = r.iter().fold(0.0f64, |m, &x| m.max((x as f64).abs()));
            let err = u
                .iter()
                .zip(r.iter())
                .fold(0.0f64, |m, (&a, &b)| m.max(((a - b) as f64).abs()))
                / scale;
            Some((err, t.elapsed().as_secs_f64()))
        } else {
            None
        };
        (wall, kernel_s, verify, std::mem::size_of::<$t>() as f64)
    }};
}

/// The level and its `tile`/`chunksize`, overridden by `--tile`/`--chunk`.
type Clauses = (Level, [u32; 3], [u32; 3]);

fn clauses(args: &Args) -> Result<Clauses, Box<dyn std::error::Error>> {
    let level = Level::parse(&args.level).ok_or_else(|| {
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        format!("--level must be one of {}", names.join(", "))
    })?;
    let (mut tile, mut chunk) = level.config(3);
    let three = |v: &Vec<u32>, flag: &str| -> Result<[u32; 3], String> {
        <[u32; 3]>::try_from(v.as_slice())
            .map_err(|_| format!("{flag} takes three values x,y,z, got {}", v.len()))
    };
    if let Some(t) = &args.tile {
        tile = three(t, "--tile")?;
    }
    if let Some(c) = &args.chunk {
        chunk = three(c, "--chunk")?;
    }
    Ok((level, tile, chunk))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let device = match &args.device {
        Some(d) => Device::parse(d)?,
        None => Device::from_env()?,
    };
    mint::with_device(device, || -> Result<(), Box<dyn std::error::Error>> {
        let backend = mint::backend()?;
        let on_gpu = matches!(backend, Backend::Cuda(_) | Backend::CudaSplit(_));
        // several GPUs, or GPUs of several MPI ranks: launches are timed on the host
        let split = matches!(backend, Backend::CudaSplit(_)) || (on_gpu && mint::ranks::size() > 1);
        let n = args.n.unwrap_or(if on_gpu { 512 } else { 128 });
        let steps = args.steps.unwrap_or(if on_gpu { 100 } else { 20 });
        if n < 3 || steps == 0 {
            return Err("need --n of at least 3 and at least one step".into());
        }
        println!(
            "heat3d: 7-point stencil, {n}^3 grid, {steps} steps, {}",
            args.precision
        );
        println!("backend: {}", backend.describe());
        if on_gpu {
            let (level, t, c) = clauses(&args)?;
            println!(
                "level {} ({:?}): nest(all) tile({}, {}, {}) chunksize({}, {}, {})",
                level.name(),
                level.opts(),
                t[0],
                t[1],
                t[2],
                c[0],
                c[1],
                c[2]
            );
        }
        let (wall, kernel_s, verify, word) = match args.precision.as_str() {
            "f64" => run!(f64, &args, n, steps, on_gpu),
            "f32" => run!(f32, &args, n, steps, on_gpu),
            p => return Err(format!("--precision must be f32 or f64, not {p}").into()),
        };
        let points = ((n - 2) as f64).powi(3);
        let per_step = kernel_s.unwrap_or(wall / steps as f64);
        let gpts = points / per_step * 1e-9;
        let gbs = points * heat3d::WORDS_PER_POINT * word / per_step * 1e-9;
        println!(
            "time per step: {:.3} ms ({})",
            per_step * 1e3,
            if kernel_s.is_some() && split {
                "per launch on several GPUs, timed on the host: halo exchange and the slowest GPU"
            } else if kernel_s.is_some() {
                "kernel time, CUDA events"
            } else {
                "wall clock"
            }
        );
        println!(
            "rate: {gpts:.2} GPts/s, {:.1} GFLOP/s ({} flops/point), {gbs:.1} GB/s effective",
            gpts * heat3d::FLOPS_PER_POINT,
            heat3d::FLOPS_PER_POINT
        );
        println!(
            "whole run (transfers and allocation included): {:.3} s",
            wall
        );
        let t = mint::transfer_stats();
        if t.to_device_copies + t.from_device_copies > 0 {
            println!(
                "transfers: {} to the device, {:.2} GB in {:.3} s ({:.1} GB/s); {} back, {:.2} GB in {:.3} s ({:.1} GB/s)",
                t.to_device_copies,
                t.to_device_bytes * 1e-9,
                t.to_device_seconds,
                t.to_device_rate() * 1e-9,
                t.from_device_copies,
                t.from_device_bytes * 1e-9,
                t.from_device_seconds,
                t.from_device_rate() * 1e-9
            );
        }
        if on_gpu {
            let bw = mint::device_copy_bandwidth(1 << 30, 10)?;
            println!(
                "device-to-device copy: {:.1} GB/s; this run reaches {:.1}% of it ({:.1} GPts/s bound)",
                bw * 1e-9,
                100.0 * gbs * 1e9 / bw,
                bw / (heat3d::WORDS_PER_POINT * word) * 1e-9
            );
            let j = mint::jit_stats();
            println!(
                "JIT: {} kernel(s) compiled in {:.3} s, {} loaded from the disk cache",
                j.compiled, j.compile_seconds, j.disk_cache_hits
            );
        }
        if let Some((err, t)) = verify {
            let tol = if word == 4.0 { 1e-5 } else { 1e-12 };
            println!(
                "verify: max relative error {err:.3e} against the serial reference ({t:.1} s); tolerance {tol:e}"
            );
            if err > tol {
                return Err("verification FAILED".into());
            }
            println!("verify: PASS");
        }
        Ok(())
    })
}
