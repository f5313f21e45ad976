//! Blocked time loops of 2-D steps (`#[mint::time_loop(block = k)]`, issue #45): a 2-D
//! step streams along `y` with tiles of one row. The same loop with and without the
//! directive gives the same arrays bit for bit, both of them, on the GPU (where the steps
//! are fused: fewer launches than steps), on one GPU split in two (`cuda:0,0`: `k × reach`
//! ghost rows, one exchange per `k` steps) and on the CPU backend, whole and split
//! (`cpu:2`, `cpu:3`). Kernels written as real codes write them: 2-D heat with fixed
//! boundary rows (thesis Table 6.3) at depths 3 and 5, a lopsided textbook stencil, the
//! suite's radius-2 star with its serial loop,
//! no-flux walls mirrored into the subscripts as a cardiac code's diffusion writes them,
//! and a step that also reads a second field.

mod common;

use mint::Device;
use ndarray::Array2;

/// A region running `steps` steps of one 2-D kernel and the swap, its time loop under
/// the attributes `$tl` (the directive, or none).
macro_rules! region {
    ($name:ident, [$($tl:tt)*], $t:ty, ($($p:ident: $pt:ty),*), |$u:ident, $unew:ident, $y:ident, $x:ident, $ny:ident, $nx:ident| [$yl:expr, $yh:expr; $xl:expr, $xh:expr] $body:block) => {
        #[mint::parallel]
        fn $name($u: &mut Array2<$t>, $unew: &mut Array2<$t>, $($p: $pt,)* steps: usize) -> mint::Result<()> {
            let ($ny, $nx) = $u.dim();
            mint::copy!($u, to_device);
            mint::copy!($unew, to_device);
            $(mint::copy!($p, to_device);)*
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for $y in $yl..$yh {
                    for $x in $xl..$xh $body
                }
                std::mem::swap($u, $unew);
            }
            mint::copy!($u, from_device);
            mint::copy!($unew, from_device);
            Ok(())
        }
    };
}

/// The same region twice: `$blocked` with `#[mint::time_loop(block = 3)]` (or the depth
/// given), `$plain` step by step.
macro_rules! pair {
    ($blocked:ident, $plain:ident, $($rest:tt)*) => {
        pair!(3: $blocked, $plain, $($rest)*);
    };
    ($k:literal: $blocked:ident, $plain:ident, $($rest:tt)*) => {
        region!($blocked, [#[mint::time_loop(block = $k)]], $($rest)*);
        region!($plain, [], $($rest)*);
    };
}

// 2-D heat, 5 points, fixed boundary rows and columns (thesis Table 6.3)
pair!(heat_b, heat_p, f64, (), |u, unew, y, x, ny, nx| [1, ny - 1; 1, nx - 1] {
    unew[[y, x]] = 0.6 * u[[y, x]] + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
});
pair!(heat32_b, heat32_p, f32, (), |u, unew, y, x, ny, nx| [1, ny - 1; 1, nx - 1] {
    unew[[y, x]] = 0.6 * u[[y, x]] + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
});
// the same at depth 5, whose interior walk goes in groups of renamed registers
pair!(5: heat5_b, heat5_p, f32, (), |u, unew, y, x, ny, nx| [1, ny - 1; 1, nx - 1] {
    unew[[y, x]] = 0.6 * u[[y, x]] + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
});
// a lopsided textbook stencil: reach 2 behind and 1 ahead along the walk, 1 and 2 across
pair!(lopsided_b, lopsided_p, f64, (), |u, unew, y, x, ny, nx| [2, ny - 1; 1, nx - 2] {
    unew[[y, x]] = 0.5 * u[[y, x]] + 0.2 * u[[y - 2, x]] + 0.1 * u[[y + 1, x]]
        + 0.15 * u[[y, x - 1]] + 0.05 * u[[y, x + 2]];
});
// the suite's radius-2 star (`mint_kernels::star`), its neighbours summed in a serial loop
pair!(star2_b, star2_p, f32, (), |u, unew, y, x, ny, nx| [2, ny - 2; 2, nx - 2] {
    let mut s = 0.0;
    for d in 1..3 {
        s += u[[y, x - d]] + u[[y, x + d]] + u[[y - d, x]] + u[[y + d, x]];
    }
    unew[[y, x]] = 0.125 * s - u[[y, x]];
});
// no-flux walls mirrored into the subscripts (a cardiac code's diffusion without its
// ghost ring), every point written; a second field read at the point
pair!(mirror_b, mirror_p, f32, (r: &Array2<f32>), |u, unew, y, x, ny, nx| [0, ny; 0, nx] {
    let n = if y == 0 { y + 1 } else { y - 1 };
    let s = if y == ny - 1 { y - 1 } else { y + 1 };
    let w = if x == 0 { x + 1 } else { x - 1 };
    let e = if x == nx - 1 { x - 1 } else { x + 1 };
    let c = u[[y, x]];
    unew[[y, x]] = c + 0.2 * (u[[n, x]] + u[[s, x]] + u[[y, w]] + u[[y, e]] - 4.0 * c) - 0.01 * c * r[[y, x]];
});

// 2-D heat blocked, for the test against serial loops alone (the others count the
// exchanges of `heat_b`)
region!(heat_s, [#[mint::time_loop(block = 3)]], f64, (), |u, unew, y, x, ny, nx| [1, ny - 1; 1, nx - 1] {
    unew[[y, x]] = 0.6 * u[[y, x]] + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
});

// `block = auto`: the loop times depths 1, 3 and 5 on its first launches, then keeps one
region!(heat_auto, [#[mint::time_loop(block = auto)]], f64, (), |u, unew, y, x, ny, nx| [1, ny - 1; 1, nx - 1] {
    unew[[y, x]] = 0.6 * u[[y, x]] + 0.1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
});

/// Two buffers of one shape whose values, boundaries included, differ everywhere.
fn fields<T: From<f32>>(shape: (usize, usize)) -> (Array2<T>, Array2<T>) {
    let f = |s: f32| {
        Array2::from_shape_fn(shape, |(y, x)| {
            T::from(((y * 13 + x * 29) % 31) as f32 * 0.03 + s)
        })
    };
    (f(0.5), f(-0.25))
}

use common::{fused_launches, launches};

/// Whether `device` splits a region over several devices.
fn split(device: Device) -> bool {
    !matches!(device, Device::Auto | Device::Cpu | Device::Cuda(_))
}

fn devices() -> Vec<Device> {
    let mut v = vec![Device::Cpu, Device::Cpus(2), Device::Cpus(3)];
    v.extend(common::gpu());
    if common::gpu().is_some() {
        v.extend(common::gpu_pair_splits());
    }
    v
}

type Run<T> = fn(&mut Array2<T>, &mut Array2<T>, usize) -> mint::Result<()>;

/// Blocked (`k` steps per launch) against plain on `device`, both arrays bitwise, for
/// several shapes and step counts; on one GPU, the blocked loop launches fewer times than
/// it has steps, and split over devices it exchanges halos fewer times than it has steps.
/// The shapes: smaller than one tile, several tiles of rows and columns, and (the last
/// two) blocks whose whole tile lies inside the grid, which walk their middle rows
/// without tests (a row of 256 columns less its ghost cells, from the second block on).
fn same<T>(device: Device, (blocked, plain): (Run<T>, Run<T>), name: &str, k: usize)
where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
{
    let region = format!("{name}_b");
    for shape in [(13, 17), (150, 41), (70, 520), (200, 777)] {
        for steps in [1, 2, 3, 4, 5, 8, 11] {
            let (mut a, mut b) = fields::<T>(shape);
            let (mut c, mut d) = (a.clone(), b.clone());
            let exchanges = mint::halo_exchanges(&region);
            let n = launches(&region, || {
                mint::with_device(device, || blocked(&mut a, &mut b, steps)).unwrap()
            });
            let exchanges = mint::halo_exchanges(&region) - exchanges;
            mint::with_device(device, || plain(&mut c, &mut d, steps)).unwrap();
            let at = format!("{name} on {device:?}, {shape:?}, {steps} steps");
            assert!(a == c, "{at}: u differs");
            assert!(b == d, "{at}: unew differs");
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
}

#[test]
fn blocked_2d_heat_equals_step_by_step() {
    for d in devices() {
        same::<f64>(d, (heat_b, heat_p), "heat", 3);
        same::<f32>(d, (heat32_b, heat32_p), "heat32", 3);
        same::<f32>(d, (heat5_b, heat5_p), "heat5", 5);
    }
}

#[test]
fn a_lopsided_2d_stencil_blocked_equals_step_by_step() {
    for d in devices() {
        same::<f64>(d, (lopsided_b, lopsided_p), "lopsided", 3);
    }
}

#[test]
fn a_blocked_2d_star_with_a_serial_loop_equals_step_by_step() {
    for d in devices() {
        same::<f32>(d, (star2_b, star2_p), "star2", 3);
    }
}

#[test]
fn blocked_mirrored_walls_equal_step_by_step() {
    for d in devices() {
        for shape in [(13, 17), (150, 41), (200, 777)] {
            let r = fields::<f32>(shape).1;
            for steps in [2, 4, 7] {
                let (mut a, mut b) = fields::<f32>(shape);
                let (mut c, mut e) = (a.clone(), b.clone());
                let n = launches("mirror_b", || {
                    mint::with_device(d, || mirror_b(&mut a, &mut b, &r, steps)).unwrap()
                });
                mint::with_device(d, || mirror_p(&mut c, &mut e, &r, steps)).unwrap();
                let at = format!("mirror on {d:?}, {shape:?}, {steps} steps");
                assert!(a == c && b == e, "{at}: differs");
                if matches!(d, Device::Cuda(0)) {
                    assert_eq!(n as usize, fused_launches(steps, 3), "{at}: launches");
                }
            }
        }
    }
}

/// `block = auto` runs its steps at several depths while it tunes, and still gives the
/// step-by-step loop's arrays bit for bit on every device; on one GPU it fuses steps.
#[test]
fn an_auto_2d_block_equals_step_by_step() {
    for d in devices() {
        let (mut steps_run, mut launched) = (0, 0);
        for (shape, steps) in [((13, 17), 7), ((150, 300), 60), ((70, 520), 45)] {
            let (mut a, mut b) = fields::<f64>(shape);
            let (mut c, mut e) = (a.clone(), b.clone());
            let n = launches("heat_auto", || {
                mint::with_device(d, || heat_auto(&mut a, &mut b, steps)).unwrap()
            });
            mint::with_device(d, || heat_p(&mut c, &mut e, steps)).unwrap();
            let at = format!("block = auto on {d:?}, {shape:?}, {steps} steps");
            assert!(a == c && b == e, "{at}: differs from step by step");
            (steps_run, launched) = (steps_run + steps, launched + n as usize);
        }
        if matches!(d, Device::Cuda(0)) {
            assert!(
                launched < steps_run,
                "block = auto fused no 2-D steps: {launched} launches for {steps_run} steps"
            );
        }
    }
}

/// The plain step against serial Rust loops, so that the pairs above compare with a
/// step that is itself right: 2-D heat over 5 steps on the CPU backend and split in two.
#[test]
fn the_2d_step_is_the_serial_step() {
    let shape = (21, 34);
    let (u0, v0) = fields::<f64>(shape);
    let (mut want, mut other) = (u0.clone(), v0.clone());
    for _ in 0..5 {
        for y in 1..shape.0 - 1 {
            for x in 1..shape.1 - 1 {
                other[[y, x]] = 0.6 * want[[y, x]]
                    + 0.1
                        * (want[[y, x - 1]]
                            + want[[y, x + 1]]
                            + want[[y - 1, x]]
                            + want[[y + 1, x]]);
            }
        }
        std::mem::swap(&mut want, &mut other);
    }
    for d in [Device::Cpu, Device::Cpus(2)] {
        let (mut a, mut b) = (u0.clone(), v0.clone());
        mint::with_device(d, || heat_s(&mut a, &mut b, 5)).unwrap();
        assert!(
            a == want && b == other,
            "heat on {d:?} differs from plain loops"
        );
    }
}
