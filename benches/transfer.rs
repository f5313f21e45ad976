//! `copy!` against the link (issue 16's transfer benchmark).
//!
//! ```text
//! cargo bench --bench transfer            # 256³, 512³ and 1024³ f32
//! cargo bench --bench transfer -- 128 384 # other sizes
//! cargo bench --bench transfer -- --sweep # shapes of the staging ring, 512³ and 1024³
//! ```
//!
//! For each n³ f32 array it reports, in GB/s (10⁹ bytes of the array per second), the
//! median of 5 copies each way after the first (which allocates):
//! - `copy!(u, to_device)` and `copy!(u, from_device)` of an `ndarray::Array3`;
//! - the same of a `mint::PinnedArray3` (page-locked: no staging, one DMA);
//! - the baselines, measured in the same run on the same device: `cuMemcpy` from and to
//!   a page-locked (`cuMemHostAlloc`) buffer, the link's speed
//!   ([`mint::host_copy_bandwidth`]), and from and to pageable memory (a `Vec`), what
//!   the driver does for an unstaged copy;
//! - `copy!`'s fraction of the page-locked figure (the goal is at least 80% both ways).
//!
//! `--sweep` times `copy!` with other shapes of the page-locked staging ring
//! (`mint::cuda::transfer::set_ring`: slots, slot size, the bytes one core copies at a
//! time) next to the host's own parallel `memcpy` rate between two pageable buffers,
//! the other bound of a staged copy.
//!
//! Every round trip is checked: what comes back equals what went out. On a machine
//! without a GPU it says so and measures nothing.

use mint::HostMemory;
use mint::cuda::transfer::{Ring, set_ring};
use ndarray::Array3;
use rayon::prelude::*;
use std::time::Instant;

const REPS: usize = 5;

/// Copies `u` to the device once (allocating), then `REPS` times each way; returns the
/// seconds of each copy, (to device, from device). On an `ndarray` array and on one in
/// page-locked memory.
macro_rules! round_trips {
    ($name:ident, $arr:ty) => {
        #[mint::parallel]
        fn $name(u: &mut $arr) -> mint::Result<(Vec<f64>, Vec<f64>)> {
            mint::copy!(u, to_device);
            let (mut up, mut down) = (Vec::new(), Vec::new());
            for _ in 0..REPS {
                let t = Instant::now();
                mint::copy!(u, to_device);
                up.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                mint::copy!(u, from_device);
                down.push(t.elapsed().as_secs_f64());
            }
            Ok((up, down))
        }
    };
}
round_trips!(round_trips, Array3<f32>);
round_trips!(round_trips_pinned, mint::PinnedArray3<f32>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median bytes per second of a parallel copy between two pageable buffers of `bytes`,
/// `piece` bytes per core at a time.
fn host_memcpy(bytes: usize, piece: usize) -> f64 {
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    let mut t = Vec::new();
    for i in 0..=REPS {
        let t0 = Instant::now();
        dst.par_chunks_mut(piece)
            .zip(src.par_chunks(piece))
            .for_each(|(d, s)| d.copy_from_slice(s));
        if i > 0 {
            t.push(t0.elapsed().as_secs_f64());
        }
    }
    bytes as f64 / median(t)
}

fn sweep() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| n³ f32 | slots | slot MiB | piece MiB | streaming stores | to device GB/s | from device GB/s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for n in [512, 1024] {
        let bytes = n * n * n * 4;
        let u0 = Array3::from_shape_fn((n, n, n), |(z, y, x)| (x + 3 * y + 7 * z) as f32);
        for (slots, slot_mib, piece_mib, stream_stores) in [
            (8, 16, 1, true),
            (4, 16, 1, true),
            (8, 16, 1, false),
            (4, 32, 1, true),
            (8, 32, 1, true),
            (4, 64, 1, true),
            (4, 64, 2, true),
            (16, 8, 1, true),
        ] {
            set_ring(Ring {
                slots,
                slot_bytes: slot_mib << 20,
                piece_bytes: piece_mib << 20,
                stream_stores,
            });
            let mut u = u0.clone();
            let (up, down) = round_trips(&mut u)?;
            if u != u0 {
                return Err(format!("{n}³: the round trip changed the array").into());
            }
            println!(
                "| {n}³ | {slots} | {slot_mib} | {piece_mib} | {stream_stores} | {:.1} | {:.1} |",
                bytes as f64 / median(up) * 1e-9,
                bytes as f64 / median(down) * 1e-9
            );
        }
        for piece_mib in [1, 4, 16] {
            println!(
                "host memcpy, pageable to pageable, {} MiB, {piece_mib} MiB per core: {:.1} GB/s",
                bytes >> 20,
                host_memcpy(bytes, piece_mib << 20) * 1e-9
            );
        }
    }
    set_ring(Ring::DEFAULT);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sweep_only = std::env::args().any(|a| a == "--sweep");
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![256, 512, 1024]
    } else {
        sizes
    };
    let backend = mint::backend()?;
    if !matches!(backend, mint::Backend::Cuda(_)) {
        println!(
            "transfer: the backend is {}; host-device copies need one CUDA device, nothing to measure",
            backend.describe()
        );
        return Ok(());
    }
    println!("transfer: {}", backend.describe());
    if sweep_only {
        return sweep();
    }
    println!(
        "| n³ f32 | MiB | copy! to device | page-locked | pageable | copy!/page-locked | copy! from device | page-locked | pageable | copy!/page-locked | copy! of PinnedArray3 to / from | of page-locked |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for n in sizes {
        let bytes = n * n * n * 4;
        let (pin_up, pin_down) = mint::host_copy_bandwidth(bytes, REPS, HostMemory::PageLocked)?;
        let (pg_up, pg_down) = mint::host_copy_bandwidth(bytes, REPS, HostMemory::Pageable)?;
        let u0 = Array3::from_shape_fn((n, n, n), |(z, y, x)| (x + 3 * y + 7 * z) as f32);
        let mut u = u0.clone();
        let (up, down) = round_trips(&mut u)?;
        if u != u0 {
            return Err(format!("{n}³: the round trip changed the array").into());
        }
        let (up, down) = (bytes as f64 / median(up), bytes as f64 / median(down));
        let mut p = mint::PinnedArray3::from_array(&u0);
        if !p.is_page_locked() {
            return Err(format!("{n}³: page-locked memory could not be allocated").into());
        }
        let (pup, pdown) = round_trips_pinned(&mut p)?;
        if p.view() != u0.view() {
            return Err(format!("{n}³: the round trip changed the pinned array").into());
        }
        drop(p);
        let (pup, pdown) = (bytes as f64 / median(pup), bytes as f64 / median(pdown));
        println!(
            "| {n}³ | {} | {:.1} | {:.1} | {:.1} | {:.0}% | {:.1} | {:.1} | {:.1} | {:.0}% | {:.1} / {:.1} | {:.0}% / {:.0}% |",
            bytes >> 20,
            up * 1e-9,
            pin_up * 1e-9,
            pg_up * 1e-9,
            100.0 * up / pin_up,
            down * 1e-9,
            pin_down * 1e-9,
            pg_down * 1e-9,
            100.0 * down / pin_down,
            pup * 1e-9,
            pdown * 1e-9,
            100.0 * pup / pin_up,
            100.0 * pdown / pin_down
        );
    }
    Ok(())
}
