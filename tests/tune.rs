//! The autotuner (`tune`, issue #15).
//!
//! Without a GPU: the search on an emulation of candidate runs (the candidates translated
//! for a small device, each run by the IR interpreter on scratch arrays), the store's
//! round trip, and the report line. With a GPU: a tuned kernel's results equal the
//! untuned kernel's bit for bit, a second run finds the stored choice and searches
//! nothing, and the choice is at least as fast as the kernel as written.

mod common;

use mint::tune::{self, Bench, Candidate, Outcome, Record, Space};
use mint_testing::interp::{self, Value};
use mint_translator::Target;
use mint_translator::ir::{Kernel, ScalarTy};
use ndarray::Array3;

/// `u[z][y][x] += c * (v[z][y][x-1] + v[z][y][x+1] + v[z-1][y][x] + v[z+1][y][x])`: it reads
/// and writes `u`, so a run on arrays that were not restored gives another result.
fn kernel() -> Kernel {
    let mut k = mint_testing::kernel(
        "accumulate_0",
        "arrays: u f64 3, v f64 3
         scalars: c f64
         nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
         u[z][y][x] = u[z][y][x] + c * (v[z][y][x-1] + v[z][y][x+1] + v[z-1][y][x] + v[z+1][y][x]);",
    );
    mint_translator::check(&mut k).expect("the kernel type-checks");
    k
}

/// Candidates run by the interpreter: each is translated for `target` (what does not fit
/// is an error, as on a GPU), its translated IR interpreted on a scratch copy of `u`.
/// `miscompiled` emulates a wrong kernel (one output value off by one ulp); times come
/// from `cost`.
struct Emulation<'a> {
    kernel: &'a Kernel,
    target: Target,
    u: interp::Array,
    v: interp::Array,
    scratch: interp::Array,
    miscompiled: Option<Candidate>,
    cost: &'a dyn Fn(&Candidate) -> f64,
    runs: usize,
    /// The scratch array's bytes after the kernel as written ran.
    reference: Vec<u8>,
}

impl Emulation<'_> {
    fn bytes(&self) -> Vec<u8> {
        self.scratch
            .data
            .iter()
            .flat_map(|v| v.as_f64().to_le_bytes())
            .collect()
    }
}

fn array(shape: [usize; 3], f: impl Fn(usize) -> f64) -> interp::Array {
    let n = shape.iter().product();
    interp::Array {
        elem: ScalarTy::F64,
        shape: shape.to_vec(),
        data: (0..n).map(|i| Value::F64(f(i))).collect(),
    }
}

impl Bench for Emulation<'_> {
    fn restore(&mut self) -> mint::Result<()> {
        self.scratch = self.u.clone();
        Ok(())
    }

    fn run(&mut self, c: &Candidate) -> mint::Result<()> {
        let t = mint_translator::translate(&c.apply(self.kernel), &self.target).map_err(|d| {
            mint::Error::Translate {
                kernel: self.kernel.name.clone(),
                location: String::new(),
                message: d[0].message.clone(),
            }
        })?;
        let mut arrays = [self.scratch.clone(), self.v.clone()];
        let s = &self.u.shape;
        let bounds = [
            (1, s[0] as i64 - 1),
            (1, s[1] as i64 - 1),
            (1, s[2] as i64 - 1),
        ];
        interp::run(
            &t.ir,
            interp::Launch {
                arrays: &mut arrays,
                scalars: &[Value::F64(0.25)],
                bounds: &bounds,
                reduction: None,
            },
        )
        .expect("the interpreter runs the kernel");
        let [mut out, _] = arrays;
        if self.miscompiled == Some(*c) {
            let Value::F64(x) = out.data[500] else {
                unreachable!()
            };
            out.data[500] = Value::F64(f64::from_bits(x.to_bits() + 1));
        }
        self.scratch = out;
        self.runs += 1;
        Ok(())
    }

    fn snapshot(&mut self) -> mint::Result<()> {
        self.reference = self.bytes();
        Ok(())
    }

    fn matches_snapshot(&mut self) -> mint::Result<bool> {
        Ok(self.bytes() == self.reference)
    }

    fn time(&mut self, c: &Candidate) -> mint::Result<f64> {
        Ok((self.cost)(c))
    }
}

/// A deterministic cost for each candidate, unrelated to the order of the list.
fn scrambled(c: &Candidate) -> f64 {
    let h = c.describe().bytes().fold(1469598103934665603u64, |h, b| {
        (h ^ b as u64).wrapping_mul(1099511628211)
    });
    1e-3 * (1.0 + (h % 1000) as f64 / 1000.0)
}

#[test]
fn the_search_keeps_the_fastest_candidate_whose_results_equal_the_kernel_as_written() {
    let k = kernel();
    // a device that allows 128 threads per block: the larger blocks do not fit
    let target = Target {
        max_threads_per_block: 128,
        ..Target::default()
    };
    let written = tune::as_written(&k, &Target::default()).unwrap();
    let mut written = written;
    written.tile = [32, 4, 1]; // as written, it fits
    let cands = tune::candidates(Space::of(&k).unwrap(), &written);
    let shape = [9, 11, 13];
    let u = array(shape, |i| (i as f64 * 0.37).sin());
    let v = array(shape, |i| (i as f64 * 0.11).cos());
    // the fastest candidate that fits, other than the kernel as written, is miscompiled
    let fits = |c: &Candidate| mint_translator::translate(&c.apply(&k), &target).is_ok();
    let fastest = *cands
        .iter()
        .skip(1)
        .filter(|c| fits(c))
        .min_by(|a, b| scrambled(a).total_cmp(&scrambled(b)))
        .unwrap();
    let mut e = Emulation {
        kernel: &k,
        target: target.clone(),
        u: u.clone(),
        v,
        scratch: u.clone(),
        miscompiled: Some(fastest),
        cost: &scrambled,
        runs: 0,
        reference: Vec::new(),
    };
    let o: Outcome = tune::search(&cands, &mut e).unwrap();
    // the kernel's own arrays are untouched
    assert_eq!(e.u, u);
    // the miscompiled candidate is rejected, the others that fit are all accepted (each
    // run started from restored arrays: without that, every result would differ)
    assert_eq!(o.rejected, vec![fastest]);
    let skipped: Vec<Candidate> = o.skipped.iter().map(|s| s.0).collect();
    let expect_skipped: Vec<Candidate> = cands.iter().filter(|c| !fits(c)).copied().collect();
    assert!(!expect_skipped.is_empty());
    assert_eq!(skipped, expect_skipped);
    assert!(
        o.skipped.iter().all(|s| s.1.contains("threads per block")),
        "{:?}",
        o.skipped
    );
    // the choice is the cheapest of the rest, and the runner-up the next
    let mut ok: Vec<&Candidate> = cands.iter().filter(|c| fits(c) && **c != fastest).collect();
    assert!(ok.len() >= 4, "{ok:?}");
    ok.sort_by(|a, b| scrambled(a).total_cmp(&scrambled(b)));
    assert_eq!(o.choice, *ok[0]);
    assert_eq!(o.seconds, scrambled(ok[0]));
    assert_eq!(o.runner_up, Some((*ok[1], scrambled(ok[1]))));
    assert_eq!(
        (o.written, o.written_seconds),
        (written, scrambled(&written))
    );
    assert_eq!(o.candidates, cands.len());
    // and the chosen configuration computes what the kernel as written computes
    e.miscompiled = None;
    e.restore().unwrap();
    e.run(&o.choice).unwrap();
    let chosen = e.bytes();
    e.restore().unwrap();
    e.run(&written).unwrap();
    assert_eq!(chosen, e.bytes());
}

#[test]
fn ties_go_to_the_kernel_as_written_and_a_failing_kernel_is_an_error() {
    let k = kernel();
    let written = tune::as_written(&k, &Target::default()).unwrap();
    let cands = tune::candidates(Space::of(&k).unwrap(), &written);
    let shape = [5, 6, 7];
    let u = array(shape, |i| i as f64);
    let flat = |_: &Candidate| 1e-3;
    let mut e = Emulation {
        kernel: &k,
        target: Target::default(),
        u: u.clone(),
        v: u.clone(),
        scratch: u.clone(),
        miscompiled: None,
        cost: &flat,
        runs: 0,
        reference: Vec::new(),
    };
    let o = tune::search(&cands, &mut e).unwrap();
    assert_eq!(o.choice, written);
    assert!(o.rejected.is_empty() && o.skipped.is_empty());
    // the kernel as written does not fit: the search fails (the launch then fails as an
    // untuned one would)
    e.target.max_threads_per_block = 64;
    assert!(tune::search(&cands, &mut e).is_err());
}

/// The second round tries the first round's two fastest with `swizzle` flipped: a faster
/// twin whose results equal the first choice's is kept, with the first choice as the
/// runner-up and both rounds' candidates counted; a twin whose results differ is rejected
/// and the first choice stays.
#[test]
fn the_second_round_keeps_a_faster_swizzled_twin_and_rejects_a_wrong_one() {
    let k = kernel();
    let written = tune::as_written(&k, &Target::default()).unwrap();
    let space = Space::of(&k).unwrap();
    let cands = tune::candidates(space, &written);
    let flip = |c: &Candidate| {
        let mut t = *c;
        t.options.swizzle = !t.options.swizzle;
        t
    };
    // a candidate tried without `swizzle` only: made the fastest of the first round, and
    // its twin faster still
    let best = *cands
        .iter()
        .skip(1)
        .find(|c| !c.options.swizzle && !cands.contains(&flip(c)))
        .unwrap();
    let twin = flip(&best);
    let cost = move |c: &Candidate| {
        if *c == twin {
            0.4e-3
        } else if *c == best {
            0.5e-3
        } else {
            scrambled(c)
        }
    };
    let shape = [9, 11, 13];
    let u = array(shape, |i| (i as f64 * 0.3).sin());
    let v = array(shape, |i| (i as f64 * 0.7).cos());
    let mut e = Emulation {
        kernel: &k,
        target: Target::default(),
        u: u.clone(),
        v,
        scratch: u.clone(),
        miscompiled: None,
        cost: &cost,
        runs: 0,
        reference: Vec::new(),
    };
    let first = tune::search(&cands, &mut e).unwrap();
    assert_eq!(first.choice, best);
    let runner = first.runner_up.unwrap().0;
    let twins = mint_translator::tune::refinements(space, &[best, runner], &cands);
    assert_eq!(twins[0], twin);
    let o = tune::search_in_two_rounds(space, &cands, &mut e).unwrap();
    assert_eq!((o.choice, o.seconds), (twin, 0.4e-3));
    assert_eq!(o.runner_up, Some((best, 0.5e-3)));
    assert_eq!(o.candidates, cands.len() + twins.len());
    assert_eq!(
        (o.written, o.written_seconds),
        (written, scrambled(&written))
    );
    assert!(o.rejected.is_empty() && o.skipped.is_empty());
    // a twin whose results differ from the first choice's is rejected
    e.miscompiled = Some(twin);
    let o = tune::search_in_two_rounds(space, &cands, &mut e).unwrap();
    assert_eq!(o.choice, best);
    assert_eq!(o.rejected, vec![twin]);
}

fn record() -> Record {
    let c = |register, tile, chunk| Candidate {
        options: mint_translator::ir::OptOptions {
            register,
            shared: 8 * register as u8,
            ..Default::default()
        },
        tile,
        chunk,
    };
    Record {
        version: tune::VERSION,
        kernel: "heat::step_0".into(),
        device: "NVIDIA H100 80GB HBM3".into(),
        extents: vec![510, 510, 510],
        outcome: Outcome {
            choice: c(true, [32, 8, 64], [1, 1, 64]),
            seconds: 0.4e-3,
            written: c(false, [16, 16, 1], [1, 1, 1]),
            written_seconds: 0.6e-3,
            runner_up: Some((c(false, [64, 4, 1], [1, 1, 1]), 0.45e-3)),
            candidates: 25,
            skipped: vec![(c(false, [32, 32, 1], [1, 1, 1]), "too many threads".into())],
            rejected: vec![],
        },
    }
}

#[test]
fn a_stored_choice_reads_back_and_a_damaged_one_is_removed() {
    let dir = std::env::temp_dir().join(format!("mint-tune-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let r = record();
    assert_eq!(tune::load(&dir, "k1"), None, "nothing stored yet");
    tune::store(&dir, "k1", &r);
    assert_eq!(tune::load(&dir, "k1"), Some(r.clone()));
    assert_eq!(tune::load(&dir, "k2"), None);
    // truncated: removed, then absent
    let path = dir.join("k1.json");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(tune::load(&dir, "k1"), None);
    assert!(!path.exists());
    // another version: tuned again
    let mut old = r.clone();
    old.version = tune::VERSION + 1;
    tune::store(&dir, "k3", &old);
    assert_eq!(tune::load(&dir, "k3"), None);
    // a directory that cannot be created costs nothing but the store
    let file = dir.join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    tune::store(&file.join("sub"), "k4", &r);
    assert_eq!(tune::load(&file.join("sub"), "k4"), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_line_names_the_choice_the_kernel_as_written_and_the_runner_up() {
    let r = record();
    let line = tune::report_line(&r);
    assert!(
        line.starts_with("mint report: tune heat::step_0 on NVIDIA H100"),
        "{line}"
    );
    assert!(line.contains("[510, 510, 510] points"), "{line}");
    assert!(
        line.contains("chose `shared, register; tile(32, 8, 64), chunksize(1, 1, 64)`, 0.4000 ms"),
        "{line}"
    );
    let ratio = r.outcome.written_seconds / r.outcome.seconds;
    assert!(line.contains(&format!("{ratio:.2}x the kernel as written (`no options; tile(16, 16, 1), chunksize(1, 1, 1)`, 0.6000 ms)")), "{line}");
    assert!(
        line.contains("runner-up `no options; tile(64, 4, 1), chunksize(1, 1, 1)`, 0.4500 ms"),
        "{line}"
    );
    assert!(line.contains("25 candidates, 1 skipped"), "{line}");
}

macro_rules! heat {
    ($name:ident, [$($o:tt)*]) => {
        #[mint::parallel($($o)*)]
        fn $name(u: &mut Array3<f64>, w: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(w, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            w[[z, y, x]] = 0.4 * u[[z, y, x]]
                                + 0.1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]]
                                    + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                        }
                    }
                }
                std::mem::swap(u, w);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

heat!(heat_tuned, [tune]);
heat!(heat_as_written, []);

#[test]
fn a_tuned_kernel_gives_the_untuned_results_and_a_second_run_searches_nothing() {
    let Some(gpu) = common::gpu() else { return };
    let dir = std::env::temp_dir().join(format!("mint-tune-gpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: no other test of this binary reads MINT_CACHE_DIR or compiles kernels
    unsafe { std::env::set_var("MINT_CACHE_DIR", &dir) };
    let shape = (67, 61, 70);
    let u0 = Array3::from_shape_fn(shape, |(z, y, x)| ((z * 7 + y * 3 + x) as f64 * 0.01).sin());
    let run = |f: fn(&mut Array3<f64>, &mut Array3<f64>, usize) -> mint::Result<()>| {
        mint::with_device(gpu, || {
            let (mut u, mut w) = (u0.clone(), u0.clone());
            f(&mut u, &mut w, 5).unwrap();
            u
        })
    };
    let want = run(heat_as_written);
    let searches = tune::searches();
    let got = run(heat_tuned);
    assert_eq!(tune::searches(), searches + 1, "the first run searches");
    assert!(
        got.iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "tuning changed a result"
    );
    let stored: Vec<_> = std::fs::read_dir(dir.join("tune"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(stored.len(), 1, "one stored choice");
    // a second run of the program (this process's choices forgotten) reads the store
    tune::forget();
    let again = run(heat_tuned);
    assert_eq!(
        tune::searches(),
        searches + 1,
        "the second run searches nothing"
    );
    assert!(
        again
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    let r = tune::load(
        &dir.join("tune"),
        stored[0].path().file_stem().unwrap().to_str().unwrap(),
    )
    .expect("the stored choice reads back");
    assert_eq!(r.extents, vec![65, 59, 68]);
    assert_eq!(
        r.outcome.written.tile,
        [16, 16, 1],
        "the default tile, as written"
    );
    assert!(r.outcome.candidates > 20);
    eprintln!("{}", tune::report_line(&r));
    let _ = std::fs::remove_dir_all(&dir);
}
