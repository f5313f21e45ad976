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
//! stencil reads, into a ring of [`SLOTS`] slots with `cp.async` (16-byte chunks, no
//! registers), [`DEPTH`] planes ahead of the step that reads it; the step reads those
//! vectors from shared memory, and the z queue stays in registers as before. The whole
//! block then meets at one barrier per step, so the choice between the ring and the
//! edge path is made per block (the planes exist and the rows are 16-byte aligned), not
//! per thread; threads past the loop's end fill the ring and wait at the barrier but
//! compute nothing. A chunk of the plane outside the allocation (a ghost row past the
//! array's first or last row, a vector past [`GUARD_BYTES`] of a row's end) is
//! zero-filled; no point that the loop computes reads it.
//!
//! The sum is the kernel's own, term by term: only where each vector comes from changes.
//! A CUDA prototype that does the same (`bench-results/h100-2026-11-25c/ring/`, every
//! variant bitwise equal to the vector path's kernel) ran the radius-8 star at 63% of
//! copy in `f32` (tile 32×16, z chunk 32, 3 planes ahead, z steps unrolled by 4, 128
//! registers) and 57% in `f64` (16×16, chunk 64). Translated by this module, with `tune`
//! choosing those tiles: 62.0% and 57.5% (README, "The radius-8 star: shared-memory rings
//! for the vector path").
//!
//! It applies to read-only arrays whose row vectors off the z queues are read at the
//! step's own plane (`dz = 0`) and whose only z queue is the center vector's (the stars);
//! with one y row and one thread along z per thread (`chunksize` y 1, `tile` z =
//! `chunksize` z); and where the rings fit the 48 KiB of static shared memory a block may
//! declare. Otherwise the report says why and the vector path reads device memory.

use super::{
    ArrayVec, Names3, VecRefs, edge_path, lead_loads, plane_conditions, queue_moves, queues, step,
};
use crate::baseline::config::LaunchConfig;
use crate::emit::cexpr::{CPrinter, Helper};
use crate::emit::cuda::{extent_name, hi_name, lo_name, pitch_name, slice_name};
use crate::emit::names::c_ident;
use crate::ir::Kernel;
use crate::optimizer::chunk::{PlaneCopy, async_plane_copy};
use crate::target::{GUARD_BYTES, Target};

/// Planes in flight ahead of the plane a step reads. The prototype timed 2, 3 and 4:
/// 3 was best for `f32` (63.1% of copy against 62.5% at 2), 4 for `f64` by 0.6 points;
/// with 3 the ring has 4 slots and the slot index is a mask.
pub const DEPTH: i64 = 3;

/// Slots of a ring: the plane a step reads and the [`DEPTH`] in flight after it.
pub const SLOTS: i64 = DEPTH + 1;

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
}

impl Ring {
    /// The shared array holding `array`'s ring.
    pub fn name(array: &str) -> String {
        format!("mint_ring_{}", c_ident(array))
    }

    /// The place in the ring of vector `h` of row `dy` of the calling thread, at the
    /// step's slot `mint_slot`.
    pub fn vector(&self, array: &str, dy: i64, h: i64, v: u32) -> String {
        format!(
            "{}[mint_slot][threadIdx.y + {}][threadIdx.x * {v} + {}]",
            Self::name(array),
            dy - self.y_lo,
            (h - self.h_lo) * v as i64
        )
    }

    /// Bytes of shared memory of the ring's [`SLOTS`] slots of `es`-byte elements.
    pub fn bytes(&self, es: usize) -> usize {
        SLOTS as usize * self.rows as usize * self.cols as usize * es
    }
}

/// The rings of `k`'s read-only arrays, or why `pipeline` does not apply to the vector
/// path.
pub fn plan(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    arrays: &[ArrayVec],
    v: u32,
    window: bool,
) -> Result<Vec<Ring>, String> {
    if !window {
        return Err("it needs the sliding window (3-D, `chunksize` z above 1)".into());
    }
    if cfg.chunk[1] != 1 {
        return Err(format!(
            "the ring path computes one y row per thread (`chunksize` y is {})",
            cfg.chunk[1]
        ));
    }
    if cfg.tile[2] != cfg.chunk[2] {
        return Err(format!(
            "the ring path needs one thread along z (`tile` z {} = `chunksize` z {})",
            cfg.tile[2], cfg.chunk[2]
        ));
    }
    if let Some(why) = crate::optimizer::no_cp_async(target) {
        return Err(why);
    }
    let mut rings = Vec::new();
    for (ai, av) in arrays.iter().enumerate() {
        if av.written || av.rows.is_empty() {
            continue;
        }
        let name = &k.arrays[ai].name;
        if av.queues.keys().any(|&q| q != (0, 0)) {
            return Err(format!(
                "`{name}` has z queues of vectors other than the center's (a ring holds the step's plane only)"
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
        if off.iter().all(|&o| o == (0, 0)) {
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
            rows: cfg.tile[1] + (y_hi - y_lo) as u32,
            cols: cfg.tile[0] + (h_hi - h_lo) as u32 * v,
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

/// Device helper of the ring path: a 16-byte vector from shared memory.
pub const HELPERS: &str = r#"// r = s[0 .. V) from shared memory (the ring path): one 16-byte load
template <typename T>
__device__ __forceinline__ void mint_vload_shared(const T* s, T* r) {
    const typename mint_vec<T>::type w = *reinterpret_cast<const typename mint_vec<T>::type*>(s);
    const T* q = reinterpret_cast<const T*>(&w);
#pragma unroll
    for (int k = 0; k < 16 / (int)sizeof(T); ++k) r[k] = q[k];
}
"#;

/// Copies plane `zz` of ring `r`'s array into slot `slot` with `cp.async`, 16-byte chunk
/// `t`, `t + n`, … by thread `t` of the block's `n`; chunks outside the allocation are
/// zero-filled.
fn fill(p: &mut CPrinter, k: &Kernel, r: &Ring, v: u32, threads: u32, slot: &str, zz: &str) {
    let a = &k.arrays[r.ai];
    let name = p.names.get(&a.name);
    let guard = (GUARD_BYTES / a.elem.size_bytes() as usize) as i64;
    async_plane_copy(
        p,
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
        },
    );
}

/// The kernel body from the tile origin on, for a block that runs the ring path: the
/// rings, the z queues, the prologue's copies, the z steps (the queues' next planes,
/// wait, barrier, the copy [`DEPTH`] planes ahead, the step of the threads inside the
/// loop, the queues' moves); and the edge path
/// for blocks whose planes leave the arrays or whose rows are not 16-byte aligned.
#[allow(clippy::too_many_arguments)]
pub fn body(
    p: &mut CPrinter,
    k: &Kernel,
    cfg: &LaunchConfig,
    arrays: &[ArrayVec],
    refs: &VecRefs,
    nm: &Names3,
    v: u32,
    rings: &[Ring],
    rolled: bool,
    by: &str,
) {
    let z = nm.z.clone().expect("the ring path is 3-D");
    let cz = cfg.chunk[2];
    let threads = cfg.tile[0] / v * cfg.tile[1];
    p.use_helper(Helper::AsyncCopy);
    p.push_line(&format!(
        "// pipeline: the steps read their x and y neighbours from shared-memory rings of {SLOTS} planes that cp.async fills {DEPTH} planes ahead"
    ));
    for r in rings {
        let a = &k.arrays[r.ai];
        p.push_line(&format!(
            "__shared__ __align__(16) {} {}[{SLOTS}][{}][{}];",
            a.elem.cuda_name(),
            Ring::name(&a.name),
            r.rows,
            r.cols
        ));
    }
    p.push_line(&format!(
        "const idx_t mint_x_tile = {} + (idx_t)blockIdx.x * {};",
        lo_name(0),
        cfg.tile[0]
    ));
    p.push_line(&format!(
        "const idx_t mint_y_tile = {} + (idx_t){by} * {};",
        lo_name(1),
        cfg.tile[1]
    ));
    p.push_line(&format!(
        "const int mint_tid = threadIdx.x + {} * threadIdx.y;",
        cfg.tile[0] / v
    ));
    p.push_line(&format!(
        "const bool mint_active = mint_x0 < {} && mint_y0 < {};",
        hi_name(0),
        hi_name(1)
    ));
    p.push_line(&format!("const idx_t {} = mint_y0;", nm.yvar));
    p.push_line(&format!(
        "const idx_t mint_z_end = min(mint_z0 + {cz}, {});",
        hi_name(2)
    ));
    let mut cond = vec!["mint_vec".to_string()];
    for (a, av) in k.arrays.iter().zip(arrays) {
        for c in plane_conditions(a, av) {
            if !cond.contains(&c) {
                cond.push(c);
            }
        }
    }
    p.push_line("// the block's planes exist and its rows are 16-byte aligned: the whole block takes the ring path");
    p.push_line(&format!("if ({}) {{", cond.join(" && ")));
    p.indent += 1;
    let (lead, ahead) = queues(p, k, arrays, nm, v, Some("mint_active"));
    let copies = |p: &mut CPrinter, slot: &str, zz: &str| {
        for r in rings {
            fill(p, k, r, v, threads, slot, zz);
        }
    };
    p.push_line(&format!(
        "// the first {DEPTH} planes into the rings, one commit group each"
    ));
    for j in 0..DEPTH {
        p.push_line(&format!("if (mint_z0 + {j} < mint_z_end) {{"));
        p.indent += 1;
        copies(p, &j.to_string(), &format!("mint_z0 + {j}"));
        p.indent -= 1;
        p.push_line("}");
        p.push_line("mint_cp_async_commit();");
    }
    p.push_line(&format!(
        "#pragma unroll {}",
        if rolled { 1 } else { UNROLL_Z }
    ));
    p.push_line(&format!(
        "for (idx_t mint_s = 0; mint_s < {cz}; ++mint_s) {{"
    ));
    p.indent += 1;
    p.push_line(&format!("const idx_t {z} = mint_z0 + mint_s;"));
    p.push_line(&format!("if ({z} >= mint_z_end) break;"));
    lead_loads(p, k, nm, v, &lead, Some("mint_active"));
    p.push_line(&format!(
        "mint_cp_async_wait<{}>(); // this step's plane has landed",
        DEPTH - 1
    ));
    p.push_line("__syncthreads(); // and the slot the copy below refills is read by no thread");
    p.push_line(&format!("if ({z} + {DEPTH} < mint_z_end) {{"));
    p.indent += 1;
    copies(
        p,
        &format!("(int)((mint_s + {DEPTH}) % {SLOTS})"),
        &format!("{z} + {DEPTH}"),
    );
    p.indent -= 1;
    p.push_line("}");
    p.push_line("mint_cp_async_commit();");
    p.push_line(&format!("const int mint_slot = (int)(mint_s % {SLOTS});"));
    p.push_line("if (mint_active) {");
    p.indent += 1;
    step(p, k, arrays, refs, nm, v, &[], rings);
    p.indent -= 1;
    p.push_line("}");
    // every thread moves its queue, so the moves stay register renaming: under the
    // condition the compiler keeps both the moved and the unmoved queue (the radius-8
    // star in f32: 202 registers instead of 158, bench-results/h100-2026-11-25c/lanes/)
    queue_moves(p, k, arrays, ahead);
    p.indent -= 1;
    p.push_line("}");
    p.indent -= 1;
    p.push_line("} else if (mint_active) {");
    p.indent += 1;
    p.push_line("// edge block (planes outside the arrays, or rows not 16-byte aligned): the loop body per lane");
    edge_path(p, k, refs, nm, v, true);
    p.indent -= 1;
    p.push_line("}");
}
