//! The benchmark harness: every kernel of the suite at every optimization level, checked
//! against its serial reference before it is timed, with rates a scientist reads.
//!
//! Timing rules (issue 4): CUDA events around each launch; a warm-up region of one step
//! and a warm-up launch first (JIT, the autotuner's search, allocation and transfers stay
//! out of the numbers); the median over `reps` runs of `steps` steps each, each run's
//! time kept in [`Row::rep_seconds`]. GPts/s count updated points; GFLOP/s use the
//! kernel's flop count; effective bandwidth counts each input read once and the output
//! written once, and is compared with a device-to-device copy measured in the same run.
//! On the CPU backend the times are wall-clock times of whole runs.
//! `MINT_HARNESS_SAMPLES=1` prints every timed launch's milliseconds (a diagnostic).

use crate::Level;
use crate::suite::{Kernel, Precision, max_rel_err};
use serde::Serialize;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug)]
pub struct Config {
    pub kernels: Vec<Kernel>,
    pub precisions: Vec<Precision>,
    pub levels: Vec<Level>,
    /// Points per dimension of 3-D grids (the grid is `size³`).
    pub size3: usize,
    /// Points per dimension of 2-D grids.
    pub size2: usize,
    pub steps: usize,
    pub reps: usize,
    /// Points per dimension of the grid each kernel is checked on before timing (the
    /// grid is made not a multiple of the tiles).
    pub check_size: usize,
    /// Print a line per measurement as it completes.
    pub verbose: bool,
    /// Also try the [`candidates`] (a small autotuner); "best" is then the fastest
    /// correct variant of all.
    pub tune: bool,
}

/// A kernel configuration to measure: a name, the optimizer options and the clauses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub opts: crate::Opts,
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
}

/// Configurations the autotuner tries beyond the thesis's levels, for `dims`-D kernels:
/// the library's candidates ([`mint::tune::candidates`], for a kernel written with
/// `unroll` and the default clauses) that the suite compiles an option set for and that
/// no [`Level`] already measures. With a compute capability `cc`, those that would only
/// repeat another candidate's kernel on such a device are left out
/// ([`mint::tune::for_device`]), as the runtime's autotuner leaves them out.
pub fn candidates(dims: usize, cc: Option<(u32, u32)>) -> Vec<Variant> {
    let written = mint::tune::Candidate {
        options: mint::tune::OptOptions {
            unroll: true,
            ..Default::default()
        },
        tile: [16, 16, 1],
        chunk: [1, 1, 1],
    };
    let space = mint::tune::Space {
        nest: dims,
        vector: true,
    };
    let mut seen: Vec<(crate::Opts, [u32; 3], [u32; 3])> = Level::ALL
        .iter()
        .map(|l| {
            let (t, c) = l.config(dims);
            (l.opts(), t, c)
        })
        .collect();
    let all = mint::tune::candidates(space, &written);
    let all = match cc {
        Some(cc) => mint::tune::for_device(all, cc),
        None => all,
    };
    all.into_iter()
        .skip(1)
        .filter_map(|c| {
            let opts = crate::Opts::of(&c.options)?;
            // what a level or an earlier candidate measures already (the suite's option
            // sets fix `unroll`)
            if seen.contains(&(opts, c.tile, c.chunk)) {
                return None;
            }
            seen.push((opts, c.tile, c.chunk));
            let (t, k) = (c.tile, c.chunk);
            Some(Variant {
                name: format!(
                    "{} t{}x{}x{} c{}x{}x{}",
                    opts.function().trim_start_matches("k_"),
                    t[0],
                    t[1],
                    t[2],
                    k[0],
                    k[1],
                    k[2]
                ),
                opts,
                tile: t,
                chunk: k,
            })
        })
        .collect()
}

impl Default for Config {
    fn default() -> Self {
        Config {
            kernels: Kernel::ALL.to_vec(),
            precisions: vec![Precision::F64, Precision::F32],
            levels: Level::ALL.to_vec(),
            size3: 512,
            size2: 8192,
            steps: 20,
            reps: 5,
            check_size: 72,
            verbose: true,
            tune: false,
        }
    }
}

/// One measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub kernel: String,
    pub precision: String,
    pub level: String,
    pub shape: Vec<usize>,
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
    /// `ok`, `wrong` (failed its check: not timed) or `error`.
    pub status: String,
    /// Relative error of the check run against the serial reference.
    pub check_error: f64,
    pub detail: String,
    /// Median seconds per step.
    pub seconds_per_step: f64,
    /// Seconds per step of each of the `reps` runs the median is taken over, in the
    /// order they ran (all in one region, after the warm-up region).
    pub rep_seconds: Vec<f64>,
    pub gpts: f64,
    pub gflops: f64,
    pub gbs: f64,
    /// Effective bandwidth over the measured copy bandwidth.
    pub copy_fraction: f64,
}

/// A whole run of the harness.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub backend: String,
    pub date: String,
    /// Measured device-to-device copy bandwidth, bytes/s (read + write); 0 on the CPU.
    pub copy_bandwidth: f64,
    pub steps: usize,
    pub reps: usize,
    pub rows: Vec<Row>,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn shape_of(k: Kernel, c: &Config) -> Vec<usize> {
    if k.dims() == 2 {
        vec![c.size2; 2]
    } else {
        vec![c.size3; 3]
    }
}

fn check_shape(k: Kernel, n: usize) -> Vec<usize> {
    let n = n.max(4 * k.radius() + 6);
    if k.dims() == 2 {
        vec![n + 3, n - 1]
    } else {
        vec![n + 3, n - 1, n + 5]
    }
}

/// Runs the harness.
///
/// # Errors
/// [`mint::Error`] choosing the backend or measuring the copy bandwidth; failures of
/// individual kernels are rows with status `error`.
pub fn run(c: &Config) -> mint::Result<Results> {
    let backend = mint::backend()?;
    let on_gpu = matches!(backend, mint::Backend::Cuda(_));
    let copy_bandwidth = if on_gpu {
        mint::device_copy_bandwidth(1 << 30, 20)?
    } else {
        0.0
    };
    if c.verbose {
        eprintln!(
            "harness: {}; copy bandwidth {:.1} GB/s",
            backend.describe(),
            copy_bandwidth * 1e-9
        );
    }
    let mut rows = Vec::new();
    for &k in &c.kernels {
        for &p in &c.precisions {
            let shape = shape_of(k, c);
            let mut big: Option<Box<dyn crate::suite::Instance>> = None;
            // the serial reference of the check grid, shared by every level
            let cs = check_shape(k, c.check_size);
            let mut reference = k.instance(p, &cs, 5);
            reference.serial(2);
            let want = reference.output();
            let mut variants: Vec<Variant> = c
                .levels
                .iter()
                .map(|l| {
                    let (tile, chunk) = l.config(k.dims());
                    Variant {
                        name: l.name().into(),
                        opts: l.opts(),
                        tile,
                        chunk,
                    }
                })
                .collect();
            if c.tune {
                let cc = match &backend {
                    mint::Backend::Cuda(gpu) => Some(gpu.compute_capability),
                    _ => None,
                };
                variants.extend(candidates(k.dims(), cc));
            }
            for v in variants {
                let (tile, chunk) = (v.tile, v.chunk);
                let mut row = Row::new(k, p, &v.name, &shape, tile, chunk);
                let mut small = k.instance(p, &cs, 5);
                let out = small.run(v.opts, tile, chunk, 2).map(|()| small.output());
                check(&mut row, out, &want, p);
                if row.status == "ok" {
                    let inst = big.get_or_insert_with(|| k.instance(p, &shape, 1));
                    let t = time(inst.as_mut(), v.opts, tile, chunk, c, on_gpu);
                    rates(&mut row, t, k, p, copy_bandwidth);
                }
                report(c, &row);
                rows.push(row);
            }
            // the hand-written references, checked and timed the same way
            if let mint::Backend::Cuda(gpu) = &backend {
                let big = big.get_or_insert_with(|| k.instance(p, &shape, 1));
                let small = k.instance(p, &cs, 5);
                // the host copies every strategy starts from, converted once
                let (big_arrays, big_coefs) = (big.arrays(), big.coefs());
                let (small_arrays, small_coefs) = (small.arrays(), small.coefs());
                for (strategy, entry) in crate::hand::variants(k) {
                    let level = format!("hand-cuda {strategy}");
                    let mut row = Row::new(k, p, &level, &shape, [32, 8, 1], [1, 1, 1]);
                    let hrun = |arrays: &[(&'static str, Vec<f64>)],
                                coefs: &[f64],
                                sh: &[usize],
                                steps,
                                timed| {
                        crate::hand::run(gpu, k, p, &entry, sh, arrays, coefs, steps, timed)
                    };
                    let out = hrun(&small_arrays, &small_coefs, &cs, 2, false).map(|(out, _)| out);
                    check(&mut row, out, &want, p);
                    if row.status == "ok" {
                        let t = hrun(&big_arrays, &big_coefs, &shape, c.steps * c.reps + 1, true)
                            .map(|(_, times)| {
                                times[1..]
                                    .chunks(c.steps.max(1))
                                    .map(|ch| ch.iter().sum::<f64>() / ch.len() as f64)
                                    .collect()
                            });
                        rates(&mut row, t, k, p, copy_bandwidth);
                    }
                    report(c, &row);
                    rows.push(row);
                }
            }
        }
    }
    Ok(Results {
        backend: backend.describe(),
        date: today(),
        copy_bandwidth,
        steps: c.steps,
        reps: c.reps,
        rows,
    })
}

impl Row {
    /// A row not measured yet.
    fn new(
        k: Kernel,
        p: Precision,
        level: &str,
        shape: &[usize],
        tile: [u32; 3],
        chunk: [u32; 3],
    ) -> Row {
        Row {
            kernel: k.name(),
            precision: p.name().into(),
            level: level.into(),
            shape: shape.to_vec(),
            tile,
            chunk,
            status: "ok".into(),
            check_error: 0.0,
            detail: String::new(),
            seconds_per_step: f64::NAN,
            rep_seconds: Vec::new(),
            gpts: 0.0,
            gflops: 0.0,
            gbs: 0.0,
            copy_fraction: 0.0,
        }
    }
}

/// Compares the check run's output with the serial reference `want`: the row becomes
/// `wrong` (not to be timed) beyond the precision's tolerance, `error` if it failed.
fn check(row: &mut Row, out: mint::Result<Vec<f64>>, want: &[f64], p: Precision) {
    match out {
        Err(e) => {
            row.status = "error".into();
            row.detail = e.to_string();
        }
        Ok(out) => {
            row.check_error = max_rel_err(&out, want);
            if row.check_error.is_nan() || row.check_error > p.tolerance() {
                row.status = "wrong".into();
                row.detail = format!(
                    "relative error {:.3e} against the serial reference; not timed",
                    row.check_error
                );
            }
        }
    }
}

/// Fills the rates of `row` from the seconds per step of each run (their median), or
/// marks it an error.
fn rates(
    row: &mut Row,
    per_rep: mint::Result<Vec<f64>>,
    k: Kernel,
    p: Precision,
    copy_bandwidth: f64,
) {
    match per_rep {
        Ok(per_rep) => {
            let t = median(per_rep.clone());
            row.rep_seconds = per_rep;
            let points = k.points(&row.shape);
            row.seconds_per_step = t;
            row.gpts = points / t * 1e-9;
            row.gflops = row.gpts * k.flops_per_point();
            row.gbs = points * k.words_per_point() * p.bytes() as f64 / t * 1e-9;
            if copy_bandwidth > 0.0 {
                row.copy_fraction = row.gbs * 1e9 / copy_bandwidth;
            }
        }
        Err(e) => {
            row.status = "error".into();
            row.detail = e.to_string();
        }
    }
}

fn report(c: &Config, row: &Row) {
    if c.verbose {
        eprintln!(
            "  {:<16} {} {:<28} {:>8.3} ms/step {:>8.2} GPts/s {:>7.1} GB/s {:>5.1}% {} {}",
            row.kernel,
            row.precision,
            row.level,
            row.seconds_per_step * 1e3,
            row.gpts,
            row.gbs,
            row.copy_fraction * 100.0,
            row.status,
            row.detail
        );
    }
}

/// Seconds per step of each of `reps` runs of `steps` steps.
fn time(
    inst: &mut dyn crate::suite::Instance,
    opts: crate::Opts,
    tile: [u32; 3],
    chunk: [u32; 3],
    c: &Config,
    on_gpu: bool,
) -> mint::Result<Vec<f64>> {
    if on_gpu {
        // A warm-up region of one step first: it compiles or loads the kernel and, for
        // `tune`, runs the autotuner's search. In the region that ran a search, the
        // radius-4 star's pipelined kernel ran 3-25% slower than the same kernel in any
        // later region (on an H100); the timed region is a
        // later one, as in a program's second run, which reads the stored choice.
        inst.run(opts, tile, chunk, 1)?;
        // Then one timed region, whose first launch is dropped too.
        mint::reset_kernel_stats();
        mint::set_timing(true);
        let r = inst.run(opts, tile, chunk, c.steps * c.reps + 1);
        mint::set_timing(false);
        r?;
        let samples: Vec<f64> = mint::kernel_stats()
            .into_iter()
            .flat_map(|s| s.samples)
            .skip(1)
            .collect();
        if std::env::var_os("MINT_HARNESS_SAMPLES").is_some() {
            let ms: Vec<String> = samples.iter().map(|t| format!("{:.3}", t * 1e3)).collect();
            eprintln!("harness samples (ms): {}", ms.join(" "));
        }
        let per_rep: Vec<f64> = samples
            .chunks(c.steps.max(1))
            .map(|ch| ch.iter().sum::<f64>() / ch.len() as f64)
            .collect();
        Ok(per_rep)
    } else {
        let mut per_rep = Vec::new();
        for _ in 0..c.reps {
            let t = Instant::now();
            inst.run(opts, tile, chunk, c.steps)?;
            per_rep.push(t.elapsed().as_secs_f64() / c.steps as f64);
        }
        Ok(per_rep)
    }
}

fn today() -> String {
    // days since the epoch to a civil date (Howard Hinnant's algorithm)
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

impl Results {
    /// A Markdown table: one row per kernel and precision, GPts/s per level, the best
    /// level's GFLOP/s, GB/s and fraction of the copy bandwidth.
    pub fn markdown(&self, levels: &[Level]) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "Backend: {}; {}; median of {} runs of {} steps; device-to-device copy {:.0} GB/s.\n\n",
            self.backend,
            self.date,
            self.reps,
            self.steps,
            self.copy_bandwidth * 1e-9
        ));
        s.push_str("| kernel | prec | ");
        for l in levels {
            s.push_str(&format!("{} | ", l.name()));
        }
        s.push_str("Mint best | GFLOP/s | GB/s | of copy BW | tune of best | Hand-CUDA | Mint/Hand |\n|---|---|");
        for _ in levels {
            s.push_str("---:|");
        }
        s.push_str("---|---:|---:|---:|---:|---:|---:|\n");
        let mut keys: Vec<(String, String)> = Vec::new();
        for r in &self.rows {
            let key = (r.kernel.clone(), r.precision.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for (k, p) in keys {
            let rows: Vec<&Row> = self
                .rows
                .iter()
                .filter(|r| r.kernel == k && r.precision == p)
                .collect();
            s.push_str(&format!("| {k} | {p} | "));
            for l in levels {
                match rows.iter().find(|r| r.level == l.name()) {
                    Some(r) if r.status == "ok" => s.push_str(&format!("{:.1} | ", r.gpts)),
                    Some(r) => s.push_str(&format!("{} | ", r.status)),
                    None => s.push_str("– | "),
                }
            }
            let best = |hand: bool| {
                rows.iter()
                    .filter(|r| r.status == "ok" && r.level.starts_with("hand-cuda") == hand)
                    .max_by(|a, b| a.gpts.total_cmp(&b.gpts))
            };
            let (mint_best, hand_best) = (best(false), best(true));
            match mint_best {
                Some(b) => s.push_str(&format!(
                    "{} | {:.0} | {:.0} | {:.1}% | ",
                    b.level,
                    b.gflops,
                    b.gbs,
                    b.copy_fraction * 100.0
                )),
                None => s.push_str("– | | | | "),
            }
            // the tuned kernel against the best of the other variants
            let tuned = rows
                .iter()
                .find(|r| r.status == "ok" && r.level == Level::Tuned.name());
            let others = rows
                .iter()
                .filter(|r| {
                    r.status == "ok"
                        && r.level != Level::Tuned.name()
                        && !r.level.starts_with("hand-cuda")
                })
                .max_by(|a, b| a.gpts.total_cmp(&b.gpts));
            match (tuned, others) {
                (Some(t), Some(o)) => s.push_str(&format!("{:.1}% | ", 100.0 * t.gpts / o.gpts)),
                _ => s.push_str("– | "),
            }
            match (mint_best, hand_best) {
                (Some(m), Some(h)) => s.push_str(&format!(
                    "{:.1} ({}) | {:.0}% |\n",
                    h.gpts,
                    h.level.trim_start_matches("hand-cuda "),
                    100.0 * m.gpts / h.gpts
                )),
                _ => s.push_str("– | – |\n"),
            }
        }
        s.push_str("\nGPts/s per level; GFLOP/s, GB/s and the fraction of the copy bandwidth for Mint's best variant; \"tune of best\" is the `tune` level (default clauses) over the fastest other Mint variant; Hand-CUDA is the fastest correct hand-written strategy.\n");
        s
    }
}
