//! The Aliev-Panfilov model of cardiac excitation (Mint thesis Sec. 7.3, Eqs. 7.17–7.18,
//! Table 7.10), with the standard set-up of the thesis's code (S. Baden's `apf`):
//!
//! ∂E/∂t = δ∇²E − kE(E − a)(E − 1) − ER,
//! ∂R/∂t = (ε + μ1R/(μ2 + E))·(−R − kE(E − b − 1)).
//!
//! The domain is n×n interior points; arrays are (n+2)×(n+2), indexed `[j, i]` with `i`
//! fastest, the outer ring holding mirrored ghost values (no-flux boundaries). Each step:
//! t += dt; mirror the boundary; the PDE (5-point Laplacian) and both ODE updates fused in
//! one nest; swap E and E_prev.

use mint::Real;
use ndarray::Array2;

/// Model parameters (thesis Sec. 7.3.2).
pub const A: f64 = 0.1;
pub const B: f64 = 0.1;
pub const KK: f64 = 8.0;
pub const M1: f64 = 0.07;
pub const M2: f64 = 0.3;
pub const EPSILON: f64 = 0.01;
pub const D: f64 = 5e-5;

/// Floating-point operations per point per step (thesis Table 7.9: 28, a fused
/// multiply-add counted as two).
pub const FLOPS_PER_POINT: f64 = 28.0;
/// Words moved per point per step when each value is loaded once: E_prev and R read,
/// E and R written (thesis Sec. 7.3.3).
pub const WORDS_PER_POINT: f64 = 4.0;

/// The time step and the diffusion factor for `n` interior points per side (dx = 1/n),
/// computed in double precision whatever the run's precision (thesis Sec. 7.3.3):
/// rp = k(b+1)²/4, dte = dx²/(4δ + dx²(rp + k)), dtr = 1/(ε + (μ1/μ2)·rp),
/// dt = 0.95·min(dte, dtr), α = δ·dt/dx². Returns (dt, α).
pub fn step_size(n: usize) -> (f64, f64) {
    let dx = 1.0 / n as f64;
    let rp = KK * (B + 1.0) * (B + 1.0) / 4.0;
    let dte = dx * dx / (4.0 * D + dx * dx * (rp + KK));
    let dtr = 1.0 / (EPSILON + (M1 / M2) * rp);
    let dt = 0.95 * dte.min(dtr);
    (dt, D * dt / (dx * dx))
}

/// The initial state `(E_prev, R)`, each `[n + 2, n + 2]`: zero, then E_prev = 1 where
/// i > n/2 and R = 1 where j > n/2 (integer division), ghost cells included; the two
/// fronts meet at right angles and curl into a spiral.
pub fn initial<T: From<f32> + Copy>(n: usize) -> (Array2<T>, Array2<T>) {
    let e = Array2::from_shape_fn((n + 2, n + 2), |(_, i)| {
        T::from(if i > n / 2 { 1.0 } else { 0.0 })
    });
    let r = Array2::from_shape_fn((n + 2, n + 2), |(j, _)| {
        T::from(if j > n / 2 { 1.0 } else { 0.0 })
    });
    (e, r)
}

/// `Max` (the largest value) and `L2norm` (√(ΣE²/n²)) of `e` over the interior, as the
/// thesis's code prints them.
pub fn stats<T: Copy + Into<f64>>(e: &Array2<T>) -> (f64, f64) {
    let n = e.nrows() - 2;
    let (mut mx, mut sum) = (f64::NEG_INFINITY, 0.0);
    for j in 1..=n {
        for i in 1..=n {
            let v: f64 = e[[j, i]].into();
            mx = mx.max(v);
            sum += v * v;
        }
    }
    (mx, (sum / (n * n) as f64).sqrt())
}

/// Runs the model from t = 0 while t < `t_end`, starting from `e_prev` and `r`
/// (`[n + 2, n + 2]`, `[j, i]` with `i` fastest); `e` is the second buffer. On return
/// `e_prev` holds the last E. Every `plot_every` iterations (0: never) `frame(iteration,
/// E)` is called with E copied back from the device. Returns the iteration count. One
/// source for `f32` and `f64` (`T: mint::Real`).
///
/// # Errors
/// [`mint::Error`] from the device.
#[allow(clippy::too_many_arguments)]
#[mint::parallel(tune)]
pub fn simulate<T: Real>(
    e: &mut Array2<T>,
    e_prev: &mut Array2<T>,
    r: &mut Array2<T>,
    t_end: f64,
    tile: [u32; 2],
    plot_every: usize,
    frame: &mut dyn FnMut(usize, &Array2<T>),
) -> mint::Result<usize> {
    let n = e.nrows() - 2;
    let (dt64, alpha64) = step_size(n);
    let (dt, alpha) = (T::new(dt64), T::new(alpha64));
    let (kk, a, b) = (T::new(KK), T::new(A), T::new(B));
    let (epsilon, m1, m2) = (T::new(EPSILON), T::new(M1), T::new(M2));
    let mut t = 0.0f64;
    let mut niter = 0usize;
    mint::copy!(e, to_device);
    mint::copy!(e_prev, to_device);
    mint::copy!(r, to_device);
    while t < t_end {
        t += dt64;
        niter += 1;
        // no-flux boundaries: mirror the interior into the ghost cells
        #[mint::r#for(nest(1), tile(256))]
        for j in 1..n + 1 {
            e_prev[[j, 0]] = e_prev[[j, 2]];
            e_prev[[j, n + 1]] = e_prev[[j, n - 1]];
            e_prev[[0, j]] = e_prev[[2, j]];
            e_prev[[n + 1, j]] = e_prev[[n - 1, j]];
        }
        // the PDE and the two ODEs, fused (thesis Table 7.10)
        #[mint::r#for(nest(all), tile(tile[0], tile[1]), register)]
        for j in 1..n + 1 {
            for i in 1..n + 1 {
                e[[j, i]] = e_prev[[j, i]]
                    + alpha
                        * (e_prev[[j, i + 1]] + e_prev[[j, i - 1]] - T::new(4.0) * e_prev[[j, i]]
                            + e_prev[[j + 1, i]]
                            + e_prev[[j - 1, i]]);
                e[[j, i]] = e[[j, i]]
                    - dt * (kk * e[[j, i]] * (e[[j, i]] - a) * (e[[j, i]] - T::new(1.0))
                        + e[[j, i]] * r[[j, i]]);
                r[[j, i]] = r[[j, i]]
                    + dt * (epsilon + m1 * r[[j, i]] / (e[[j, i]] + m2))
                        * (-r[[j, i]] - kk * e[[j, i]] * (e[[j, i]] - b - T::new(1.0)));
            }
        }
        std::mem::swap(e, e_prev);
        if plot_every > 0 && niter.is_multiple_of(plot_every) {
            mint::copy!(e_prev, from_device);
            frame(niter, e_prev);
        }
    }
    mint::copy!(e_prev, from_device);
    mint::copy!(r, from_device);
    Ok(niter)
}

/// The iterations [`simulate`] runs to reach `t_end` for `n` interior points per side:
/// `t += dt` from 0 while `t < t_end`, counted on the host.
pub fn iterations(n: usize, t_end: f64) -> usize {
    let (dt, _) = step_size(n);
    let (mut t, mut niter) = (0.0f64, 0usize);
    while t < t_end {
        t += dt;
        niter += 1;
    }
    niter
}

/// Defines `pub fn $name<T: Real>(e, e_prev, r, r_next, steps) -> mint::Result<()>`: the
/// model of [`simulate`], `steps` iterations, written to be blocked over time, its time
/// loop under the attributes `$tl` (`#[mint::time_loop(block = 3)]`, or none: step by
/// step). The same statements as [`simulate`]'s, with the no-flux walls mirrored into the
/// subscripts (at `j = 1` the neighbour `j − 1` is the ghost value `E[2]`, which the
/// mirror loop would have copied there) and the recovery variable written into a second
/// buffer `r_next`, swapped like E (guide, "Time loops": a step that carries state at its
/// point). A fused launch then keeps `depth` steps of E and R on chip. Arrays
/// `[n + 2, n + 2]`, `[j, i]` with `i` fastest; on return `e_prev` and `r` hold the last E
/// and R, `e` and `r_next` the ones before (the ghost ring is neither read nor written).
/// `Err` is a [`mint::Error`] from the device. The names the body uses (`step_size`, the
/// constants, `Real`, `Array2`) resolve where the macro is invoked: this module, or one
/// that imports them (`use model::*`).
macro_rules! blocked_model {
    ($(#[$doc:meta])* $name:ident, [$($tl:tt)*]) => {
        $(#[$doc])*
        #[mint::parallel(tune)]
        pub fn $name<T: Real>(
            e: &mut Array2<T>,
            e_prev: &mut Array2<T>,
            r: &mut Array2<T>,
            r_next: &mut Array2<T>,
            steps: usize,
        ) -> mint::Result<()> {
            let n = e.nrows() - 2;
            let (dt64, alpha64) = step_size(n);
            let (dt, alpha) = (T::new(dt64), T::new(alpha64));
            let (kk, a, b) = (T::new(KK), T::new(A), T::new(B));
            let (epsilon, m1, m2) = (T::new(EPSILON), T::new(M1), T::new(M2));
            mint::copy!(e, to_device);
            mint::copy!(e_prev, to_device);
            mint::copy!(r, to_device);
            mint::copy!(r_next, to_device);
            $($tl)*
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for j in 1..n + 1 {
                    for i in 1..n + 1 {
                        let jm = if j == 1 { j + 1 } else { j - 1 };
                        let jp = if j == n { j - 1 } else { j + 1 };
                        let im = if i == 1 { i + 1 } else { i - 1 };
                        let ip = if i == n { i - 1 } else { i + 1 };
                        e[[j, i]] = e_prev[[j, i]]
                            + alpha
                                * (e_prev[[j, ip]] + e_prev[[j, im]]
                                    - T::new(4.0) * e_prev[[j, i]]
                                    + e_prev[[jp, i]]
                                    + e_prev[[jm, i]]);
                        e[[j, i]] = e[[j, i]]
                            - dt * (kk * e[[j, i]] * (e[[j, i]] - a) * (e[[j, i]] - T::new(1.0))
                                + e[[j, i]] * r[[j, i]]);
                        r_next[[j, i]] = r[[j, i]]
                            + dt * (epsilon + m1 * r[[j, i]] / (e[[j, i]] + m2))
                                * (-r[[j, i]] - kk * e[[j, i]] * (e[[j, i]] - b - T::new(1.0)));
                    }
                }
                std::mem::swap(e, e_prev);
                std::mem::swap(r, r_next);
            }
            mint::copy!(e, from_device);
            mint::copy!(e_prev, from_device);
            mint::copy!(r, from_device);
            mint::copy!(r_next, from_device);
            Ok(())
        }
    };
}

blocked_model!(
    /// The model of [`simulate`] written to be blocked over time (`blocked_model!`);
    /// its loop, without `block`, times depths 1, 3 and 5 on its first launches under
    /// `tune` and keeps the fastest.
    simulate_blocked,
    [#[mint::time_loop]]
);

/// The same steps in plain serial loops: the reference the tests compare with.
pub fn serial<T: Real>(e_prev: &mut Array2<T>, r: &mut Array2<T>, t_end: f64) -> usize {
    let n = e_prev.nrows() - 2;
    let (dt64, alpha64) = step_size(n);
    let (dt, alpha) = (T::new(dt64), T::new(alpha64));
    let (kk, a, b) = (T::new(KK), T::new(A), T::new(B));
    let (epsilon, m1, m2) = (T::new(EPSILON), T::new(M1), T::new(M2));
    let (four, one) = (T::new(4.0), T::new(1.0));
    let mut e = e_prev.clone();
    let (mut t, mut niter) = (0.0f64, 0usize);
    while t < t_end {
        t += dt64;
        niter += 1;
        for j in 1..=n {
            e_prev[[j, 0]] = e_prev[[j, 2]];
            e_prev[[j, n + 1]] = e_prev[[j, n - 1]];
            e_prev[[0, j]] = e_prev[[2, j]];
            e_prev[[n + 1, j]] = e_prev[[n - 1, j]];
        }
        for j in 1..=n {
            for i in 1..=n {
                let p = |jj: usize, ii: usize| e_prev[[jj, ii]];
                let mut ev = p(j, i)
                    + alpha
                        * (p(j, i + 1) + p(j, i - 1) - four * p(j, i) + p(j + 1, i) + p(j - 1, i));
                ev = ev - dt * (kk * ev * (ev - a) * (ev - one) + ev * r[[j, i]]);
                let rv = r[[j, i]];
                r[[j, i]] =
                    rv + dt * (epsilon + m1 * rv / (ev + m2)) * (-rv - kk * ev * (ev - b - one));
                e[[j, i]] = ev;
            }
        }
        std::mem::swap(&mut e, e_prev);
    }
    niter
}
