//! Device functions (`#[mint::device]`): called from kernels and from host code, nested,
//! scalar-only and array-taking; each result is compared with serial Rust, and a kernel
//! written with device functions generates the same CUDA as the same kernel inlined by
//! hand, at every optimization level.

mod common;

use common::{backends, max_rel_err, rnd};
use ndarray::{Array1, Array3};

/// The staggered 4th-order difference along x (AWP-ODC's `c1 * (a[x+1] - a[x]) + c2 *
/// (a[x+2] - a[x-1])`, thesis Sec. 7.1).
#[mint::device]
fn dx4(a: &Array3<f32>, z: usize, y: usize, x: usize) -> f32 {
    1.125 * (a[[z, y, x + 1]] - a[[z, y, x]]) - (a[[z, y, x + 2]] - a[[z, y, x - 1]]) / 24.0
}

/// The same along y.
#[mint::device]
fn dy4(a: &Array3<f32>, z: usize, y: usize, x: usize) -> f32 {
    1.125 * (a[[z, y, x]] - a[[z, y - 1, x]]) - (a[[z, y + 1, x]] - a[[z, y - 2, x]]) / 24.0
}

/// The harmonic average of two moduli, with a local.
#[mint::device]
fn harmonic(a: f32, b: f32) -> f32 {
    let s = a + b;
    if s > 0.0 { 2.0 * a * b / s } else { 0.0 }
}

/// Nested calls: a divergence built from the two differences.
#[mint::device]
fn div2(u: &Array3<f32>, v: &Array3<f32>, z: usize, y: usize, x: usize) -> f32 {
    dx4(u, z, y, x) + dy4(v, z, y, x)
}

mod ops {
    use ndarray::Array1;

    /// A 1-D 3-point average, reached through a module path.
    #[mint::device]
    pub fn avg3(a: &Array1<f64>, i: usize) -> f64 {
        (a[i - 1] + a[i] + a[i + 1]) / 3.0
    }
}

/// A function with a loop: it must be called as the value of a `let`.
#[mint::device]
fn window_sum(a: &Array1<f64>, i: usize, r: usize) -> f64 {
    let mut s = 0.0;
    for k in i - r..=i + r {
        s += a[k];
    }
    s
}

macro_rules! pair {
    ($with:ident, $inlined:ident, [$($opt:tt)*], [$($clause:tt)*]) => {
        #[mint::parallel($($opt)*)]
        fn $with(u: &mut Array3<f32>, v: &Array3<f32>, w: &Array3<f32>, mu: &Array3<f32>) {
            let (nz, ny, nx) = u.dim();
            copy!(u, to_device);
            copy!(v, to_device);
            copy!(w, to_device);
            copy!(mu, to_device);
            #[mint::r#for(nest(all), $($clause)*)]
            for z in 2..nz - 2 {
                for y in 2..ny - 2 {
                    for x in 2..nx - 2 {
                        u[[z, y, x]] += harmonic(mu[[z, y, x]], mu[[z, y, x + 1]])
                            * div2(&v, &w, z, y, x);
                    }
                }
            }
            copy!(u, from_device);
        }

        #[mint::parallel($($opt)*)]
        fn $inlined(u: &mut Array3<f32>, v: &Array3<f32>, w: &Array3<f32>, mu: &Array3<f32>) {
            let (nz, ny, nx) = u.dim();
            copy!(u, to_device);
            copy!(v, to_device);
            copy!(w, to_device);
            copy!(mu, to_device);
            #[mint::r#for(nest(all), $($clause)*)]
            for z in 2..nz - 2 {
                for y in 2..ny - 2 {
                    for x in 2..nx - 2 {
                        u[[z, y, x]] += (if mu[[z, y, x]] + mu[[z, y, x + 1]] > 0.0 {
                            2.0 * mu[[z, y, x]] * mu[[z, y, x + 1]]
                                / (mu[[z, y, x]] + mu[[z, y, x + 1]])
                        } else {
                            0.0
                        }) * ((1.125 * (v[[z, y, x + 1]] - v[[z, y, x]])
                            - (v[[z, y, x + 2]] - v[[z, y, x - 1]]) / 24.0)
                            + (1.125 * (w[[z, y, x]] - w[[z, y - 1, x]])
                                - (w[[z, y + 1, x]] - w[[z, y - 2, x]]) / 24.0));
                    }
                }
            }
            copy!(u, from_device);
        }
    };
}

pair!(base_call, base_hand, [], [tile(16, 4, 1)]);
pair!(shared_call, shared_hand, [shared = 8], [tile(32, 4, 1)]);
pair!(
    register_call,
    register_hand,
    [register],
    [tile(32, 4, 4), chunksize(1, 1, 4)]
);
pair!(
    both_call,
    both_hand,
    [shared = 8, register],
    [tile(32, 8, 8), chunksize(1, 1, 8)]
);
pair!(
    unroll_call,
    unroll_hand,
    [shared, register, unroll],
    [tile(32, 4, 1)]
);
pair!(
    vector_call,
    vector_hand,
    [vectorize],
    [tile(64, 4, 4), chunksize(1, 1, 4)]
);
pair!(
    vector_reg_call,
    vector_reg_hand,
    [vectorize, register, shared = 2],
    [tile(64, 4, 8), chunksize(1, 1, 8)]
);

type Region = fn(&mut Array3<f32>, &Array3<f32>, &Array3<f32>, &Array3<f32>);

const PAIRS: [(&str, Region, &str, Region); 7] = [
    ("base_call", base_call, "base_hand", base_hand),
    ("shared_call", shared_call, "shared_hand", shared_hand),
    (
        "register_call",
        register_call,
        "register_hand",
        register_hand,
    ),
    ("both_call", both_call, "both_hand", both_hand),
    ("unroll_call", unroll_call, "unroll_hand", unroll_hand),
    ("vector_call", vector_call, "vector_hand", vector_hand),
    (
        "vector_reg_call",
        vector_reg_call,
        "vector_reg_hand",
        vector_reg_hand,
    ),
];

fn fields(n: usize) -> [Array3<f32>; 4] {
    let f = |seed: u64, lo: f32| {
        Array3::from_shape_fn((n, n + 3, n + 7), move |(z, y, x)| {
            lo + rnd(z * 10_000 + y * 100 + x, seed) as f32
        })
    };
    [f(11, 0.0), f(12, 0.0), f(13, 0.0), f(14, 0.5)]
}

/// The update of the pairs, in serial Rust with the device functions called on the host.
fn serial(u: &mut Array3<f32>, v: &Array3<f32>, w: &Array3<f32>, mu: &Array3<f32>) {
    let (nz, ny, nx) = u.dim();
    for z in 2..nz - 2 {
        for y in 2..ny - 2 {
            for x in 2..nx - 2 {
                u[[z, y, x]] += harmonic(mu[[z, y, x]], mu[[z, y, x + 1]]) * div2(v, w, z, y, x);
            }
        }
    }
}

#[test]
fn kernels_calling_device_functions_match_serial_rust_at_every_level() {
    let [u0, v, w, mu] = fields(12);
    let mut want = u0.clone();
    serial(&mut want, &v, &w, &mu);
    for d in backends() {
        for (name, with, hand_name, hand) in PAIRS {
            let mut a = u0.clone();
            mint::with_device(d, || with(&mut a, &v, &w, &mu));
            let mut b = u0.clone();
            mint::with_device(d, || hand(&mut b, &v, &w, &mu));
            let e = max_rel_err(&a, &want);
            // f32; the GPU may contract a * b + c into one fused multiply-add
            assert!(e <= 1e-5, "{d:?} {name}: {e}");
            if !common::is_cpu(d) {
                // the same CUDA: the same bits
                assert!(a == b, "{d:?}: {name} and {hand_name} differ");
            }
        }
    }
}

/// The CUDA of a kernel site, with the kernel's own names taken out.
fn cuda_of(region: &str) -> String {
    let site = mint::kernel_sites()
        .find(|s| s.name == format!("{region}_0"))
        .unwrap_or_else(|| panic!("kernel site of {region}"));
    let t = site
        .translate(&mint::Target::default())
        .unwrap_or_else(|e| panic!("{region}: {e}"));
    t.source
        .lines()
        .filter(|l| !l.starts_with("// Mint for Rust: kernel"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(region, "REGION")
}

#[test]
fn a_device_function_generates_the_cuda_of_the_hand_inlined_kernel() {
    let [u0, v, w, mu] = fields(10);
    for (name, with, hand_name, hand) in PAIRS {
        // a run on the CPU backend records the types the kernel is translated with
        let mut a = u0.clone();
        mint::with_device(mint::Device::Cpu, || with(&mut a, &v, &w, &mu));
        let mut b = u0.clone();
        mint::with_device(mint::Device::Cpu, || hand(&mut b, &v, &w, &mu));
        let (c, h) = (cuda_of(name), cuda_of(hand_name));
        assert_eq!(c, h, "{name} against {hand_name}");
        if mint::__rt::nvrtc_available() {
            mint::__rt::compile_only((9, 0), name, &c).unwrap();
        }
    }
}

#[mint::parallel]
fn smooth(a: &Array1<f64>, b: &mut Array1<f64>, r: usize) -> mint::Result<()> {
    let n = a.len();
    copy!(a, to_device);
    copy!(b, to_device);
    #[mint::r#for(tile(64))]
    for i in 3..n - 3 {
        let s = window_sum(&a, i, r);
        b[i] = ops::avg3(&a, i) + s;
    }
    copy!(b, from_device);
    Ok(())
}

#[test]
fn module_paths_and_functions_with_loops() {
    let n = 300;
    let a = Array1::from_shape_fn(n, |i| rnd(i, 15));
    let mut want = Array1::<f64>::zeros(n);
    for i in 3..n - 3 {
        want[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0 + (i - 2..=i + 2).map(|k| a[k]).sum::<f64>();
    }
    for d in backends() {
        let mut b = Array1::<f64>::zeros(n);
        mint::with_device(d, || smooth(&a, &mut b, 2)).unwrap();
        let e = max_rel_err(&b, &want);
        assert!(e <= 1e-12, "{d:?}: {e}");
    }
}

#[test]
fn device_functions_run_on_the_host_as_written() {
    let a = Array3::from_shape_fn((4, 5, 6), |(z, y, x)| (z * 100 + y * 10 + x) as f32);
    // a linear field: the 4th-order difference is exact
    assert_eq!(dx4(&a, 1, 2, 2), 1.0);
    assert_eq!(dy4(&a, 1, 2, 2), 10.0);
    assert_eq!(harmonic(1.0, 3.0), 1.5);
    assert_eq!(harmonic(0.0, 0.0), 0.0);
}

/// Writes through a `&mut` array parameter and returns the old value: a function with
/// statements, called as the value of a `let`.
#[mint::device]
fn take_and_scale(a: &mut Array1<f64>, i: usize, w: f64) -> f64 {
    let old = a[i];
    a[i] = w * old;
    old
}

#[mint::device]
fn sq(v: f64) -> f64 {
    v * v
}

#[mint::parallel]
fn mixed(a: &mut Array1<f64>, b: &mut Array1<f64>) -> mint::Result<f64> {
    let n = a.len();
    let mut total = 0.0f64;
    copy!(a, to_device);
    copy!(b, to_device);
    #[mint::r#for(tile(64))]
    for i in 0..n {
        let old = take_and_scale(&mut a, i, 0.5);
        b[i] = old + sq(a[i]);
    }
    #[mint::r#for(tile(64), reduction(+: total))]
    for i in 0..n {
        total += sq(b[i]);
    }
    #[mint::single]
    {
        a[0] = sq(b[1]) + ops::avg3(&b, 1);
    }
    copy!(a, from_device);
    copy!(b, from_device);
    Ok(total)
}

#[test]
fn mutable_array_parameters_reductions_and_single_blocks() {
    let n = 200;
    let a0 = Array1::from_shape_fn(n, |i| rnd(i, 16));
    let b0 = Array1::from_shape_fn(n, |i| rnd(i, 17));
    let (mut wa, mut wb) = (a0.clone(), b0.clone());
    for i in 0..n {
        let old = wa[i];
        wa[i] = 0.5 * old;
        wb[i] = old + wa[i] * wa[i];
    }
    let want_total: f64 = wb.iter().map(|v| v * v).sum();
    wa[0] = wb[1] * wb[1] + (wb[0] + wb[1] + wb[2]) / 3.0;
    for d in backends() {
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let total = mint::with_device(d, || mixed(&mut a, &mut b)).unwrap();
        assert!(max_rel_err(&a, &wa) <= 1e-12, "{d:?} a");
        assert!(max_rel_err(&b, &wb) <= 1e-12, "{d:?} b");
        // the parallel sum associates differently: a bound on reassociation of n terms
        assert!(
            (total - want_total).abs() <= 1e-13 * want_total * n as f64,
            "{d:?}: {total} vs {want_total}"
        );
    }
}

/// A parameter hidden by a local of its name (`let i = i + 1;`) in a function that is not
/// one expression (it has a `let mut`): the statements after the `let` name the local.
#[mint::device]
fn next_sum(a: &Array1<f64>, i: usize) -> f64 {
    let i = i + 1;
    let mut s = 0.0;
    s += a[i];
    s
}

#[mint::parallel]
fn shifted(a: &Array1<f64>, b: &mut Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    copy!(a, to_device);
    copy!(b, to_device);
    #[mint::r#for(tile(64))]
    for i in 1..n - 1 {
        let s = next_sum(&a, i);
        b[i] = s;
    }
    copy!(b, from_device);
    Ok(())
}

#[test]
fn a_local_hiding_a_parameter_is_read_after_its_let() {
    let n = 200;
    let a = Array1::from_shape_fn(n, |i| rnd(i, 7));
    let mut want = Array1::<f64>::zeros(n);
    for i in 1..n - 1 {
        want[i] = a[i + 1];
    }
    for d in backends() {
        let mut b = Array1::<f64>::zeros(n);
        mint::with_device(d, || shifted(&a, &mut b)).unwrap();
        assert!(b == want, "{d:?}");
    }
    // the inlined kernel reads `a` one element past the point, as the function does
    let site = mint::kernel_sites()
        .find(|s| s.name == "shifted_0")
        .expect("kernel site of shifted");
    let t = site.translate(&mint::Target::default()).unwrap();
    let reach = t.report.reaches.join("\n");
    assert!(reach.contains("+1"), "{reach}");
}
