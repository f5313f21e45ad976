//! The hand-written Rust peers: the same updates as Mint's kernels and the C peers, each
//! step a rayon loop over z planes (y rows in 2-D) in the current thread pool, every inner
//! row a contiguous slice read and written without bounds checks. Signatures as the C
//! peers' at the crate root, without the thread count (`pool.install` sets it).

use crate::{CardiacParams, Real};
use rayon::prelude::*;
use std::ops::Range;

/// `r[i]` without a bounds check.
///
/// # Safety
/// `i < r.len()`.
#[inline(always)]
unsafe fn at<T: Copy>(r: &[T], i: usize) -> T {
    // SAFETY: the caller's.
    unsafe { *r.get_unchecked(i) }
}

/// Writes `o[i] = val` without a bounds check.
///
/// # Safety
/// `i < o.len()`.
#[inline(always)]
unsafe fn put<T>(o: &mut [T], i: usize, val: T) {
    // SAFETY: the caller's.
    unsafe { *o.get_unchecked_mut(i) = val }
}

/// Runs `f(k, slab)` in parallel for each slab `k` in `range` of `v`, slabs being `len`
/// elements (z planes, or rows in 2-D).
fn slabs<T: Send>(
    v: &mut [T],
    len: usize,
    range: Range<usize>,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    v[range.start * len..range.end * len]
        .par_chunks_mut(len)
        .enumerate()
        .for_each(|(i, slab)| f(range.start + i, slab));
}

/// `steps` steps of `step(u, v)`, swapping the buffers after each.
fn steps<T>(u: &mut Vec<T>, v: &mut Vec<T>, steps: usize, mut step: impl FnMut(&[T], &mut [T])) {
    for _ in 0..steps {
        step(u, v);
        std::mem::swap(u, v);
    }
}

/// The row `[z, y, ..]` of `u` (shape `[_, ny, nx]`).
fn row<T>(u: &[T], [ny, nx]: [usize; 2], z: usize, y: usize) -> &[T] {
    &u[(z * ny + y) * nx..][..nx]
}

/// `steps` steps of the 3-D heat 7-point kernel on `u` (shape `dims`, `[z, y, x]`), `v` the
/// second buffer: `v = c0·u + c1·(x−1 + x+1 + y−1 + y+1 + z−1 + z+1)` on the interior. The
/// solution ends in `u`.
pub fn heat3d<T: Real>(u: &mut Vec<T>, v: &mut Vec<T>, dims: [usize; 3], c: [T; 2], n: usize) {
    steps(u, v, n, |u, v| heat3d_step(u, v, dims, c));
}

fn heat3d_step<T: Real>(u: &[T], v: &mut [T], [nz, ny, nx]: [usize; 3], [c0, c1]: [T; 2]) {
    let row = |z, y| row(u, [ny, nx], z, y);
    slabs(v, ny * nx, 1..nz - 1, |z, out| {
        for y in 1..ny - 1 {
            let (c, s, n, b, t) = (
                row(z, y),
                row(z, y - 1),
                row(z, y + 1),
                row(z - 1, y),
                row(z + 1, y),
            );
            let o = &mut out[y * nx..][..nx];
            for x in 1..nx - 1 {
                // SAFETY: 1 ≤ x < nx − 1 and every row has nx elements.
                unsafe {
                    let sum =
                        at(c, x - 1) + at(c, x + 1) + at(s, x) + at(n, x) + at(b, x) + at(t, x);
                    put(o, x, c0 * at(c, x) + c1 * sum);
                }
            }
        }
    });
}

/// `steps` Jacobi steps of the 3-D Poisson 19-point kernel: `v = c0·(b + c1·(6 face
/// neighbours) + 12 edge neighbours)` on the interior, right-hand side `b`. Shapes and
/// buffers as [`heat3d`].
pub fn poisson19<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    b: &[T],
    dims: [usize; 3],
    c: [T; 2],
    n: usize,
) {
    steps(u, v, n, |u, v| poisson19_step(u, v, b, dims, c));
}

fn poisson19_step<T: Real>(
    u: &[T],
    v: &mut [T],
    f: &[T],
    [nz, ny, nx]: [usize; 3],
    [c0, c1]: [T; 2],
) {
    let row = |z, y| row(u, [ny, nx], z, y);
    slabs(v, ny * nx, 1..nz - 1, |z, out| {
        for y in 1..ny - 1 {
            let (c, s, n, b, t) = (
                row(z, y),
                row(z, y - 1),
                row(z, y + 1),
                row(z - 1, y),
                row(z + 1, y),
            );
            let (bs, bn, ts, tn) = (
                row(z - 1, y - 1),
                row(z - 1, y + 1),
                row(z + 1, y - 1),
                row(z + 1, y + 1),
            );
            let rhs = self::row(f, [ny, nx], z, y);
            let o = &mut out[y * nx..][..nx];
            for x in 1..nx - 1 {
                // SAFETY: 1 ≤ x < nx − 1 and every row has nx elements.
                unsafe {
                    let faces =
                        at(c, x - 1) + at(c, x + 1) + at(s, x) + at(n, x) + at(b, x) + at(t, x);
                    let val = at(rhs, x)
                        + c1 * faces
                        + at(s, x - 1)
                        + at(s, x + 1)
                        + at(n, x - 1)
                        + at(n, x + 1)
                        + at(b, x - 1)
                        + at(b, x + 1)
                        + at(t, x - 1)
                        + at(t, x + 1)
                        + at(bs, x)
                        + at(bn, x)
                        + at(ts, x)
                        + at(tn, x);
                    put(o, x, c0 * val);
                }
            }
        }
    });
}

/// `steps` steps of the 3-D star of radius `R`: `s = Σ_{d=1..R} (the six neighbours at
/// distance d)`, `v = s/(6R) − u`, on points at least `R` from the edge. Shapes and
/// buffers as [`heat3d`].
pub fn star3d<T: Real, const R: usize>(u: &mut Vec<T>, v: &mut Vec<T>, dims: [usize; 3], n: usize) {
    steps(u, v, n, |u, v| star3d_step::<T, R>(u, v, dims));
}

fn star3d_step<T: Real, const R: usize>(u: &[T], v: &mut [T], [nz, ny, nx]: [usize; 3]) {
    let coef = T::from_f64(1.0) / T::from_f64((6 * R) as f64);
    let row = |z, y| row(u, [ny, nx], z, y);
    slabs(v, ny * nx, R..nz - R, |z, out| {
        for y in R..ny - R {
            let c = row(z, y);
            // the rows at distance d = i + 1: y − d, y + d, z − d, z + d
            let near: [[&[T]; 4]; R] = std::array::from_fn(|i| {
                let d = i + 1;
                [row(z, y - d), row(z, y + d), row(z - d, y), row(z + d, y)]
            });
            let o = &mut out[y * nx..][..nx];
            for x in R..nx - R {
                let mut s = T::ZERO;
                for (i, [ys, yn, zb, zt]) in near.iter().enumerate() {
                    let d = i + 1;
                    // SAFETY: R ≤ x < nx − R, d ≤ R, and every row has nx elements.
                    s = s + unsafe {
                        at(c, x - d) + at(c, x + d) + at(ys, x) + at(yn, x) + at(zb, x) + at(zt, x)
                    };
                }
                // SAFETY: x < nx.
                unsafe { put(o, x, coef * s - at(c, x)) };
            }
        }
    });
}

/// `steps` steps of the clamped-face heat kernel: the heat 7-point update on every point,
/// a neighbour beyond a face being the point itself. Shapes and buffers as [`heat3d`].
pub fn heat_clamped<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    dims: [usize; 3],
    c: [T; 2],
    n: usize,
) {
    steps(u, v, n, |u, v| clamped_step(u, v, dims, c));
}

fn clamped_step<T: Real>(u: &[T], v: &mut [T], [nz, ny, nx]: [usize; 3], [c0, c1]: [T; 2]) {
    let row = |z, y| row(u, [ny, nx], z, y);
    slabs(v, ny * nx, 0..nz, |z, out| {
        let (zb, zt) = (z.max(1) - 1, (z + 1).min(nz - 1));
        for y in 0..ny {
            let (ys, yn) = (y.max(1) - 1, (y + 1).min(ny - 1));
            let (c, s, n, b, t) = (row(z, y), row(z, ys), row(z, yn), row(zb, y), row(zt, y));
            let o = &mut out[y * nx..][..nx];
            // the faces in x, with bounds checks
            let edge = |x: usize| {
                let (w, e) = (x.max(1) - 1, (x + 1).min(nx - 1));
                c0 * c[x] + c1 * (c[w] + c[e] + s[x] + n[x] + b[x] + t[x])
            };
            o[0] = edge(0);
            for x in 1..nx.saturating_sub(1) {
                // SAFETY: 1 ≤ x < nx − 1 and every row has nx elements.
                unsafe {
                    let sum =
                        at(c, x - 1) + at(c, x + 1) + at(s, x) + at(n, x) + at(b, x) + at(t, x);
                    put(o, x, c0 * at(c, x) + c1 * sum);
                }
            }
            o[nx - 1] = edge(nx - 1);
        }
    });
}

/// `steps` steps of the cardiac model on `n`×`n` interior points (arrays `[n + 2, n + 2]`,
/// `[j, i]`, i fastest): mirror the interior into the ghost ring of `e_prev`, then the PDE
/// and both ODEs fused (updating `r` in place) into `e`, then swap `e` and `e_prev`. The
/// last E ends in `e_prev`.
pub fn cardiac<T: Real>(
    e_prev: &mut Vec<T>,
    e: &mut Vec<T>,
    r: &mut [T],
    n: usize,
    p: &CardiacParams<T>,
    steps: usize,
) {
    for _ in 0..steps {
        mirror(e_prev, n);
        cardiac_step(e_prev, e, r, n, p);
        std::mem::swap(e_prev, e);
    }
}

/// No-flux boundaries: the interior mirrored into the ghost cells (corners untouched).
fn mirror<T: Copy>(ep: &mut [T], n: usize) {
    let w = n + 2;
    for j in 1..=n {
        ep[j * w] = ep[j * w + 2];
        ep[j * w + n + 1] = ep[j * w + n - 1];
        ep[j] = ep[2 * w + j];
        ep[(n + 1) * w + j] = ep[(n - 1) * w + j];
    }
}

fn cardiac_step<T: Real>(ep: &[T], e: &mut [T], r: &mut [T], n: usize, p: &CardiacParams<T>) {
    let w = n + 2;
    let CardiacParams {
        alpha,
        dt,
        kk,
        a,
        b,
        epsilon,
        m1,
        m2,
    } = *p;
    let (four, one) = (T::from_f64(4.0), T::from_f64(1.0));
    let (e, r) = (&mut e[w..(n + 1) * w], &mut r[w..(n + 1) * w]);
    e.par_chunks_mut(w)
        .zip(r.par_chunks_mut(w))
        .enumerate()
        .for_each(|(k, (o, rr))| {
            let j = k + 1;
            let (c, s, nn) = (
                &ep[j * w..][..w],
                &ep[(j - 1) * w..][..w],
                &ep[(j + 1) * w..][..w],
            );
            for i in 1..n + 1 {
                // SAFETY: 1 ≤ i ≤ n and every row has n + 2 elements.
                unsafe {
                    let mut ev = at(c, i)
                        + alpha
                            * (at(c, i + 1) + at(c, i - 1) - four * at(c, i)
                                + at(nn, i)
                                + at(s, i));
                    ev = ev - dt * (kk * ev * (ev - a) * (ev - one) + ev * at(rr, i));
                    let rv = at(rr, i);
                    put(
                        rr,
                        i,
                        rv + dt
                            * (epsilon + m1 * rv / (ev + m2))
                            * (-rv - kk * ev * (ev - b - one)),
                    );
                    put(o, i, ev);
                }
            }
        });
}
