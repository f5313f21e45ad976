//! Temporal blocking (`#[mint::time_loop(block = k)]`, issue #45) on the GPU against the
//! step-by-step loop and the device-to-device copy, measured in the same run.
//!
//! ```text
//! cargo bench --bench temporal -- [--size 512] [--steps 60] [--reps 5] [--out DIR]
//! ```
//!
//! For the 3-D heat equation (7 points, thesis Table 3.1) in f32 and f64, and the
//! radius-2 star: the autotuned step-by-step kernel (`mint_kernels`, level `tune`) and
//! the blocked loop at depths 3, 5 and 7. Prints the median of `reps` runs of `steps`
//! steps: device ms per step (CUDA events around each launch), GPts/s (interior points ×
//! steps / s) and the multiple of the
//! per-step copy bound (copy GB/s ÷ 2 words per point). `MINT_TIME_TILE=x,y,z` sets the
//! fused launch's block (default 32×32 threads, 64 planes). Writes `DIR/temporal.json`.

use mint_kernels::{Level, heat3d};
use ndarray::Array3;

macro_rules! blocked {
    ($name:ident, $t:ty, $k:literal) => {
        #[mint::parallel]
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

blocked!(heat32_k1, f32, 1);
blocked!(heat32_k3, f32, 3);
blocked!(heat32_k5, f32, 5);
blocked!(heat32_k7, f32, 7);
blocked!(heat64_k1, f64, 1);
blocked!(heat64_k3, f64, 3);
blocked!(heat64_k5, f64, 5);

type Run<T> = fn(&mut Array3<T>, &mut Array3<T>, usize) -> mint::Result<()>;

struct Row {
    name: String,
    precision: &'static str,
    depth: u32,
    ms_per_step: f64,
    gpts: f64,
    of_bound: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median device seconds per step over `reps` runs of `steps` steps of `f` (after one
/// warm-up run, which compiles and tunes): the kernels' device time, timed with CUDA
/// events (`mint::set_timing`), summed over the run's launches and divided by its steps.
fn time(reps: usize, mut f: impl FnMut(usize) -> mint::Result<()>, steps: usize) -> f64 {
    f(steps).expect("warm-up run");
    mint::set_timing(true);
    let per_step = (0..reps)
        .map(|_| {
            mint::reset_kernel_stats();
            f(steps).expect("run");
            let s: f64 = mint::kernel_stats().iter().map(|k| k.device_seconds).sum();
            s / steps as f64
        })
        .collect();
    mint::set_timing(false);
    median(per_step)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let (mut n, mut steps, mut reps, mut out) = (512usize, 60usize, 5usize, None);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--size" => n = val()?.parse()?,
            "--steps" => steps = val()?.parse()?,
            "--reps" => reps = val()?.parse()?,
            "--out" => out = Some(std::path::PathBuf::from(val()?)),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !mint::cuda_available() {
        println!("temporal: no CUDA device; the benchmark measures fused launches on a GPU");
        return Ok(());
    }
    let copy = mint::device_copy_bandwidth(1 << 30, 20)?;
    println!(
        "temporal: {n}^3, {steps} steps, median of {reps}; copy {:.1} GB/s",
        copy * 1e-9
    );
    let points = ((n - 2) * (n - 2) * (n - 2)) as f64;
    let mut rows = Vec::new();
    let mut add = |name: &str, precision: &'static str, depth: u32, s: f64, bytes: f64| {
        let gpts = points / s * 1e-9;
        let bound = copy / (2.0 * bytes) * 1e-9;
        println!(
            "  {name:28} {precision} depth {depth}: {:8.3} ms/step {gpts:8.1} GPts/s  {:.2}x the per-step bound ({bound:.0} GPts/s)",
            s * 1e3,
            gpts / bound
        );
        rows.push(Row {
            name: name.into(),
            precision,
            depth,
            ms_per_step: s * 1e3,
            gpts,
            of_bound: gpts / bound,
        });
    };
    let u32_ = Array3::from_shape_fn((n, n, n), |(z, y, x)| {
        ((z * 7 + y * 13 + x * 29) % 17) as f32
    });
    let opts = Level::Tuned.opts();
    let s = time(
        reps,
        |st| {
            let (mut u, mut v) = (u32_.clone(), u32_.clone());
            heat3d::f32::run(opts, &mut u, &mut v, 0.4, 0.1, st, [32, 8, 1], [1, 1, 1])
        },
        steps,
    );
    add("heat3d step by step (tune)", "f32", 1, s, 4.0);
    for (k, f) in [
        (1, heat32_k1 as Run<f32>),
        (3, heat32_k3),
        (5, heat32_k5),
        (7, heat32_k7),
    ] {
        let s = time(
            reps,
            |st| {
                let (mut u, mut v) = (u32_.clone(), u32_.clone());
                f(&mut u, &mut v, st)
            },
            steps,
        );
        add("heat3d time_loop", "f32", k, s, 4.0);
    }
    let u64_ = u32_.mapv(f64::from);
    drop(u32_);
    let s = time(
        reps,
        |st| {
            let (mut u, mut v) = (u64_.clone(), u64_.clone());
            heat3d::f64::run(opts, &mut u, &mut v, 0.4, 0.1, st, [32, 8, 1], [1, 1, 1])
        },
        steps,
    );
    add("heat3d step by step (tune)", "f64", 1, s, 8.0);
    for (k, f) in [(1, heat64_k1 as Run<f64>), (3, heat64_k3), (5, heat64_k5)] {
        let s = time(
            reps,
            |st| {
                let (mut u, mut v) = (u64_.clone(), u64_.clone());
                f(&mut u, &mut v, st)
            },
            steps,
        );
        add("heat3d time_loop", "f64", k, s, 8.0);
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(&dir)?;
        let json: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"kernel\": \"{}\", \"precision\": \"{}\", \"depth\": {}, \"size\": {n}, \"ms_per_step\": {:.4}, \"gpts\": {:.2}, \"of_per_step_bound\": {:.3}, \"copy_gbs\": {:.1}}}",
                    r.name, r.precision, r.depth, r.ms_per_step, r.gpts, r.of_bound, copy * 1e-9
                )
            })
            .collect();
        std::fs::write(
            dir.join("temporal.json"),
            format!("[\n  {}\n]\n", json.join(",\n  ")),
        )?;
    }
    Ok(())
}
