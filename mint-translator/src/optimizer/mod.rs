//! The on-chip optimizer (thesis Ch. 5): unrolling (Sec. 5.4), registers (Sec. 5.6),
//! shared memory with ghost cells (Sec. 5.7), and the sliding window along z that
//! `chunksize` in z turns on (Sec. 5.8), plus `same_index` (Sec. 5.9) and `prefer_l1`
//! (Sec. 5.5, in the runtime).
//!
//! Beyond the thesis, `vectorize` (`vector`) gives each thread 16 bytes of consecutive x
//! points with 16-byte loads and stores and takes precedence over `shared` and
//! `register`; and `pipeline` copies the sliding window's shared-memory planes
//! asynchronously into a ring of slots, [`PIPELINE_DEPTH`] planes ahead (`chunk`), or,
//! with `vectorize`, the planes whose x and y neighbours a step reads (`vector::ring`).
//!
//! The optimizer runs on kernels of two or three parallel loops whose blocks have one
//! thread along z (`tile` z equal to `chunksize` z); others keep the baseline
//! translation (the report says why).

pub mod chunk;
pub mod faces;
pub mod register;
pub mod shared;
pub mod skeleton;
pub mod temporal;
pub mod unroll;
pub mod vector;

use crate::analyzer::{self, Analysis};
use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use crate::report::{ArrayReport, Report};
use crate::target::Target;
pub use register::RegPlan;
pub use shared::SharedPlan;

/// How one array is accessed in the optimized kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayPlan {
    pub shared: Option<SharedPlan>,
    pub reg: RegPlan,
    /// Read-only: device-memory loads go through the read-only data path (`__ldg`).
    pub ldg: bool,
}

/// Planes in flight ahead of the newest plane a step reads, with `pipeline`.
///
/// A CuPy prototype on an H100 timed 1, 2 and 3 for the radius-4 and radius-8 stars in
/// both precisions: 2 was the best in all four; 1 was 0.1–10 points of copy slower
/// (radius 4 in `f64`: 77.5% against 87.5%), 3 was 1.5–6.4 points slower.
pub const PIPELINE_DEPTH: i64 = 2;

/// The columns of a `pipeline` ring's planes for a tile `tx` points wide of `es`-byte
/// elements, with the ghost widths of `s`: (columns before the tile, columns in all,
/// whether rows copy as 16-byte chunks). When `tx` is a whole number of 16-byte chunks,
/// the ghost columns on each side are rounded up to whole chunks, so that where the
/// array's rows are 16-byte aligned (the runtime aligns each row's first interior column
/// to 128 bytes) a plane's rows copy 16 bytes at a time.
pub fn ring_columns(s: &SharedPlan, tx: u32, es: u32) -> (u32, u32, bool) {
    let w = 16 / es.clamp(1, 16);
    if !tx.is_multiple_of(w) {
        return (s.x_lo, tx + s.x_lo + s.x_hi, false);
    }
    let (left, right) = (s.x_lo.div_ceil(w) * w, s.x_hi.div_ceil(w) * w);
    (left, left + tx + right, true)
}

/// The optimizer's decisions for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// A sliding window along z: each thread walks `chunksize` z planes, rotating
    /// registers and shared-memory planes (Sec. 5.8).
    pub window: bool,
    /// `pipeline` applied: the shared planes are copied with `cp.async` into rings of
    /// [`Plan::ring`] slots, [`PIPELINE_DEPTH`] planes ahead (`chunk`).
    pub pipeline: bool,
    /// Index-aligned with the kernel's arrays.
    pub arrays: Vec<ArrayPlan>,
    /// Groups of arrays (indices) that share one set of pitch and plane-stride variables
    /// (`same_index`); the runtime checks their layouts agree.
    pub same_index: Vec<Vec<usize>>,
}

impl Plan {
    pub fn any_shared(&self) -> bool {
        self.arrays.iter().any(|a| a.shared.is_some())
    }

    /// With `pipeline`, the z offsets `(lo, hi)` of the planes a step of array `ai` reads
    /// from its ring: the staged planes, and up to the leading register of its queue
    /// (which the ring feeds). `None` without `pipeline` or without shared planes.
    pub fn ring(&self, ai: usize) -> Option<(i64, i64)> {
        let a = &self.arrays[ai];
        let s = a.shared.filter(|_| self.pipeline)?;
        let hi = match a.reg {
            RegPlan::Queue { hi, .. } => hi.max(s.z.1),
            _ => s.z.1,
        };
        Some((s.z.0, hi))
    }

    /// The shape of array `ai`'s shared planes in a tile of `tx` × `ty` points of
    /// `es`-byte elements: (ghost columns before the tile, rows, columns, whether rows
    /// copy as 16-byte chunks). A `pipeline` ring may pad its columns to whole 16-byte
    /// chunks ([`ring_columns`]). `None` when the array is not staged.
    pub fn plane_shape(
        &self,
        ai: usize,
        tx: u32,
        ty: u32,
        es: u32,
    ) -> Option<(u32, u32, u32, bool)> {
        let s = self.arrays[ai].shared?;
        let (pad, sx, vec) = if self.ring(ai).is_some() {
            ring_columns(&s, tx, es)
        } else {
            (s.x_lo, tx + s.x_lo + s.x_hi, false)
        };
        Some((pad, ty + s.y_lo + s.y_hi, sx, vec))
    }

    /// Bytes of array `ai`'s shared memory, all its slots, rounded up to 16 (each array's
    /// planes start 16-byte aligned in the kernel's one dynamic allocation).
    pub fn shared_bytes(&self, ai: usize, tx: u32, ty: u32, es: u32) -> u32 {
        self.plane_shape(ai, tx, ty, es)
            .map(|(_, sy, sx, _)| (self.slots(ai) * sy * sx * es).div_ceil(16) * 16)
            .unwrap_or(0)
    }

    /// The slots of array `ai`'s shared memory: its planes, plus one spare in the sliding
    /// window (double buffering), or with `pipeline` the ring's planes plus
    /// [`PIPELINE_DEPTH`] in flight.
    pub fn slots(&self, ai: usize) -> u32 {
        match (self.ring(ai), self.arrays[ai].shared) {
            (Some((lo, hi)), _) => (hi - lo + 1 + PIPELINE_DEPTH) as u32,
            (None, Some(s)) => s.planes() + self.window as u32,
            (None, None) => 0,
        }
    }
}

/// The staged kernel's plan (thesis Sec. 5.3): for each array its shared planes and
/// registers, and the `same_index` groups; each array's report says why
/// (`report.arrays`). `pipeline` is off: [`crate::plan`] decides it
/// ([`pipeline_stages`], [`pipeline_fits`]).
pub fn stage(k: &Kernel, cfg: &LaunchConfig, a: &Analysis, report: &mut Report) -> Plan {
    let window = k.nest.len() == 3 && cfg.chunk[2] > 1;
    let mut arrays = Vec::new();
    for (i, p) in k.arrays.iter().enumerate() {
        let aa = &a.arrays[i];
        let planes = a.planes(&p.name);
        let shared = (planes > 0).then(|| shared::plan(k, p, planes));
        let reg = register::plan(k, aa, shared.as_ref(), window);
        let r = &mut report.arrays[i];
        r.shared_planes = shared.as_ref().map(|s| s.planes()).unwrap_or(0);
        r.register = reg != RegPlan::None;
        r.why = why(k, a, aa, planes, &reg, &shared);
        arrays.push(ArrayPlan {
            shared,
            reg,
            ldg: !p.written,
        });
    }
    Plan {
        window,
        pipeline: false,
        arrays,
        same_index: same_index(k),
    }
}

/// With `same_index`, the groups of arrays (two or more of the same rank and element size)
/// that share one set of pitch and plane-stride variables (thesis Sec. 5.9).
fn same_index(k: &Kernel) -> Vec<Vec<usize>> {
    let mut same_index: Vec<Vec<usize>> = Vec::new();
    if !k.options.same_index {
        return same_index;
    }
    for (i, p) in k.arrays.iter().enumerate() {
        if p.ndim < 2 {
            continue;
        }
        let key = (p.ndim, p.elem.size_bytes());
        match same_index
            .iter_mut()
            .find(|g| (k.arrays[g[0]].ndim, k.arrays[g[0]].elem.size_bytes()) == key)
        {
            Some(g) => g.push(i),
            None => same_index.push(vec![i]),
        }
    }
    same_index.retain(|g| g.len() > 1);
    same_index
}

/// What `pipeline` needs of the staged kernel before `cp.async` (the first part of
/// [`crate::plan`]'s rule): staged arrays, of 4- or 8-byte elements.
pub fn pipeline_stages(k: &Kernel, plan: &Plan) -> Result<(), String> {
    if !plan.any_shared() {
        return Err("no array is staged in shared memory".to_string());
    }
    if let Some(a) = (0..k.arrays.len()).find(|&ai| {
        plan.arrays[ai].shared.is_some() && !matches!(k.arrays[ai].elem.size_bytes(), 4 | 8)
    }) {
        return Err(format!(
            "`cp.async` copies 4- and 8-byte elements, `{}` has {}-byte ones",
            k.arrays[a].name,
            k.arrays[a].elem.size_bytes()
        ));
    }
    Ok(())
}

/// Whether the staged kernel's rings fit the shared memory a block may opt into (the last
/// part of [`crate::plan`]'s rule for `pipeline`); `plan` has `pipeline` on.
pub fn pipeline_fits(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    plan: &Plan,
) -> Result<(), String> {
    let bytes: u32 = (0..k.arrays.len())
        .map(|ai| plan.shared_bytes(ai, cfg.tile[0], cfg.tile[1], k.arrays[ai].elem.size_bytes()))
        .sum();
    if bytes > target.shared_bytes_optin {
        return Err(format!(
            "its rings of planes take {bytes} bytes of shared memory, the device allows {} per block",
            target.shared_bytes_optin
        ));
    }
    Ok(())
}

/// The report's level of a staged kernel: what it stages and how.
pub fn level(k: &Kernel, plan: &Plan) -> String {
    let mut parts = Vec::new();
    if plan.any_shared() {
        parts.push("shared");
    }
    if plan.arrays.iter().any(|a| a.reg != RegPlan::None) {
        parts.push("register");
    }
    if plan.window {
        parts.push("sliding window along z");
    }
    if plan.pipeline {
        parts.push("pipeline (cp.async)");
    }
    if k.options.unroll {
        parts.push("unroll");
    }
    if parts.is_empty() {
        "optimizer on, nothing to stage".into()
    } else {
        parts.join(" + ")
    }
}

fn why(
    k: &Kernel,
    a: &Analysis,
    aa: &analyzer::ArrayAnalysis,
    planes: u32,
    reg: &RegPlan,
    shared: &Option<SharedPlan>,
) -> String {
    let mut w = Vec::new();
    match shared {
        Some(s) => w.push(format!(
            "shared: {} plane(s) granted ({} shareable refs; slots {})",
            s.planes(),
            aa.counts.shareable(),
            a.slots
        )),
        None if k.options.shared > 0 => {
            if let Some(r) = &aa.not_shareable {
                w.push(format!("not in shared memory: {r}"));
            } else if aa.counts.off_center == 0 && aa.counts.up_down <= 2 {
                w.push("not in shared memory: no off-center and at most two up-down references (nothing neighbouring threads share)".into());
            } else if planes == 0 {
                w.push(format!(
                    "not in shared memory: other arrays save more per slot ({} slot(s))",
                    a.slots
                ));
            }
        }
        None => {}
    }
    match reg {
        RegPlan::Queue { lo, hi } if lo == hi => w.push("register: center point".into()),
        RegPlan::Queue { lo, hi } => w.push(format!("registers: z column {lo}..={hi}")),
        RegPlan::Point { load, store } => w.push(format!(
            "register: center point{}{}",
            if *load {
                ", loaded"
            } else {
                ", written before read: not loaded"
            },
            if *store { ", written back" } else { "" }
        )),
        RegPlan::None if k.options.register && aa.counts.center == 0 => {
            w.push("no center references: no register".into())
        }
        RegPlan::None => {}
    }
    if w.is_empty() {
        w.push("device memory".into());
    }
    w.join("; ")
}

/// The report of an optimized kernel (before the plan fills in decisions), with the
/// analysis's note on shareable references.
pub fn report(k: &Kernel, cfg: &LaunchConfig, a: &Analysis) -> Report {
    let (sh, tot) = a.shareable_refs();
    let mut r = Report::baseline(k, cfg);
    r.shared_slots = a.slots;
    r.arrays = k
        .arrays
        .iter()
        .zip(&a.arrays)
        .map(|(p, aa)| ArrayReport {
            name: p.name.clone(),
            elem: p.elem.to_string(),
            read: p.read,
            written: p.written,
            center: aa.counts.center,
            off_center: aa.counts.off_center,
            up_down: aa.counts.up_down,
            non_stencil: aa.counts.non_stencil,
            halo: aa.halo.as_array(),
            shared_planes: 0,
            register: false,
            why: String::new(),
        })
        .collect();
    r.notes.push(format!(
        "{sh} of {tot} array references per point are shareable; {} distinct shareable stencil points; one plane is {} bytes",
        a.distinct_shareable_offsets, a.plane_bytes
    ));
    r
}
