//! Streaming a region through one device in slabs (issue #16; Visschers, seed
//! `001_9039035f5da401ab.txt`, Ch. 6): `#[mint::parallel(stream)]`.
//!
//! In a streamed region `copy!(x, to_device)` records the host array and each kernel
//! launch is recorded. At the last `copy!(.., from_device)` the region runs: its
//! distributed arrays (those the multi-device decomposition of [`crate::decomp`] would
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
//! ([`crate::split`], one slab each), with the same checks, so CI tests the slabs, the
//! ghost planes and the clipped loops.

use crate::array::{DeviceArray, planes_alloc_bytes};
use crate::decomp::{self, KernelPlan, Mode, Slabs};
use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::host::{RawArray, ScalarValue};
use crate::launch::{KernelSite, LaunchArgs, LaunchCtx};
use crate::region::RegionInfo;
use crate::split::{Layout, PREFETCH_PLANES, Split};
use crate::transfer::{Direction, Rows, memcpy2d};
use cudarc::driver::{result as drv, sys};
use mint_translator::ir::ScalarTy;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `#[mint::parallel(stream)]` as the macro describes it.
#[derive(Debug)]
pub struct StreamSpec {
    /// Slabs asked for with `stream = N`; 0 lets the model choose.
    pub slabs: u32,
    /// The region's `copy!(.., from_device)`s: the slabs run at the last one.
    pub outputs: u32,
}

/// Buffer sets on the device: copy-in, compute and copy-out of three slabs at once.
pub const BUFFERS: usize = 3;

/// Slabs the model's first (timed) slab is at most a fraction of: 1/16 of the planes.
const PROBE_FRACTION: usize = 16;

/// The most slabs the model considers.
const MAX_SLABS: usize = 1024;

/// Host memory is page-locked in pieces of this many bytes (a multiple of the page).
const CHUNK_BYTES: usize = 64 << 20;

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
    /// [`HostPath`] of the run.
    pub host_path: String,
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

fn stream_error(info: &RegionInfo, message: String) -> Error {
    Error::Stream {
        region: info.name.into(),
        message,
    }
}

/// Checks that `site`, planned as `plan`, can run slab by slab. `arrays[i]` is the
/// kernel's array `i`: its name, whether it is distributed, and whether a kernel of the
/// region has written it.
///
/// # Errors
/// [`Error::Stream`] naming the kernel and the array.
pub(crate) fn check_kernel(
    info: &RegionInfo,
    site: &'static KernelSite,
    plan: &KernelPlan,
    arrays: &[(&str, bool, bool)],
) -> Result<()> {
    let at = site.location();
    match plan.mode {
        Mode::Split { .. } => {}
        Mode::Owner => {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} would run under owner-computes ({}); a streamed kernel must write its distributed arrays at z + c of its outermost parallel index",
                    site.name,
                    plan.why.as_deref().unwrap_or("")
                ),
            ));
        }
        Mode::Everywhere => {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} touches no array the slabs split (see MINT_REPORT=1 for why each is replicated)",
                    site.name
                ),
            ));
        }
    }
    for (i, &(name, dist, written)) in arrays.iter().enumerate() {
        if plan.writes[i] && !dist {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} writes `{name}`, which is replicated (MINT_REPORT=1 says why); a streamed kernel writes only arrays the slabs split",
                    site.name
                ),
            ));
        }
        if plan.reads_ghosts[i] && (written || plan.writes[i]) {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} reads `{name}` beyond the planes it writes, and a kernel of the region writes `{name}`: slabs would need each other's results (a halo exchange); split the region, or drop `stream`",
                    site.name
                ),
            ));
        }
    }
    Ok(())
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

/// Page-locking the host arrays piece by piece ahead of the slabs, and releasing the
/// pieces behind them.
struct HostPins {
    /// Per distinct host array: its start, bytes, bytes per plane, and the pieces
    /// (`[start, end)` addresses; whether this run registered it).
    arrays: Vec<HostArrayPins>,
    /// Bytes page-locked and the seconds it took; bytes released and the seconds.
    bytes: usize,
    seconds: f64,
    released_bytes: usize,
    released_s: f64,
    warned: bool,
}

struct HostArrayPins {
    start: usize,
    plane_bytes: usize,
    pieces: Vec<(usize, usize)>,
    ours: Vec<bool>,
    /// Pieces `[0, next)` are registered (or tried); `[0, freed)` released.
    next: usize,
    freed: usize,
}

impl HostPins {
    fn new(arrays: &[HostRef]) -> HostPins {
        let mut out: Vec<HostArrayPins> = Vec::new();
        for h in arrays {
            let start = h.raw.ptr as usize;
            if out.iter().any(|a| a.start == start) {
                continue;
            }
            let end = start + h.bytes();
            let page = 4096;
            let mut pieces = Vec::new();
            let mut lo = start;
            let mut hi = (start.div_ceil(page) * page + CHUNK_BYTES).min(end);
            while lo < end {
                pieces.push((lo, hi));
                lo = hi;
                hi = (hi + CHUNK_BYTES).min(end);
            }
            out.push(HostArrayPins {
                start,
                plane_bytes: h.plane_bytes(),
                ours: vec![false; pieces.len()],
                pieces,
                next: 0,
                freed: 0,
            });
        }
        HostPins {
            arrays: out,
            bytes: 0,
            seconds: 0.0,
            released_bytes: 0,
            released_s: 0.0,
            warned: false,
        }
    }

    /// Registers every piece that holds a byte of planes `..hi`.
    fn ensure(&mut self, hi: usize) {
        let t = Instant::now();
        for a in &mut self.arrays {
            let end = a.start + hi * a.plane_bytes;
            while a.next < a.pieces.len() && a.pieces[a.next].0 < end {
                let (lo, hi) = a.pieces[a.next];
                let r = unsafe {
                    sys::cuMemHostRegister_v2(lo as *mut _, hi - lo, 0 /* not portable */)
                };
                a.ours[a.next] = r == sys::CUresult::CUDA_SUCCESS;
                if a.ours[a.next] {
                    self.bytes += hi - lo;
                } else if r != sys::CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                    && !self.warned
                    && crate::stats::report_enabled()
                {
                    self.warned = true;
                    eprintln!(
                        "mint report: stream: host memory could not be page-locked ({r:?}); its copies run from pageable memory"
                    );
                }
                a.next += 1;
            }
        }
        self.seconds += t.elapsed().as_secs_f64();
    }

    /// Releases every piece that holds no byte of planes `lo..`.
    fn release_below(&mut self, lo: usize) {
        let t = Instant::now();
        for a in &mut self.arrays {
            let start = a.start + lo * a.plane_bytes;
            while a.freed < a.next && a.pieces[a.freed].1 <= start {
                if a.ours[a.freed] {
                    let (lo, hi) = a.pieces[a.freed];
                    unsafe { sys::cuMemHostUnregister(lo as *mut _) };
                    a.ours[a.freed] = false;
                    self.released_bytes += hi - lo;
                }
                a.freed += 1;
            }
        }
        let dt = t.elapsed().as_secs_f64();
        self.seconds += dt;
        self.released_s += dt;
    }
}

impl HostPins {
    /// The addresses where a new piece of the host array at `start` begins (its first
    /// piece's start left out): a copy must not cross one, since a DMA from page-locked
    /// memory stays within one registration.
    fn cuts(&self, start: *mut u8) -> &[(usize, usize)] {
        self.arrays
            .iter()
            .find(|a| a.start == start as usize)
            .map_or(&[], |a| &a.pieces[..])
    }

    fn release_all(&mut self) {
        let t = Instant::now();
        for a in &mut self.arrays {
            for (p, ours) in a.pieces.iter().zip(a.ours.iter_mut()) {
                if *ours {
                    unsafe { sys::cuMemHostUnregister(p.0 as *mut _) };
                    *ours = false;
                }
            }
            a.freed = a.next;
        }
        self.seconds += t.elapsed().as_secs_f64();
    }
}

impl Drop for HostPins {
    fn drop(&mut self) {
        self.release_all();
    }
}

/// `r` cut where its host bytes cross the start of one of `pieces` (`[start, end)`
/// addresses): runs of whole rows stay one 2-D copy each; a row a boundary crosses becomes
/// one-row copies of its parts.
fn cut_rows(r: Rows, pieces: &[(usize, usize)]) -> Vec<Rows> {
    let h0 = r.host as usize;
    let rb = r.row_bytes;
    let end = h0 + r.rows * rb;
    let cuts: Vec<usize> = pieces
        .iter()
        .map(|p| p.0)
        .filter(|&c| c > h0 && c < end)
        .collect();
    if cuts.is_empty() || rb == 0 {
        return vec![r];
    }
    let mut out = Vec::new();
    let rows = |first: usize, n: usize, out: &mut Vec<Rows>| {
        if n > 0 {
            out.push(Rows {
                host: r.host.wrapping_add(first * rb),
                dev: r.dev + (first * r.pitch) as u64,
                rows: n,
                row_bytes: rb,
                pitch: r.pitch,
            });
        }
    };
    let mut next = 0; // first row not yet emitted
    let mut k = 0;
    while k < cuts.len() {
        let row = (cuts[k] - h0) / rb;
        rows(next, row - next, &mut out);
        // this row's cuts, if any fall inside it
        let mut offs = vec![0];
        while k < cuts.len() && (cuts[k] - h0) / rb == row {
            let o = (cuts[k] - h0) % rb;
            if o > 0 {
                offs.push(o);
            }
            k += 1;
        }
        if offs.len() == 1 {
            next = row;
            continue;
        }
        offs.push(rb);
        for w in offs.windows(2) {
            out.push(Rows {
                host: r.host.wrapping_add(row * rb + w[0]),
                dev: r.dev + (row * r.pitch + w[0]) as u64,
                rows: 1,
                row_bytes: w[1] - w[0],
                pitch: w[1] - w[0],
            });
        }
        next = row + 1;
    }
    rows(next, r.rows - next, &mut out);
    out
}

/// Events and the two copy streams of a run, destroyed at the end.
struct Streams {
    /// The device's own stream, which the kernels run on (waited for, not destroyed).
    compute: sys::CUstream,
    copy_in: sys::CUstream,
    copy_out: sys::CUstream,
    events: Vec<sys::CUevent>,
}

impl Streams {
    fn new(compute: sys::CUstream) -> Result<Streams> {
        use drv::stream::StreamKind::NonBlocking;
        let copy_in =
            drv::stream::create(NonBlocking).map_err(|e| Error::driver("cuStreamCreate", e))?;
        let copy_out = match drv::stream::create(NonBlocking) {
            Ok(s) => s,
            Err(e) => {
                unsafe { drv::stream::destroy(copy_in) }.ok();
                return Err(Error::driver("cuStreamCreate", e));
            }
        };
        Ok(Streams {
            compute,
            copy_in,
            copy_out,
            events: Vec::new(),
        })
    }
    fn event(&mut self, timing: bool) -> Result<sys::CUevent> {
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let e = drv::event::create(flags).map_err(|e| Error::driver("cuEventCreate", e))?;
        self.events.push(e);
        Ok(e)
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.copy_in);
            let _ = drv::stream::synchronize(self.copy_out);
            let _ = drv::stream::synchronize(self.compute);
            for e in self.events.drain(..) {
                let _ = drv::event::destroy(e);
            }
            let _ = drv::stream::destroy(self.copy_in);
            let _ = drv::stream::destroy(self.copy_out);
        }
    }
}

fn check(call: &str, r: std::result::Result<(), cudarc::driver::DriverError>) -> Result<()> {
    r.map_err(|e| Error::driver(call, e))
}

/// One stage of the pipeline: its seconds per owned plane of a slab, and per slab (the
/// ghost planes' copies).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stage {
    pub per_plane: f64,
    pub per_slab: f64,
}

/// What slabs cost, from the timed first slab: the model's input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Costs {
    /// The stages, each on its own engine (host cores, copy engines, multiprocessors).
    pub stages: Vec<Stage>,
    /// Seconds per slab the host spends enqueueing its copies and launches.
    pub overhead: f64,
}

/// The model: seconds for `planes` planes cut into `slabs` equal slabs. A pipeline: the
/// first slab passes every stage, each further one adds the slowest (Visschers Sec. 6.4,
/// with the stages overlapped as in his Fig. 6.3), plus the host's overhead per slab.
pub fn model_seconds(planes: usize, slabs: usize, c: &Costs) -> f64 {
    if planes == 0 || slabs == 0 {
        return 0.0;
    }
    let n = planes as f64 / slabs as f64;
    let t: Vec<f64> = c
        .stages
        .iter()
        .map(|s| n * s.per_plane + s.per_slab)
        .collect();
    let sum: f64 = t.iter().sum();
    let max = t.iter().cloned().fold(0.0, f64::max);
    sum + (slabs - 1) as f64 * max + slabs as f64 * c.overhead
}

/// The slab count in `lo..=hi` the model gives the least time.
pub fn best_slabs(planes: usize, lo: usize, hi: usize, c: &Costs) -> usize {
    (lo.max(1)..=hi.max(lo.max(1)))
        .min_by(|&a, &b| model_seconds(planes, a, c).total_cmp(&model_seconds(planes, b, c)))
        .unwrap_or(1)
}

/// How the host's memory meets the copy engines in a streamed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostPath {
    /// Through the device's page-locked staging ring ([`crate::transfer`]): all cores copy
    /// a slab's planes in while the copy engine drains the ring, and the finished slab's
    /// planes out while the next slab computes. The default: a parallel copy runs at the
    /// host's memory bandwidth.
    Staged,
    /// The user's arrays page-locked (`cuMemHostRegister`) in 64 MiB pieces ahead of the
    /// slabs and released behind them, the copy engines reading and writing them
    /// directly. Measured on an H100 host, page-locking and releasing cost 9–15 GB/s,
    /// slower than the staged copy, so it is not the default (`MINT_STREAM_HOST`).
    Registered,
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
        let plan = decomp::plan_kernel(kernel, l.site.slab_refs()?, &kd);
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
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(stats);
    Ok(())
}

/// The rows of planes `lo..hi` of host array `h` and its slab buffer `d`.
fn plane_rows(h: &HostRef, d: &DeviceArray, lo: usize, hi: usize) -> Rows {
    Rows {
        host: h.raw.ptr.wrapping_add(lo * h.plane_bytes()),
        dev: d.plane_ptr(lo),
        rows: (hi - lo) * h.rows_per_plane(),
        row_bytes: h.raw.shape[2] * h.esz(),
        pitch: d.pitch * h.esz(),
    }
}

/// A streamed run on one GPU: the buffer sets, the streams, the host memory's path, and
/// the three steps each slab takes.
struct Pipeline<'a> {
    gpu: &'a Arc<Gpu>,
    info: &'static RegionInfo,
    st: &'a Streamer,
    plans: &'a [KernelPlan],
    extent: usize,
    ghost: usize,
    /// Distributed slots copied in; whether some kernel reads each slot beyond its planes.
    ins: Vec<usize>,
    ghosted: Vec<bool>,
    /// Per buffer set, per slot: the slab buffers; the replicated arrays, once.
    sets: Vec<Vec<Option<DeviceArray>>>,
    repl: Vec<Option<DeviceArray>>,
    path: HostPath,
    /// The page-locked pieces ([`HostPath::Registered`]), and where each array's begin.
    pins: HostPins,
    piece_table: Vec<(usize, Vec<(usize, usize)>)>,
    // declared last: dropped (streams waited for) before the buffers and the pins
    streams: Streams,
    stats: StreamStats,
}

impl<'a> Pipeline<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        gpu: &'a Arc<Gpu>,
        info: &'static RegionInfo,
        st: &'a Streamer,
        plans: &'a [KernelPlan],
        dist: &[Option<bool>],
        extent: usize,
        ghost: usize,
        cap_planes: impl Fn(usize) -> usize,
    ) -> Result<Pipeline<'a>> {
        let mut repl: Vec<Option<DeviceArray>> = (0..dist.len()).map(|_| None).collect();
        let mut sets = Vec::with_capacity(BUFFERS);
        for b in 0..BUFFERS {
            let mut set: Vec<Option<DeviceArray>> = (0..dist.len()).map(|_| None).collect();
            for &slot in &st.order {
                let h = st.inputs[slot].expect("recorded");
                let (name, align) = (info.arrays[slot].name, info.arrays[slot].align_x);
                let n = h.raw.shape[3 - h.raw.ndim];
                let (shape, ndim) = (h.raw.shape, h.raw.ndim);
                if dist[slot] == Some(true) {
                    let planes = (0, cap_planes(n));
                    let d =
                        DeviceArray::alloc_planes(gpu, name, h.elem, shape, ndim, align, planes)?;
                    set[slot] = Some(d);
                } else if b == 0 {
                    let d = DeviceArray::alloc(gpu, name, h.elem, shape, ndim, align)?;
                    d.upload_bytes(h.raw.ptr)?;
                    repl[slot] = Some(d);
                }
            }
            sets.push(set);
        }
        let ins: Vec<usize> = st
            .order
            .iter()
            .copied()
            .filter(|&s| dist[s] == Some(true))
            .collect();
        let mut ghosted = vec![false; dist.len()];
        for (l, plan) in st.launches.iter().zip(plans) {
            for (i, &s) in l.arrays.iter().enumerate() {
                ghosted[s] |= plan.reads_ghosts[i];
            }
        }
        let path = host_path();
        let mut pinned: Vec<HostRef> = Vec::new();
        if path == HostPath::Registered {
            pinned.extend(ins.iter().map(|&s| st.inputs[s].expect("recorded")));
            pinned.extend(st.outputs.iter().map(|(_, h)| *h));
        }
        let pins = HostPins::new(&pinned);
        let piece_table = pinned
            .iter()
            .map(|h| (h.raw.ptr as usize, pins.cuts(h.raw.ptr).to_vec()))
            .collect();
        let device_bytes = sets
            .iter()
            .flatten()
            .chain(repl.iter())
            .flatten()
            .map(DeviceArray::bytes)
            .sum();
        let compute = gpu.stream.cu_stream();
        Ok(Pipeline {
            gpu,
            info,
            st,
            plans,
            extent,
            ghost,
            ins,
            ghosted,
            sets,
            repl,
            path,
            pins,
            piece_table,
            streams: Streams::new(compute)?,
            stats: StreamStats {
                region: info.name.into(),
                extent,
                ghost,
                buffers: BUFFERS,
                device_bytes,
                host_path: format!("{path:?}"),
                ..Default::default()
            },
        })
    }

    fn held(&self, (lo, hi): (usize, usize)) -> (usize, usize) {
        (
            lo.saturating_sub(self.ghost),
            (hi + self.ghost).min(self.extent),
        )
    }

    fn cuts(&self, p: *mut u8) -> &[(usize, usize)] {
        self.piece_table
            .iter()
            .find(|(a, _)| *a == p as usize)
            .map_or(&[], |(_, v)| &v[..])
    }

    /// One copy between the host and a slab buffer, on `stream`: from or to the page-locked
    /// pieces directly, or through the staging ring (the host's part of the copy done when
    /// this returns).
    fn copy(
        &self,
        dir: Direction,
        h: &HostRef,
        r: Rows,
        stream: sys::CUstream,
        what: String,
    ) -> Result<()> {
        let err = |e| Error::Driver {
            call: match dir {
                Direction::ToDevice => "cuMemcpy2DAsync (stream, host to device)".into(),
                Direction::ToHost => "cuMemcpy2DAsync (stream, device to host)".into(),
            },
            message: format!("{what}: {}", describe(e)),
        };
        match self.path {
            HostPath::Registered => {
                // the pieces of the array `r` is part of
                for part in cut_rows(r, self.cuts(h.raw.ptr)) {
                    memcpy2d(dir, part, stream).map_err(err)?;
                }
                Ok(())
            }
            // SAFETY: the host rows are the user's array's (the region borrows it), the
            // device rows inside the slab buffer.
            HostPath::Staged => {
                unsafe { crate::transfer::staged(self.gpu, dir, &r, stream) }.map_err(err)
            }
        }
    }

    /// Copies slab `own`'s held planes (owned planes, for arrays no kernel reads beyond
    /// its own) into buffer set `b`, on the copy-in stream after `wait`. Returns the event
    /// that marks them copied.
    fn copy_in(
        &mut self,
        own: (usize, usize),
        b: usize,
        wait: Option<sys::CUevent>,
    ) -> Result<sys::CUevent> {
        let held = self.held(own);
        for a in self.sets[b].iter_mut().flatten() {
            a.rebase(held.0.saturating_sub(PREFETCH_PLANES));
        }
        let s = self.streams.copy_in;
        if let Some(e) = wait {
            check("cuStreamWaitEvent", unsafe {
                drv::stream::wait_event(s, e, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
            })?;
        }
        for &slot in &self.ins {
            let h = self.st.inputs[slot].expect("recorded");
            let d = self.sets[b][slot].as_ref().expect("allocated");
            let (lo, hi) = if self.ghosted[slot] { held } else { own };
            let r = plane_rows(&h, d, lo, hi);
            let what = format!("array `{}`, planes {lo}..{hi}", self.info.arrays[slot].name);
            self.copy(Direction::ToDevice, &h, r, s, what)?;
            self.stats.bytes_in += r.rows * r.row_bytes;
        }
        let e = self.streams.event(false)?;
        check("cuEventRecord", unsafe { drv::event::record(e, s) })?;
        Ok(e)
    }

    /// Runs the kernels on slab `own` in buffer set `b` after `after`, each clipped to the
    /// planes the slab owns. With `timed`, compiles them first and brackets them with the
    /// two timing events. Returns the event that marks them done.
    fn compute(
        &mut self,
        own: (usize, usize),
        b: usize,
        after: sys::CUevent,
        timed: Option<[sys::CUevent; 2]>,
    ) -> Result<sys::CUevent> {
        let compute = self.streams.compute;
        let launches: Vec<(&Recorded, Vec<(i64, i64)>)> = self
            .st
            .launches
            .iter()
            .zip(self.plans)
            .filter_map(|(l, plan)| {
                let mut bounds = l.bounds.clone();
                if let (Mode::Split { clip }, Some(first)) = (plan.mode, bounds.first_mut()) {
                    *first = decomp::clip_range(first.0, first.1, own, clip);
                    if first.0 >= first.1 {
                        return None;
                    }
                }
                Some((l, bounds))
            })
            .collect();
        let (set, repl) = (&self.sets[b], &self.repl);
        let launch = |l: &Recorded, bounds: &[(i64, i64)], only_prepare: bool| -> Result<()> {
            let slot = |s: usize| {
                set.get(s)
                    .and_then(|a| a.as_ref())
                    .or_else(|| repl.get(s).and_then(|a| a.as_ref()))
            };
            let (mut events, mut pending) = (Vec::new(), Vec::new());
            let mut cx = LaunchCtx {
                gpu: self.gpu,
                slot: &slot,
                events: &mut events,
                pending: &mut pending,
                timing: false,
                owner: None,
                batch: None,
            };
            let args = LaunchArgs {
                arrays: &l.arrays,
                scalars: &l.scalars,
                bounds,
                clauses: &l.clauses,
            };
            if only_prepare {
                crate::launch::prepare(&mut cx, l.site, &args)
            } else {
                crate::launch::launch(&mut cx, l.site, &args, true).map(|_| ())
            }
        };
        if timed.is_some() {
            // the timed slab: compile (and tune, on the slab's data) before the clock runs
            check("cuEventSynchronize", unsafe {
                drv::event::synchronize(after)
            })?;
            for (l, bounds) in &launches {
                launch(l, bounds, true)?;
            }
        }
        check("cuStreamWaitEvent", unsafe {
            drv::stream::wait_event(
                compute,
                after,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        })?;
        if let Some(t) = timed {
            check("cuEventRecord", unsafe {
                drv::event::record(t[0], compute)
            })?;
        }
        for (l, bounds) in &launches {
            launch(l, bounds, false)?;
        }
        if let Some(t) = timed {
            check("cuEventRecord", unsafe {
                drv::event::record(t[1], compute)
            })?;
        }
        let e = self.streams.event(false)?;
        check("cuEventRecord", unsafe { drv::event::record(e, compute) })?;
        Ok(e)
    }

    /// Copies slab `own`'s owned planes of the arrays copied back from buffer set `b` to
    /// the host, on the copy-out stream after `after`. Staged, the host waits for them.
    /// Returns the event that marks the slab done (its buffers free again).
    fn copy_out(
        &mut self,
        own: (usize, usize),
        b: usize,
        after: sys::CUevent,
    ) -> Result<sys::CUevent> {
        let s = self.streams.copy_out;
        check("cuStreamWaitEvent", unsafe {
            drv::stream::wait_event(s, after, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
        })?;
        for (slot, h) in &self.st.outputs {
            let d = self.sets[b][*slot].as_ref().expect("allocated");
            let r = plane_rows(h, d, own.0, own.1);
            let what = format!(
                "array `{}`, planes {}..{}",
                self.info.arrays[*slot].name, own.0, own.1
            );
            self.copy(Direction::ToHost, h, r, s, what)?;
            self.stats.bytes_out += r.rows * r.row_bytes;
        }
        let e = self.streams.event(false)?;
        check("cuEventRecord", unsafe { drv::event::record(e, s) })?;
        Ok(e)
    }

    /// The first slab, alone and timed; returns the model's costs and the seconds it took.
    fn first(&mut self, own: (usize, usize)) -> Result<(Costs, f64)> {
        let t0 = Instant::now();
        let held = self.held(own);
        self.pins.ensure(held.1);
        self.stats.first_register_s = self.pins.seconds;
        let (reg_bytes, reg_s) = (self.pins.bytes, self.pins.seconds);
        let t = [
            self.streams.event(true)?,
            self.streams.event(true)?,
            self.streams.event(true)?,
            self.streams.event(true)?,
            self.streams.event(true)?,
            self.streams.event(true)?,
        ];
        let ms = |a: sys::CUevent, b: sys::CUevent| -> f64 {
            unsafe { drv::event::elapsed(a, b) }.unwrap_or(0.0) as f64 * 1e-3
        };
        let sync =
            |e: sys::CUevent| check("cuEventSynchronize", unsafe { drv::event::synchronize(e) });
        let record = |e: sys::CUevent, s: sys::CUstream| {
            check("cuEventRecord", unsafe { drv::event::record(e, s) })
        };
        // copy-in: host time for a staged copy (the host copies while the engine works),
        // event time for a direct one
        let h = Instant::now();
        record(t[0], self.streams.copy_in)?;
        let copied = self.copy_in(own, 0, None)?;
        record(t[1], self.streams.copy_in)?;
        sync(copied)?;
        let in_host = h.elapsed().as_secs_f64();
        let done = self.compute(own, 0, copied, Some([t[2], t[3]]))?;
        sync(done)?;
        let h = Instant::now();
        record(t[4], self.streams.copy_out)?;
        let out = self.copy_out(own, 0, done)?;
        record(t[5], self.streams.copy_out)?;
        sync(out)?;
        let out_host = h.elapsed().as_secs_f64();
        let staged = self.path == HostPath::Staged;
        self.stats.first_in_s = if staged { in_host } else { ms(t[0], t[1]) };
        self.stats.first_compute_s = ms(t[2], t[3]);
        self.stats.first_out_s = if staged { out_host } else { ms(t[4], t[5]) };

        // per-plane costs: copies by their bytes, page-locking by the bytes it took and
        // what releasing the first slab's pieces takes
        let plane = |s: &usize| self.st.inputs[*s].expect("recorded").plane_bytes();
        let in_plane: usize = self.ins.iter().map(plane).sum();
        let ghost_plane: usize = self
            .ins
            .iter()
            .filter(|s| self.ghosted[**s])
            .map(plane)
            .sum();
        let pinned_plane: usize = self.pins.arrays.iter().map(|a| a.plane_bytes).sum();
        self.pins.release_below(own.1.saturating_sub(self.ghost));
        let per_byte = |s: f64, b: usize| if b > 0 { s / b as f64 } else { 0.0 };
        let reg = per_byte(reg_s, reg_bytes);
        let unreg = if self.pins.released_bytes > 0 {
            per_byte(self.pins.released_s, self.pins.released_bytes)
        } else {
            reg * 0.8
        };
        let in_rate = per_byte(self.stats.first_in_s, self.stats.bytes_in);
        let n0 = (own.1 - own.0).max(1) as f64;
        let copy_in = Stage {
            per_plane: in_rate * in_plane as f64,
            per_slab: in_rate * (2 * self.ghost * ghost_plane) as f64,
        };
        let kernels = Stage {
            per_plane: self.stats.first_compute_s / n0,
            per_slab: 0.0,
        };
        let copy_out = Stage {
            per_plane: self.stats.first_out_s / n0,
            per_slab: 0.0,
        };
        let stages = if staged {
            // the host's cores copy each slab in and the one before out, one after the other
            vec![
                Stage {
                    per_plane: copy_in.per_plane + copy_out.per_plane,
                    per_slab: copy_in.per_slab,
                },
                kernels,
            ]
        } else {
            let pin = Stage {
                per_plane: (reg + unreg) * pinned_plane as f64,
                per_slab: 0.0,
            };
            vec![pin, copy_in, kernels, copy_out]
        };
        let _ = held;
        Ok((
            Costs {
                stages,
                overhead: SLAB_OVERHEAD_S,
            },
            t0.elapsed().as_secs_f64(),
        ))
    }

    /// The slabs after the first, `own[i]` in buffer set `(i + 1) % BUFFERS`: each slab's
    /// copy-in and kernels are queued, then the slab before it is copied out, so the host
    /// (page-locking, or copying through the ring) works on one slab while the device
    /// computes the next.
    fn rest(&mut self, first: (usize, usize), own: &[(usize, usize)]) -> Result<()> {
        let all: Vec<(usize, usize)> = std::iter::once(first).chain(own.iter().copied()).collect();
        let mut done: Vec<sys::CUevent> = Vec::with_capacity(all.len());
        // slab 0 is done; `computed[i]` for slabs not yet copied out
        let mut computed: Vec<Option<sys::CUevent>> = vec![None; all.len()];
        done.push(self.streams.event(false)?);
        let mut released = 0; // slabs whose pieces were released
        for i in 1..all.len() {
            let b = i % BUFFERS;
            self.pins.ensure(self.held(all[i]).1);
            let wait = i.checked_sub(BUFFERS).map(|j| done[j]);
            let copied = self.copy_in(all[i], b, wait)?;
            computed[i] = Some(self.compute(all[i], b, copied, None)?);
            if i >= 2 {
                let c = computed[i - 1].take().expect("computed");
                done.push(self.copy_out(all[i - 1], (i - 1) % BUFFERS, c)?);
            } else {
                // slab 0's done event: recorded on an idle stream, so complete
                check("cuEventRecord", unsafe {
                    drv::event::record(done[0], self.streams.copy_out)
                })?;
            }
            if let Some(next) = all.get(i + 1) {
                self.pins.ensure(self.held(*next).1);
            }
            // release the pieces behind the slabs that are done
            while released + 1 < done.len() && unsafe { drv::event::query(done[released]) }.is_ok()
            {
                released += 1;
                self.pins.release_below(self.held(all[released]).0);
            }
        }
        if all.len() > 1 {
            let last = all.len() - 1;
            let c = computed[last].take().expect("computed");
            done.push(self.copy_out(all[last], last % BUFFERS, c)?);
        }
        for s in [self.streams.copy_out, self.streams.compute] {
            check("cuStreamSynchronize", unsafe {
                drv::stream::synchronize(s)
            })?;
        }
        Ok(())
    }

    /// Waits for everything, releases the host memory and returns the figures.
    fn finish(mut self) -> StreamStats {
        for s in [
            self.streams.copy_in,
            self.streams.copy_out,
            self.streams.compute,
        ] {
            let _ = unsafe { drv::stream::synchronize(s) };
        }
        self.pins.release_all();
        self.stats.registered_bytes = self.pins.bytes;
        self.stats.register_s = self.pins.seconds;
        std::mem::take(&mut self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes each copy moves, as (host offset, device offset, len) runs.
    fn runs(parts: &[Rows], base: &Rows) -> Vec<(usize, u64, usize)> {
        let mut v = Vec::new();
        for p in parts {
            for row in 0..p.rows {
                let h = p.host as usize - base.host as usize + row * p.row_bytes;
                let d = p.dev - base.dev + (row * p.pitch) as u64;
                v.push((h, d, p.row_bytes));
            }
        }
        v
    }

    #[test]
    fn copies_are_cut_at_the_pieces_and_move_the_same_bytes() {
        let r = Rows {
            host: 1000 as *mut u8,
            dev: 1 << 20,
            rows: 10,
            row_bytes: 100,
            pitch: 128,
        };
        // the same bytes as the uncut copy, row by row
        let whole: Vec<(usize, u64, usize)> =
            (0..10).map(|i| (i * 100, i as u64 * 128, 100)).collect();
        for cuts in [
            vec![],
            vec![1300],
            vec![1350],
            vec![1000, 2000],
            vec![1350, 1370, 1900],
        ] {
            let pieces: Vec<(usize, usize)> = cuts.iter().map(|&c| (c, c + 1)).collect();
            let parts = cut_rows(r, &pieces);
            let mut got = runs(&parts, &r);
            // split rows come back as parts: join them to compare bytes
            let mut joined: Vec<(usize, u64, usize)> = Vec::new();
            got.sort();
            for (h, d, n) in got {
                match joined.last_mut() {
                    Some(l) if l.0 + l.2 == h && l.1 + l.2 as u64 == d && h % 100 != 0 => l.2 += n,
                    _ => joined.push((h, d, n)),
                }
            }
            assert_eq!(joined, whole, "cuts {cuts:?}");
            // no copy crosses a cut
            for p in &parts {
                let (a, b) = (p.host as usize, p.host as usize + p.rows * p.row_bytes);
                assert!(
                    cuts.iter().all(|&c| c <= a || c >= b),
                    "cuts {cuts:?}: {p:?}"
                );
            }
        }
    }

    fn stages(p: &[f64]) -> Vec<Stage> {
        p.iter()
            .map(|&per_plane| Stage {
                per_plane,
                per_slab: 0.0,
            })
            .collect()
    }

    #[test]
    fn the_model_is_a_pipeline_of_four_stages() {
        let mut c = Costs {
            stages: stages(&[1.0, 2.0, 3.0, 1.0]),
            overhead: 0.0,
        };
        // one slab: the sum of the stages
        assert_eq!(model_seconds(10, 1, &c), 70.0);
        // ten slabs of one plane: 7 for the first, 3 (kernels) for each other
        assert_eq!(model_seconds(10, 10, &c), 7.0 + 9.0 * 3.0);
        // ghost planes cost copy-in on every slab, and make it the slowest stage
        c.stages[1].per_slab = 4.0;
        assert_eq!(model_seconds(10, 10, &c), 1.0 + 6.0 + 3.0 + 1.0 + 9.0 * 6.0);
    }

    #[test]
    fn the_model_trades_fill_time_against_overhead() {
        let mut c = Costs {
            stages: stages(&[1e-3, 1e-3, 1e-3]),
            overhead: 0.0,
        };
        // no overhead: as many slabs as allowed
        assert_eq!(best_slabs(100, 1, 50, &c), 50);
        // an overhead of a plane's time per slab: the optimum is near sqrt(2 * 100)
        c.overhead = 1e-3;
        let n = best_slabs(100, 1, 100, &c);
        assert!((10..=18).contains(&n), "{n}");
        // the lower bound (memory) wins when the optimum is below it
        assert_eq!(best_slabs(100, 40, 100, &c), 40);
        // ghosts cost a slab what five planes do: fewer slabs
        c.stages[0].per_slab = 5e-3;
        assert!(best_slabs(100, 1, 100, &c) < n);
    }
}
