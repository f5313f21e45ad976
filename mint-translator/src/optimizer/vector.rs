//! Vectorized x (beyond the thesis; option `vectorize`): 16-byte loads and stores.
//!
//! Mint's threads each computed one x point, so every device-memory access was 4 or 8
//! bytes wide. On Hopper a memory-bound stencil needs more bytes in flight per load
//! instruction than that (`ncu` on the 7-point heat kernel in `f32`: long-scoreboard
//! stalls dominate at every level). Here each thread computes `V = 16 / sizeof(T)`
//! consecutive x points (4 in `f32`, 2 in `f64`):
//!
//! - every row `[z + dz][y + dy][·]` that a stencil array is read at becomes a few
//!   16-byte vectors covering `x0 + dx` for all lanes: the vector at `x0` itself and,
//!   for the x halo, whole aligned vectors on either side (`ceil(R / V)` of them), so a
//!   point costs `(2R/V + 1)/V` x-row loads instead of `2R + 1`;
//! - with `chunksize` in y above 1 each thread computes that many consecutive y rows
//!   (`mint_y0 + 0 ..`) and the rows are merged: a row vector the rows share (the box's
//!   y and y + 1 for two rows) is loaded once, and the z queues are per merged row;
//! - a written array is written at its center point only, through a register per lane,
//!   loaded (when the first access is a read) and stored as one 16-byte vector;
//! - with `chunksize` in z above 1 each thread walks its z chunk and keeps the center
//!   vector of every `dy = 0` row in a register queue (the sliding window of thesis
//!   Sec. 5.8, with vectors in the slots), so each plane's center is loaded once; every
//!   other vector `(dy, h)` that the kernel reads at two planes or more gets a queue of
//!   its own (the 27-point box reads all nine of its row vectors at z - 1, z and z + 1:
//!   9 loads per step instead of 25); with two y rows per thread as well, the box runs at
//!   85.5% / 90.3% of the copy bandwidth in `f64` / `f32` (H100, 512³; 75.3% / 71.0% at
//!   its best level before, README "Autotuning"); the next plane is prefetched one step
//!   ahead unless that holds more than [`QUEUE_REGISTERS`] registers;
//! - the body runs once per lane (`x = x0 + lane`), so any statement the baseline
//!   accepts works; references the analyzer cannot place (non-stencil subscripts, arrays
//!   of other dimensions) stay device-memory accesses of that lane.
//!
//! Vector accesses need each row's point `x0` 16-byte aligned. The runtime aligns the
//! first interior column of every row to 128 bytes (`mint-runtime` `array`). Each thread
//! tests once, before its z chunk (`fast_condition`), that every vectorized array's rows
//! are aligned (`&A[lo_x]`, pitch and plane stride multiples of 16 bytes) and that all
//! the rows and planes its chunk reads exist; it then runs the vector path with no bounds
//! test per load. Vectors that stick out of a row at either end read the next row or the
//! guard band of [`GUARD_BYTES`] around every device array, and those values reach only
//! lanes that are not stored: the last thread of a row stores only its lanes inside the
//! loop. Threads that fail the test (at the y/z faces, or all of them when rows are not
//! aligned) run the loop body per lane with the baseline's device-memory references
//! (`edge_path`). A per-load or per-step test instead made the first and last thread of
//! every row take a slow path, so half the warps of a 512-point row diverged.
//!
//! Registers are capped through `__launch_bounds__` at [`crate::Target::max_registers`]
//! ([`MAX_REGISTERS`] unless the runtime raised it for a kernel that spills under it).
//!
//! Measured on an H100 at 512³ (README, Performance): 3-D heat reaches 96% of the device
//! copy bandwidth in `f32` and `f64` (the best thesis level: 76% and 89%).

use super::chunk::plus;
use super::register::qname;
use super::skeleton;
use crate::analyzer::refs::{references, stencil_offset};
use crate::baseline::config::{LaunchConfig, vector_width};
use crate::emit::Param;
use crate::emit::cexpr::{CPrinter, RefResolver};
use crate::emit::cuda::{
    self, extent_name, flat_ref, hi_name, lo_name, pitch_name, point_body, slice_name,
};
use crate::emit::names::{Names, c_ident};
use crate::ir::*;
use crate::kir::print::helpers::{RING_HELPERS, helpers_source, vector_helpers};
use crate::kir::{Builder, If, Loop, LoopRole, Stmt, Unroll, VLoad, VSource, VStore, Var};
use crate::report::Report;
use crate::target::{GUARD_BYTES, Target};
use crate::translation::KernelSource;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

mod ring;

/// How one array is accessed in the vectorized kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ArrayVec {
    /// Read at stencil offsets: rows `(dy, dz)` and the vectors `h` (in units of `V`
    /// elements from `x0`) each needs.
    rows: BTreeMap<(i64, i64), BTreeSet<i64>>,
    /// Written (at its center point only).
    written: bool,
    /// Written array whose register must be loaded first (the first access is not an
    /// unconditional write).
    load: bool,
    /// The z queues of the sliding window: for a vector `h` of the rows `(dy, ·)` that
    /// the kernel reads at several planes, its vectors at `dz` in `lo..=hi`, keyed by
    /// `(dy, h)`. The center vector `(0, 0)` always has one (its range includes 0).
    queues: BTreeMap<(i64, i64), (i64, i64)>,
    /// How many of the `V` elements of vector `(dy, h)` the lanes read (an x halo vector
    /// of a radius below `V` is read at a few of them; the compiler keeps only those).
    used: BTreeMap<(i64, i64), usize>,
}

impl ArrayVec {
    /// The queue holding vector `h` of row `(dy, dz)`, if any: its `(lo, hi)`.
    fn queue_of(&self, dy: i64, dz: i64, h: i64) -> Option<(i64, i64)> {
        self.queues
            .get(&(dy, h))
            .copied()
            .filter(|(lo, hi)| (*lo..=*hi).contains(&dz))
    }
}

/// The vector path's plan of a kernel: its lanes, whether it walks a sliding window along
/// z, how each array is accessed, and the shared-memory rings of `pipeline`
/// (`VectorPlan::rings`, which [`crate::plan`] decides).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorPlan {
    /// Elements per 16-byte vector (the lanes).
    v: u32,
    /// The sliding window along z (three parallel loops, `chunksize` z above 1).
    window: bool,
    /// Index-aligned with the kernel's arrays.
    arrays: Vec<ArrayVec>,
    /// The `pipeline` rings of the read-only arrays; empty without `pipeline` or where it
    /// does not apply.
    rings: Vec<ring::Ring>,
}

impl VectorPlan {
    /// Whether each thread walks a sliding window along z (its z steps are what `roll_z`
    /// rolls).
    pub fn window(&self) -> bool {
        self.window
    }

    /// The `pipeline` rings of `k`'s read-only arrays, or why there are none: what
    /// [`crate::plan`]'s rule for `pipeline` asks of the vector path after the sliding
    /// window and `cp.async` (`ring::fit`). The rings' shape is decided here, before
    /// lowering, because the lowering builds the ring path from it.
    pub(crate) fn ring_fit(
        &self,
        k: &Kernel,
        cfg: &LaunchConfig,
        target: &Target,
    ) -> Result<Vec<ring::Ring>, String> {
        ring::fit(k, cfg, target, &self.arrays, self.v)
    }

    /// With `pipeline` applied: the rings the lowering builds.
    pub(crate) fn set_rings(&mut self, rings: Vec<ring::Ring>) {
        self.rings = rings;
    }

    /// 16-byte loads per thread and z step, all arrays.
    pub fn loads(&self) -> i64 {
        self.arrays.iter().map(loads_per_step).sum()
    }

    /// The x points of a thread: the lanes times its y rows (`chunksize` y).
    pub fn points(&self, cfg: &LaunchConfig) -> i64 {
        self.v as i64 * cfg.chunk[1] as i64
    }
}

pub(crate) use ring::stages as ring_stages;

/// The vector path's plan of `k` (`pipeline`'s rings not yet decided), or why the kernel
/// cannot be vectorized.
///
/// # Errors
/// A message for the report when the kernel does not qualify: fewer than two parallel
/// loops, a reduction, mixed or unsupported element sizes, or a written array referenced
/// off its center point.
pub fn plan(k: &Kernel, cfg: &LaunchConfig) -> Result<VectorPlan, String> {
    let (v, window, arrays) = arrays(k, cfg)?;
    Ok(VectorPlan {
        v,
        window,
        arrays,
        rings: Vec::new(),
    })
}

/// The per-array plan, or why the kernel cannot be vectorized.
fn arrays(k: &Kernel, cfg: &LaunchConfig) -> Result<(u32, bool, Vec<ArrayVec>), String> {
    let n = k.nest.len();
    let v = vector_width(k).ok_or_else(|| {
        if n < 2 {
            "it needs two or three parallel loops".to_string()
        } else if k.reduction.is_some() {
            "kernels with a reduction are not vectorized".to_string()
        } else {
            "its stencil arrays mix element sizes or are not 4- or 8-byte numbers".to_string()
        }
    })?;
    if cfg.chunk[0] != v {
        return Err(format!(
            "the x chunk is {} but the vector width is {v} (internal)",
            cfg.chunk[0]
        ));
    }
    let window = n == 3 && cfg.chunk[2] > 1;
    // y rows per thread: each row vector is loaded once for all of them
    let cy = cfg.chunk[1] as i64;
    let mut arrays = vec![ArrayVec::default(); k.arrays.len()];
    let refs = references(k);
    for (ai, a) in k.arrays.iter().enumerate() {
        let mine: Vec<_> = refs.iter().filter(|r| r.array == a.name).collect();
        let av = &mut arrays[ai];
        if a.written {
            if let Some(r) = mine.iter().find(|r| r.offset != Some([0, 0, 0])) {
                return Err(format!(
                    "`{}` is written and {} (a vectorized kernel writes arrays at the thread's own points only)",
                    a.name,
                    if r.offset.is_some() {
                        "referenced off its center point"
                    } else {
                        "referenced with non-stencil subscripts"
                    }
                ));
            }
            av.written = true;
            av.load = !mine
                .first()
                .is_some_and(|r| r.write && !r.conditional && r.offset == Some([0, 0, 0]));
            continue;
        }
        for r in &mine {
            let Some(o) = r.offset else { continue };
            let vi = v as i64;
            // lanes 0..V read x0 + lane + dx: the vectors from (dx div V) to ((dx + V - 1) div V)
            let (lo, hi) = (o[0].div_euclid(vi), (o[0] + vi - 1).div_euclid(vi));
            for yl in 0..cy {
                av.rows
                    .entry((yl + o[1], o[2]))
                    .or_default()
                    .extend(lo..=hi);
            }
        }
        let mut used: BTreeMap<(i64, i64), BTreeSet<i64>> = BTreeMap::new();
        for o in mine.iter().filter_map(|r| r.offset) {
            for (yl, lane) in (0..cy).flat_map(|yl| (0..v as i64).map(move |l| (yl, l))) {
                let x = lane + o[0];
                used.entry((yl + o[1], x.div_euclid(v as i64)))
                    .or_default()
                    .insert(x.rem_euclid(v as i64));
            }
        }
        av.used = used.into_iter().map(|(key, e)| (key, e.len())).collect();
        if window {
            // the planes at which each vector (dy, h) is read
            let mut planes: BTreeMap<(i64, i64), BTreeSet<i64>> = BTreeMap::new();
            for (&(dy, dz), hs) in &av.rows {
                for &h in hs {
                    planes.entry((dy, h)).or_default().insert(dz);
                }
            }
            for yl in 0..cy {
                let dz: Vec<i64> = av
                    .rows
                    .keys()
                    .filter(|(dy, _)| *dy == yl)
                    .map(|&(_, dz)| dz)
                    .collect();
                if let (Some(&lo), Some(&hi)) = (dz.iter().min(), dz.iter().max()) {
                    av.queues.insert((yl, 0), (lo.min(0), hi.max(0)));
                }
            }
            // every other vector read at two planes or more: the 27-point box's y ± 1 rows
            // and x halo vectors, read at z - 1, z and z + 1, each load once per step
            for (key, dzs) in planes {
                if key != (0, 0) && dzs.len() > 1 {
                    let (lo, hi) = (*dzs.first().unwrap(), *dzs.last().unwrap());
                    av.queues.insert(key, (lo, hi));
                }
            }
        }
    }
    Ok((v, window, arrays))
}

fn tag(prefix: char, d: i64) -> String {
    match d {
        0 => format!("{prefix}0"),
        d if d > 0 => format!("{prefix}p{d}"),
        d => format!("{prefix}m{}", -d),
    }
}

/// The register array holding vector `h` of the rows `(dy, ·)` of `array` at plane `dz`
/// in its z queue (the center vector's queue has the thesis's register-queue names).
fn queue_name(array: &str, dy: i64, h: i64, dz: i64) -> String {
    if (dy, h) == (0, 0) {
        qname(array, 0, 1, dz)
    } else {
        format!(
            "mint_q_{}_{}_{}_{}",
            c_ident(array),
            tag('y', dy),
            tag('h', h),
            tag('z', dz)
        )
    }
}

/// The register array holding vector `h` of row `(dy, dz)` of `array`.
fn vname(array: &str, dy: i64, dz: i64, h: i64) -> String {
    format!(
        "mint_v_{}_{}_{}_{}",
        c_ident(array),
        tag('y', dy),
        tag('z', dz),
        tag('h', h)
    )
}

/// The registers of written `array` at the thread's y row `yl` (of `chunksize` y).
fn wname(array: &str, yl: i64) -> String {
    if yl == 0 {
        format!("mint_w_{}", c_ident(array))
    } else {
        format!("mint_w{yl}_{}", c_ident(array))
    }
}

struct VecRefs<'a> {
    k: &'a Kernel,
    arrays: &'a [ArrayVec],
    v: i64,
    lane: Cell<i64>,
    /// The thread's y rows (`chunksize` y) and the one whose body is printed.
    cy: i64,
    ylane: Cell<i64>,
    /// The edge path: every reference a device-memory access of lane `x`.
    direct: Cell<bool>,
}

impl RefResolver for VecRefs<'_> {
    fn kernel(&self) -> &Kernel {
        self.k
    }
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String {
        let ai = self.k.array_index(array).expect("kernel array");
        let av = &self.arrays[ai];
        let (lane, yl) = (self.lane.get(), self.ylane.get());
        let vector = !self.direct.get();
        if vector && av.written {
            return format!("{}[{lane}]", wname(array, yl));
        }
        if vector && let Some(o) = stencil_offset(self.k, array, index) {
            let x = lane + o[0];
            let (h, e) = (x.div_euclid(self.v), x.rem_euclid(self.v));
            let dy = yl + o[1];
            if av.queue_of(dy, o[2], h).is_some() {
                return format!("{}[{e}]", queue_name(array, dy, h, o[2]));
            }
            return format!("{}[{e}]", vname(array, dy, o[2], h));
        }
        // the edge path, and references the vectors do not cover: device memory, read-only
        // arrays through the read-only data path
        let flat = flat_ref(p, &p.names.get(array), array, index);
        if av.written {
            flat
        } else {
            format!("__ldg(&{flat})")
        }
    }
}

pub use crate::target::{MAX_REGISTERS, REGISTER_STEPS, min_blocks, next_register_cap};

/// Chunks in z up to this length are unrolled completely, so the z queue's moves become
/// register renaming; `roll_z` keeps them a loop.
const UNROLL_Z: u32 = 16;

struct Names3 {
    x: String,
    /// The y the row offsets start from: the loop variable, or `mint_y0` where a thread
    /// computes several y rows at once.
    y: String,
    /// The y loop variable of the kernel.
    yvar: String,
    z: Option<String>,
}

/// `(y + dy) * pitch [+ (z + dz) * slice]`: the offset of a row of array `ai`, in elements.
fn row_off(k: &Kernel, ai: usize, nm: &Names3, dy: i64, dz: i64) -> String {
    let a = &k.arrays[ai];
    let mut s = format!("({}{}) * {}", nm.y, plus(dy), pitch_name(&a.name));
    if let Some(z) = &nm.z {
        s.push_str(&format!(" + ({z}{}) * {}", plus(dz), slice_name(&a.name)));
    }
    s
}

/// One vector load of a step.
struct Load {
    ai: usize,
    dy: i64,
    dz: i64,
    h: i64,
    dst: String,
    /// Of an array the kernel writes (plain loads, not the read-only path).
    rw: bool,
    /// With a shared-memory ring: the vector's place in it (`ring::Ring::vector`),
    /// loaded from there instead of device memory.
    shared: Option<String>,
}

/// The leading plane of one z queue, loaded at every step.
#[derive(Clone, Copy)]
struct Lead {
    ai: usize,
    dy: i64,
    h: i64,
    /// The plane: one past the queue's last, prefetched for the next step, or its last.
    dz: i64,
    /// Prefetched one step ahead (skipped in the chunk's last step).
    ahead: bool,
}

/// The condition, tested once per thread (and y row), under which every access of the
/// thread's whole z chunk can be a whole aligned 16-byte vector: the rows exist in y and
/// z, and in x the vectors stay within [`GUARD_BYTES`] of the row (past a row's end is
/// the next row or, after the last row, the guard band). The thread then runs the vector
/// path without a bounds test per load; only threads at the y/z faces of the arrays (or
/// all threads, when rows are not 16-byte aligned) run the loop body per lane instead.
fn fast_condition(k: &Kernel, arrays: &[ArrayVec], nm: &Names3, v: i64) -> String {
    let mut g = vec!["mint_vec".to_string()];
    let mut push = |c: String| {
        if !g.contains(&c) {
            g.push(c);
        }
    };
    for (ai, av) in arrays.iter().enumerate() {
        let a = &k.arrays[ai];
        let guard = (GUARD_BYTES / a.elem.size_bytes() as usize) as i64;
        let (mut h0, mut h1) = (0, 0);
        if !av.rows.is_empty() {
            let hs = av.rows.values().flatten();
            (h0, h1) = (*hs.clone().min().unwrap(), *hs.max().unwrap());
        } else if !av.written {
            continue;
        }
        if h0 < 0 {
            push(format!("mint_x0{} >= -{guard}", plus(h0 * v)));
        }
        push(format!(
            "mint_x0{} <= {} + {guard}",
            plus((h1 + 1) * v),
            extent_name(&a.name, 0)
        ));
        let dy = av.rows.keys().map(|r| r.0);
        let (y0, y1) = (dy.clone().min().unwrap_or(0), dy.max().unwrap_or(0));
        if y0 < 0 {
            push(format!("{}{} >= 0", nm.y, plus(y0)));
        }
        if y1 > 0 {
            push(format!(
                "{}{} < {}",
                nm.y,
                plus(y1),
                extent_name(&a.name, 1)
            ));
        }
        if nm.z.is_some() {
            plane_conditions(a, av).into_iter().for_each(&mut push);
        }
    }
    g.join(" && ")
}

/// The conditions under which every plane `z + dz` that `a` is read at, for every step
/// `z` of the chunk `mint_z0 .. mint_z_end`, exists.
fn plane_conditions(a: &ArrayParam, av: &ArrayVec) -> Vec<String> {
    let dz = av.rows.keys().map(|r| r.1);
    let (z0, z1) = (dz.clone().min().unwrap_or(0), dz.max().unwrap_or(0));
    let mut g = Vec::new();
    if z0 < 0 {
        g.push(format!("mint_z0{} >= 0", plus(z0)));
    }
    if z1 > 0 {
        g.push(format!(
            "mint_z_end{} < {}",
            plus(z1 - 1),
            extent_name(&a.name, 2)
        ));
    }
    g
}

/// Whether the body has references that are not vector registers (non-stencil
/// subscripts, arrays of other dimensions): lanes past the loop end must then not run,
/// since those references could fall outside their arrays.
fn lanes_need_guard(k: &Kernel, arrays: &[ArrayVec]) -> bool {
    references(k).iter().any(|r| {
        let ai = k.array_index(&r.array).expect("kernel array");
        !arrays[ai].written && r.offset.is_none()
    })
}

/// One z step of the vector path (or the whole point set of a 2-D kernel): the step's
/// vector loads (the leading plane of each z queue in `lead`, row vectors, written
/// arrays' centers), the lanes' bodies, the 16-byte stores. Nothing is guarded: the
/// thread passed [`fast_condition`], or its block runs the ring path (`rings`, whose
/// arrays' row vectors at the step's plane come from shared memory).
#[allow(clippy::too_many_arguments)]
fn step(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    arrays: &[ArrayVec],
    refs: &VecRefs,
    nm: &Names3,
    v: u32,
    lead: &[Lead],
    rings: &[ring::Ring],
) {
    let cy = refs.cy;
    let loads = step_registers(b, k, arrays, v, cy, rings);
    lead_loads(p, b, k, nm, v, lead, None);
    step_loads(p, b, k, nm, v, &loads);
    let guard = lanes_need_guard(k, arrays);
    if cy == 1 {
        lanes(p, b, k, refs, nm, v, guard);
    } else {
        // the thread's y rows, each with the loop variable of its own row
        for yl in 0..cy {
            refs.ylane.set(yl);
            b.scope(|b| {
                b.push(Stmt::konst(
                    "idx_t",
                    nm.yvar.clone(),
                    format!("mint_y0{}", plus(yl)),
                ));
                lanes(p, b, k, refs, nm, v, guard);
            });
        }
        refs.ylane.set(0);
    }
    stores(p, b, k, arrays, nm, v, cy);
}

/// Declares the registers of a step's row vectors (those off the z queues) and of the
/// written arrays' centers, and returns the loads that fill them: from a ring's slot
/// where the array has one (the step's plane), else from device memory.
fn step_registers(
    b: &mut Builder,
    k: &Kernel,
    arrays: &[ArrayVec],
    v: u32,
    cy: i64,
    rings: &[ring::Ring],
) -> Vec<Load> {
    let mut loads: Vec<Load> = Vec::new();
    for (ai, av) in arrays.iter().enumerate() {
        let a = &k.arrays[ai];
        let t = a.elem.cuda_name();
        for (&(dy, dz), hs) in &av.rows {
            for &h in hs {
                if av.queue_of(dy, dz, h).is_some() {
                    continue;
                }
                let dst = vname(&a.name, dy, dz, h);
                b.push(Stmt::vars(t, vec![Var::array(&dst, v)]));
                let shared = rings
                    .iter()
                    .find(|r| r.ai == ai && dz == 0)
                    .map(|r| r.vector(&a.name, dy, h, v));
                loads.push(Load {
                    ai,
                    dy,
                    dz,
                    h,
                    dst,
                    rw: false,
                    shared,
                });
            }
        }
        if av.written {
            for yl in 0..cy {
                let w = wname(&a.name, yl);
                b.push(Stmt::vars(t, vec![Var::array(&w, v)]));
                if av.load {
                    loads.push(Load {
                        ai,
                        dy: yl,
                        dz: 0,
                        h: 0,
                        dst: w,
                        rw: true,
                        shared: None,
                    });
                }
            }
        }
    }
    loads
}

/// The step's vector loads.
fn step_loads(p: &CPrinter, b: &mut Builder, k: &Kernel, nm: &Names3, v: u32, loads: &[Load]) {
    for l in loads {
        let a = &k.arrays[l.ai];
        if let Some(at) = &l.shared {
            b.push(Stmt::VLoad(VLoad {
                src: VSource::Shared(at.clone()),
                dst: l.dst.clone(),
            }));
            continue;
        }
        b.push(Stmt::VLoad(VLoad {
            src: VSource::Global {
                array: p.names.get(&a.name),
                index: format!(
                    "{} + mint_x0{}",
                    row_off(k, l.ai, nm, l.dy, l.dz),
                    plus(l.h * v as i64)
                ),
                rw: l.rw,
            },
            dst: l.dst.clone(),
        }));
    }
}

/// The step's 16-byte stores of the written arrays' centers, each row's last thread
/// storing only its lanes inside the loop.
fn stores(
    p: &CPrinter,
    b: &mut Builder,
    k: &Kernel,
    arrays: &[ArrayVec],
    nm: &Names3,
    v: u32,
    cy: i64,
) {
    for (ai, _) in arrays.iter().enumerate().filter(|(_, av)| av.written) {
        for yl in 0..cy {
            let a = &k.arrays[ai];
            let (base, off, w) = (
                p.names.get(&a.name),
                row_off(k, ai, nm, yl, 0),
                wname(&a.name, yl),
            );
            let store = |count: Option<String>| {
                vec![Stmt::VStore(VStore {
                    array: base.clone(),
                    index: format!("{off} + mint_x0"),
                    count,
                    src: w.clone(),
                })]
            };
            b.push(Stmt::If(If {
                cond: format!("mint_x0{} <= {}", plus(v as i64), hi_name(0)),
                then: store(None),
                els: Some(store(Some(format!("{} - mint_x0", hi_name(0))))),
                inline: true,
            }));
        }
    }
}

/// The z queues' leading planes (`lead`), each loaded by the threads where `cond` holds
/// (all, without one), a prefetched plane only if the chunk has a next step. `step` loads
/// them first; the ring path loads them before its step's wait and barrier, so that their
/// latency overlaps the wait (the radius-8 star in `f32`: 60.5% of copy against 58.4%
/// loaded after the barrier, on an H100).
fn lead_loads(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    nm: &Names3,
    v: u32,
    lead: &[Lead],
    cond: Option<&str>,
) {
    for l in lead {
        let a = &k.arrays[l.ai];
        let z = nm.z.as_ref().expect("z queues are 3-D");
        let next = l.ahead.then(|| format!("{z} + 1 < mint_z_end"));
        let conds: Vec<String> = cond.map(String::from).into_iter().chain(next).collect();
        let load = vload(
            p.names.get(&a.name),
            format!(
                "{} + mint_x0{}",
                row_off(k, l.ai, nm, l.dy, l.dz),
                plus(l.h * v as i64)
            ),
            queue_name(&a.name, l.dy, l.h, l.dz),
        );
        if conds.is_empty() {
            b.push(load);
        } else {
            b.push(Stmt::if_line(conds.join(" && "), load));
        }
    }
}

/// The loop body once per lane (`x = x0 + lane`), with `x < hi` around it if `guard`.
fn lanes(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    refs: &VecRefs,
    nm: &Names3,
    v: u32,
    guard: bool,
) {
    for lane in 0..v as i64 {
        refs.lane.set(lane);
        b.scope(|b| {
            b.push(Stmt::konst(
                "idx_t",
                nm.x.clone(),
                format!("mint_x0{}", plus(lane)),
            ));
            let cond = guard.then(|| format!("{} < {}", nm.x, hi_name(0)));
            b.if_some(cond.as_deref(), |b| point_body(p, b, &k.body));
        });
    }
}

/// The edge path: the loop body per lane (`x < hi` only), every reference a device-memory
/// access as in the baseline translation, for every step of the thread's z chunk. With
/// `lane_loop` the lanes are a loop that is not unrolled (the ring path's: unrolled, the
/// compiler keeps every lane's loads in flight at once, and a high-order stencil's edge
/// path then needs more registers than its ring path; the body is the same for every lane,
/// since the edge path's references use `x`).
fn edge_path(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    refs: &VecRefs,
    nm: &Names3,
    v: u32,
    lane_loop: bool,
) {
    refs.direct.set(true);
    let mut per_lane = |b: &mut Builder| {
        if lane_loop {
            let l = Loop::new(
                LoopRole::Lanes,
                "int mint_l = 0",
                format!("mint_l < {v}"),
                "++mint_l",
            )
            .unroll(Some(Unroll::By(1)));
            b.for_(l, |b| {
                b.push(Stmt::konst("idx_t", nm.x.clone(), "mint_x0 + mint_l"));
                b.if_(format!("{} < {}", nm.x, hi_name(0)), |b| {
                    point_body(p, b, &k.body)
                });
            });
        } else {
            lanes(p, b, k, refs, nm, v, true);
        }
    };
    match &nm.z {
        Some(z) => {
            let l = Loop::new(
                LoopRole::Planes,
                format!("idx_t {z} = mint_z0"),
                format!("{z} < mint_z_end"),
                format!("++{z}"),
            );
            b.for_(l, per_lane);
        }
        None => per_lane(b),
    }
    refs.direct.set(false);
}

/// [`edge_path`] for each of the thread's `cy` y rows (`chunksize` y): a loop over the
/// rows inside the loop's range where there are several.
#[allow(clippy::too_many_arguments)]
fn edge_rows(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    refs: &VecRefs,
    nm: &Names3,
    v: u32,
    cy: u32,
    lane_loop: bool,
) {
    if cy == 1 {
        return edge_path(p, b, k, refs, nm, v, lane_loop);
    }
    let y = &nm.yvar;
    let l = Loop::new(
        LoopRole::Rows,
        format!(
            "idx_t {y} = mint_y0, mint_y_end = min(mint_y0 + {cy}, {})",
            hi_name(1)
        ),
        format!("{y} < mint_y_end"),
        format!("++{y}"),
    );
    b.for_(l, |b| edge_path(p, b, k, refs, nm, v, lane_loop));
}

/// The 16-byte vector type of each element type the kernel vectorizes.
fn vector_types(k: &Kernel, arrays: &[ArrayVec]) -> String {
    let mut seen = BTreeSet::new();
    let mut out = String::new();
    for (a, av) in k.arrays.iter().zip(arrays) {
        if (av.written || !av.rows.is_empty()) && seen.insert(a.elem.cuda_name()) {
            let vt = match a.elem {
                ScalarTy::F32 => "float4",
                ScalarTy::F64 => "double2",
                ScalarTy::I32 => "int4",
                ScalarTy::U32 => "uint4",
                ScalarTy::I64 => "longlong2",
                _ => "ulonglong2",
            };
            out.push_str(&format!(
                "template <> struct mint_vec<{}> {{ typedef {vt} type; }};\n",
                a.elem.cuda_name()
            ));
        }
    }
    out
}

/// 16-byte loads per thread and z step for one array: every row vector, except that the
/// vectors of a z queue cost one load (the leading one) together.
fn loads_per_step(av: &ArrayVec) -> i64 {
    let unqueued = av
        .rows
        .iter()
        .flat_map(|(&(dy, dz), hs)| hs.iter().map(move |&h| (dy, dz, h)))
        .filter(|&(dy, dz, h)| av.queue_of(dy, dz, h).is_none())
        .count();
    (unqueued + av.queues.len()) as i64
}

/// Registers the z queues' values may hold at once, above which the leading plane is no
/// longer prefetched one step ahead but loaded in the step that first reads it (one
/// plane fewer in registers). Measured on an H100 at 512³: the box in `f64` with two y rows
/// per thread holds 128 with the prefetch and spills under the runtime's second cap (72% of
/// copy at t64x8x4), 96 without (85%); in `f32` it holds 96 and the prefetch is worth 1%
/// (88.6% / 87.4%).
pub const QUEUE_REGISTERS: usize = 96;

/// [`QUEUE_REGISTERS`] for the ring path (`pipeline`), whose steps hold no row vectors in
/// registers while they wait for device memory: the radius-8 star in `f64` with two y rows
/// per thread holds 144 with the prefetch, as the prototype that ran it at 60.1% of copy
/// on an H100.
pub const RING_QUEUE_REGISTERS: usize = 160;

/// Registers that the z queues of `arrays` hold with `slots` planes each beyond their
/// range (1 with the prefetch, 0 without): only the elements the lanes read.
fn queue_registers(k: &Kernel, arrays: &[ArrayVec], slots: i64) -> usize {
    let mut n = 0;
    for (a, av) in k.arrays.iter().zip(arrays) {
        let words = a.elem.size_bytes().div_ceil(4) as usize;
        for (key, &(lo, hi)) in &av.queues {
            let elems = av.used.get(key).copied().unwrap_or(0);
            n += (hi - lo + 1 + slots) as usize * elems * words;
        }
    }
    n
}

/// The report's words for an array's z queues.
fn queue_report(queues: &BTreeMap<(i64, i64), (i64, i64)>) -> String {
    let mut s = String::new();
    if let Some((lo, hi)) = queues.get(&(0, 0)) {
        s.push_str(&format!("; z queue {lo}..={hi} of center vectors"));
    }
    let others = queues.len() - usize::from(queues.contains_key(&(0, 0)));
    if others > 0 {
        s.push_str(&format!(
            "; {others} more z queue(s) of vectors read at several planes"
        ));
    }
    s
}

/// The sliding window's z queues: declares each queue's registers and loads its planes
/// before the first step (under `guard`, a condition, where given), and returns the
/// leading plane each step loads and how many planes ahead of its range it is (1 with the
/// prefetch, 0 without: the prefetch is left out where it would hold more than `limit`
/// registers).
#[allow(clippy::too_many_arguments)]
fn queues(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    arrays: &[ArrayVec],
    nm: &Names3,
    v: u32,
    guard: Option<&str>,
    limit: usize,
) -> (Vec<Lead>, i64) {
    let mut lead = Vec::new();
    // the leading plane one step ahead, unless that holds more than `limit` registers
    let prefetch = queue_registers(k, arrays, 1) <= limit;
    let ahead = i64::from(prefetch);
    b.comment("sliding window along z: center vectors of the dy = 0 rows in a register queue,");
    b.comment(if prefetch {
        "the next step's leading plane prefetched one step ahead"
    } else {
        "each step loads its leading plane (a prefetch would hold too many registers)"
    });
    if arrays
        .iter()
        .any(|av| av.queues.keys().any(|&q| q != (0, 0)))
    {
        b.comment("(and so are the other vectors read at several planes, in queues of their own)");
    }
    let first = Names3 {
        x: nm.x.clone(),
        y: nm.y.clone(),
        yvar: nm.yvar.clone(),
        z: Some("mint_z0".into()),
    };
    let mut loads = Vec::new();
    for (ai, av) in arrays.iter().enumerate() {
        let a = &k.arrays[ai];
        for (&(dy, h), &(lo, hi)) in &av.queues {
            let decl: Vec<Var> = (lo..=hi + ahead)
                .map(|d| Var::array(queue_name(&a.name, dy, h, d), v))
                .collect();
            b.push(Stmt::vars(a.elem.cuda_name(), decl));
            for d in lo..=hi + ahead - 1 {
                loads.push(vload(
                    p.names.get(&a.name),
                    format!(
                        "{} + mint_x0{}",
                        row_off(k, ai, &first, dy, d),
                        plus(h * v as i64)
                    ),
                    queue_name(&a.name, dy, h, d),
                ));
            }
            lead.push(Lead {
                ai,
                dy,
                h,
                dz: hi + ahead,
                ahead: prefetch,
            });
        }
    }
    b.if_some(guard, |b| b.extend(loads));
    (lead, ahead)
}

/// A 16-byte load of `array[index ..]` through the read-only path into `dst`.
fn vload(array: String, index: String, dst: String) -> Stmt {
    Stmt::VLoad(VLoad {
        src: VSource::Global {
            array,
            index,
            rw: false,
        },
        dst,
    })
}

/// The end of a step: every z queue moves one plane along (register renaming where the
/// z steps are unrolled).
fn queue_moves(b: &mut Builder, k: &Kernel, arrays: &[ArrayVec], ahead: i64) {
    for (ai, av) in arrays.iter().enumerate() {
        let a = &k.arrays[ai];
        for (&(dy, h), &(lo, hi)) in &av.queues {
            for d in lo..hi + ahead {
                b.push(Stmt::VMove {
                    dst: queue_name(&a.name, dy, h, d),
                    src: queue_name(&a.name, dy, h, d + 1),
                });
            }
        }
    }
}

/// What the vector path's lowering builds from: the kernel, its configuration and the
/// plan ([`plan`], and the rings of `pipeline`).
struct Lowering<'a> {
    k: &'a Kernel,
    cfg: &'a LaunchConfig,
    arrays: &'a [ArrayVec],
    refs: &'a VecRefs<'a>,
    nm: Names3,
    /// Elements per 16-byte vector (the lanes).
    v: u32,
    /// The sliding window along z (`chunksize` z above 1).
    window: bool,
    rings: &'a [ring::Ring],
}

/// Lowers `k` under the vector path's plan `vp` to the kernel IR: the thread's first
/// point, the alignment test, then the ring path (`ring::body`) or the vector path with
/// its edge path. `level` is the report's, for the header.
pub(crate) fn lower(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    vp: &VectorPlan,
    level: &str,
) -> KernelSource {
    let (v, arrays, rings) = (vp.v, &vp.arrays, &vp.rings);
    let entry = cuda::entry_name(k);
    let extents: Vec<bool> = arrays
        .iter()
        .map(|a| a.written || !a.rows.is_empty())
        .collect();
    let params = cuda::base_params(k, &extents);
    let (params, packed) = cuda::pack_params(k, params, target.idx64, target.param_limit);
    let refs = VecRefs {
        k,
        arrays,
        v: v as i64,
        lane: Cell::new(0),
        cy: cfg.chunk[1] as i64,
        ylane: Cell::new(0),
        direct: Cell::new(false),
    };
    let mut p = CPrinter::new(names(k, &params, &packed, rings), &refs);
    let x = Lowering {
        k,
        cfg,
        arrays,
        refs: &refs,
        nm: names3(&p, k, refs.cy),
        v,
        window: vp.window,
        rings,
    };
    let mut b = Builder::new();
    lower_body(&mut p, &mut b, &x);
    let helpers = format!(
        "{}{}{}",
        vector_helpers(&vector_types(k, arrays)),
        if rings.is_empty() { "" } else { RING_HELPERS },
        helpers_source(&p.helpers.borrow())
    );
    let notes = vec![
        format!("optimizations: {level}"),
        format!(
            "vector width {v}; {} 16-byte loads per thread and step",
            vp.loads()
        ),
    ];
    KernelSource {
        entry,
        notes,
        helpers,
        params,
        packed,
        body: b.finish(),
        dynamic_shared_bytes: 0,
        static_shared_bytes: ring_bytes(k, rings) as u32,
        same_index: Vec::new(),
    }
}

/// Bytes of shared memory of the rings.
fn ring_bytes(k: &Kernel, rings: &[ring::Ring]) -> usize {
    rings
        .iter()
        .map(|g| g.bytes(k.arrays[g.ai].elem.size_bytes() as usize))
        .sum()
}

/// The names every vectorized kernel reserves, and those of the ring path.
fn names(k: &Kernel, params: &[Param], packed: &[Param], rings: &[ring::Ring]) -> Names {
    let mut names = cuda::base_names(k, params, packed);
    for internal in [
        "mint_x0",
        "mint_y0",
        "mint_z0",
        "mint_vec",
        "mint_y_end",
        "mint_z_end",
    ] {
        names.reserve(internal);
    }
    if !rings.is_empty() {
        for internal in [
            "mint_x_tile",
            "mint_y_tile",
            "mint_tid",
            "mint_active",
            "mint_slot",
            "mint_le",
            "mint_lr",
            "mint_lc",
            "mint_gx",
            "mint_gy",
            "mint_in",
            "mint_l",
        ] {
            names.reserve(internal);
        }
        for r in rings {
            names.reserve(&ring::Ring::name(&k.arrays[r.ai].name));
        }
    }
    names
}

/// The C names of the loop variables, and the y that row offsets start from.
fn names3(p: &CPrinter, k: &Kernel, cy: i64) -> Names3 {
    let yvar = p.names.get(k.axis_var(1).unwrap());
    Names3 {
        x: p.names.get(k.axis_var(0).unwrap()),
        // several y rows per thread: rows are numbered from the thread's first
        y: if cy == 1 {
            yvar.clone()
        } else {
            "mint_y0".into()
        },
        yvar,
        z: (k.nest.len() == 3).then(|| p.names.get(k.axis_var(2).unwrap())),
    }
}

/// The vector path's skeleton: the thread's first point, the alignment test, then the
/// ring path (`ring::body`) or the vector path with its edge path ([`vector_path`]).
fn lower_body(p: &mut CPrinter, b: &mut Builder, x: &Lowering) {
    let [by, bz] = cuda::block_yz(b);
    thread_origin(b, x, by, bz);
    aligned(p, b, x);
    if x.rings.is_empty() {
        vector_path(p, b, x);
    } else {
        ring::body(p, b, x, by);
    }
}

/// The thread's first point: `mint_x0` (its `V` lanes from there), `mint_y0` (its first
/// y row) and `mint_z0` (the first plane of its z chunk).
fn thread_origin(b: &mut Builder, x: &Lowering, by: &str, bz: &str) {
    let (cfg, v) = (x.cfg, x.v);
    b.comment(format!(
        "vectorize: {v} consecutive x points per thread, 16-byte loads and stores"
    ));
    b.push(Stmt::konst(
        "idx_t",
        "mint_x0",
        format!(
            "{} + (idx_t)blockIdx.x * {} + (idx_t)threadIdx.x * {v}",
            lo_name(0),
            cfg.tile[0]
        ),
    ));
    b.push(Stmt::konst(
        "idx_t",
        "mint_y0",
        format!(
            "{} + (idx_t){by} * {} + (idx_t)threadIdx.y * {}",
            lo_name(1),
            cfg.tile[1],
            cfg.chunk[1]
        ),
    ));
    if x.k.nest.len() == 3 {
        b.push(Stmt::konst(
            "idx_t",
            "mint_z0",
            format!(
                "{} + (idx_t){bz} * {} + (idx_t)threadIdx.z * {}",
                lo_name(2),
                cfg.tile[2],
                cfg.chunk[2]
            ),
        ));
    }
}

/// `mint_vec`: whether every vectorized array's rows are 16-byte aligned at x = lo.
fn aligned(p: &CPrinter, b: &mut Builder, x: &Lowering) {
    let k = x.k;
    let mut aligned = Vec::new();
    for (ai, av) in x.arrays.iter().enumerate() {
        if av.written || !av.rows.is_empty() {
            let a = &k.arrays[ai];
            let t = a.elem.cuda_name();
            let slice = if a.ndim == 3 {
                format!("(size_t){} * sizeof({t})", slice_name(&a.name))
            } else {
                "0".into()
            };
            aligned.push(format!(
                "mint_valigned({} + {}, (size_t){} * sizeof({t}), {slice})",
                p.names.get(&a.name),
                lo_name(0),
                pitch_name(&a.name)
            ));
        }
    }
    b.comment("16-byte accesses when every vectorized array's rows are 16-byte aligned at x = lo");
    b.push(Stmt::konst(
        "bool",
        "mint_vec",
        if aligned.is_empty() {
            "false".to_string()
        } else {
            aligned.join(" && ")
        },
    ));
}

/// The vector path without rings: threads inside the loop whose whole chunk passes
/// [`fast_condition`] run [`vector_steps`], the others the edge path.
fn vector_path(p: &mut CPrinter, b: &mut Builder, x: &Lowering) {
    let (k, nm, v) = (x.k, &x.nm, x.v);
    let cy = x.cfg.chunk[1];
    b.if_(format!("mint_x0 < {}", hi_name(0)), |b| {
        let y = &nm.yvar;
        let cond = if cy == 1 {
            b.push(Stmt::konst("idx_t", y.clone(), "mint_y0"));
            format!("{y} < {}", hi_name(1))
        } else {
            format!("mint_y0 < {}", hi_name(1))
        };
        b.if_(cond, |b| {
            if k.nest.len() == 3 {
                skeleton::z_end(b, x.cfg.chunk[2]);
            }
            let mut fast = fast_condition(k, x.arrays, nm, v as i64);
            if cy > 1 {
                // every one of the thread's y rows is a point of the loop
                fast.push_str(&format!(" && mint_y0 + {cy} <= {}", hi_name(1)));
            }
            let then = b.nest(|b| vector_steps(p, b, x));
            let edge = b.nest(|b| {
                b.comment("edge thread (or rows not 16-byte aligned): the loop body per lane");
                edge_rows(p, b, k, x.refs, nm, v, cy, false);
            });
            skeleton::edge_split(b, fast, then, None, edge);
        });
    });
}

/// The fast path of a thread: its z queues and z steps (the sliding window), or its one
/// step in 2-D or without the window.
fn vector_steps(p: &mut CPrinter, b: &mut Builder, x: &Lowering) {
    let (k, arrays, refs, nm, v) = (x.k, x.arrays, x.refs, &x.nm, x.v);
    b.comment(
        "every access of this thread's chunk is a whole aligned vector within the allocation",
    );
    let Some(z) = &nm.z else {
        return step(p, b, k, arrays, refs, nm, v, &[], &[]);
    };
    let cz = x.cfg.chunk[2];
    let (lead, ahead) = if x.window {
        queues(p, b, k, arrays, nm, v, None, QUEUE_REGISTERS)
    } else {
        (Vec::new(), 0)
    };
    let unroll = if cz <= UNROLL_Z {
        Some(Unroll::Full)
    } else {
        None
    };
    let l = Loop::new(
        LoopRole::ZWindow,
        "idx_t mint_s = 0",
        format!("mint_s < {cz}"),
        "++mint_s",
    )
    .unroll(unroll);
    b.for_(l, |b| {
        b.push(Stmt::konst("idx_t", z.clone(), "mint_z0 + mint_s"));
        b.push(Stmt::if_line(format!("{z} >= mint_z_end"), Stmt::Break));
        step(p, b, k, arrays, refs, nm, v, &lead, &[]);
        queue_moves(b, k, arrays, ahead);
    });
}

/// The report's words for each array of `k` under `vp`.
pub fn report(report: &mut Report, k: &Kernel, vp: &VectorPlan) {
    let v = vp.v;
    for (ai, av) in vp.arrays.iter().enumerate() {
        let ring = vp.rings.iter().find(|r| r.ai == ai);
        let r = &mut report.arrays[ai];
        r.shared_planes = ring.map_or(0, |g| g.slots() as u32);
        r.register = av.written || !av.queues.is_empty();
        let vectors = loads_per_step(av);
        r.why = if av.written {
            format!(
                "vectorized: center in {v} registers{}, one 16-byte store per thread and step",
                if av.load {
                    ", loaded with one 16-byte load"
                } else {
                    " (written first: not loaded)"
                }
            )
        } else if av.rows.is_empty() {
            "device memory (no stencil references)".into()
        } else {
            format!(
                "vectorized: {} row(s), {vectors} 16-byte load(s) per thread and step{}{}",
                av.rows.len(),
                queue_report(&av.queues),
                ring.map_or(String::new(), |g| {
                    let es = k.arrays[ai].elem.size_bytes() as usize;
                    format!(
                        "; the step's plane from a shared-memory ring of {} slots of {} x {} ({} bytes), filled with cp.async {} planes ahead",
                        g.slots(),
                        g.rows,
                        g.cols,
                        g.bytes(es),
                        g.depth()
                    )
                })
            )
        };
    }
}

/// The report's level of a vectorized kernel, its z steps rolled where `rolled`.
pub fn level(k: &Kernel, vp: &VectorPlan, rolled: bool) -> String {
    format!(
        "vectorize ({} x points per thread, 16-byte loads){}{}{}",
        vp.v,
        match (vp.window, rolled) {
            (true, false) => " + sliding window along z (register queue)",
            (true, true) => " + sliding window along z (register queue, z steps rolled)",
            (false, _) => "",
        },
        if vp.rings.is_empty() {
            ""
        } else {
            " + pipeline (x/y neighbours from shared-memory rings, cp.async)"
        },
        if k.options.unroll { " + unroll" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::{REGISTER_STEPS, min_blocks, next_register_cap};

    fn ladder(threads: u32) -> Vec<u32> {
        std::iter::successors(Some(64), |&c| next_register_cap(c, threads)).collect()
    }

    #[test]
    fn the_register_cap_rises_one_occupancy_step_at_a_time() {
        // the seismic kernels' blocks: 64 and 128 threads reach every step, 168 included
        assert_eq!(ladder(64), [64, 96, 128, 168, 255]);
        assert_eq!(ladder(128), [64, 96, 128, 168, 255]);
        // 256 threads: 96 and 128 both ask for 2 blocks, 168 and 255 both for 1
        assert_eq!(ladder(256), [64, 96, 168]);
        // 1024 threads at 64 registers fill the register file: nothing to raise
        assert_eq!(ladder(1024), [64]);
        for threads in (32..=1024).step_by(32) {
            // each step is a higher cap that asks for fewer blocks per SM, and the ladder
            // stops only at 255, at one block per SM, or where no higher step asks fewer
            let l = ladder(threads);
            for w in l.windows(2) {
                assert!(w[1] > w[0], "{threads}: {l:?}");
                assert!(
                    min_blocks(w[1], threads) < min_blocks(w[0], threads),
                    "{threads}: {l:?}"
                );
                assert!(REGISTER_STEPS.contains(&w[1]), "{threads}: {l:?}");
            }
            let last = *l.last().unwrap();
            assert!(
                last == 255
                    || min_blocks(last, threads) == 1
                    || REGISTER_STEPS
                        .iter()
                        .all(|&c| c <= last || min_blocks(c, threads) == min_blocks(last, threads)),
                "{threads}: {l:?}"
            );
        }
    }
}
