//! Blocked time loops (`#[mint::time_loop(block = k)]`, issue #45): the same loop with
//! and without the directive gives the same arrays bit for bit, both of them, on the GPU
//! (where the steps are fused: fewer launches than steps) and on the CPU (where the loop
//! runs step by step). Kernels written the way real codes write them: fixed boundary
//! planes, clamped faces, a coefficient array, a radius-2 star; arrays of odd shapes
//! whose two ping-pong buffers hold different boundary values; step counts that are not
//! multiples of the depth. A kernel that reads both time levels (a leapfrog) is not
//! blocked and still gives the same result. A `block = auto` loop, which runs its steps at
//! several depths while it tunes, equals the step-by-step loop too. Generated steps run as
//! time loops on the GPU
//! are checked against the same loop step by step and against the interpreter
//! (`generated_loops`).

mod common;

use mint::Device;
use ndarray::Array3;

/// A region running `steps` steps of one kernel and the swap, its time loop under the
/// attributes `$tl` (the directive, or none); `region!(tuned ..)`: with `tune`.
macro_rules! region {
    (tuned $($rest:tt)*) => { region!(@ [(tune)] $($rest)*); };
    (@ [$($par:tt)*] $name:ident, [$($tl:tt)*], $t:ty, ($($p:ident: $pt:ty),*), |$u:ident, $unew:ident, $z:ident, $y:ident, $x:ident, $nz:ident, $ny:ident, $nx:ident| [$zl:expr, $zh:expr; $yl:expr, $yh:expr; $xl:expr, $xh:expr] $body:block) => {
        #[mint::parallel $($par)*]
        fn $name($u: &mut Array3<$t>, $unew: &mut Array3<$t>, $($p: $pt,)* steps: usize) -> mint::Result<()> {
            let ($nz, $ny, $nx) = $u.dim();
            mint::copy!($u, to_device);
            mint::copy!($unew, to_device);
            $(mint::copy!($p, to_device);)*
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for $z in $zl..$zh {
                    for $y in $yl..$yh {
                        for $x in $xl..$xh $body
                    }
                }
                std::mem::swap($u, $unew);
            }
            mint::copy!($u, from_device);
            mint::copy!($unew, from_device);
            Ok(())
        }
    };
    ($($rest:tt)*) => { region!(@ [] $($rest)*); };
}

/// The same region twice: `$blocked` with `#[mint::time_loop(block = 3)]`, `$plain`
/// step by step.
macro_rules! pair {
    ($blocked:ident, $plain:ident, $($rest:tt)*) => {
        region!($blocked, [#[mint::time_loop(block = 3)]], $($rest)*);
        region!($plain, [], $($rest)*);
    };
}

/// 3-D heat in `f64` (thesis Table 3.1) under the time loop attributes `$tl`.
macro_rules! heat {
    ($($pre:ident)* : $name:ident, [$($tl:tt)*]) => {
        region!($($pre)* $name, [$($tl)*], f64, (), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
            unew[[z, y, x]] = 0.4 * u[[z, y, x]]
                + 0.1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
                    + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
        });
    };
}

heat!(: heat_auto, [#[mint::time_loop(block = auto)]]);

// `#[mint::time_loop]` with no `block`: step by step for a kernel not tuned, as
// `block = auto` for a tuned one
heat!(: heat_default, [#[mint::time_loop]]);

heat!(tuned: heat_default_tuned, [#[mint::time_loop]]);

// 3-D heat, fixed boundary planes, blocked and step by step
heat!(: heat_b, [#[mint::time_loop(block = 3)]]);
heat!(: heat_p, []);
pair!(heat32_b, heat32_p, f32, (), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
    unew[[z, y, x]] = 0.4 * u[[z, y, x]]
        + 0.1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
            + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
});
// zero-flux faces written as the thermal benchmark's C original writes them
pair!(clamped_b, clamped_p, f32, (), |u, unew, z, y, x, nz, ny, nx| [0, nz; 0, ny; 0, nx] {
    let b = if z == 0 { z } else { z - 1 };
    let t = if z == nz - 1 { z } else { z + 1 };
    let n = if y == 0 { y } else { y - 1 };
    let s = (y + 1).min(ny - 1);
    let w = x.saturating_sub(1);
    let e = if x == nx - 1 { x } else { x + 1 };
    unew[[z, y, x]] = 0.5 * u[[z, y, x]]
        + 0.1 * (u[[b, y, x]] + u[[t, y, x]] + u[[z, n, x]])
        + 0.05 * (u[[z, s, x]] + u[[z, y, w]] + u[[z, y, e]]);
});
// an index bound again, as real codes do (`let x = x + 1;`): the IR gives each such
// binding a fresh name, so that the stencil analyzer and the fused kernel read it as the
// offset it is, not as the thread's own index
pair!(rebound_b, rebound_p, f32, (), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
    let c = u[[z, y, x]];
    let mut e = 0.0;
    {
        let x = x + 1;
        e += u[[z, y, x]];
    }
    let mut b = 0.0;
    {
        let z = z - 1;
        b += u[[z, y, x]];
    }
    unew[[z, y, x]] = 0.5 * c + 0.25 * e + 0.25 * b;
});
// variable conductivity from a coefficient array; a radius-2 star
pair!(star_b, star_p, f64, (k: &Array3<f64>), |u, unew, z, y, x, nz, ny, nx| [2, nz - 2; 2, ny - 2; 2, nx - 2] {
    let c = k[[z, y, x]];
    unew[[z, y, x]] = (1.0 - 12.0 * c) * u[[z, y, x]]
        + c * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
            + u[[z - 1, y, x]] + u[[z + 1, y, x]])
        + 0.5 * c * (u[[z, y, x - 2]] + u[[z, y, x + 2]] + u[[z, y - 2, x]]
            + u[[z, y + 2, x]] + u[[z - 2, y, x]] + u[[z + 2, y, x]]);
});
// the suite's other 3-D kernels as written in `mint_kernels`, in both precisions: Poisson
// 19-point with its right-hand side, the 27-point box, the radius-4 star (a serial loop)
macro_rules! suite_pairs {
    ($t:ty, $poisson_b:ident, $poisson_p:ident, $box_b:ident, $box_p:ident, $star4_b:ident, $star4_p:ident) => {
        pair!($poisson_b, $poisson_p, $t, (rhs: &Array3<$t>), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
            unew[[z, y, x]] = 0.1 * (rhs[[z, y, x]]
                + 0.3 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                    + u[[z - 1, y, x]] + u[[z + 1, y, x]])
                + u[[z, y - 1, x - 1]] + u[[z, y - 1, x + 1]] + u[[z, y + 1, x - 1]] + u[[z, y + 1, x + 1]]
                + u[[z - 1, y, x - 1]] + u[[z - 1, y, x + 1]] + u[[z + 1, y, x - 1]] + u[[z + 1, y, x + 1]]
                + u[[z - 1, y - 1, x]] + u[[z - 1, y + 1, x]] + u[[z + 1, y - 1, x]] + u[[z + 1, y + 1, x]]);
        });
        pair!($box_b, $box_p, $t, (rhs: &Array3<$t>), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
            let faces = u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                + u[[z - 1, y, x]] + u[[z + 1, y, x]];
            let edges = u[[z, y - 1, x - 1]] + u[[z, y - 1, x + 1]] + u[[z, y + 1, x - 1]] + u[[z, y + 1, x + 1]]
                + u[[z - 1, y, x - 1]] + u[[z - 1, y, x + 1]] + u[[z + 1, y, x - 1]] + u[[z + 1, y, x + 1]]
                + u[[z - 1, y - 1, x]] + u[[z - 1, y + 1, x]] + u[[z + 1, y - 1, x]] + u[[z + 1, y + 1, x]];
            let corners = u[[z - 1, y - 1, x - 1]] + u[[z - 1, y - 1, x + 1]] + u[[z - 1, y + 1, x - 1]] + u[[z - 1, y + 1, x + 1]]
                + u[[z + 1, y - 1, x - 1]] + u[[z + 1, y - 1, x + 1]] + u[[z + 1, y + 1, x - 1]] + u[[z + 1, y + 1, x + 1]];
            unew[[z, y, x]] = 0.3 * u[[z, y, x]] + 0.05 * faces + 0.02 * edges + 0.01 * corners + 0.001 * rhs[[z, y, x]];
        });
        pair!($star4_b, $star4_p, $t, (rhs: &Array3<$t>), |u, unew, z, y, x, nz, ny, nx| [4, nz - 4; 4, ny - 4; 4, nx - 4] {
            let mut s = 0.0;
            for d in 1..5 {
                s += u[[z, y, x - d]] + u[[z, y, x + d]] + u[[z, y - d, x]] + u[[z, y + d, x]] + u[[z - d, y, x]] + u[[z + d, y, x]];
            }
            unew[[z, y, x]] = 0.04 * s - u[[z, y, x]] + rhs[[z, y, x]];
        });
    };
}
suite_pairs!(f64, poisson_b, poisson_p, box_b, box_p, star4_b, star4_p);
suite_pairs!(
    f32,
    poisson32_b,
    poisson32_p,
    box32_b,
    box32_p,
    star4_32_b,
    star4_32_p
);

// a leapfrog reads both time levels: not blocked, runs step by step
pair!(wave_b, wave_p, f64, (), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
    unew[[z, y, x]] = 2.0 * u[[z, y, x]] - unew[[z, y, x]]
        + 0.05 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
            + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]] - 6.0 * u[[z, y, x]]);
});

// the same kernels again, blocked, for the test of several devices alone: it counts their
// regions' halo exchanges, which no other test's run of them may add to
region!(deep_heat, [#[mint::time_loop(block = 3)]], f64, (), |u, unew, z, y, x, nz, ny, nx| [1, nz - 1; 1, ny - 1; 1, nx - 1] {
    unew[[z, y, x]] = 0.4 * u[[z, y, x]]
        + 0.1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
            + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
});
region!(deep_clamped, [#[mint::time_loop(block = 3)]], f32, (), |u, unew, z, y, x, nz, ny, nx| [0, nz; 0, ny; 0, nx] {
    let b = if z == 0 { z } else { z - 1 };
    let t = if z == nz - 1 { z } else { z + 1 };
    let n = if y == 0 { y } else { y - 1 };
    let s = (y + 1).min(ny - 1);
    let w = x.saturating_sub(1);
    let e = if x == nx - 1 { x } else { x + 1 };
    unew[[z, y, x]] = 0.5 * u[[z, y, x]]
        + 0.1 * (u[[b, y, x]] + u[[t, y, x]] + u[[z, n, x]])
        + 0.05 * (u[[z, s, x]] + u[[z, y, w]] + u[[z, y, e]]);
});
region!(deep_star, [#[mint::time_loop(block = 3)]], f64, (k: &Array3<f64>), |u, unew, z, y, x, nz, ny, nx| [2, nz - 2; 2, ny - 2; 2, nx - 2] {
    let c = k[[z, y, x]];
    unew[[z, y, x]] = (1.0 - 12.0 * c) * u[[z, y, x]]
        + c * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
            + u[[z - 1, y, x]] + u[[z + 1, y, x]])
        + 0.5 * c * (u[[z, y, x - 2]] + u[[z, y, x + 2]] + u[[z, y - 2, x]]
            + u[[z, y + 2, x]] + u[[z - 2, y, x]] + u[[z + 2, y, x]]);
});

// before the loop another kernel writes the coefficient array and the loop's output, on
// every point: their ghost planes are stale when the loop starts, and the block's widened
// steps read both (the output at its fixed boundary points)
macro_rules! after_writes {
    ($name:ident, [$($tl:tt)*]) => {
        #[mint::parallel]
        fn $name(
            u: &mut Array3<f64>,
            v: &mut Array3<f64>,
            c: &mut Array3<f64>,
            steps: usize,
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(v, to_device);
            mint::copy!(c, to_device);
            #[mint::r#for(nest(all))]
            for z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        c[[z, y, x]] = 2.0 * c[[z, y, x]] + 0.001;
                        v[[z, y, x]] = u[[z, y, x]] + 1.0;
                    }
                }
            }
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            v[[z, y, x]] = (1.0 - 6.0 * c[[z, y, x]]) * u[[z, y, x]]
                                + c[[z, y, x]]
                                    * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                        }
                    }
                }
                std::mem::swap(u, v);
            }
            mint::copy!(u, from_device);
            mint::copy!(v, from_device);
            Ok(())
        }
    };
}
after_writes!(deep_after_writes, [#[mint::time_loop(block = 3)]]);
after_writes!(plain_after_writes, []);

/// Two buffers of one shape whose values, boundaries included, differ everywhere.
fn fields<T: From<f32>>(shape: (usize, usize, usize)) -> (Array3<T>, Array3<T>) {
    let f = |s: f32| {
        Array3::from_shape_fn(shape, |(z, y, x)| {
            T::from(((z * 7 + y * 13 + x * 29) % 31) as f32 * 0.03 + s)
        })
    };
    (f(0.5), f(-0.25))
}

use common::launches;

/// The launches of a loop of `steps` steps at depth 3 ([`common::fused_launches`]).
fn fused_launches(steps: usize) -> usize {
    common::fused_launches(steps, 3)
}

type Run<T> = fn(&mut Array3<T>, &mut Array3<T>, usize) -> mint::Result<()>;

/// Blocked against plain on `device`, both arrays bitwise, for several shapes and step
/// counts; on a GPU, a blockable kernel launches fewer times than it has steps.
fn same<T>(device: Device, (blocked, plain): (Run<T>, Run<T>), name: &str, fused: bool)
where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
{
    // the last shape has blocks whose whole tile lies inside the grid, which walk their
    // middle planes without tests
    for shape in [(13, 11, 17), (37, 29, 33), (70, 40, 36), (21, 66, 75)] {
        for steps in [1, 2, 3, 4, 5, 8, 11] {
            let (mut a, mut b) = fields::<T>(shape);
            let (mut c, mut d) = (a.clone(), b.clone());
            let n = launches(&format!("{name}_b"), || {
                mint::with_device(device, || blocked(&mut a, &mut b, steps)).unwrap()
            });
            mint::with_device(device, || plain(&mut c, &mut d, steps)).unwrap();
            assert!(
                a == c,
                "{name} on {device:?}, {shape:?}, {steps} steps: u differs"
            );
            assert!(
                b == d,
                "{name} on {device:?}, {shape:?}, {steps} steps: unew differs"
            );
            if fused {
                assert_eq!(
                    n as usize,
                    fused_launches(steps),
                    "{name}: launches for {steps} steps"
                );
            } else if matches!(device, Device::Cuda(_)) {
                assert_eq!(n as usize, steps, "{name}: launches for {steps} steps");
            }
        }
    }
}

/// `block = auto`: on a GPU the loop's first launches time depths 1, 3 and 5, then it
/// keeps one; the steps run at several depths in one loop still give the step-by-step
/// loop's arrays bit for bit, on every device. On a GPU the tuning fuses steps (fewer
/// launches than steps over the runs); on the CPU the loop runs step by step.
#[test]
fn an_auto_block_equals_step_by_step() {
    let (mut gpu_steps, mut gpu_launches) = (0, 0);
    for d in devices() {
        for (shape, steps) in [((13, 11, 17), 7), ((37, 29, 33), 60), ((70, 40, 36), 45)] {
            let (mut a, mut b) = fields::<f64>(shape);
            let (mut c, mut e) = (a.clone(), b.clone());
            let n = launches("heat_auto", || {
                mint::with_device(d, || heat_auto(&mut a, &mut b, steps)).unwrap()
            }) as usize;
            mint::with_device(d, || heat_p(&mut c, &mut e, steps)).unwrap();
            assert!(
                a == c && b == e,
                "block = auto on {d:?}, {shape:?}, {steps} steps differs from step by step"
            );
            if let Device::Cuda(_) = d {
                (gpu_steps, gpu_launches) = (gpu_steps + steps, gpu_launches + n);
            }
        }
    }
    assert!(
        gpu_launches < gpu_steps || gpu_steps == 0,
        "block = auto fused no steps on the GPU: {gpu_launches} launches for {gpu_steps} steps"
    );
}

#[test]
fn a_loop_without_block_is_auto_only_when_tuned() {
    for d in devices() {
        let (shape, steps) = ((37, 29, 33), 60);
        let (a0, b0) = fields::<f64>(shape);
        let (mut c, mut e) = (a0.clone(), b0.clone());
        mint::with_device(d, || heat_p(&mut c, &mut e, steps)).unwrap();
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let plain = launches("heat_default", || {
            mint::with_device(d, || heat_default(&mut a, &mut b, steps)).unwrap()
        }) as usize;
        assert!(
            a == c && b == e,
            "#[mint::time_loop] on {d:?} differs from step by step"
        );
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let tuned = launches("heat_default_tuned", || {
            mint::with_device(d, || heat_default_tuned(&mut a, &mut b, steps)).unwrap()
        }) as usize;
        assert!(
            a == c && b == e,
            "#[mint::time_loop] with `tune` on {d:?} differs from step by step"
        );
        // on one GPU: the untuned loop launches once per step, the tuned one tries the
        // fused depths (3 and 5) in its first 36 steps
        if let Device::Cuda(_) = d {
            assert_eq!(
                plain, steps,
                "#[mint::time_loop] without `tune` fused steps"
            );
            assert!(
                tuned < steps,
                "#[mint::time_loop] with `tune` fused no steps: {tuned} launches"
            );
        }
        // split, the slabs carry the ghost planes of the deepest depth `auto` tries (5, the
        // guide's "Time loops") only where the loop may block (reach 1; MINT_TUNE decides
        // for both kernels where it is set)
        if let Device::Cpus(_) = d {
            use mint::tune::{Mode, mode};
            for (region, tuned) in [("heat_default", false), ("heat_default_tuned", true)] {
                let blocks = match mode() {
                    Mode::All => true,
                    Mode::Off => false,
                    _ => tuned,
                };
                let ghost = mint::decomposition(region).unwrap().ghost;
                assert_eq!(
                    ghost,
                    if blocks { 5 } else { 1 },
                    "{region} on {d:?}: ghost planes of a loop without `block`"
                );
            }
        }
    }
}

fn devices() -> Vec<Device> {
    let mut v = vec![Device::Cpu, Device::Cpus(2)];
    v.extend(common::gpu());
    if common::gpu().is_some() {
        v.extend(common::gpu_pair_splits());
    }
    v
}

#[test]
fn blocked_heat_equals_step_by_step() {
    for d in devices() {
        same::<f64>(d, (heat_b, heat_p), "heat", matches!(d, Device::Cuda(_)));
        same::<f32>(
            d,
            (heat32_b, heat32_p),
            "heat32",
            matches!(d, Device::Cuda(_)),
        );
    }
}

#[test]
fn blocked_clamped_faces_equal_step_by_step() {
    for d in devices() {
        same::<f32>(
            d,
            (clamped_b, clamped_p),
            "clamped",
            matches!(d, Device::Cuda(_)),
        );
    }
}

#[test]
fn a_rebound_index_is_read_where_it_points() {
    for d in devices() {
        same::<f32>(
            d,
            (rebound_b, rebound_p),
            "rebound",
            matches!(d, Device::Cuda(_)),
        );
    }
    // and the step as plain Rust loops, on the CPU backend and split in two
    let shape = (13, 11, 17);
    let (u0, v0) = fields::<f32>(shape);
    let (mut want, mut other) = (u0.clone(), v0.clone());
    for _ in 0..3 {
        for z in 1..shape.0 - 1 {
            for y in 1..shape.1 - 1 {
                for x in 1..shape.2 - 1 {
                    other[[z, y, x]] = 0.5 * want[[z, y, x]]
                        + 0.25 * want[[z, y, x + 1]]
                        + 0.25 * want[[z - 1, y, x]];
                }
            }
        }
        std::mem::swap(&mut want, &mut other);
    }
    for d in [Device::Cpu, Device::Cpus(2)] {
        let (mut a, mut b) = (u0.clone(), v0.clone());
        mint::with_device(d, || rebound_p(&mut a, &mut b, 3)).unwrap();
        assert!(
            a == want && b == other,
            "rebound on {d:?} differs from plain loops"
        );
    }
    // in the kernel's IR the rebound `x` and `z` are new names: no binding repeats an index
    // (which the translator refuses), and the step's reach is the offsets they hold
    let site = mint::kernel_sites()
        .find(|s| s.name == "rebound_b_0" && s.module.ends_with("time_loop"))
        .expect("rebound_b_0 is a kernel site");
    let mut k = site.kernel().unwrap().clone();
    mint_translator::check(&mut k).unwrap_or_else(|e| panic!("{e:?}"));
    let input = k.array_index("u").unwrap();
    let (_, reach) = mint_translator::optimizer::temporal::check(&k, input).unwrap();
    assert_eq!(reach, [1, 0, 1]);
}

#[test]
fn blocked_star_with_coefficients_equals_step_by_step() {
    for d in devices() {
        for shape in [(13, 11, 17), (40, 37, 45), (30, 66, 75)] {
            let k = Array3::from_shape_fn(shape, |(z, y, x)| {
                0.01 + 0.002 * ((z + 2 * y + 3 * x) % 5) as f64
            });
            for steps in [2, 4, 7] {
                let (mut a, mut b) = fields::<f64>(shape);
                let (mut c, mut e) = (a.clone(), b.clone());
                let n = launches("star_b", || {
                    mint::with_device(d, || star_b(&mut a, &mut b, &k, steps)).unwrap()
                });
                mint::with_device(d, || star_p(&mut c, &mut e, &k, steps)).unwrap();
                assert!(
                    a == c && b == e,
                    "star on {d:?}, {shape:?}, {steps} steps differs"
                );
                if matches!(d, Device::Cuda(_)) {
                    assert_eq!(
                        n as usize,
                        fused_launches(steps),
                        "star: launches for {steps} steps"
                    );
                }
            }
        }
    }
}

type RunWith<T> = fn(&mut Array3<T>, &mut Array3<T>, &Array3<T>, usize) -> mint::Result<()>;

/// `blocked` against `plain` (each with a read-only array) on `device`, both arrays
/// bitwise, for two shapes and several step counts; on a GPU, `fused` says whether the
/// blocked loop launches fewer times than it has steps.
fn same_with<T>(device: Device, (blocked, plain): (RunWith<T>, RunWith<T>), name: &str, fused: bool)
where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
{
    // the last shape has blocks whose whole tile lies inside the grid, which walk their
    // middle planes without tests, reading the right-hand side there too
    for shape in [(14, 13, 17), (41, 37, 35), (30, 66, 75)] {
        let rhs = fields::<T>(shape).1;
        for steps in [2, 4, 7] {
            let (mut a, mut b) = fields::<T>(shape);
            let (mut c, mut d) = (a.clone(), b.clone());
            let n = launches(&format!("{name}_b"), || {
                mint::with_device(device, || blocked(&mut a, &mut b, &rhs, steps)).unwrap()
            });
            mint::with_device(device, || plain(&mut c, &mut d, &rhs, steps)).unwrap();
            let at = format!("{name} on {device:?}, {shape:?}, {steps} steps");
            assert!(a == c, "{at}: u differs");
            assert!(b == d, "{at}: unew differs");
            if matches!(device, Device::Cuda(_)) {
                let want = if fused { fused_launches(steps) } else { steps };
                assert_eq!(n as usize, want, "{at}: launches");
            }
        }
    }
}

/// The suite's other 3-D kernels (issue #45's "every suite kernel"): Poisson 19-point and
/// the 27-point box fuse on a GPU; the radius-4 star's ghost cells would leave too few of
/// a block's columns, so it runs step by step. Both precisions, bitwise.
#[test]
fn the_suites_kernels_blocked_equal_step_by_step() {
    for d in devices() {
        same_with::<f64>(d, (poisson_b, poisson_p), "poisson", true);
        same_with::<f32>(d, (poisson32_b, poisson32_p), "poisson32", true);
        same_with::<f64>(d, (box_b, box_p), "box", true);
        same_with::<f32>(d, (box32_b, box32_p), "box32", true);
        same_with::<f64>(d, (star4_b, star4_p), "star4", false);
        same_with::<f32>(d, (star4_32_b, star4_32_p), "star4_32", false);
    }
}

#[test]
fn a_leapfrog_is_not_blocked_and_equals_step_by_step() {
    for d in devices() {
        same::<f64>(d, (wave_b, wave_p), "wave", false);
        if matches!(d, Device::Cuda(_)) {
            let (mut a, mut b) = fields::<f64>((13, 11, 17));
            let n = launches("wave_b", || {
                mint::with_device(d, || wave_b(&mut a, &mut b, 7)).unwrap()
            });
            assert_eq!(n, 7, "a leapfrog runs step by step");
        }
    }
}

/// Without a GPU too: the kernels the tests block are blockable and translate to a fused
/// kernel for an H100-like target; the leapfrog is refused, naming why.
#[test]
fn the_blocked_kernels_translate() {
    use mint_translator::{Target, optimizer::temporal, tune::Candidate};
    for name in [
        "heat_b_0",
        "heat32_b_0",
        "clamped_b_0",
        "star_b_0",
        "wave_b_0",
    ] {
        let site = mint::kernel_sites()
            .find(|s| s.name == name && s.module.ends_with("time_loop"))
            .unwrap_or_else(|| panic!("{name} is a kernel site"));
        let k = site.kernel().unwrap();
        let input = k.array_index("u").unwrap();
        let checked = temporal::check(k, input);
        if name == "wave_b_0" {
            let why = checked.unwrap_err();
            assert!(why.contains("reads `unew`"), "{why}");
            continue;
        }
        let (output, reach) = checked.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(k.arrays[output].name, "unew");
        let want = if name == "star_b_0" {
            [2, 2, 2]
        } else {
            [1, 1, 1]
        };
        assert_eq!(reach, want, "{name}");
        let mut c = Candidate {
            options: Default::default(),
            tile: [32, 32, 64],
            chunk: [1, 1, 64],
        };
        c.options.time_block = 3;
        c.options.time_input = input as u8;
        let t = mint_translator::translate(&c.apply(k), &Target::default())
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(t.report.level.starts_with("temporal blocking"), "{name}");
    }
}

/// The xorshift generator of the generated cases: `next(n)` is in `0..n`.
fn rng() -> impl FnMut(u64) -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    }
}

/// One generated blockable step ([`generated_blocked_steps_translate_and_compile`]): the
/// kernel in the translator's test notation, arrays `u` (read), `v` (written), `c` (a
/// coefficient, read by half the steps) and, in a third of the steps, the pair `w` (read)
/// and `q` (written) that the step carries at its point, reading `v` back after writing it
/// (the IR drops the arrays a step does not use); 3 dimensions or (one case in four) 2,
/// scalars `nz, ny, nx`; the reach it was built with as `temporal::check` gives it (the
/// tile's columns, its rows, the walk: x, y, z in 3-D, x, 0, y in 2-D); the margin its
/// ranges leave on each side (0: the whole array, clamped faces included); the dimensions;
/// whether it carries `w` into `q`.
fn generated_step(next: &mut impl FnMut(u64) -> u64) -> (String, [u32; 3], i64, usize, bool) {
    let ty = if next(2) == 0 { "f32" } else { "f64" };
    let dims = if next(4) == 0 { 2 } else { 3 };
    let whole = next(3) == 0;
    let r = 1 + next(2) as i64;
    let (lo, hi) = if whole { (0, 0) } else { (r, r) };
    let mut lets = Vec::new();
    let mut terms = Vec::new();
    let mut reach = [0u32; 3];
    let axes = ["x", "y", "z"];
    let ext = ["nx", "ny", "nz"];
    for t in 0..2 + next(6) {
        let axis = next(dims as u64) as usize;
        let d = next(2 * r as u64 + 1) as i64 - r;
        // the point with `axis` moved by d, written one of four ways
        let v = axes[axis];
        let sub = match (next(4), whole, d) {
            (0, true, -1) => {
                lets.push(format!(
                    "let s{t} = if {v} == 0 {{ {v} }} else {{ {v} - 1 }};"
                ));
                format!("s{t}")
            }
            (1, true, 1) => {
                lets.push(format!("let s{t} = min({v} + 1, {} - 1);", ext[axis]));
                format!("s{t}")
            }
            (2, true, -1) => {
                lets.push(format!("let s{t} = saturating_sub({v}, 1);"));
                format!("s{t}")
            }
            (_, false, d) if d != 0 => format!("{v}{d:+}"),
            _ => v.to_string(),
        };
        // a 2-D step walks along y: its reach along y is the walk's
        let role = if dims == 2 && axis == 1 { 2 } else { axis };
        if sub != v {
            reach[role] = reach[role].max(d.unsigned_abs() as u32);
        }
        let idx: Vec<String> = (0..dims)
            .rev()
            .map(|a| {
                if a == axis {
                    sub.clone()
                } else {
                    axes[a].to_string()
                }
            })
            .collect();
        terms.push(format!("0.{}{} * u[{}]", 1 + next(8), t, idx.join("][")));
    }
    // half the steps read the coefficient: the others read their input alone, whose walk
    // loads a plane ahead and (2-D) renames its registers in groups
    let coefficient = if next(2) == 0 {
        format!("c{} * ", if dims == 2 { "[y][x]" } else { "[z][y][x]" })
    } else {
        String::new()
    };
    let (point, nest) = match dims {
        2 => ("[y][x]", format!("y {lo}..ny-{hi}, x {lo}..nx-{hi}")),
        _ => (
            "[z][y][x]",
            format!("z {lo}..nz-{hi}, y {lo}..ny-{hi}, x {lo}..nx-{hi}"),
        ),
    };
    // state carried at the point, updated from the step's own new value, which one case in
    // two also updates in place after writing it
    let carried = next(3) == 0;
    let carry = match (carried, next(2)) {
        (false, _) => String::new(),
        (true, 0) => format!("\nq{point} = 0.{} * w{point} + v{point};", 1 + next(8)),
        (true, _) => format!(
            "\nv{point} = v{point} - 0.0{} * w{point};\nq{point} = w{point} + 0.5 * v{point};",
            1 + next(8)
        ),
    };
    let text = format!(
        "arrays: u {ty} {dims}, v {ty} {dims}, c {ty} {dims}, w {ty} {dims}, q {ty} {dims}\n\
         scalars: nz usize, ny usize, nx usize\n\
         nest: {nest}\n{}\nv{point} = {coefficient}({});{carry}",
        lets.join("\n"),
        terms.join(" + ")
    );
    (text, reach, lo, dims, carried)
}

/// The `(read, written)` pairs of a generated step's loop ([`generated_step`]): `u` into
/// `v`, and `w` into `q` where it carries them, as indices in `k`'s arrays.
fn generated_pairs(k: &mint_translator::ir::Kernel) -> Vec<(usize, usize)> {
    let at = |n: &str| k.array_index(n);
    [("u", "v"), ("w", "q")]
        .iter()
        .filter_map(|&(a, b)| Some((at(a)?, at(b)?)))
        .collect()
}

/// A small generator of blockable steps: random textbook offsets and clamped, `min` and
/// `saturating_sub` faces of the input within radius 2, a coefficient array or none, interior or
/// whole ranges, f32 or f64. Every case must pass `temporal::check` with the reach it was
/// built with and translate at depths 3 and 5; where NVRTC is present (CI installs it),
/// each fused kernel must compile for sm_90. Runs in every `cargo test`.
#[test]
fn generated_blocked_steps_translate_and_compile() {
    use mint_translator::{Target, optimizer::temporal, tune::Candidate};
    let nvrtc = mint::__rt::nvrtc_available();
    if !nvrtc {
        assert!(
            std::env::var("MINT_REQUIRE_NVRTC").ok().as_deref() != Some("1"),
            "MINT_REQUIRE_NVRTC=1 but libnvrtc was not found"
        );
        eprintln!("NVRTC not found: the generated kernels are translated, not compiled");
    }
    let mut next = rng();
    let mut failures = Vec::new();
    for case in 0..150 {
        let (text, reach, _, dims, _) = generated_step(&mut next);
        let k = mint_testing::kernel("gen", &text);
        let input = k.array_index("u").unwrap();
        let pairs = generated_pairs(&k);
        let carried = match temporal::check_pairs(&k, &pairs) {
            Ok(b) if b.reach == reach && b.input == input => b.carried,
            other => {
                failures.push(format!(
                    "case {case}: {other:?}, built with reach {reach:?}:\n{text}"
                ));
                continue;
            }
        };
        // a 2-D step's tile is one row: no second row per thread
        let shapes: &[(u8, u32)] = match dims {
            2 => &[(3, 1), (5, 1)],
            _ => &[(3, 1), (5, 1), (3, 2)],
        };
        for &(depth, rows) in shapes {
            let elem = k.arrays[input].elem.size_bytes();
            let shared = Target::default().shared_bytes_optin;
            // the default tile, run with one row per thread and with two (from half the
            // threads), 16 planes
            let [bx, by, _, r] = temporal::default_tile(dims, depth.into(), reach, elem, shared);
            let by = by * r / rows;
            let block = [bx, by, 16, rows];
            let c = Candidate::time_blocked(&k, input, depth.into(), block)
                .and_then(|c| c.carrying(&carried))
                .unwrap();
            // a block whose ghost cells leave fewer than a quarter of its columns is
            // refused (it would run slower than step by step)
            let (d, ty) = (u32::from(depth), by * rows);
            let inner = (bx - 2 * d * reach[0]) * (ty.saturating_sub(2 * d * reach[1]));
            let t = match mint_translator::translate(&c.apply(&k), &Target::default()) {
                Ok(t) if 4 * inner >= bx * ty => t,
                Err(e) if 4 * inner < bx * ty && e[0].message.contains("a quarter") => continue,
                Ok(_) => {
                    failures.push(format!(
                        "case {case} depth {depth} rows {rows}: {inner} inner points translated\n{text}"
                    ));
                    continue;
                }
                Err(e) => {
                    failures.push(format!(
                        "case {case} depth {depth} rows {rows}: {e:?}\n{text}"
                    ));
                    continue;
                }
            };
            if nvrtc
                && let Err(e) = mint::__rt::compile_only((9, 0), &format!("gen{case}"), &t.source)
            {
                failures.push(format!(
                    "case {case} depth {depth} rows {rows}: {e}\n{}",
                    t.source
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

mod generated_loops {
    use super::{common, generated_pairs, generated_step, rng};
    use common::interp_store::{DevStore, El};
    use common::leak;
    use mint::__rt::cpu::CpuDev;
    use mint::__rt::{ArrayInfo, KernelSite, LaunchArgs, Region, RegionInfo, ScalarValue};
    use mint::Device;
    use mint_testing::interp::{self, Array, Launch, Value};
    use mint_translator::ir::{Kernel, ScalarTy};
    use ndarray::ArrayD;

    /// What one generated case runs: the kernel's site and region, its bounds and
    /// scalars.
    struct Case {
        site: &'static KernelSite,
        info: &'static RegionInfo,
        bounds: Vec<(i64, i64)>,
        /// `[nz, ny, nx]` or `[ny, nx]`.
        shape: Vec<usize>,
        /// The region's slots ([`NAMES`]) of the kernel's arrays, in the kernel's order.
        slots: &'static [usize],
        /// The slots the loop swaps after each step: `u` and `v`, and `w` and `q` where
        /// the step carries them.
        swaps: Vec<(usize, usize)>,
        /// The same pairs as the kernel's arrays.
        pairs: Vec<(usize, usize)>,
    }

    /// The region's arrays, in slot order: the generated step's arrays
    /// ([`super::generated_step`]).
    const NAMES: [&str; 5] = ["u", "v", "c", "w", "q"];

    /// The number of the region's slots.
    const SLOTS: usize = NAMES.len();

    impl Case {
        /// Case `case` of kernel `k`, its loop blocked `depth` deep: its site belongs to a
        /// region of its own, `generated_loop_<case>`, which a decomposition plans from it.
        fn new(k: &Kernel, shape: &[usize], margin: i64, (case, depth): (usize, u32)) -> Case {
            let infos: Vec<ArrayInfo> = NAMES
                .iter()
                .map(|&name| ArrayInfo {
                    name,
                    align_x: margin as usize,
                })
                .collect();
            let info: &'static RegionInfo = leak(Box::new(RegionInfo {
                name: leak(format!("generated_loop_{case}").into_boxed_str()),
                file: "tests/time_loop.rs",
                line: 0,
                arrays: leak(infos.into_boxed_slice()),
                swaps: &[(0, 1), (3, 4)],
                stream: None,
            }));
            let slot = |i: usize| NAMES.iter().position(|&n| n == k.arrays[i].name);
            let slots: Vec<usize> = (0..k.arrays.len())
                .map(|i| slot(i).expect("a generated array"))
                .collect();
            let slots: &'static [usize] = leak(slots.into_boxed_slice());
            let pairs = generated_pairs(k);
            let swaps = pairs.iter().map(|&(a, b)| (slots[a], slots[b])).collect();
            let site: &'static KernelSite = leak(Box::new(
                common::site_of(k, "time_loop", "tests/time_loop.rs", case as u32)
                    .in_region(info, slots)
                    .in_time_loop(depth),
            ));
            mint::__rt::register_site(site);
            let bounds = shape.iter().map(|&n| (margin, n as i64 - margin)).collect();
            Case {
                site,
                info,
                bounds,
                shape: shape.to_vec(),
                slots,
                swaps,
                pairs,
            }
        }

        /// The scalars `nz, ny, nx` (`nz` 1 in 2-D).
        fn extents(&self) -> [usize; 3] {
            match self.shape[..] {
                [ny, nx] => [1, ny, nx],
                _ => [self.shape[0], self.shape[1], self.shape[2]],
            }
        }

        /// `steps` steps on the current device, the swapped pairs swapped after each: with
        /// `depth`, as `#[mint::time_loop(block = depth)]` runs them. On the CPU (or
        /// `cpu:N`) each step runs in the interpreter on the device's views, as the CPU
        /// backend's generated code runs it. Returns the arrays (slot order, [`NAMES`]),
        /// how many launches fused several steps, and how many launches ran.
        fn run<T: El>(
            &self,
            hosts: &[ArrayD<T>; SLOTS],
            steps: usize,
            depth: Option<usize>,
        ) -> mint::Result<([ArrayD<T>; SLOTS], usize, usize)> {
            let mut region = Region::enter(self.info)?;
            for (i, h) in hosts.iter().enumerate() {
                region.copy_to_device(i, h, None)?;
            }
            let scalars = self.extents().map(ScalarValue::of);
            let args = LaunchArgs {
                arrays: self.slots,
                scalars: &scalars,
                bounds: &self.bounds,
                clauses: &[],
            };
            let (mut left, mut fused, mut launches) = (steps, 0, 0);
            let mut views = hosts.clone();
            while left > 0 {
                if let Some(d) = depth {
                    region.time_step_begin(d, left, &self.swaps);
                }
                if region.is_cpu() {
                    let k = self.site.kernel()?;
                    let values = self
                        .extents()
                        .map(|n| Value::Int(n as i128, ScalarTy::Usize));
                    let at = (k, &values[..], &self.bounds[..]);
                    let slots = self.slots;
                    region.cpu_run(self.site, self.slots, |dev: &CpuDev| {
                        match self.shape.len() {
                            2 => on_views::<T, 2>(dev, &mut views, slots, at),
                            _ => on_views::<T, 3>(dev, &mut views, slots, at),
                        }
                    })?;
                } else {
                    region.launch(self.site, &args, false)?;
                }
                launches += 1;
                let ran = if depth.is_some() {
                    region.time_step_end()
                } else {
                    1
                };
                fused += usize::from(ran > 1);
                for &(a, b) in &self.swaps {
                    region.swap(a, b);
                }
                left -= ran;
            }
            let mut out = hosts.clone();
            for (i, h) in out.iter_mut().enumerate() {
                region.copy_from_device(i, h, None)?;
            }
            Ok((out, fused, launches))
        }
    }

    /// One step of kernel `k` (with scalars `values` and loop `bounds`) in the interpreter
    /// on one emulated device's views of `hosts` (the kernel's array `i` in slot
    /// `slots[i]`, in increasing order), as the CPU backend's generated code runs it: the
    /// outer loop clipped to the device's planes.
    fn on_views<T: El, const N: usize>(
        dev: &CpuDev,
        hosts: &mut [ArrayD<T>; SLOTS],
        slots: &[usize],
        (k, values, bounds): (&Kernel, &[Value], &[(i64, i64)]),
    ) {
        let views = (hosts.iter_mut().enumerate())
            .filter(|(s, _)| slots.contains(s))
            .enumerate()
            .map(|(i, (_, h))| dev.view_mut::<N, _>(i, h))
            .collect();
        let mut store = DevStore {
            dev,
            views,
            elem: k.arrays[0].elem,
        };
        let outer = dev.range(bounds[0].0..bounds[0].1);
        let mut bounds = bounds.to_vec();
        bounds[0] = (outer.start, outer.end);
        interp::run_on(k, &mut store, values, &bounds, None)
            .expect("the interpreter runs a generated step");
    }

    /// `steps` steps in the interpreter, the swapped pairs swapped after each.
    fn interpret(k: &Kernel, c: &Case, arrays: &mut [Array], steps: usize) {
        let scalars = c.extents().map(|n| Value::Int(n as i128, ScalarTy::Usize));
        for _ in 0..steps {
            interp::run(
                k,
                Launch {
                    arrays,
                    scalars: &scalars,
                    bounds: &c.bounds,
                    reduction: None,
                },
            )
            .expect("the interpreter runs a generated step");
            for &(a, b) in &c.pairs {
                arrays.swap(a, b);
            }
        }
    }

    /// Whether `got` is the interpreter's `want` within what the GPU's fused multiply-adds
    /// change: 1e-4 (f32) or 1e-11 (f64) of the larger of 1 and the value, per step.
    fn close(got: f64, want: f64, f32: bool, steps: usize) -> bool {
        let tol = if f32 { 1e-4 } else { 1e-11 } * steps as f64;
        (got - want).abs() <= tol * want.abs().max(1.0)
    }

    /// Generated blockable steps (the generator of
    /// `generated_blocked_steps_translate_and_compile`: textbook offsets and clamped,
    /// `min` and `saturating_sub` faces within radius 2, a coefficient array or none, interior
    /// or whole ranges, f32 or f64) run as time loops on the GPU at depth 3 or 5 with
    /// the default block: the fused loop equals the same loop step by step bit for bit,
    /// both arrays, and the step-by-step loop equals the interpreter within the GPU's
    /// rounding. At least half the loops must fuse (a block whose ghost cells leave too
    /// few columns runs step by step; of the first 60 cases, 56 translate fused).
    /// `MINT_TIME_FUZZ_CASES` sets the cases (default 60). Needs a GPU: without one it
    /// says so and checks nothing; with `MINT_DEVICE=cuda` and none, it fails.
    #[test]
    fn generated_blocked_loops_equal_step_by_step_and_the_interpreter() {
        let Some(gpu) = common::gpu() else {
            return;
        };
        let cases: usize = std::env::var("MINT_TIME_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60);
        let mut next = rng();
        let (mut failures, mut fused_cases) = (Vec::new(), 0);
        for case in 0..cases {
            let (text, _, margin, dims, _) = generated_step(&mut next);
            let mut k = mint_testing::kernel(&format!("tfuzz{case}"), &text);
            mint_translator::check(&mut k).expect("a generated step type-checks");
            let depth = if next(3) == 0 { 5 } else { 3 };
            // a third of the cases wide enough for blocks whose whole tile lies inside
            // the grid (their walk's middle planes run without tests): a 2-D tile is a
            // row of 256 columns, a 3-D one 32×32
            let wide = next(3) == 0;
            let shape = match (dims, wide) {
                (2, w) => vec![
                    8 + next(150) as usize,
                    8 + 520 * w as usize + next(48) as usize,
                ],
                (_, w) => vec![
                    8 + next(40) as usize,
                    8 + 56 * w as usize + next(40) as usize,
                    8 + 56 * w as usize + next(48) as usize,
                ],
            };
            // enough steps for a fused launch and a remainder run step by step
            let steps = depth + 1 + next(6) as usize;
            let c = Case::new(&k, &shape, margin, (case, depth as u32));
            let f32 = k.arrays[0].elem == ScalarTy::F32;
            let mut want = start(&k, &c, &shape);
            interpret(&k, &c, &mut want, steps);
            let what = format!("case {case}, {shape:?}, {steps} steps, depth {depth}:\n{text}");
            macro_rules! go {
                ($t:ty) => {{
                    let hosts = hosts::<$t>(&shape);
                    let plain = mint::with_device(gpu, || c.run(&hosts, steps, None));
                    let blocked = mint::with_device(gpu, || c.run(&hosts, steps, Some(depth)));
                    match (plain, blocked) {
                        (Ok((p, ..)), Ok((b, fused, _))) => {
                            fused_cases += usize::from(fused > 0);
                            if p != b {
                                failures.push(format!("blocked differs from step by step: {what}"));
                            }
                            for (a, &slot) in c.slots.iter().enumerate() {
                                let bad = p[slot]
                                    .iter()
                                    .zip(&want[a].data)
                                    .position(|(&g, w)| !close(g as f64, w.as_f64(), f32, steps));
                                if let Some(i) = bad {
                                    failures.push(format!(
                                        "array {a} differs from the interpreter at {i}: {what}"
                                    ));
                                }
                            }
                        }
                        (p, b) => failures.push(format!(
                            "a run failed: {:?} / {:?}: {what}",
                            p.err(),
                            b.err()
                        )),
                    }
                }};
            }
            if f32 { go!(f32) } else { go!(f64) }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        eprintln!("{fused_cases} of {cases} generated loops fused their steps");
        assert!(
            2 * fused_cases >= cases,
            "only {fused_cases} of {cases} generated loops fused their steps"
        );
    }

    /// Array `a`'s value at flat index `i` when a generated loop starts: the two time
    /// levels and the coefficient differ everywhere, boundaries too.
    fn value(a: usize, i: usize) -> f64 {
        0.5 + 0.3 * a as f64 + ((i * (7 + 5 * a) + 3 * a) % 23) as f64 * 0.01
    }

    /// The interpreter's arrays of kernel `k` (those of case `c`'s slots) when a
    /// generated loop starts.
    fn start(k: &Kernel, c: &Case, shape: &[usize]) -> Vec<Array> {
        let n = shape.iter().product::<usize>();
        (0..k.arrays.len())
            .map(|a| Array {
                elem: k.arrays[a].elem,
                shape: shape.to_vec(),
                data: (0..n)
                    .map(|i| match k.arrays[a].elem {
                        ScalarTy::F32 => Value::F32(value(c.slots[a], i) as f32),
                        _ => Value::F64(value(c.slots[a], i)),
                    })
                    .collect(),
            })
            .collect()
    }

    /// The region's arrays on the host, in slot order ([`NAMES`]), as `T`.
    fn hosts<T: El>(shape: &[usize]) -> [ArrayD<T>; SLOTS] {
        std::array::from_fn(|a| {
            ArrayD::from_shape_fn(shape.to_vec(), |ix| {
                let i = (0..shape.len()).fold(0, |i, d| i * shape[d] + ix[d]);
                T::from_value(Value::F64(value(a, i)))
            })
        })
    }

    /// The first of `got`'s elements whose bits differ from `want`'s, if any.
    fn differs<T: El>(got: &ArrayD<T>, want: &Array) -> Option<usize> {
        got.iter()
            .zip(&want.data)
            .position(|(&g, w)| g.to_value().as_f64().to_bits() != w.as_f64().to_bits())
    }

    /// Generated blockable steps (the generator above) as time loops blocked 3 or 5 deep
    /// on several devices, each case's slabs carrying `depth × reach` ghost planes: on
    /// `cpu:2` and `cpu:3` (each emulated device running the steps in the interpreter on
    /// its views, the block's steps on its planes widened by what the later steps read)
    /// both arrays bitwise equal to the interpreter's step-by-step loop on whole arrays,
    /// with at least one block fused and at most one halo exchange per launch and swapped
    /// pair; with a GPU,
    /// on `cuda:0,0` (and `cuda:all` with several GPUs) bitwise equal to the same blocked
    /// loop on one GPU. Runs in every `cargo test` (`MINT_TIME_FUZZ_CASES` sets the cases,
    /// default 60).
    #[test]
    fn generated_blocked_loops_on_several_devices_equal_one_device() {
        let cases: usize = std::env::var("MINT_TIME_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60);
        let gpu = common::gpu();
        let mut next = rng();
        let mut failures = Vec::new();
        for case in 0..cases {
            let (text, _, margin, dims, _) = generated_step(&mut next);
            let mut k = mint_testing::kernel(&format!("tdeep{case}"), &text);
            mint_translator::check(&mut k).expect("a generated step type-checks");
            let depth = if next(3) == 0 { 5 } else { 3 };
            let shape = match dims {
                2 => vec![6 + next(30) as usize, 6 + next(40) as usize],
                _ => vec![
                    6 + next(30) as usize,
                    6 + next(10) as usize,
                    6 + next(12) as usize,
                ],
            };
            let steps = depth + 1 + next(6) as usize;
            let id = 1000 + case;
            let c = Case::new(&k, &shape, margin, (id, depth as u32));
            let region = format!("generated_loop_{id}");
            let f32 = k.arrays[0].elem == ScalarTy::F32;
            let mut want = start(&k, &c, &shape);
            interpret(&k, &c, &mut want, steps);
            let what = format!("case {case}, {shape:?}, {steps} steps, depth {depth}:\n{text}");
            macro_rules! go {
                ($t:ty) => {{
                    let hosts = hosts::<$t>(&shape);
                    for dev in [Device::Cpus(2), Device::Cpus(3)] {
                        let before = mint::halo_exchanges(&region);
                        match mint::with_device(dev, || c.run(&hosts, steps, Some(depth))) {
                            Ok((got, _, launches)) => {
                                for (a, &slot) in c.slots.iter().enumerate() {
                                    if let Some(i) = differs(&got[slot], &want[a]) {
                                        failures.push(format!(
                                            "{dev:?}: array {a} differs from the interpreter at {i}: {what}"
                                        ));
                                    }
                                }
                                let exchanges = mint::halo_exchanges(&region) - before;
                                // more steps than the depth: at least one block fused
                                if launches >= steps {
                                    failures.push(format!(
                                        "{dev:?}: {launches} launches for {steps} steps: no block fused: {what}"
                                    ));
                                }
                                // the input's halo and, where the step carries state, that of
                                // the carried input, which its widened planes read at step 1
                                if exchanges as usize > launches * c.pairs.len() {
                                    failures.push(format!(
                                        "{dev:?}: {exchanges} halo exchanges for {launches} launches: {what}"
                                    ));
                                }
                            }
                            Err(e) => failures.push(format!("{dev:?}: {e}: {what}")),
                        }
                    }
                    if let Some(g) = gpu {
                        let one = mint::with_device(g, || c.run(&hosts, steps, Some(depth)));
                        for split in common::gpu_pair_splits() {
                            let two =
                                mint::with_device(split, || c.run(&hosts, steps, Some(depth)));
                            match (&one, two) {
                                (Ok((a, ..)), Ok((b, ..))) if *a != b => failures
                                    .push(format!("{split:?} differs from one GPU: {what}")),
                                (Ok(_), Ok(_)) => {}
                                (a, b) => failures.push(format!(
                                    "a GPU run failed: {:?} / {split:?}: {:?}: {what}",
                                    a.as_ref().err(),
                                    b.err()
                                )),
                            }
                        }
                    }
                }};
            }
            if f32 { go!(f32) } else { go!(f64) }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}

/// On several devices a loop blocked 3 deep gives its slabs 3 × reach ghost planes and
/// refreshes them once per 3 steps (each device computing the planes within them that the
/// later steps read; on GPUs in one fused launch); both arrays come out bit for bit as
/// the same loop step by step on one device: `cpu:2` and `cpu:3` against the CPU,
/// `cuda:0,0` (and `cuda:all` with several GPUs) against the GPU.
#[test]
fn blocked_loops_on_several_devices_exchange_once_per_block() {
    let mut pairs = vec![
        (Device::Cpus(2), Device::Cpu),
        (Device::Cpus(3), Device::Cpu),
    ];
    if let Some(g) = common::gpu() {
        pairs.extend(common::gpu_pair_splits().into_iter().map(|s| (s, g)));
    }
    let k = Array3::from_shape_fn((37, 29, 33), |(z, y, x)| {
        0.01 + ((z * 5 + y * 3 + x) % 7) as f64 * 0.005
    });
    let star_b = |a: &mut Array3<f64>, b: &mut Array3<f64>, n| deep_star(a, b, &k, n);
    let star_p = |a: &mut Array3<f64>, b: &mut Array3<f64>, n| star_p(a, b, &k, n);
    for (many, one) in pairs {
        deep::<f64>(
            (many, one),
            (&deep_heat, &heat_p),
            ("deep_heat", 1),
            (13, 11, 17),
        );
        deep::<f64>(
            (many, one),
            (&deep_heat, &heat_p),
            ("deep_heat", 1),
            (37, 29, 33),
        );
        deep::<f32>(
            (many, one),
            (&deep_clamped, &clamped_p),
            ("deep_clamped", 1),
            (37, 29, 33),
        );
        deep::<f64>(
            (many, one),
            (&star_b, &star_p),
            ("deep_star", 2),
            (37, 29, 33),
        );
    }
}

type DynRun<'a, T> = &'a dyn Fn(&mut Array3<T>, &mut Array3<T>, usize) -> mint::Result<()>;

/// `blocked` on `many` devices against `plain` on `one`, for several step counts: both
/// arrays bitwise, the slabs' ghost width 3 × `reach`, and at most one halo exchange per
/// launch (a fused launch while more than 3 steps are left), where step by step makes one
/// per step.
fn deep<T>(
    (many, one): (Device, Device),
    (blocked, plain): (DynRun<T>, DynRun<T>),
    (region, reach): (&str, usize),
    shape: (usize, usize, usize),
) where
    T: From<f32> + Copy + PartialEq + std::fmt::Debug,
{
    let d = mint::decomposition(region).unwrap();
    assert_eq!(
        d.ghost,
        3 * reach,
        "{region}: ghost planes of a loop blocked 3 deep"
    );
    for steps in [2, 4, 5, 8, 11] {
        let (mut a, mut b) = fields::<T>(shape);
        let (mut c, mut e) = (a.clone(), b.clone());
        let before = mint::halo_exchanges(region);
        mint::with_device(many, || blocked(&mut a, &mut b, steps)).unwrap();
        let exchanges = mint::halo_exchanges(region) - before;
        mint::with_device(one, || plain(&mut c, &mut e, steps)).unwrap();
        let at = format!("{region} on {many:?} against {one:?}, {shape:?}, {steps} steps");
        assert!(a == c, "{at}: u differs");
        assert!(b == e, "{at}: unew differs");
        assert!(
            exchanges as usize <= fused_launches(steps),
            "{at}: {exchanges} halo exchanges for {} launches",
            fused_launches(steps)
        );
    }
}

/// A blocked loop on several devices after another kernel wrote its coefficient array and
/// its output (so that their ghost planes are stale when the loop starts): both arrays
/// bitwise as the loop step by step on one device.
#[test]
fn blocked_loops_after_other_writes_equal_one_device() {
    let mut pairs = vec![
        (Device::Cpus(2), Device::Cpu),
        (Device::Cpus(3), Device::Cpu),
    ];
    if let Some(g) = common::gpu() {
        pairs.extend(common::gpu_pair_splits().into_iter().map(|s| (s, g)));
    }
    for (many, one) in pairs {
        for steps in [4, 7] {
            let (mut a, mut b) = fields::<f64>((31, 13, 15));
            let mut k = Array3::from_shape_fn((31, 13, 15), |(z, y, x)| {
                0.01 + ((z * 5 + y * 3 + x) % 7) as f64 * 0.004
            });
            let (mut c, mut d, mut l) = (a.clone(), b.clone(), k.clone());
            mint::with_device(many, || deep_after_writes(&mut a, &mut b, &mut k, steps)).unwrap();
            mint::with_device(one, || plain_after_writes(&mut c, &mut d, &mut l, steps)).unwrap();
            let at = format!("{many:?} against {one:?}, {steps} steps");
            assert!(a == c, "{at}: u differs");
            assert!(b == d, "{at}: v differs");
        }
    }
}
