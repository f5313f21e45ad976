//! The shared-memory optimizer (thesis Sec. 5.7): a block stages one or three xy planes of
//! an array in shared memory, with the ghost cells its stencil needs, and its shareable
//! references read the planes.
//!
//! Each side has its own ghost width, so asymmetric stencils load only what they use, and
//! the corners only when the stencil has diagonal references. The whole block loads the
//! ghost ring, cell by cell in turn (`chunk::plane_groups`), rather than the threads at
//! each side of the tile as in the thesis (Sec. 5.7.2).

use crate::analyzer::{Category, NearLimit, category, references};
use crate::ir::{ArrayParam, Kernel};

/// One array's shared-memory staging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedPlan {
    /// The z offsets of the staged planes: `(0, 0)` for one plane, `(-1, 1)` for three.
    pub z: (i64, i64),
    /// Ghost-cell widths: west, east, north (y−), south (y+).
    pub x_lo: u32,
    pub x_hi: u32,
    pub y_lo: u32,
    pub y_hi: u32,
    /// Corner ghost cells are needed.
    pub corners: bool,
}

impl SharedPlan {
    pub fn planes(&self) -> u32 {
        (self.z.1 - self.z.0 + 1) as u32
    }
    /// Whether a reference at `[dx, dy, dz]` reads the staged planes.
    pub fn covers(&self, [dx, dy, dz]: [i64; 3]) -> bool {
        dz >= self.z.0
            && dz <= self.z.1
            && dx >= -(self.x_lo as i64)
            && dx <= self.x_hi as i64
            && dy >= -(self.y_lo as i64)
            && dy <= self.y_hi as i64
            && (self.corners || dx == 0 || dy == 0)
    }
}

/// The staging of `array` with `planes` planes granted (1 or 3): the halo of the
/// shareable references that fall in the staged planes (offset analysis, Sec. 5.3.6).
pub fn plan(k: &Kernel, array: &ArrayParam, planes: u32) -> SharedPlan {
    let z = if planes >= 3 { (-1, 1) } else { (0, 0) };
    let mut s = SharedPlan {
        z,
        x_lo: 0,
        x_hi: 0,
        y_lo: 0,
        y_hi: 0,
        corners: false,
    };
    for r in references(k) {
        if r.array != array.name || category(&r, NearLimit::default()) == Category::NonStencil {
            continue;
        }
        let Some([dx, dy, dz]) = r.offset else {
            continue;
        };
        if dz < z.0 || dz > z.1 {
            continue;
        }
        s.x_lo = s.x_lo.max((-dx).max(0) as u32);
        s.x_hi = s.x_hi.max(dx.max(0) as u32);
        s.y_lo = s.y_lo.max((-dy).max(0) as u32);
        s.y_hi = s.y_hi.max(dy.max(0) as u32);
        s.corners |= dx != 0 && dy != 0;
    }
    s
}
