//! Minimal regression tests for the bugs that `tests/fuzz.rs` found (issue #14). Each
//! region is the generated case shrunk by hand to the statements that fail, and each result
//! is compared with the same loops run serially in plain Rust. The note above each test
//! names the fuzz seed, what went wrong and where the fix is.

mod common;

use common::backends;
use ndarray::{Array1, Array3};

/// A small deterministic integer pattern in `-50..50` (a xorshift, so that neighbours differ).
fn ints(n: usize, seed: u64) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 100) as i32 - 50
        })
        .collect()
}

// ------------------------------------------------------------ seeds 12999, 16445, 7256, 18424
//
// ptxas 13.0 for sm_90 fuses `min(min(a, -a), b)` (and `max(max(a, -a), b)`, and
// `max(c, max(c, -b))` after inlining) on 32-bit integers into one three-operand `VIMNMX3`
// and drops the negation: the GPU returned `min(a, b)`. Fixed in the emitter
// (`emit/cexpr.rs`, `Helper::IMin`): integer min and max are computed on 64 bits, which
// ptxas lowers to a compare and a select.

#[mint::parallel]
fn min_max_of_negations(
    a: &Array1<i32>,
    b: &Array1<i32>,
    lo: &mut Array1<i32>,
    hi: &mut Array1<i32>,
    nested: &mut Array1<i32>,
) -> mint::Result<()> {
    let n = a.len();
    copy!(a, to_device);
    copy!(b, to_device);
    copy!(lo, to_device);
    copy!(hi, to_device);
    copy!(nested, to_device);
    #[mint::r#for(tile(64))]
    for x in 1..n - 2 {
        lo[x] = a[x - 1].min(-a[x - 1]).min(b[x + 2]);
        hi[x] = a[x].max(-a[x]).max(b[x]);
        nested[x] = a[x].max(a[x].max(-b[x + 1]));
    }
    copy!(lo, from_device);
    copy!(hi, from_device);
    copy!(nested, from_device);
    Ok(())
}

#[test]
fn integer_min_and_max_of_a_value_and_its_negation() {
    let n = 4099;
    let a = Array1::from(ints(n, 1));
    let b = Array1::from(ints(n, 2));
    let (mut lo0, mut hi0, mut nested0) = (
        Array1::<i32>::zeros(n),
        Array1::<i32>::zeros(n),
        Array1::<i32>::zeros(n),
    );
    for x in 1..n - 2 {
        lo0[x] = a[x - 1].min(-a[x - 1]).min(b[x + 2]);
        hi0[x] = a[x].max(-a[x]).max(b[x]);
        nested0[x] = a[x].max(a[x].max(-b[x + 1]));
    }
    for d in backends() {
        let (mut lo, mut hi, mut nested) = (
            Array1::<i32>::zeros(n),
            Array1::<i32>::zeros(n),
            Array1::<i32>::zeros(n),
        );
        mint::with_device(d, || {
            min_max_of_negations(&a, &b, &mut lo, &mut hi, &mut nested)
        })
        .unwrap();
        assert_eq!(lo, lo0, "{d:?}: min(min(a, -a), b)");
        assert_eq!(hi, hi0, "{d:?}: max(max(a, -a), b)");
        assert_eq!(nested, nested0, "{d:?}: max(a, max(a, -b))");
    }
}

// ------------------------------------------------------------------------------ seed 21045
//
// NVVM 13.0 turns `if c { acc[i] } else { a1[j] }` into one load through a selected pointer
// and marks it non-coherent (`ld.global.nc`) because `a1` is read-only, although `acc` is
// written at the same point just before; ptxas then moves the load above that store and the
// select saw the old `acc`. Fixed in the emitter (`emit/cexpr.rs`, `ExprKind::Select`):
// reads of written arrays in a select whose arms both read arrays are volatile.

#[mint::parallel]
fn select_after_write(
    a0: &Array3<i32>,
    acc: &mut Array3<i32>,
    a1: &Array3<i32>,
    a3: &Array3<i32>,
    s0: i32,
) -> mint::Result<i32> {
    let (nz, ny, nx) = acc.dim();
    let mut total = i32::MIN;
    copy!(a0, to_device);
    copy!(acc, to_device);
    copy!(a1, to_device);
    copy!(a3, to_device);
    #[mint::r#for(nest(all), tile(32, 8), reduction(max: total))]
    for z in 1..nz - 1 {
        for y in 2..ny - 1 {
            for x in 2..nx - 1 {
                acc[[z, y, x]] += -a0[[z, y - 1, x]] - a0[[z, y - 2, x - 2]] * s0;
                let v = if a1[[z - 1, y - 1, x]] >= a3[[z, y, x]] {
                    acc[[z, y, x]]
                } else {
                    a1[[z - 1, y, x]]
                };
                total = total.max(v >> 2);
            }
        }
    }
    copy!(acc, from_device);
    Ok(total)
}

#[test]
fn a_select_sees_the_write_of_its_own_point() {
    let (nz, ny, nx) = (9, 13, 37);
    let field = |seed| Array3::from_shape_vec((nz, ny, nx), ints(nz * ny * nx, seed)).unwrap();
    let (a0, acc_in, a1, a3) = (field(3), field(4), field(5), field(6));
    let s0 = 7;
    let mut acc0 = acc_in.clone();
    let mut total0 = i32::MIN;
    for z in 1..nz - 1 {
        for y in 2..ny - 1 {
            for x in 2..nx - 1 {
                acc0[[z, y, x]] += -a0[[z, y - 1, x]] - a0[[z, y - 2, x - 2]] * s0;
                let v = if a1[[z - 1, y - 1, x]] >= a3[[z, y, x]] {
                    acc0[[z, y, x]]
                } else {
                    a1[[z - 1, y, x]]
                };
                total0 = total0.max(v >> 2);
            }
        }
    }
    for d in backends() {
        let mut acc = acc_in.clone();
        let total =
            mint::with_device(d, || select_after_write(&a0, &mut acc, &a1, &a3, s0)).unwrap();
        assert_eq!(acc, acc0, "{d:?}: acc");
        assert_eq!(total, total0, "{d:?}: max reduction");
    }
}

// ------------------------------------------------------------------------------- seed 3501
//
// A max reduction over a 128x8 tile with an 8-deep z chunk kept 4 shared slots of an f64
// array (41.6 KiB, dynamic) beside the reduction's 8 KiB of static scratch: 49.6 KiB, over
// the 48 KiB a block gets without opting in, and the launch failed with
// CUDA_ERROR_INVALID_VALUE. Fixed in the runtime (`variant.rs`): the opt-in now counts static
// and dynamic shared memory together.

#[mint::parallel(shared = 3, register, vectorize)]
fn big_shared_reduction(a: &Array3<f64>) -> mint::Result<f64> {
    let (nz, ny, nx) = a.dim();
    let mut top = f64::NEG_INFINITY;
    copy!(a, to_device);
    #[mint::r#for(nest(all), tile(128, 8, 8), chunksize(1, 1, 8), reduction(max: top))]
    for z in 1..nz - 1 {
        for y in 2..ny {
            for x in 1..nx - 1 {
                let mut s = 1.0;
                for _k in 0..3 {
                    s += a[[z - 1, y, x + 1]] * a[[z, y, x - 1]];
                }
                let v = s + 2.0 * a[[z - 1, y, x]] + a[[z, y - 2, x - 1]] - a[[z + 1, y, x]];
                top = top.max(v);
            }
        }
    }
    Ok(top)
}

#[test]
fn a_reduction_beside_more_than_48_kib_of_shared_planes() {
    let (nz, ny, nx) = (19, 21, 141);
    let a = Array3::from_shape_vec(
        (nz, ny, nx),
        ints(nz * ny * nx, 7)
            .into_iter()
            .map(|v| v as f64 / 8.0)
            .collect(),
    )
    .unwrap();
    let mut top0 = f64::NEG_INFINITY;
    for z in 1..nz - 1 {
        for y in 2..ny {
            for x in 1..nx - 1 {
                let mut s = 1.0;
                for _k in 0..3 {
                    s += a[[z - 1, y, x + 1]] * a[[z, y, x - 1]];
                }
                let v = s + 2.0 * a[[z - 1, y, x]] + a[[z, y - 2, x - 1]] - a[[z + 1, y, x]];
                top0 = top0.max(v);
            }
        }
    }
    // the case is only a regression test while it needs the opt-in
    let site = mint::kernel_sites()
        .find(|s| s.name == "big_shared_reduction_0")
        .expect("kernel site");
    let t = site.translate(&mint::Target::default()).unwrap();
    let bytes = t.dynamic_shared_bytes + t.static_shared_bytes;
    assert!(
        bytes > 48 * 1024 && t.static_shared_bytes > 0,
        "{} + {} bytes of shared memory\n{}",
        t.dynamic_shared_bytes,
        t.static_shared_bytes,
        t.source.lines().take(6).collect::<Vec<_>>().join("\n")
    );
    for d in backends() {
        let top = mint::with_device(d, || big_shared_reduction(&a)).unwrap();
        // every value is a multiple of 1/16 well inside f64's exact range: the sums are exact
        assert_eq!(top, top0, "{d:?}");
    }
}
