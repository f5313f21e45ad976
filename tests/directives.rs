//! The five directives and their clauses, on every backend present: each region's result
//! is compared with the same loops run serially in plain Rust.

mod common;

use common::{backends, max_rel_err, rnd, tol};
use mint::Device;
use ndarray::{Array1, Array2, Array3};

// ---------------------------------------------------------------- 1-D, 2-D, 3-D nests

#[mint::parallel]
fn saxpy(x: &[f32], y: &mut Vec<f32>, a: f32) -> mint::Result<()> {
    let n = y.len();
    mint::copy!(x, to_device);
    mint::copy!(y, to_device);
    #[mint::r#for(tile(128))]
    for i in 0..n {
        y[i] += a * x[i];
    }
    mint::copy!(y, from_device);
    Ok(())
}

#[test]
fn one_dimensional_nest() {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| rnd(i, 1) as f32).collect();
    let y0: Vec<f32> = (0..n).map(|i| rnd(i, 2) as f32).collect();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(a, b)| 2.5f32 * a + b).collect();
    for d in backends() {
        let mut y = y0.clone();
        mint::with_device(d, || saxpy(&x, &mut y, 2.5)).unwrap();
        if common::is_cpu(d) {
            assert_eq!(
                y, want,
                "the CPU backend runs the same loop: identical results"
            );
        } else {
            // the GPU contracts a * x + y into one fused multiply-add
            let (g, w) = (Array1::from(y), Array1::from(want.clone()));
            assert!(
                max_rel_err(&g, &w) <= tol::<f32>(),
                "{d:?}: {}",
                max_rel_err(&g, &w)
            );
        }
    }
}

#[mint::parallel]
fn heat2d(
    u: &mut Array2<f32>,
    unew: &mut Array2<f32>,
    alpha: f32,
    steps: usize,
) -> mint::Result<()> {
    let (ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(32, 8))]
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                unew[[y, x]] = u[[y, x]]
                    + alpha
                        * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]
                            - 4.0 * u[[y, x]]);
            }
        }
        std::mem::swap(u, unew);
    }
    mint::copy!(u, from_device);
    Ok(())
}

fn heat2d_serial(u: &mut Array2<f32>, alpha: f32, steps: usize) {
    let (ny, nx) = u.dim();
    let mut v = u.clone();
    for _ in 0..steps {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                v[[y, x]] = u[[y, x]]
                    + alpha
                        * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]
                            - 4.0 * u[[y, x]]);
            }
        }
        std::mem::swap(u, &mut v);
    }
}

#[test]
fn two_dimensional_nest_f32_with_swaps() {
    // sizes that are not multiples of the tile
    let (ny, nx) = (45, 71);
    let init = Array2::from_shape_fn((ny, nx), |(y, x)| rnd(y * nx + x, 3) as f32);
    let mut want = init.clone();
    heat2d_serial(&mut want, 0.2, 5);
    for d in backends() {
        let mut u = init.clone();
        let mut unew = init.clone();
        mint::with_device(d, || heat2d(&mut u, &mut unew, 0.2, 5)).unwrap();
        let e = max_rel_err(&u, &want);
        assert!(e <= tol::<f32>(), "{d:?}: relative error {e}");
        if common::is_cpu(d) {
            assert_eq!(
                u, want,
                "the CPU backend runs the same loops: identical results"
            );
        }
    }
}

macro_rules! heat3d_region {
    ($name:ident, tile($($t:expr),*), chunksize($($c:expr),*)) => {
        #[mint::parallel]
        fn $name(u: &mut Array3<f64>, unew: &mut Array3<f64>, c0: f64, c1: f64, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile($($t),*), chunksize($($c),*))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = c0 * u[[z, y, x]]
                                + c1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]]
                                    + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

heat3d_region!(heat3d_plain, tile(16, 16, 1), chunksize(1, 1, 1));
heat3d_region!(heat3d_chunk_z, tile(16, 8, 16), chunksize(1, 1, 16));
heat3d_region!(heat3d_chunk_yz, tile(32, 8, 8), chunksize(1, 4, 8));
heat3d_region!(heat3d_chunk_x, tile(64, 4, 2), chunksize(2, 1, 1));

fn heat3d_serial(u: &mut Array3<f64>, c0: f64, c1: f64, steps: usize) {
    let (nz, ny, nx) = u.dim();
    let mut v = u.clone();
    for _ in 0..steps {
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    v[[z, y, x]] = c0 * u[[z, y, x]]
                        + c1 * (u[[z, y, x - 1]]
                            + u[[z, y, x + 1]]
                            + u[[z, y - 1, x]]
                            + u[[z, y + 1, x]]
                            + u[[z - 1, y, x]]
                            + u[[z + 1, y, x]]);
                }
            }
        }
        std::mem::swap(u, &mut v);
    }
}

type Heat3d = fn(&mut Array3<f64>, &mut Array3<f64>, f64, f64, usize) -> mint::Result<()>;

#[test]
fn three_dimensional_nests_with_chunking_in_x_y_z() {
    let (nz, ny, nx) = (23, 19, 37);
    let init = Array3::from_shape_fn((nz, ny, nx), |(z, y, x)| rnd((z * ny + y) * nx + x, 4));
    let mut want = init.clone();
    heat3d_serial(&mut want, 0.4, 0.1, 3);
    let variants: [(&str, Heat3d); 4] = [
        ("plain", heat3d_plain),
        ("chunk z", heat3d_chunk_z),
        ("chunk y, z", heat3d_chunk_yz),
        ("chunk x", heat3d_chunk_x),
    ];
    for d in backends() {
        for (what, f) in variants {
            let mut u = init.clone();
            let mut unew = init.clone();
            mint::with_device(d, || f(&mut u, &mut unew, 0.4, 0.1, 3)).unwrap();
            let e = max_rel_err(&u, &want);
            assert!(e <= tol::<f64>(), "{d:?} {what}: relative error {e}");
            if common::is_cpu(d) {
                assert_eq!(u, want, "{what}: the CPU backend runs the same loops");
            }
        }
    }
}

/// nest(2) on a triple loop: the innermost loop runs serially in each thread.
#[mint::parallel]
fn column_sums(a: &Array3<f64>, s: &mut Array2<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = a.dim();
    mint::copy!(a, to_device);
    mint::copy!(s, to_device, [ny, nx]);
    #[mint::r#for(nest(2), tile(8, 8))]
    for y in 0..ny {
        for x in 0..nx {
            let mut acc = 0.0;
            for z in 0..nz {
                acc += a[[z, y, x]];
            }
            s[[y, x]] = acc;
        }
    }
    mint::copy!(s, from_device);
    Ok(())
}

#[test]
fn serial_loops_inside_threads() {
    let (nz, ny, nx) = (9, 13, 11);
    let a = Array3::from_shape_fn((nz, ny, nx), |(z, y, x)| rnd((z * ny + y) * nx + x, 5));
    let want = Array2::from_shape_fn((ny, nx), |(y, x)| {
        (0..nz).fold(0.0, |acc, z| acc + a[[z, y, x]])
    });
    for d in backends() {
        let mut s = Array2::zeros((ny, nx));
        mint::with_device(d, || column_sums(&a, &mut s)).unwrap();
        assert!(max_rel_err(&s, &want) <= 1e-12, "{d:?}");
    }
}

// ---------------------------------------------------------------- reductions

macro_rules! reduce_region {
    ($name:ident, $t:ty, $op:tt, |$acc:ident, $v:ident| { $($upd:tt)* }) => {
        #[mint::parallel]
        fn $name(a: &Array2<$t>, init: $t) -> mint::Result<$t> {
            let (ny, nx) = a.dim();
            let mut $acc: $t = init;
            mint::copy!(a, to_device);
            #[mint::r#for(nest(all), tile(16, 4), reduction($op: $acc))]
            for y in 0..ny {
                for x in 0..nx {
                    let $v = a[[y, x]];
                    $($upd)*
                }
            }
            Ok($acc)
        }
    };
}

reduce_region!(sum_f64, f64, +, |acc, v| { acc += v; });
reduce_region!(sum_f32, f32, +, |acc, v| { acc += v; });
reduce_region!(sum_i32, i32, +, |acc, v| { acc += v; });
reduce_region!(sum_i64, i64, +, |acc, v| { acc += v; });
reduce_region!(sum_u32, u32, +, |acc, v| { acc += v; });
reduce_region!(prod_f64, f64, *, |acc, v| { acc *= v; });
reduce_region!(prod_f32, f32, *, |acc, v| { acc *= v; });
reduce_region!(prod_i64, i64, *, |acc, v| { acc *= v; });
reduce_region!(prod_u32, u32, *, |acc, v| { acc *= v; });
reduce_region!(prod_i32, i32, *, |acc, v| { acc *= v; });
reduce_region!(min_f64, f64, min, |acc, v| {
    acc = acc.min(v);
});
reduce_region!(min_f32, f32, min, |acc, v| {
    acc = acc.min(v);
});
reduce_region!(min_i32, i32, min, |acc, v| {
    acc = acc.min(v);
});
reduce_region!(min_i64, i64, min, |acc, v| {
    if v < acc {
        acc = v;
    }
});
reduce_region!(min_u32, u32, min, |acc, v| {
    acc = acc.min(v);
});
reduce_region!(max_f64, f64, max, |acc, v| {
    acc = acc.max(v);
});
reduce_region!(max_f32, f32, max, |acc, v| {
    acc = f32::max(acc, v);
});
reduce_region!(max_i32, i32, max, |acc, v| {
    acc = acc.max(v);
});
reduce_region!(max_i64, i64, max, |acc, v| {
    acc = acc.max(v);
});
reduce_region!(max_u32, u32, max, |acc, v| {
    if v > acc {
        acc = v;
    }
});

trait AsF64: Copy {
    fn f(self) -> f64;
}
macro_rules! as_f64 {
    ($($t:ty),*) => {$(impl AsF64 for $t { fn f(self) -> f64 { self as f64 } })*};
}
as_f64!(f32, f64, i32, i64, u32);

fn check_reduction<T: Copy + PartialEq + std::fmt::Debug + AsF64>(
    name: &str,
    f: fn(&Array2<T>, T) -> mint::Result<T>,
    a: &Array2<T>,
    init: T,
    want: T,
    exact: bool,
) {
    for d in backends() {
        let got = mint::with_device(d, || f(a, init)).unwrap();
        if exact {
            assert_eq!(got, want, "{name} on {d:?}");
        } else {
            let (g, w) = (got.f(), want.f());
            assert!(
                (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                "{name} on {d:?}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn every_reduction_operator_and_type() {
    // 37 x 53: blocks of the 16 x 4 tile are partly empty at the edges.
    let (ny, nx) = (37, 53);
    let f = Array2::from_shape_fn((ny, nx), |(y, x)| rnd(y * nx + x, 6) - 0.3);
    let near1 = f.mapv(|v| 1.0 + 0.01 * v);
    let ints = Array2::from_shape_fn((ny, nx), |(y, x)| {
        (rnd(y * nx + x, 7) * 2000.0) as i64 - 1000
    });
    let small = Array2::from_shape_fn((ny, nx), |(y, x)| {
        if (y * nx + x) % 97 == 0 {
            2 + (x % 2) as i64
        } else {
            1
        }
    });

    let f32a = f.mapv(|v| v as f32);
    let serial_sum = f.iter().fold(0.0, |s, v| s + v);
    check_reduction("sum f64", sum_f64, &f, 10.0, 10.0 + serial_sum, false);
    check_reduction(
        "sum f32",
        sum_f32,
        &f32a,
        1.0,
        1.0 + f32a.iter().fold(0.0f32, |s, v| s + v),
        false,
    );
    let i32a = ints.mapv(|v| v as i32);
    check_reduction(
        "sum i32",
        sum_i32,
        &i32a,
        5,
        5 + i32a.iter().sum::<i32>(),
        true,
    );
    check_reduction(
        "sum i64",
        sum_i64,
        &ints,
        -5,
        -5 + ints.iter().sum::<i64>(),
        true,
    );
    let u32a = ints.mapv(|v| v.unsigned_abs() as u32);
    check_reduction(
        "sum u32",
        sum_u32,
        &u32a,
        3,
        3 + u32a.iter().sum::<u32>(),
        true,
    );

    check_reduction(
        "prod f64",
        prod_f64,
        &near1,
        2.0,
        2.0 * near1.iter().product::<f64>(),
        false,
    );
    let near1_32 = near1.mapv(|v| v as f32);
    check_reduction(
        "prod f32",
        prod_f32,
        &near1_32,
        1.0,
        near1_32.iter().product::<f32>(),
        false,
    );
    check_reduction(
        "prod i64",
        prod_i64,
        &small,
        3,
        3 * small.iter().product::<i64>(),
        true,
    );
    let small32 = small.mapv(|v| v as u32);
    check_reduction(
        "prod u32",
        prod_u32,
        &small32,
        1,
        small32.iter().product::<u32>(),
        true,
    );
    let smalli32 = small.mapv(|v| v as i32);
    check_reduction(
        "prod i32",
        prod_i32,
        &smalli32,
        -1,
        -smalli32.iter().product::<i32>(),
        true,
    );

    let fmin = f.iter().cloned().fold(f64::INFINITY, f64::min);
    let fmax = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    check_reduction("min f64", min_f64, &f, 100.0, fmin, true);
    check_reduction("max f64", max_f64, &f, -100.0, fmax, true);
    check_reduction("min f32", min_f32, &f32a, 100.0, fmin as f32, true);
    check_reduction("max f32", max_f32, &f32a, -100.0, fmax as f32, true);
    check_reduction(
        "min i32",
        min_i32,
        &i32a,
        0,
        (*i32a.iter().min().unwrap()).min(0),
        true,
    );
    check_reduction(
        "max i32",
        max_i32,
        &i32a,
        0,
        (*i32a.iter().max().unwrap()).max(0),
        true,
    );
    check_reduction(
        "min i64",
        min_i64,
        &ints,
        7,
        *ints.iter().min().unwrap(),
        true,
    );
    check_reduction(
        "max i64",
        max_i64,
        &ints,
        7,
        *ints.iter().max().unwrap(),
        true,
    );
    check_reduction(
        "min u32",
        min_u32,
        &u32a,
        1 << 30,
        *u32a.iter().min().unwrap(),
        true,
    );
    check_reduction(
        "max u32",
        max_u32,
        &u32a,
        0,
        *u32a.iter().max().unwrap(),
        true,
    );
    // the initial value takes part, as in OpenMP
    check_reduction(
        "max u32 with a larger initial value",
        max_u32,
        &u32a,
        1 << 30,
        1 << 30,
        true,
    );
}

#[mint::parallel]
fn sum_empty(a: &Array1<f64>, lo: usize, hi: usize) -> mint::Result<f64> {
    let mut s = 1.5f64;
    mint::copy!(a, to_device);
    #[mint::r#for(reduction(+: s))]
    for i in lo..hi {
        s += a[i];
    }
    Ok(s)
}

#[test]
fn reduction_over_an_empty_range_keeps_the_initial_value() {
    let a = Array1::from_elem(10, 1.0);
    for d in backends() {
        assert_eq!(
            mint::with_device(d, || sum_empty(&a, 5, 5)).unwrap(),
            1.5,
            "{d:?}"
        );
        assert_eq!(
            mint::with_device(d, || sum_empty(&a, 2, 6)).unwrap(),
            5.5,
            "{d:?}"
        );
    }
}

// ---------------------------------------------------------------- nowait, barrier, single

#[mint::parallel]
fn two_streams(a: &mut Array1<f64>, b: &mut Array1<f64>, c: &mut Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    mint::copy!(b, to_device);
    mint::copy!(c, to_device);
    #[mint::r#for(nowait)]
    for i in 0..n {
        a[i] = (i as f64).sqrt();
    }
    #[mint::r#for(nowait)]
    for i in 0..n {
        b[i] = 2.0 * i as f64;
    }
    mint::barrier!();
    #[mint::r#for]
    for i in 0..n {
        c[i] = a[i] + b[i];
    }
    #[mint::single]
    {
        c[0] = c[n - 1] + 1.0;
    }
    mint::copy!(c, from_device);
    Ok(())
}

#[test]
fn nowait_barrier_and_single() {
    let n = 3000;
    let want = Array1::from_shape_fn(n, |i| {
        if i == 0 {
            ((n - 1) as f64).sqrt() + 2.0 * (n - 1) as f64 + 1.0
        } else {
            (i as f64).sqrt() + 2.0 * i as f64
        }
    });
    for d in backends() {
        let mut a = Array1::zeros(n);
        let mut b = Array1::zeros(n);
        let mut c = Array1::zeros(n);
        mint::with_device(d, || two_streams(&mut a, &mut b, &mut c)).unwrap();
        assert!(max_rel_err(&c, &want) <= 1e-15, "{d:?}");
    }
}

// ---------------------------------------------------------------- scalars, math, types

struct Params {
    alpha: f64,
    shift: i32,
}

#[mint::parallel]
fn mathy(
    a: &Array2<f64>,
    out: &mut Array2<f64>,
    bits: &mut Array2<u8>,
    p: &Params,
) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    let k = 3i64;
    mint::copy!(a, to_device);
    mint::copy!(out, to_device);
    mint::copy!(bits, to_device);
    #[mint::r#for(nest(all), tile(8, 8))]
    for y in 0..ny {
        for x in 0..=nx - 1 {
            let v = a[[y, x]];
            let w = if v > 0.5 { v.sqrt() } else { -v.exp() };
            let mut t = w.sin() * v.cos() + (1.0 + v).ln() + v.powi(3) - v.powf(0.25);
            t += f64::max(v, 0.3).mul_add(2.0, -v.abs()) + (v * 10.0).floor() / (y as f64 + 1.0);
            t += p.alpha * std::f64::consts::PI * (((x as i64 * k) % 7) as f64);
            let m = ((x << 2) & 12) as i32 + p.shift;
            t -= (m.abs() as f64).min(20.0);
            out[[y, x]] = t;
            bits[[y, x]] = bits[[y, x]].wrapping_add(200u8);
        }
    }
    mint::copy!(out, from_device);
    mint::copy!(bits, from_device);
    Ok(())
}

#[test]
fn math_methods_casts_fields_and_narrow_integers() {
    let (ny, nx) = (17, 29);
    let a = Array2::from_shape_fn((ny, nx), |(y, x)| rnd(y * nx + x, 8));
    let p = Params {
        alpha: 0.25,
        shift: -9,
    };
    let bits0 = Array2::from_shape_fn((ny, nx), |(y, x)| ((y * 31 + x * 7) % 256) as u8);
    let mut want = Array2::zeros((ny, nx));
    let mut want_bits = bits0.clone();
    for y in 0..ny {
        for x in 0..nx {
            let v = a[[y, x]];
            let w = if v > 0.5 { v.sqrt() } else { -v.exp() };
            let mut t = w.sin() * v.cos() + (1.0 + v).ln() + v.powi(3) - v.powf(0.25);
            t += f64::max(v, 0.3).mul_add(2.0, -v.abs()) + (v * 10.0).floor() / (y as f64 + 1.0);
            t += p.alpha * std::f64::consts::PI * (((x as i64 * 3) % 7) as f64);
            let m = ((x << 2) & 12) as i32 + p.shift;
            t -= (m.abs() as f64).min(20.0);
            want[[y, x]] = t;
            want_bits[[y, x]] = want_bits[[y, x]].wrapping_add(200);
        }
    }
    for d in backends() {
        let mut out = Array2::zeros((ny, nx));
        let mut bits = bits0.clone();
        mint::with_device(d, || mathy(&a, &mut out, &mut bits, &p)).unwrap();
        assert!(
            max_rel_err(&out, &want) <= 1e-12,
            "{d:?}: {}",
            max_rel_err(&out, &want)
        );
        assert_eq!(bits, want_bits, "{d:?}");
    }
}

#[mint::parallel]
fn runtime_tile(a: &mut Array2<f32>, tx: usize, cy: u32) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), tile(tx, 8), chunksize(1, cy))]
    for y in 0..ny {
        for x in 0..nx {
            a[[y, x]] = (y * 1000 + x) as f32;
        }
    }
    mint::copy!(a, from_device);
    Ok(())
}

#[test]
fn tile_and_chunksize_from_host_expressions() {
    let want = Array2::from_shape_fn((50, 70), |(y, x)| (y * 1000 + x) as f32);
    for d in backends() {
        for (tx, cy) in [(32, 1), (64, 2), (16, 8)] {
            let mut a = Array2::zeros((50, 70));
            mint::with_device(d, || runtime_tile(&mut a, tx, cy)).unwrap();
            assert_eq!(a, want, "{d:?} tile({tx}, 8) chunksize(1, {cy})");
        }
        // 3 does not divide 8: a run-time error naming the kernel, host data untouched
        let mut a = Array2::zeros((50, 70));
        let e = mint::with_device(d, || runtime_tile(&mut a, 32, 3));
        if !common::is_cpu(d) {
            let e = e.unwrap_err().to_string();
            assert!(
                e.contains("runtime_tile_0") && e.contains("does not divide"),
                "{e}"
            );
            assert!(a.iter().all(|&v| v == 0.0));
        }
    }
}

// ---------------------------------------------------------------- errors

#[mint::parallel]
fn with_shape(a: &mut Array2<f64>, ny: usize, nx: usize) -> mint::Result<()> {
    mint::copy!(a, to_device, [ny, nx]);
    #[mint::r#for(nest(all))]
    for y in 0..ny {
        for x in 0..nx {
            a[[y, x]] += 1.0;
        }
    }
    mint::copy!(a, from_device);
    Ok(())
}

#[test]
fn copy_checks_the_shape_it_is_given() {
    for d in backends() {
        let mut a = Array2::from_elem((4, 6), 2.0);
        mint::with_device(d, || with_shape(&mut a, 4, 6)).unwrap();
        assert!(a.iter().all(|&v| v == 3.0), "{d:?}");
        let e = mint::with_device(d, || with_shape(&mut a, 6, 4)).unwrap_err();
        match &e {
            mint::Error::ShapeMismatch {
                array,
                expected,
                found,
                ..
            } => {
                assert_eq!(array, "a");
                assert_eq!(expected, &vec![6, 4]);
                assert_eq!(found, &vec![4, 6]);
            }
            other => panic!("{d:?}: expected a shape mismatch, got {other}"),
        }
        assert!(a.iter().all(|&v| v == 3.0), "host data untouched");
    }
}

#[mint::parallel]
fn no_result(a: &mut Array1<f64>) {
    mint::copy!(a, to_device, [3]);
    mint::copy!(a, from_device);
}

#[test]
#[should_panic(expected = "array `a`")]
fn regions_without_result_panic_with_the_message() {
    let mut a = Array1::zeros(5);
    mint::with_device(Device::Cpu, || no_result(&mut a));
}

#[test]
fn demanding_cuda_without_a_device_is_an_error() {
    if mint::cuda_available() {
        eprintln!("skipped: a CUDA device is present");
        return;
    }
    let mut a = Array1::zeros(5);
    let e = mint::with_device(Device::Cuda(0), || sum_empty(&a, 0, 5)).unwrap_err();
    assert!(matches!(e, mint::Error::NoDevice { .. }), "{e}");
    a[0] = 1.0;
}

#[mint::parallel]
fn transposed(a: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all))]
    for y in 0..ny {
        for x in 0..nx {
            a[[y, x]] *= 2.0;
        }
    }
    mint::copy!(a, from_device);
    Ok(())
}

#[test]
fn non_standard_layouts_are_refused_on_the_device() {
    let base = Array2::from_shape_fn((5, 7), |(y, x)| (y * 7 + x) as f64);
    for d in backends() {
        let mut t = base.clone().reversed_axes();
        let r = mint::with_device(d, || transposed(&mut t));
        if d == Device::Cpu {
            // the CPU backend indexes any layout
            r.unwrap();
            assert_eq!(t, base.t().mapv(|v| 2.0 * v));
        } else {
            // emulated devices copy as GPUs do
            assert!(
                matches!(r, Err(mint::Error::NotStandardLayout { .. })),
                "{d:?}: {r:?}"
            );
            assert_eq!(t, base.t(), "host data untouched");
        }
    }
}

// ---------------------------------------------------------------- copy!(x, alloc)

/// `b` lives on the device from `copy!(b, alloc)`: its contents are what the first
/// kernel writes, not the host's.
#[mint::parallel]
fn scale_into(a: &Array2<f64>, b: &mut Array2<f64>, c: f64) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    mint::copy!(b, alloc);
    #[mint::r#for(nest(all), tile(16, 8))]
    for y in 0..ny {
        for x in 0..nx {
            b[[y, x]] = c * a[[y, x]];
        }
    }
    #[mint::r#for(nest(all), tile(16, 8))]
    for y in 0..ny {
        for x in 0..nx {
            b[[y, x]] += 1.0;
        }
    }
    mint::copy!(b, from_device);
    Ok(())
}

#[test]
fn allocated_arrays_take_what_kernels_write() {
    let a = Array2::from_shape_fn((13, 21), |(y, x)| rnd(y * 21 + x, 4));
    let want = a.mapv(|v| 0.75 * v + 1.0);
    let mut devices = backends();
    if common::gpu().is_some() {
        devices.extend(common::gpu_splits());
    }
    for d in devices {
        // the host's values must not reach the device
        let mut b = Array2::from_elem((13, 21), f64::NAN);
        mint::with_device(d, || scale_into(&a, &mut b, 0.75)).unwrap();
        assert!(
            b.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()),
            "{d:?}"
        );
    }
}

/// Writes `b`, whose first `copy!` brings it back: it was never on the device.
#[mint::parallel]
fn write_never_copied(a: &Array2<f64>, b: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), tile(16, 8))]
    for y in 0..ny {
        for x in 0..nx {
            b[[y, x]] = a[[y, x]];
        }
    }
    mint::copy!(b, from_device);
    Ok(())
}

#[test]
fn every_backend_refuses_an_array_that_never_went_to_the_device() {
    let a = Array2::from_shape_fn((9, 10), |(y, x)| rnd(y * 10 + x, 5));
    let mut devices = backends();
    if common::gpu().is_some() {
        devices.extend(common::gpu_splits());
    }
    for d in devices {
        let mut b = Array2::from_elem((9, 10), 7.0);
        match mint::with_device(d, || write_never_copied(&a, &mut b)) {
            Err(mint::Error::NotOnDevice { array, when }) => {
                assert_eq!(array, "b", "{d:?}");
                assert!(when.contains("write_never_copied"), "{d:?}: {when}");
            }
            other => panic!("{d:?}: expected NotOnDevice, got {other:?}"),
        }
        assert!(b.iter().all(|&v| v == 7.0), "{d:?}: the host array changed");
    }
}
