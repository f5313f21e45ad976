//! A streamed run on one GPU: buffer sets, three streams, and the three steps each slab
//! takes (copy-in, kernels, copy-out), with the first slab timed for the model.

use super::model::{Costs, Stage};
use super::pins::{HostPins, cut_rows};
use super::{
    BUFFERS, HostPath, HostRef, Recorded, SLAB_OVERHEAD_S, StreamStats, Streamer, host_path,
};
use crate::array::DeviceArray;
use crate::decomp::{self, KernelPlan, Mode};
use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::exec::LaunchCtx;
use crate::site::{LaunchArgs, RegionInfo};
use crate::split::PREFETCH_PLANES;
use crate::transfer::{Direction, Rows, memcpy2d};
use cudarc::driver::{result as drv, sys};
use mint_translator::tune::Candidate;
use std::sync::Arc;
use std::time::Instant;

/// Events and the two copy streams of a run, destroyed at the end.
struct Streams {
    /// The device's own stream, which the kernels run on (waited for, not destroyed).
    compute: sys::CUstream,
    copy_in: sys::CUstream,
    copy_out: sys::CUstream,
    events: Vec<sys::CUevent>,
}

impl Streams {
    pub(super) fn new(compute: sys::CUstream) -> Result<Streams> {
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

/// A recorded launch on one slab: its index, the launch, its bounds clipped to the slab.
type SlabLaunch<'r> = (usize, &'r Recorded, Vec<(i64, i64)>);

/// A streamed run on one GPU: the buffer sets, the streams, the host memory's path, and
/// the three steps each slab takes.
pub(super) struct Pipeline<'a> {
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
    /// The page-locked pieces ([`HostPath::Registered`]).
    pins: HostPins,
    // declared last: dropped (streams waited for) before the buffers and the pins
    streams: Streams,
    pub(super) stats: StreamStats,
    /// Per recorded launch, the configuration every slab launches it in (the autotuner's
    /// choice on the first slab that launches it); `None` until then.
    configs: Vec<Option<Option<Candidate>>>,
}

impl<'a> Pipeline<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
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
        let copied = ins
            .iter()
            .map(|&s| st.inputs[s].expect("recorded"))
            .chain(st.outputs.iter().map(|(_, h)| *h));
        let path = if copied.clone().all(|h| h.page_locked()) {
            HostPath::PageLocked
        } else {
            host_path()
        };
        let mut pinned: Vec<HostRef> = Vec::new();
        if path == HostPath::Registered {
            pinned.extend(ins.iter().map(|&s| st.inputs[s].expect("recorded")));
            pinned.extend(st.outputs.iter().map(|(_, h)| *h));
        }
        let pins = HostPins::new(&pinned);
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
            streams: Streams::new(compute)?,
            configs: vec![None; st.launches.len()],
            stats: StreamStats {
                region: info.name.into(),
                extent,
                ghost,
                buffers: BUFFERS,
                device_bytes,
                host_path: path,
                ..Default::default()
            },
        })
    }

    /// A new event recorded on `s`: marks the work queued there so far.
    fn mark(&mut self, s: sys::CUstream) -> Result<sys::CUevent> {
        let e = self.streams.event(false)?;
        check("cuEventRecord", unsafe { drv::event::record(e, s) })?;
        Ok(e)
    }

    fn held(&self, (lo, hi): (usize, usize)) -> (usize, usize) {
        (
            lo.saturating_sub(self.ghost),
            (hi + self.ghost).min(self.extent),
        )
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
        if h.page_locked() {
            return memcpy2d(dir, r, stream).map_err(err);
        }
        match self.path {
            HostPath::PageLocked => unreachable!("every copied array is page-locked"),
            HostPath::Registered => {
                // the pieces of the array `r` is part of
                for part in cut_rows(r, self.pins.cuts(h.raw.ptr)) {
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
        self.mark(s)
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
        // (index, launch, bounds clipped to the slab's planes), empty ones left out
        let launches: Vec<SlabLaunch> = self
            .st
            .launches
            .iter()
            .zip(self.plans)
            .enumerate()
            .filter_map(|(k, (l, plan))| {
                let mut bounds = l.bounds.clone();
                if let (Mode::Split { clip }, Some(first)) = (plan.mode, bounds.first_mut()) {
                    *first = decomp::clip_range(first.0, first.1, own, clip);
                    if first.0 >= first.1 {
                        return None;
                    }
                }
                Some((k, l, bounds))
            })
            .collect();
        let (set, repl, configs) = (&self.sets[b], &self.repl, &mut self.configs);
        // `Some(config)`: launch in it; `None`: choose it (the autotuner may search, on this
        // slab's data), compile it, and return it
        let launch = |l: &Recorded,
                      bounds: &[(i64, i64)],
                      config: Option<&Option<Candidate>>|
         -> Result<Option<Candidate>> {
            let slot = |s: usize| {
                set.get(s)
                    .and_then(|a| a.as_ref())
                    .or_else(|| repl.get(s).and_then(|a| a.as_ref()))
            };
            let (mut events, mut pending) = (Vec::new(), Vec::new());
            let mut cx = LaunchCtx::quiet(self.gpu, &slot, &mut events, &mut pending);
            let args = LaunchArgs {
                arrays: &l.arrays,
                scalars: &l.scalars,
                bounds,
                clauses: &l.clauses,
            };
            match config {
                None => crate::launch::prepare(&mut cx, l.site, &args),
                Some(c) => {
                    crate::exec::launch_as(&mut cx, l.site, &args, true, *c, true).map(|_| *c)
                }
            }
        };
        // the first slab (timed) and any kernel an earlier slab did not launch: choose the
        // configuration once, before the clock runs; every slab launches in it (a slab of
        // another thickness is no reason to tune again)
        if launches.iter().any(|(k, _, _)| configs[*k].is_none()) {
            check("cuEventSynchronize", unsafe {
                drv::event::synchronize(after)
            })?;
            for (k, l, bounds) in &launches {
                if configs[*k].is_none() {
                    configs[*k] = Some(launch(l, bounds, None)?);
                }
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
        for (k, l, bounds) in &launches {
            launch(l, bounds, configs[*k].as_ref())?;
        }
        if let Some(t) = timed {
            check("cuEventRecord", unsafe {
                drv::event::record(t[1], compute)
            })?;
        }
        self.mark(compute)
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
        self.mark(s)
    }

    /// The first slab, alone and timed; returns the model's costs and the seconds it took.
    pub(super) fn first(&mut self, own: (usize, usize)) -> Result<(Costs, f64)> {
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
    pub(super) fn rest(&mut self, first: (usize, usize), own: &[(usize, usize)]) -> Result<()> {
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
    pub(super) fn finish(mut self) -> StreamStats {
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
