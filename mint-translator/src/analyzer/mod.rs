//! The stencil analyzer (thesis Sec. 5.3): reference lists, sharing categories, access
//! frequencies, shared-memory slots, variable selection and offset (halo) analysis.

pub mod categories;
pub mod reach;
pub mod refs;
pub mod select;
pub mod slabs;

use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use crate::target::Target;
pub use categories::{Category, Counts, NearLimit};
pub use refs::{Linear, Ref, linear, references};
pub use select::{Frequencies, frequencies, select, slots};
use std::collections::BTreeSet;

/// Halo (ghost-cell) widths per side, from the shareable references.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Halo {
    pub x_lo: u32,
    pub x_hi: u32,
    pub y_lo: u32,
    pub y_hi: u32,
    pub z_lo: u32,
    pub z_hi: u32,
}

impl Halo {
    pub fn as_array(&self) -> [u32; 6] {
        [
            self.x_lo, self.x_hi, self.y_lo, self.y_hi, self.z_lo, self.z_hi,
        ]
    }
}

/// What the analyzer found for one array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayAnalysis {
    pub name: String,
    pub counts: Counts,
    /// Ghost-cell widths of the shareable references (Sec. 5.3.6), each side on its own
    /// (asymmetric stencils keep asymmetric halos).
    pub halo: Halo,
    /// Some shareable reference has both an x and a y offset: corner ghost cells are needed.
    pub corners: bool,
    /// z offsets of the shareable references that are not in the center column.
    pub plane_offsets: BTreeSet<i64>,
    /// Lowest and highest z offset of center-column references `[z + dz][y][x]`,
    /// `|dz| <= 4` (the register queue of the sliding window).
    pub column: Option<(i64, i64)>,
    /// The first access is an unconditional write (a register need not be loaded).
    pub write_first: bool,
    pub read: bool,
    pub written: bool,
    /// Distinct shareable stencil points (offsets) of this array.
    pub shareable_points: usize,
    /// Why the array is not a shared-memory candidate, if it is not.
    pub not_shareable: Option<String>,
}

/// The analysis of one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub near: NearLimit,
    pub arrays: Vec<ArrayAnalysis>,
    pub freq: Frequencies,
    /// Shared-memory slots available: min(`shared = N`, shared bytes / plane bytes).
    pub slots: u32,
    /// Bytes of one shared-memory plane (tile plus the widest halo, largest element).
    pub plane_bytes: u32,
    /// `(array, planes)` granted by the selection algorithm.
    pub selected: Vec<(String, u32)>,
    /// Distinct shareable stencil points (offsets) over all arrays.
    pub distinct_shareable_offsets: usize,
}

impl Analysis {
    pub fn array(&self, name: &str) -> Option<&ArrayAnalysis> {
        self.arrays.iter().find(|a| a.name == name)
    }
    pub fn planes(&self, name: &str) -> u32 {
        self.selected
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| *p)
            .unwrap_or(0)
    }
    /// Shareable and total references over all arrays.
    pub fn shareable_refs(&self) -> (u32, u32) {
        self.arrays.iter().fold((0, 0), |(s, t), a| {
            (s + a.counts.shareable(), t + a.counts.total())
        })
    }
}

/// Analyzes `k` for the launch configuration `cfg` on `target`.
pub fn analyze(k: &Kernel, cfg: &LaunchConfig, target: &Target, near: NearLimit) -> Analysis {
    let refs = references(k);
    let mut arrays = Vec::new();
    let mut distinct = BTreeSet::new();
    for a in &k.arrays {
        let mine: Vec<&Ref> = refs.iter().filter(|r| r.array == a.name).collect();
        let mut counts = Counts::default();
        let mut halo = Halo::default();
        let mut corners = false;
        let mut plane_offsets = BTreeSet::new();
        let mut column: Option<(i64, i64)> = None;
        let mut points = BTreeSet::new();
        for r in &mine {
            let c = category(r, near);
            counts.add(c);
            if let Some([dx, dy, dz]) = r.offset {
                if dx == 0 && dy == 0 && dz.abs() <= 4 {
                    column = Some(match column {
                        Some((lo, hi)) => (lo.min(dz), hi.max(dz)),
                        None => (dz.min(0), dz.max(0)),
                    });
                }
                if c != Category::NonStencil {
                    distinct.insert((a.name.clone(), dx, dy, dz));
                    points.insert((dx, dy, dz));
                    halo.x_lo = halo.x_lo.max((-dx).max(0) as u32);
                    halo.x_hi = halo.x_hi.max(dx.max(0) as u32);
                    halo.y_lo = halo.y_lo.max((-dy).max(0) as u32);
                    halo.y_hi = halo.y_hi.max(dy.max(0) as u32);
                    halo.z_lo = halo.z_lo.max((-dz).max(0) as u32);
                    halo.z_hi = halo.z_hi.max(dz.max(0) as u32);
                    corners |= dx != 0 && dy != 0;
                    if dx != 0 || dy != 0 {
                        plane_offsets.insert(dz);
                    }
                }
            }
        }
        let write_first = mine
            .first()
            .is_some_and(|r| r.write && !r.conditional && r.offset == Some([0, 0, 0]));
        let not_shareable = if a.written {
            Some(
                "written by the kernel: only read-only arrays are staged in shared memory"
                    .to_string(),
            )
        } else if k.nest.len() < 2 {
            Some("one parallel loop: shared memory stages 2-D planes".to_string())
        } else if cfg.block[2] != 1 {
            Some("more than one thread along z (tile z differs from chunksize z)".to_string())
        } else if halo.x_lo > cfg.block[0] || halo.x_hi > cfg.block[0] {
            Some(format!(
                "x halo {}..{} wider than the block's {} threads along x",
                halo.x_lo, halo.x_hi, cfg.block[0]
            ))
        } else {
            None
        };
        arrays.push(ArrayAnalysis {
            name: a.name.clone(),
            counts,
            halo,
            corners,
            plane_offsets,
            column,
            write_first,
            read: a.read,
            written: a.written,
            shareable_points: points.len(),
            not_shareable,
        });
    }
    let counted: Vec<(String, Counts, bool)> = arrays
        .iter()
        .map(|a| (a.name.clone(), a.counts, a.not_shareable.is_none()))
        .collect();
    let freq = frequencies(&counted);
    // One plane: the tile plus the widest halo among candidates, in the largest element.
    let cands: Vec<&ArrayAnalysis> = arrays
        .iter()
        .filter(|a| {
            freq.one_plane
                .iter()
                .chain(&freq.three_planes)
                .any(|(n, _)| *n == a.name)
        })
        .collect();
    let hx = cands
        .iter()
        .map(|a| a.halo.x_lo + a.halo.x_hi)
        .max()
        .unwrap_or(0);
    let hy = cands
        .iter()
        .map(|a| a.halo.y_lo + a.halo.y_hi)
        .max()
        .unwrap_or(0);
    let es = cands
        .iter()
        .filter_map(|a| k.array(&a.name))
        .map(|a| a.elem.size_bytes())
        .max()
        .unwrap_or(8);
    let plane_bytes = (cfg.tile[0] + hx) * (cfg.tile[1] + hy) * es;
    let slots = if k.options.shared == 0 {
        0
    } else {
        select::slots(
            k.options.shared as u32,
            target.shared_bytes_optin,
            plane_bytes,
        )
    };
    let selected = select(&freq, slots);
    Analysis {
        near,
        arrays,
        freq,
        slots,
        plane_bytes,
        selected,
        distinct_shareable_offsets: distinct.len(),
    }
}

pub use categories::category;
