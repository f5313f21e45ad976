//! One source for f32 and f64: regions and device functions generic over
//! `T: mint::Real`, instantiated at both precisions and compared with serial Rust written
//! for each precision separately.

mod common;

use common::{backends, max_rel_err, rnd};
use mint::Real;
use ndarray::Array3;

/// The arithmetic average, generic.
#[mint::device]
fn avg2<T: Real>(a: T, b: T) -> T {
    T::new(0.5) * (a + b)
}

/// A 2nd-order Laplacian along x and y of a generic array.
#[mint::device]
fn lap_xy<T: Real>(a: &Array3<T>, z: usize, y: usize, x: usize) -> T {
    a[[z, y, x - 1]] + a[[z, y, x + 1]] + a[[z, y - 1, x]] + a[[z, y + 1, x]]
        - T::new(4.0) * a[[z, y, x]]
}

/// Explicit diffusion with a variable coefficient, generic over the precision.
#[mint::parallel(shared = 8, register)]
fn diffuse<T: Real>(
    u: &mut Array3<T>,
    v: &mut Array3<T>,
    k: &Array3<T>,
    dt: T,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    copy!(u, to_device);
    copy!(v, to_device);
    copy!(k, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(32, 4, 1))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let kx = avg2(k[[z, y, x]], k[[z, y, x + 1]]);
                    let dzz = u[[z - 1, y, x]] - T::new(2.0) * u[[z, y, x]] + u[[z + 1, y, x]];
                    v[[z, y, x]] = u[[z, y, x]] + dt * kx * (lap_xy(&u, z, y, x) + dzz);
                    if v[[z, y, x]] < T::new(0.0) {
                        v[[z, y, x]] = T::max(v[[z, y, x]], -u[[z, y, x]].abs());
                    }
                }
            }
        }
        std::mem::swap(u, v);
    }
    copy!(u, from_device);
    Ok(())
}

macro_rules! serial {
    ($name:ident, $t:ty) => {
        fn $name(u: &mut Array3<$t>, v: &mut Array3<$t>, k: &Array3<$t>, dt: $t, steps: usize) {
            let (nz, ny, nx) = u.dim();
            for _ in 0..steps {
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            let kx = 0.5 * (k[[z, y, x]] + k[[z, y, x + 1]]);
                            let dzz = u[[z - 1, y, x]] - 2.0 * u[[z, y, x]] + u[[z + 1, y, x]];
                            let lap = u[[z, y, x - 1]]
                                + u[[z, y, x + 1]]
                                + u[[z, y - 1, x]]
                                + u[[z, y + 1, x]]
                                - 4.0 * u[[z, y, x]];
                            v[[z, y, x]] = u[[z, y, x]] + dt * kx * (lap + dzz);
                            if v[[z, y, x]] < 0.0 {
                                v[[z, y, x]] = v[[z, y, x]].max(-u[[z, y, x]].abs());
                            }
                        }
                    }
                }
                std::mem::swap(u, v);
            }
        }
    };
}
serial!(serial_f32, f32);
serial!(serial_f64, f64);

fn field<T: Real>(seed: u64, lo: f64) -> Array3<T> {
    Array3::from_shape_fn((9, 11, 13), |(z, y, x)| {
        T::new(lo + rnd(z * 10_000 + y * 100 + x, seed) - 0.5)
    })
}

#[test]
fn a_generic_region_at_f32_and_at_f64() {
    let steps = 3;
    let (u0, k): (Array3<f32>, Array3<f32>) = (field(21, 0.0), field(22, 1.0));
    let mut want = u0.clone();
    serial_f32(&mut want, &mut u0.clone(), &k, 0.1, steps);
    let (u0d, kd): (Array3<f64>, Array3<f64>) = (field(21, 0.0), field(22, 1.0));
    let mut wantd = u0d.clone();
    serial_f64(&mut wantd, &mut u0d.clone(), &kd, 0.1, steps);
    for d in backends() {
        let (mut u, mut v) = (u0.clone(), u0.clone());
        mint::with_device(d, || diffuse(&mut u, &mut v, &k, 0.1f32, steps)).unwrap();
        let e = max_rel_err(&u, &want);
        assert!(e <= 1e-5, "{d:?} f32: {e}");
        let (mut u, mut v) = (u0d.clone(), u0d.clone());
        mint::with_device(d, || diffuse(&mut u, &mut v, &kd, 0.1f64, steps)).unwrap();
        let e = max_rel_err(&u, &wantd);
        assert!(e <= 1e-12, "{d:?} f64: {e}");
    }
}

/// A generic region used only by the translation test below (the types a kernel is
/// translated with are those of its latest run, so no other test may run it meanwhile).
#[mint::parallel]
fn halve<T: Real>(u: &mut Array3<T>, v: &Array3<T>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    copy!(u, to_device);
    copy!(v, to_device);
    #[mint::r#for(nest(all), tile(32, 4, 1))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                u[[z, y, x]] = avg2(u[[z, y, x]], v[[z, y, x]]).sqrt();
            }
        }
    }
    copy!(u, from_device);
    Ok(())
}

#[test]
fn the_generic_kernel_translates_to_float_and_to_double() {
    let site = || {
        mint::kernel_sites()
            .find(|s| s.name == "halve_0")
            .expect("site")
    };
    for (prec, ctype, lit, sqrt) in [
        ("f32", "float", "0.5f", "sqrtf("),
        ("f64", "double", "0.5 *", "sqrt("),
    ] {
        if prec == "f32" {
            let (mut u, v) = (field::<f32>(1, 1.0), field::<f32>(2, 1.0));
            mint::with_device(mint::Device::Cpu, || halve(&mut u, &v)).unwrap();
        } else {
            let (mut u, v) = (field::<f64>(1, 1.0), field::<f64>(2, 1.0));
            mint::with_device(mint::Device::Cpu, || halve(&mut u, &v)).unwrap();
        }
        let src = site().translate(&mint::Target::default()).unwrap().source;
        for want in [&format!("{ctype}* __restrict__ u"), lit, sqrt] {
            assert!(src.contains(want), "{prec}: `{want}` in\n{src}");
        }
        if prec == "f32" {
            assert!(
                !src.contains("double"),
                "an f32 kernel computes in float:\n{src}"
            );
        }
        if mint::__rt::nvrtc_available() {
            mint::__rt::compile_only((9, 0), "halve_0", &src).unwrap();
        }
    }
}

#[test]
fn generic_device_functions_run_on_the_host() {
    assert_eq!(avg2(1.0f32, 2.0), 1.5);
    assert_eq!(avg2(1.0f64, 2.0), 1.5);
}

// ------------------------------------------------ the README's example, as written there

/// Written once, called from kernels and from host code.
#[mint::device]
fn lap7<T: Real>(a: &Array3<T>, z: usize, y: usize, x: usize) -> T {
    a[[z, y, x - 1]]
        + a[[z, y, x + 1]]
        + a[[z, y - 1, x]]
        + a[[z, y + 1, x]]
        + a[[z - 1, y, x]]
        + a[[z + 1, y, x]]
        - T::new(6.0) * a[[z, y, x]]
}

struct Heat<T> {
    u: Array3<T>,
    v: Array3<T>,
    alpha: T,
}

impl<T: Real> Heat<T> {
    #[mint::parallel(shared = 8, register)]
    fn run(&mut self, steps: usize) -> mint::Result<()> {
        let (nz, ny, nx) = self.u.dim();
        copy!(self.u, to_device);
        copy!(self.v, to_device);
        for _ in 0..steps {
            #[mint::r#for(nest(all), tile(32, 4, 1))]
            for z in 1..nz - 1 {
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        self.v[[z, y, x]] = self.u[[z, y, x]] + self.alpha * lap7(&self.u, z, y, x);
                    }
                }
            }
            std::mem::swap(&mut self.u, &mut self.v);
        }
        copy!(self.u, from_device);
        Ok(())
    }
}

/// The README's `Heat<T>` against serial steps that call `lap7` on the host.
fn readme_heat<T: Real + Into<f64>>(tol: f64) {
    let u: Array3<T> = field(23, 0.0);
    let mut want = u.clone();
    let (nz, ny, nx) = want.dim();
    let alpha = T::new(0.1);
    for _ in 0..4 {
        let mut next = want.clone();
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    next[[z, y, x]] = want[[z, y, x]] + alpha * lap7(&want, z, y, x);
                }
            }
        }
        want = next;
    }
    for d in backends() {
        let mut h = Heat {
            u: u.clone(),
            v: u.clone(),
            alpha,
        };
        mint::with_device(d, || h.run(4)).unwrap();
        let e = max_rel_err(&h.u, &want);
        assert!(e <= tol, "{d:?}: {e}");
    }
}

#[test]
fn the_readme_example_at_both_precisions() {
    readme_heat::<f32>(1e-5);
    readme_heat::<f64>(1e-12);
}

/// A reduction over a variable of the generic type (`let mut s: T`): the sum of squares
/// and the largest |value|.
#[mint::parallel]
fn norms<T: Real>(a: &Array3<T>) -> mint::Result<(T, T)> {
    let (nz, ny, nx) = a.dim();
    copy!(a, to_device);
    let mut s: T = T::new(0.0);
    #[mint::r#for(nest(all), tile(16, 4, 1), reduction(+: s))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                s += a[[z, y, x]] * a[[z, y, x]];
            }
        }
    }
    let mut m: T = T::new(0.0);
    #[mint::r#for(nest(all), tile(16, 4, 1), reduction(max: m))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                m = m.max(a[[z, y, x]].abs());
            }
        }
    }
    Ok((s, m))
}

fn check_norms<T: Real + Into<f64>>(tol: f64) {
    let a = field::<T>(5, -1.0);
    let sum: f64 = a.iter().map(|&v| v.into() * v.into()).sum();
    let max = a.iter().fold(0.0f64, |m, &v| m.max(v.into().abs()));
    for d in backends() {
        let (s, m) = mint::with_device(d, || norms(&a)).unwrap();
        assert!(
            (s.into() - sum).abs() <= tol * sum,
            "{d:?}: sum {} against {sum}",
            s
        );
        assert_eq!(m.into(), max, "{d:?}: max");
    }
}

#[test]
fn a_reduction_over_a_generic_variable_at_both_precisions() {
    check_norms::<f32>(1e-5);
    check_norms::<f64>(1e-12);
}
