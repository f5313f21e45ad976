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

#[test]
fn the_generic_kernel_translates_to_float_and_to_double() {
    let site = || {
        mint::kernel_sites()
            .find(|s| s.name == "diffuse_0")
            .expect("site")
    };
    for (prec, ctype, lit) in [("f32", "float", "0.5f"), ("f64", "double", "0.5 *")] {
        if prec == "f32" {
            let (mut u, k) = (field::<f32>(1, 0.0), field::<f32>(2, 1.0));
            let mut v = u.clone();
            mint::with_device(mint::Device::Cpu, || diffuse(&mut u, &mut v, &k, 0.1, 1)).unwrap();
        } else {
            let (mut u, k) = (field::<f64>(1, 0.0), field::<f64>(2, 1.0));
            let mut v = u.clone();
            mint::with_device(mint::Device::Cpu, || diffuse(&mut u, &mut v, &k, 0.1, 1)).unwrap();
        }
        let src = site().translate(&mint::Target::default()).unwrap().source;
        assert!(
            src.contains(&format!("{ctype}* __restrict__ v")),
            "{prec}:\n{src}"
        );
        assert!(src.contains(lit), "{prec}: `{lit}` in\n{src}");
        if prec == "f32" {
            assert!(
                !src.contains("double"),
                "an f32 kernel computes in float:\n{src}"
            );
        }
        if mint::__rt::nvrtc_available() {
            mint::__rt::compile_only((9, 0), "diffuse_0", &src).unwrap();
        }
    }
}

#[test]
fn generic_device_functions_run_on_the_host() {
    assert_eq!(avg2(1.0f32, 2.0), 1.5);
    assert_eq!(avg2(1.0f64, 2.0), 1.5);
}
