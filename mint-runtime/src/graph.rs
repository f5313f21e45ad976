//! Launch batching with CUDA graphs: a region's steady loop of launches replayed as
//! graph launches (issue #15).
//!
//! A `cuLaunchKernel` costs the host several microseconds (3.6 µs on the H100 machine,
//! `benches/launch.rs`), more than a small grid's kernel takes on the device. A region
//! therefore records its launches into a batch instead of enqueuing each one. The
//! batch is submitted when it holds [`BATCH`] launches, and whenever the host waits or
//! touches the stream otherwise (a `copy!`, a reduction, a timed or first launch):
//! - a sequence submitted before as plain launches is captured into a CUDA graph
//!   (`cuStreamBeginCapture` .. `cuStreamEndCapture`, `cuGraphInstantiate`) and kept;
//! - a sequence equal to a kept graph's (the same kernels, grids and parameter words)
//!   is one `cuGraphLaunch`;
//! - any other sequence is enqueued launch by launch.
//!
//! A loop that swaps two arrays each step repeats its launches with a period of two
//! steps; the batches then repeat and every batch after the first few is one graph
//! launch. A loop whose parameters change every step (a time passed as a scalar) never
//! repeats and runs as plain launches. `MINT_GRAPHS=0` turns batching off.
//!
//! The batch holds the kernels back until it is submitted, by at most [`BATCH`] launches;
//! a launch that comes more than [`GAP`] after the one before it (the host is slower
//! than the device there) submits the batch and goes straight to the stream.

use crate::error::{Error, Result, describe};
use crate::site::KernelSite;
use cudarc::driver::{result as drv, sys};
use std::any::Any;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Launches a batch holds before it is submitted.
pub const BATCH: usize = 32;
/// Graphs a region keeps (the batches of a loop whose period does not divide [`BATCH`]
/// come in several phases, each its own graph).
const MAX_GRAPHS: usize = 16;
/// Sequences remembered as submitted once, waiting for a repeat.
const MAX_SEEN: usize = 64;
/// A launch this long after the one before it goes straight to the stream.
pub const GAP: Duration = Duration::from_micros(100);

static ENABLED: crate::flag::EnvFlag = crate::flag::EnvFlag::new("MINT_GRAPHS", true);

/// Whether regions entered from now on batch their launches into CUDA graphs
/// (`MINT_GRAPHS`: unset or `1` on, `0` off; [`set_enabled`]).
pub fn enabled() -> bool {
    ENABLED.get()
}

/// Turns batching on or off for the regions entered from now on (over `MINT_GRAPHS`):
/// off, every launch is enqueued on its own (for comparisons and benchmarks).
pub fn set_enabled(on: bool) {
    ENABLED.set(on);
}

/// One recorded launch.
pub(crate) struct Rec {
    pub site: &'static KernelSite,
    pub func: sys::CUfunction,
    /// Keeps the module holding `func` loaded while the launch or a graph of it lives.
    pub _keep: Arc<dyn Any + Send + Sync>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    /// The kernel's parameters, one 64-bit word each.
    pub words: Vec<u64>,
}

impl Rec {
    fn same(&self, o: &Rec) -> bool {
        self.func == o.func
            && self.grid == o.grid
            && self.block == o.block
            && self.shared == o.shared
            && self.words == o.words
    }

    /// Enqueues the launch on `stream` (captured when the stream is capturing).
    fn enqueue(&self, stream: sys::CUstream) -> Result<()> {
        crate::raw::enqueue_words(
            self.func,
            self.grid,
            self.block,
            self.shared,
            stream,
            &self.words,
        )
        .map_err(|e| Error::Launch {
            kernel: self.site.name.into(),
            location: self.site.location(),
            message: format!("launch: {}", describe(e)),
        })
    }
}

/// A sequence of launches captured and instantiated as a CUDA graph.
struct Graph {
    recs: Vec<Rec>,
    exec: sys::CUgraphExec,
}

/// How the batched launches of every region went ([`batch_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchCounts {
    /// Launches that ran inside a graph launch.
    pub in_graphs: u64,
    /// Graph launches.
    pub graph_launches: u64,
    /// Graphs captured and instantiated.
    pub captured: u64,
    /// Launches enqueued one by one.
    pub plain: u64,
}

/// The launches a region recorded and has not submitted yet, and its kept graphs.
pub(crate) struct Batch {
    stream: sys::CUstream,
    /// The stream graphs are captured on, made at the first capture: a stream of the
    /// batch's own, non-blocking, so that the device's stream, which regions running on
    /// other threads share, is never in capture (an operation another thread put on it
    /// meanwhile would fail, and invalidate the capture).
    capture_on: Option<sys::CUstream>,
    recs: Vec<Rec>,
    last: Option<Instant>,
    graphs: VecDeque<Graph>,
    seen: VecDeque<u64>,
    /// Sequences the driver would not capture: never tried again.
    refused: Vec<u64>,
}

static TOTALS: std::sync::Mutex<BatchCounts> = std::sync::Mutex::new(BatchCounts {
    in_graphs: 0,
    graph_launches: 0,
    captured: 0,
    plain: 0,
});

/// What the batches of every region did so far in this process.
pub fn batch_counts() -> BatchCounts {
    *TOTALS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The batches of regions that ended, with their graphs, by stream: the next region on
/// the same stream takes its batch back, so a region function called in a loop does not
/// capture its graphs again. (A graph launch is exactly its launches: the same functions
/// with the same parameter words, so a graph kept from an earlier region is only ever
/// replayed where those very launches come again.)
static POOL: std::sync::Mutex<Vec<Batch>> = std::sync::Mutex::new(Vec::new());

// SAFETY: the driver handles a batch holds (stream, functions, graphs) may be used from
// any thread whose current context is theirs; a region binds its device before using
// its batch, and the pool hands each batch to one region at a time.
unsafe impl Send for Batch {}

impl Batch {
    /// The batch of `stream`: the one an earlier region left, or a new one.
    pub(crate) fn take(stream: sys::CUstream) -> Batch {
        let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
        match pool.iter().position(|b| b.stream == stream) {
            Some(i) => pool.swap_remove(i),
            None => Batch::new(stream),
        }
    }

    /// Returns a batch (submitted: the region has waited) for the next region.
    pub(crate) fn give_back(mut self) {
        self.recs.clear();
        self.last = None;
        POOL.lock().unwrap_or_else(|p| p.into_inner()).push(self);
    }

    /// An empty batch submitting to `stream`.
    fn new(stream: sys::CUstream) -> Batch {
        Batch {
            stream,
            capture_on: None,
            recs: Vec::with_capacity(BATCH),
            last: None,
            graphs: VecDeque::new(),
            seen: VecDeque::new(),
            refused: Vec::new(),
        }
    }

    /// Records a launch; submits the batch when it is full. A launch after a pause
    /// longer than [`GAP`] is submitted at once, with the batch before it.
    ///
    /// # Errors
    /// [`Error::Launch`] naming the kernel the driver refused.
    pub(crate) fn push(&mut self, rec: Rec) -> Result<()> {
        let now = Instant::now();
        let slow = self.last.is_some_and(|t| now.duration_since(t) > GAP);
        self.recs.push(rec);
        if slow || self.recs.len() >= BATCH {
            self.flush()?;
        }
        self.last = Some(now);
        Ok(())
    }

    /// Submits the recorded launches (see the module's documentation).
    ///
    /// # Errors
    /// [`Error::Launch`] naming the kernel the driver refused; [`Error::Driver`] when a
    /// graph cannot be captured, instantiated or launched.
    pub(crate) fn flush(&mut self) -> Result<()> {
        if self.recs.is_empty() {
            return Ok(());
        }
        let recs = std::mem::replace(&mut self.recs, Vec::with_capacity(BATCH));
        self.last = None;
        let n = recs.len() as u64;
        let r = self.submit(recs);
        let mut t = TOTALS.lock().unwrap_or_else(|p| p.into_inner());
        match &r {
            Ok(true) => {
                t.in_graphs += n;
                t.graph_launches += 1;
            }
            Ok(false) => {
                t.plain += n;
            }
            Err(_) => {}
        }
        r.map(|_| ())
    }

    /// Submits `recs`; `Ok(true)` when as a graph.
    fn submit(&mut self, recs: Vec<Rec>) -> Result<bool> {
        let same = |g: &Graph| {
            g.recs.len() == recs.len() && g.recs.iter().zip(&recs).all(|(a, b)| a.same(b))
        };
        if let Some(i) = self.graphs.iter().position(same) {
            let exec = self.graphs[i].exec;
            unsafe { drv::graph::launch(exec, self.stream) }
                .map_err(|e| Error::driver("cuGraphLaunch", e))?;
            return Ok(true);
        }
        let h = hash(&recs);
        if recs.len() > 1 && self.seen.contains(&h) && !self.refused.contains(&h) {
            let exec = match self.capture(&recs) {
                Ok(exec) => exec,
                Err(_) => {
                    // The driver would not capture or instantiate these launches (the
                    // launches themselves show why below, if they fail): they run as
                    // plain launches, now and when they come again.
                    self.refused.push(h);
                    for r in &recs {
                        r.enqueue(self.stream)?;
                    }
                    return Ok(false);
                }
            };
            TOTALS.lock().unwrap_or_else(|p| p.into_inner()).captured += 1;
            if self.graphs.len() >= MAX_GRAPHS
                && let Some(old) = self.graphs.pop_front()
            {
                // freed by the driver when a launch of it still in flight ends
                unsafe {
                    let _ = sys::cuGraphExecDestroy(old.exec);
                }
            }
            self.graphs.push_back(Graph { recs, exec });
            unsafe { drv::graph::launch(exec, self.stream) }
                .map_err(|e| Error::driver("cuGraphLaunch", e))?;
            return Ok(true);
        }
        for r in &recs {
            r.enqueue(self.stream)?;
        }
        if self.seen.len() >= MAX_SEEN {
            self.seen.pop_front();
        }
        self.seen.push_back(h);
        Ok(false)
    }

    /// Captures `recs` into a graph, on the batch's capture stream, and instantiates it.
    fn capture(&mut self, recs: &[Rec]) -> Result<sys::CUgraphExec> {
        let stream = match self.capture_on {
            Some(s) => s,
            None => {
                let s = drv::stream::create(drv::stream::StreamKind::NonBlocking)
                    .map_err(|e| Error::driver("cuStreamCreate", e))?;
                self.capture_on = Some(s);
                s
            }
        };
        unsafe {
            drv::stream::begin_capture(
                stream,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
        }
        .map_err(|e| Error::driver("cuStreamBeginCapture", e))?;
        let launched = recs.iter().try_for_each(|r| r.enqueue(stream));
        // end the capture whatever happened, so the stream works again
        let graph = unsafe { drv::stream::end_capture(stream) };
        launched?;
        let graph = graph.map_err(|e| Error::driver("cuStreamEndCapture", e))?;
        let exec = unsafe { drv::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) };
        unsafe {
            let _ = drv::graph::destroy(graph);
        }
        exec.map_err(|e| Error::driver("cuGraphInstantiate", e))
    }
}

impl Drop for Batch {
    /// Destroys the kept graphs (the device's context is current).
    fn drop(&mut self) {
        for g in self.graphs.drain(..) {
            unsafe {
                let _ = sys::cuGraphExecDestroy(g.exec);
            }
        }
        if let Some(s) = self.capture_on.take() {
            unsafe {
                let _ = drv::stream::destroy(s);
            }
        }
    }
}

fn hash(recs: &[Rec]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for r in recs {
        (r.func as usize).hash(&mut h);
        r.grid.hash(&mut h);
        r.block.hash(&mut h);
        r.shared.hash(&mut h);
        r.words.hash(&mut h);
    }
    h.finish()
}
