//! Streaming a region through one device in slabs (issue #16; Visschers, seed
//! `001_9039035f5da401ab.txt`, Ch. 6): `#[mint::parallel(stream)]`.
//!
//! In a streamed region `copy!(x, to_device)` records the host array and each kernel
//! launch is recorded. At the last `copy!(.., from_device)` the region runs: its
//! distributed arrays (those the multi-device decomposition of `decomp` would
//! split: same rank and slowest extent, indexed along z by the outermost parallel index)
//! are cut into slabs of planes along the slowest axis, each with the region's ghost
//! planes on both sides; replicated arrays are copied to the device once. Slab after
//! slab, the held planes of every distributed array are copied in on one stream, the
//! kernels run clipped to the slab's owned planes on the device's stream, and the owned
//! planes of the arrays copied back are copied out on a third; a few buffer sets rotate,
//! so copy-in, compute and copy-out of consecutive slabs overlap. Only the buffers are on
//! the device, so a region whose arrays do not fit in its memory still runs.
//!
//! Host memory: the user's arrays are page-locked (`cuMemHostRegister`) piece by piece
//! just ahead of the slabs that read or write them, and released behind them, so the
//! registration (as slow as a copy, about 40 GB/s on an H100 host) overlaps the device's
//! work instead of preceding it. No staging buffer is used.
//!
//! The slab count: the fewest slabs whose buffers fit the device (free memory, or
//! `MINT_DEVICE_MEMORY`), then the model of Visschers Sec. 6.4 in pipeline form: the
//! first slab runs alone and is timed (its registration, copy-in, kernels and copy-out);
//! with those per-plane costs the rest is cut into the count that minimises
//! `sum of the stages of one slab + (slabs - 1) * slowest stage + slabs * overhead`.
//! `stream = N`, [`set_slabs`] and `MINT_STREAM_SLABS` override it.
//!
//! What qualifies: every kernel is split by the decomposition (its writes at `z + c`
//! follow the outermost parallel index); no kernel reads beyond its own planes an array
//! that a kernel of the region writes (that would need a halo exchange between slabs);
//! every array a kernel writes is distributed; no reduction and no swap (the macro
//! rejects those at compile time). Anything else is [`Error::Stream`] naming the kernel
//! and the array, before any byte moves.
//!
//! On the CPU backend a streamed region runs as that many emulated devices
//! (`split`, one slab each), with the same checks, so CI tests the slabs, the
//! ghost planes and the clipped loops.

pub(crate) mod check;
mod model;
mod pins;
mod pipeline;

use check::{check_kernel, stream_error};
pub use model::{Costs, Stage, best_slabs, model_seconds};
use pipeline::Pipeline;

use crate::array::planes_alloc_bytes;
use crate::decomp::{self, KernelPlan, Slabs};
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::host::{RawArray, ScalarValue};
pub use crate::site::StreamSpec;
use crate::site::{KernelSite, LaunchArgs, RegionInfo};
use crate::split::{Layout, PREFETCH_PLANES, Split};
use mint_translator::ir::ScalarTy;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Buffer sets on the device: copy-in, compute and copy-out of three slabs at once.
pub const BUFFERS: usize = 3;

/// Slabs the model's first (timed) slab is at most a fraction of: 1/16 of the planes.
const PROBE_FRACTION: usize = 16;

/// The most slabs the model considers.
const MAX_SLABS: usize = 1024;

static SLABS: Mutex<Option<Option<usize>>> = Mutex::new(None);
static LAST: Mutex<Option<StreamStats>> = Mutex::new(None);

/// Fixes the slab count of every streamed region of this process (`Some(Some(n))`), lets
/// the model choose (`Some(None)`), or goes back to `MINT_STREAM_SLABS` and the regions'
/// own `stream = N` (`None`).
pub fn set_slabs(slabs: Option<Option<usize>>) {
    *SLABS.lock().unwrap_or_else(|p| p.into_inner()) = slabs;
}

/// The slab count asked for: [`set_slabs`], `MINT_STREAM_SLABS`, or `stream = N`.
fn slabs_asked(spec: &StreamSpec) -> Option<usize> {
    if let Some(s) = *SLABS.lock().unwrap_or_else(|p| p.into_inner()) {
        return s.filter(|&n| n > 0);
    }
    if let Some(n) = std::env::var("MINT_STREAM_SLABS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return Some(n);
    }
    (spec.slabs > 0).then_some(spec.slabs as usize)
}

/// What the last streamed run of this process did, on a GPU ([`last_run`]).
#[derive(Clone, Debug, Default)]
pub struct StreamStats {
    pub region: String,
    /// Planes along the slowest axis, and the slabs they were cut into.
    pub extent: usize,
    pub slabs: usize,
    /// Planes of the first, timed slab.
    pub first_planes: usize,
    pub ghost: usize,
    /// Buffer sets on the device, and their bytes with the replicated arrays.
    pub buffers: usize,
    pub device_bytes: usize,
    /// The first slab's stages, in seconds: page-locking its host memory, copy-in,
    /// kernels, copy-out.
    pub first_register_s: f64,
    pub first_in_s: f64,
    pub first_compute_s: f64,
    pub first_out_s: f64,
    /// The model's prediction for the whole run, and the run's wall time (from the first
    /// byte copied to the last, registration included), in seconds.
    pub predicted_s: f64,
    pub seconds: f64,
    /// Bytes copied to and from the device.
    pub bytes_in: usize,
    pub bytes_out: usize,
    /// Host memory page-locked and released, and the host's time doing it (seconds).
    pub registered_bytes: usize,
    pub register_s: f64,
    /// How host memory met the copy engines.
    pub host_path: HostPath,
}

/// The figures of the last streamed run on a GPU in this process.
pub fn last_run() -> Option<StreamStats> {
    LAST.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// A host array a streamed region's `copy!` named.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostRef {
    pub raw: RawArray<u8>,
    pub elem: ScalarTy,
}

impl HostRef {
    fn esz(&self) -> usize {
        self.elem.size_bytes() as usize
    }
    fn user_shape(&self) -> Vec<usize> {
        self.raw.user_shape()
    }
    /// Host bytes of one plane along the slowest axis.
    fn plane_bytes(&self) -> usize {
        self.user_shape()[1..].iter().product::<usize>() * self.esz()
    }
    fn bytes(&self) -> usize {
        self.raw.len() * self.esz()
    }
    /// Whether the whole array is a page-locked [`crate::pinned::PinnedArray`].
    fn page_locked(&self) -> bool {
        crate::pinned::is_page_locked(self.raw.ptr, self.bytes())
    }
    /// Device rows (of the x axis) in one plane along the slowest axis.
    fn rows_per_plane(&self) -> usize {
        if self.raw.ndim >= 3 {
            self.raw.shape[1]
        } else {
            1
        }
    }
}

/// One recorded launch.
struct Recorded {
    site: &'static KernelSite,
    arrays: Vec<usize>,
    scalars: Vec<ScalarValue>,
    bounds: Vec<(i64, i64)>,
    clauses: Vec<u32>,
}

/// A streamed region's recording.
pub(crate) struct Streamer {
    pub spec: &'static StreamSpec,
    /// Per region slot, the host array copied in; and the slots in copy order.
    inputs: Vec<Option<HostRef>>,
    order: Vec<usize>,
    launches: Vec<Recorded>,
    outputs: Vec<(usize, HostRef)>,
}

impl Streamer {
    pub fn new(spec: &'static StreamSpec, slots: usize) -> Streamer {
        Streamer {
            spec,
            inputs: vec![None; slots],
            order: Vec::new(),
            launches: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// `copy!(x, to_device)`: remembers the host array (nothing moves yet).
    pub fn record_input(&mut self, slot: usize, h: HostRef) {
        if self.inputs[slot].is_none() {
            self.order.push(slot);
        }
        self.inputs[slot] = Some(h);
    }

    /// A kernel launch, to run on every slab.
    ///
    /// # Errors
    /// [`Error::Stream`] for a reduction kernel.
    pub fn record_launch(
        &mut self,
        info: &RegionInfo,
        site: &'static KernelSite,
        args: &LaunchArgs,
    ) -> Result<()> {
        if site.kernel()?.reduction.is_some() {
            return Err(stream_error(
                info,
                format!("kernel {} is a reduction", site.location()),
            ));
        }
        self.launches.push(Recorded {
            site,
            arrays: args.arrays.to_vec(),
            scalars: args.scalars.to_vec(),
            bounds: args.bounds.to_vec(),
            clauses: args.clauses.to_vec(),
        });
        Ok(())
    }

    /// `copy!(x, from_device)`: remembers where the slabs of `x` go. Returns whether it
    /// was the region's last, when the slabs run.
    ///
    /// # Errors
    /// [`Error::NotOnDevice`] when `x` was not copied to the device;
    /// [`Error::ShapeMismatch`].
    pub fn record_output(&mut self, name: &str, slot: usize, h: HostRef) -> Result<bool> {
        let Some(i) = &self.inputs[slot] else {
            return Err(Error::NotOnDevice {
                array: name.into(),
                when: format!("`copy!({name}, from_device)` runs"),
            });
        };
        if i.user_shape() != h.user_shape() || i.elem != h.elem {
            return Err(Error::ShapeMismatch {
                array: name.into(),
                what: "the host array's shape differs from its device array's".into(),
                expected: i.user_shape(),
                found: h.user_shape(),
            });
        }
        self.outputs.push((slot, h));
        Ok(self.outputs.len() >= self.spec.outputs as usize)
    }
}

/// The region's distributed arrays: per slot, `Some(true)` distributed, `Some(false)`
/// replicated, `None` not copied; and the planes the slabs split.
fn place(
    info: &'static RegionInfo,
    layout: &Layout,
    st: &Streamer,
) -> Result<(Vec<Option<bool>>, usize)> {
    let mut extent = None;
    let mut dist = vec![None; st.inputs.len()];
    for &slot in &st.order {
        let h = st.inputs[slot].expect("recorded");
        dist[slot] = Some(
            layout
                .classify(slot, h.raw.ndim, &h.user_shape(), &mut extent)
                .is_ok(),
        );
    }
    let Some(extent) = extent else {
        return Err(stream_error(
            info,
            "no array it copies is split into slabs (MINT_REPORT=1 says why each is replicated)"
                .into(),
        ));
    };
    Ok((dist, extent))
}

/// Device bytes of the replicated arrays and `buffers` buffer sets for slabs of at most
/// `planes` owned planes.
fn device_bytes(
    info: &RegionInfo,
    st: &Streamer,
    dist: &[Option<bool>],
    ghost: usize,
    planes: usize,
    buffers: usize,
) -> usize {
    let mut total = 0;
    for &slot in &st.order {
        let h = st.inputs[slot].expect("recorded");
        let align = info.arrays[slot].align_x;
        let n = h.raw.shape[3 - h.raw.ndim];
        total += if dist[slot] == Some(true) {
            let p = (planes + 2 * ghost + 2 * PREFETCH_PLANES).min(n);
            buffers * planes_alloc_bytes(h.raw.shape, h.esz(), h.raw.ndim, align, p)
        } else {
            planes_alloc_bytes(h.raw.shape, h.esz(), h.raw.ndim, align, n)
        };
    }
    total
}

/// The fewest slabs whose buffers (`buffers` sets) fit in `cap` bytes.
///
/// # Errors
/// [`Error::OverMemoryCap`] when even slabs of one plane do not fit.
fn fewest_slabs(
    info: &RegionInfo,
    st: &Streamer,
    dist: &[Option<bool>],
    ghost: usize,
    extent: usize,
    buffers: usize,
    cap: usize,
) -> Result<usize> {
    let bytes = |s: usize| device_bytes(info, st, dist, ghost, extent.div_ceil(s), buffers);
    // bytes(s) falls as s grows: bisect
    let (mut lo, mut hi) = (1, extent.max(1));
    if bytes(hi) > cap {
        return Err(Error::OverMemoryCap {
            array: format!(
                "the slab buffers of streamed region {} ({buffers} sets of one plane and {} ghost planes each side, and the replicated arrays)",
                info.name, ghost
            ),
            requested_bytes: bytes(hi),
            allocated_bytes: 0,
            cap_bytes: cap,
        });
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        if bytes(mid) <= cap {
            hi = mid
        } else {
            lo = mid + 1
        }
    }
    Ok(lo)
}

/// The CPU emulation of a streamed region: a [`Split`] with one emulated device per slab,
/// the recorded copies replayed into it. The slab count: the one asked for, or the fewest
/// whose one buffer set fits `MINT_DEVICE_MEMORY`, and at least 2.
///
/// # Errors
/// [`Error::Stream`] when no array is split; [`Error::OverMemoryCap`].
pub(crate) fn cpu_split(info: &'static RegionInfo, st: &Streamer) -> Result<Split> {
    let layout = Layout::of(info)?;
    let (dist, extent) = place(info, &layout, st)?;
    let fewest = match crate::memcap::cap()? {
        Some(cap) => fewest_slabs(info, st, &dist, layout.ghost, extent, 1, cap)?,
        None => 1,
    };
    let slabs = slabs_asked(st.spec)
        .unwrap_or(2)
        .max(fewest)
        .clamp(1, extent.max(1));
    let mut split = Split::new(info, slabs, None)?;
    split.streamed = true;
    for &slot in &st.order {
        let h = st.inputs[slot].expect("recorded");
        split.copy_in(slot, info.arrays[slot].name, &h.raw, h.elem)?;
    }
    if crate::stats::report_enabled() {
        eprintln!(
            "mint report: stream {}: {slabs} slabs of {extent} planes on the CPU (emulated devices), {} ghost plane(s) each side",
            info.name, layout.ghost
        );
    }
    Ok(split)
}

/// How the host's memory meets the copy engines in a streamed run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostPath {
    /// Through the device's page-locked staging ring ([`crate::transfer`]): all cores copy
    /// a slab's planes in while the copy engine drains the ring, and the finished slab's
    /// planes out while the next slab computes. The default: a parallel copy runs at the
    /// host's memory bandwidth.
    #[default]
    Staged,
    /// The user's arrays page-locked (`cuMemHostRegister`) in 64 MiB pieces ahead of the
    /// slabs and released behind them, the copy engines reading and writing them
    /// directly. Measured on an H100 host, page-locking and releasing cost 9–15 GB/s,
    /// slower than the staged copy, so it is not the default (`MINT_STREAM_HOST`).
    Registered,
    /// Every array the pipeline copies is a page-locked [`crate::pinned::PinnedArray`]:
    /// the copy engines read and write it directly, and the host copies nothing. Chosen
    /// by itself whenever that holds, whatever [`host_path`] says.
    PageLocked,
}

static HOST_PATH: Mutex<Option<HostPath>> = Mutex::new(None);

/// Sets the host path of streamed runs (`None`: `MINT_STREAM_HOST`, `staged` or
/// `registered`, else [`HostPath::Staged`]).
pub fn set_host_path(p: Option<HostPath>) {
    *HOST_PATH.lock().unwrap_or_else(|p| p.into_inner()) = p;
}

/// The host path streamed runs use now.
pub fn host_path() -> HostPath {
    if let Some(p) = *HOST_PATH.lock().unwrap_or_else(|p| p.into_inner()) {
        return p;
    }
    match std::env::var("MINT_STREAM_HOST").as_deref() {
        Ok("registered") | Ok("register") => HostPath::Registered,
        _ => HostPath::Staged,
    }
}

/// Host overhead per slab the model adds (enqueueing copies and launches), in seconds.
const SLAB_OVERHEAD_S: f64 = 30e-6;

/// Runs a recorded streamed region on `gpu`.
///
/// # Errors
/// [`Error::Stream`] when a kernel does not qualify; [`Error::OverMemoryCap`],
/// [`Error::OutOfMemory`] when even one-plane slabs do not fit; translation, compilation
/// and launch errors; a kernel fault ([`Error::Driver`], naming the region's kernels).
/// Output arrays are written slab by slab, so a fault part way leaves the slabs before
/// it written.
pub(crate) fn run(gpu: &Arc<Gpu>, info: &'static RegionInfo, st: Streamer) -> Result<()> {
    let layout = Layout::of(info)?;
    let (dist, extent) = place(info, &layout, &st)?;
    let ghost = layout.ghost;
    // the kernels' plans, checked before any byte moves
    let plans = checked_plans(info, &st, &dist)?;

    // how many slabs fit
    gpu.bind()?;
    let cap = match crate::memcap::cap()? {
        Some(c) => c.saturating_sub(gpu.usage.bytes()),
        None => gpu.memory_info().0 / 10 * 9,
    };
    let buffers = BUFFERS;
    let fewest = fewest_slabs(info, &st, &dist, ghost, extent, buffers, cap)?;
    let asked = slabs_asked(st.spec);
    // the first slab: of the asked partition, or at most 1/PROBE_FRACTION of the planes
    let owned: Vec<(usize, usize)> = match asked {
        Some(n) => Slabs::new(extent, n.max(fewest).min(extent), ghost).owned,
        None => {
            let first = extent.div_ceil(fewest.max(PROBE_FRACTION)).max(1);
            vec![(0, first.min(extent))]
        }
    };
    let capacity = owned.iter().map(|&(lo, hi)| hi - lo).max().unwrap_or(1);
    let cap_planes = |n: usize| (capacity + 2 * ghost + 2 * PREFETCH_PLANES).min(n);
    let t_start = Instant::now();

    let mut pipe = Pipeline::new(gpu, info, &st, &plans, &dist, extent, ghost, cap_planes)?;
    let fault = |e: Error| -> Error {
        match e {
            Error::Driver { call, message } => Error::Driver {
                call,
                message: format!(
                    "{message} (streamed region {} at {}:{}, kernels {})",
                    info.name,
                    info.file,
                    info.line,
                    st.launches
                        .iter()
                        .map(|l| l.site.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            other => other,
        }
    };
    let first = owned[0];
    let (costs, t_first) = pipe.first(first).map_err(fault)?;
    let rest_planes = extent - first.1;
    let rest: Vec<(usize, usize)> = match asked {
        Some(_) => owned[1..].to_vec(),
        None if rest_planes == 0 => Vec::new(),
        None => {
            let lo = rest_planes.div_ceil(capacity);
            let hi = rest_planes.min(MAX_SLABS).max(lo);
            let n = best_slabs(rest_planes, lo, hi, &costs);
            Slabs::new(rest_planes, n, ghost)
                .owned
                .into_iter()
                .map(|(a, b)| (a + first.1, b + first.1))
                .collect()
        }
    };
    pipe.stats.first_planes = first.1 - first.0;
    pipe.stats.slabs = 1 + rest.len();
    pipe.stats.predicted_s = t_first + model_seconds(rest_planes, rest.len(), &costs);
    let r = pipe.rest(first, &rest);
    let mut stats = pipe.finish();
    r.map_err(fault)?;
    stats.seconds = t_start.elapsed().as_secs_f64();
    report_run(info, &stats, extent, ghost);
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(stats);
    Ok(())
}

/// The plan of each recorded launch over the distributed arrays `dist` (per slot, as
/// [`place`] gives them), checked to run slab by slab ([`check_kernel`]), and every array
/// copied back checked to be split.
///
/// # Errors
/// [`Error::Stream`] naming the kernel or array; [`Error::NotOnDevice`];
/// [`Error::Unsplittable`]; [`Error::Translate`].
fn checked_plans(
    info: &'static RegionInfo,
    st: &Streamer,
    dist: &[Option<bool>],
) -> Result<Vec<KernelPlan>> {
    let mut written = vec![false; dist.len()];
    let mut plans = Vec::with_capacity(st.launches.len());
    for l in &st.launches {
        let kernel = l.site.inlined()?;
        let mut kd = Vec::with_capacity(l.arrays.len());
        for (i, &s) in l.arrays.iter().enumerate() {
            match dist.get(s).copied().flatten() {
                Some(d) => kd.push(d),
                None => return Err(l.site.not_on_device(i)),
            }
        }
        let plan = decomp::plan_kernel(kernel, l.site.slab_refs()?, &kd)
            .map_err(|r| l.site.unsplittable(r))?;
        let arrays: Vec<(&str, bool, bool)> = l
            .arrays
            .iter()
            .map(|&s| (info.arrays[s].name, dist[s] == Some(true), written[s]))
            .collect();
        check_kernel(info, l.site, &plan, &arrays)?;
        for (i, &s) in l.arrays.iter().enumerate() {
            written[s] |= plan.writes[i];
        }
        plans.push(plan);
    }
    for (slot, _) in &st.outputs {
        if dist[*slot] != Some(true) {
            return Err(stream_error(
                info,
                format!(
                    "`{}` is copied back but not split into slabs (MINT_REPORT=1 says why); copy it back from a region without `stream`",
                    info.arrays[*slot].name
                ),
            ));
        }
    }
    Ok(plans)
}

/// What `MINT_REPORT=1` prints of a streamed run.
fn report_run(info: &RegionInfo, stats: &StreamStats, extent: usize, ghost: usize) {
    if crate::stats::report_enabled() {
        eprintln!(
            "mint report: stream {}: {} slabs of {} planes, host memory {:?} ({} in the first, timed: page-locking {:.3} ms, copy-in {:.3} ms, kernels {:.3} ms, copy-out {:.3} ms), {} ghost plane(s) each side, {} buffer sets ({:.1} MB on the device); {:.3} ms, the model predicted {:.3} ms",
            info.name,
            stats.slabs,
            extent,
            stats.host_path,
            stats.first_planes,
            stats.first_register_s * 1e3,
            stats.first_in_s * 1e3,
            stats.first_compute_s * 1e3,
            stats.first_out_s * 1e3,
            ghost,
            stats.buffers,
            stats.device_bytes as f64 * 1e-6,
            stats.seconds * 1e3,
            stats.predicted_s * 1e3
        );
    }
}
