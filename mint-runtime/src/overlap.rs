//! Overlap of the halo exchange with the interior (issues #12 and #13, item "Overlap").
//!
//! A split kernel that writes an array some kernel of the region reads beyond its own
//! planes runs in two parts on each GPU: first its *boundary planes*, the owned planes
//! another device holds as ghost planes, then its *interior*. As soon as the boundary
//! part is done, the halos go on a stream of their own (peer copies between this
//! process's GPUs; page-locked staging and MPI between ranks, the host waiting only for
//! the boundary), while the interior runs. The next launch on a device waits for the
//! halos it receives and for those read from its planes, nothing else.
//!
//! Which arrays: those the region has already read beyond their planes (learned at the
//! first lazy exchange, and kept with the array through `std::mem::swap`), so a region's
//! first step runs as without overlap. Kernels with a reduction, owner-computes kernels
//! and streamed regions are never split. On emulated devices (`cpu:N`) the same arrays are
//! exchanged right after the kernel, which tests the choice of arrays in CI.
//!
//! `MINT_OVERLAP=0` (or [`set_overlap`]`(Some(false))`) turns it off: every exchange
//! waits for the kernel that wrote the array, as before.

use crate::decomp::Slabs;
use crate::device::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{result as drv, sys};
use std::sync::Mutex;

static OVERLAP: crate::flag::EnvFlag = crate::flag::EnvFlag::new("MINT_OVERLAP", true);
static EXCHANGES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many halo exchanges of an array went out right after the kernel that wrote it
/// (overlapped with its interior on GPUs) since the program started.
pub fn overlapped_exchanges() -> usize {
    EXCHANGES.load(std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn count_exchange() {
    EXCHANGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Turns the overlap on or off for regions entered later (`None`: `MINT_OVERLAP`, on
/// unless `0`).
pub fn set_overlap(on: Option<bool>) {
    OVERLAP.set_or_reset(on);
}

/// Whether split kernels overlap their halo exchange with their interior now.
pub fn overlap() -> bool {
    OVERLAP.get()
}

/// The planes of device `d`'s owned slab that other devices hold as ghost planes, as at
/// most one run at each end (low, high), and the interior between them; runs are
/// `[lo, hi)` and may be empty.
pub(crate) fn parts(s: &Slabs, d: usize) -> [(usize, usize); 3] {
    let (own_lo, own_hi) = s.owned[d];
    let (mut low_hi, mut high_lo) = (own_lo, own_hi);
    for other in (0..s.devices()).filter(|&o| o != d) {
        for (from, lo, hi) in s.ghost_sources(other) {
            if from != d {
                continue;
            }
            // a run read by a device below (its upper ghosts) starts at own_lo; by a
            // device above, ends at own_hi
            if lo == own_lo {
                low_hi = low_hi.max(hi);
            } else {
                high_lo = high_lo.min(lo);
            }
        }
    }
    if low_hi >= high_lo {
        // a slab no thicker than its boundary: all of it is boundary
        return [(own_lo, own_hi), (own_hi, own_hi), (own_hi, own_hi)];
    }
    [(own_lo, low_hi), (high_lo, own_hi), (low_hi, high_lo)]
}

/// The halo streams of a split region's GPUs (one per local device, made at first use)
/// and, per local device, the events of halo copies its stream must wait for before its
/// next work.
#[derive(Default)]
pub(crate) struct Halos {
    streams: Vec<Option<sys::CUstream>>,
    pending: Mutex<Vec<Vec<sys::CUevent>>>,
}

// SAFETY: CUDA streams and events may be used from any thread of the process; the
// pending list is behind a lock.
unsafe impl Send for Halos {}
unsafe impl Sync for Halos {}

fn driver(call: &str, d: usize, e: cudarc::driver::DriverError) -> Error {
    Error::Driver {
        call: call.into(),
        message: format!("halo exchange of device {d}: {}", crate::error::describe(e)),
    }
}

impl Halos {
    /// The halo stream of local device `i` (on `gpu`, whose context is made current).
    pub(crate) fn stream(&mut self, i: usize, gpu: &Gpu, d: usize) -> Result<sys::CUstream> {
        gpu.bind()?;
        if self.streams.len() <= i {
            self.streams.resize(i + 1, None);
        }
        if let Some(s) = self.streams[i] {
            return Ok(s);
        }
        let s = drv::stream::create(drv::stream::StreamKind::NonBlocking)
            .map_err(|e| driver("cuStreamCreate", d, e))?;
        self.streams[i] = Some(s);
        Ok(s)
    }

    /// An event recorded on `stream` now (to be waited for once, then destroyed by
    /// [`Halos::join`] or by the caller).
    pub(crate) fn record(stream: sys::CUstream, d: usize) -> Result<sys::CUevent> {
        // the event must be made in the stream's context: the current one may be another
        // GPU's (a launch does not make its GPU current; a part with no blocks launches
        // nothing)
        let mut ctx = std::ptr::null_mut();
        unsafe { sys::cuStreamGetCtx(stream, &mut ctx) }
            .result()
            .map_err(|e| driver("cuStreamGetCtx", d, e))?;
        unsafe { sys::cuCtxSetCurrent(ctx) }
            .result()
            .map_err(|e| driver("cuCtxSetCurrent", d, e))?;
        let e = drv::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| driver("cuEventCreate", d, e))?;
        if let Err(err) = unsafe { drv::event::record(e, stream) } {
            unsafe { drv::event::destroy(e) }.ok();
            return Err(driver("cuEventRecord", d, err));
        }
        Ok(e)
    }

    /// Makes `stream` wait for `event`.
    pub(crate) fn wait(stream: sys::CUstream, event: sys::CUevent, d: usize) -> Result<()> {
        unsafe {
            drv::stream::wait_event(
                stream,
                event,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(|e| driver("cuStreamWaitEvent", d, e))
    }

    /// Local device `i`'s next work must follow what is on `stream` now.
    pub(crate) fn after(&self, i: usize, stream: sys::CUstream, d: usize) -> Result<()> {
        let e = Halos::record(stream, d)?;
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if p.len() <= i {
            p.resize(i + 1, Vec::new());
        }
        p[i].push(e);
        Ok(())
    }

    /// Whether some halo copy is still to be joined.
    pub(crate) fn busy(&self) -> bool {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|v| !v.is_empty())
    }

    /// Makes each local GPU's stream (`gpus[i]`, device `first + i`) wait for the halo
    /// copies it must follow.
    pub(crate) fn join(&self, gpus: &[std::sync::Arc<Gpu>], first: usize) -> Result<()> {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        for (i, events) in p.iter_mut().enumerate() {
            if events.is_empty() {
                continue;
            }
            let g = &gpus[i];
            g.bind()?;
            for e in events.drain(..) {
                let r = Halos::wait(g.stream.cu_stream(), e, first + i);
                unsafe { drv::event::destroy(e) }.ok();
                r?;
            }
        }
        Ok(())
    }

    /// Waits on the host for every halo stream.
    pub(crate) fn synchronize(&self, gpus: &[std::sync::Arc<Gpu>], first: usize) -> Result<()> {
        for (i, s) in self.streams.iter().enumerate() {
            if let Some(s) = *s {
                gpus[i].bind()?;
                unsafe { drv::stream::synchronize(s) }
                    .map_err(|e| driver("cuStreamSynchronize", first + i, e))?;
            }
        }
        Ok(())
    }

    /// Waits for and releases the streams and events (the region's end).
    pub(crate) fn release(&mut self, gpus: &[std::sync::Arc<Gpu>]) {
        for (i, s) in self.streams.drain(..).enumerate() {
            if let Some(s) = s {
                let _ = gpus[i].bind();
                unsafe {
                    let _ = drv::stream::synchronize(s);
                    let _ = drv::stream::destroy(s);
                }
            }
        }
        for e in self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .flatten()
        {
            unsafe { drv::event::destroy(e) }.ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_runs_are_the_planes_neighbours_hold() {
        // 3 devices over 10 planes, ghost 2: owned (0,4) (4,7) (7,10)
        let s = Slabs::new(10, 3, 2);
        assert_eq!(parts(&s, 0), [(0, 0), (2, 4), (0, 2)]);
        // device 1's neighbours read planes 4..6 and 5..7 of its 4..7: all boundary
        assert_eq!(parts(&s, 1), [(4, 7), (7, 7), (7, 7)]);
        assert_eq!(parts(&s, 2), [(7, 9), (10, 10), (9, 10)]);
        // thicker slabs: ghost 1 over 20 planes on 2 devices
        let s = Slabs::new(20, 2, 1);
        assert_eq!(parts(&s, 0), [(0, 0), (9, 10), (0, 9)]);
        assert_eq!(parts(&s, 1), [(10, 11), (20, 20), (11, 20)]);
    }

    #[test]
    fn every_owned_plane_runs_once() {
        for (n, devs, g) in [(10, 3, 2), (5, 4, 2), (33, 4, 1), (64, 2, 4), (7, 7, 3)] {
            for s in [Slabs::new(n, devs, g), Slabs::ring(n, devs, g)] {
                let mut count = vec![0; n];
                for d in 0..devs {
                    for (lo, hi) in parts(&s, d) {
                        for c in &mut count[lo..hi] {
                            *c += 1;
                        }
                    }
                    // every plane a neighbour holds as a ghost is in a boundary run
                    let [a, b, _] = parts(&s, d);
                    for o in (0..devs).filter(|&o| o != d) {
                        for (from, lo, hi) in s.ghost_sources(o) {
                            if from == d {
                                assert!(
                                    (lo >= a.0 && hi <= a.1) || (lo >= b.0 && hi <= b.1),
                                    "{n} {devs} {g}: device {d}'s run {lo}..{hi} for {o}"
                                );
                            }
                        }
                    }
                }
                assert!(count.iter().all(|&c| c == 1), "{n} {devs} {g}: {count:?}");
            }
        }
    }
}
