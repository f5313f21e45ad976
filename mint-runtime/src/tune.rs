//! The autotuner: `tune` (issue #15).
//!
//! A kernel with the `tune` option (or every kernel, with `MINT_TUNE=1`) is tuned at its
//! first launch on a GPU for each shape it is launched with: the candidates of
//! [`mint_translator::tune::candidates`] (the thesis's optimization levels, `vectorize`,
//! and other tiles and chunk sizes) are compiled on several threads, each is run once on
//! scratch copies of the arrays the kernel writes, and those whose results are not
//! bitwise equal to the kernel's as written are rejected. The others are timed with
//! CUDA events (the median of several launches; the best three are timed again), and
//! the fastest is kept. A second round tries the two fastest with `swizzle` flipped
//! (the blocks' order, independent of the tile: [`search_in_two_rounds`]). So tuning
//! never changes a result, and the user's arrays are not touched until the chosen kernel
//! runs.
//!
//! The choice is stored in the JIT cache directory (`MINT_CACHE_DIR`, `tune/`), keyed
//! by the SHA-256 of the kernel's IR with its types bound, the device's name and
//! compute capability, the arrays' shapes and the loop bounds; a second run of the
//! program tunes nothing. `MINT_REPORT=1` prints the choice, its time, the runner-up and
//! the kernel as written.
//!
//! `MINT_TUNE`: unset, the kernels with `tune` are tuned; `1`, every kernel; `0`, none
//! (each runs as written); `fresh`, the kernels with `tune` are tuned again and their
//! stored choices replaced. Deleting `tune/` in the cache directory forgets every
//! choice. The CPU backend ignores `tune`.
//!
//! Not tuned: `single` blocks, and kernels with a reduction (the sum's order follows the
//! block shape, so no other configuration gives the same value). Kernels that run
//! owner-computes on several GPUs run as written.

mod progress;

use crate::array::DeviceArray;
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::exec::{Configs, LaunchCtx, launch_as};
use crate::site::{KernelSite, LaunchArgs, Sig};
use crate::{jit, stats};
use cudarc::driver::result as drv;
use cudarc::driver::sys;
pub use mint_translator::ir::OptOptions;
pub use mint_translator::tune::{Candidate, Space, as_written, candidates, for_device};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The version of stored choices; a record of another version is tuned again. 2: the
/// search tries `swizzle`, so choices made without it are searched again. 3: register caps
/// rise one occupancy step at a time, which changes the fastest candidate of kernels that
/// spill at 64 registers. 4: the search tries `roll_z`. 5: and a rolled 64×4×16 (for the
/// radius-8 star in f64). 6: and `vectorize` with `pipeline` at three tiles (for the
/// radius-8 star). 7: and a fourth, with two y rows per thread (for the radius-8 star in
/// f64).
pub const VERSION: u32 = 7;

/// What `MINT_TUNE` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Unset: the kernels with the `tune` option.
    AsWritten,
    /// `1`: every kernel.
    All,
    /// `0`: no kernel.
    Off,
    /// `fresh`: the kernels with `tune`, ignoring (and replacing) stored choices.
    Fresh,
}

/// `MINT_TUNE`, read once, unless [`set_mode`] overrode it. Other values than `0`, `1`
/// and `fresh` count as unset, with a warning.
pub fn mode() -> Mode {
    static M: OnceLock<Mode> = OnceLock::new();
    match OVERRIDE.load(Ordering::Relaxed) {
        1 => return Mode::AsWritten,
        2 => return Mode::All,
        3 => return Mode::Off,
        4 => return Mode::Fresh,
        _ => {}
    }
    *M.get_or_init(|| match std::env::var("MINT_TUNE").as_deref() {
        Err(_) | Ok("") => Mode::AsWritten,
        Ok("1") | Ok("all") => Mode::All,
        Ok("0") | Ok("off") => Mode::Off,
        Ok("fresh") => Mode::Fresh,
        Ok(v) => {
            eprintln!("mint: MINT_TUNE={v} is not one of 0, 1, fresh; using the `tune` options");
            Mode::AsWritten
        }
    })
}

/// 0: `MINT_TUNE` decides; otherwise the [`Mode`] [`set_mode`] gave.
static OVERRIDE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Overrides `MINT_TUNE` for the rest of the process (for every thread): for example
/// `Mode::Off` runs every kernel as written, without searching.
pub fn set_mode(m: Mode) {
    let v = match m {
        Mode::AsWritten => 1,
        Mode::All => 2,
        Mode::Off => 3,
        Mode::Fresh => 4,
    };
    OVERRIDE.store(v, Ordering::Relaxed);
}

static SEARCHES: AtomicU64 = AtomicU64::new(0);
static SEARCH_NANOS: AtomicU64 = AtomicU64::new(0);

/// Seconds this process has spent in searches (compiling, running and timing
/// candidates).
pub fn search_seconds() -> f64 {
    SEARCH_NANOS.load(Ordering::Relaxed) as f64 * 1e-9
}

/// How many searches this process has run (a launch that found a stored choice runs
/// none).
pub fn searches() -> u64 {
    SEARCHES.load(Ordering::Relaxed)
}

/// Forgets this process's choices, as if the program started again (the stored ones
/// stay on disk).
pub fn forget() {
    for s in crate::site::kernel_sites() {
        s.tuned.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// Runs candidates of one kernel launch for [`search`]: on the GPU, on scratch copies
/// of the arrays the kernel writes; in tests, an emulation.
pub trait Bench {
    /// Makes the scratch arrays equal to the kernel's arrays again.
    fn restore(&mut self) -> Result<()>;
    /// Runs `c` once on the scratch arrays and waits for it. An error skips `c`.
    fn run(&mut self, c: &Candidate) -> Result<()>;
    /// Keeps the scratch arrays' contents as the reference (the kernel as written ran).
    fn snapshot(&mut self) -> Result<()>;
    /// Whether the scratch arrays hold exactly the reference's bytes.
    fn matches_snapshot(&mut self) -> Result<bool>;
    /// Seconds per launch of `c` (a median), on the scratch arrays.
    fn time(&mut self, c: &Candidate) -> Result<f64>;
    /// Makes `cands` ready to run: on a GPU, translates, compiles and loads them (the
    /// second round's candidates, which the first did not prepare). A candidate that
    /// cannot be made fails its [`Bench::run`]. The default does nothing.
    fn prepare(&mut self, _cands: &[Candidate]) {}
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The fastest candidate whose results equal the kernel's as written.
    pub choice: Candidate,
    /// Its seconds per launch.
    pub seconds: f64,
    /// The kernel as written, and its seconds per launch.
    pub written: Candidate,
    pub written_seconds: f64,
    /// The second fastest, if another candidate was timed.
    pub runner_up: Option<(Candidate, f64)>,
    /// Candidates tried, the kernel as written included.
    pub candidates: usize,
    /// Candidates that did not translate, compile, load or run, with the reason.
    pub skipped: Vec<(Candidate, String)>,
    /// Candidates whose results differed from the kernel's as written.
    pub rejected: Vec<Candidate>,
}

/// Tries `cands` (the kernel as written first) on `bench` and keeps the fastest whose
/// output is bitwise equal to the first's. Every run starts from restored scratch
/// arrays. The best three are timed a second time and keep the faster of their two
/// times. Ties go to the earlier candidate, so to the kernel as written.
///
/// # Errors
/// When the kernel as written fails (it would fail untuned too), or restoring fails.
pub fn search(cands: &[Candidate], bench: &mut dyn Bench) -> Result<Outcome> {
    let written = *cands.first().ok_or_else(|| Error::Translate {
        kernel: String::new(),
        location: String::new(),
        message: "no candidates to tune (internal error)".into(),
    })?;
    bench.restore()?;
    bench.run(&written)?;
    bench.snapshot()?;
    let mut timed: Vec<(usize, f64)> = vec![(0, bench.time(&written)?)];
    let mut skipped = Vec::new();
    let mut rejected = Vec::new();
    for (i, c) in cands.iter().enumerate().skip(1) {
        bench.restore()?;
        if let Err(e) = bench.run(c) {
            skipped.push((*c, e.to_string()));
            continue;
        }
        match bench.matches_snapshot() {
            Ok(true) => {}
            Ok(false) => {
                rejected.push(*c);
                continue;
            }
            Err(e) => {
                skipped.push((*c, e.to_string()));
                continue;
            }
        }
        match bench.time(c) {
            Ok(t) => timed.push((i, t)),
            Err(e) => skipped.push((*c, e.to_string())),
        }
    }
    let by_time = |v: &mut Vec<(usize, f64)>| {
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    };
    by_time(&mut timed);
    for e in timed.iter_mut().take(3) {
        if let Ok(t) = bench.time(&cands[e.0]) {
            e.1 = e.1.min(t);
        }
    }
    by_time(&mut timed);
    let written_seconds = timed
        .iter()
        .find(|e| e.0 == 0)
        .map(|e| e.1)
        .unwrap_or(f64::NAN);
    Ok(Outcome {
        choice: cands[timed[0].0],
        seconds: timed[0].1,
        written,
        written_seconds,
        runner_up: timed.get(1).map(|e| (cands[e.0], e.1)),
        candidates: cands.len(),
        skipped,
        rejected,
    })
}

/// [`search`], then a second round ([`mint_translator::tune::refinements`]): the two
/// fastest of the first with `swizzle` flipped, each compared bitwise with the first
/// round's choice and timed against it. The outcome counts both rounds' candidates and
/// keeps the faster choice; the runner-up is the fastest other of both.
///
/// # Errors
/// As [`search`].
pub fn search_in_two_rounds(
    space: Space,
    cands: &[Candidate],
    bench: &mut dyn Bench,
) -> Result<Outcome> {
    let first = search(cands, bench)?;
    let best: Vec<Candidate> = std::iter::once(first.choice)
        .chain(first.runner_up.map(|r| r.0))
        .collect();
    let twins = mint_translator::tune::refinements(space, &best, cands);
    if twins.is_empty() {
        return Ok(first);
    }
    bench.prepare(&twins);
    let round: Vec<Candidate> = std::iter::once(first.choice).chain(twins).collect();
    let second = search(&round, bench)?;
    Ok(merge(first, second))
}

/// Two rounds' outcomes as one: the second round's reference (its "kernel as written")
/// is the first round's choice.
fn merge(first: Outcome, second: Outcome) -> Outcome {
    // every timed candidate but the choice, with its best time
    let mut others: Vec<(Candidate, f64)> = first.runner_up.into_iter().collect();
    others.push((first.choice, first.seconds.min(second.written_seconds)));
    others.extend(second.runner_up);
    let (choice, seconds) = if second.choice == first.choice {
        (first.choice, first.seconds.min(second.seconds))
    } else {
        (second.choice, second.seconds)
    };
    others.retain(|o| o.0 != choice);
    let runner_up = others.into_iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let mut skipped = first.skipped;
    skipped.extend(second.skipped);
    let mut rejected = first.rejected;
    rejected.extend(second.rejected);
    Outcome {
        choice,
        seconds,
        written: first.written,
        written_seconds: first.written_seconds,
        runner_up,
        candidates: first.candidates + second.candidates - 1,
        skipped,
        rejected,
    }
}

/// A stored choice: the outcome of a search and what it was for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    /// `module::kernel`.
    pub kernel: String,
    /// The device's name.
    pub device: String,
    /// Points of each parallel loop, outermost first.
    pub extents: Vec<i64>,
    pub outcome: Outcome,
}

/// Where choices are stored: `tune/` in the JIT cache directory.
pub fn store_dir() -> Option<PathBuf> {
    jit::cache_dir().map(|d| d.join("tune"))
}

/// Stores `record` as `dir/<key>.json` (with a checksum, through a temporary file and a
/// rename, as the JIT cache does). A directory that cannot be written costs the next
/// run a search, nothing more.
pub fn store(dir: &Path, key: &str, record: &Record) {
    let _ = std::fs::create_dir_all(dir);
    if let Ok(json) = serde_json::to_vec_pretty(record) {
        jit::write_atomic(&dir.join(format!("{key}.json")), &json);
    }
}

/// The record stored under `key`, if there is one of this [`VERSION`]; a truncated or
/// corrupt one is removed.
pub fn load(dir: &Path, key: &str) -> Option<Record> {
    let path = dir.join(format!("{key}.json"));
    let data = jit::read_entry(&path)?;
    match serde_json::from_slice::<Record>(&data) {
        Ok(r) if r.version == VERSION => Some(r),
        _ => {
            let _ = std::fs::remove_file(&path);
            None
        }
    }
}

/// The line `MINT_REPORT=1` prints after a search.
pub fn report_line(record: &Record) -> String {
    let o = &record.outcome;
    let ms = |s: f64| s * 1e3;
    let mut line = format!(
        "mint report: tune {} on {} at {:?} points: chose `{}`, {:.4} ms per launch, {:.2}x the kernel as written (`{}`, {:.4} ms)",
        record.kernel,
        record.device,
        record.extents,
        o.choice.describe(),
        ms(o.seconds),
        o.written_seconds / o.seconds,
        o.written.describe(),
        ms(o.written_seconds),
    );
    if let Some((c, t)) = &o.runner_up {
        line.push_str(&format!("; runner-up `{}`, {:.4} ms", c.describe(), ms(*t)));
    }
    line.push_str(&format!(
        "; {} candidates, {} skipped (do not fit or fail), {} rejected (results differ)",
        o.candidates,
        o.skipped.len(),
        o.rejected.len()
    ));
    if !o.rejected.is_empty() {
        let r: Vec<String> = o
            .rejected
            .iter()
            .map(|c| format!("`{}`", c.describe()))
            .collect();
        line.push_str(&format!(" (rejected: {})", r.join(", ")));
    }
    line
}

impl Sig {
    fn of(cx: &LaunchCtx, args: &LaunchArgs) -> Option<Sig> {
        let mut arrays = Vec::with_capacity(args.arrays.len());
        for &s in args.arrays {
            let a = (cx.slot)(s)?;
            arrays.push((a.elem, a.shape, a.planes));
        }
        Some(Sig {
            ordinal: cx.gpu.ordinal,
            arrays,
            bounds: args.bounds.to_vec(),
            clauses: args.clauses.to_vec(),
            scalars: args.scalars.iter().map(|v| v.ty).collect(),
        })
    }

    /// Whether this is the signature of a launch with `args` (without allocating).
    fn is(&self, cx: &LaunchCtx, args: &LaunchArgs) -> bool {
        self.ordinal == cx.gpu.ordinal
            && self.bounds == args.bounds
            && self.clauses == args.clauses
            && self.arrays.len() == args.arrays.len()
            && self.scalars.len() == args.scalars.len()
            && self
                .scalars
                .iter()
                .zip(args.scalars)
                .all(|(t, v)| *t == v.ty)
            && self
                .arrays
                .iter()
                .zip(args.arrays)
                .all(|(sig, &s)| (cx.slot)(s).is_some_and(|a| (a.elem, a.shape, a.planes) == *sig))
    }
}

/// Whether `site` is tuned in this process (`MINT_TUNE` and its `tune` option).
pub(crate) fn wanted(site: &KernelSite) -> bool {
    match mode() {
        Mode::Off => false,
        Mode::All => true,
        Mode::AsWritten | Mode::Fresh => site.kernel().is_ok_and(|k| k.options.tune),
    }
}

/// The configuration a launch of `site` with `args` runs in: `None` for the kernel as
/// written (not tuned, or tuning was impossible), else the choice, found in this
/// process, in the store, or by a search now. What prevents tuning is reported
/// (`MINT_REPORT=1`) and the kernel runs as written.
///
/// # Errors
/// Only a launch the region held back ([`crate::graph`]) and submits before the search.
pub(crate) fn choose(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
) -> Result<Option<Candidate>> {
    if !wanted(site) {
        return Ok(None);
    }
    {
        let tuned = site.tuned.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, c)) = tuned.iter().find(|(sig, _)| sig.is(cx, args)) {
            return Ok(*c);
        }
    }
    let Some(sig) = Sig::of(cx, args) else {
        return Ok(None);
    };
    // A search runs on the stream and waits for it: the launches the region holds back
    // go first, so the scratch copies start from the arrays as the program left them.
    if let Some(b) = cx.batch.as_deref_mut() {
        b.flush()?;
    }
    let choice = match tune(cx, site, args) {
        Ok(c) => c,
        Err(e) => {
            if stats::report_enabled() {
                eprintln!(
                    "mint report: tune {}: not tuned, runs as written: {e}",
                    site.qualified()
                );
            }
            None
        }
    };
    site.tuned
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((sig, choice));
    Ok(choice)
}

/// The key a choice is stored under.
fn store_key(gpu: &Gpu, kernel_json: &str, args: &LaunchArgs, layouts: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(format!("mint-tune-v{VERSION}\0").as_bytes());
    h.update(kernel_json.as_bytes());
    h.update(
        format!(
            "\0{}\0sm_{}{}\0{:?}\0{:?}\0{:?}",
            gpu.name,
            gpu.compute_capability.0,
            gpu.compute_capability.1,
            args.bounds,
            args.clauses,
            layouts
        )
        .as_bytes(),
    );
    format!("{:x}", h.finalize())
}

fn tune(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
) -> Result<Option<Candidate>> {
    let Some((configs, space, written)) = Configs::of(cx, site, args)? else {
        if stats::report_enabled() {
            eprintln!(
                "mint report: tune {}: not tuned (a `single` block or a reduction, whose value follows the block shape)",
                site.qualified()
            );
        }
        return Ok(None);
    };
    let gpu = cx.gpu;
    let base = cx.slot;
    let layouts: Vec<String> = args
        .arrays
        .iter()
        .filter_map(|&s| base(s))
        .map(|a| format!("{} {:?} {:?} {}", a.elem, a.shape, a.planes, a.pitch))
        .collect();
    let key = store_key(gpu, configs.kernel_json(), args, &layouts);
    let extents: Vec<i64> = args.bounds.iter().map(|&(lo, hi)| hi - lo).collect();
    let dir = store_dir();
    if mode() != Mode::Fresh
        && let Some(r) = dir.as_deref().and_then(|d| load(d, &key))
    {
        if stats::report_enabled() {
            eprintln!(
                "mint report: tune {} at {:?} points: stored choice `{}` ({:.4} ms per launch when tuned)",
                site.qualified(),
                extents,
                r.outcome.choice.describe(),
                r.outcome.seconds * 1e3
            );
        }
        return Ok(Some(r.outcome.choice));
    }
    SEARCHES.fetch_add(1, Ordering::Relaxed);
    let t0 = std::time::Instant::now();
    let cands = for_device(candidates(space, &written), gpu.compute_capability);
    let progress = progress::Progress::start(site.qualified(), &extents, cands.len());
    let mut errors = configs.prepare(&cands);
    let compiled = t0.elapsed().as_secs_f64();
    // the kernel as written does not build: the launch fails as it would untuned
    if let Some(e) = errors[0].take() {
        return Err(e);
    }
    let writes = configs.written_arrays(&written)?;
    let outcome = {
        let errors = cands
            .iter()
            .zip(errors)
            .filter_map(|(c, e)| e.map(|e| (*c, e.to_string())))
            .collect();
        let mut bench = GpuBench::new(gpu, base, site, args, &writes, errors, &configs)?;
        bench.progress = Some(&progress);
        search_in_two_rounds(space, &cands, &mut bench)?
    };
    progress.finish(
        &outcome.choice.describe(),
        outcome.written_seconds / outcome.seconds,
    );
    configs.unload_except(&outcome.choice);
    SEARCH_NANOS.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
    let record = Record {
        version: VERSION,
        kernel: site.qualified().to_string(),
        device: gpu.name.clone(),
        extents,
        outcome,
    };
    if let Some(d) = &dir {
        store(d, &key, &record);
    }
    if stats::report_enabled() {
        eprintln!("{}", report_line(&record));
        eprintln!(
            "mint report: tune {}: the search took {:.2} s, {compiled:.2} s of it translating and compiling {} candidates",
            site.qualified(),
            t0.elapsed().as_secs_f64(),
            cands.len()
        );
    }
    Ok(Some(record.outcome.choice))
}

/// Candidates run on one GPU, on scratch copies of the arrays the kernel writes.
struct GpuBench<'a, 'b> {
    gpu: &'a Arc<Gpu>,
    base: &'a dyn Fn(usize) -> Option<&'a DeviceArray>,
    site: &'static KernelSite,
    args: &'b LaunchArgs<'b>,
    /// Region slots of the written arrays, their originals and their scratch copies.
    slots: Vec<usize>,
    originals: Vec<&'a DeviceArray>,
    scratch: Vec<DeviceArray>,
    /// The scratch arrays after the kernel as written ran ([`Bench::snapshot`]).
    reference: Vec<DeviceArray>,
    /// What [`Configs::prepare`] found for each candidate.
    errors: Vec<(Candidate, String)>,
    events: Vec<sys::CUevent>,
    /// Compiles a second round's candidates ([`Bench::prepare`]).
    configs: &'b Configs<'a>,
    /// Told of every candidate run.
    progress: Option<&'b progress::Progress>,
}

impl<'a, 'b> GpuBench<'a, 'b> {
    fn new(
        gpu: &'a Arc<Gpu>,
        base: &'a dyn Fn(usize) -> Option<&'a DeviceArray>,
        site: &'static KernelSite,
        args: &'b LaunchArgs<'b>,
        writes: &[bool],
        errors: Vec<(Candidate, String)>,
        configs: &'b Configs<'a>,
    ) -> Result<GpuBench<'a, 'b>> {
        let mut slots = Vec::new();
        let mut originals = Vec::new();
        for (i, &s) in args.arrays.iter().enumerate() {
            if writes.get(i).copied().unwrap_or(true) && !slots.contains(&s) {
                let a = base(s).ok_or_else(|| site.not_on_device(i))?;
                slots.push(s);
                originals.push(a);
            }
        }
        let scratch = originals
            .iter()
            .map(|a| a.scratch_copy())
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuBench {
            gpu,
            base,
            site,
            args,
            slots,
            originals,
            scratch,
            reference: Vec::new(),
            errors,
            events: Vec::new(),
            configs,
            progress: None,
        })
    }

    fn launch(&mut self, c: &Candidate) -> Result<()> {
        let (slots, scratch, base) = (&self.slots, &self.scratch, self.base);
        let slot = |s: usize| match slots.iter().position(|&w| w == s) {
            Some(i) => Some(&scratch[i]),
            None => base(s),
        };
        let mut events = Vec::new();
        let mut pending = Vec::new();
        let mut cx = LaunchCtx::quiet(self.gpu, &slot, &mut events, &mut pending);
        launch_as(&mut cx, self.site, self.args, true, Some(*c), false)?;
        Ok(())
    }

    fn event(&mut self, i: usize) -> Result<sys::CUevent> {
        while self.events.len() <= i {
            let e = drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| Error::driver("cuEventCreate", e))?;
            self.events.push(e);
        }
        Ok(self.events[i])
    }

    /// Seconds of each of `n` launches of `c`, from events between them.
    fn times(&mut self, c: &Candidate, n: usize) -> Result<Vec<f64>> {
        let stream = self.gpu.stream.cu_stream();
        let first = self.event(0)?;
        unsafe { drv::event::record(first, stream) }
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        for i in 1..=n {
            self.launch(c)?;
            let e = self.event(i)?;
            unsafe { drv::event::record(e, stream) }
                .map_err(|e| Error::driver("cuEventRecord", e))?;
        }
        self.gpu.synchronize()?;
        (1..=n)
            .map(|i| {
                unsafe { drv::event::elapsed(self.events[i - 1], self.events[i]) }
                    .map(|ms| ms as f64 * 1e-3)
                    .map_err(|e| Error::driver("cuEventElapsedTime", e))
            })
            .collect()
    }
}

impl Bench for GpuBench<'_, '_> {
    fn restore(&mut self) -> Result<()> {
        for (s, o) in self.scratch.iter().zip(&self.originals) {
            s.copy_from(o)?;
        }
        Ok(())
    }

    fn run(&mut self, c: &Candidate) -> Result<()> {
        if let Some((_, e)) = self.errors.iter().find(|(x, _)| x == c) {
            return Err(Error::Translate {
                kernel: self.site.name.into(),
                location: self.site.location(),
                message: e.clone(),
            });
        }
        if let Some(p) = self.progress {
            p.tick();
        }
        self.launch(c)?;
        self.gpu.synchronize()
    }

    fn snapshot(&mut self) -> Result<()> {
        self.reference = self
            .scratch
            .iter()
            .map(|a| a.scratch_copy())
            .collect::<Result<_>>()?;
        Ok(())
    }

    fn matches_snapshot(&mut self) -> Result<bool> {
        for (a, r) in self.scratch.iter().zip(&self.reference) {
            if !a.same_bytes(r)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn prepare(&mut self, cands: &[Candidate]) {
        if let Some(p) = self.progress {
            p.grow(cands.len());
        }
        let errors = self.configs.prepare(cands);
        for (c, e) in cands.iter().zip(errors) {
            if let Some(e) = e {
                self.errors.push((*c, e.to_string()));
            }
        }
    }

    fn time(&mut self, c: &Candidate) -> Result<f64> {
        // one launch to size the sample: about 20 ms of launches, 3 to 15 of them
        let one = self.times(c, 1)?[0];
        let n = ((0.02 / one.max(1e-7)) as usize).clamp(3, 15);
        let mut t = self.times(c, n)?;
        t.sort_by(|a, b| a.total_cmp(b));
        Ok(t[t.len() / 2])
    }
}

impl Drop for GpuBench<'_, '_> {
    fn drop(&mut self) {
        let _ = self.gpu.synchronize();
        for e in self.events.drain(..) {
            let _ = unsafe { drv::event::destroy(e) };
        }
    }
}
