//! The CPU backend's fork-join pool: OpenMP's model of a parallel loop.
//!
//! The calling thread works too. Thread `t` of `n` owns the `t`-th contiguous share of
//! the loop's chunks and takes them in order, as OpenMP's `schedule(static)` gives it, so
//! that a thread meets the same planes at every launch; a thread done with its share takes
//! chunks from the end of another's. Between loops the workers spin for a while
//! (`MINT_CPU_SPIN_US`, default [`DEFAULT_SPIN_US`] µs) before they sleep, so that a time
//! loop's next launch finds them awake, as OpenMP's threads are (`OMP_WAIT_POLICY`,
//! `GOMP_SPINCOUNT`). A sleeping worker costs a wake-up of 50–100 µs on a virtual
//! machine, where a spinning one joins in about a microsecond. A worker that joins late,
//! or not at all, delays little: the others take its chunks, and the caller waits only for
//! the chunks taken. One loop runs on the pool at a time; a loop started while it is busy
//! (from another thread, or from inside a loop's body) is answered `false`, and its
//! caller runs it otherwise (on rayon).

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// How long a worker spins for the next loop before it sleeps, in microseconds, where
/// `MINT_CPU_SPIN_US` does not say (0: sleep at once, as `OMP_WAIT_POLICY=passive`).
pub const DEFAULT_SPIN_US: u64 = 1000;

/// A loop's body as the workers see it: it runs chunk `c` of the loop.
type Body<'a> = dyn Fn(usize) + Sync + 'a;

/// The loop the pool runs: written by the caller only while no worker uses it.
struct Job {
    /// The body, its lifetime erased: valid while the job is open or has users.
    body: *const Body<'static>,
    /// Each thread's share of the chunks not yet taken, `[front, back)` packed as
    /// `front << 32 | back` ([`take`]), one per thread (workers
    /// `1..len` join; the caller is thread 0); valid as the body is.
    shares: *const [AtomicU64],
}

impl Job {
    /// Thread `t`'s chunks: its own share's in order, then the ends of the others'.
    ///
    /// # Safety
    /// The job is open or `t` is in it.
    unsafe fn take_chunks(&self, t: usize) {
        // SAFETY: the caller of `run` keeps the shares and the body alive while the job
        // has a user
        let (shares, body) = unsafe { (&*self.shares, &*self.body) };
        let n = shares.len();
        while let Some(c) = take(&shares[t], false) {
            body(c);
        }
        for k in 1..n {
            while let Some(c) = take(&shares[(t + k) % n], true) {
                body(c);
            }
        }
    }
}

/// The first chunk left in `share` (`back`: the last), taken.
fn take(share: &AtomicU64, back: bool) -> Option<usize> {
    let mut cur = share.load(Ordering::Relaxed);
    loop {
        let (lo, hi) = (cur >> 32, cur & 0xffff_ffff);
        if lo >= hi {
            return None;
        }
        let (next, c) = if back {
            (cur - 1, hi - 1)
        } else {
            (cur + (1 << 32), lo)
        };
        match share.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(c as usize),
            Err(now) => cur = now,
        }
    }
}

/// `state`'s bits: the loop's number (epoch) above [`EPOCH_SHIFT`], whether workers may
/// still join it, and how many are in it.
const OPEN: u64 = 1 << 31;
const USERS: u64 = OPEN - 1;
const EPOCH_SHIFT: u32 = 32;

struct Pool {
    /// Held by the one caller whose loop the pool runs.
    busy: Mutex<()>,
    state: AtomicU64,
    job: UnsafeCell<Job>,
    /// The first panic of a worker's chunk, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Sleeping workers wait on `wake` under `sleep`.
    sleep: Mutex<()>,
    wake: Condvar,
    sleepers: AtomicUsize,
    /// Workers started.
    workers: Mutex<usize>,
    spin: Duration,
}

// SAFETY: `job` is written only by the holder of `busy`, while the loop is closed and no
// worker is in it (`state`); workers read it only after joining the open loop, and its
// body (`Sync`) is called through a shared reference.
unsafe impl Sync for Pool {}
unsafe impl Send for Pool {}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        busy: Mutex::new(()),
        state: AtomicU64::new(0),
        job: UnsafeCell::new(Job {
            body: std::ptr::null::<fn(usize)>() as *const Body<'static>,
            shares: &[],
        }),
        panic: Mutex::new(None),
        sleep: Mutex::new(()),
        wake: Condvar::new(),
        sleepers: AtomicUsize::new(0),
        workers: Mutex::new(0),
        spin: Duration::from_micros(spin_us()),
    })
}

/// `MINT_CPU_SPIN_US`, or [`DEFAULT_SPIN_US`] (said once on stderr where it does not parse).
fn spin_us() -> u64 {
    match std::env::var("MINT_CPU_SPIN_US") {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().unwrap_or_else(|_| {
            eprintln!(
                "mint: MINT_CPU_SPIN_US={v:?} is not a whole number of microseconds; using {DEFAULT_SPIN_US}"
            );
            DEFAULT_SPIN_US
        }),
        _ => DEFAULT_SPIN_US,
    }
}

/// Runs `body(c)` for every chunk `c` in `0..chunks` (fewer than 2³²) on `threads`
/// threads, the caller one of them, each chunk once; a panic of a chunk is resumed in the caller once every chunk
/// taken has finished. `false` (nothing run): the pool is running another loop.
pub(super) fn run(threads: usize, chunks: usize, body: &Body<'_>) -> bool {
    let pool = pool();
    let _busy = match pool.busy.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return false,
    };
    let threads = pool.start_workers(threads.saturating_sub(1)) + 1;
    let shares: Vec<AtomicU64> = (0..threads)
        .map(|t| {
            let edge = |t: usize| (t as u128 * chunks as u128 / threads as u128) as u64;
            AtomicU64::new(edge(t) << 32 | edge(t + 1))
        })
        .collect();
    // SAFETY: the lifetime is erased only while the loop runs: `run` returns once the
    // loop is closed and no worker is in it.
    let body: *const Body<'static> = unsafe { std::mem::transmute(body as *const Body<'_>) };
    // SAFETY: the loop before this one is closed and empty (below), and `busy` is held.
    unsafe {
        *pool.job.get() = Job {
            body,
            shares: &shares[..],
        }
    };
    let epoch = (pool.state.load(Ordering::Relaxed) >> EPOCH_SHIFT).wrapping_add(1);
    pool.state
        .store((epoch << EPOCH_SHIFT) | OPEN, Ordering::SeqCst);
    if threads > 1 && pool.sleepers.load(Ordering::SeqCst) > 0 {
        let _g = pool.sleep.lock().unwrap_or_else(|p| p.into_inner());
        pool.wake.notify_all();
    }
    // SAFETY: the job is open
    let job = unsafe { &*pool.job.get() };
    let mine = panic::catch_unwind(AssertUnwindSafe(|| unsafe { job.take_chunks(0) }));
    pool.state.fetch_and(!OPEN, Ordering::AcqRel);
    let mut spins = 0u32;
    while pool.state.load(Ordering::Acquire) & USERS != 0 {
        spins += 1;
        if spins.is_multiple_of(64) {
            // a worker in a chunk may be waiting for this core
            std::thread::yield_now();
        }
        std::hint::spin_loop();
    }
    let theirs = pool.panic.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Err(p) = mine {
        panic::resume_unwind(p);
    }
    if let Some(p) = theirs {
        panic::resume_unwind(p);
    }
    true
}

impl Pool {
    /// Starts workers until there are `n` (or as many as the system gives); how many
    /// there are. Called by the holder of `busy`, before its loop starts.
    fn start_workers(&'static self, n: usize) -> usize {
        let mut started = self.workers.lock().unwrap_or_else(|p| p.into_inner());
        // the last loop: a new worker waits for the one about to start
        let seen = self.state.load(Ordering::Relaxed) >> EPOCH_SHIFT;
        while *started < n {
            let id = *started + 1;
            let spawned = std::thread::Builder::new()
                .name(format!("mint-cpu-{id}"))
                .spawn(move || self.work(id, seen));
            if spawned.is_err() {
                break;
            }
            *started += 1;
        }
        (*started).min(n)
    }

    /// Worker `id`'s life: wait for a loop after `seen`, join it if it is open and asks
    /// for `id`, take chunks, leave.
    fn work(&self, id: usize, mut seen: u64) {
        loop {
            let s = self.next_loop(seen);
            seen = s >> EPOCH_SHIFT;
            if !self.join(s) {
                continue;
            }
            // SAFETY: joined, so the caller neither rewrites the job nor returns
            let job = unsafe { &*self.job.get() };
            // SAFETY: joined
            let threads = unsafe { (&*job.shares).len() };
            if id < threads
                && let Err(p) =
                    panic::catch_unwind(AssertUnwindSafe(|| unsafe { job.take_chunks(id) }))
            {
                self.panic
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(p);
            }
            self.state.fetch_sub(1, Ordering::Release);
        }
    }

    /// Joins the loop `s` names, if it is still open.
    fn join(&self, s: u64) -> bool {
        let mut cur = s;
        while cur & OPEN != 0 && cur >> EPOCH_SHIFT == s >> EPOCH_SHIFT {
            match self.state.compare_exchange_weak(
                cur,
                cur + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
        false
    }

    /// The state once a loop after `seen` has started: spinning for `spin`, then asleep.
    fn next_loop(&self, seen: u64) -> u64 {
        let start = Instant::now();
        loop {
            for _ in 0..64 {
                let s = self.state.load(Ordering::Acquire);
                if s >> EPOCH_SHIFT != seen {
                    return s;
                }
                std::hint::spin_loop();
            }
            if start.elapsed() >= self.spin {
                break;
            }
            // let another thread of this core run, where there is one
            std::thread::yield_now();
        }
        let mut g = self.sleep.lock().unwrap_or_else(|p| p.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let s = loop {
            let s = self.state.load(Ordering::SeqCst);
            if s >> EPOCH_SHIFT != seen {
                break s;
            }
            g = self.wake.wait(g).unwrap_or_else(|p| p.into_inner());
        };
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Every chunk of every loop runs exactly once, on any number of threads, back to back
    /// and after the workers have gone to sleep.
    #[test]
    fn every_chunk_runs_once() {
        for threads in [1, 2, 3, 8] {
            for chunks in [0, 1, 2, 7, 64, 1000] {
                let hits: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
                for round in 0..3 {
                    if round == 2 {
                        std::thread::sleep(pool().spin * 3);
                    }
                    while !run(threads, chunks, &|c| {
                        hits[c].fetch_add(1, Ordering::Relaxed);
                    }) {
                        std::thread::yield_now();
                    }
                }
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 3));
            }
        }
    }

    /// Holds the calling thread up in the first chunk it takes, so that the workers join.
    fn caller_waits(caller: std::thread::ThreadId, waited: &AtomicU32) {
        if std::thread::current().id() == caller && waited.swap(1, Ordering::Relaxed) == 0 {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The workers take chunks: with the caller held up in its first chunk, the others run
    /// elsewhere.
    #[test]
    fn workers_share_the_loop() {
        let caller = std::thread::current().id();
        let (elsewhere, waited) = (AtomicU32::new(0), AtomicU32::new(0));
        while !run(4, 64, &|_| {
            caller_waits(caller, &waited);
            if std::thread::current().id() != caller {
                elsewhere.fetch_add(1, Ordering::Relaxed);
            }
        }) {
            std::thread::yield_now();
        }
        assert!(elsewhere.load(Ordering::Relaxed) > 0);
    }

    /// A panic in a worker's chunk reaches the caller after the loop, and the pool runs
    /// the next loop.
    #[test]
    fn a_chunks_panic_reaches_the_caller() {
        let caller = std::thread::current().id();
        let waited = AtomicU32::new(0);
        let r = panic::catch_unwind(|| {
            while !run(3, 256, &|c| {
                caller_waits(caller, &waited);
                if std::thread::current().id() != caller {
                    panic!("chunk {c}");
                }
            }) {
                std::thread::yield_now();
            }
        });
        let msg = r.expect_err("the panic was lost");
        assert!(
            msg.downcast_ref::<String>()
                .is_some_and(|m| m.starts_with("chunk"))
        );
        let n = AtomicU32::new(0);
        while !run(3, 10, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        }) {
            std::thread::yield_now();
        }
        assert_eq!(n.load(Ordering::Relaxed), 10);
    }

    /// A loop started inside a loop's body finds the pool busy and is refused.
    #[test]
    fn a_loop_inside_a_loop_is_refused() {
        let inner = Mutex::new(Vec::new());
        while !run(2, 4, &|_| {
            inner.lock().unwrap().push(run(2, 4, &|_| {}));
        }) {
            std::thread::yield_now();
        }
        assert_eq!(*inner.lock().unwrap(), vec![false; 4]);
    }
}
