//! Shareable references and their sharing categories (thesis Sec. 5.3.2).

use super::refs::Ref;
use serde::{Deserialize, Serialize};

/// What counts as a "nearest neighbour": offsets up to `xy` in x and y and up to `z`
/// planes above and below. The thesis's default was 3 and 1; here `xy` defaults to 4 so
/// that radius-4 stencils share their planes (the halo radius the optimizer supports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NearLimit {
    pub xy: i64,
    pub z: i64,
}

impl Default for NearLimit {
    fn default() -> Self {
        NearLimit { xy: 4, z: 1 }
    }
}

/// The sharing category of one reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Category {
    /// `[z][y][x]`: zero offset in every dimension.
    Center,
    /// `[z][y ± c][x ± c]`, not the center: shareable within the plane.
    OffCenter,
    /// `[z ± s][y ± c][x ± c]` with `0 < |s| <= near.z`: in the planes above or below.
    UpDown,
    /// Anything else: goes through device memory.
    NonStencil,
}

/// The category of a reference under the near limit.
pub fn category(r: &Ref, near: NearLimit) -> Category {
    let Some([dx, dy, dz]) = r.offset else {
        return Category::NonStencil;
    };
    if dx.abs() > near.xy || dy.abs() > near.xy || dz.abs() > near.z {
        Category::NonStencil
    } else if dz != 0 {
        Category::UpDown
    } else if dx == 0 && dy == 0 {
        Category::Center
    } else {
        Category::OffCenter
    }
}

/// Per-array counts of references by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub center: u32,
    pub off_center: u32,
    pub up_down: u32,
    pub non_stencil: u32,
}

impl Counts {
    pub fn add(&mut self, c: Category) {
        match c {
            Category::Center => self.center += 1,
            Category::OffCenter => self.off_center += 1,
            Category::UpDown => self.up_down += 1,
            Category::NonStencil => self.non_stencil += 1,
        }
    }
    /// References a thread block can share through shared memory.
    pub fn shareable(&self) -> u32 {
        self.center + self.off_center + self.up_down
    }
    pub fn total(&self) -> u32 {
        self.shareable() + self.non_stencil
    }
}
