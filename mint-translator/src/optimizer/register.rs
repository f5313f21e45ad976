//! The register optimizer (thesis Sec. 5.6) and the register queue of the sliding window
//! (Sec. 5.8).
//!
//! Center references go to a register, loaded only if the first access is a read and
//! written back only if the array is written. With the sliding window, a read-only
//! array's center-column references `[z + d][y][x]` live in a queue of registers
//! covering `d = lo..=hi` (2R+1 for a stencil of radius R, up to 4), rotated by moves as
//! the thread steps along z, so each value is read from device memory once.

use super::shared::SharedPlan;
use crate::analyzer::ArrayAnalysis;
use crate::emit::names::c_ident;
use crate::ir::Kernel;

/// Where an array's center references live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegPlan {
    None,
    /// A read-only array: registers for `[z + d][y][x]`, `d` in `lo..=hi` (`lo == hi == 0`
    /// without the sliding window and without up-down references). Loaded for every
    /// thread (shared planes are filled from them).
    Queue {
        lo: i64,
        hi: i64,
    },
    /// A written array: one register per point.
    Point {
        load: bool,
        store: bool,
    },
}

/// Decides the registers of one array.
pub fn plan(k: &Kernel, a: &ArrayAnalysis, shared: Option<&SharedPlan>, window: bool) -> RegPlan {
    if !k.options.register {
        return RegPlan::None;
    }
    if a.written {
        return match a.column {
            Some(_) if a.counts.center > 0 => RegPlan::Point {
                load: !a.write_first,
                store: true,
            },
            _ => RegPlan::None,
        };
    }
    let (mut lo, mut hi) = match a.column {
        Some((lo, hi)) => (lo, hi),
        None if shared.is_some() => (0, 0),
        None => return RegPlan::None,
    };
    if !window {
        // without the window nothing is reused along z: registers only for the center
        // (up-down references read device memory or shared planes)
        lo = 0;
        hi = 0;
    }
    if let Some(s) = shared {
        // shared planes are filled from the registers
        lo = lo.min(s.z.0);
        hi = hi.max(s.z.1);
    }
    RegPlan::Queue { lo, hi }
}

/// The C name of register `d` (z offset) of point `p` of `array`'s queue.
pub fn qname(array: &str, p: usize, points: usize, d: i64) -> String {
    let mut s = format!("mint_{}", c_ident(array));
    if points > 1 {
        s.push_str(&format!("_p{p}"));
    }
    match d {
        0 => s.push_str("_z0"),
        d if d > 0 => s.push_str(&format!("_zp{d}")),
        d => s.push_str(&format!("_zm{}", -d)),
    }
    s
}
