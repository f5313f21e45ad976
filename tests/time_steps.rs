//! Blocked time loops whose step is several kernels (issue #45): on one device they run
//! step by step; on several (`cpu:2`, `cpu:3`, `cuda:0,0`) `block = k` runs `k` steps
//! between two halo exchanges on slabs with `k ×` the step's summed reaches in ghost
//! planes. Every array comes out bit for bit as the same loop without the directive on
//! one device. Kernels written as real codes write them: a staggered leapfrog (velocity
//! and pressure, each updated in place from the other, no swap), a chain of three
//! kernels with clamped faces, an x-y Laplacian of reach 0 along z and a swap, and the
//! cardiac model's step (a mirror of the ghost cells, which runs owner-computes, so the
//! loop runs step by step on several devices).

mod common;

use mint::Device;
use ndarray::{Array1, Array2, Array3};

/// The leapfrog of a staggered acoustic wave: `v` from `p` one plane above, then `p` from
/// `v` one plane below; `$tl` the time loop's attributes.
macro_rules! wave {
    ($name:ident, [$($tl:tt)*]) => {
        #[mint::parallel]
        fn $name(v: &mut Array3<f64>, p: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = v.dim();
            mint::copy!(v, to_device);
            mint::copy!(p, to_device);
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 0..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            v[[z, y, x]] = v[[z, y, x]]
                                + 0.3 * (p[[z + 1, y, x]] - p[[z, y, x]])
                                + 0.1 * (p[[z, y, x + 1]] - p[[z, y, x - 1]]);
                        }
                    }
                }
                #[mint::r#for(nest(all))]
                for z in 1..nz {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            p[[z, y, x]] = p[[z, y, x]]
                                + 0.3 * (v[[z, y, x]] - v[[z - 1, y, x]])
                                + 0.1 * (v[[z, y + 1, x]] - v[[z, y - 1, x]]);
                        }
                    }
                }
            }
            mint::copy!(v, from_device);
            mint::copy!(p, from_device);
            Ok(())
        }
    };
}

wave!(wave_blocked, [#[mint::time_loop(block = 4)]]);
wave!(wave_plain, []);

/// Three kernels and a swap: a z-smoothing with clamped faces written as a C original
/// writes them, an x-y Laplacian (reach 0 along z), and the update of `u` from both.
macro_rules! chain {
    ($name:ident, [$($tl:tt)*]) => {
        #[mint::parallel]
        fn $name(
            u: &mut Array3<f32>,
            unew: &mut Array3<f32>,
            t: &mut Array3<f32>,
            w: &mut Array3<f32>,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(t, to_device);
            mint::copy!(w, to_device);
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 0..nz {
                    for y in 0..ny {
                        for x in 0..nx {
                            let zb = if z == 0 { z } else { z - 1 };
                            let zt = (z + 1).min(nz - 1);
                            t[[z, y, x]] = 0.5 * u[[z, y, x]] + 0.25 * (u[[zb, y, x]] + u[[zt, y, x]]);
                        }
                    }
                }
                #[mint::r#for(nest(all))]
                for z in 0..nz {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            w[[z, y, x]] = t[[z, y, x - 1]] + t[[z, y, x + 1]] + t[[z, y - 1, x]]
                                + t[[z, y + 1, x]] - 4.0 * t[[z, y, x]];
                        }
                    }
                }
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = u[[z, y, x]] + 0.1 * w[[z, y, x]]
                                + 0.05 * (w[[z - 1, y, x]] + w[[z + 1, y, x]]);
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            mint::copy!(unew, from_device);
            mint::copy!(t, from_device);
            mint::copy!(w, from_device);
            Ok(())
        }
    };
}

chain!(chain_blocked, [#[mint::time_loop(block = 3)]]);
chain!(chain_plain, []);

type Chain = fn(
    &mut Array3<f32>,
    &mut Array3<f32>,
    &mut Array3<f32>,
    &mut Array3<f32>,
    usize,
) -> mint::Result<()>;

/// Before the loop a kernel writes `unew` on every plane, so that its ghost planes are
/// stale when the loop starts; the step's last kernel writes `unew` on the interior planes
/// only, before any launch of the block reads it, and after the swap the next step reads
/// its boundary planes on every device's widened planes. `$table`: the first kernel also
/// reads a table along z that the kernel before the loop wrote on each device's own planes
/// only (a replicated array written by a split kernel), so the loop runs step by step.
macro_rules! written_before {
    ($name:ident, [$($tl:tt)*], $c:ident, $z:ident, [$($table:tt)*]) => {
        #[mint::parallel]
        fn $name(
            u: &mut Array3<f64>,
            unew: &mut Array3<f64>,
            t: &mut Array3<f64>,
            $c: &mut Array1<f64>,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(t, to_device);
            mint::copy!($c, to_device);
            #[mint::r#for(nest(all))]
            for $z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        unew[[$z, y, x]] = u[[$z, y, x]] + 1.0;
                        if y == 0 && x == 0 {
                            $c[$z] = 0.5 + 0.01 * u[[$z, 0, 0]];
                        }
                    }
                }
            }
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for $z in 1..nz - 1 {
                    for y in 0..ny {
                        for x in 0..nx {
                            t[[$z, y, x]] = 0.3 * (u[[$z - 1, y, x]] + u[[$z, y, x]] + u[[$z + 1, y, x]])
                                $($table)*;
                        }
                    }
                }
                #[mint::r#for(nest(all))]
                for $z in 1..nz - 1 {
                    for y in 0..ny {
                        for x in 0..nx {
                            unew[[$z, y, x]] = 0.9 * t[[$z, y, x]] + 0.1 * u[[$z, y, x]];
                        }
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            mint::copy!(unew, from_device);
            mint::copy!(t, from_device);
            Ok(())
        }
    };
}

written_before!(stale_blocked, [#[mint::time_loop(block = 3)]], c, z, []);
written_before!(stale_plain, [], c, z, []);
written_before!(table_blocked, [#[mint::time_loop(block = 3)]], c, z, [+ c[z]]);
written_before!(table_plain, [], c, z, [+ c[z]]);

type WrittenBefore = fn(
    &mut Array3<f64>,
    &mut Array3<f64>,
    &mut Array3<f64>,
    &mut Array1<f64>,
    usize,
) -> mint::Result<()>;

#[test]
fn blocks_after_writes_before_the_loop_equal_the_loop_step_by_step() {
    let cases: [(WrittenBefore, WrittenBefore, &str); 2] = [
        (stale_blocked, stale_plain, "a partial write first"),
        (
            table_blocked,
            table_plain,
            "a table written on each device's planes",
        ),
    ];
    for (many, one) in pairs() {
        for (blocked, plain, what) in cases {
            for (shape, steps) in [((6, 4, 5), 4), ((9, 5, 6), 7), ((23, 6, 7), 8)] {
                let run = |dev: Device, f: WrittenBefore| {
                    let mut a = [0.5f32, -0.25, 0.125].map(|s| field::<f64>(shape, s));
                    let mut c = Array1::from_shape_fn(shape.0, |z| z as f64 * 0.1);
                    let [u, unew, t] = &mut a;
                    mint::with_device(dev, || f(u, unew, t, &mut c, steps)).unwrap();
                    a
                };
                let (got, want) = (run(many, blocked), run(one, plain));
                for (i, name) in ["u", "unew", "t"].iter().enumerate() {
                    assert!(
                        got[i] == want[i],
                        "{what} on {many:?} against {one:?}, {shape:?}, {steps} steps: {name} differs"
                    );
                }
            }
        }
    }
}

/// The cardiac model's step as `examples/cardiac` writes it (thesis Table 7.10): a kernel
/// mirroring the interior into the ghost cells (no-flux walls), then the PDE and the two
/// ODEs fused, then the swap. The mirror writes fixed planes of the slowest axis, so on
/// several devices it runs owner-computes and the loop step by step.
macro_rules! cardiac {
    ($name:ident, $t:ty, [$($tl:tt)*]) => {
        #[mint::parallel]
        fn $name(e: &mut Array2<$t>, e_prev: &mut Array2<$t>, r: &mut Array2<$t>, steps: usize) -> mint::Result<()> {
            let n = e.nrows() - 2;
            let (dt, alpha): ($t, $t) = (0.02, 0.1);
            mint::copy!(e, to_device);
            mint::copy!(e_prev, to_device);
            mint::copy!(r, to_device);
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(1), tile(256))]
                for j in 1..n + 1 {
                    e_prev[[j, 0]] = e_prev[[j, 2]];
                    e_prev[[j, n + 1]] = e_prev[[j, n - 1]];
                    e_prev[[0, j]] = e_prev[[2, j]];
                    e_prev[[n + 1, j]] = e_prev[[n - 1, j]];
                }
                #[mint::r#for(nest(all))]
                for j in 1..n + 1 {
                    for i in 1..n + 1 {
                        e[[j, i]] = e_prev[[j, i]]
                            + alpha * (e_prev[[j, i + 1]] + e_prev[[j, i - 1]] - 4.0 * e_prev[[j, i]]
                                + e_prev[[j + 1, i]] + e_prev[[j - 1, i]]);
                        e[[j, i]] = e[[j, i]]
                            - dt * (8.0 * e[[j, i]] * (e[[j, i]] - 0.1) * (e[[j, i]] - 1.0) + e[[j, i]] * r[[j, i]]);
                        r[[j, i]] = r[[j, i]]
                            + dt * (0.01 + 0.07 * r[[j, i]] / (e[[j, i]] + 0.3))
                                * (-r[[j, i]] - 8.0 * e[[j, i]] * (e[[j, i]] - 0.1 - 1.0));
                    }
                }
                std::mem::swap(e, e_prev);
            }
            mint::copy!(e, from_device);
            mint::copy!(e_prev, from_device);
            mint::copy!(r, from_device);
            Ok(())
        }
    };
}

cardiac!(cardiac_blocked, f64, [#[mint::time_loop(block = 3)]]);
cardiac!(cardiac_plain, f64, []);
cardiac!(cardiac32_blocked, f32, [#[mint::time_loop(block = 3)]]);
cardiac!(cardiac32_plain, f32, []);

type Cardiac<T> = fn(&mut Array2<T>, &mut Array2<T>, &mut Array2<T>, usize) -> mint::Result<()>;

/// The cardiac loop blocked on `many` against the plain loop on `one`: E, E's previous
/// level and R, bitwise.
fn cardiac_same<T>((many, one): (Device, Device), (blocked, plain): (Cardiac<T>, Cardiac<T>))
where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
{
    for (n, steps) in [(18, 5), (45, 8)] {
        let f = |s: f32| {
            Array2::from_shape_fn((n + 2, n + 2), |(j, i)| {
                T::from(((j * 7 + i * 13) % 31) as f32 * 0.02 + s)
            })
        };
        let mut a = [f(0.1), f(0.3), f(0.05)];
        let mut b = a.clone();
        let [e, ep, r] = &mut a;
        mint::with_device(many, || blocked(e, ep, r, steps)).unwrap();
        let [e, ep, r] = &mut b;
        mint::with_device(one, || plain(e, ep, r, steps)).unwrap();
        for (i, name) in ["e", "e_prev", "r"].iter().enumerate() {
            assert!(
                a[i] == b[i],
                "cardiac on {many:?} against {one:?}, n {n}, {steps} steps: {name} differs"
            );
        }
    }
}

#[test]
fn a_blocked_cardiac_loop_equals_the_loop_step_by_step() {
    for pair in pairs() {
        cardiac_same::<f64>(pair, (cardiac_blocked, cardiac_plain));
        cardiac_same::<f32>(pair, (cardiac32_blocked, cardiac32_plain));
    }
}

/// A field whose values differ everywhere, offset by `s`.
fn field<T: From<f32>>(shape: (usize, usize, usize), s: f32) -> Array3<T> {
    Array3::from_shape_fn(shape, |(z, y, x)| {
        T::from(((z * 7 + y * 13 + x * 29) % 31) as f32 * 0.03 + s)
    })
}

/// Every device the blocked loop runs on, each with the device its plain loop runs on.
fn pairs() -> Vec<(Device, Device)> {
    let mut v = vec![
        (Device::Cpu, Device::Cpu),
        (Device::Cpus(2), Device::Cpu),
        (Device::Cpus(3), Device::Cpu),
    ];
    if let Some(g) = common::gpu() {
        v.push((g, g));
        v.extend(common::gpu_pair_splits().into_iter().map(|s| (s, g)));
    }
    v
}

/// The halo exchanges of `region` while `run` runs (counted by difference: the tests of
/// this binary run in parallel, and only one test runs each counted region).
fn exchanges(region: &str, run: impl FnOnce()) -> u64 {
    let before = mint::halo_exchanges(region);
    run();
    mint::halo_exchanges(region) - before
}

#[test]
fn a_blocked_leapfrog_equals_the_loop_step_by_step() {
    for (many, one) in pairs() {
        for (shape, steps) in [
            ((13, 9, 11), 1),
            ((13, 9, 11), 7),
            ((29, 11, 13), 9),
            ((29, 11, 13), 12),
        ] {
            let (mut v, mut p) = (field::<f64>(shape, 0.5), field::<f64>(shape, -0.25));
            let (mut v1, mut p1) = (v.clone(), p.clone());
            let blocked = exchanges("wave_blocked", || {
                mint::with_device(many, || wave_blocked(&mut v, &mut p, steps)).unwrap()
            });
            let plain = exchanges("wave_plain", || {
                mint::with_device(many, || wave_plain(&mut v1, &mut p1, steps)).unwrap()
            });
            let (mut v2, mut p2) = (field::<f64>(shape, 0.5), field::<f64>(shape, -0.25));
            mint::with_device(one, || wave_plain(&mut v2, &mut p2, steps)).unwrap();
            let at = format!("{many:?} against {one:?}, {shape:?}, {steps} steps");
            assert!(v == v2, "{at}: v differs");
            assert!(p == p2, "{at}: p differs");
            assert!(
                v1 == v2 && p1 == p2,
                "{at}: the loop without the directive differs"
            );
            if matches!(
                many,
                Device::Cpus(_) | Device::CudaList(_) | Device::CudaAll
            ) {
                // each array once per block of 4 steps, where step by step refreshes
                // each once per step
                let blocks = steps.div_ceil(4) as u64;
                assert!(
                    blocked <= 2 * blocks,
                    "{at}: {blocked} halo exchanges for {blocks} blocks"
                );
                assert!(
                    plain >= 2 * steps as u64 - 1,
                    "{at}: {plain} halo exchanges step by step"
                );
            }
        }
    }
}

#[test]
fn a_blocked_chain_of_three_kernels_equals_the_loop_step_by_step() {
    for (many, one) in pairs() {
        for (shape, steps) in [((11, 7, 9), 2), ((23, 9, 10), 7), ((37, 8, 12), 10)] {
            let run = |dev: Device, f: Chain| {
                let mut a = [0.5f32, -0.25, 0.125, 1.0].map(|s| field::<f32>(shape, s));
                let [u, unew, t, w] = &mut a;
                mint::with_device(dev, || f(u, unew, t, w, steps)).unwrap();
                a
            };
            let blocked = exchanges("chain_blocked", || {
                let got = run(many, chain_blocked);
                let want = run(one, chain_plain);
                for (i, name) in ["u", "unew", "t", "w"].iter().enumerate() {
                    assert!(
                        got[i] == want[i],
                        "{many:?} against {one:?}, {shape:?}, {steps} steps: {name} differs"
                    );
                }
            });
            if matches!(many, Device::Cpus(_)) {
                // u, t and w at most once per block of 3 steps
                let blocks = steps.div_ceil(3) as u64;
                assert!(
                    blocked <= 3 * blocks,
                    "{many:?}, {shape:?}, {steps} steps: {blocked} halo exchanges for {blocks} blocks"
                );
            }
        }
    }
}

/// The slabs of a loop of several kernels hold `k ×` the step's summed reaches: the
/// leapfrog 4 × (1 + 1), the chain 3 × (1 + 0 + 1).
#[test]
fn the_ghost_planes_are_the_depth_times_the_summed_reaches() {
    assert_eq!(mint::decomposition("wave_blocked").unwrap().ghost, 8);
    assert_eq!(mint::decomposition("wave_plain").unwrap().ghost, 1);
    assert_eq!(mint::decomposition("chain_blocked").unwrap().ghost, 6);
}
