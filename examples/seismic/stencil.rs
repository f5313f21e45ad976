//! The solver's operators, written once as device functions (`#[mint::device]`): the
//! staggered 4th-order differences of AWP-ODC (thesis Table 7.2, c1 = 9/8, c2 = −1/24),
//! trilinear interpolation for the receivers, and the averages the material model takes
//! on the host. Kernels call them and the runtime inlines them before the stencil
//! analyzer runs, so the shared-memory and register staging see every reference; host
//! code calls them as ordinary functions.
//!
//! Arrays are indexed `[k, j, i]` = `[z, y, x]`. A "forward" difference at index i uses
//! i − 1 .. i + 2 and sits half a cell after i; a "backward" one uses i − 2 .. i + 1 and
//! sits half a cell before it. Both are in units of the grid spacing (the solver's
//! coefficients carry dt/h).

use ndarray::{Array2, Array3};

/// Forward 4th-order difference along x: c1·(a[i+1] − a[i]) + c2·(a[i+2] − a[i−1]).
#[mint::device]
pub fn dxp(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k, j, i + 1]] - a[[k, j, i]])
        + (-1.0 / 24.0) * (a[[k, j, i + 2]] - a[[k, j, i - 1]])
}

/// Backward 4th-order difference along x: c1·(a[i] − a[i−1]) + c2·(a[i+1] − a[i−2]).
#[mint::device]
pub fn dxm(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k, j, i]] - a[[k, j, i - 1]])
        + (-1.0 / 24.0) * (a[[k, j, i + 1]] - a[[k, j, i - 2]])
}

/// Forward 4th-order difference along y.
#[mint::device]
pub fn dyp(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k, j + 1, i]] - a[[k, j, i]])
        + (-1.0 / 24.0) * (a[[k, j + 2, i]] - a[[k, j - 1, i]])
}

/// Backward 4th-order difference along y.
#[mint::device]
pub fn dym(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k, j, i]] - a[[k, j - 1, i]])
        + (-1.0 / 24.0) * (a[[k, j + 1, i]] - a[[k, j - 2, i]])
}

/// Forward 4th-order difference along z (down).
#[mint::device]
pub fn dzp(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k + 1, j, i]] - a[[k, j, i]])
        + (-1.0 / 24.0) * (a[[k + 2, j, i]] - a[[k - 1, j, i]])
}

/// Backward 4th-order difference along z.
#[mint::device]
pub fn dzm(a: &Array3<f32>, k: usize, j: usize, i: usize) -> f32 {
    1.125 * (a[[k, j, i]] - a[[k - 1, j, i]])
        + (-1.0 / 24.0) * (a[[k + 1, j, i]] - a[[k - 2, j, i]])
}

/// Trilinear interpolation of `a` at receiver `r` for velocity component `c` (0, 1, 2 for
/// u, v, w, each on its own staggered grid): `idx[[r, 3c..3c+3]]` is the lowest corner
/// `[k, j, i]` of the cell holding the receiver and `frac[[r, 3c..3c+3]]` its fractions
/// (0..1) of a cell along z, y, x ([`crate::model::Receivers`]).
#[mint::device]
pub fn trilinear(
    a: &Array3<f32>,
    idx: &Array2<i32>,
    frac: &Array2<f32>,
    r: usize,
    c: usize,
) -> f32 {
    let k = idx[[r, 3 * c]] as usize;
    let j = idx[[r, 3 * c + 1]] as usize;
    let i = idx[[r, 3 * c + 2]] as usize;
    let fz = frac[[r, 3 * c]];
    let fy = frac[[r, 3 * c + 1]];
    let fx = frac[[r, 3 * c + 2]];
    (1.0 - fz)
        * ((1.0 - fy) * ((1.0 - fx) * a[[k, j, i]] + fx * a[[k, j, i + 1]])
            + fy * ((1.0 - fx) * a[[k, j + 1, i]] + fx * a[[k, j + 1, i + 1]]))
        + fz * ((1.0 - fy) * ((1.0 - fx) * a[[k + 1, j, i]] + fx * a[[k + 1, j, i + 1]])
            + fy * ((1.0 - fx) * a[[k + 1, j + 1, i]] + fx * a[[k + 1, j + 1, i + 1]]))
}

/// The arithmetic mean of two values (density at a velocity node).
#[mint::device]
pub fn mean2(a: f64, b: f64) -> f64 {
    0.5 * (a + b)
}

/// The harmonic mean of four values (rigidity at a shear-stress node, Graves 1996).
#[mint::device]
pub fn harmonic4(a: f64, b: f64, c: f64, d: f64) -> f64 {
    4.0 / (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d)
}
