//! The optimized kernel skeleton, and the sliding window that `chunksize` in z turns on
//! (thesis Sec. 5.8, Tables 5.7 and 5.8).
//!
//! Each thread computes `chunksize(cx, cy, ·)` points of every xy plane: columns
//! `threadIdx.x + i·blockDim.x` (strided, so loads stay coalesced) and rows
//! `threadIdx.y·cy + j` (contiguous). Without chunking in z a block loads its planes
//! once, synchronizes and computes. With chunking in z each thread walks its `cz` planes:
//! at every step it loads the leading value of each register queue and the leading plane
//! of each shared array (centre from the queue, ghost cells from device memory), meets the
//! block at one barrier, computes, then rotates its registers by moves and the planes by
//! swapping slot indices. The ring of planes has one spare slot (double buffering), so one
//! barrier per step suffices.
//!
//! With `pipeline` (beyond the thesis) the planes bypass registers: each shared array has
//! a ring of slots that `cp.async` fills [`PIPELINE_DEPTH`] planes ahead of the newest
//! plane a step reads, and the array's register queue takes its leading value from the
//! ring. A step waits for its planes' copies, meets the block at one barrier, issues the
//! copy of the plane `PIPELINE_DEPTH` ahead into the slot the previous step freed, and
//! computes. Prefetching through registers keeps about one plane per block in flight,
//! which at one 256-thread block per SM (the register tiles of the radius-4 star) is too
//! little to cover the memory latency; the ring holds more without registers
//! (measured with a CuPy prototype on an H100; see [`PIPELINE_DEPTH`]).

use super::register::{RegPlan, qname};
use super::shared::SharedPlan;
use super::{PIPELINE_DEPTH, Plan, skeleton};
use crate::analyzer::refs::stencil_offset;
use crate::baseline::config::LaunchConfig;
use crate::emit::cexpr::{CPrinter, Helper, RefResolver};
use crate::emit::cuda::{self, extent_name, hi_name, lo_name, pitch_name, point_body, slice_name};
use crate::emit::names::c_ident;
use crate::ir::*;
use crate::kir::print::helpers::helpers_source;
use crate::kir::{AsyncCopy, Builder, Loop, LoopRole, Stmt, Unroll, Var};
use crate::target::Target;
use crate::translation::KernelSource;
use std::cell::Cell;

struct Gen<'a> {
    k: &'a Kernel,
    plan: &'a Plan,
    bx: u32,
    by: u32,
    cx: u32,
    cy: u32,
    /// Tile extents along x and y (points).
    tx: u32,
    ty: u32,
    /// The z extent of a tile: the planes of a block's sliding window.
    tz: u32,
    /// Pitch and plane-stride names per array (shared under `same_index`).
    pitch: Vec<String>,
    slice: Vec<String>,
    /// The arrays staged in shared memory, with their plans.
    shared: Vec<(usize, SharedPlan)>,
    /// The arrays with a register queue: `(array, lo, hi)`.
    queues: Vec<(usize, i64, i64)>,
}

impl<'a> Gen<'a> {
    fn new(k: &'a Kernel, cfg: &LaunchConfig, plan: &'a Plan) -> Gen<'a> {
        let mut pitch: Vec<String> = k.arrays.iter().map(|a| pitch_name(&a.name)).collect();
        let mut slice: Vec<String> = k.arrays.iter().map(|a| slice_name(&a.name)).collect();
        for grp in &plan.same_index {
            for &i in &grp[1..] {
                pitch[i] = pitch[grp[0]].clone();
                slice[i] = slice[grp[0]].clone();
            }
        }
        let shared = plan
            .arrays
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.shared.map(|s| (i, s)))
            .collect();
        let queues = plan
            .arrays
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match a.reg {
                RegPlan::Queue { lo, hi } => Some((i, lo, hi)),
                _ => None,
            })
            .collect();
        Gen {
            k,
            plan,
            bx: cfg.block[0],
            by: cfg.block[1],
            cx: cfg.chunk[0],
            cy: cfg.chunk[1],
            tx: cfg.tile[0],
            ty: cfg.tile[1],
            tz: cfg.tile[2],
            pitch,
            slice,
            shared,
            queues,
        }
    }
}

impl Gen<'_> {
    fn points(&self) -> usize {
        (self.cx * self.cy) as usize
    }
    fn point_ij(&self, p: usize) -> (usize, usize) {
        (p / self.cy as usize, p % self.cy as usize)
    }
    /// `A[x + y * pitch + z * slice]`, through `__ldg` for read-only arrays.
    fn load(&self, ai: usize, x: &str, y: &str, z: Option<&str>) -> String {
        let a = &self.k.arrays[ai];
        let name = c_ident(&a.name);
        let idx = match (a.ndim, z) {
            (3, Some(z)) => format!(
                "{x} + {y} * {} + ({z}) * {}",
                self.pitch[ai], self.slice[ai]
            ),
            _ => format!("{x} + {y} * {}", self.pitch[ai]),
        };
        if self.plan.arrays[ai].ldg {
            format!("__ldg(&{name}[{idx}])")
        } else {
            format!("{name}[{idx}]")
        }
    }
    /// The guard that `(x, y, z)` lies inside array `ai`.
    fn inside(
        &self,
        ai: usize,
        x: &str,
        y: &str,
        z: Option<&str>,
        x_may_be_neg: bool,
        y_may_be_neg: bool,
    ) -> String {
        let a = &self.k.arrays[ai];
        let mut g = Vec::new();
        if x_may_be_neg {
            g.push(format!("{x} >= 0"));
        }
        g.push(format!("{x} < {}", extent_name(&a.name, 0)));
        if y_may_be_neg {
            g.push(format!("{y} >= 0"));
        }
        g.push(format!("{y} < {}", extent_name(&a.name, 1)));
        if let (3, Some(z)) = (a.ndim, z) {
            g.push(format!("({z}) >= 0 && ({z}) < {}", extent_name(&a.name, 2)));
        }
        g.join(" && ")
    }
    /// The shape of array `ai`'s shared planes: (ghost columns before the tile, rows,
    /// columns, whether rows copy as 16-byte chunks) ([`Plan::plane_shape`]).
    fn shape(&self, ai: usize) -> (u32, u32, u32, bool) {
        let es = self.k.arrays[ai].elem.size_bytes();
        self.plan
            .plane_shape(ai, self.tx, self.ty, es)
            .expect("a staged array")
    }
    fn sh(&self, ai: usize) -> String {
        format!("mint_sh_{}", c_ident(&self.k.arrays[ai].name))
    }
    fn slot_var(&self, ai: usize, pos: i64) -> String {
        format!("mint_slot_{}_{pos}", c_ident(&self.k.arrays[ai].name))
    }
}

/// Array references of the optimized kernel: registers, shared planes, or device memory.
struct OptRefs<'a> {
    g: &'a Gen<'a>,
    point: Cell<usize>,
    window: bool,
}

impl RefResolver for OptRefs<'_> {
    fn kernel(&self) -> &Kernel {
        self.g.k
    }
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String {
        let g = self.g;
        let ai = g.k.array_index(array).expect("kernel array");
        let ap = &g.plan.arrays[ai];
        let pt = self.point.get();
        let (i, j) = g.point_ij(pt);
        if let Some(off) = stencil_offset(g.k, array, index) {
            match ap.reg {
                RegPlan::Queue { lo, hi }
                    if off[0] == 0 && off[1] == 0 && off[2] >= lo && off[2] <= hi =>
                {
                    return qname(array, pt, g.points(), off[2]);
                }
                RegPlan::Point { .. } if off == [0, 0, 0] => return pname(array, pt, g.points()),
                _ => {}
            }
            if let Some(s) = &ap.shared
                && s.covers(off)
            {
                let slot = if self.window {
                    g.slot_var(ai, off[2] - s.z.0)
                } else {
                    (off[2] - s.z.0).to_string()
                };
                let dy = s.y_lo as i64 + off[1];
                let dx = g.shape(ai).0 as i64 + off[0];
                return format!(
                    "{}[{slot}][mint_ly{j}{}][mint_lx{i}{}]",
                    g.sh(ai),
                    plus(dy),
                    plus(dx)
                );
            }
        }
        // device memory
        let base = p.names.get(array);
        let a = &g.k.arrays[ai];
        let idx = match index.len() {
            1 => p.expr(&index[0]),
            2 => format!(
                "{} + {} * {}",
                p.expr_at(&index[1], 12),
                p.expr_at(&index[0], 13),
                g.pitch[ai]
            ),
            _ => format!(
                "{} + {} * {} + {} * {}",
                p.expr_at(&index[2], 12),
                p.expr_at(&index[1], 13),
                g.pitch[ai],
                p.expr_at(&index[0], 13),
                g.slice[ai]
            ),
        };
        if ap.ldg && !a.written {
            format!("__ldg(&{base}[{idx}])")
        } else {
            format!("{base}[{idx}]")
        }
    }
}

/// ` + v` / ` - v` / nothing: a constant offset appended to a C expression.
pub(super) fn plus(v: i64) -> String {
    match v {
        0 => String::new(),
        v if v > 0 => format!(" + {v}"),
        v => format!(" - {}", -v),
    }
}

/// The register of a written array's center point.
fn pname(array: &str, p: usize, points: usize) -> String {
    if points > 1 {
        format!("mint_{}_p{p}", c_ident(array))
    } else {
        format!("mint_{}", c_ident(array))
    }
}

/// One value of a staged plane: where it comes from and where it goes.
struct PlaneCell {
    /// Prefetch register name.
    reg: String,
    gx: String,
    gy: String,
    x_may_be_neg: bool,
    y_may_be_neg: bool,
    /// Shared-memory row and column.
    row: String,
    col: String,
    /// The center value of point `p` (filled from its register queue when there is one).
    center_of: Option<usize>,
}

/// Cells loaded by the threads that satisfy `cond` (all threads when `None`).
struct Group {
    cond: Option<String>,
    /// Declarations the shared-memory destination (`row`, `col`) needs: every phase
    /// builds them.
    dst_pre: Vec<Stmt>,
    /// Declarations the device-memory source (`gx`, `gy`) needs: loads only.
    src_pre: Vec<Stmt>,
    cells: Vec<PlaneCell>,
}

/// The cells of one plane of array `ai`: the centre (each thread's points), then the
/// ghost cells.
///
/// The thesis (Sec. 5.7.2) has the threads at each side of the tile load that side's
/// ghost cells. With wide halos that leaves most warps idle while one warp loads every
/// row of the north halo (radius 4: four rows by the first warp, at one barrier per
/// plane). Here the whole block shares the ghost ring instead, as hand-written 2.5-D
/// kernels do: the ring's cells are numbered (the north rows, the south rows, then the
/// west and east columns row by row), and thread `t` of `n` loads cells `t`, `t + n`, …,
/// so every thread loads at most ⌈cells / n⌉ ghost cells and the rows are read
/// coalesced. A CuPy prototype on an H100 ran the radius-4 star in f64 at 69% of copy
/// this way against 60% with the side-by-side loads, in the same tile.
fn plane_groups(g: &Gen, ai: usize, s: &SharedPlan) -> Vec<Group> {
    let a = c_ident(&g.k.arrays[ai].name);
    let (xl, xr, yl, yr) = (s.x_lo, s.x_hi, s.y_lo, s.y_hi);
    let reg = |tag: String| format!("mint_pf_{a}_{tag}");
    let mut groups = vec![Group {
        cond: None,
        dst_pre: Vec::new(),
        src_pre: Vec::new(),
        cells: (0..g.points())
            .map(|pt| {
                let (i, j) = g.point_ij(pt);
                PlaneCell {
                    reg: reg(format!("c{pt}")),
                    gx: format!("mint_x{i}"),
                    gy: format!("mint_y{j}"),
                    x_may_be_neg: false,
                    y_may_be_neg: false,
                    row: format!("mint_ly{j}{}", plus(yl as i64)),
                    col: format!("mint_lx{i}{}", plus(xl as i64)),
                    center_of: Some(pt),
                }
            })
            .collect(),
    }];
    // the ring: rows of `nw` cells from column `x0` (the corners with them when the
    // stencil has diagonal references), then `xw` cells of each tile row
    let (tx, ty) = (g.tx, g.ty);
    let (nw, x0) = if s.corners {
        (tx + xl + xr, 0)
    } else {
        (tx, xl)
    };
    let xw = xl + xr;
    let (north, rows) = (yl * nw, (yl + yr) * nw);
    let cells = rows + ty * xw;
    let threads = g.bx * g.by;
    for k in 0..cells.div_ceil(threads) {
        let e = "mint_le";
        // the row and column of cell `e` of the ring, with branches only for its parts
        let mut row_parts = Vec::new();
        let mut col_parts = Vec::new();
        if yl > 0 {
            row_parts.push((format!("{e} < {north}"), format!("{e} / {nw}")));
            col_parts.push((format!("{e} < {north}"), format!("{x0} + {e} % {nw}")));
        }
        if yr > 0 {
            row_parts.push((
                format!("{e} < {rows}"),
                format!("{} + ({e} - {north}) / {nw}", yl + ty),
            ));
            col_parts.push((
                format!("{e} < {rows}"),
                format!("{x0} + ({e} - {north}) % {nw}"),
            ));
        }
        if xw > 0 {
            let c = format!("({e} - {rows}) % {xw}");
            row_parts.push((String::new(), format!("{yl} + ({e} - {rows}) / {xw}")));
            col_parts.push((
                String::new(),
                if xl == 0 {
                    format!("{tx} + {c}")
                } else if xr == 0 {
                    c
                } else {
                    format!("{c} < {xl} ? {c} : {tx} + {c}")
                },
            ));
        }
        let select = |parts: &[(String, String)]| -> String {
            let mut out = parts.last().map(|p| p.1.clone()).unwrap_or_default();
            for (cond, v) in parts.iter().rev().skip(1) {
                out = format!("{cond} ? {v} : ({out})");
            }
            out
        };
        groups.push(Group {
            cond: Some(format!(
                "mint_tx + {} * mint_ty < {}",
                g.bx,
                cells - k * threads
            )),
            dst_pre: vec![
                Stmt::konst(
                    "int",
                    e,
                    format!("mint_tx + {} * mint_ty + {}", g.bx, k * threads),
                ),
                Stmt::konst("int", "mint_lr", select(&row_parts)),
                Stmt::konst("int", "mint_lc", select(&col_parts)),
            ],
            src_pre: vec![
                Stmt::konst("idx_t", "mint_gx", format!("mint_x_tile - {xl} + mint_lc")),
                Stmt::konst("idx_t", "mint_gy", format!("mint_y_tile - {yl} + mint_lr")),
            ],
            cells: vec![PlaneCell {
                reg: reg(format!("g{k}")),
                gx: "mint_gx".into(),
                gy: "mint_gy".into(),
                x_may_be_neg: true,
                y_may_be_neg: true,
                row: "mint_lr".into(),
                col: "mint_lc".into(),
                center_of: None,
            }],
        });
    }
    groups
}

/// What `plane` builds: a load straight into shared memory, fetch into prefetch
/// registers, or store the prefetch registers into shared memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PlaneOp {
    Direct,
    Fetch,
    Store,
}

/// One phase of staging array `ai`'s plane at absolute z `zz` (None in 2-D) in
/// `slot`. The centre comes from the register queue when it covers `dz`.
#[allow(clippy::too_many_arguments)]
fn plane(
    b: &mut Builder,
    g: &Gen,
    ai: usize,
    s: &SharedPlan,
    op: PlaneOp,
    slot: &str,
    zz: Option<&str>,
    dz: i64,
) {
    let sh = g.sh(ai);
    let name = g.k.arrays[ai].name.clone();
    let t = g.k.arrays[ai].elem.cuda_name();
    // in the sliding window the queue also holds its prefetched next value (hi + 1)
    let ahead = (op == PlaneOp::Fetch) as i64;
    let from_queue =
        matches!(g.plan.arrays[ai].reg, RegPlan::Queue { lo, hi } if dz >= lo && dz <= hi + ahead);
    let what = match op {
        PlaneOp::Direct => "load",
        PlaneOp::Fetch => "prefetch",
        PlaneOp::Store => "store the prefetched",
    };
    let zdesc = zz.map(|z| format!(" z = {z}")).unwrap_or_default();
    b.comment(format!(
        "{what} `{name}`{zdesc}{}: centre, then ghost cells (-x {}, +x {}, -y {}, +y {}{})",
        if op == PlaneOp::Fetch {
            String::new()
        } else {
            format!(" into shared slot {slot}")
        },
        s.x_lo,
        s.x_hi,
        s.y_lo,
        s.y_hi,
        if s.corners { ", corners" } else { "" }
    ));
    for grp in plane_groups(g, ai, s) {
        let cells: Vec<&PlaneCell> = grp
            .cells
            .iter()
            .filter(|c| !(op == PlaneOp::Fetch && from_queue && c.center_of.is_some()))
            .collect();
        if cells.is_empty() {
            continue;
        }
        b.if_some(grp.cond.as_deref(), |b| {
            b.extend(grp.dst_pre.iter().cloned());
            if op != PlaneOp::Store {
                b.extend(grp.src_pre.iter().cloned());
            }
            for c in cells {
                let dst = format!("{sh}[{slot}][{}][{}]", c.row, c.col);
                let inside = || g.inside(ai, &c.gx, &c.gy, zz, c.x_may_be_neg, c.y_may_be_neg);
                let load = || g.load(ai, &c.gx, &c.gy, zz);
                let queued = c
                    .center_of
                    .filter(|_| from_queue)
                    .map(|pt| qname(&name, pt, g.points(), dz));
                match (op, queued) {
                    (PlaneOp::Direct | PlaneOp::Store, Some(q)) => {
                        b.push(Stmt::assign(dst.clone(), q.clone()))
                    }
                    (PlaneOp::Direct, None) => {
                        b.push(Stmt::if_line(inside(), Stmt::assign(dst, load())))
                    }
                    (PlaneOp::Fetch, _) => b.push(Stmt::assign(
                        c.reg.clone(),
                        format!("({}) ? {} : {t}(0)", inside(), load()),
                    )),
                    (PlaneOp::Store, None) => b.push(Stmt::assign(dst.clone(), c.reg.clone())),
                }
            }
        });
    }
}

/// With `pipeline`: copies array `ai`'s plane at absolute z `zz` (its tile and ghost
/// cells, corners included, as one rectangle) into ring slot `slot` with `cp.async`, cell
/// `t`, `t + n`, … by thread `t` of `n`; cells outside the array are zero-filled.
fn ring_copy(b: &mut Builder, g: &Gen, ai: usize, s: &SharedPlan, slot: &str, zz: &str) {
    let a = &g.k.arrays[ai];
    let name = c_ident(&a.name);
    let (pad, sy, sx, vec) = g.shape(ai);
    let w = 16 / a.elem.size_bytes();
    // a 2-D array in a 3-D nest has no z stride
    let (zterm, slice_ok) = if a.ndim == 3 {
        (
            format!(" + ({zz}) * {}", g.slice[ai]),
            format!(" && ({} * {}) % 16 == 0", g.slice[ai], a.elem.size_bytes()),
        )
    } else {
        (String::new(), String::new())
    };
    b.comment(format!(
        "copy `{}` z = {zz} into ring slot {slot}: {sy} x {sx} cells, asynchronously",
        a.name
    ));
    let cells = |b: &mut Builder, chunk: u32| {
        let inside = if chunk > 1 {
            // a chunk reaching into the row: its cells outside the row read the row's
            // padding, the neighbouring row or the guard band, and no point reads them
            let full = g.inside(ai, "mint_gx", "mint_gy", Some(zz), false, true);
            format!("mint_gx + {chunk} > 0 && {full}")
        } else {
            g.inside(ai, "mint_gx", "mint_gy", Some(zz), true, true)
        };
        async_plane_copy(
            b,
            &PlaneCopy {
                tid: &format!("mint_tx + {} * mint_ty", g.bx),
                threads: g.bx * g.by,
                rows: sy,
                cols: sx,
                chunk,
                x0: &format!("mint_x_tile - {pad}"),
                y0: &format!("mint_y_tile - {}", s.y_lo),
                inside: &inside,
                dst: &format!("{}[{slot}]", g.sh(ai)),
                array: &name,
                offset: &format!("mint_gx + mint_gy * {}{zterm}", g.pitch[ai]),
                rounds: false,
            },
        );
    };
    if vec {
        let then = b.nest(|b| cells(b, w));
        let els = b.nest(|b| cells(b, 1));
        b.push(Stmt::if_else(
            format!(
                "(((size_t)({name} + (mint_x_tile - {pad}))) & 15) == 0 && ({} * {}) % 16 == 0{slice_ok}",
                g.pitch[ai],
                a.elem.size_bytes()
            ),
            then,
            els,
        ));
    } else {
        cells(b, 1);
    }
}

/// One rectangle of a plane copied into shared memory with `cp.async`.
pub(crate) struct PlaneCopy<'a> {
    /// The copying thread's index in the block, and the block's threads.
    pub tid: &'a str,
    pub threads: u32,
    /// The rectangle: rows and elements per row, copied `chunk` elements at a time (a
    /// 16-byte chunk, or 1 element).
    pub rows: u32,
    pub cols: u32,
    pub chunk: u32,
    /// The array's column and row of the rectangle's first cell.
    pub x0: &'a str,
    pub y0: &'a str,
    /// Whether cell (`mint_gx`, `mint_gy`) is copied; the others are zero-filled.
    pub inside: &'a str,
    /// The shared plane (`[row][column]`), the array, and the cell's element offset in it.
    pub dst: &'a str,
    pub array: &'a str,
    pub offset: &'a str,
    /// Printed in known rounds, unrolled, rather than as a loop over a running cell
    /// index (see [`async_plane_copy`]).
    pub rounds: bool,
}

/// The copy `c`: cells `t`, `t + n`, … by thread `t` of `n` (`t` in `0 .. n`), row by row.
///
/// As a loop over a running cell index, unless `c.rounds`: then as a known number of
/// rounds (`⌈cells / n⌉`), unrolled, and where `n` is a multiple of a row's cells each
/// round keeps the thread's column and moves it `n / row` rows down, so its row and
/// column are computed once. The rounds print about 40% fewer instructions per z step
/// (SASS of the radius-8 star), but on an H100, the same GPU alternating the two forms,
/// they ran slower in four of six kernels: opt-3 + `pipeline` of the 27-point box in `f32`
/// at 231 against 261 GPts/s (it spilled), the radius-4 star in `f64` at 146 against 151,
/// the ring path of the radius-8 star (one y row per thread) in `f64` at 98.7 against
/// 101.2; they won for the ring path with two y rows per thread, whose 64 threads make 8
/// copies each per step: the radius-8 star in `f64` at 61.6% of copy against 59.0% (two
/// runs on two H100s; the kernel as written, timed in each, 1% apart), so the ring path
/// asks for them there (`vector::ring::fill`).
pub(crate) fn async_plane_copy(b: &mut Builder, c: &PlaneCopy) {
    let per_row = if c.chunk > 1 {
        c.cols / c.chunk
    } else {
        c.cols
    };
    if c.rounds {
        return plane_copy_rounds(b, c, per_row);
    }
    b.comment(format!(
        "{} rows x {per_row} copies of {} element(s) over {} threads",
        c.rows, c.chunk, c.threads
    ));
    let l = Loop::new(
        LoopRole::Rounds,
        format!("int mint_le = {}", c.tid),
        format!("mint_le < {}", c.rows * per_row),
        format!("mint_le += {}", c.threads),
    );
    b.for_(l, |b| {
        b.push(Stmt::konst(
            "int",
            "mint_lr",
            format!("mint_le / {per_row}"),
        ));
        if c.chunk > 1 {
            b.push(Stmt::konst(
                "int",
                "mint_lc",
                format!("mint_le % {per_row} * {}", c.chunk),
            ));
        } else {
            b.push(Stmt::konst(
                "int",
                "mint_lc",
                format!("mint_le % {per_row}"),
            ));
        }
        plane_copy_cell(b, c);
    });
}

/// [`async_plane_copy`] in known rounds.
fn plane_copy_rounds(b: &mut Builder, c: &PlaneCopy, per_row: u32) {
    let cells = c.rows * per_row;
    let rounds = cells.div_ceil(c.threads);
    let tid = format!("(unsigned int)({})", c.tid);
    b.comment(format!(
        "{} rows x {per_row} copies of {} element(s): {rounds} round(s) of {} threads",
        c.rows, c.chunk, c.threads
    ));
    let l = Loop::new(
        LoopRole::Rounds,
        "int mint_le = 0",
        format!("mint_le < {rounds}"),
        "++mint_le",
    )
    .unroll(Some(Unroll::Full));
    b.for_(l, |b| {
        if !cells.is_multiple_of(c.threads) {
            // the last round: only the threads whose cell is in the rectangle
            let last = format!(
                "mint_le == {} && {tid} + {}u * {} >= {cells}u",
                rounds - 1,
                c.threads,
                rounds - 1
            );
            b.push(Stmt::if_line(last, Stmt::Break));
        }
        let col = |cell: &str| {
            if c.chunk > 1 {
                format!("(int)({cell} % {per_row}u) * {}", c.chunk)
            } else {
                format!("(int)({cell} % {per_row}u)")
            }
        };
        if c.threads.is_multiple_of(per_row) {
            b.push(Stmt::konst(
                "int",
                "mint_lr",
                format!(
                    "(int)({tid} / {per_row}u) + {} * mint_le",
                    c.threads / per_row
                ),
            ));
            b.push(Stmt::konst("int", "mint_lc", col(&tid)));
        } else {
            let cell = format!("({tid} + {}u * (unsigned int)mint_le)", c.threads);
            b.push(Stmt::konst(
                "int",
                "mint_lr",
                format!("(int)({cell} / {per_row}u)"),
            ));
            b.push(Stmt::konst("int", "mint_lc", col(&cell)));
        }
        plane_copy_cell(b, c);
    });
}

/// The copy of cell (`mint_lr`, `mint_lc`) of [`async_plane_copy`]'s rectangle.
fn plane_copy_cell(b: &mut Builder, c: &PlaneCopy) {
    b.push(Stmt::konst(
        "idx_t",
        "mint_gx",
        format!("{} + mint_lc", c.x0),
    ));
    b.push(Stmt::konst(
        "idx_t",
        "mint_gy",
        format!("{} + mint_lr", c.y0),
    ));
    b.push(Stmt::konst("bool", "mint_in", c.inside));
    b.push(Stmt::AsyncCopy(AsyncCopy {
        chunk16: c.chunk > 1,
        dst: format!("{}[mint_lr][mint_lc]", c.dst),
        array: c.array.into(),
        offset: c.offset.into(),
        pred: "mint_in".into(),
    }));
}

/// With `pipeline`, before the first step: the copies of the planes the first step reads
/// and of the [`PIPELINE_DEPTH`] − 1 after them, one commit group per plane position.
/// Group `k` holds, for every array, the plane `hi + PIPELINE_DEPTH − total + k` (z
/// offset from `mint_z0`, `hi` the newest plane the array's step reads, `total` the
/// longest ring), so that the step at `z` always needs the groups up to `PIPELINE_DEPTH`
/// before the newest, whatever each array's ring length.
fn ring_prologue(p: &mut CPrinter, b: &mut Builder, g: &Gen, shared: &[(usize, SharedPlan)]) {
    p.use_helper(Helper::AsyncCopy);
    let d = PIPELINE_DEPTH;
    let rings: Vec<(usize, &SharedPlan, i64, i64)> = shared
        .iter()
        .map(|(ai, s)| {
            let (lo, hi) = g.plan.ring(*ai).expect("pipeline ring");
            (*ai, s, lo, hi)
        })
        .collect();
    let total = rings.iter().map(|r| r.3 - r.2).max().unwrap_or(0) + d;
    b.comment(format!("pipeline: the first planes into the rings, {d} plane(s) in flight ahead of each step's newest"));
    for k in 0..total {
        for &(ai, s, lo, hi) in &rings {
            let rel = hi + d - total + k;
            if rel < lo {
                continue;
            }
            let ns = g.plan.slots(ai) as i64;
            ring_copy(
                b,
                g,
                ai,
                s,
                &((rel - lo) % ns).to_string(),
                &format!("mint_z0{}", plus(rel)),
            );
        }
        b.push(Stmt::AsyncCommit);
    }
}

/// With `pipeline`, the start of the step at `zv`: wait for its planes, meet the block,
/// copy the plane [`PIPELINE_DEPTH`] ahead into the slot the previous step freed, name
/// the slots of the planes the step reads, and fill the queues' leading registers.
fn ring_step(b: &mut Builder, g: &Gen, shared: &[(usize, SharedPlan)], zv: &str) {
    let d = PIPELINE_DEPTH;
    let ahead = format!("{zv} + {d} < mint_z_end");
    skeleton::async_step(b, d, "this step's planes have landed", None, ahead, |b| {
        for (ai, s) in shared {
            let (lo, hi) = g.plan.ring(*ai).expect("pipeline ring");
            let ns = g.plan.slots(*ai);
            ring_copy(
                b,
                g,
                *ai,
                s,
                &format!("(int)(({zv} - mint_z0 + {}) % {ns})", hi + d - lo),
                &format!("{zv}{}", plus(hi + d)),
            );
        }
    });
    for (ai, s) in shared {
        let (lo, hi) = g.plan.ring(*ai).expect("pipeline ring");
        let ns = g.plan.slots(*ai);
        let slot = |dz: i64| format!("(int)(({zv} - mint_z0{}) % {ns})", plus(dz - lo));
        for pos in 0..s.planes() as i64 {
            b.push(Stmt::konst("int", g.slot_var(*ai, pos), slot(s.z.0 + pos)));
        }
        if let RegPlan::Queue { hi: qhi, .. } = g.plan.arrays[*ai].reg {
            debug_assert_eq!(qhi, hi);
            let name = &g.k.arrays[*ai].name;
            for pt in 0..g.points() {
                let (i, j) = g.point_ij(pt);
                b.push(Stmt::assign(
                    qname(name, pt, g.points(), hi),
                    format!(
                        "{}[{}][mint_ly{j}{}][mint_lx{i}{}]",
                        g.sh(*ai),
                        slot(hi),
                        plus(s.y_lo as i64),
                        plus(g.shape(*ai).0 as i64)
                    ),
                ));
            }
        }
    }
}

/// Declares the prefetch registers of array `ai`'s planes.
fn prefetch_decls(b: &mut Builder, g: &Gen, ai: usize, s: &SharedPlan) {
    let t = g.k.arrays[ai].elem.cuda_name();
    // the queue provides the centres of the leading plane and of the one after it
    let from_queue =
        matches!(g.plan.arrays[ai].reg, RegPlan::Queue { lo, hi } if s.z.1 >= lo && s.z.1 < hi + 1);
    let regs: Vec<Var> = plane_groups(g, ai, s)
        .into_iter()
        .flat_map(|grp| grp.cells)
        .filter(|c| !(from_queue && c.center_of.is_some()))
        .map(|c| Var::init(c.reg, "0"))
        .collect();
    if !regs.is_empty() {
        b.push(Stmt::vars(t, regs));
    }
}

/// Loads register `d` of every point of array `ai`'s queue at absolute z `zz`.
fn queue_load(b: &mut Builder, g: &Gen, ai: usize, zz: Option<&str>, d: i64, declare: bool) {
    let a = &g.k.arrays[ai];
    for pt in 0..g.points() {
        let (i, j) = g.point_ij(pt);
        let (x, y) = (format!("mint_x{i}"), format!("mint_y{j}"));
        let q = qname(&a.name, pt, g.points(), d);
        let value = format!(
            "({}) ? {} : {}(0)",
            g.inside(ai, &x, &y, zz, false, false),
            g.load(ai, &x, &y, zz),
            a.elem.cuda_name()
        );
        b.push(if declare {
            Stmt::konst(a.elem.cuda_name(), q, value)
        } else {
            Stmt::assign(q, value)
        });
    }
}

/// The points of the current plane: coordinates, guard, point registers, body.
fn points(p: &mut CPrinter, b: &mut Builder, g: &Gen, refs: &OptRefs) {
    let k = g.k;
    let n = k.nest.len();
    let xv = p.names.get(k.axis_var(0).unwrap());
    let yv = p.names.get(k.axis_var(1).unwrap());
    for pt in 0..g.points() {
        let (i, j) = g.point_ij(pt);
        refs.point.set(pt);
        if g.points() > 1 {
            b.comment(format!(
                "point {pt}: column {i}, row {j} of this thread's chunk"
            ));
        }
        b.scope(|b| {
            b.push(Stmt::konst("idx_t", xv.clone(), format!("mint_x{i}")));
            b.push(Stmt::konst("idx_t", yv.clone(), format!("mint_y{j}")));
            b.if_(
                format!("{xv} < {} && {yv} < {}", hi_name(0), hi_name(1)),
                |b| {
                    let mut stores = Vec::new();
                    for (ai, a) in k.arrays.iter().enumerate() {
                        if let RegPlan::Point { load, store } = g.plan.arrays[ai].reg {
                            let r = pname(&a.name, pt, g.points());
                            let center: Vec<Expr> = (0..n)
                                .map(|d| Expr {
                                    kind: ExprKind::Var(k.axis_var(n - 1 - d).unwrap().to_string()),
                                    ty: Some(ScalarTy::Usize),
                                    span: 0,
                                })
                                .collect();
                            let global = {
                                // the device-memory spelling of the center point
                                let gl = GlobalOnly { g };
                                let tmp = CPrinter::new(p.names.clone(), &gl);
                                gl.elem(&tmp, &a.name, &center)
                            };
                            if load {
                                b.push(Stmt::var(a.elem.cuda_name(), &r, &global));
                            } else {
                                let reg = Var {
                                    name: r.clone(),
                                    len: None,
                                    init: None,
                                };
                                b.push(Stmt::vars(a.elem.cuda_name(), vec![reg]));
                            }
                            if store {
                                stores.push(Stmt::assign(global, r));
                            }
                        }
                    }
                    point_body(p, b, &k.body);
                    b.extend(stores);
                },
            );
        });
    }
}

/// Device-memory references only (for register loads and stores).
struct GlobalOnly<'a> {
    g: &'a Gen<'a>,
}

impl RefResolver for GlobalOnly<'_> {
    fn kernel(&self) -> &Kernel {
        self.g.k
    }
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String {
        let ai = self.g.k.array_index(array).expect("array");
        let base = p.names.get(array);
        match index.len() {
            1 => format!("{base}[{}]", p.expr(&index[0])),
            2 => format!(
                "{base}[{} + {} * {}]",
                p.expr_at(&index[1], 12),
                p.expr_at(&index[0], 13),
                self.g.pitch[ai]
            ),
            _ => format!(
                "{base}[{} + {} * {} + {} * {}]",
                p.expr_at(&index[2], 12),
                p.expr_at(&index[1], 13),
                self.g.pitch[ai],
                p.expr_at(&index[0], 13),
                self.g.slice[ai]
            ),
        }
    }
}

/// Lowers `k` under `plan` to the staged kernel's skeleton in the kernel IR
/// ([`lower_body`]); `level` is the report's, for the header.
pub(crate) fn lower(
    k: &Kernel,
    cfg: &LaunchConfig,
    plan: &Plan,
    target: &Target,
    level: &str,
) -> KernelSource {
    let entry = cuda::entry_name(k);
    let extents: Vec<bool> = plan
        .arrays
        .iter()
        .map(|a| a.shared.is_some() || matches!(a.reg, RegPlan::Queue { .. }))
        .collect();
    let params = cuda::base_params(k, &extents);
    let (params, packed) = cuda::pack_params(k, params, target.idx64, target.param_limit);
    let g = Gen::new(k, cfg, plan);
    let refs = OptRefs {
        g: &g,
        point: Cell::new(0),
        window: plan.window,
    };
    let mut names = cuda::base_names(k, &params, &packed);
    for internal in [
        "mint_tx",
        "mint_ty",
        "mint_x_tile",
        "mint_y_tile",
        "mint_z0",
        "mint_z_end",
        "mint_smem",
        "mint_lc",
        "mint_lr",
        "mint_le",
        "mint_gx",
        "mint_gy",
        "mint_t",
        "mint_in",
    ] {
        names.reserve(internal);
    }
    let mut p = CPrinter::new(names, &refs);
    let mut b = Builder::new();
    let smem_bytes = lower_body(&mut p, &mut b, &g, &refs);
    let helpers = helpers_source(&p.helpers.borrow());
    KernelSource {
        entry,
        notes: notes(&g, level),
        helpers,
        params,
        packed,
        body: b.finish(),
        dynamic_shared_bytes: smem_bytes,
        static_shared_bytes: 0,
        same_index: plan.same_index.clone(),
    }
}

/// The staged kernel's skeleton: the tile origin and the thread's points, the shared
/// planes, then the sliding window along z ([`window`]) or the one plane of each point
/// ([`planes_once`]), with a hook for the reduction's accumulator before them (the
/// reduction's epilogue follows them: `crate::passes::reduction`). Returns the dynamic
/// shared memory's bytes.
fn lower_body(p: &mut CPrinter, b: &mut Builder, g: &Gen, refs: &OptRefs) -> u32 {
    let k = g.k;
    let [by, bz] = cuda::block_yz(b);
    tile_points(b, g, by);
    let smem_bytes = shared_views(b, g);
    cuda::accumulator(b, k);
    if k.nest.len() == 3 && g.plan.window {
        window(p, b, g, refs, bz);
    } else {
        planes_once(p, b, g, refs, bz);
    }
    smem_bytes
}

/// The tile origin and the columns and rows of this thread's points in each plane.
fn tile_points(b: &mut Builder, g: &Gen, by: &str) {
    b.comment("tile origin and this thread's points in each plane");
    b.push(Stmt::konst("int", "mint_tx", "threadIdx.x"));
    b.push(Stmt::konst("int", "mint_ty", "threadIdx.y"));
    skeleton::tile_origin(b, by, g.tx, g.ty);
    for i in 0..g.cx {
        let stride = if i == 0 {
            String::new()
        } else {
            format!(" + {}", i * g.bx)
        };
        b.push(Stmt::konst(
            "int",
            format!("mint_lx{i}"),
            format!("mint_tx{stride}"),
        ));
        b.push(Stmt::konst(
            "idx_t",
            format!("mint_x{i}"),
            format!("mint_x_tile + mint_lx{i}"),
        ));
    }
    for j in 0..g.cy {
        let row = if g.cy == 1 {
            "mint_ty".to_string()
        } else {
            format!("mint_ty * {}{}", g.cy, plus(j as i64))
        };
        b.push(Stmt::konst("int", format!("mint_ly{j}"), row));
        b.push(Stmt::konst(
            "idx_t",
            format!("mint_y{j}"),
            format!("mint_y_tile + mint_ly{j}"),
        ));
    }
}

/// Shared memory: one dynamic allocation, carved into each staged array's slots. Returns
/// the allocation's bytes.
fn shared_views(b: &mut Builder, g: &Gen) -> u32 {
    let mut smem_bytes = 0u32;
    if g.shared.is_empty() {
        return smem_bytes;
    }
    skeleton::dynamic_shared(b);
    for (ai, _) in &g.shared {
        let a = &g.k.arrays[*ai];
        let (_, sy, sx, _) = g.shape(*ai);
        b.push(Stmt::SharedView {
            ty: a.elem.cuda_name().into(),
            name: g.sh(*ai),
            rows: sy,
            cols: sx,
            base: "mint_smem".into(),
            offset: smem_bytes,
            slots: g.plan.slots(*ai),
        });
        smem_bytes += g.plan.shared_bytes(*ai, g.tx, g.ty, a.elem.size_bytes());
    }
    smem_bytes
}

/// The sliding window along z (thesis Sec. 5.8): the window's first planes
/// ([`window_prologue`]), then one step per plane of the thread's z chunk
/// ([`window_step`]).
fn window(p: &mut CPrinter, b: &mut Builder, g: &Gen, refs: &OptRefs, bz: &str) {
    let zv = p.names.get(g.k.axis_var(2).unwrap());
    b.comment("sliding window along z (thesis Sec. 5.8)");
    b.push(Stmt::konst(
        "idx_t",
        "mint_z0",
        format!("{} + (idx_t){bz} * {}", lo_name(2), g.tz),
    ));
    skeleton::z_end(b, g.tz);
    window_prologue(p, b, g);
    let l = Loop::new(
        LoopRole::ZWindow,
        format!("idx_t {zv} = mint_z0"),
        format!("{zv} < mint_z_end"),
        format!("++{zv}"),
    );
    b.for_(l, |b| window_step(p, b, g, refs, &zv));
    if g.plan.pipeline {
        // no copy may be pending when the thread exits (a block with no step, or the
        // prologue's planes past the block's last step)
        b.push(Stmt::AsyncWait {
            pending: 0,
            note: None,
        });
    }
}

/// Before the first step: the register queues and their planes, the rings' first copies
/// (`pipeline`) or the staged planes and the prefetch of the next.
///
/// Software pipelining: every value a step needs from device memory is fetched one step
/// ahead into registers, so its latency overlaps the current step's barrier and
/// computation.
fn window_prologue(p: &mut CPrinter, b: &mut Builder, g: &Gen) {
    let (k, plan) = (g.k, g.plan);
    for &(ai, lo, hi) in &g.queues {
        let a = &k.arrays[ai];
        // a queue fed by its ring (`pipeline`) takes its leading value from there
        let fed = plan.ring(ai).is_some();
        for pt in 0..g.points() {
            let mut decl: Vec<Var> = (lo..=hi)
                .map(|d| Var::init(qname(&a.name, pt, g.points(), d), "0"))
                .collect();
            if !fed {
                decl.push(Var::init(qname(&a.name, pt, g.points(), hi + 1), "0"));
            }
            b.push(Stmt::vars(a.elem.cuda_name(), decl));
        }
        for d in lo..=hi - fed as i64 {
            queue_load(b, g, ai, Some(&format!("mint_z0{}", plus(d))), d, false);
        }
    }
    if plan.pipeline {
        ring_prologue(p, b, g, &g.shared);
        return;
    }
    for (ai, s) in &g.shared {
        let np = s.planes() as i64;
        let decl: Vec<Var> = (0..=np)
            .map(|pos| Var::init(g.slot_var(*ai, pos), pos.to_string()))
            .collect();
        b.push(Stmt::vars("int", decl));
        for d in s.z.0..s.z.1 {
            let slot = g.slot_var(*ai, d - s.z.0);
            let z = format!("mint_z0{}", plus(d));
            plane(b, g, *ai, s, PlaneOp::Direct, &slot, Some(&z), d);
        }
        prefetch_decls(b, g, *ai, s);
        let lead = g.slot_var(*ai, s.z.1 - s.z.0);
        let z = format!("mint_z0{}", plus(s.z.1));
        plane(b, g, *ai, s, PlaneOp::Fetch, &lead, Some(&z), s.z.1);
    }
}

/// One step of the sliding window at plane `zv`: the queues' leading values, the
/// step's planes (from the rings, or stored from the prefetch registers with the next
/// plane prefetched), the barrier, the points, the rotation.
fn window_step(p: &mut CPrinter, b: &mut Builder, g: &Gen, refs: &OptRefs, zv: &str) {
    let plan = g.plan;
    for &(ai, _, hi) in g.queues.iter().filter(|q| plan.ring(q.0).is_none()) {
        let z = format!("{zv}{}", plus(hi + 1));
        queue_load(b, g, ai, Some(&z), hi + 1, false);
    }
    if plan.pipeline {
        ring_step(b, g, &g.shared, zv);
    } else {
        for (ai, s) in &g.shared {
            let slot = g.slot_var(*ai, s.z.1 - s.z.0);
            let z = format!("{zv}{}", plus(s.z.1));
            plane(b, g, *ai, s, PlaneOp::Store, &slot, Some(&z), s.z.1);
            let z = format!("{zv}{}", plus(s.z.1 + 1));
            plane(b, g, *ai, s, PlaneOp::Fetch, &slot, Some(&z), s.z.1 + 1);
        }
        if !g.shared.is_empty() {
            b.push(Stmt::Barrier { note: None });
        }
    }
    points(p, b, g, refs);
    rotate(b, g);
}

/// The end of a step: registers move down the queues, planes by swapping slot indices.
fn rotate(b: &mut Builder, g: &Gen) {
    let plan = g.plan;
    if !g.queues.is_empty() || !g.shared.is_empty() {
        b.comment("rotate: registers move down the queue, planes by swapping slot indices");
    }
    for &(ai, lo, hi) in &g.queues {
        let a = &g.k.arrays[ai];
        let fed = plan.ring(ai).is_some();
        for pt in 0..g.points() {
            for d in lo..=hi - fed as i64 {
                b.push(Stmt::assign(
                    qname(&a.name, pt, g.points(), d),
                    qname(&a.name, pt, g.points(), d + 1),
                ));
            }
        }
    }
    for (ai, s) in g.shared.iter().filter(|_| !plan.pipeline) {
        let np = s.planes() as i64;
        let mut line = vec![Stmt::konst("int", "mint_t", g.slot_var(*ai, 0))];
        for pos in 0..np {
            line.push(Stmt::assign(g.slot_var(*ai, pos), g.slot_var(*ai, pos + 1)));
        }
        line.push(Stmt::assign(g.slot_var(*ai, np), "mint_t"));
        b.push(Stmt::Line(line));
    }
}

/// Without the sliding window: the thread's plane (`blockIdx.z`'s in 3-D), its queues'
/// registers and staged planes loaded once, the barrier, the points.
fn planes_once(p: &mut CPrinter, b: &mut Builder, g: &Gen, refs: &OptRefs, bz: &str) {
    let k = g.k;
    let zz = (k.nest.len() == 3).then(|| {
        let zv = p.names.get(k.axis_var(2).unwrap());
        b.push(Stmt::konst(
            "idx_t",
            zv.clone(),
            format!("{} + (idx_t){bz}", lo_name(2)),
        ));
        zv
    });
    let cond = zz.as_ref().map(|zv| format!("{zv} < {}", hi_name(2)));
    b.if_some(cond.as_deref(), |b| {
        for &(ai, lo, hi) in &g.queues {
            for d in lo..=hi {
                let z = zz.as_ref().map(|z| format!("{z}{}", plus(d)));
                queue_load(b, g, ai, z.as_deref(), d, true);
            }
        }
        for (ai, s) in &g.shared {
            for d in s.z.0..=s.z.1 {
                let z = zz.as_ref().map(|z| format!("{z}{}", plus(d)));
                let slot = (d - s.z.0).to_string();
                plane(b, g, *ai, s, PlaneOp::Direct, &slot, z.as_deref(), d);
            }
        }
        if !g.shared.is_empty() {
            b.push(Stmt::Barrier { note: None });
        }
        points(p, b, g, refs);
    });
}

/// The header's notes: the optimizations, each staged array's planes and halo, each
/// register queue.
fn notes(g: &Gen, level: &str) -> Vec<String> {
    let k = g.k;
    let mut notes = vec![format!("optimizations: {level}")];
    for (ai, s) in &g.shared {
        notes.push(format!(
            "shared: `{}` {} plane(s), halo -x{} +x{} -y{} +y{}{}",
            k.arrays[*ai].name,
            s.planes(),
            s.x_lo,
            s.x_hi,
            s.y_lo,
            s.y_hi,
            if s.corners { " with corners" } else { "" }
        ));
    }
    for &(ai, lo, hi) in &g.queues {
        notes.push(format!("registers: `{}` z {lo}..={hi}", k.arrays[ai].name));
    }
    notes
}
