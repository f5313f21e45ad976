//! 3-D Harris interest points (thesis Sec. 7.2, Table 7.6) in Mint-annotated loops, and
//! the same computation in plain serial loops (the reference the tests compare with).
//!
//! Volumes are `[z, y, x]` arrays of `f32` opacities (any scale). Per voxel:
//! - the gradient `(gx, gy, gz)` by central differences (`data[[z, y, x + 1]] -
//!   data[[z, y, x - 1]]`, ..., no division by the spacing);
//! - `M`, the sums over a `W`×`W`×`W` window of the six gradient products, each weighted
//!   by a Gaussian `g` of variance 1.5 (Eq. 7.15; the thesis uses `W` = 5);
//! - the score `R = det(M) - k·trace(M)³` with `k` = 0.004 (Eq. 7.16, and the cube of
//!   the trace as Table 7.6 computes it).
//!
//! Scores are computed where the window and the gradients stay inside the volume: at
//! least `W / 2 + 1` voxels from every face; elsewhere they are 0. An interest point
//! is a voxel whose score exceeds `threshold · max(R)` and no voxel within
//! [`NMS_RADIUS`] in each axis beats (non-maximum suppression; among equal scores the
//! first in `[z, y, x]` order wins).

use mint::{PinnedArray3, Real};
use ndarray::Array3;

/// The thesis's sensitivity constant `k` (Sec. 7.2.2).
pub const K: f32 = 0.004;
/// Variance of the Gaussian window weights (Sec. 7.2.2).
pub const VARIANCE: f64 = 1.5;
/// Half-width of the non-maximum suppression neighbourhood, in voxels.
pub const NMS_RADIUS: usize = 2;

/// Floating-point operations per scored voxel in the thesis's count (Sec. 7.2.3): 21 per
/// window point (3 differences, 12 multiplies, 6 adds) and 27 for the score. (The
/// thesis's text writes `21 · w³ · 6 + 27` and "342" for `w` = 5; neither matches its
/// own per-point count, which is used here.)
pub fn flops_per_voxel(window: usize) -> f64 {
    21.0 * (window * window * window) as f64 + 27.0
}

/// The `W`×`W`×`W` Gaussian weights `g[[dz, dy, dx]] = exp(-r² / (2·VARIANCE))`, `r` the
/// distance from the window's center in voxels, normalized to sum 1.
pub fn weights(window: usize) -> Array3<f32> {
    let c = (window / 2) as f64;
    let g = Array3::from_shape_fn((window, window, window), |(z, y, x)| {
        let r2 = (z as f64 - c).powi(2) + (y as f64 - c).powi(2) + (x as f64 - c).powi(2);
        (-r2 / (2.0 * VARIANCE)).exp()
    });
    let s: f64 = g.sum();
    g.mapv(|v| (v / s) as f32)
}

/// The window sizes the Mint kernels are compiled for (each its own unrolled kernel).
pub const WINDOWS: [usize; 3] = [3, 5, 7];

/// One region per window edge `$w`, with its center offset `$c` = `$w / 2` and face
/// margin `$h` = `$c + 1`: unrolled, `z + dz - $c` becomes `z ± const`, the form the
/// stencil analyzer needs (thesis Sec. 5.4).
macro_rules! harris_region {
    ($name:ident, $w:literal, $c:literal, $h:literal, [$($stream:tt)*]) => {
        harris_region!($name, $w, $c, $h, [$($stream)*], Array3);
    };
    ($name:ident, $w:literal, $c:literal, $h:literal, [$($stream:tt)*], $arr:ident) => {
        /// The Harris scores of `data` into `score` (same shape; 0 near the faces), for a
        /// window of this size; `w` holds the window's weights ([`weights`]). On a GPU
        /// the kernel is autotuned at its first launch (`tune`). `tile` is its
        /// configuration as written. The `_streamed` variants stream the volume through
        /// the device in slabs (`stream`), overlapping the copies with the kernel; the
        /// `_pinned` ones take arrays in page-locked memory ([`mint::PinnedArray3`]).
        ///
        /// # Errors
        /// [`mint::Error`] from the device.
        #[mint::parallel(tune, unroll $($stream)*)]
        pub fn $name<T: Real>(
            data: &$arr<T>,
            w: &Array3<T>,
            score: &mut $arr<T>,
            k: T,
            tile: [u32; 3],
        ) -> mint::Result<()> {
            let (nz, ny, nx) = data.dim();
            mint::copy!(data, to_device);
            mint::copy!(w, to_device);
            mint::copy!(score, to_device);
            #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]))]
            for z in $h..nz - $h {
                for y in $h..ny - $h {
                    for x in $h..nx - $h {
                        let mut lx = T::new(0.0);
                        let mut ly = T::new(0.0);
                        let mut lz = T::new(0.0);
                        let mut lxy = T::new(0.0);
                        let mut lyz = T::new(0.0);
                        let mut lzx = T::new(0.0);
                        for dz in 0..$w {
                            for dy in 0..$w {
                                for dx in 0..$w {
                                    // subscripts written out (not through `let`s), so
                                    // that unrolling folds them to z ± c (thesis Sec. 5.4)
                                    let gx = data[[z + dz - $c, y + dy - $c, x + dx - $c + 1]]
                                        - data[[z + dz - $c, y + dy - $c, x + dx - $c - 1]];
                                    let gy = data[[z + dz - $c, y + dy - $c + 1, x + dx - $c]]
                                        - data[[z + dz - $c, y + dy - $c - 1, x + dx - $c]];
                                    let gz = data[[z + dz - $c + 1, y + dy - $c, x + dx - $c]]
                                        - data[[z + dz - $c - 1, y + dy - $c, x + dx - $c]];
                                    let g = w[[dz, dy, dx]];
                                    lx += g * gx * gx;
                                    ly += g * gy * gy;
                                    lz += g * gz * gz;
                                    lxy += g * gx * gy;
                                    lyz += g * gy * gz;
                                    lzx += g * gz * gx;
                                }
                            }
                        }
                        let trace = lx + ly + lz;
                        score[[z, y, x]] = (lx * ly * lz + lxy * lyz * lzx + lxy * lyz * lzx
                            - lzx * lzx * ly
                            - lxy * lxy * lz
                            - lyz * lyz * lx)
                            - k * trace * trace * trace;
                    }
                }
            }
            mint::copy!(score, from_device);
            Ok(())
        }
    };
}

harris_region!(scores3, 3, 1, 2, []);
harris_region!(scores5, 5, 2, 3, []);
harris_region!(scores7, 7, 3, 4, []);
harris_region!(scores3_streamed, 3, 1, 2, [, stream]);
harris_region!(scores5_streamed, 5, 2, 3, [, stream]);
harris_region!(scores7_streamed, 7, 3, 4, [, stream]);
harris_region!(scores5_pinned, 5, 2, 3, [], PinnedArray3);
harris_region!(scores5_streamed_pinned, 5, 2, 3, [, stream], PinnedArray3);

/// The Harris scores of `data` for a window of `window` (3, 5 or 7) voxels: the Mint
/// kernel compiled for that size. Returns the scores (`data`'s shape).
///
/// # Errors
/// [`mint::Error`] from the device; a window size other than 3, 5 or 7.
pub fn scores(
    data: &Array3<f32>,
    window: usize,
    tile: [u32; 3],
) -> Result<Array3<f32>, Box<dyn std::error::Error>> {
    scores_as(data, window, tile, false)
}

/// [`scores`], streamed through the device in slabs when `streamed` (the `_streamed`
/// regions: `#[mint::parallel(stream)]`).
///
/// # Errors
/// As [`scores`].
pub fn scores_as(
    data: &Array3<f32>,
    window: usize,
    tile: [u32; 3],
    streamed: bool,
) -> Result<Array3<f32>, Box<dyn std::error::Error>> {
    let w = weights(window);
    let mut score = Array3::<f32>::zeros(data.dim());
    let s = &mut score;
    match (window, streamed) {
        (3, false) => scores3::<f32>(data, &w, s, K, tile)?,
        (5, false) => scores5::<f32>(data, &w, s, K, tile)?,
        (7, false) => scores7::<f32>(data, &w, s, K, tile)?,
        (3, true) => scores3_streamed::<f32>(data, &w, s, K, tile)?,
        (5, true) => scores5_streamed::<f32>(data, &w, s, K, tile)?,
        (7, true) => scores7_streamed::<f32>(data, &w, s, K, tile)?,
        _ => {
            return Err(
                format!("--window {window}: the kernels are compiled for 3, 5 and 7").into(),
            );
        }
    }
    Ok(score)
}

/// The interest points of `score`: `(z, y, x, R)` of every voxel whose score exceeds
/// `threshold · max(R)` and that no voxel within [`NMS_RADIUS`] beats, in `[z, y, x]`
/// order (module documentation).
pub fn interest_points(score: &Array3<f32>, threshold: f32) -> Vec<(usize, usize, usize, f32)> {
    let (nz, ny, nx) = score.dim();
    let top = score.iter().fold(0.0f32, |m, &v| m.max(v));
    let cut = threshold * top;
    let r = NMS_RADIUS as isize;
    let mut out = Vec::new();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let v = score[[z, y, x]];
                // NaN scores are never interest points
                if v.is_nan() || v <= cut {
                    continue;
                }
                let mut best = true;
                'n: for dz in -r..=r {
                    for dy in -r..=r {
                        for dx in -r..=r {
                            let (a, b, c) = (z as isize + dz, y as isize + dy, x as isize + dx);
                            if a < 0 || b < 0 || c < 0 {
                                continue;
                            }
                            let (a, b, c) = (a as usize, b as usize, c as usize);
                            if a >= nz || b >= ny || c >= nx || (dz, dy, dx) == (0, 0, 0) {
                                continue;
                            }
                            let o = score[[a, b, c]];
                            let earlier = (dz, dy, dx) < (0, 0, 0);
                            if o > v || (earlier && o == v) {
                                best = false;
                                break 'n;
                            }
                        }
                    }
                }
                if best {
                    out.push((z, y, x, v));
                }
            }
        }
    }
    out
}

/// The scores in plain serial loops, written from Eq. 7.15–7.16 independently of the
/// Mint kernel: the gradients first, over the whole volume, then the window sums.
pub fn serial_scores(data: &Array3<f32>, window: usize) -> Array3<f32> {
    let (nz, ny, nx) = data.dim();
    let g = weights(window);
    let h = window / 2;
    let mut grad = Array3::from_elem((nz, ny, nx), [0.0f32; 3]);
    for z in 1..nz - 1 {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                grad[[z, y, x]] = [
                    data[[z, y, x + 1]] - data[[z, y, x - 1]],
                    data[[z, y + 1, x]] - data[[z, y - 1, x]],
                    data[[z + 1, y, x]] - data[[z - 1, y, x]],
                ];
            }
        }
    }
    let mut score = Array3::<f32>::zeros((nz, ny, nx));
    for z in h + 1..nz - h - 1 {
        for y in h + 1..ny - h - 1 {
            for x in h + 1..nx - h - 1 {
                // M[i][j] = Σ g · ∂i · ∂j over the window
                let mut m = [[0.0f32; 3]; 3];
                for dz in 0..window {
                    for dy in 0..window {
                        for dx in 0..window {
                            let d = grad[[z + dz - h, y + dy - h, x + dx - h]];
                            let wt = g[[dz, dy, dx]];
                            for i in 0..3 {
                                for j in 0..3 {
                                    m[i][j] += wt * d[i] * d[j];
                                }
                            }
                        }
                    }
                }
                let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                    - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                    + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
                let tr = m[0][0] + m[1][1] + m[2][2];
                score[[z, y, x]] = det - K * tr * tr * tr;
            }
        }
    }
    score
}

/// A synthetic volume of `n`³ voxels (`[z, y, x]`) with known corners: two boxes of
/// opacity 1 on 0, smoothed by a 3×3×3 box average (twice) so that the response has one
/// peak per corner. Returns the volume and the 16 box corners: the corner voxel of each
/// box (its first or last voxel along each axis). `n` must be at least 32.
pub fn phantom(n: usize) -> (Array3<f32>, Vec<[usize; 3]>) {
    assert!(n >= 32, "the phantom needs n >= 32");
    let boxes = [
        // [z, y, x] first and last voxel of each box
        ([n / 5, n / 4, n / 6], [n / 2, n / 2 + 2, n / 2 - 1]),
        (
            [3 * n / 5, n / 5 + 1, n / 2 + 3],
            [4 * n / 5, 3 * n / 5, 5 * n / 6],
        ),
    ];
    let mut v = Array3::<f32>::zeros((n, n, n));
    let mut corners = Vec::new();
    for (lo, hi) in boxes {
        for z in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for x in lo[2]..=hi[2] {
                    v[[z, y, x]] = 1.0;
                }
            }
        }
        for c in 0..8 {
            corners.push([
                if c & 4 == 0 { lo[0] } else { hi[0] },
                if c & 2 == 0 { lo[1] } else { hi[1] },
                if c & 1 == 0 { lo[2] } else { hi[2] },
            ]);
        }
    }
    for _ in 0..2 {
        v = box_blur(&v);
    }
    (v, corners)
}

/// The 3×3×3 box average of `v` (an `n`³ volume) at every voxel off the faces, as three
/// 3-point sums along x, y and z (on all cores: a 1024³ phantom is 4 GiB); the face
/// voxels keep their values.
fn box_blur(v: &Array3<f32>) -> Array3<f32> {
    use rayon::prelude::*;
    let n = v.dim().0;
    let src = v.as_slice().expect("a standard-layout volume");
    let plane = n * n;
    // 3-point sums along x, then y, then z, each for the voxels off that axis's faces
    let mut a = vec![0.0f32; n * plane];
    a.par_chunks_mut(n).enumerate().for_each(|(row, out)| {
        let s = &src[row * n..(row + 1) * n];
        for x in 1..n - 1 {
            out[x] = s[x - 1] + s[x] + s[x + 1];
        }
    });
    let mut b = vec![0.0f32; n * plane];
    b.par_chunks_mut(plane).enumerate().for_each(|(z, out)| {
        let p = &a[z * plane..(z + 1) * plane];
        for y in 1..n - 1 {
            for x in 0..n {
                out[y * n + x] = p[(y - 1) * n + x] + p[y * n + x] + p[(y + 1) * n + x];
            }
        }
    });
    let mut c = src.to_vec();
    c.par_chunks_mut(plane).enumerate().for_each(|(z, out)| {
        if z == 0 || z == n - 1 {
            return;
        }
        for y in 1..n - 1 {
            for x in 1..n - 1 {
                let i = y * n + x;
                out[i] =
                    (b[(z - 1) * plane + i] + b[z * plane + i] + b[(z + 1) * plane + i]) / 27.0;
            }
        }
    });
    Array3::from_shape_vec((n, n, n), c).expect("n³ values")
}
