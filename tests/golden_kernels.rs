//! The golden kernel manifest (issue #44): the CUDA text of every kernel of a corpus,
//! hashed (SHA-256) into `tests/golden/kernels.sha256`, one `name hash` line per kernel.
//! A change to the translator either leaves every line as it was, or changes generated
//! code on purpose: then `MINT_BLESS=1 cargo test --test golden_kernels` rewrites the list,
//! and the commit says why and has run the GPU tests.
//!
//! The corpus:
//! - every suite kernel at every optimization level's clauses and at the suite's autotuner
//!   candidates (what `tests/nvrtc.rs` compiles);
//! - every autotuner candidate ([`mint_translator::tune::candidates`]) of every suite
//!   kernel as written, which covers `swizzle` and rolled z steps;
//! - every suite kernel as written that a time loop can block, fused at depths 3 and 5
//!   (`#[mint::time_loop]`, issue #45);
//! - the kernels of the seismic, cardiac, Harris and multigrid programs, and the fused
//!   launches of the cardiac model written to be blocked;
//! - the first 2,000 generated kernels of the fuzzer and as many with boundary subscripts;
//! - the level clauses again for sm_70 (no `cp.async`: the fallbacks), sm_80, 64-bit
//!   indices, and a 256-byte parameter limit (arrays packed into a device struct).
//!
//! Needs neither a GPU nor NVRTC: it only translates.

mod common;
#[allow(dead_code)]
#[path = "../examples/seismic/output.rs"]
mod output;
#[allow(dead_code)]
#[path = "common/seismic_case.rs"]
mod seismic_case;

#[allow(dead_code)]
#[path = "../examples/cardiac/model.rs"]
mod cardiac;
#[allow(dead_code)]
#[path = "../examples/seismic/config.rs"]
mod config;
#[allow(dead_code)]
#[path = "../examples/harris/detect.rs"]
mod detect;
#[allow(dead_code)]
#[path = "../examples/multigrid/mg.rs"]
mod mg;
#[allow(dead_code)]
#[path = "../examples/seismic/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../examples/seismic/solver.rs"]
mod solver;
#[allow(dead_code)]
#[path = "../examples/seismic/stencil.rs"]
mod stencil;
#[allow(dead_code)]
#[path = "../examples/harris/volume.rs"]
mod volume;

use mint::Target;
use mint_kernels::{Kernel, Level};
use mint_testing::generate;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/kernels.sha256");

/// One kernel of the corpus: its manifest name and its CUDA (or the translator's refusal,
/// which is part of the golden behaviour too).
fn entry(name: String, source: Result<String, String>) -> (String, String) {
    let text = match source {
        Ok(s) => s,
        Err(e) => format!("refused: {e}"),
    };
    (name, format!("{:x}", Sha256::digest(text.as_bytes())))
}

/// The suite's sites with the clauses that call them: every level's and the suite's
/// autotuner candidates (as `tests/nvrtc.rs` pairs them).
fn suite_jobs() -> Vec<(&'static mint::__rt::KernelSite, String, [u32; 3], [u32; 3])> {
    let sites: Vec<_> = mint::kernel_sites()
        .filter(|s| s.module.starts_with("mint_kernels"))
        .collect();
    let mut configs = Vec::new();
    for dims in [2, 3] {
        for l in Level::ALL {
            let (t, c) = l.config(dims);
            configs.push((l.name().to_string(), t, c, dims, l.opts()));
        }
        for v in mint_kernels::harness::candidates(dims, None) {
            configs.push((v.name, v.tile, v.chunk, dims, v.opts));
        }
    }
    let mut jobs = Vec::new();
    for s in sites {
        let q = s.qualified();
        let f = q.rsplit("::").next().and_then(|n| n.rsplit_once('_'));
        let Ok(k) = s.kernel() else { continue };
        for (name, t, c, dims, opts) in &configs {
            if f.map(|(f, _)| f) == Some(opts.function()) && k.nest.len() == *dims {
                jobs.push((s, name.clone(), *t, *c));
            }
        }
    }
    jobs
}

/// Every kernel of the corpus, by name.
fn corpus() -> BTreeMap<String, String> {
    assert_eq!(
        Kernel::ALL.len(),
        17,
        "the suite is linked into this binary"
    );
    let targets: [(&str, Target); 5] = [
        ("sm90", Target::default()),
        (
            "sm70",
            Target {
                compute_capability: (7, 0),
                ..Target::default()
            },
        ),
        (
            "sm80",
            Target {
                compute_capability: (8, 0),
                ..Target::default()
            },
        ),
        (
            "idx64",
            Target {
                idx64: true,
                ..Target::default()
            },
        ),
        (
            "params256",
            Target {
                param_limit: 256,
                ..Target::default()
            },
        ),
    ];
    let mut out = BTreeMap::new();
    // the suite at the levels and the suite's candidates (sm_90), and at the levels only
    // for the other targets
    let jobs = suite_jobs();
    let levels: Vec<String> = Level::ALL.iter().map(|l| l.name().to_string()).collect();
    out.extend(
        jobs.par_iter()
            .flat_map(|(site, level, tile, chunk)| {
                targets
                    .iter()
                    .filter(|(t, _)| *t == "sm90" || levels.contains(level))
                    .map(|(tname, target)| {
                        let k = site.kernel().expect("suite IR");
                        let target = Target {
                            clause_values: mint::__rt::clause_values(k, *tile, *chunk),
                            ..target.clone()
                        };
                        entry(
                            format!("suite {} @{level} {tname}", site.qualified()),
                            site.translate(&target)
                                .map(|t| t.source)
                                .map_err(|e| e.to_string()),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>(),
    );
    // every autotuner candidate of every suite kernel as written (swizzle, roll_z)
    let written: Vec<_> = mint::kernel_sites()
        .filter(|s| s.module.starts_with("mint_kernels") && s.qualified().contains("::k_none_"))
        .collect();
    assert!(!written.is_empty(), "the suite's kernels as written");
    out.extend(
        written
            .par_iter()
            .flat_map(|site| {
                let k = site.kernel().expect("suite IR");
                let target = Target {
                    clause_values: mint::__rt::clause_values(k, [32, 8, 1], [1, 1, 1]),
                    ..Target::default()
                };
                let Some(space) = mint_translator::tune::Space::of(k) else {
                    return Vec::new();
                };
                let Ok(as_written) = mint_translator::tune::as_written(k, &target) else {
                    return Vec::new();
                };
                mint_translator::tune::candidates(space, &as_written)
                    .into_iter()
                    .map(|c| {
                        let kc = c.apply(k);
                        entry(
                            format!("tune {} {}", site.qualified(), c.describe()),
                            mint_translator::translate(&kc, &target)
                                .map(|t| t.source)
                                .map_err(|d| format!("{d:?}")),
                        )
                    })
                    .collect()
            })
            .collect::<Vec<_>>(),
    );
    // every suite kernel as written that a time loop can block, fused at the depths
    // `block = auto` tries past 1, with the default tile for the H100's and H200's 227 KiB
    // of shared memory per block (what `#[mint::time_loop]` launches there)
    out.extend(
        written
            .par_iter()
            .flat_map(|site| temporal(site))
            .collect::<Vec<_>>(),
    );
    // the applications' kernels, whose types are bound at their first launch: each run
    // once, small, on the CPU, then translated with the types it ran with
    apps(&mut out);
    // the fuzzer's first 2,000 seeds, plain and with boundary subscripts
    out.extend(
        (1..=2000u64)
            .into_par_iter()
            .flat_map(|seed| {
                [
                    (false, generate::case(seed)),
                    (true, generate::boundary_case(seed)),
                ]
                .into_iter()
                .map(|(b, c)| {
                    let mut k = c.kernel;
                    let src = mint_translator::check(&mut k)
                        .map_err(|d| format!("{d:?}"))
                        .and_then(|_| {
                            mint_translator::translate(&k, &Target::default())
                                .map(|t| t.source)
                                .map_err(|d| format!("{d:?}"))
                        });
                    let kind = if b { "boundary" } else { "case" };
                    entry(format!("fuzz {kind} {seed}"), src)
                })
                .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>(),
    );
    out
}

/// The fused launches of `site`'s kernel at depths 3 and 5, for every array it could
/// read as the time loop's input: as the runtime configures them
/// (`mint-runtime/src/timeloop`), with the default tile.
fn temporal(site: &mint::__rt::KernelSite) -> Vec<(String, String)> {
    use mint_translator::optimizer::temporal;
    let k = site.kernel().expect("suite IR");
    let mut out = Vec::new();
    for input in 0..k.arrays.len() {
        let Ok((_, reach)) = temporal::check(k, input) else {
            continue;
        };
        let elem = k.arrays[input].elem.size_bytes();
        for depth in [3u32, 5] {
            let block = temporal::default_tile(k.nest.len(), depth, reach, elem, 227 * 1024);
            let c = mint_translator::tune::Candidate::time_blocked(k, input, depth, block)
                .expect("the default block");
            let kc = c.apply(k);
            let target = Target {
                clause_values: mint::__rt::clause_values(&kc, c.tile, c.chunk),
                ..Target::default()
            };
            out.push(entry(
                format!("time_loop {} input {input} depth {depth}", site.qualified()),
                mint_translator::translate(&kc, &target)
                    .map(|t| t.source)
                    .map_err(|d| format!("{d:?}")),
            ));
        }
    }
    out
}

/// The fused launches at depths 3 and 5 of the kernels of `module` (as they last ran, under
/// `label`) that read and write every one of the swapped pairs `pairs` (`(read, written)`,
/// by name): as the runtime configures them, with the default tile.
fn carried(out: &mut BTreeMap<String, String>, module: &str, label: &str, pairs: &[(&str, &str)]) {
    use mint_translator::optimizer::temporal;
    let suffix = format!("::{module}");
    for site in mint::kernel_sites().filter(|s| s.module.ends_with(&suffix)) {
        let k = site.kernel().expect("app IR");
        let index = |n: &str| k.arrays.iter().position(|a| a.name == n);
        let Some(p) = (pairs.iter())
            .map(|&(a, b)| Some((index(a)?, index(b)?)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let b = temporal::check_pairs(k, &p).expect("a step that carries its pairs");
        for depth in [3u32, 5] {
            let elem = if label == "f64" { 8 } else { 4 };
            let block = temporal::default_tile(k.nest.len(), depth, b.reach, elem, 227 * 1024);
            let c = mint_translator::tune::Candidate::time_blocked(k, b.input, depth, block)
                .and_then(|c| c.carrying(&b.carried))
                .expect("the default block");
            let (name, hash) = entry(
                format!("time_loop {} {label} depth {depth}", site.qualified()),
                site.translate_as(&Target::default(), &c)
                    .map(|t| t.source)
                    .map_err(|e| e.to_string()),
            );
            out.insert(name, hash);
        }
    }
}

/// Runs `run` on the CPU backend, then adds the kernels of `module` (as translated with
/// the types they ran with) under `label`.
fn app(out: &mut BTreeMap<String, String>, module: &str, label: &str, run: impl FnOnce()) {
    mint::with_device(mint::Device::Cpu, run);
    let suffix = format!("::{module}");
    for site in mint::kernel_sites().filter(|s| s.module.ends_with(&suffix)) {
        let (name, hash) = entry(
            format!("app {} {label}", site.qualified()),
            site.translate(&Target::default())
                .map(|t| t.source)
                .map_err(|e| e.to_string()),
        );
        out.insert(name, hash);
    }
}

/// The seismic, cardiac, Harris and multigrid kernels.
fn apps(out: &mut BTreeMap<String, String>) {
    app(out, "solver", "f32", || {
        let setup = seismic_case::setup("loh1.toml");
        solver::run(&setup, [32, 4, 1], &mut |_| {}).unwrap();
    });
    for (label, f64_) in [("f32", false), ("f64", true)] {
        app(out, "cardiac", label, || {
            fn one<T: mint::Real + From<f32>>() {
                let (mut e_prev, mut r) = cardiac::initial::<T>(21);
                let mut e = e_prev.clone();
                cardiac::simulate::<T>(
                    &mut e,
                    &mut e_prev,
                    &mut r,
                    0.5,
                    [32, 8],
                    0,
                    &mut |_, _| {},
                )
                .unwrap();
                let mut r_next = r.clone();
                cardiac::simulate_blocked::<T>(&mut e, &mut e_prev, &mut r, &mut r_next, 3)
                    .unwrap();
            }
            if f64_ { one::<f64>() } else { one::<f32>() }
        });
        carried(out, "cardiac", label, &[("e_prev", "e"), ("r", "r_next")]);
    }
    app(out, "detect", "f32", || {
        let (data, _) = detect::phantom(32);
        for w in detect::WINDOWS {
            for streamed in [false, true] {
                detect::scores_as(&data, w, [32, 4, 1], streamed).unwrap();
            }
        }
    });
    app(out, "mg", "f64", || {
        let hi = mg::Hierarchy::new(3).unwrap();
        let (mut u, mut f, mut r, ex) = hi.problem::<f64>();
        let plan = mg::Plan {
            fmg: true,
            cycles: 1,
            pre: 1,
            post: 1,
            omega: 1.0,
        };
        mg::solve(&mut u, &mut f, &mut r, &ex, &hi, plan).unwrap();
    });
}

#[test]
fn generated_kernels_match_the_golden_manifest() {
    let got = corpus();
    let text: String = got.iter().map(|(n, h)| format!("{n} {h}\n")).collect();
    if std::env::var("MINT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(std::path::Path::new(MANIFEST).parent().unwrap()).unwrap();
        std::fs::write(MANIFEST, &text).unwrap();
        eprintln!("blessed: {} kernels written to {MANIFEST}", got.len());
        return;
    }
    let want: BTreeMap<String, String> = std::fs::read_to_string(MANIFEST)
        .unwrap_or_else(|e| panic!("{MANIFEST}: {e} (MINT_BLESS=1 writes it)"))
        .lines()
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(n, h)| (n.to_string(), h.to_string()))
        .collect();
    let changed: Vec<&String> = got
        .iter()
        .filter(|(n, h)| want.get(*n).is_some_and(|w| w != *h))
        .map(|(n, _)| n)
        .collect();
    let added: Vec<&String> = got.keys().filter(|n| !want.contains_key(*n)).collect();
    let removed: Vec<&String> = want.keys().filter(|n| !got.contains_key(*n)).collect();
    let show = |v: &[&String]| {
        v.iter()
            .take(12)
            .map(|s| format!("  {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        changed.is_empty() && added.is_empty() && removed.is_empty(),
        "the generated CUDA differs from the golden manifest ({} kernels): {} changed, {} new, {} gone\n\
         changed:\n{}\nnew:\n{}\ngone:\n{}\n\
         If the change is deliberate: MINT_BLESS=1 cargo test --test golden_kernels, say why in the commit, and run the GPU tests.",
        want.len(),
        changed.len(),
        added.len(),
        removed.len(),
        show(&changed),
        show(&added),
        show(&removed)
    );
    eprintln!("{} kernels match the golden manifest", got.len());
}
