//! 3-D Harris interest points (Mint thesis Sec. 7.2, Table 7.6): the corners of objects
//! in a volume, from a Gaussian-weighted window of gradient products around every voxel.
//!
//! ```text
//! cargo run --release --example harris -- --phantom 128              # synthetic boxes
//! cargo run --release --example harris -- brain.nii.gz --window 5    # a NIfTI volume
//! ```
//!
//! The input is a NIfTI-1 volume (`.nii` or `.nii.gz`, read with the `nifti` crate; a
//! 4-D file gives its first volume), or `--phantom N`, an N³ volume of two smoothed boxes
//! with 16 known corners. Opacities are scaled to [0, 1]. It writes `corners.csv` (`z, y,
//! x, score`, voxel indices `[z, y, x]` with x the fastest axis of the file) and PNG
//! slices with the interest points marked, and prints the kernel's time and GFLOP/s in
//! the thesis's count next to thesis Table 7.8. With `--verify` it also runs the plain
//! serial loops and prints the largest difference. The Mint kernel is autotuned at its
//! first launch on a GPU (`tune`; `MINT_TUNE=0` runs it as written with `--tile`).

mod detect;
mod volume;

use clap::Parser;
use image::{Rgb, RgbImage};
use mint::{Backend, Device};
use ndarray::Array3;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(about = "3-D Harris interest points (Mint thesis Sec. 7.2)")]
struct Args {
    /// A NIfTI-1 volume (.nii or .nii.gz). Leave out with --phantom.
    input: Option<PathBuf>,
    /// Use an N³ synthetic volume of two boxes with known corners instead of a file.
    #[arg(long, value_name = "N")]
    phantom: Option<usize>,
    /// Window edge in voxels: 3, 5 (the thesis's) or 7.
    #[arg(long, default_value_t = 5)]
    window: usize,
    /// Interest points score above this fraction of the highest score.
    #[arg(long, default_value_t = 0.01)]
    threshold: f32,
    /// tile(x, y, z) of the kernel as written.
    #[arg(long, value_delimiter = ',', num_args = 1, default_value = "32,8,1")]
    tile: Vec<u32>,
    /// Directory for corners.csv and the PNG slices.
    #[arg(long, default_value = "harris-out")]
    out: PathBuf,
    /// PNG slices to write (the z slices with the most interest points).
    #[arg(long, default_value_t = 4)]
    slices: usize,
    /// auto, cpu or cuda[:N] (default: MINT_DEVICE, else auto).
    #[arg(long)]
    device: Option<String>,
    /// Also compute the scores in plain serial loops and compare.
    #[arg(long)]
    verify: bool,
    /// Stream the volume through the device in slabs (`#[mint::parallel(stream)]`),
    /// overlapping its copies with the kernel; with MINT_DEVICE_MEMORY smaller than the
    /// volume, the way to process it at all.
    #[arg(long)]
    stream: bool,
    /// Hold the volume and the scores in page-locked memory (`mint::PinnedArray3`), so
    /// that `copy!` moves them at the link's speed with no staging (window 5 only).
    #[arg(long)]
    pinned: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("harris: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let device = match &args.device {
        Some(d) => Device::parse(d)?,
        None => Device::from_env()?,
    };
    let tile = <[u32; 3]>::try_from(args.tile.as_slice())
        .map_err(|_| format!("--tile takes three values x,y,z, got {}", args.tile.len()))?;
    if !detect::WINDOWS.contains(&args.window) {
        return Err(format!("--window {}: one of 3, 5, 7", args.window).into());
    }
    if args.pinned && args.window != 5 {
        return Err(format!(
            "--pinned: the page-locked regions are compiled for a window of 5, not {}",
            args.window
        )
        .into());
    }
    let (data, truth, what) = match (&args.input, args.phantom) {
        (Some(p), None) => (volume::read_nifti(p)?, None, p.display().to_string()),
        (None, Some(n)) => {
            if n < 32 {
                return Err(format!("--phantom {n}: at least 32").into());
            }
            let (v, c) = detect::phantom(n);
            (v, Some(c), format!("phantom {n}³"))
        }
        _ => return Err("give a NIfTI file or --phantom N (not both)".into()),
    };
    let (nz, ny, nx) = data.dim();
    let h = args.window / 2 + 1;
    if nz <= 2 * h || ny <= 2 * h || nx <= 2 * h {
        return Err(format!(
            "{what}: {nz}×{ny}×{nx} is too small for a window of {}",
            args.window
        )
        .into());
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    mint::with_device(device, || {
        let backend = mint::backend()?;
        println!(
            "harris: {what}, {nx}×{ny}×{nz} voxels (x×y×z), window {w}×{w}×{w}, k = {}, threshold {} of the highest score",
            detect::K,
            args.threshold,
            w = args.window
        );
        println!("backend: {}", backend.describe());
        let on_gpu = matches!(backend, Backend::Cuda(_));
        mint::set_timing(on_gpu);
        // in a program of its own, the volume would be read straight into page-locked
        // memory; here it is copied there first, outside the timed run
        let pinned = args.pinned.then(|| {
            let t = std::time::Instant::now();
            let p = mint::PinnedArray3::from_array(&data);
            let s = mint::PinnedArray3::<f32>::zeros(data.dim());
            println!(
                "page-locked arrays: {} ({:.3} s to allocate and fill)",
                if p.is_page_locked() {
                    "yes"
                } else {
                    "no (ordinary memory: no GPU in use, or the driver refused)"
                },
                t.elapsed().as_secs_f64()
            );
            (p, s)
        });
        let t0 = std::time::Instant::now();
        let score = match pinned {
            Some((p, mut s)) => {
                let w = detect::weights(5);
                if args.stream {
                    detect::scores5_streamed_pinned(&p, &w, &mut s, detect::K, tile)?;
                } else {
                    detect::scores5_pinned(&p, &w, &mut s, detect::K, tile)?;
                }
                let run = t0.elapsed();
                (s.to_owned(), run)
            }
            None if args.stream => (
                detect::scores_as(&data, args.window, tile, true)?,
                t0.elapsed(),
            ),
            None => (detect::scores(&data, args.window, tile)?, t0.elapsed()),
        };
        let (score, wall) = (score.0, score.1.as_secs_f64());
        if let (true, Some(s)) = (args.stream, mint::stream::last_run()) {
            println!(
                "streamed: {} slabs, {} buffer sets ({:.0} MB on the device), {:.3} s (the model predicted {:.3} s)",
                s.slabs,
                s.buffers,
                s.device_bytes as f64 * 1e-6,
                s.seconds,
                s.predicted_s
            );
        }
        mint::set_timing(false);
        let voxels = ((nz - 2 * h) * (ny - 2 * h) * (nx - 2 * h)) as f64;
        let flops = voxels * detect::flops_per_voxel(args.window);
        if mint::tune::searches() > 0 {
            println!(
                "autotuner (`tune`): tuned in {:.2} s (included in the whole run; a second run reads the stored choice)",
                mint::tune::search_seconds()
            );
        }
        let kernel = mint::kernel_stats()
            .into_iter()
            .find(|s| s.kernel.contains("scores") && s.timed_launches > 0)
            .map(|s| s.seconds_per_launch());
        match kernel {
            Some(k) => println!(
                "kernel: {:.3} ms, {:.1} GFLOP/s in the thesis's count ({} flops per voxel); whole run {:.3} s with transfers",
                k * 1e3,
                flops / k * 1e-9,
                detect::flops_per_voxel(args.window),
                wall
            ),
            None => println!(
                "scores: {wall:.3} s, {:.2} GFLOP/s in the thesis's count ({} flops per voxel)",
                flops / wall * 1e-9,
                detect::flops_per_voxel(args.window)
            ),
        }
        if args.window == 5 {
            println!(
                "thesis Table 7.8 (5³ window, Tesla C2050, Mint-opt): Engine 256³ 0.169 s = {:.1} GFLOP/s in this count",
                (250f64.powi(3)) * detect::flops_per_voxel(5) / 0.169 * 1e-9
            );
        }
        if args.verify {
            let want = detect::serial_scores(&data, args.window);
            let scale = want
                .iter()
                .fold(0.0f32, |m, &v| m.max(v.abs()))
                .max(f32::MIN_POSITIVE);
            let err = score
                .iter()
                .zip(&want)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()))
                / scale;
            println!(
                "verify: largest difference from the serial loops {err:.3e} of the largest |score|"
            );
        }
        let points = detect::interest_points(&score, args.threshold);
        println!("{} interest points", points.len());
        let csv = args.out.join("corners.csv");
        let mut text = String::from("z,y,x,score\n");
        for (z, y, x, s) in &points {
            text.push_str(&format!("{z},{y},{x},{s:e}\n"));
        }
        std::fs::write(&csv, text).map_err(|e| format!("writing {}: {e}", csv.display()))?;
        println!("wrote {}", csv.display());
        if let Some(truth) = &truth {
            let found = truth
                .iter()
                .filter(|c| points.iter().any(|p| near(c, p)))
                .count();
            println!(
                "phantom: {found} of its {} corners found (within 2 voxels)",
                truth.len()
            );
        }
        for path in write_slices(&args.out, &data, &points, args.slices)? {
            println!("wrote {}", path.display());
        }
        Ok(())
    })
}

/// Whether interest point `p` is within 2 voxels of corner `c` in every axis.
fn near(c: &[usize; 3], p: &(usize, usize, usize, f32)) -> bool {
    c[0].abs_diff(p.0) <= 2 && c[1].abs_diff(p.1) <= 2 && c[2].abs_diff(p.2) <= 2
}

/// PNG slices `z_<z>.png` of the `count` z slices (at least 5 apart) with the most
/// interest points within two slices, grey opacities with the points marked by green
/// squares.
fn write_slices(
    dir: &Path,
    data: &Array3<f32>,
    points: &[(usize, usize, usize, f32)],
    count: usize,
) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    let (nz, ny, nx) = data.dim();
    let mut by_z: Vec<(usize, usize)> = (0..nz)
        .map(|z| (points.iter().filter(|p| p.0.abs_diff(z) <= 2).count(), z))
        .filter(|&(c, _)| c > 0)
        .collect();
    by_z.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let scale = (256 / nx.max(ny)).max(1) as u32;
    // slices at least 5 apart, so that each shows other points
    let mut picked: Vec<usize> = Vec::new();
    for &(_, z) in &by_z {
        if picked.len() < count && picked.iter().all(|&p| p.abs_diff(z) > 4) {
            picked.push(z);
        }
    }
    let mut out = Vec::new();
    for z in picked {
        let mut img = RgbImage::new(nx as u32 * scale, ny as u32 * scale);
        for y in 0..ny {
            for x in 0..nx {
                let g = (data[[z, y, x]].clamp(0.0, 1.0) * 255.0) as u8;
                for a in 0..scale {
                    for b in 0..scale {
                        // row y grows downwards in the picture
                        img.put_pixel(x as u32 * scale + a, y as u32 * scale + b, Rgb([g, g, g]));
                    }
                }
            }
        }
        for p in points.iter().filter(|p| p.0.abs_diff(z) <= 2) {
            let (cx, cy) = (
                (p.2 as u32 * scale + scale / 2) as i64,
                (p.1 as u32 * scale + scale / 2) as i64,
            );
            let r = 3 * scale as i64;
            for d in -r..=r {
                for (x, y) in [
                    (cx + d, cy - r),
                    (cx + d, cy + r),
                    (cx - r, cy + d),
                    (cx + r, cy + d),
                ] {
                    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
                        img.put_pixel(x as u32, y as u32, Rgb([0, 230, 0]));
                    }
                }
            }
        }
        let path = dir.join(format!("z_{z:04}.png"));
        img.save(&path)
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        out.push(path);
    }
    Ok(out)
}
