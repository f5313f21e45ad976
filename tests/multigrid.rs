//! The multigrid example (`examples/multigrid`): its four operators against serial
//! references written on `Array3` from the formulas (not from the kernels' flat
//! indexing), and the solver's convergence: V(2,2) residual factors, FMG reaching the
//! discretization error, and the error falling as h². On the CPU, and on a GPU when
//! present (against the CPU's results).

mod common;

#[path = "../examples/multigrid/mg.rs"]
#[allow(dead_code)] // `smoothing` is the example's benchmark
mod mg;

use mg::{Hierarchy, Plan};
use ndarray::Array3;

/// One of each operator on level 0 → 1 → 0 of the flat arrays: a red and a black sweep
/// (ω = 1), the residual, the restriction of the residual into `f`'s level 1, and the
/// prolongation of `u`'s level 1 added to level 0.
#[mint::parallel]
fn one_of_each(
    u: &mut Vec<f64>,
    f: &mut Vec<f64>,
    r: &mut Vec<f64>,
    hi: &Hierarchy,
) -> mint::Result<()> {
    let (n, nc, oc) = (hi.n[0], hi.n[1], hi.offset[1]);
    let (h2, ih2, w) = (hi.h(0).powi(2), hi.h(0).powi(-2), 1.0);
    mint::copy!(u, to_device);
    mint::copy!(f, to_device);
    mint::copy!(r, to_device);
    for c in 0..2usize {
        #[mint::r#for(nest(all), tile(32, 4, 1))]
        for z in 1..n - 1 {
            for y in 1..n - 1 {
                for x in 1..n - 1 {
                    if (x + y + z) % 2 == c {
                        let i = (z * n + y) * n + x;
                        u[i] = mg::relax(&u, &f, i, n, h2, w);
                    }
                }
            }
        }
    }
    #[mint::r#for(nest(all), tile(32, 4, 1))]
    for z in 1..n - 1 {
        for y in 1..n - 1 {
            for x in 1..n - 1 {
                let i = (z * n + y) * n + x;
                r[i] = f[i] - ih2 * mg::neg_laplacian(&u, i, n);
            }
        }
    }
    #[mint::r#for(nest(all), tile(32, 4, 1))]
    for z in 1..nc - 1 {
        for y in 1..nc - 1 {
            for x in 1..nc - 1 {
                f[oc + (z * nc + y) * nc + x] = mg::restrict(&r, 0, n, z, y, x);
            }
        }
    }
    #[mint::r#for(nest(all), tile(32, 4, 1))]
    for z in 1..n - 1 {
        for y in 1..n - 1 {
            for x in 1..n - 1 {
                let c = mg::interpolate(&u, oc, nc, z, y, x);
                u[(z * n + y) * n + x] += c;
            }
        }
    }
    mint::copy!(u, from_device);
    mint::copy!(f, from_device);
    mint::copy!(r, from_device);
    Ok(())
}

fn level(a: &[f64], hi: &Hierarchy, l: usize) -> Array3<f64> {
    let (n, o) = (hi.n[l], hi.offset[l]);
    Array3::from_shape_vec((n, n, n), a[o..o + n * n * n].to_vec()).unwrap()
}

/// The serial references, on `Array3`, from the formulas.
fn reference(u0: &Array3<f64>, f0: &Array3<f64>, uc: &Array3<f64>, h: f64) -> [Array3<f64>; 3] {
    let n = u0.dim().0;
    let mut u = u0.clone();
    for color in 0..2 {
        for z in 1..n - 1 {
            for y in 1..n - 1 {
                for x in 1..n - 1 {
                    if (x + y + z) % 2 == color {
                        let nb = u[[z - 1, y, x]]
                            + u[[z + 1, y, x]]
                            + u[[z, y - 1, x]]
                            + u[[z, y + 1, x]]
                            + u[[z, y, x - 1]]
                            + u[[z, y, x + 1]];
                        u[[z, y, x]] = (h * h * f0[[z, y, x]] + nb) / 6.0;
                    }
                }
            }
        }
    }
    let mut r = Array3::zeros((n, n, n));
    for z in 1..n - 1 {
        for y in 1..n - 1 {
            for x in 1..n - 1 {
                let lap = (u[[z - 1, y, x]]
                    + u[[z + 1, y, x]]
                    + u[[z, y - 1, x]]
                    + u[[z, y + 1, x]]
                    + u[[z, y, x - 1]]
                    + u[[z, y, x + 1]]
                    - 6.0 * u[[z, y, x]])
                    / (h * h);
                r[[z, y, x]] = f0[[z, y, x]] + lap;
            }
        }
    }
    let nc = n.div_ceil(2);
    let mut fc = Array3::zeros((nc, nc, nc));
    for z in 1..nc - 1 {
        for y in 1..nc - 1 {
            for x in 1..nc - 1 {
                let mut s = 0.0;
                for dz in [-1i64, 0, 1] {
                    for dy in [-1i64, 0, 1] {
                        for dx in [-1i64, 0, 1] {
                            let w = ((2 - dz.abs()) * (2 - dy.abs()) * (2 - dx.abs())) as f64;
                            let p = |c: usize, d: i64| (2 * c as i64 + d) as usize;
                            s += w * r[[p(z, dz), p(y, dy), p(x, dx)]];
                        }
                    }
                }
                fc[[z, y, x]] = s / 64.0;
            }
        }
    }
    // trilinear: each fine coordinate 2c lies on a coarse point, 2c + 1 halfway
    let lin = |i: usize| -> Vec<(usize, f64)> {
        if i.is_multiple_of(2) {
            vec![(i / 2, 1.0)]
        } else {
            vec![(i / 2, 0.5), (i / 2 + 1, 0.5)]
        }
    };
    let mut up = u.clone();
    for z in 1..n - 1 {
        for y in 1..n - 1 {
            for x in 1..n - 1 {
                let mut s = 0.0;
                for (a, wa) in lin(z) {
                    for (b, wb) in lin(y) {
                        for (c, wc) in lin(x) {
                            s += wa * wb * wc * uc[[a, b, c]];
                        }
                    }
                }
                up[[z, y, x]] += s;
            }
        }
    }
    [up, r, fc]
}

fn close(a: &Array3<f64>, b: &Array3<f64>, what: &str) {
    let scale = b.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    let e = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        / scale;
    assert!(
        e <= 1e-13,
        "{what}: largest difference {e:e} of the largest value"
    );
}

#[test]
fn each_operator_equals_a_serial_reference() {
    let hi = Hierarchy::new(4).unwrap(); // 17³ → 9³
    let mut devices = vec![mint::Device::Cpu];
    devices.extend(common::gpu());
    for d in devices {
        let (_, mut f, mut r, _) = hi.problem::<f64>();
        // a rough u on both levels, so that every operator sees varied values
        let mut u: Vec<f64> = (0..hi.len).map(|i| common::rnd(i, 7)).collect();
        for l in 0..2 {
            let (n, o) = (hi.n[l], hi.offset[l]);
            for z in 0..n {
                for y in 0..n {
                    for x in 0..n {
                        if [z, y, x].iter().any(|&c| c == 0 || c == n - 1) {
                            u[o + (z * n + y) * n + x] = 0.0;
                        }
                    }
                }
            }
        }
        let (u0, f0, uc) = (level(&u, &hi, 0), level(&f, &hi, 0), level(&u, &hi, 1));
        mint::with_device(d, || one_of_each(&mut u, &mut f, &mut r, &hi)).unwrap();
        let [want_u, want_r, want_fc] = reference(&u0, &f0, &uc, hi.h(0));
        close(&level(&r, &hi, 0), &want_r, &format!("{d:?} residual"));
        close(&level(&f, &hi, 1), &want_fc, &format!("{d:?} restriction"));
        close(
            &level(&u, &hi, 0),
            &want_u,
            &format!("{d:?} smoothing + prolongation"),
        );
    }
}

fn solve(k: u32, plan: Plan, d: mint::Device) -> Vec<(f64, f64)> {
    let hi = Hierarchy::new(k).unwrap();
    let (mut u, mut f, mut r, ex) = hi.problem::<f64>();
    mint::with_device(d, || mg::solve(&mut u, &mut f, &mut r, &ex, &hi, plan)).unwrap()
}

const V22: Plan = Plan {
    fmg: false,
    cycles: 6,
    pre: 2,
    post: 2,
    omega: 1.15,
};

#[test]
fn v22_cycles_reduce_the_residual_tenfold_per_cycle() {
    for k in [5, 6] {
        let h = solve(k, V22, mint::Device::Cpu);
        for w in h.windows(2).skip(1) {
            let factor = w[1].0 / w[0].0;
            assert!(factor <= 0.1, "{}³: factor {factor}", (1 << k) + 1);
        }
        // Gauss-Seidel proper (ω = 1) is slower in 3-D, still well below 0.2
        let gs = solve(k, Plan { omega: 1.0, ..V22 }, mint::Device::Cpu);
        let factor = gs[5].0 / gs[4].0;
        assert!(factor <= 0.13, "{}³, ω = 1: factor {factor}", (1 << k) + 1);
    }
}

#[test]
fn fmg_reaches_the_discretization_error_and_the_error_falls_as_h2() {
    let mut disc = Vec::new();
    for k in [4, 5, 6] {
        let h = solve(k, Plan { fmg: true, ..V22 }, mint::Device::Cpu);
        // converged: the discretization error
        let e = h.last().unwrap().1;
        assert!(h.last().unwrap().0 < 1e-5 * h[0].0.max(1.0));
        // FMG, then two V-cycles at most, within 10% of it
        assert!((h[2].1 - e).abs() <= 0.1 * e, "{k}: {:?}", &h[..3]);
        disc.push(e);
    }
    for w in disc.windows(2) {
        let ratio = w[0] / w[1];
        assert!((3.8..4.2).contains(&ratio), "h halves, error ratio {ratio}");
    }
}

#[test]
fn the_gpu_solve_matches_the_cpu_solve() {
    let Some(g) = common::gpu() else { return };
    let plan = Plan { fmg: true, ..V22 };
    let cpu = solve(5, plan, mint::Device::Cpu);
    let gpu = solve(5, plan, g);
    for (a, b) in cpu.iter().zip(&gpu) {
        // the residual of a converged solve is round-off of terms near |f| = 3π²
        assert!((a.0 - b.0).abs() <= 1e-8 + 1e-6 * a.0, "{a:?} {b:?}");
        assert!((a.1 - b.1).abs() <= 1e-9 * a.1, "{a:?} {b:?}");
    }
}
