//! Blocked time loops whose step carries state at its point (`#[mint::time_loop]`, issue
//! #45): besides the array it reads at its neighbours, the step reads and writes other
//! ping-pong pairs only at its point (an ODE's variables), and may read the array it
//! writes after writing it. The cardiac model (Aliev-Panfilov, `examples/cardiac`) is
//! such a step: E diffuses, R is carried, and E is written, then updated in place.
//!
//! The same loop with and without the directive gives the same arrays bit for bit, all
//! four of them, on the GPU (where the steps are fused: fewer launches than steps), on
//! one GPU split in two (`cuda:0,0`), and on the CPU backend, whole and split (`cpu:2`,
//! `cpu:3`): the example's cardiac step in f32 at depths 3 and 5 and f64 at depth 3, and a
//! 3-D heat step that carries a dose (`d' = d + c·u'`), in f32 at depth 3 (two tile rows per
//! thread) and f64 at depth 5. The blocked
//! cardiac model of the example is also checked against the example's serial loops,
//! and on the GPU against the example's own region (a mirror kernel and R in place).

mod common;

#[allow(dead_code)]
#[macro_use]
#[path = "../examples/cardiac/model.rs"]
mod model;

use common::{fused_launches, launches};
use mint::Device;
use ndarray::{Array2, Array3};

/// The cardiac model's blocked step (`model::simulate_blocked`'s) at fixed depths, and
/// step by step.
mod cardiac {
    use super::model::*;
    use mint::Real;
    use ndarray::Array2;
    blocked_model!(blocked3, [#[mint::time_loop(block = 3)]]);
    blocked_model!(blocked5, [#[mint::time_loop(block = 5)]]);
    blocked_model!(plain, []);
}

/// 3-D heat with fixed boundary planes, carrying the dose `d' = d + 0.5·u'` at each
/// point, `steps` times under `$tl`.
macro_rules! dose {
    ($name:ident, [$($tl:tt)*], $t:ty) => {
        #[mint::parallel]
        fn $name(
            u: &mut Array3<$t>,
            unew: &mut Array3<$t>,
            d: &mut Array3<$t>,
            dnew: &mut Array3<$t>,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(d, to_device);
            mint::copy!(dnew, to_device);
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = 0.4 * u[[z, y, x]]
                                + 0.1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
                                    + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                            dnew[[z, y, x]] = d[[z, y, x]] + 0.5 * unew[[z, y, x]];
                        }
                    }
                }
                std::mem::swap(u, unew);
                std::mem::swap(d, dnew);
            }
            mint::copy!(u, from_device);
            mint::copy!(unew, from_device);
            mint::copy!(d, from_device);
            mint::copy!(dnew, from_device);
            Ok(())
        }
    };
}

dose!(dose32_b, [#[mint::time_loop(block = 3)]], f32);
dose!(dose32_p, [], f32);
dose!(dose64_b, [#[mint::time_loop(block = 5)]], f64);
dose!(dose64_p, [], f64);

fn devices() -> Vec<Device> {
    let mut v = vec![Device::Cpu, Device::Cpus(2), Device::Cpus(3)];
    v.extend(common::gpu());
    if common::gpu().is_some() {
        v.extend(common::gpu_pair_splits());
    }
    v
}

/// Whether `device` splits a region over several devices.
fn split(device: Device) -> bool {
    !matches!(device, Device::Auto | Device::Cpu | Device::Cuda(_))
}

/// Four arrays of `shape` whose values, ghost cells and boundaries included, differ
/// everywhere and from each other: E near the model's range, R smaller.
fn state<T: From<f32>, D: ndarray::Dimension>(
    shape: impl ndarray::ShapeBuilder<Dim = D> + Clone,
) -> [ndarray::Array<T, D>; 4] {
    [0.9f32, 0.1, 0.3, -0.2].map(|s| {
        let mut k = 0usize;
        ndarray::Array::from_shape_simple_fn(shape.clone(), || {
            k += 1;
            T::from(((k * 29) % 31) as f32 * 0.02 + s)
        })
    })
}

type Run<A> = fn(&mut A, &mut A, &mut A, &mut A, usize) -> mint::Result<()>;
/// The blocked region and the plain one, over arrays `A`.
type Pair<A> = (Run<A>, Run<A>);

/// Blocked (`k` steps per launch, region `name`) against plain on `device` from the same
/// state of `shape`, every array bitwise, at several step counts; on one GPU the blocked
/// loop launches fewer times than it has steps, split it exchanges halos fewer times.
fn same<T, D>(
    device: Device,
    (blocked, plain): Pair<ndarray::Array<T, D>>,
    (name, k): (&str, usize),
    shape: impl ndarray::ShapeBuilder<Dim = D> + Clone + std::fmt::Debug,
) where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
    D: ndarray::Dimension,
{
    for steps in [1, 2, 4, 7, 11] {
        let [mut a, mut b, mut c, mut d] = state::<T, D>(shape.clone());
        let [mut a2, mut b2, mut c2, mut d2] = [a.clone(), b.clone(), c.clone(), d.clone()];
        let exchanges = mint::halo_exchanges(name);
        let n = launches(name, || {
            mint::with_device(device, || blocked(&mut a, &mut b, &mut c, &mut d, steps)).unwrap()
        });
        let exchanges = mint::halo_exchanges(name) - exchanges;
        mint::with_device(device, || plain(&mut a2, &mut b2, &mut c2, &mut d2, steps)).unwrap();
        let at = format!("{name} on {device:?}, {shape:?}, {steps} steps");
        for (i, (x, y)) in [(&a, &a2), (&b, &b2), (&c, &c2), (&d, &d2)]
            .into_iter()
            .enumerate()
        {
            assert!(x == y, "{at}: array {i} differs");
        }
        if matches!(device, Device::Cuda(0)) {
            assert_eq!(n as usize, fused_launches(steps, k), "{at}: launches");
        }
        if split(device) && steps > k + 1 {
            assert!(
                (exchanges as usize) < steps,
                "{at}: {exchanges} halo exchanges: no block of steps ran"
            );
        }
    }
}

#[test]
fn the_blocked_cardiac_step_equals_step_by_step() {
    // smaller than a tile; several tiles of columns and rows, with interior blocks
    for d in devices() {
        for shape in [(15, 15), (202, 602)] {
            use cardiac::{blocked3, blocked5, plain};
            same::<f32, _>(d, (blocked3, plain), ("blocked3", 3), shape);
            same::<f64, _>(d, (blocked3, plain), ("blocked3", 3), shape);
            same::<f32, _>(d, (blocked5, plain), ("blocked5", 5), shape);
        }
    }
}

#[test]
fn a_3d_step_carrying_a_dose_blocked_equals_step_by_step() {
    for d in devices() {
        for shape in [(9, 11, 13), (40, 70, 75)] {
            same::<f32, _>(d, (dose32_b, dose32_p), ("dose32_b", 3), shape);
            same::<f64, _>(d, (dose64_b, dose64_p), ("dose64_b", 5), shape);
        }
    }
}

/// The example's blocked model (`model::simulate_blocked`, `block` chosen by timing under
/// `tune`) against its serial loops: identical on the CPU backend, where each point runs
/// the same operations in the same order, and to rounding on the GPU (explicit FMA); on
/// the GPU also against the example's own region, a mirror kernel and R updated in place,
/// whose operations the GPU rounds alike: identical.
#[test]
fn the_blocked_cardiac_model_is_the_models() {
    let n = 130;
    let t_end = 4.0;
    let steps = model::iterations(n, t_end);
    assert!(steps > 40, "{steps} iterations");
    let (e0, r0) = model::initial::<f32>(n);
    let (mut want, mut r_want) = (e0.clone(), r0.clone());
    assert_eq!(model::serial(&mut want, &mut r_want, t_end), steps);
    let mut devices = vec![Device::Cpu, Device::Cpus(2)];
    devices.extend(common::gpu());
    for d in devices {
        let (mut e, mut e_prev, mut r, mut r_next) =
            (e0.clone(), e0.clone(), r0.clone(), r0.clone());
        mint::with_device(d, || {
            model::simulate_blocked(&mut e, &mut e_prev, &mut r, &mut r_next, steps)
        })
        .unwrap();
        let interior = |a: &Array2<f32>| a.slice(ndarray::s![1..n + 1, 1..n + 1]).to_owned();
        if common::is_cpu(d) {
            assert!(
                interior(&e_prev) == interior(&want),
                "{d:?}: E differs from the serial loops"
            );
            assert!(
                interior(&r) == interior(&r_want),
                "{d:?}: R differs from the serial loops"
            );
            continue;
        }
        let err = common::max_rel_err(&interior(&e_prev), &interior(&want));
        assert!(err < 1e-4, "{d:?}: E {err:e} from the serial loops");
        let (mut e1, mut ep1, mut r1) = (e0.clone(), e0.clone(), r0.clone());
        let niter = mint::with_device(d, || {
            model::simulate(
                &mut e1,
                &mut ep1,
                &mut r1,
                t_end,
                [32, 8],
                0,
                &mut |_, _| {},
            )
        })
        .unwrap();
        assert_eq!(niter, steps);
        assert!(
            interior(&e_prev) == interior(&ep1),
            "{d:?}: E differs from the example's region"
        );
        assert!(
            interior(&r) == interior(&r1),
            "{d:?}: R differs from the example's region"
        );
    }
}
