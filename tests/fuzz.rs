//! Differential testing of the translator with generated kernels
//! (`mint_testing::generate`, issue #14). Without a GPU: every case type-checks, runs
//! in the interpreter, translates at its clauses and options, and (with NVRTC) compiles
//! for sm_90. With a GPU (`MINT_DEVICE=cuda`): every case also runs there and its
//! results equal the interpreter's — integers exactly; floats to 1e-4 (f32) or 1e-11
//! (f64) of the larger of 1 and the value, which covers the GPU contracting `a * b + c`
//! into one fused multiply-add (one rounding fewer per contraction, a few per point) and
//! CUDA's `sin`/`cos`/`sqrt` being within 2 ulp of Rust's.
//!
//! `MINT_FUZZ_CASES` sets the number of cases (default 500 in `cargo test`; `.ci/run` runs
//! 2,000, issue #14's count per CI run), `MINT_FUZZ_SEED` the first
//! seed (default 1); a failing case prints its seed and kernel, so that it can be run
//! again alone with `MINT_FUZZ_SEED=<seed> MINT_FUZZ_CASES=1`.

use mint_testing::generate;
use mint_testing::interp::{self, Launch};
use mint_testing::shrink;
use mint_translator::Target;
use rayon::prelude::*;

fn cases() -> (u64, u64) {
    let n = std::env::var("MINT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let s = std::env::var("MINT_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    (s, n)
}

#[test]
fn generated_kernels_check_interpret_translate_and_compile() {
    let (first, n) = cases();
    let nvrtc = mint::__rt::nvrtc_available();
    if !nvrtc {
        eprintln!("NVRTC not found: the generated kernels are translated but not compiled");
    }
    // the generator's cases, then as many with boundary subscripts (clamped, mirrored,
    // periodic faces through `let`s: `generate::boundary_case`)
    let failures: Vec<String> = (first..first + n)
        .flat_map(|seed| [(seed, false), (seed, true)])
        .collect::<Vec<_>>()
        .into_par_iter()
        .filter_map(|(seed, boundary)| {
            let c = if boundary {
                generate::boundary_case(seed)
            } else {
                generate::case(seed)
            };
            let mut k = c.kernel.clone();
            let fail = |what: &str, e: String| {
                Some(format!(
                    "seed {seed}: {what}: {e}\n{}",
                    serde_json::to_string(&c.kernel).unwrap_or_default()
                ))
            };
            if let Err(d) = mint_translator::check(&mut k) {
                return fail("type check", format!("{d:?}"));
            }
            let mut arrays = c.arrays.clone();
            if let Err(e) = interp::run(
                &k,
                Launch {
                    arrays: &mut arrays,
                    scalars: &c.scalars,
                    bounds: &c.bounds,
                    reduction: c.reduction,
                },
            ) {
                return fail("interpreter", e);
            }
            let t = match mint_translator::translate(&k, &Target::default()) {
                Ok(t) => t,
                Err(d) => return fail("translate", format!("{d:?}")),
            };
            if nvrtc && let Err(e) = mint::__rt::compile_only((9, 0), &k.name, &t.source) {
                return fail("NVRTC", e.to_string());
            }
            None
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {n} generated kernels failed; the first:\n{}",
        failures.len(),
        failures[0]
    );
    eprintln!(
        "{n} generated kernels and {n} with boundary subscripts checked, interpreted, translated{}",
        if nvrtc { " and compiled" } else { "" }
    );
}

mod common;

use mint::__rt::{ArrayInfo, Element, KernelSite, LaunchArgs, Region, RegionInfo, ScalarValue};
use mint_testing::interp::{Array, Value};
use mint_translator::ir::ScalarTy;

use common::leak;

fn host<T: Element>(a: &Array, f: impl Fn(Value) -> T) -> ndarray::ArrayD<T> {
    ndarray::ArrayD::from_shape_vec(a.shape.clone(), a.data.iter().map(|&v| f(v)).collect())
        .expect("shape")
}

fn scalar(v: Value) -> ScalarValue {
    match v {
        Value::F32(x) => ScalarValue::of(x),
        Value::F64(x) => ScalarValue::of(x),
        Value::Int(x, ScalarTy::Usize) => ScalarValue::of(x as usize),
        Value::Int(x, ScalarTy::I64) => ScalarValue::of(x as i64),
        Value::Int(x, _) => ScalarValue::of(x as i32),
        Value::Bool(b) => ScalarValue::of(b),
    }
}

/// Runs a typed generated kernel on the current CUDA device: its arrays after the launch
/// and the reduced value.
fn on_gpu(
    k: &mint_translator::ir::Kernel,
    c: &generate::Case,
) -> mint::Result<(Vec<Array>, Option<Value>)> {
    let site: &'static KernelSite = leak(Box::new(common::site_of(k, "fuzz", "tests/fuzz.rs", 0)));
    let lo_x = c.bounds.last().map_or(0, |b| b.0 as usize);
    let infos: Vec<ArrayInfo> = k
        .arrays
        .iter()
        .map(|a| ArrayInfo {
            name: leak(a.name.clone().into_boxed_str()),
            align_x: lo_x,
        })
        .collect();
    let info: &'static RegionInfo = leak(Box::new(RegionInfo {
        name: "fuzz",
        file: "tests/fuzz.rs",
        line: 0,
        arrays: leak(infos.into_boxed_slice()),
        swaps: &[],
        stream: None,
    }));
    let mut region = Region::enter(info)?;
    let ty = k.arrays[0].elem;
    let mut out = c.arrays.clone();
    macro_rules! go {
        ($t:ty, $to:expr, $from:expr) => {{
            let mut hosts: Vec<ndarray::ArrayD<$t>> =
                c.arrays.iter().map(|a| host(a, $to)).collect();
            for (i, h) in hosts.iter().enumerate() {
                region.copy_to_device(i, h, None)?;
            }
            let slots: Vec<usize> = (0..hosts.len()).collect();
            let scalars: Vec<ScalarValue> = c.scalars.iter().map(|&v| scalar(v)).collect();
            let args = LaunchArgs {
                arrays: &slots,
                scalars: &scalars,
                bounds: &c.bounds,
                clauses: &[],
            };
            let r = region.launch(site, &args, false)?;
            for (i, h) in hosts.iter_mut().enumerate() {
                region.copy_from_device(i, h, None)?;
                out[i].data = h.iter().map(|&v| $from(v)).collect();
            }
            let red = r.map(|v| $from(<$t>::from_bits64(v.bits)));
            Ok((out, red))
        }};
    }
    match ty {
        ScalarTy::F32 => go!(f32, |v: Value| v.as_f64() as f32, Value::F32),
        ScalarTy::F64 => go!(f64, |v: Value| v.as_f64(), Value::F64),
        _ => go!(i32, |v: Value| v.as_f64() as i32, |x: i32| Value::Int(
            x as i128,
            ScalarTy::I32
        )),
    }
}

/// Whether `got` is `want` within the stated tolerance (`scale` widens it, for sums).
fn close(got: Value, want: Value, scale: f64) -> bool {
    match (got, want) {
        (Value::F32(g), Value::F32(w)) => {
            (g.is_nan() && w.is_nan())
                || ((g - w).abs() as f64) <= 1e-4 * scale * (w.abs() as f64).max(1.0)
        }
        (Value::F64(g), Value::F64(w)) => {
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-11 * scale * w.abs().max(1.0)
        }
        (g, w) => g == w,
    }
}

/// How case `c` differs between the GPU and the interpreter, or `None` when it does not.
/// A generated case that does not type-check or run in the interpreter is a failure; a
/// shrinking `candidate` that does not (an index simplified out of bounds, a division by a
/// literal 0) is just no failing case.
fn differs(gpu: mint::Device, c: &generate::Case, candidate: bool) -> Option<String> {
    let seed = c.seed;
    let mut k = c.kernel.clone();
    if let Err(e) = mint_translator::check(&mut k) {
        return (!candidate).then(|| format!("seed {seed}: does not type-check: {e:?}"));
    }
    let mut want = c.arrays.clone();
    let red_want = interp::run(
        &k,
        Launch {
            arrays: &mut want,
            scalars: &c.scalars,
            bounds: &c.bounds,
            reduction: c.reduction,
        },
    );
    let red_want = match red_want {
        Ok(r) => r,
        Err(e) => {
            return (!candidate).then(|| format!("seed {seed}: the interpreter fails: {e}"));
        }
    };
    let fail = |what: String| {
        Some(format!(
            "seed {seed} ({:?}, tile {:?} chunk {:?}): {what}\n{}",
            k.options,
            c.tile,
            c.chunk,
            serde_json::to_string(&c.kernel).unwrap_or_default()
        ))
    };
    let (got, red_got) = match mint::with_device(gpu, || on_gpu(&k, c)) {
        Ok(r) => r,
        Err(e) => return fail(format!("launch: {e}")),
    };
    let mut diffs = Vec::new();
    for ((a, g), w) in k.arrays.iter().zip(&got).zip(&want) {
        let bad: Vec<usize> = (0..w.data.len())
            .filter(|&i| !close(g.data[i], w.data[i], 1.0))
            .collect();
        if let Some(&i) = bad.first() {
            diffs.push(format!(
                "`{}`: {} of {} elements differ, first {i} (of shape {:?}): GPU {:?}, interpreter {:?}; all that differ (index, GPU, interpreter): {:?}",
                a.name,
                bad.len(),
                w.data.len(),
                w.shape,
                g.data[i],
                w.data[i],
                bad.iter()
                    .take(12)
                    .map(|&j| (j, g.data[j].as_f64(), w.data[j].as_f64()))
                    .collect::<Vec<_>>()
            ));
        }
    }
    if !diffs.is_empty() {
        return fail(diffs.join("; "));
    }
    if let (Some(g), Some(w)) = (red_got, red_want) {
        // a sum of `points` terms associated differently
        let points: f64 = c.bounds.iter().map(|b| (b.1 - b.0) as f64).product();
        let g = match c.reduction {
            Some(init) => mint_testing::interp::combine(k.reduction.as_ref().unwrap().op, init, g),
            None => g,
        };
        if !close(g, w, points) {
            return fail(format!("reduction: GPU {g:?}, interpreter {w:?}"));
        }
    }
    None
}

#[test]
fn generated_kernels_on_the_gpu_equal_the_interpreter() {
    let Some(gpu) = common::gpu() else { return };
    let (first, n) = cases();
    let mut failures: Vec<String> = (first..first + n)
        .into_par_iter()
        .filter_map(|seed| differs(gpu, &generate::case(seed), false))
        .collect();
    // the boundary subscripts (their faces split for staging: `optimizer::faces`)
    let boundary: Vec<String> = (first..first + n)
        .into_par_iter()
        .filter_map(|seed| differs(gpu, &generate::boundary_case(seed), false))
        .map(|f| format!("boundary case {f}"))
        .collect();
    assert!(
        boundary.is_empty(),
        "{} of {n} generated boundary kernels differ on the GPU; the first:\n{}",
        boundary.len(),
        boundary[0]
    );
    failures.retain(|f| !f.is_empty());
    let seeds: Vec<&str> = failures
        .iter()
        .map(|f| f.lines().next().unwrap_or(""))
        .collect();
    if !failures.is_empty() {
        // shrink the first failing case and write it out as a regression test
        let seed: u64 = seeds[0]
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("seed");
        let c = generate::case(seed);
        let small = shrink::shrink(&c, 400, &mut |d| {
            !d.kernel.arrays.is_empty() && differs(gpu, d, true).is_some()
        });
        panic!(
            "{} of {n} generated kernels differ on the GPU:\n{}\nthe first in full:\n{}\n\
             shrunk from {} to {} IR nodes, as a regression test for tests/regressions.rs:\n{}",
            failures.len(),
            seeds.join("\n"),
            failures[0],
            shrink::size(&c),
            shrink::size(&small),
            shrink::regression_test(&small, &format!("fuzz_{seed}"))
        );
    }
    eprintln!("{n} generated kernels: the GPU equals the interpreter");
}
