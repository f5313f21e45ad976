//! What the translator decided for a kernel, in words a user tuning it can act on
//! (printed by the runtime when `MINT_REPORT=1`).

use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Per-array facts and decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayReport {
    pub name: String,
    pub elem: String,
    pub read: bool,
    pub written: bool,
    /// References by sharing category (thesis Sec. 5.3.2): center, off-center, up-down,
    /// non-stencil.
    pub center: u32,
    pub off_center: u32,
    pub up_down: u32,
    pub non_stencil: u32,
    /// Halo (ghost-cell) width per side: [-x, +x, -y, +y, -z, +z].
    pub halo: [u32; 6],
    /// Shared-memory planes granted (0, 1 or 3 in the thesis; more for wider windows).
    pub shared_planes: u32,
    /// Whether center references live in registers.
    pub register: bool,
    /// Why the optimizer decided as it did for this array.
    pub why: String,
}

/// The translator's account of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub kernel: String,
    pub origin: String,
    pub level: String,
    pub threads: [u32; 3],
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
    pub shared_slots: u32,
    pub shared_bytes: u32,
    pub arrays: Vec<ArrayReport>,
    pub notes: Vec<String>,
    /// The reach of each reference whose subscripts are not all a loop index plus a
    /// constant as written (clamped, mirrored, wrapped, indirect):
    /// [`crate::analyzer::reach::report_lines`].
    #[serde(default)]
    pub reaches: Vec<String>,
}

impl Report {
    /// The report of a baseline translation.
    pub fn baseline(k: &Kernel, cfg: &LaunchConfig) -> Report {
        Report {
            kernel: k.name.clone(),
            origin: format!("{}:{}", k.origin.file, k.origin.line),
            level: if k.is_single() {
                "single".into()
            } else {
                "baseline".into()
            },
            threads: cfg.block,
            tile: cfg.tile,
            chunk: cfg.chunk,
            shared_slots: 0,
            shared_bytes: 0,
            arrays: k
                .arrays
                .iter()
                .map(|a| ArrayReport {
                    name: a.name.clone(),
                    elem: a.elem.to_string(),
                    read: a.read,
                    written: a.written,
                    why: "device memory (baseline)".into(),
                    ..Default::default()
                })
                .collect(),
            notes: Vec::new(),
            reaches: Vec::new(),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "kernel {} ({}) [{}]",
            self.kernel, self.origin, self.level
        )?;
        writeln!(
            f,
            "  tile {:?} chunksize {:?} -> {}x{}x{} threads per block; {} shared-memory slot(s), {} bytes",
            self.tile,
            self.chunk,
            self.threads[0],
            self.threads[1],
            self.threads[2],
            self.shared_slots,
            self.shared_bytes
        )?;
        for a in &self.arrays {
            let rw = match (a.read, a.written) {
                (true, true) => "read+written",
                (true, false) => "read-only",
                _ => "written",
            };
            writeln!(
                f,
                "  {:<10} {:<4} {:<12} refs: center {} off-center {} up-down {} non-stencil {}; halo -x{} +x{} -y{} +y{} -z{} +z{}; {} plane(s){}: {}",
                a.name,
                a.elem,
                rw,
                a.center,
                a.off_center,
                a.up_down,
                a.non_stencil,
                a.halo[0],
                a.halo[1],
                a.halo[2],
                a.halo[3],
                a.halo[4],
                a.halo[5],
                a.shared_planes,
                if a.register { ", register" } else { "" },
                a.why
            )?;
        }
        for r in &self.reaches {
            writeln!(f, "  reach: {r}")?;
        }
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        Ok(())
    }
}
