//! Host overhead per launch and JIT cost (issue 2's benchmark).
//!
//! ```text
//! cargo bench --bench launch
//! ```
//!
//! On a 32³ grid (where the kernel itself takes a few µs) it reports, as medians of
//! several batches: µs per launch when the host waits for each kernel (Mint's default),
//! µs per launch with `nowait` (the host only enqueues), and the kernel's device time
//! from CUDA events. It also reports the first launch's JIT time (translation, NVRTC or
//! the disk cache, module load). On a machine without a GPU it reports the CPU backend.

use ndarray::Array3;
use std::time::Instant;

#[mint::parallel]
fn sweep(
    u: &mut Array3<f64>,
    v: &mut Array3<f64>,
    launches: usize,
    wait: bool,
) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    for _ in 0..launches {
        if wait {
            #[mint::r#for(nest(all), tile(32, 8, 1))]
            for z in 1..nz - 1 {
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        v[[z, y, x]] = 0.4 * u[[z, y, x]]
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
        } else {
            #[mint::r#for(nest(all), tile(32, 8, 1), nowait)]
            for z in 1..nz - 1 {
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        v[[z, y, x]] = 0.4 * u[[z, y, x]]
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
        }
        std::mem::swap(u, v);
    }
    mint::barrier!();
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> mint::Result<()> {
    let backend = mint::backend()?;
    println!("backend: {}", backend.describe());
    let n = 32;
    let mut u = Array3::from_elem((n, n, n), 1.0);
    let mut v = u.clone();
    // First launch of each variant: JIT (translation + NVRTC or disk cache + load).
    let t = Instant::now();
    sweep(&mut u, &mut v, 1, true)?;
    sweep(&mut u, &mut v, 1, false)?;
    let first = t.elapsed().as_secs_f64();
    let j = mint::jit_stats();
    println!(
        "first launches (2 kernels): {:.1} ms wall; JIT: {} compiled by NVRTC in {:.1} ms, {} from the disk cache, {:.1} ms translating+compiling+loading",
        first * 1e3,
        j.compiled,
        j.compile_seconds * 1e3,
        j.disk_cache_hits,
        j.load_seconds * 1e3
    );
    let launches = 2000;
    let batches = 7;
    let mut rows = Vec::new();
    for (what, wait) in [
        ("launch + wait (default)", true),
        ("nowait (enqueue only)", false),
    ] {
        let mut per = Vec::new();
        for _ in 0..batches {
            let t = Instant::now();
            sweep(&mut u, &mut v, launches, wait)?;
            per.push(t.elapsed().as_secs_f64() / launches as f64 * 1e6);
        }
        rows.push((what, median(per)));
    }
    mint::reset_kernel_stats();
    mint::set_timing(true);
    sweep(&mut u, &mut v, launches, true)?;
    mint::set_timing(false);
    let dev = mint::kernel_stat("sweep_0").map(|s| s.seconds_per_launch() * 1e6);
    println!("32^3 grid, {launches} launches per batch, median of {batches} batches:");
    for (what, us) in rows {
        println!("  {what:<26} {us:8.2} us per launch");
    }
    if let Some(d) = dev {
        println!(
            "  {:<26} {d:8.2} us per launch (CUDA events)",
            "kernel device time"
        );
    }
    Ok(())
}
