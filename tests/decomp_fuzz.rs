//! Fuzzing the decomposition (issue #41): generated kernels whose subscripts are clamped,
//! `min`/`max`, mirrored and periodic along every axis, some through `let`-bound index
//! locals (`mint_testing::generate::boundary_case`), run as a region of two steps
//! (the kernel and `swap(a0, out)`, twice) through the runtime's decomposition:
//!
//! - on 2 and 3 emulated devices (`cpu:2`, `cpu:3`), each device running the kernel in the
//!   interpreter on its own views of the slabs, ghost planes and replicas, exactly as the
//!   CPU backend's generated code runs it (owner-computes hooks included): bitwise equal to
//!   the interpreter on whole arrays;
//! - with a GPU, on `cuda:0,0` and `cuda:0,0,0`: bitwise equal to `cuda`.
//!
//! A case must either equal one device or, exactly when a read of `a0` (which the region
//! writes, through the swap) has a slowest subscript no ghost width bounds, be refused with
//! [`mint::Error::Unsplittable`]. Any other error (an access outside the planes a device
//! holds, an index out of bounds) is a failure.
//!
//! The same cases also run as blocked time loops (issue #45): 4 to 7 steps of a step and
//! the swap under `#[mint::time_loop(block = k)]`'s calls into the runtime. A step is the
//! kernel (`k` 3 or 5), or a chain of 2 or 3 copies of it, each reading the array the one
//! before wrote (`k` 2 to 5). On one CPU and on `cpu:2` and `cpu:3` (a block of steps
//! between two halo exchanges) they are bitwise equal to the interpreter's steps, and with
//! a GPU on `cuda`, where blockable kernels run fused, and `cuda:0,0`, bitwise equal to the
//! GPU's steps one by one. Each test fails if no case ran in blocks.
//!
//! `MINT_DECOMP_FUZZ_CASES` sets the number of cases (default 1000), `MINT_DECOMP_FUZZ_SEED`
//! the first seed (default 1).

mod common;

use mint::__rt::cpu::CpuDev;
use mint::__rt::{ArrayInfo, KernelSite, LaunchArgs, Region, RegionInfo, ScalarValue};
use mint::Device;
use mint_testing::generate::{self, Case};
use mint_testing::interp::{self, Array, Value};
use mint_translator::ir::{Kernel, ScalarTy};
use ndarray::ArrayD;
use rayon::prelude::*;

fn cases() -> (u64, u64) {
    let var = |n: &str, d: u64| {
        std::env::var(n)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    (
        var("MINT_DECOMP_FUZZ_SEED", 1),
        var("MINT_DECOMP_FUZZ_CASES", 1000),
    )
}

use common::interp_store::{DevStore, El};
use common::leak;

/// The interpreter's reference: `steps` times the step, each followed by the swap of
/// `a0` and `out`. A step of `kernels` kernels is the case's kernel as a chain: the
/// first reads `a0` and writes the first intermediate array, the next reads that, and the
/// last writes `out` ([`chain_slots`]).
fn reference(chain: &[Kernel], c: &Case, run: Run) -> Result<Vec<Array>, String> {
    let mut arrays = region_arrays(c, run.kernels);
    let last = c.arrays.len() - 1;
    for _ in 0..run.steps {
        for (i, k) in chain.iter().enumerate() {
            let slots = chain_slots(c.arrays.len(), run.kernels, i);
            let mut mine: Vec<Array> = slots.iter().map(|&s| arrays[s].clone()).collect();
            interp::run(
                k,
                interp::Launch {
                    arrays: &mut mine,
                    scalars: &c.scalars,
                    bounds: &c.bounds,
                    reduction: None,
                },
            )?;
            for (a, &s) in mine.into_iter().zip(&slots) {
                arrays[s] = a;
            }
        }
        arrays.swap(0, last);
    }
    Ok(arrays)
}

/// The region's arrays of case `c` run as a chain of `kernels`: the case's arrays, then
/// `kernels - 1` intermediate arrays holding `out`'s initial values.
fn region_arrays(c: &Case, kernels: usize) -> Vec<Array> {
    let mut v = c.arrays.clone();
    let out = v.last().expect("an output").clone();
    v.extend((1..kernels).map(|_| out.clone()));
    v
}

/// The region slots of kernel `i` of a chain of `kernels` over a case of `n` arrays (the
/// kernel's arrays `a0`, the others it reads, `out`): `a0` is slot 0 for the first
/// kernel and intermediate `i - 1` after it; `out` is slot `n - 1` for the last and
/// intermediate `i` before it; the other arrays are shared.
fn chain_slots(n: usize, kernels: usize, i: usize) -> Vec<usize> {
    let mut s: Vec<usize> = (0..n).collect();
    if i > 0 {
        s[0] = n + i - 1;
    }
    if i + 1 < kernels {
        s[n - 1] = n + i;
    }
    s
}

/// How a case runs: `steps` times the step (`kernels` kernels), each followed by the
/// swap, and, with `depth`, as `#[mint::time_loop(block = depth)]` runs such a body (the
/// runtime fuses `depth` steps of one kernel into one launch where it can, and runs
/// `depth` steps of several between two halo exchanges on several devices).
#[derive(Clone, Copy, Debug)]
struct Run {
    steps: usize,
    depth: Option<usize>,
    /// Kernels per step ([`chain_slots`]).
    kernels: usize,
    /// The region's name's prefix: the tests of this binary run in parallel on the same
    /// seeds, and each counts its regions' halo exchanges.
    region: &'static str,
}

impl Run {
    const TWO_STEPS: Run = Run {
        steps: 2,
        depth: None,
        kernels: 1,
        region: "bcase",
    };
}

/// The region of case `c` (its kernels, type-checked, one per place in the step) on the
/// current device.
fn run_typed<T: El, const N: usize>(
    chain: &[Kernel],
    c: &Case,
    run: Run,
) -> mint::Result<Vec<Array>> {
    let k = &chain[0];
    let n = k.arrays.len();
    let arrays = region_arrays(c, run.kernels);
    let infos: Vec<ArrayInfo> = (0..arrays.len())
        .map(|s| ArrayInfo {
            name: leak(match k.arrays.get(s) {
                Some(a) => a.name.clone().into_boxed_str(),
                None => format!("mid{}", s - n).into_boxed_str(),
            }),
            align_x: 0,
        })
        .collect();
    let info: &'static RegionInfo = leak(Box::new(RegionInfo {
        name: leak(format!("{}_{}", run.region, c.seed).into_boxed_str()),
        file: "tests/decomp_fuzz.rs",
        line: 0,
        arrays: leak(infos.into_boxed_slice()),
        swaps: leak(vec![(0, n - 1)].into_boxed_slice()),
        stream: None,
    }));
    let group = run.kernels > 1 && run.depth.is_some();
    let sites: Vec<(&'static KernelSite, &'static [usize], &Kernel)> = (0..run.kernels)
        .map(|i| {
            let slots: &'static [usize] = leak(chain_slots(n, run.kernels, i).into_boxed_slice());
            let mut site = common::site_of(
                &chain[i],
                "decomp_fuzz",
                "tests/decomp_fuzz.rs",
                c.seed as u32,
            )
            .in_region(info, slots)
            .in_time_loop(run.depth.unwrap_or(1) as u32);
            if group {
                site = site.in_time_group(1, i as u32);
            }
            let site: &'static KernelSite = leak(Box::new(site));
            mint::__rt::register_site(site);
            (site, slots, &chain[i])
        })
        .collect();
    let mut hosts: Vec<ArrayD<T>> = arrays
        .iter()
        .map(|a| {
            ArrayD::from_shape_vec(
                a.shape.clone(),
                a.data.iter().map(|&v| T::from_value(v)).collect(),
            )
            .expect("shape")
        })
        .collect();
    let mut region = Region::enter(info)?;
    for (i, h) in hosts.iter().enumerate() {
        region.copy_to_device(i, h, None)?;
    }
    let scalars: Vec<ScalarValue> = c
        .scalars
        .iter()
        .map(|v| ScalarValue::of(v.as_f64() as usize))
        .collect();
    let elem = k.arrays[0].elem;
    let mut left = run.steps;
    while left > 0 {
        match run.depth {
            Some(d) if group => region.time_group_begin(d, left, 1),
            Some(d) => region.time_step_begin(d, left, &[(0, n - 1)]),
            None => {}
        }
        for &(site, slots, k) in &sites {
            if region.is_cpu() {
                let (hosts, c) = (&mut hosts, &c);
                region.cpu_run(site, slots, |dev: &CpuDev| {
                    let mut mine: Vec<Option<&mut ArrayD<T>>> =
                        hosts.iter_mut().map(Some).collect();
                    let views = slots
                        .iter()
                        .enumerate()
                        .map(|(i, &s)| {
                            dev.view_mut::<N, _>(i, mine[s].take().expect("distinct slots"))
                        })
                        .collect();
                    let mut store = DevStore { dev, views, elem };
                    let (lo, hi) = c.bounds[0];
                    let outer = dev.range(lo..hi);
                    let mut bounds = c.bounds.clone();
                    bounds[0] = (outer.start, outer.end);
                    interp::run_on(k, &mut store, &c.scalars, &bounds, None)
                        .expect("the interpreter runs the kernel");
                })?;
            } else {
                region.launch(
                    site,
                    &LaunchArgs {
                        arrays: slots,
                        scalars: &scalars,
                        bounds: &c.bounds,
                        clauses: &[],
                    },
                    false,
                )?;
            }
        }
        // `std::mem::swap(a0, out)`: the host arrays and the region's slots, as the macro
        // swaps them
        region.swap(0, n - 1);
        hosts.swap(0, n - 1);
        left -= match run.depth {
            Some(_) if group => region.time_group_end(),
            Some(_) => region.time_step_end(),
            None => 1,
        };
    }
    let mut out = arrays;
    for (i, h) in hosts.iter_mut().enumerate() {
        region.copy_from_device(i, h, None)?;
        out[i].data = h.iter().map(|&v| v.to_value()).collect();
    }
    region.exit()?;
    Ok(out)
}

fn run_case(chain: &[Kernel], c: &Case, dev: Device, run: Run) -> mint::Result<Vec<Array>> {
    mint::with_device(dev, || match (chain[0].arrays[0].elem, c.shape.len()) {
        (ScalarTy::F64, 2) => run_typed::<f64, 2>(chain, c, run),
        (ScalarTy::F64, _) => run_typed::<f64, 3>(chain, c, run),
        (ScalarTy::F32, 2) => run_typed::<f32, 2>(chain, c, run),
        (ScalarTy::F32, _) => run_typed::<f32, 3>(chain, c, run),
        (_, 2) => run_typed::<i32, 2>(chain, c, run),
        (_, _) => run_typed::<i32, 3>(chain, c, run),
    })
}

/// The kernels of a step of `kernels` (each type-checked): the case's kernel, and for a
/// chain first its copy reading `a0` only on the point's own plane ([`on_own_plane`]),
/// so that a launch widened for the later kernels' reaches reads its input at reach 0.
fn chain_of(k: &Kernel, kernels: usize) -> Result<Vec<Kernel>, String> {
    let mut v = vec![k.clone(); kernels];
    if kernels > 1 {
        let mut first = on_own_plane(k);
        mint_translator::check(&mut first).map_err(|d| format!("{d:?}"))?;
        v[0] = first;
    }
    Ok(v)
}

/// `k` with every read of `a0` on the plane the point writes (the slowest subscript of its
/// write of `out`).
fn on_own_plane(k: &Kernel) -> Kernel {
    use mint_translator::ir::{ExprKind, Place, StmtKind};
    let mut plane = None;
    k.body.walk_stmts(&mut |s| {
        if let StmtKind::Assign {
            place: Place::Elem { array, index },
            ..
        } = &s.kind
            && array == "out"
            && plane.is_none()
        {
            plane = index.first().cloned();
        }
    });
    let mut v = k.clone();
    if let Some(plane) = plane {
        v.body.walk_exprs_mut(&mut |e| {
            if let ExprKind::Elem { array, index } = &mut e.kind
                && array == "a0"
                && let Some(i) = index.first_mut()
            {
                *i = plane.clone();
            }
        });
    }
    v
}

fn bits(arrays: &[Array]) -> Vec<Vec<u64>> {
    arrays
        .iter()
        .map(|a| {
            a.data
                .iter()
                .map(|v| match v {
                    Value::F32(x) => x.to_bits() as u64,
                    Value::F64(x) => x.to_bits(),
                    other => other.as_f64().to_bits(),
                })
                .collect()
        })
        .collect()
}

/// What went wrong with case `seed` run as `run` on each of `splits`, against `single`
/// running it step by step (the interpreter for `Device::Cpu`), if anything; whether it was
/// refused; and whether some device ran steps in blocks: fewer launches than steps (a
/// GPU that fused them) or fewer halo exchanges than steps (a split region exchanging
/// once per block).
fn check(seed: u64, single: Device, splits: &[Device], run: Run) -> (Option<String>, bool, bool) {
    let c = generate::boundary_case(seed);
    let mut k = c.kernel.clone();
    let text = || {
        format!(
            "{run:?}\n{}",
            mint_translator::emit::rust::region(&c.kernel, "bcase", &c.bounds, c.tile, c.chunk)
        )
    };
    if let Err(d) = mint_translator::check(&mut k) {
        return (
            Some(format!("seed {seed}: type check: {d:?}\n{}", text())),
            false,
            false,
        );
    }
    let chain = match chain_of(&k, run.kernels) {
        Ok(c) => c,
        Err(d) => {
            return (
                Some(format!(
                    "seed {seed}: type check of the chain: {d}\n{}",
                    text()
                )),
                false,
                false,
            );
        }
    };
    let plain = Run { depth: None, ..run };
    let want = match single {
        Device::Cpu => reference(&chain, &c, run).map_err(|e| e.to_string()),
        d => run_case(&chain, &c, d, plain).map_err(|e| e.to_string()),
    };
    let want = match want {
        Ok(w) => bits(&w),
        Err(e) => {
            return (
                Some(format!("seed {seed}: on {single:?}: {e}\n{}", text())),
                false,
                false,
            );
        }
    };
    let (mut refused, mut blocked) = (false, false);
    let region = format!("{}_{seed}", run.region);
    let counts = || {
        (
            mint::kernel_stat(&k.name).map_or(0, |s| s.launches),
            mint::halo_exchanges(&region),
        )
    };
    for &d in splits {
        // the halo exchanges of the loop step by step on the same devices
        let plain_exchanges = if run.kernels > 1 && run.depth.is_some() {
            let before = counts().1;
            let _ = run_case(&chain, &c, d, plain);
            counts().1 - before
        } else {
            run.steps as u64
        };
        let before = counts();
        let got = run_case(&chain, &c, d, run);
        let (launches, exchanges) = (counts().0 - before.0, counts().1 - before.1);
        let steps = (run.steps * run.kernels) as u64;
        blocked |=
            (0 < launches && launches < steps) || (0 < exchanges && exchanges < plain_exchanges);
        match got {
            Ok(got) if bits(&got) == want => {}
            Ok(_) => {
                return (
                    Some(format!(
                        "seed {seed}: {d:?} differs from {single:?}\n{}",
                        text()
                    )),
                    false,
                    false,
                );
            }
            Err(mint::Error::Unsplittable { .. }) if c.unbounded_slowest => refused = true,
            Err(e) => {
                return (
                    Some(format!("seed {seed}: on {d:?}: {e}\n{}", text())),
                    false,
                    false,
                );
            }
        }
    }
    (None, refused, blocked)
}

/// The cases' checks (`check`) for every seed; the number of cases some device ran in
/// blocks of steps.
fn fuzz(
    single: Device,
    splits: &[Device],
    parallel: bool,
    run: impl Fn(u64) -> Run + Sync,
) -> usize {
    let (first, n) = cases();
    let seeds: Vec<u64> = (first..first + n).collect();
    let go = |&seed: &u64| check(seed, single, splits, run(seed));
    let results: Vec<(Option<String>, bool, bool)> = if parallel {
        seeds.par_iter().map(go).collect()
    } else {
        seeds.iter().map(go).collect()
    };
    let failures: Vec<&String> = results.iter().filter_map(|r| r.0.as_ref()).collect();
    let refused = results.iter().filter(|r| r.1).count();
    assert!(
        failures.is_empty(),
        "{} of {n} decomposition cases failed on {splits:?}; the first:\n{}",
        failures.len(),
        failures[0]
    );
    let blocked = results.iter().filter(|r| r.2).count();
    eprintln!(
        "{n} decomposition cases on {splits:?}: {} equal {single:?} bitwise, {refused} refused (an unbounded slowest subscript of a written array), {blocked} run in blocks of steps",
        n as usize - refused
    );
    blocked
}

/// A time loop of 4 to 7 steps of 1 to 3 kernels, by seed: one kernel at depth 3 or 5;
/// several at depth 2 to 5.
fn time_loop(seed: u64) -> Run {
    let kernels = 1 + (seed / 8 % 3) as usize;
    Run {
        steps: 4 + (seed % 4) as usize,
        depth: Some(match kernels {
            1 => [3, 5][(seed / 4 % 2) as usize],
            _ => 2 + (seed / 4 % 2 + seed / 24 % 2 * 2) as usize,
        }),
        kernels,
        region: "tloop",
    }
}

#[test]
fn generated_boundary_kernels_split_bitwise_or_are_refused_on_the_cpu() {
    fuzz(
        Device::Cpu,
        &[Device::Cpus(2), Device::Cpus(3)],
        true,
        |_| Run::TWO_STEPS,
    );
}

#[test]
fn generated_boundary_kernels_split_bitwise_or_are_refused_on_the_gpu() {
    let Some(gpu) = common::gpu() else { return };
    fuzz(gpu, &common::gpu_splits(), false, |_| Run::TWO_STEPS);
}

/// Blocked time loops (issue #45) of the generated kernels: on one CPU and on `cpu:2`
/// and `cpu:3`, where a block of steps runs between two halo exchanges on slabs with
/// `depth × reach` ghost planes, bitwise equal to the interpreter's steps one by one.
#[test]
fn generated_time_loops_equal_the_steps_one_by_one_on_the_cpu() {
    let blocked = fuzz(
        Device::Cpu,
        &[Device::Cpu, Device::Cpus(2), Device::Cpus(3)],
        true,
        time_loop,
    );
    assert!(
        blocked > 0,
        "no generated time loop exchanged once per block"
    );
}

/// The same loops on a GPU, where the steps of a kernel that can be blocked run fused,
/// several per launch, and on `cuda:0,0`: bitwise equal to the GPU's steps one by one.
/// Some cases must fuse, or the test would check nothing of the fused kernels.
#[test]
fn generated_time_loops_equal_the_steps_one_by_one_on_the_gpu() {
    let Some(gpu) = common::gpu() else { return };
    let mut splits = vec![gpu];
    splits.extend(common::gpu_splits());
    let blocked = fuzz(gpu, &splits, false, time_loop);
    assert!(blocked > 0, "no generated time loop was fused on {gpu:?}");
}

#[test]
fn every_bounded_subscript_of_the_generator_is_bounded_by_the_analysis() {
    use mint_translator::analyzer::reach::{Reach, reaches};
    let (first, n) = cases();
    for seed in first..first + n {
        let c = generate::boundary_case(seed);
        let r = reaches(&c.kernel);
        let unbounded = r
            .iter()
            .filter(|r| !r.write)
            .filter(|r| !matches!(r.reach[0], Reach::Rel { lo, hi, .. } if lo.abs() <= 2 && hi.abs() <= 2))
            .count();
        assert_eq!(
            unbounded,
            c.unbounded_reads,
            "seed {seed}: {:?}",
            r.iter()
                .map(|r| (&r.array, &r.text[0], r.reach[0].describe()))
                .collect::<Vec<_>>()
        );
    }
}
