//! The translator's IR-to-IR passes run in the interpreter (`mint_testing::interp`):
//! the face lifting (`optimizer::faces::lift`) computes what the kernel as written does,
//! and the owner-computes lowering (`owner::lower`) on two devices computes what one
//! device does.

use mint_testing::interp::{self, Array, Launch, Value};
use mint_testing::{generate::boundary_case, kernel};
use mint_translator::ir::{Kernel, ScalarTy};
use mint_translator::optimizer::faces::lift;
use mint_translator::owner::{FAULT_OWNED_WRITE, FAULT_WORDS, lower};

/// Every generated boundary case computes the same bits lifted as written, in the
/// interpreter; and the thermal benchmark's clamp is split into stencil points.
#[test]
fn lifted_kernels_compute_what_they_did() {
    let mut lifted = 0;
    for seed in 1..=600 {
        let c = boundary_case(seed);
        let Some((l, n)) = lift(&c.kernel) else {
            continue;
        };
        lifted += n;
        let run = |k: &Kernel| {
            let mut k = k.clone();
            mint_translator::check(&mut k).unwrap_or_else(|d| panic!("seed {seed}: {d:?}"));
            let mut arrays = c.arrays.clone();
            interp::run(
                &k,
                Launch {
                    arrays: &mut arrays,
                    scalars: &c.scalars,
                    bounds: &c.bounds,
                    reduction: None,
                },
            )
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            arrays
        };
        let bits = |a: Vec<interp::Array>| -> Vec<Vec<u64>> {
            a.iter()
                .map(|a| {
                    a.data
                        .iter()
                        .map(|v| match v {
                            Value::F32(x) => x.to_bits() as u64,
                            Value::F64(x) => x.to_bits(),
                            o => o.as_f64().to_bits(),
                        })
                        .collect()
                })
                .collect()
        };
        assert!(bits(run(&c.kernel)) == bits(run(&l)), "seed {seed}");
    }
    assert!(lifted > 300, "only {lifted} references lifted");
}

/// Runs `k` (lowered or not) on `arrays` over `bounds`; `extra` are the lowered
/// kernel's added scalars.
fn interpret(
    k: &Kernel,
    arrays: &mut [Array],
    bounds: &[(i64, i64)],
    extra: &[Value],
) -> Option<Value> {
    let mut k = k.clone();
    mint_translator::check(&mut k).unwrap_or_else(|d| panic!("{d:?}"));
    interp::run(
        &k,
        Launch {
            arrays,
            scalars: extra,
            bounds,
            reduction: None,
        },
    )
    .unwrap()
}

fn array3(nz: usize, f: impl Fn(usize) -> f64) -> Array {
    Array {
        elem: ScalarTy::F64,
        shape: vec![nz, 3, 4],
        data: (0..nz * 12).map(|i| Value::F64(f(i))).collect(),
    }
}

/// The kernel on one device, and lowered on each of two devices holding planes
/// `held[d]` and owning `owned[d]` of the 6 planes of `u` (array 0), every plane a
/// device does not hold filled with a poison value: the owned planes gathered (and
/// the reductions summed in device order) equal one device, and the fault records.
fn two_devices(
    text: &str,
    bounds: &[(i64, i64)],
    others: Vec<Array>,
) -> (Array, Array, Option<Value>, Option<Value>, Vec<Vec<i64>>) {
    let k = kernel("t", text);
    let u0 = array3(6, |i| (i * 7 % 11) as f64);
    let mut one: Vec<Array> = std::iter::once(u0.clone()).chain(others.clone()).collect();
    let r1 = interpret(&k, &mut one, bounds, &[]);
    let dist: Vec<bool> = (0..k.arrays.len()).map(|i| i == 0).collect();
    let low = lower(&k, &dist);
    let (owned, held) = ([(0i64, 3i64), (3, 6)], [(0i64, 4i64), (2, 6)]);
    let mut gathered = u0.clone();
    let mut total: Option<Value> = None;
    let mut faults = Vec::new();
    for d in 0..2 {
        let mut u = u0.clone();
        for (i, v) in u.data.iter_mut().enumerate() {
            let z = (i / 12) as i64;
            if z < held[d].0 || z >= held[d].1 {
                *v = Value::F64(1e300);
            }
        }
        let fault = Array {
            elem: ScalarTy::I64,
            shape: vec![FAULT_WORDS],
            data: vec![Value::Int(0, ScalarTy::I64); FAULT_WORDS],
        };
        let mut arrays: Vec<Array> = std::iter::once(u).chain(others.clone()).collect();
        arrays.push(fault);
        let extra = [
            Value::Int(held[d].0 as i128, ScalarTy::I64),
            Value::Int(held[d].1 as i128, ScalarTy::I64),
            Value::Int(owned[d].0 as i128, ScalarTy::I64),
            Value::Int(owned[d].1 as i128, ScalarTy::I64),
            Value::Bool(d == 0),
        ];
        let r = interpret(&low, &mut arrays, bounds, &extra);
        total = match (total, r) {
            (Some(a), Some(b)) => Some(Value::F64(a.as_f64() + b.as_f64())),
            (a, b) => a.or(b),
        };
        for z in owned[d].0 as usize..owned[d].1 as usize {
            gathered.data[z * 12..z * 12 + 12]
                .copy_from_slice(&arrays[0].data[z * 12..z * 12 + 12]);
        }
        faults.push(
            arrays
                .last()
                .unwrap()
                .data
                .iter()
                .map(|v| v.as_f64() as i64)
                .collect(),
        );
    }
    (one.swap_remove(0), gathered, r1, total, faults)
}

#[test]
fn lowered_kernels_on_two_devices_equal_one_device_in_the_interpreter() {
    // a boundary plane that device 0 owns, from planes it holds
    let (want, got, _, _, faults) = two_devices(
        "arrays: u f64 3
         nest: y 0..3, x 0..4
         u[0][y][x] = u[1][y][x] + u[2][y][x];",
        &[(0, 3), (0, 4)],
        vec![],
    );
    assert_eq!(got, want);
    assert!(faults.iter().all(|f| f[0] == 0), "{faults:?}");
    // indirect sources on both slabs (planes 0, 2, 3, 5)
    let k = Array {
        elem: ScalarTy::Usize,
        shape: vec![4],
        data: [0, 2, 3, 5]
            .map(|v| Value::Int(v, ScalarTy::Usize))
            .to_vec(),
    };
    let amp = Array {
        elem: ScalarTy::F64,
        shape: vec![4],
        data: [1.5, 2.5, 3.5, 4.5].map(Value::F64).to_vec(),
    };
    let (want, got, _, _, faults) = two_devices(
        "arrays: u f64 3, k usize 1, amp f64 1
         nest: s 0..4
         u[k[s]][2][3] += amp[s];",
        &[(0, 4)],
        vec![k, amp],
    );
    assert_eq!(got, want);
    assert!(faults.iter().all(|f| f[0] == 0), "{faults:?}");
    // a reduction over plane 5: counted once, by its owner (device 1)
    let (_, _, want, got, faults) = two_devices(
        "arrays: u f64 3
         nest: y 0..3, x 0..4
         reduction: +: total
         total += u[5][y][x] * 2.0 + 1.0;",
        &[(0, 3), (0, 4)],
        vec![],
    );
    assert_eq!(got.map(|v| v.as_f64()), want.map(|v| v.as_f64()));
    assert!(faults.iter().all(|f| f[0] == 0), "{faults:?}");
}

#[test]
fn an_owned_write_from_a_plane_not_held_is_a_fault() {
    // device 0 owns plane 0 but does not hold plane 5
    let (_, _, _, _, faults) = two_devices(
        "arrays: u f64 3
         nest: y 0..3, x 0..4
         u[0][y][x] = u[5][y][x];",
        &[(0, 3), (0, 4)],
        vec![],
    );
    assert_eq!(faults[0][0], FAULT_OWNED_WRITE, "{faults:?}");
    assert_eq!(faults[0][2], 5, "the plane read");
    assert_eq!(faults[0][3], 0, "the plane written");
    assert_eq!(faults[1][0], 0, "device 1 owns nothing written: {faults:?}");
}
