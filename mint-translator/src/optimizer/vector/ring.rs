//! `pipeline` with `vectorize`: each z step reads its x and y neighbours from a ring of
//! shared-memory planes that `cp.async` fills ahead of it (beyond the thesis).
//!
//! The vector path reads the row vectors of plane `z` (the x halo vectors of its center
//! row and the vectors of its other rows) from device memory at step `z`. Most of those
//! rows are ghost rows that no earlier step touched, so each step waits on L2, and a
//! thread keeps its step's loads in flight in registers beside its z queue: the
//! radius-8 star holds 166 registers (12 warps per SM) and ran at 52% of the copy
//! bandwidth in `f32`, 43% in `f64` (H100, 512³).
//!
//! Here the block copies each plane of its tile, with the ghost rows and vectors its
//! stencil reads, into a ring of slots with `cp.async` (16-byte chunks, no registers),
//! [`DEPTH`] planes ahead of the step that reads it ([`DEPTH_ROWS`] for threads of
//! several y rows); the step reads those vectors from shared memory, and the z queues
//! stay in registers as before. The whole
//! block then meets at one barrier per step, so the choice between the ring and the
//! edge path is made per block (the planes exist and the rows are 16-byte aligned), not
//! per thread; threads past the loop's end fill the ring and wait at the barrier but
//! compute nothing. A chunk of the plane outside the allocation (a ghost row past the
//! array's first or last row, a vector past [`GUARD_BYTES`] of a row's end) is
//! zero-filled; no point that the loop computes reads it.
//!
//! The sum is the kernel's own, term by term: only where each vector comes from changes.
//! A CUDA prototype that does the same (every variant bitwise equal to the vector path's
//! kernel) ran the radius-8 star on an H100 at 63% of copy in `f32` (tile 32×16, z chunk
//! 32, 3 planes ahead, z steps unrolled by 4, 128 registers) and 57% in `f64` (16×16,
//! chunk 64). Translated by this module, with `tune` choosing those tiles: 62.0% and
//! 57.5% (README, "The radius-8 star: shared-memory rings for the vector path").
//!
//! With `chunksize` y above 1 a thread computes that many y rows, and its rows share the
//! ring's vectors as the vector path's share their loads: the radius-8 star in `f64` with
//! two rows per thread reads 8 vectors per point from the ring instead of 12, holds two z
//! queues (224 registers, 8 warps per SM) and keeps 4 planes in flight; a prototype of it
//! ran on an H100 at 60.1% of copy where one row per thread ran at 56.5%, translated
//! 61.6% (`tune`). Such a block takes the ring path only if all its rows are inside the
//! loop, and its plane copies run in known rounds (`chunk::async_plane_copy`): its 64
//! threads make 8 copies each per step.
//!
//! It applies to read-only arrays whose row vectors off the z queues are read at the
//! step's own plane (`dz = 0`) and whose only z queues are the center vectors' of the
//! thread's rows (the stars); with one thread along z per thread (`tile` z = `chunksize`
//! z); and where the rings fit the 48 KiB of static shared memory a block may declare.
//! Otherwise the report says why and the vector path reads device memory.

use super::{
    ArrayVec, Lead, Lowering, RING_QUEUE_REGISTERS, edge_rows, lead_loads, plane_conditions,
    queue_moves, queues, skeleton, step,
};
use crate::baseline::config::LaunchConfig;
use crate::emit::cexpr::{CPrinter, Helper};
use crate::emit::cuda::{extent_name, hi_name, pitch_name, slice_name};
use crate::emit::names::c_ident;
use crate::ir::Kernel;
use crate::kir::{Builder, Loop, LoopRole, Shared, Stmt, Unroll};
use crate::optimizer::chunk::{PlaneCopy, async_plane_copy};
use crate::target::{GUARD_BYTES, Target};

/// Planes in flight ahead of the plane a step reads, for threads of one y row. The
/// prototype timed 2, 3 and 4: 3 was best for `f32` (63.1% of copy against 62.5% at 2), 4
/// for `f64` by 0.6 points; with 3 the ring has 4 slots and the slot index is a mask.
pub const DEPTH: i64 = 3;

/// Planes in flight for threads of two or more y rows ([`Ring::depth`]): such a thread holds a
/// z queue per row, so at most 8 warps fit an SM, and each must keep more planes in
/// flight. The prototype ran the radius-8 star in `f64` with two rows per thread on an
/// H100 at 60.1% of copy 4 planes ahead and 55.9% 3 ahead.
pub const DEPTH_ROWS: i64 = 4;

/// The z steps of the ring path are unrolled by this many (without `roll_z`), so the z
/// queue's moves run once per four steps. In the prototype the radius-8 star in `f32`
/// ran at 58.2% of copy rolled, 63.0% unrolled by 4, 61.1% by 8, and spilled from 16 on.
pub const UNROLL_Z: u32 = 4;

/// The shared-memory ring of one read-only array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ring {
    /// The array (index into the kernel's arrays).
    pub ai: usize,
    /// Rows `dy` in `y_lo..=y_hi` and vectors `h` in `h_lo..=h_hi` around each thread's
    /// own: the ghost rows and vectors of the tile.
    pub y_lo: i64,
    pub y_hi: i64,
    pub h_lo: i64,
    pub h_hi: i64,
    /// A slot's rows (tile y plus ghost rows) and elements per row (tile x plus ghost
    /// vectors).
    pub rows: u32,
    pub cols: u32,
    /// The y rows of a thread (`chunksize` y).
    pub cy: u32,
}

impl Ring {
    /// The shared array holding `array`'s ring.
    pub fn name(array: &str) -> String {
        format!("mint_ring_{}", c_ident(array))
    }

    /// The place in the ring of vector `h` of row `dy` (from the thread's first y row) of
    /// the calling thread, at the step's slot `mint_slot`.
    pub fn vector(&self, array: &str, dy: i64, h: i64, v: u32) -> String {
        let row = if self.cy > 1 {
            format!("threadIdx.y * {}", self.cy)
        } else {
            "threadIdx.y".into()
        };
        format!(
            "{}[mint_slot][{row} + {}][threadIdx.x * {v} + {}]",
            Self::name(array),
            dy - self.y_lo,
            (h - self.h_lo) * v as i64
        )
    }

    /// The planes in flight ahead of the step's: [`DEPTH`], or [`DEPTH_ROWS`] for threads
    /// of several y rows.
    pub fn depth(&self) -> i64 {
        if self.cy > 1 { DEPTH_ROWS } else { DEPTH }
    }

    /// The ring's slots: the plane a step reads and the [`Ring::depth`] in flight after it.
    pub fn slots(&self) -> i64 {
        self.depth() + 1
    }

    /// Bytes of shared memory of the ring's slots of `es`-byte elements.
    pub fn bytes(&self, es: usize) -> usize {
        self.slots() as usize * self.rows as usize * self.cols as usize * es
    }
}

/// What `pipeline` needs of the vector path before `cp.async` (the part of
/// [`crate::plan`]'s rule after the sliding window): one thread along z.
pub fn stages(cfg: &LaunchConfig) -> Result<(), String> {
    if cfg.tile[2] != cfg.chunk[2] {
        return Err(format!(
            "the ring path needs one thread along z (`tile` z {} = `chunksize` z {})",
            cfg.tile[2], cfg.chunk[2]
        ));
    }
    Ok(())
}

/// The rings of `k`'s read-only arrays, or why there are none (the last part of
/// [`crate::plan`]'s rule for `pipeline` on the vector path): each array's row vectors off
/// its z queues at the step's own plane, and the rings within the static shared memory of
/// a block.
pub(super) fn fit(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    arrays: &[ArrayVec],
    v: u32,
) -> Result<Vec<Ring>, String> {
    let cy = cfg.chunk[1];
    let mut rings = Vec::new();
    for (ai, av) in arrays.iter().enumerate() {
        if av.written || av.rows.is_empty() {
            continue;
        }
        let name = &k.arrays[ai].name;
        // the thread's rows' center vectors, `(yl, 0)` for `yl` in `0..cy`
        if av
            .queues
            .keys()
            .any(|&(dy, h)| h != 0 || !(0..cy as i64).contains(&dy))
        {
            return Err(format!(
                "`{name}` has z queues of vectors other than the centers' (a ring holds the step's plane only)"
            ));
        }
        let off: Vec<(i64, i64)> = av
            .rows
            .iter()
            .flat_map(|(&(dy, dz), hs)| hs.iter().map(move |&h| (dy, dz, h)))
            .filter(|&(dy, dz, h)| av.queue_of(dy, dz, h).is_none())
            .map(|(dy, dz, h)| {
                if dz == 0 {
                    Ok((dy, h))
                } else {
                    Err(format!(
                        "`{name}` is read at plane z{dz:+} outside its z queue (a ring holds the step's plane only)"
                    ))
                }
            })
            .collect::<Result<_, _>>()?;
        // (the thread's own rows' centers are all in its z queues)
        if off.is_empty() {
            continue;
        }
        let (y_lo, y_hi) = off
            .iter()
            .fold((0, 0), |(a, b), o| (a.min(o.0), b.max(o.0)));
        let (h_lo, h_hi) = off
            .iter()
            .fold((0, 0), |(a, b), o| (a.min(o.1), b.max(o.1)));
        rings.push(Ring {
            ai,
            y_lo,
            y_hi,
            h_lo,
            h_hi,
            // the tile's rows and the ghost rows of its first and last thread rows,
            // whose rows `dy` count from the thread's first of `cy`
            rows: cfg.tile[1] + (y_hi - y_lo) as u32 + 1 - cy,
            cols: cfg.tile[0] + (h_hi - h_lo) as u32 * v,
            cy,
        });
    }
    if rings.is_empty() {
        return Err("no array is read at x or y neighbours outside its z queue".into());
    }
    let bytes: usize = rings
        .iter()
        .map(|r| r.bytes(k.arrays[r.ai].elem.size_bytes() as usize))
        .sum();
    if bytes > target.shared_bytes_per_block as usize {
        return Err(format!(
            "its rings take {bytes} bytes of shared memory, more than the {} a block may declare (a smaller `tile`)",
            target.shared_bytes_per_block
        ));
    }
    Ok(rings)
}

/// Copies plane `zz` of ring `r`'s array into slot `slot` with `cp.async`, 16-byte chunk
/// `t`, `t + n`, … by thread `t` of the block's `n`; chunks outside the allocation are
/// zero-filled.
fn fill(
    p: &CPrinter,
    b: &mut Builder,
    k: &Kernel,
    r: &Ring,
    (v, threads): (u32, u32),
    slot: &str,
    zz: &str,
) {
    let a = &k.arrays[r.ai];
    let name = p.names.get(&a.name);
    let guard = (GUARD_BYTES / a.elem.size_bytes() as usize) as i64;
    async_plane_copy(
        b,
        &PlaneCopy {
            tid: "mint_tid",
            threads,
            rows: r.rows,
            cols: r.cols,
            chunk: v,
            x0: &format!("mint_x_tile - {}", -r.h_lo * v as i64),
            y0: &format!("mint_y_tile - {}", -r.y_lo),
            inside: &format!(
                "mint_gy >= 0 && mint_gy < {} && mint_gx >= -{guard} && mint_gx + {v} <= {} + {guard}",
                extent_name(&a.name, 1),
                extent_name(&a.name, 0)
            ),
            dst: &format!("{}[{slot}]", Ring::name(&a.name)),
            array: &name,
            offset: &format!(
                "mint_gx + mint_gy * {} + ({zz}) * {}",
                pitch_name(&a.name),
                slice_name(&a.name)
            ),
            // several y rows per thread: few threads, many copies each (`async_plane_copy`)
            rounds: r.cy > 1,
        },
    );
}

/// The kernel body from the tile origin on, for a block that runs the ring path: the
/// rings, the z queues, the prologue's copies, the z steps (the queues' next planes,
/// wait, barrier, the copy [`DEPTH`] planes ahead, the step of the threads inside the
/// loop, the queues' moves); and the edge path
/// for blocks whose planes leave the arrays or whose rows are not 16-byte aligned.
pub(super) fn body(p: &mut CPrinter, b: &mut Builder, x: &Lowering, by: &str) {
    let (k, cfg, v, rings) = (x.k, x.cfg, x.v, x.rings);
    let (cy, cz) = (cfg.chunk[1], cfg.chunk[2]);
    let (depth, slots) = (rings[0].depth(), rings[0].slots());
    p.use_helper(Helper::AsyncCopy);
    b.comment(format!("pipeline: the steps read their x and y neighbours from shared-memory rings of {slots} planes that cp.async fills {depth} planes ahead"));
    for r in rings {
        let a = &k.arrays[r.ai];
        b.push(Stmt::Shared(Shared {
            ty: a.elem.cuda_name().into(),
            name: Ring::name(&a.name),
            dims: vec![slots as u32, r.rows, r.cols],
            align: Some(16),
        }));
    }
    skeleton::tile_origin(b, by, cfg.tile[0], cfg.tile[1]);
    b.push(Stmt::konst(
        "int",
        "mint_tid",
        format!("threadIdx.x + {} * threadIdx.y", cfg.tile[0] / v),
    ));
    b.push(Stmt::konst(
        "bool",
        "mint_active",
        format!("mint_x0 < {} && mint_y0 < {}", hi_name(0), hi_name(1)),
    ));
    if cy == 1 {
        b.push(Stmt::konst("idx_t", x.nm.yvar.clone(), "mint_y0"));
    }
    skeleton::z_end(b, cz);
    let mut cond = vec!["mint_vec".to_string()];
    if cy > 1 {
        // every y row of the block's threads is a point of the loop: each thread then
        // loads its rows' z queues and stores its rows with no test per row
        cond.push(format!("mint_y_tile + {} <= {}", cfg.tile[1], hi_name(1)));
    }
    for (a, av) in k.arrays.iter().zip(x.arrays) {
        for c in plane_conditions(a, av) {
            if !cond.contains(&c) {
                cond.push(c);
            }
        }
    }
    b.comment(format!("the block's planes exist{} and its rows are 16-byte aligned: the whole block takes the ring path", if cy > 1 { ", its rows are inside the loop" } else { "" }));
    let then = b.nest(|b| ring_steps(p, b, x));
    let edge = b.nest(|b| {
        b.comment("edge block (planes outside the arrays, or rows not 16-byte aligned): the loop body per lane");
        edge_rows(p, b, k, x.refs, &x.nm, v, cy, true);
    });
    skeleton::edge_split(b, cond.join(" && "), then, Some("mint_active"), edge);
}

/// The ring path of a block: the z queues, the prologue's copies (the first [`DEPTH`]
/// planes, one commit group each), then the z steps ([`ring_step`]).
fn ring_steps(p: &mut CPrinter, b: &mut Builder, x: &Lowering) {
    let (k, nm, v) = (x.k, &x.nm, x.v);
    let depth = x.rings[0].depth();
    let (lead, ahead) = queues(
        p,
        b,
        k,
        x.arrays,
        nm,
        v,
        Some("mint_active"),
        RING_QUEUE_REGISTERS,
    );
    b.comment(format!(
        "the first {depth} planes into the rings, one commit group each"
    ));
    for j in 0..depth {
        b.if_(format!("mint_z0 + {j} < mint_z_end"), |b| {
            copies(p, b, x, &j.to_string(), &format!("mint_z0 + {j}"))
        });
        b.push(Stmt::AsyncCommit);
    }
    let l = Loop::new(
        LoopRole::ZWindow,
        "idx_t mint_s = 0",
        format!("mint_s < {}", x.cfg.chunk[2]),
        "++mint_s",
    )
    .unroll(Some(Unroll::By(UNROLL_Z)));
    b.for_(l, |b| ring_step(p, b, x, &lead, ahead));
}

/// One z step of the ring path: the z queues' next planes, the wait for this step's
/// plane, the barrier, the copy [`DEPTH`] planes ahead, the step of the threads inside
/// the loop, the queues' moves.
fn ring_step(p: &mut CPrinter, b: &mut Builder, x: &Lowering, lead: &[Lead], ahead: i64) {
    let (k, nm, v) = (x.k, &x.nm, x.v);
    let z = nm.z.clone().expect("the ring path is 3-D");
    let (depth, slots) = (x.rings[0].depth(), x.rings[0].slots());
    b.push(Stmt::konst("idx_t", z.clone(), "mint_z0 + mint_s"));
    b.push(Stmt::if_line(format!("{z} >= mint_z_end"), Stmt::Break));
    lead_loads(p, b, k, nm, v, lead, Some("mint_active"));
    skeleton::async_step(
        b,
        depth,
        "this step's plane has landed",
        Some("and the slot the copy below refills is read by no thread"),
        format!("{z} + {depth} < mint_z_end"),
        |b| {
            copies(
                p,
                b,
                x,
                &format!("(int)((mint_s + {depth}) % {slots})"),
                &format!("{z} + {depth}"),
            )
        },
    );
    b.push(Stmt::konst(
        "int",
        "mint_slot",
        format!("(int)(mint_s % {slots})"),
    ));
    b.if_("mint_active", |b| {
        step(p, b, k, x.arrays, x.refs, nm, v, &[], x.rings)
    });
    // every thread moves its queue, so the moves stay register renaming: under the
    // condition the compiler keeps both the moved and the unmoved queue (the radius-8
    // star in f32: 202 registers instead of 158)
    queue_moves(b, k, x.arrays, ahead);
}

/// The copies of plane `zz` of every ring into slot `slot` ([`fill`]).
fn copies(p: &CPrinter, b: &mut Builder, x: &Lowering, slot: &str, zz: &str) {
    let cfg = x.cfg;
    let threads = cfg.tile[0] / x.v * (cfg.tile[1] / cfg.chunk[1]);
    for r in x.rings {
        fill(p, b, x.k, r, (x.v, threads), slot, zz);
    }
}
