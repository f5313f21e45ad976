//! Streaming a region through the device in slabs (`#[mint::parallel(stream)]`, issue
//! #16) against the same region run in sequence: copy in, compute, copy back.
//!
//! ```text
//! cargo bench --bench stream                 # Harris 5³ on a 1024³ f32 phantom, heat on 512³ f64
//! cargo bench --bench stream -- --harris 512 # other sizes
//! cargo bench --bench stream -- --heat 768
//! cargo bench --bench stream -- --cap 8G     # also: a volume larger than an 8 GiB cap
//! ```
//!
//! For each case it reports the median of 3 runs (after one that compiles) of:
//! - **sequential**: the region without `stream` (`copy!` through the staging ring, the
//!   kernel, `copy!` back);
//! - **streamed**: the region with `stream`, the slab count from the model; with the
//!   model's prediction for the run and the slabs it chose;
//! - the speed-up (goal for Harris 1024³: at least 1.8×) and the model's error (goal:
//!   within 15%).
//!
//! Harris runs on `ndarray` arrays (pageable: the staged and registered host paths)
//! and on `mint::PinnedArray3`s (page-locked: the copy engines read and write the arrays
//! directly), each against the sequential run on the same kind of array.
//!
//! With `--cap BYTES` the streamed Harris also runs under `MINT_DEVICE_MEMORY` smaller
//! than its arrays (the sequential one cannot), and must equal the uncapped result.
//! Every streamed result is compared with the sequential one. Without a GPU it says so
//! and measures nothing.

#[allow(dead_code)]
#[path = "../examples/harris/detect.rs"]
mod detect;

use mint::stream::HostPath;
use ndarray::Array3;
use std::time::Instant;

const REPS: usize = 3;

#[path = "../tests/common/heat_step.rs"]
mod step;

/// The heat step, f64, as written and streamed: `v = 0.4 u + 0.1 (sum of the neighbours)`.
fn heat(u: &Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    step::sequential(u, v, 0.4, 0.1, [64, 4, 4], [1, 1, 4])
}
fn heat_streamed(u: &Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    step::streamed(u, v, 0.4, 0.1, [64, 4, 4], [1, 1, 4])
}

/// Median bytes per second of a parallel copy between two pageable buffers of `bytes`.
fn host_memcpy(bytes: usize) -> f64 {
    use rayon::prelude::*;
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    let mut t = Vec::new();
    for _ in 0..=REPS {
        let t0 = Instant::now();
        dst.par_chunks_mut(1 << 20)
            .zip(src.par_chunks(1 << 20))
            .for_each(|(d, s)| d.copy_from_slice(s));
        t.push(t0.elapsed().as_secs_f64());
    }
    bytes as f64 / median(t[1..].to_vec())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs `f` once untimed, then `REPS` times; the median seconds and the last stream run's
/// figures (for a streamed `f`).
fn time(
    mut f: impl FnMut() -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(f64, Vec<mint::stream::StreamStats>), Box<dyn std::error::Error>> {
    f()?;
    let mut ts = Vec::new();
    let mut stats = Vec::new();
    for _ in 0..REPS {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64());
        stats.extend(mint::stream::last_run());
    }
    Ok((median(ts), stats))
}

fn report(what: &str, seq: f64, streamed: f64, stats: &[mint::stream::StreamStats]) {
    println!(
        "{what}: sequential {:.1} ms, streamed {:.1} ms: {:.2}x",
        seq * 1e3,
        streamed * 1e3,
        seq / streamed
    );
    if let Some(s) = stats.last() {
        let errs: Vec<f64> = stats
            .iter()
            .map(|s| (s.seconds - s.predicted_s) / s.predicted_s * 100.0)
            .collect();
        println!(
            "  {} slabs ({} planes in the first: page-locking {:.2} ms, copy-in {:.2} ms, kernels {:.2} ms, copy-out {:.2} ms), {} buffer sets, {:.0} MB on the device",
            s.slabs,
            s.first_planes,
            s.first_register_s * 1e3,
            s.first_in_s * 1e3,
            s.first_compute_s * 1e3,
            s.first_out_s * 1e3,
            s.buffers,
            s.device_bytes as f64 * 1e-6
        );
        println!(
            "  model: predicted {:.1} ms, ran {:.1} ms (region's own time), error {} %; page-locking {:.1} ms of host time for {:.2} GB; {:.2} GB in, {:.2} GB out",
            s.predicted_s * 1e3,
            s.seconds * 1e3,
            errs.iter()
                .map(|e| format!("{e:+.1}"))
                .collect::<Vec<_>>()
                .join("/"),
            s.register_s * 1e3,
            s.registered_bytes as f64 * 1e-9,
            s.bytes_in as f64 * 1e-9,
            s.bytes_out as f64 * 1e-9
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if !mint::cuda_available() {
        println!("no CUDA device: nothing measured");
        return Ok(());
    }
    mint::tune::set_mode(mint::tune::Mode::Off);
    let gpu = mint::backend()?;
    println!("device: {}", gpu.describe());
    // the host's side of every copy here: its memory bandwidth varies between machines
    let bytes = 1 << 30;
    let pinned = mint::host_copy_bandwidth(bytes, 3, mint::HostMemory::PageLocked)?;
    println!(
        "host: parallel memcpy {:.1} GB/s; page-locked cuMemcpy {:.1} GB/s to the device, {:.1} GB/s from it (1 GiB)",
        host_memcpy(bytes) * 1e-9,
        pinned.0 * 1e-9,
        pinned.1 * 1e-9
    );
    let only_heat = arg("--heat").is_some() && arg("--harris").is_none();
    let only_harris = arg("--harris").is_some() && arg("--heat").is_none();
    if !only_heat {
        let n: usize = arg("--harris").map_or(Ok(1024), |v| v.parse())?;
        let (data, _) = detect::phantom(n);
        // the arrays are the caller's and reused, as in a program that processes volume
        // after volume: no run pays for first touching fresh output pages
        let w = detect::weights(5);
        let (k, tile) = (detect::K, [32, 8, 1]);
        let mut seq_score = Array3::<f32>::zeros(data.dim());
        let (seq, _) = time(|| Ok(detect::scores5(&data, &w, &mut seq_score, k, tile)?))?;
        for path in [HostPath::Staged, HostPath::Registered] {
            mint::stream::set_host_path(Some(path));
            let mut got = Array3::<f32>::zeros(data.dim());
            let (st, stats) = time(|| Ok(detect::scores5_streamed(&data, &w, &mut got, k, tile)?))?;
            assert!(got == seq_score, "streamed Harris differs from sequential");
            report(&format!("Harris 5³, {n}³ f32, {path:?}"), seq, st, &stats);
        }
        mint::stream::set_host_path(None);
        // the same on arrays in page-locked memory: no host copies either way
        let pinned = mint::PinnedArray3::from_array(&data);
        let mut seq_p = mint::PinnedArray3::<f32>::zeros(data.dim());
        let mut got = mint::PinnedArray3::<f32>::zeros(data.dim());
        if !(pinned.is_page_locked() && got.is_page_locked()) {
            println!("  page-locked arrays could not be allocated: the pinned case is skipped");
        } else {
            let (seq_pin, _) =
                time(|| Ok(detect::scores5_pinned(&pinned, &w, &mut seq_p, k, tile)?))?;
            let (st, stats) = time(|| {
                Ok(detect::scores5_streamed_pinned(
                    &pinned, &w, &mut got, k, tile,
                )?)
            })?;
            assert!(seq_p.view() == seq_score.view(), "pinned Harris differs");
            assert!(
                got.view() == seq_score.view(),
                "streamed pinned Harris differs"
            );
            report(
                &format!("Harris 5³, {n}³ f32, PinnedArray3 (page-locked)"),
                seq_pin,
                st,
                &stats,
            );
            println!(
                "  streamed page-locked against the sequential run on ndarray arrays: {:.2}x",
                seq / st
            );
        }
        drop((pinned, seq_p, got));
        if let Some(cap) = arg("--cap") {
            let bytes = mint::memcap::parse(&cap)?;
            mint::memcap::set_cap(Some(Some(bytes)));
            let mut capped = Array3::<f32>::zeros(data.dim());
            let t = Instant::now();
            let r = detect::scores5_streamed(&data, &w, &mut capped, k, tile);
            let secs = t.elapsed().as_secs_f64();
            mint::memcap::set_cap(None);
            r?;
            assert!(capped == seq_score, "capped streamed Harris differs");
            let s = mint::stream::last_run().expect("streamed");
            println!(
                "  under MINT_DEVICE_MEMORY={cap} ({} MB; the arrays take {} MB): {:.1} ms, {} slabs, {:.0} MB on the device, equal to the uncapped result",
                bytes / 1_000_000,
                data.len() * 8 / 1_000_000,
                secs * 1e3,
                s.slabs,
                s.device_bytes as f64 * 1e-6
            );
        }
    }
    if !only_harris {
        let n: usize = arg("--heat").map_or(Ok(512), |v| v.parse())?;
        let u = Array3::from_shape_fn((n, n, n), |(z, y, x)| ((z * 7 + y * 3 + x) % 17) as f64);
        let mut a = Array3::<f64>::zeros(u.dim());
        let (seq, _) = time(|| Ok(heat(&u, &mut a)?))?;
        for path in [HostPath::Staged, HostPath::Registered] {
            mint::stream::set_host_path(Some(path));
            let mut b = Array3::<f64>::zeros(u.dim());
            let (st, stats) = time(|| Ok(heat_streamed(&u, &mut b)?))?;
            assert!(a == b, "streamed heat differs from sequential");
            report(&format!("heat step, {n}³ f64, {path:?}"), seq, st, &stats);
        }
        mint::stream::set_host_path(None);
    }
    Ok(())
}
