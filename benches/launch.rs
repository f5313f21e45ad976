//! Host overhead per launch and JIT cost (issue 2's benchmark).
//!
//! ```text
//! cargo bench --bench launch
//! ```
//!
//! On a 32³ grid (where the kernel itself takes a few µs) it reports, as medians of
//! several batches, µs per launch in a steady loop:
//! - Mint's default (the host waits lazily, at the region's end; launches replayed as
//!   CUDA graphs, `mint::graph`), and the same with graphs off;
//! - `nowait`;
//! - the default with every launch timed by CUDA events (`mint::set_timing`);
//! - a `barrier!()` after every launch (the thesis's eager wait, `MINT_SYNC=1`);
//! - the baselines, measured in the same run: the same stencil hand-written in CUDA and
//!   launched with a bare `cuLaunchKernel` ([`mint::cuda::RawKernel::enqueue`]), without
//!   and with a `cuStreamSynchronize` after each launch;
//! - the kernel's device time from CUDA events.
//!
//! It also reports the first launch's JIT time (translation, NVRTC or the disk cache,
//! module load). On a machine without a GPU it reports the CPU backend.

use ndarray::Array3;
use std::time::Instant;

#[mint::parallel]
fn sweep(
    u: &mut Array3<f64>,
    v: &mut Array3<f64>,
    launches: usize,
    mode: Mode,
) -> mint::Result<f64> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    mint::barrier!();
    let t = Instant::now();
    for _ in 0..launches {
        if mode != Mode::Nowait {
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
        if mode == Mode::Eager {
            mint::barrier!();
        }
        std::mem::swap(u, v);
    }
    let host = t.elapsed().as_secs_f64();
    mint::barrier!();
    Ok(host)
}

/// How the host waits for the launches of [`sweep`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Mint's default: the host waits when it needs the device (here at the end).
    Default,
    /// `nowait`.
    Nowait,
    /// `barrier!()` after every launch.
    Eager,
}

/// The 7-point sweep of [`sweep`], hand-written (the baseline).
const RAW: &str = r#"
extern "C" __global__ void sweep(const double* u, double* v, int pitch, int slice, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    int z = blockIdx.z + 1;
    if (x < n - 1 && y < n - 1 && z < n - 1) {
        long i = (long)z * slice + (long)y * pitch + x;
        v[i] = 0.4 * u[i] + 0.1 * (u[i - 1] + u[i + 1] + u[i - pitch] + u[i + pitch]
                                   + u[i - slice] + u[i + slice]);
    }
}
"#;

/// µs per launch of the hand-written sweep with a bare `cuLaunchKernel`, without and
/// with a wait after each launch: the host's loop and the loop with the final wait
/// (medians of `batches` batches).
fn bare(
    gpu: &std::sync::Arc<mint::cuda::Gpu>,
    u: &Array3<f64>,
    launches: usize,
    batches: usize,
) -> mint::Result<[(f64, f64); 2]> {
    use mint::cuda::{RawArg, RawArray, RawKernel};
    let n = u.dim().0;
    let k = RawKernel::new(gpu, "bench.launch.sweep", RAW, "sweep")?;
    let (a, b) = (
        RawArray::upload(gpu, "u", u, 1)?,
        RawArray::upload(gpu, "v", u, 1)?,
    );
    let grid = [
        (n as u32 - 2).div_ceil(32),
        (n as u32 - 2).div_ceil(8),
        n as u32 - 2,
    ];
    let args = |s: &RawArray, d: &RawArray| {
        [
            RawArg::Ptr(s.ptr()),
            RawArg::Ptr(d.ptr()),
            RawArg::I32(s.pitch() as i32),
            RawArg::I32(s.slice() as i32),
            RawArg::I32(n as i32),
        ]
    };
    let (ab, ba) = (args(&a, &b), args(&b, &a));
    let mut out = [(0.0, 0.0); 2];
    for (wait, row) in out.iter_mut().enumerate() {
        let (mut host, mut total) = (Vec::new(), Vec::new());
        for _ in 0..batches {
            let t = Instant::now();
            for i in 0..launches {
                k.enqueue(grid, [32, 8, 1], 0, if i % 2 == 0 { &ab } else { &ba })?;
                if wait == 1 {
                    k.wait()?;
                }
            }
            host.push(t.elapsed().as_secs_f64() / launches as f64 * 1e6);
            k.wait()?;
            total.push(t.elapsed().as_secs_f64() / launches as f64 * 1e6);
        }
        *row = (median(host), median(total));
    }
    Ok(out)
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
    sweep(&mut u, &mut v, 1, Mode::Default)?;
    sweep(&mut u, &mut v, 1, Mode::Nowait)?;
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
    // Fewer launches per batch than the driver queues, so that the host's loop measures
    // the host's cost and not the device's pace.
    let launches = 256;
    let batches = 25;
    let mut rows = Vec::new();
    for (what, mode, timed, graphs) in [
        ("Mint, default", Mode::Default, false, true),
        ("Mint, default, no graphs", Mode::Default, false, false),
        ("Mint, nowait", Mode::Nowait, false, true),
        ("Mint, barrier!() each", Mode::Eager, false, true),
        ("Mint, default, timed", Mode::Default, true, true),
    ] {
        mint::set_timing(timed);
        mint::graph::set_enabled(graphs);
        let (mut host, mut total) = (Vec::new(), Vec::new());
        for _ in 0..batches {
            let t = Instant::now();
            let h = sweep(&mut u, &mut v, launches, mode)?;
            host.push(h / launches as f64 * 1e6);
            total.push(t.elapsed().as_secs_f64() / launches as f64 * 1e6);
        }
        rows.push((what, median(host), median(total)));
    }
    mint::set_timing(false);
    mint::graph::set_enabled(true);
    mint::reset_kernel_stats();
    mint::set_timing(true);
    sweep(&mut u, &mut v, launches, Mode::Eager)?;
    mint::set_timing(false);
    if let mint::Backend::Cuda(gpu) = &backend {
        let [enqueue, wait] = bare(gpu, &u, launches, batches)?;
        rows.push(("bare cuLaunchKernel", enqueue.0, enqueue.1));
        rows.push(("bare launch + sync each", wait.0, wait.1));
    }
    let dev = mint::kernel_stat("sweep_0").map(|s| s.seconds_per_launch() * 1e6);
    println!(
        "32^3 grid, {launches} launches per batch, medians of {batches} batches, us per launch:"
    );
    println!("  {:<26} {:>10} {:>16}", "", "host loop", "with the wait");
    for (what, host, total) in &rows {
        println!("  {what:<26} {host:10.2} {total:16.2}");
    }
    if let [(_, graphs, _), (_, plain, _), _, _, _, (_, bare, _), ..] = rows[..] {
        println!(
            "  Mint's host cost over a bare cuLaunchKernel: {:.2} us per launch ({:.2} with graphs)",
            plain - bare,
            graphs - bare
        );
    }
    if let Some(d) = dev {
        println!("  kernel device time (CUDA events): {d:.2} us per launch");
    }
    Ok(())
}
