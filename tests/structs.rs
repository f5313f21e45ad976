//! Arrays in structs: field paths in `copy!`, in kernels and in swaps, regions as methods,
//! and regions taking structs by reference. Each result is compared with the same update
//! written as plain serial Rust.

mod common;

use common::{backends, max_rel_err, rnd};
use ndarray::{Array1, Array3};

/// A 3-D field and the buffer it is updated into.
struct Heat {
    u: Array3<f64>,
    v: Array3<f64>,
    alpha: f64,
}

impl Heat {
    fn new(n: usize) -> Heat {
        let u = Array3::from_shape_fn((n, n + 1, n + 2), |(z, y, x)| {
            rnd(z * 10_000 + y * 100 + x, 3)
        });
        Heat {
            v: u.clone(),
            u,
            alpha: 0.1,
        }
    }

    /// `steps` Jacobi steps of the 7-point heat stencil, as a method: `self.u`, `self.v`
    /// and `self.alpha` are used in the kernel directly.
    #[mint::parallel]
    fn run(&mut self, steps: usize) -> mint::Result<()> {
        let (nz, ny, nx) = self.u.dim();
        copy!(self.u, to_device);
        copy!(self.v, to_device);
        for _ in 0..steps {
            #[mint::r#for(nest(all), tile(8, 4, 2))]
            for z in 1..nz - 1 {
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        self.v[[z, y, x]] = self.u[[z, y, x]]
                            + self.alpha
                                * (self.u[[z, y, x - 1]]
                                    + self.u[[z, y, x + 1]]
                                    + self.u[[z, y - 1, x]]
                                    + self.u[[z, y + 1, x]]
                                    + self.u[[z - 1, y, x]]
                                    + self.u[[z + 1, y, x]]
                                    - 6.0 * self.u[[z, y, x]]);
                    }
                }
            }
            std::mem::swap(&mut self.u, &mut self.v);
        }
        copy!(self.u, from_device);
        copy!(self.v, from_device);
        Ok(())
    }
}

/// The serial reference of [`Heat::run`].
fn heat_serial(u: &mut Array3<f64>, v: &mut Array3<f64>, alpha: f64, steps: usize) {
    let (nz, ny, nx) = u.dim();
    for _ in 0..steps {
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    v[[z, y, x]] = u[[z, y, x]]
                        + alpha
                            * (u[[z, y, x - 1]]
                                + u[[z, y, x + 1]]
                                + u[[z, y - 1, x]]
                                + u[[z, y + 1, x]]
                                + u[[z - 1, y, x]]
                                + u[[z + 1, y, x]]
                                - 6.0 * u[[z, y, x]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
}

#[test]
fn region_as_a_method_with_field_arrays_and_a_field_swap() {
    let steps = 5;
    let h0 = Heat::new(12);
    let (mut u, mut v) = (h0.u.clone(), h0.v.clone());
    heat_serial(&mut u, &mut v, h0.alpha, steps);
    for d in backends() {
        let mut h = Heat::new(12);
        mint::with_device(d, || h.run(steps)).unwrap();
        let e = max_rel_err(&h.u, &u);
        assert!(e <= 1e-12, "{d:?}: {e}");
        // the swap exchanged the device arrays of the two paths as it exchanged the host
        // arrays: `v` holds the step before the last
        let ev = max_rel_err(&h.v, &v);
        assert!(ev <= 1e-12, "{d:?}: {ev}");
    }
}

/// Nested structs: a wavefield with a velocity part, and a medium, as a seismic code
/// holds them.
struct Velocity {
    u1: Array3<f32>,
    v1: Array3<f32>,
}

struct Wavefield {
    vel: Velocity,
    xx: Array3<f32>,
}

struct Medium {
    rho: Array3<f32>,
    lam: Array3<f32>,
    /// Which points are in the sponge (1) or not (0), an integer field.
    sponge: Array3<i32>,
}

/// Free functions taking `&mut Wavefield, &Medium`: nested field paths in `copy!`, in
/// kernels (read, written, read and written) and an integer field next to float ones.
#[mint::parallel(shared = 2, register)]
fn velocity_step(w: &mut Wavefield, m: &Medium, dth: f32, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = w.xx.dim();
    copy!(w.vel.u1, to_device);
    copy!(w.vel.v1, to_device);
    copy!(w.xx, to_device);
    copy!(m.rho, to_device);
    copy!(m.lam, to_device);
    copy!(m.sponge, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 4, 1))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let b = dth / m.rho[[z, y, x]];
                    w.vel.u1[[z, y, x]] += b * (w.xx[[z, y, x + 1]] - w.xx[[z, y, x - 1]]);
                    if m.sponge[[z, y, x]] == 1 {
                        w.vel.u1[[z, y, x]] *= 0.9;
                    }
                    w.vel.v1[[z, y, x]] = m.lam[[z, y, x]] * w.vel.u1[[z, y, x]];
                }
            }
        }
        #[mint::r#for(nest(all), tile(16, 4, 1))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    w.xx[[z, y, x]] += 0.25
                        * (w.vel.v1[[z + 1, y, x]] - w.vel.v1[[z - 1, y, x]]
                            + w.vel.u1[[z, y + 1, x]]
                            - w.vel.u1[[z, y - 1, x]]);
                }
            }
        }
    }
    copy!(w.vel.u1, from_device);
    copy!(w.vel.v1, from_device);
    copy!(w.xx, from_device);
    Ok(())
}

fn wavefield(n: usize) -> (Wavefield, Medium) {
    let f = |seed: u64, lo: f32| {
        Array3::from_shape_fn((n, n + 2, n + 5), move |(z, y, x)| {
            lo + rnd(z * 10_000 + y * 100 + x, seed) as f32
        })
    };
    (
        Wavefield {
            vel: Velocity {
                u1: f(4, 0.0),
                v1: f(5, 0.0),
            },
            xx: f(6, 0.0),
        },
        Medium {
            rho: f(7, 1.0),
            lam: f(8, 0.5),
            sponge: Array3::from_shape_fn((n, n + 2, n + 5), |(z, _, x)| i32::from(z < 2 || x < 3)),
        },
    )
}

fn velocity_serial(w: &mut Wavefield, m: &Medium, dth: f32, steps: usize) {
    let (nz, ny, nx) = w.xx.dim();
    for _ in 0..steps {
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let b = dth / m.rho[[z, y, x]];
                    w.vel.u1[[z, y, x]] += b * (w.xx[[z, y, x + 1]] - w.xx[[z, y, x - 1]]);
                    if m.sponge[[z, y, x]] == 1 {
                        w.vel.u1[[z, y, x]] *= 0.9;
                    }
                    w.vel.v1[[z, y, x]] = m.lam[[z, y, x]] * w.vel.u1[[z, y, x]];
                }
            }
        }
        let v1 = w.vel.v1.clone();
        let u1 = w.vel.u1.clone();
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    w.xx[[z, y, x]] += 0.25
                        * (v1[[z + 1, y, x]] - v1[[z - 1, y, x]] + u1[[z, y + 1, x]]
                            - u1[[z, y - 1, x]]);
                }
            }
        }
    }
}

#[test]
fn nested_field_paths_of_structs_passed_by_reference() {
    let (steps, dth) = (4, 0.3f32);
    let (mut w_ref, m) = wavefield(10);
    velocity_serial(&mut w_ref, &m, dth, steps);
    for d in backends() {
        let (mut w, m) = wavefield(10);
        mint::with_device(d, || velocity_step(&mut w, &m, dth, steps)).unwrap();
        for (name, got, want) in [
            ("u1", &w.vel.u1, &w_ref.vel.u1),
            ("v1", &w.vel.v1, &w_ref.vel.v1),
            ("xx", &w.xx, &w_ref.xx),
        ] {
            let e = max_rel_err(got, want);
            // f32, and the GPU may contract a * b + c into one fused multiply-add
            assert!(e <= 1e-5, "{d:?} {name}: {e}");
        }
    }
}

/// A field path and a plain variable in one kernel, a reduction over a field, and a
/// 1-D field of a struct borrowed immutably (`&self`).
struct Series {
    x: Array1<f64>,
    w: Array1<f64>,
}

impl Series {
    #[mint::parallel]
    fn weighted_sum(&self, scale: f64) -> mint::Result<f64> {
        let n = self.x.len();
        let mut total = 0.0f64;
        copy!(self.x, to_device);
        copy!(self.w, to_device);
        #[mint::r#for(tile(64), reduction(+: total))]
        for i in 0..n {
            total += scale * self.x[i] * self.w[i];
        }
        Ok(total)
    }
}

#[test]
fn reduction_over_fields_of_self() {
    let n = 1000;
    let s = Series {
        x: Array1::from_shape_fn(n, |i| rnd(i, 9)),
        w: Array1::from_shape_fn(n, |i| rnd(i, 10)),
    };
    let want: f64 = s.x.iter().zip(&s.w).map(|(a, b)| 2.0 * a * b).sum();
    for d in backends() {
        let got = mint::with_device(d, || s.weighted_sum(2.0)).unwrap();
        // the parallel sum associates differently: a bound on reassociation of n terms
        assert!(
            (got - want).abs() <= 1e-12 * want.abs() * n as f64,
            "{d:?}: {got} vs {want}"
        );
    }
}

/// The kernels above translate to CUDA with the element types their CPU runs recorded,
/// and the CUDA names the fields by their paths; with NVRTC present it compiles.
#[test]
fn field_kernels_translate_with_the_types_of_their_launch() {
    let (mut w, m) = wavefield(6);
    mint::with_device(mint::Device::Cpu, || velocity_step(&mut w, &m, 0.1, 1)).unwrap();
    let site = mint::kernel_sites()
        .find(|s| s.name == "velocity_step_0")
        .expect("the kernel site of velocity_step");
    let t = site.translate(&mint::Target::default()).unwrap();
    for (path, ty) in [
        ("w_vel_u1", "float"),
        ("m_rho", "float"),
        ("m_sponge", "int"),
    ] {
        assert!(
            t.source.contains(&format!("{ty}* __restrict__ {path}"))
                || t.source
                    .contains(&format!("const {ty}* __restrict__ {path}")),
            "`{path}` as a `{ty}` array in:\n{}",
            t.source
        );
    }
    if mint::__rt::nvrtc_available() {
        mint::__rt::compile_only((9, 0), "velocity_step_0", &t.source).unwrap();
    }
}

/// Two types in one module with a region method of the same name: their kernels are kept
/// apart (statistics, `MINT_DUMP` files) by the line of each loop nest.
struct Doubler {
    a: Array1<f64>,
}
struct Halver {
    a: Array1<f64>,
}

impl Doubler {
    #[mint::parallel]
    fn apply(&mut self) -> mint::Result<()> {
        let n = self.a.len();
        copy!(self.a, to_device);
        #[mint::r#for(tile(64))]
        for i in 0..n {
            self.a[i] *= 2.0;
        }
        copy!(self.a, from_device);
        Ok(())
    }
}

impl Halver {
    #[mint::parallel]
    fn apply(&mut self) -> mint::Result<()> {
        let n = self.a.len();
        copy!(self.a, to_device);
        #[mint::r#for(tile(64))]
        for i in 0..n {
            self.a[i] *= 0.5;
        }
        copy!(self.a, from_device);
        Ok(())
    }
}

#[test]
fn methods_of_the_same_name_are_different_kernels() {
    let names: Vec<String> = mint::kernel_sites()
        .filter(|s| s.name == "apply_0")
        .map(|s| s.qualified().to_string())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_ne!(names[0], names[1]);
    assert!(names.iter().all(|n| n.contains("@")), "{names:?}");
    for d in backends() {
        let mut x = Doubler {
            a: Array1::from_elem(100, 3.0),
        };
        let mut y = Halver {
            a: Array1::from_elem(100, 3.0),
        };
        mint::with_device(d, || x.apply()).unwrap();
        mint::with_device(d, || y.apply()).unwrap();
        assert!(x.a.iter().all(|&v| v == 6.0), "{d:?}");
        assert!(y.a.iter().all(|&v| v == 1.5), "{d:?}");
    }
}
