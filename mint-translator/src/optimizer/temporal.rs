//! Temporal blocking (issue #45): `depth` steps of a ping-pong time loop in one launch.
//!
//! The scheme is 3.5-D blocking (Nguyen et al.; seed `004_c4ec796f4eb5494f.txt`, Sec.
//! 2.1.2 and 6.2.1), the overlapped tiling of seed `002_c2277fb7a2a128f7.txt` (Sec.
//! 3.2.1) and of AN5D and EBISU: 2.5-D spatial blocking in x and y, streaming along z,
//! plus 1-D temporal blocking. Each block loads an xy tile widened by `depth × reach`
//! ghost cells on each side, one thread per column, and walks its z planes. At every
//! plane it loads the input plane (step 0; where registers allow, from a register loaded
//! at the previous plane, [`look_ahead`]), then computes step 1 `lag` planes behind it,
//! step 2 `2·lag` behind, and so on: each step `s < depth` keeps its plane in registers and
//! in shared memory, and the last step writes device memory, on the tile's inner
//! `tile − 2·depth·reach` columns and rows only. The ghost cells are computed redundantly
//! by neighbouring blocks; no block reads what another writes in the same launch.
//!
//! A step reads the planes of its own column from the previous step's register queue
//! (`z − rz ..= z + lag`, the thread's own values, written earlier in the walk or earlier
//! in the same plane), and the planes it reads at other columns from the previous step's
//! shared ring ([`TemporalPlan::shared_dz`]). One barrier per plane: each step lags the
//! previous one by at least `rz` (its own column's planes are then written) and by one
//! more than the highest plane it reads from the ring, so that every plane read there was
//! written at an earlier plane of the walk, before the barrier that ends it; the ring has
//! one slot more than the planes read, the slot the previous step writes meanwhile. A
//! star reads other columns only on its own plane: a ring of `rz + 1` planes and a lag of
//! `rz` (2 planes and 1 for heat).
//! A stencil that reads other columns on other planes, or a subscript known only at run
//! time, keeps `2·rz + 2` planes and a lag of `rz + 1`.
//!
//! Each plane of the walk is computed one of two ways. The general walk tests at every
//! step whether the column is inside the input and the loop ranges and whether the plane
//! is one the step computes, and computes only the columns whose value depends on the
//! block's columns. A block whose whole tile lies inside the input and the loop ranges
//! (most blocks of a large grid) computes the planes of the walk's middle, where no such
//! test can fail, without them ([`interior_range`]), where the step reads other arrays only
//! at constant offsets from the point ([`Interior`]): every column, the last step's rows
//! and store the only tests left, one plane at a time or, where registers allow, in groups
//! that rename the register queues rather than move them.
//!
//! Points the step does not write (outside the loop's ranges: fixed boundary planes)
//! keep, at step `s`, the value of the array that step writes in the unblocked loop: the
//! input array at even steps, the output array at odd ones. The fused launch reads the
//! input and writes the output, and the time loop swaps the two names once after it.
//! With an odd depth that is exactly where the unblocked loop leaves its `depth` steps,
//! bit for bit, boundary values included, whatever the two arrays hold outside the
//! ranges; the runtime asks for odd depths only. The other array's interior holds an
//! older step, which the next launch overwrites before anything reads it; the runtime
//! runs the loop's last step unblocked, so that both arrays end as the unblocked loop
//! leaves them.
//!
//! On one of several devices the launch's z range (`mint_lo_z..mint_hi_z`) is the
//! device's own planes, and the loop's whole range (`mint_whole_lo_z..mint_whole_hi_z`)
//! tells the fixed boundary planes: steps `1..depth` compute the planes within
//! `(depth − s) · rz` of the device's own from the `depth · rz` ghost planes its slabs
//! carry, as they compute a tile's ghost cells (the runtime's deep halos, issue #45 item 4).
//!
//! A 2-D step (two parallel loops, `[y, x]`) is the same scheme one dimension down: a tile
//! of one row of `x` columns walking along `y` ([`walk_axis`]); the plan names the tile's
//! columns, its rows and the walk as roles ([`role_of_axis`]), so that one lowering serves
//! both.
//!
//! What can be blocked ([`check_pairs`]): two or three parallel loops, no reduction; the
//! step writes one array at its point, unconditionally, and reads it only there after
//! writing it; it reads the other within a distance of its point that the reach analysis
//! bounds (the textbook `u[[z + c, y, x]]`, and clamped or mirrored faces written as the
//! code's original writes them: a subscript `b` of `let b = if z == 0 { z } else { z - 1
//! };` reads the ring at the plane `b` names); other pairs of the loop's swaps it may carry
//! at its point (read and written there only, [`TemporalPlan::carried`]: a register queue
//! per step, no ring); other arrays are read only.

use crate::analyzer::reach::reaches;
use crate::analyzer::refs::{references, stencil_offset};
use crate::baseline::config::LaunchConfig;
use crate::diag::{Diag, DiagResult};
use crate::emit::cexpr::{CPrinter, RefResolver};
use crate::emit::cuda::{
    self, Param, ParamKind, extent_name, flat_ref, has_top_level_continue, hi_name, lo_name,
    whole_hi_name, whole_lo_name,
};
use crate::ir::*;
use crate::kir::print::helpers::helpers_source;
use crate::kir::{Builder, Loop, LoopRole, Stmt, Unroll, Var};
use crate::target::Target;
use crate::translation::KernelSource;
use std::cell::Cell;

/// The plan of a temporally blocked kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemporalPlan {
    /// Steps per launch.
    pub depth: u32,
    /// The array each step reads (index in the kernel's arrays) and the one it writes.
    pub input: usize,
    pub output: usize,
    /// The pairs the step carries at its point (`(read, written)`, [`check_with`]): each
    /// step keeps its value in a register queue beside the output's, step 1 reads the
    /// read array from device memory, the last step writes the written one.
    pub carried: Vec<(usize, usize)>,
    /// The input's reach along the tile's columns, its rows and the walk: x, y, z of a
    /// 3-D step; x, none (0) and y of a 2-D one, whose walk streams along y. The largest
    /// |offset| of its references.
    pub reach: [u32; 3],
    /// Threads per block along x and y (1 for a 2-D step).
    pub threads: [u32; 2],
    /// Rows of the tile per thread (`chunksize` along y): thread row `t` computes the
    /// tile rows `t`, `t + threads[1]`, …; the tile with its ghost cells is
    /// `threads[0] × threads[1]·rows`.
    pub rows: u32,
    /// Output planes per block along the walk (z; y of a 2-D step: rows of the grid).
    pub planes: u32,
    /// The planes, relative to a step's plane, that the step reads from shared memory
    /// (lowest, highest): those of the input's references at another column (an offset in
    /// x or y) and, where a subscript is known only at run time, the whole reach. A
    /// reference at the thread's own column with a constant offset reads the thread's
    /// register queue instead ([`Self::queue`]). `[-rz, rz]` assumes the most.
    pub shared_dz: [i32; 2],
    /// How a block inside the grid walks its middle planes.
    pub interior: Interior,
}

/// How a block whose whole tile lies inside the grid walks the middle planes of its z walk
/// ([`TemporalPlan::interior`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interior {
    /// With every test, as the planes of the tile's edges, where computing a ghost column
    /// from values that are not the step's could do harm: the step reads an array other
    /// than its input anywhere but at a constant offset from the point outside any `if`
    /// or loop ([`others_fixed`]; a value must not reach its subscript), its elements are
    /// integers (signed overflow), or a value could set a serial loop's trip count
    /// ([`fixed_loops`]).
    Tested,
    /// One plane at a time without the general walk's tests (the last step's rows and
    /// store aside, [`Walk::Interior`]), the register queues moved down a register at each
    /// plane.
    Planes,
    /// In groups of [`TemporalPlan::queue`] planes without tests, each plane naming the
    /// queues' registers in turn so that nothing moves: where the walk looks ahead
    /// ([`look_ahead`]), every subscript of the input is a constant offset, and a block
    /// held to [`crate::Target::max_registers`] fills an SM's registers alone (1,024
    /// threads at 64), so that the more registers the group's interleaved planes take
    /// cost no block per SM (they do for 512 threads: 3 blocks per SM down to 2), or the
    /// step is 2-D (a tile of one row, 256 threads: 2-D heat on an H200 at 8192² ran 16%
    /// faster in groups at depth 3 in `f32`, 3% at depth 5, 10% and 8% in `f64`). The
    /// kernel is held to that cap, which the runtime raises where it spills.
    Groups,
}

impl TemporalPlan {
    /// The tile along x and y, ghost cells included: `threads[0] × threads[1]·rows`.
    pub fn tile(&self) -> [u32; 2] {
        [self.threads[0], self.threads[1].saturating_mul(self.rows)]
    }
    /// The points of one plane a block writes along x and y: its tile less
    /// `depth × reach` ghost cells on each side.
    pub fn inner(&self) -> [u32; 2] {
        let g = |a: usize| 2 * self.depth * self.reach[a];
        let t = self.tile();
        [t[0].saturating_sub(g(0)), t[1].saturating_sub(g(1))]
    }
    /// Shared planes per step ring: the planes a step reads from it
    /// ([`Self::shared_dz`]) and the one the previous step writes meanwhile,
    /// `lag − lowest + 1` (`2·rz + 2` for a reach read at every plane, `rz + 1` for a
    /// star, whose other planes come from registers).
    pub fn ring(&self) -> u32 {
        (i64::from(self.lag()) - i64::from(self.shared_dz[0].min(0)) + 1) as u32
    }
    /// Planes of the walk by which step `s + 1` follows step `s`: at least the reach along
    /// z (the own column's planes, from registers, written earlier in the same walk
    /// iteration), and one more than the highest plane read from shared memory, so that
    /// such a plane was written before the last barrier.
    pub fn lag(&self) -> u32 {
        let shared = i64::from(self.shared_dz[1].max(0)) + 1;
        i64::from(self.reach[2]).max(shared) as u32
    }
    /// Registers per row in each step's queue: the thread's own column of the step's
    /// output, planes `z − rz ..= z + lag` of the next step's plane `z`.
    pub fn queue(&self) -> u32 {
        self.lag() + self.reach[2] + 1
    }
    /// Dynamic shared memory of a block: `depth` rings of `ring()` planes of the tile
    /// ([`Self::tile`]), elements of `elem_bytes` bytes.
    pub fn shared_bytes(&self, elem_bytes: u32) -> u64 {
        let [tx, ty] = self.tile().map(u64::from);
        let rings = u64::from(self.depth) * u64::from(self.ring()) * tx * ty;
        (rings + 2 * self.pad()) * u64::from(elem_bytes)
    }
    /// Elements of shared memory before the first ring and after the last, `(ry + 1)`
    /// rows of the tile where the walk has interior planes ([`Interior`]), none where it
    /// tests every column ([`Interior::Tested`]): a step of a walk's interior planes
    /// computes every column of its tile, and a column at the tile's edge then reads up
    /// to `ry` rows and `rx` columns past its ring, which must lie in the allocation.
    pub fn pad(&self) -> u64 {
        match self.interior {
            Interior::Tested => 0,
            Interior::Planes | Interior::Groups => {
                u64::from(self.reach[1] + 1) * u64::from(self.tile()[0])
            }
        }
    }
    /// What the ring slot of plane `z` adds before taking it modulo [`Self::ring`]: a
    /// multiple of the ring at least as large as the lowest plane a step names lies below
    /// `mint_z0`: `depth·rz + depth·lag + rz`.
    pub fn slot_offset(&self) -> i64 {
        let (d, rz) = (i64::from(self.depth), i64::from(self.reach[2]));
        i64::from(self.ring()) * (d * rz + d * i64::from(self.lag()) + rz + 1)
    }
    /// The launch configuration: the grid covers the loop ranges with the inner tiles
    /// (`[x, planes]` of a 2-D step's one-row tiles).
    pub fn launch(&self, cfg: &LaunchConfig) -> LaunchConfig {
        let [ix, iy] = self.inner();
        let tile = match cfg.nest {
            2 => [ix, self.planes, 1],
            _ => [ix, iy, self.planes],
        };
        LaunchConfig { tile, ..*cfg }
    }
}

/// The default block of a fused launch of `depth` steps of reach `reach` (x, y, z) over
/// elements of `elem_bytes` bytes. The tile is 32 columns wide (64 where the ghost cells
/// would leave fewer than 8) and as many rows as 1024 threads would cover, 8 fewer (down
/// to 8) while the rings ([`TemporalPlan::shared_bytes`], counted as if every plane of
/// the reach were read from shared memory) exceed `shared_bytes` (the device's opt-in
/// shared memory per block); 64 planes. Where `depth × elem_bytes` is at most 32 (f32 to
/// depth 7, f64 to depth 3) half as many threads each compute two tile rows: on an H100 at
/// 512³ that was 378 against 312 GPts/s (f32, depth 3) and 241 against 178 (f64, depth
/// 3); f64 at depth 5 ran faster with one row (163 against 134). `MINT_TIME_TILE=x,y,z,rows`
/// sets it. Returns `[x threads, y threads, planes, rows per thread]`.
///
/// A 2-D step (`dims` 2) streams along y with tiles of one row: 256 threads and 64 planes
/// (rows of the grid) per block, where `2 × depth × reach` ghost columns of 256 cost
/// little.
pub fn default_tile(
    dims: usize,
    depth: u32,
    reach: [u32; 3],
    elem_bytes: u32,
    shared_bytes: u32,
) -> [u32; 4] {
    if dims == 2 {
        return [256, 1, 64, 1];
    }
    let bx = if 32 < 2 * depth * reach[0] + 8 {
        64
    } else {
        32
    };
    let mut tp = TemporalPlan {
        depth,
        input: 0,
        output: 1,
        carried: Vec::new(),
        reach,
        threads: [bx, 1024 / bx],
        rows: 1,
        planes: 64,
        shared_dz: [-(reach[2] as i32), reach[2] as i32],
        // counts the pads, which the plan may add
        interior: Interior::Planes,
    };
    while tp.threads[1] > 8 && tp.shared_bytes(elem_bytes) > u64::from(shared_bytes) {
        tp.threads[1] -= 8;
    }
    if depth * elem_bytes <= 32 && tp.threads[1].is_multiple_of(2) && tp.threads[1] >= 16 {
        tp.threads[1] /= 2;
        tp.rows = 2;
    }
    [tp.threads[0], tp.threads[1], tp.planes, tp.rows]
}

/// Whether `k`'s step can be fused over time with `input` (an index in `k`'s arrays) as
/// the array it reads: `Ok((output, reach))`, the array it writes and the input's reach
/// by role ([`TemporalPlan::reach`]: x, y, z of a 3-D step; x, 0, y of a 2-D one);
/// `Err(why)` in words otherwise. The input's subscripts may be anything
/// the reach analysis bounds relative to the point (`crate::analyzer::reach`: clamped and
/// mirrored faces, `min`, `max`, `saturating_sub`), not a periodic wrap.
///
/// # Errors
/// The reason the step cannot be blocked.
pub fn check(k: &Kernel, input: usize) -> Result<(usize, [u32; 3]), String> {
    check_with(k, input, &[])
}

/// What [`check_pairs`] found: the pair the step reads at its neighbours, the pairs it
/// carries at its point, and the input's reach by role ([`TemporalPlan::reach`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub input: usize,
    pub output: usize,
    pub carried: Vec<(usize, usize)>,
    pub reach: [u32; 3],
}

/// Whether `k`'s step can be fused over time, `pairs` the `(read, written)` arrays (indices
/// in `k`'s arrays) of the time loop's swaps: one pair may be read at other points than
/// the step's own (the stencil's input), every other pair only at the point (state the
/// step carries, as an ODE's variables). With no pair read elsewhere the first is the
/// input.
///
/// # Errors
/// The reason the step cannot be blocked, in words.
pub fn check_pairs(k: &Kernel, pairs: &[(usize, usize)]) -> Result<Blocked, String> {
    let Some(&first) = pairs.first() else {
        return Err("the time loop swaps no array this kernel reads and writes".into());
    };
    let name = |i: usize| k.arrays.get(i).map_or("?", |a| a.name.as_str());
    // each array in one swap only: swaps that share an array rotate three buffers (or,
    // the same swap twice, none), which a fused launch's one queue per pair cannot follow
    let all: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    if let Some((_, &a)) = all.iter().enumerate().find(|(i, a)| all[..*i].contains(a)) {
        return Err(format!(
            "the loop swaps `{}` more than once (its swaps rotate three buffers, or undo each other): a blocked step's swaps exchange pairs of distinct arrays",
            name(a)
        ));
    }
    let refs = references(k);
    let elsewhere = |i: usize| {
        refs.iter()
            .any(|r| r.array == name(i) && r.offset != Some([0, 0, 0]))
    };
    let stencils: Vec<&(usize, usize)> = pairs.iter().filter(|p| elsewhere(p.0)).collect();
    let (input, output) = match stencils[..] {
        [] => first,
        [&p] => p,
        [a, b, ..] => {
            return Err(format!(
                "the step reads `{}` and `{}`, both arrays of the loop's swaps, at other points than its own: a blocked step keeps one array's neighbours on chip, and carries the others at its point only",
                name(a.0),
                name(b.0)
            ));
        }
    };
    let carried: Vec<(usize, usize)> = (pairs.iter().copied())
        .filter(|&p| p != (input, output))
        .collect();
    let (_, reach) = check_with(k, input, &carried)?;
    Ok(Blocked {
        input,
        output,
        carried,
        reach,
    })
}

/// [`check`], the step also carrying the pairs `carried` (`(read, written)`, indices in
/// `k`'s arrays) at its point: each read there only, its partner written there
/// ([`check_outputs`]), both of the input's shape and element type.
///
/// # Errors
/// The reason the step cannot be blocked, in words.
pub fn check_with(
    k: &Kernel,
    input: usize,
    carried: &[(usize, usize)],
) -> Result<(usize, [u32; 3]), String> {
    if k.is_single() || !(2..=3).contains(&k.nest.len()) {
        return Err(
            "a blocked step streams along its outermost loop: it needs two or three parallel loops ([y, x] or [z, y, x])".into(),
        );
    }
    if k.reduction.is_some() {
        return Err("a reduction combines the values of every step".into());
    }
    let a = k
        .arrays
        .get(input)
        .ok_or("the time loop's swap does not name an array of this kernel")?;
    if carried.len() > MAX_CARRIED {
        return Err(format!(
            "the step carries {} swapped pairs at its point; a blocked step carries at most {MAX_CARRIED}",
            carried.len()
        ));
    }
    let carried_out: Vec<usize> = carried.iter().map(|p| p.1).collect();
    let written: Vec<usize> = (0..k.arrays.len())
        .filter(|&i| k.arrays[i].written && !carried_out.contains(&i))
        .collect();
    let [output] = written[..] else {
        return Err(format!(
            "the step writes {} arrays besides those of the loop's other swaps; a blocked step writes one, the swap partner of the one it reads",
            written.len()
        ));
    };
    let b = &k.arrays[output];
    if output == input || a.written {
        return Err(format!("the step writes `{}`, the array it reads", a.name));
    }
    let n = k.nest.len();
    let same = |x: &ArrayParam| usize::from(x.ndim) == n && x.elem == a.elem;
    if !same(a) || !same(b) {
        return Err(format!(
            "`{}` and `{}` must be {n}-D arrays (one dimension per parallel loop) of one element type",
            a.name, b.name
        ));
    }
    if has_top_level_continue(&k.body) {
        return Err("the step skips points (`continue`)".into());
    }
    let refs = references(k);
    check_outputs(&refs, b)?;
    for &(ci, co) in carried {
        let (Some(x), Some(y)) = (k.arrays.get(ci), k.arrays.get(co)) else {
            return Err("the time loop's swap does not name an array of this kernel".into());
        };
        if ci == co
            || ci == input
            || co == output
            || x.written
            || !y.written
            || !same(x)
            || !same(y)
        {
            return Err(format!(
                "the step carries `{}` into `{}`: a carried pair is read and written by the step, one array each, {n}-D arrays of `{}`'s element type",
                x.name, y.name, a.name
            ));
        }
        if let Some(r) = refs
            .iter()
            .find(|r| r.array == x.name && (r.offset != Some([0, 0, 0]) || r.conditional))
        {
            return Err(format!(
                "`{}` is read {}; a carried array is read only at the point, outside any `if` or loop",
                x.name,
                if r.conditional {
                    "inside an `if` or loop"
                } else {
                    "at another point than its own"
                }
            ));
        }
        check_outputs(&refs, y)?;
    }
    let mut reach = [0u32; 3];
    for r in reaches(k).iter().filter(|r| r.array == a.name) {
        for (d, rc) in r.reach.iter().enumerate() {
            let axis = n - 1 - d;
            let Some((lo, hi)) = k.axis_var(axis).and_then(|v| rc.rel_to(v)) else {
                return Err(format!(
                    "`{}` is read at `{}`, which reaches {}: a blocked step reads its input within a fixed distance of the point",
                    a.name,
                    r.text[d],
                    rc.describe()
                ));
            };
            let role = role_of_axis(k, axis);
            reach[role] = reach[role].max(lo.unsigned_abs().max(hi.unsigned_abs()) as u32);
        }
    }
    Ok((output, reach))
}

/// An array a blocked step writes (its output, or a carried pair's) is referenced only at
/// the point, outside any `if` or loop, and written before it is read (`refs` in program
/// order): a read then sees the step's own value, which the fused kernel keeps in a
/// register, never the array's older one (two time levels, as a leapfrog has, are not
/// blocked).
fn check_outputs(refs: &[crate::analyzer::refs::Ref], b: &ArrayParam) -> Result<(), String> {
    let mut refs = refs.iter().filter(|r| r.array == b.name).peekable();
    if refs.peek().is_some_and(|r| !r.write) {
        return Err(format!(
            "the step reads `{}`, the array it writes, before writing it (two time levels, as a leapfrog has)",
            b.name
        ));
    }
    if refs.any(|r| r.offset != Some([0, 0, 0]) || r.conditional) {
        return Err(format!(
            "`{}` must be written and read at the point only, outside any `if` or loop",
            b.name
        ));
    }
    Ok(())
}

/// The kernel axis (0 = x, fastest) the walk streams along: the outermost parallel loop,
/// `z` of a 3-D step, `y` of a 2-D one.
pub fn walk_axis(k: &Kernel) -> usize {
    k.nest.len() - 1
}

/// The plan's role (0: the tile's columns, 1: its rows, 2: the walk) of kernel axis
/// `axis`: the same in 3-D; in 2-D `y` is the walk and the tile has one row.
fn role_of_axis(k: &Kernel, axis: usize) -> usize {
    if axis == walk_axis(k) { 2 } else { axis }
}

/// A stencil offset by kernel axis (`[x, y, z]`) as the plan's roles ([`role_of_axis`]).
fn roles(k: &Kernel, off: [i64; 3]) -> [i64; 3] {
    match k.nest.len() {
        2 => [off[0], 0, off[1]],
        _ => off,
    }
}

/// The kernel's loop variable that the walk binds to its plane.
fn walk_var(k: &Kernel) -> &str {
    k.axis_var(walk_axis(k)).expect("the walk's loop")
}

/// Whether a step's tile has rows of its own (3-D), not one row (2-D).
fn has_rows(k: &Kernel) -> bool {
    k.nest.len() == 3
}

/// [`TemporalPlan::shared_dz`] of `k` reading `input` with reach `reach`: the planes of
/// its references at another column, the whole reach along z where a subscript is known
/// only at run time; `[0, 0]` where every reference is at the thread's own column.
fn shared_planes(k: &Kernel, input: usize, reach: [u32; 3]) -> [i32; 2] {
    let name = &k.arrays[input].name;
    let rz = reach[2] as i32;
    let mut dz: Option<[i32; 2]> = None;
    let mut add = |lo: i32, hi: i32| {
        dz = Some(dz.map_or([lo, hi], |[a, b]| [a.min(lo), b.max(hi)]));
    };
    for r in references(k).iter().filter(|r| &r.array == name) {
        match r.offset.map(|o| roles(k, o)) {
            Some([0, 0, _]) => {}
            Some([_, _, d]) => add(d as i32, d as i32),
            None => add(-rz, rz),
        }
    }
    dz.unwrap_or([0, 0])
}

/// The plan of `k` when its options ask for temporal blocking (`time_block` above 1),
/// `None` otherwise. The block is `tile` x by y threads (the tile with its ghost cells),
/// one thread along z; `tile` z is the output planes per block. A 2-D step's block is
/// `tile` x threads of one row, `tile` y the rows of the grid per block.
///
/// # Errors
/// A step that cannot be blocked ([`check`]), a 3-D block with more than one thread along
/// z, a 2-D one with more than one along y, `chunksize` above 1 in x, a tile too small for its ghost cells (no inner points,
/// or fewer than a quarter of its columns: the radius-4 star at depth 3 in a 32×32 block
/// writes 8×8 points and ran 25 times slower than step by step on the H100), or rings
/// that do not fit the device's shared memory.
pub fn plan(k: &Kernel, cfg: &LaunchConfig, target: &Target) -> DiagResult<Option<TemporalPlan>> {
    let depth = u32::from(k.options.time_block);
    if depth <= 1 {
        return Ok(None);
    }
    let err = |m: String| Err(vec![Diag::new(k.clauses.span, m)]);
    let input = usize::from(k.options.time_input);
    let carried = k.options.carried();
    let (output, reach) = match check_with(k, input, &carried) {
        Ok(r) => r,
        Err(why) => return err(format!("cannot block this time loop: {why}")),
    };
    // a 2-D step's tile is one row of columns, its planes the rows of the grid
    let (threads, rows, planes) = if has_rows(k) {
        if cfg.block[2] != 1 || cfg.chunk[0] != 1 {
            return err("a blocked step has one thread per column of its rows: chunksize 1 in x, rows per thread in y, and in z equal to the tile".into());
        }
        ([cfg.block[0], cfg.block[1]], cfg.chunk[1], cfg.tile[2])
    } else {
        if cfg.block[1] != 1 || cfg.chunk[0] != 1 {
            return err("a blocked 2-D step has one thread per column: chunksize 1 in x, and in y equal to the tile".into());
        }
        ([cfg.block[0], 1], 1, cfg.tile[1])
    };
    let mut tp = TemporalPlan {
        depth,
        input,
        output,
        carried,
        reach,
        threads,
        rows,
        planes,
        shared_dz: shared_planes(k, input, reach),
        interior: Interior::Tested,
    };
    tp.interior = interior(k, &tp, target);
    if tp.inner().contains(&0) {
        return err(format!(
            "a tile of {}×{} columns leaves no inner points after {depth} steps of reach {}×{} on each side; use a wider tile or fewer steps",
            tp.tile()[0],
            tp.tile()[1],
            reach[0],
            reach[1]
        ));
    }
    let [ix, iy] = tp.inner();
    let [tx, ty] = tp.tile();
    if 4 * u64::from(ix) * u64::from(iy) < u64::from(tx) * u64::from(ty) {
        return err(format!(
            "a tile of {tx}×{ty} columns writes only {ix}×{iy} points after {depth} steps of reach {}×{} on each side, less than a quarter of its columns: the redundant ghost-cell work would cost more than the fused steps save; use fewer steps",
            reach[0], reach[1]
        ));
    }
    let bytes = tp.shared_bytes(k.arrays[input].elem.size_bytes());
    if bytes > u64::from(target.shared_bytes_optin) {
        return err(format!(
            "{depth} steps need {bytes} bytes of shared memory per block, more than the device's {}; use a smaller tile or fewer steps",
            target.shared_bytes_optin
        ));
    }
    Ok(Some(tp))
}

/// References of one step of the fused kernel: the input from the previous step's ring
/// (step 1 reads the ring the input plane was loaded into), the output into this step's
/// ring, or device memory at the last step; other arrays from device memory.
struct StepRefs<'a> {
    k: &'a Kernel,
    tp: &'a TemporalPlan,
    step: Cell<u32>,
    /// How the plane being printed is walked ([`Walk`]).
    walk: Cell<Walk>,
}

impl RefResolver for StepRefs<'_> {
    fn kernel(&self) -> &Kernel {
        self.k
    }
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String {
        let s = self.step.get();
        let ai = self.k.array_index(array).expect("kernel array");
        if ai == self.tp.input {
            match stencil_offset(self.k, array, index).map(|o| roles(self.k, o)) {
                Some([0, 0, dz]) => {
                    let j = dz + i64::from(self.tp.reach[2]);
                    return queue_ref(self.tp, s - 1, j, self.walk.get());
                }
                Some([dx, dy, dz]) => {
                    return format!(
                        "mint_ring{}[{}][mint_ty{}][mint_tx{}]",
                        s - 1,
                        slot_var(dz),
                        plus(dy),
                        plus(dx)
                    );
                }
                None => {}
            }
            // a subscript the reach analysis bounds within the reach: its distance from
            // the point, at run time
            let v = |axis: usize| {
                p.names
                    .get(self.k.axis_var(axis).expect("the nest's loops"))
            };
            let (r, off) = (self.tp.ring(), self.tp.slot_offset());
            let n = index.len();
            // a 2-D step's tile has one row
            let row = match n {
                3 => format!("mint_ty + (int)({} - {})", p.expr_at(&index[1], 12), v(1)),
                _ => "mint_ty".into(),
            };
            return format!(
                "mint_ring{}[(int)((unsigned)({} + {off}) % {r}u)][{row}][mint_tx + (int)({} - {})]",
                s - 1,
                p.expr_at(&index[0], 12),
                p.expr_at(&index[n - 1], 12),
                v(0)
            );
        }
        let top = i64::from(self.tp.queue()) - 1;
        if ai == self.tp.output && s < self.tp.depth {
            return queue_ref(self.tp, s, top, self.walk.get());
        }
        if ai == self.tp.output && self.walk.get() != Walk::General {
            return "mint_out".into();
        }
        // a carried pair: the previous step's value at the point (device memory at step
        // 1), this step's into its queue (device memory at the last step)
        for (c, &(ci, co)) in self.tp.carried.iter().enumerate() {
            if ai == ci && s > 1 {
                let j = i64::from(self.tp.reach[2]);
                return carried_ref(self.tp, c, s - 1, j, self.walk.get());
            }
            if ai == co && s < self.tp.depth {
                return carried_ref(self.tp, c, s, top, self.walk.get());
            }
            if ai == co && self.walk.get() != Walk::General {
                return format!("mint_out_c{c}");
            }
        }
        flat_ref(p, &p.names.get(array), array, index)
    }
}

fn plus(d: i64) -> String {
    match d {
        0 => String::new(),
        d if d > 0 => format!(" + {d}"),
        d => format!(" - {}", -d),
    }
}

/// Register `j` of step `s`'s queue in the thread's current row: the plane `z − rz + j`
/// of the next step's plane `z` ([`TemporalPlan::queue`]). The general walk keeps the
/// queue in order and moves it down one register at each plane ([`shift`]); the `r`-th
/// plane of a group of interior planes ([`Walk::Interior`]) names register `j` of that
/// order by the register `(j + r + 1) mod queue`, which needs no move: after the group's
/// last plane the registers are in order again.
fn queue_ref(tp: &TemporalPlan, s: u32, j: i64, w: Walk) -> String {
    register(tp, &format!("mint_q{s}"), j, w)
}

/// Register `j` of step `s`'s queue of carried pair `c` ([`TemporalPlan::carried`]), in
/// the order of [`queue_ref`].
fn carried_ref(tp: &TemporalPlan, c: usize, s: u32, j: i64, w: Walk) -> String {
    register(tp, &format!("mint_c{c}q{s}"), j, w)
}

/// Register `j` of the queue `queue` in the thread's current row ([`queue_ref`]).
fn register(tp: &TemporalPlan, queue: &str, j: i64, w: Walk) -> String {
    let q = i64::from(tp.queue());
    let j = match w {
        Walk::Interior(Some(r)) => (j + i64::from(r) + 1).rem_euclid(q),
        _ => j,
    };
    if tp.rows == 1 {
        format!("{queue}[{j}]")
    } else {
        format!("{queue}[mint_r * {q} + {j}]")
    }
}

/// Step `s`'s queue moved down one plane, its top register left as it was (the next
/// plane's value, where the step computes one); nothing in a group of interior planes,
/// which renames the registers instead ([`queue_ref`]).
fn shift(b: &mut Builder, tp: &TemporalPlan, s: u32, w: Walk) {
    if let Walk::Interior(Some(_)) = w {
        return;
    }
    let carried = (0..tp.carried.len()).filter(|_| s > 0);
    let queues: Vec<String> = std::iter::once(format!("mint_q{s}"))
        .chain(carried.map(|c| format!("mint_c{c}q{s}")))
        .collect();
    for q in &queues {
        for j in 0..i64::from(tp.queue()) - 1 {
            b.push(Stmt::assign(
                register(tp, q, j, w),
                register(tp, q, j + 1, w),
            ));
        }
    }
}

/// The register queues of steps `0..depth`, zeroed.
fn queues(b: &mut Builder, k: &Kernel, tp: &TemporalPlan) {
    let ty = k.arrays[tp.input].elem.cuda_name();
    b.comment("each step's own column, the planes the next step reads there");
    let carried = |s: u32| (0..tp.carried.len()).map(move |c| format!("mint_c{c}q{s}"));
    for s in 0..tp.depth {
        let names = std::iter::once(format!("mint_q{s}")).chain(carried(s).filter(|_| s > 0));
        for name in names {
            b.push(Stmt::vars(
                ty,
                vec![crate::kir::Var {
                    name,
                    len: Some(tp.rows * tp.queue()),
                    init: Some("{}".into()),
                }],
            ));
        }
    }
}

/// The local holding the ring slot of the plane `dz` from the step's plane.
fn slot_var(dz: i64) -> String {
    match dz {
        0 => "mint_slot_0".into(),
        d if d > 0 => format!("mint_slot_p{d}"),
        d => format!("mint_slot_m{}", -d),
    }
}

/// Whether the walk loads the input one plane ahead, into a register per tile row
/// ([`load_step`]): where the step reads no other array and each thread holds at most 6
/// step-rows (`depth × rows`). Other arrays' loads and the queues of more step-rows
/// already take most of a thread's registers, and the extra ones then cost occupancy or
/// spill (the guide's GPU performance page has the measurements).
fn look_ahead(k: &Kernel, tp: &TemporalPlan) -> bool {
    !reads_others(k, tp) && tp.depth * tp.rows <= 6
}

/// Whether the step reads an array other than its input.
fn reads_others(k: &Kernel, tp: &TemporalPlan) -> bool {
    (k.arrays.iter().enumerate()).any(|(i, a)| i != tp.input && a.read)
}

/// The first column (`axis` 0) or row (1) of the block's tile, ghost cells included: its
/// inner points' origin less `depth × reach`.
fn tile_origin(tp: &TemporalPlan, axis: usize) -> String {
    format!(
        "{} + (idx_t)blockIdx.{} * {} - {}",
        lo_name(axis),
        ["x", "y"][axis],
        tp.inner()[axis],
        tp.depth * tp.reach[axis]
    )
}

/// The temporally blocked kernel of `k` ([`TemporalPlan`]).
pub(crate) fn lower(
    k: &Kernel,
    _cfg: &LaunchConfig,
    tp: &TemporalPlan,
    target: &Target,
) -> KernelSource {
    let entry = cuda::entry_name(k);
    let extents: Vec<bool> = (0..k.arrays.len()).map(|i| i == tp.input).collect();
    let mut params = cuda::base_params(k, &extents);
    // the z loop's range before a decomposition clipped it to the device's planes: the
    // fixed boundary planes are those outside it
    params.push(Param {
        kind: ParamKind::WholeLo(0),
        name: whole_lo_name(walk_axis(k)),
    });
    params.push(Param {
        kind: ParamKind::WholeHi(0),
        name: whole_hi_name(walk_axis(k)),
    });
    let (params, packed) = cuda::pack_params(k, params, target.idx64, target.param_limit);
    let names = cuda::base_names(k, &params, &packed);
    let refs = StepRefs {
        k,
        tp,
        step: Cell::new(0),
        walk: Cell::new(Walk::General),
    };
    let mut p = CPrinter::new(names, &refs);
    let mut b = Builder::new();
    let bytes = rings(&mut b, k, tp);
    origins(&mut p, &mut b, k, tp);
    let (d, rz, lag) = (
        i64::from(tp.depth),
        i64::from(tp.reach[2]),
        i64::from(tp.lag()),
    );
    let l = Loop::new(
        LoopRole::ZWindow,
        format!("idx_t mint_p = mint_z0 - {}", d * rz),
        format!("mint_p < mint_z1 + {}", d * lag),
        "++mint_p",
    );
    invariants(&mut b, k, tp);
    queues(&mut b, k, tp);
    first_load(&mut p, &mut b, k, tp);
    if tp.interior != Interior::Tested {
        interior_range(&mut b, k, tp);
    }
    let q = tp.queue();
    let barrier = || Stmt::Barrier {
        note: Some("this plane's steps are in their rings".into()),
    };
    b.for_(l, |b| {
        let general = b.nest(|b| {
            walk_plane(&mut p, b, k, tp, &refs, (Walk::General, "mint_p".into()));
        });
        let group = match tp.interior {
            Interior::Tested => {
                b.extend(general);
                return b.push(barrier());
            }
            Interior::Planes => 1,
            Interior::Groups => q,
        };
        let interior = b.nest(|b| {
            if group > 1 {
                b.comment(format!("{q} interior planes, one per register of a queue"));
            }
            for r in 0..group {
                let w = format!("mint_p{}", plus(i64::from(r)));
                let walk = match group {
                    1 => Walk::Interior(None),
                    _ => Walk::Interior(Some(r)),
                };
                walk_plane(&mut p, b, k, tp, &refs, (walk, w));
                if r + 1 < group {
                    b.push(barrier());
                }
            }
            // the loop's increment adds the group's last plane
            if group > 1 {
                b.push(Stmt::Expr(format!("mint_p += {}", group - 1)));
            }
        });
        b.push(Stmt::if_else(
            format!("mint_p >= mint_fa && mint_p + {group} <= mint_fb"),
            interior,
            general,
        ));
        b.push(barrier());
    });
    let helpers = helpers_source(&p.helpers.borrow());
    let [ix, iy] = tp.inner();
    let notes = vec![format!(
        "temporal blocking: {} steps per launch; {}x{} threads per block, {} row(s) each, write {ix}x{iy} points of each of {} planes; reach {}x{}x{} (issue #45)",
        tp.depth,
        tp.threads[0],
        tp.threads[1],
        tp.rows,
        tp.planes,
        tp.reach[0],
        tp.reach[1],
        tp.reach[2]
    )];
    KernelSource {
        entry,
        notes,
        helpers,
        params,
        packed,
        body: b.finish(),
        dynamic_shared_bytes: bytes,
        static_shared_bytes: 0,
        same_index: Vec::new(),
    }
}

/// How a plane of the walk is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// Every test: whether the column is inside the input and the loop ranges, whether
    /// each step's plane is one it computes, the fixed boundary values outside the ranges,
    /// and the margin of columns whose step-`s` value depends only on the block's columns
    /// (`mint_col{s}`).
    General,
    /// A plane of the walk's middle (`mint_fa..mint_fb`) in a block whose whole tile lies
    /// inside the input and the loop ranges ([`interior_range`]): no test but the last
    /// step's margin. Steps `1..depth` compute every column of the tile, those outside
    /// their margin from ghost cells of the previous step that hold no value of it; no
    /// column inside a margin reads one (the margins shrink by the reach at each step),
    /// and the rings' pads ([`TemporalPlan::pad`]) keep the reads of the tile's edge
    /// columns in shared memory. Such a read may land in a slot that another step writes
    /// between the same two barriers: what it reads reaches only ghost columns, but
    /// `compute-sanitizer --tool racecheck` reports it. In a group of `queue` planes
    /// ([`Interior::Groups`]), the plane's place in it ([`queue_ref`]).
    Interior(Option<u32>),
}

/// How `k`'s walk computes its interior planes ([`Interior`]).
fn interior(k: &Kernel, tp: &TemporalPlan, target: &Target) -> Interior {
    let name = &k.arrays[tp.input].name;
    let unsafe_ghosts =
        !others_fixed(k, tp) || !k.arrays[tp.input].elem.is_float() || !fixed_loops(k);
    let textbook = (references(k).iter())
        .filter(|r| &r.array == name)
        .all(|r| r.offset.is_some());
    let threads = tp.threads[0] * tp.threads[1];
    // the group's extra registers cost no block per SM, or were measured to pay (2-D)
    let groups_pay = crate::target::min_blocks(target.max_registers, threads) == 1 || !has_rows(k);
    match (unsafe_ghosts, look_ahead(k, tp) && textbook && groups_pay) {
        (true, _) => Interior::Tested,
        (false, false) => Interior::Planes,
        (false, true) => Interior::Groups,
    }
}

/// Whether the step reads every array other than its input at a constant offset from the
/// point (the textbook `b[[z, y, x + 1]]`), outside any `if`, loop or conditional
/// expression. On the interior planes every column a step computes, ghost cells included,
/// is a point of the loop's ranges ([`interior_range`]), where the unblocked kernel reads
/// the same elements; a subscript set by a value, or a read that a value could let
/// happen, might at a ghost column computed from whatever its ring held read outside the
/// array. Poisson's right-hand side `b[[z, y, x]]` is such a read.
fn others_fixed(k: &Kernel, tp: &TemporalPlan) -> bool {
    let input = &k.arrays[tp.input].name;
    let output = &k.arrays[tp.output].name;
    let carried_out = |a: &String| (tp.carried.iter()).any(|p| &k.arrays[p.1].name == a);
    let other = |a: &String| a != input && a != output && !carried_out(a);
    let at_offsets = (references(k).iter())
        .filter(|r| other(&r.array))
        .all(|r| r.offset.is_some() && !r.conditional && !r.write);
    // and no value in those subscripts at all, not even one that cancels out
    // (`(x as i64 + m) - m`): the loop indices, literals and the kernel's scalars only
    let no_value = NoValue::new(k, true);
    let mut plain = true;
    k.body.walk_exprs(&mut |e| {
        e.walk(&mut |x| {
            if let ExprKind::Elem { array, index } = &x.kind
                && other(array)
            {
                plain &= index.iter().all(|i| no_value.holds(i));
            }
        })
    });
    at_offsets && plain
}

/// Whether every serial loop of `k`'s step runs a trip count no value sets: no `while`,
/// and `for` bounds and steps of literals and the kernel's scalar parameters only (the
/// radius-`r` star's `1..r + 1`). A loop whose trip count a value could set might, at a
/// ghost column of the interior walk, computed from whatever its ring held, run without
/// end.
fn fixed_loops(k: &Kernel) -> bool {
    let no_value = NoValue::new(k, false);
    let uniform = |e: &Expr| no_value.holds(e);
    let mut fixed = true;
    k.body.walk_stmts(&mut |st| match &st.kind {
        StmtKind::While { .. } => fixed = false,
        StmtKind::For { lo, hi, step, .. } => {
            fixed &= uniform(lo) && uniform(hi) && step.as_ref().is_none_or(uniform);
        }
        _ => {}
    });
    fixed
}

/// Whether an expression of `k`'s step holds no value the step computes or reads: its
/// names are the kernel's scalars (and, with `indices`, the parallel loop indices), never
/// a local; it reads no array, calls no device function, and casts to no integer narrower
/// than 32 bits (which may wrap). Such an expression has the same value at a ghost column
/// computed from garbage as at a point of the unblocked loop.
struct NoValue<'a> {
    k: &'a Kernel,
    indices: bool,
    bound: std::collections::HashSet<String>,
}

impl<'a> NoValue<'a> {
    fn new(k: &'a Kernel, indices: bool) -> Self {
        let mut bound = std::collections::HashSet::new();
        k.body.walk_stmts(&mut |st| match &st.kind {
            StmtKind::Let { name, .. } | StmtKind::For { var: name, .. } => {
                bound.insert(name.clone());
            }
            _ => {}
        });
        NoValue { k, indices, bound }
    }

    fn holds(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Var(n) => {
                ok &= !self.bound.contains(n)
                    && (self.k.scalars.iter().any(|p| &p.name == n)
                        || self.indices && self.k.nest.iter().any(|l| &l.var == n))
            }
            ExprKind::Elem { .. } | ExprKind::ArrayRef { .. } | ExprKind::Apply { .. } => {
                ok = false
            }
            ExprKind::Cast { to, .. } => ok &= !to.is_int() || !to.is_narrow(),
            _ => {}
        });
        ok
    }
}

/// `mint_fa..mint_fb`: the planes of the walk where no test of the general walk can
/// fail, empty unless the block's whole tile (ghost cells included) lies inside the input
/// and the loop ranges in x and y. At such a plane `p` the input is loaded at `p` and
/// `p + 1` (the look-ahead) inside the array and the block's reach; step `s` of
/// `1..depth` computes plane `p − s·lag` within its planes (`mint_zlo{s}..mint_zhi{s}`)
/// and the loop's whole z range; the last step's plane is one of the block's own.
fn interior_range(b: &mut Builder, k: &Kernel, tp: &TemporalPlan) {
    let a = &k.arrays[tp.input].name;
    let (d, lag, rz) = (tp.depth, tp.lag(), tp.reach[2]);
    let mut tests = Vec::new();
    for axis in 0..if has_rows(k) { 2 } else { 1 } {
        let first = format!("({})", tile_origin(tp, axis));
        let last = format!("{first} + {}", tp.tile()[axis] - 1);
        tests.push(format!(
            "{first} >= {} && {first} >= 0 && {last} < {} && {last} < {}",
            lo_name(axis),
            hi_name(axis),
            extent_name(a, axis as u8)
        ));
    }
    b.comment("the walk's middle planes, where a block inside the ranges needs no tests");
    b.push(Stmt::konst("bool", "mint_interior", tests.join(" && ")));
    let ahead = i64::from(look_ahead(k, tp));
    let mut lo = vec!["(idx_t)0".to_string(), format!("mint_z0 + {}", d * lag)];
    let mut hi = vec![
        format!("{} - {ahead}", extent_name(a, walk_axis(k) as u8)),
        format!("mint_z1 + {} - {ahead}", d * rz),
    ];
    for s in 1..d {
        lo.push(format!(
            "max(mint_zlo{s}, {}) + {}",
            whole_lo_name(walk_axis(k)),
            s * lag
        ));
        hi.push(format!(
            "min(mint_zhi{s}, {}) + {}",
            whole_hi_name(walk_axis(k)),
            s * lag
        ));
    }
    let fold = |f: &str, v: Vec<String>| {
        v.into_iter()
            .reduce(|acc, e| format!("{f}({acc}, {e})"))
            .unwrap()
    };
    b.push(Stmt::konst("idx_t", "mint_fa", fold("max", lo)));
    b.push(Stmt::konst(
        "idx_t",
        "mint_fb",
        format!("mint_interior ? {} : mint_fa", fold("min", hi)),
    ));
}

/// One plane of the walk, `mint_w` (the walk's plane `plane`), in a scope: the input
/// loaded, steps `1..depth` one lag apart, the last into device memory. The caller ends
/// the plane with a barrier: one after the walk's `if`/`else`, shared by both walks as the
/// loop's increment is, and one between the planes of a group (the forms timed:
/// `docs/src/guide/time-loops.md`).
fn walk_plane(
    p: &mut CPrinter,
    b: &mut Builder,
    k: &Kernel,
    tp: &TemporalPlan,
    refs: &StepRefs,
    (w, plane): (Walk, String),
) {
    refs.walk.set(w);
    b.scope(|b| {
        b.push(Stmt::konst("idx_t", "mint_w", plane));
        refs.step.set(0);
        load_step(p, b, k, tp, w);
        for s in 1..tp.depth {
            refs.step.set(s);
            inner_step(p, b, k, tp, s, w);
        }
        refs.step.set(tp.depth);
        last_step(p, b, k, tp, w);
    });
    refs.walk.set(Walk::General);
}

/// The shared rings of steps `0..depth`, between two pads ([`TemporalPlan::pad`]);
/// returns their bytes.
fn rings(b: &mut Builder, k: &Kernel, tp: &TemporalPlan) -> u32 {
    let elem = k.arrays[tp.input].elem;
    super::skeleton::dynamic_shared(b);
    let all = tp.shared_bytes(elem.size_bytes());
    let pad = tp.pad() * u64::from(elem.size_bytes());
    let ring = (all - 2 * pad) / u64::from(tp.depth);
    for s in 0..tp.depth {
        b.push(Stmt::SharedView {
            ty: elem.cuda_name().into(),
            name: format!("mint_ring{s}"),
            rows: tp.tile()[1],
            cols: tp.tile()[0],
            base: "mint_smem".into(),
            offset: (pad + u64::from(s) * ring) as u32,
            slots: tp.ring(),
        });
    }
    all as u32
}

/// The thread's column (`x`, `y` as the kernel names them), the block's z planes, and
/// whether the column is inside the input array and inside the loop ranges. With several
/// rows per thread, the row-dependent ones are [`row_consts`], in each step's row loop.
fn origins(p: &mut CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan) {
    let x = p.names.get(k.axis_var(0).unwrap());
    b.comment("this thread's column: the block's tile widened by depth x reach on each side");
    b.push(Stmt::konst("int", "mint_tx", "(int)threadIdx.x"));
    let one = tp.rows == 1;
    b.push(Stmt::konst(
        "int",
        if one { "mint_ty" } else { "mint_ty0" },
        "(int)threadIdx.y",
    ));
    // a 2-D step's tile is one row: its `y` is the walk's plane
    for axis in 0..if has_rows(k) { 2 } else { 1 } {
        let t = ["mint_tx", "mint_ty"][axis];
        let base = tile_origin(tp, axis);
        match (axis, one) {
            (0, _) => b.push(Stmt::konst("idx_t", x.clone(), format!("{base} + {t}"))),
            (_, true) => b.push(Stmt::konst(
                "idx_t",
                p.names.get(k.axis_var(1).unwrap()),
                format!("{base} + {t}"),
            )),
            (_, false) => b.push(Stmt::konst("idx_t", "mint_yb", base)),
        }
    }
    let w = walk_axis(k);
    b.push(Stmt::konst(
        "idx_t",
        "mint_z0",
        format!(
            "{} + (idx_t)blockIdx.{} * {}",
            lo_name(w),
            ["x", "y", "z"][w],
            tp.planes
        ),
    ));
    b.push(Stmt::konst(
        "idx_t",
        "mint_z1",
        format!("min(mint_z0 + {}, {})", tp.planes, hi_name(w)),
    ));
    if one {
        for st in column_tests(p, k, tp) {
            b.push(st);
        }
    }
}

/// `mint_in` and `mint_in_ranges`: whether the thread's column (of its current row) is
/// inside the input array, and inside the loop ranges (along x alone in 2-D).
fn column_tests(p: &CPrinter, k: &Kernel, tp: &TemporalPlan) -> [Stmt; 2] {
    let a = &k.arrays[tp.input].name;
    let axes = if has_rows(k) { 2 } else { 1 };
    let (mut inside, mut ranges) = (Vec::new(), Vec::new());
    for axis in 0..axes {
        let v = p.names.get(k.axis_var(axis).unwrap());
        let n = extent_name(a, axis as u8);
        inside.push(format!("{v} >= 0 && {v} < {n}"));
        ranges.push(format!(
            "{v} >= {} && {v} < {}",
            lo_name(axis),
            hi_name(axis)
        ));
    }
    [
        Stmt::konst("bool", "mint_in", inside.join(" && ")),
        Stmt::konst("bool", "mint_in_ranges", ranges.join(" && ")),
    ]
}

/// What step `s` binds first in each of the thread's rows ([`per_row`]): the row's
/// `mint_ty` and `y`, its [`column_tests`] and `mint_col{s}` ([`margin`]; none for the
/// load, `s = 0`). Empty with one row per thread, where [`origins`] and [`invariants`]
/// bind them once.
fn row_consts(p: &CPrinter, k: &Kernel, tp: &TemporalPlan, s: u32) -> Vec<Stmt> {
    if tp.rows == 1 {
        return Vec::new();
    }
    let y = p.names.get(k.axis_var(1).unwrap());
    let mut out = vec![
        Stmt::konst(
            "int",
            "mint_ty",
            format!("mint_ty0 + mint_r * {}", tp.threads[1]),
        ),
        Stmt::konst("idx_t", y, "mint_yb + mint_ty"),
    ];
    out.extend(column_tests(p, k, tp));
    if s > 0 {
        out.push(Stmt::konst("bool", format!("mint_col{s}"), margin(tp, s)));
    }
    out
}

/// Step code `f` for each of the thread's rows: as it is with one row per thread; with
/// several, in an unrolled loop over them (`mint_r`) that binds `row` ([`row_consts`])
/// first.
fn per_row(b: &mut Builder, tp: &TemporalPlan, row: Vec<Stmt>, f: impl FnOnce(&mut Builder)) {
    if tp.rows == 1 {
        return f(b);
    }
    let l = Loop::new(
        LoopRole::Rows,
        "int mint_r = 0",
        format!("mint_r < {}", tp.rows),
        "++mint_r",
    )
    .unroll(Some(Unroll::Full));
    b.for_(l, |b| {
        for st in row {
            b.push(st);
        }
        f(b)
    });
}

/// What does not change along the walk, computed once: for each step `s`, the planes it
/// computes (`mint_zlo{s}..mint_zhi{s}`: within the input array and the block's planes
/// widened by the later steps' reach) and whether the thread's column is one whose step-`s`
/// value depends only on columns of the block (`mint_col{s}`).
fn invariants(b: &mut Builder, k: &Kernel, tp: &TemporalPlan) {
    let a = &k.arrays[tp.input].name;
    let rz = tp.reach[2];
    for s in 1..=tp.depth {
        let m = (tp.depth - s) * rz;
        if s < tp.depth {
            b.push(Stmt::konst(
                "idx_t",
                format!("mint_zlo{s}"),
                format!("max(mint_z0 - {m}, (idx_t)0)"),
            ));
            b.push(Stmt::konst(
                "idx_t",
                format!("mint_zhi{s}"),
                format!("min(mint_z1 + {m}, {})", extent_name(a, walk_axis(k) as u8)),
            ));
        }
        if tp.rows == 1 {
            b.push(Stmt::konst("bool", format!("mint_col{s}"), margin(tp, s)));
        }
    }
}

/// `const idx_t z = mint_p - lag;` and the ring slots of the planes around it that the
/// step reads from shared memory ([`TemporalPlan::shared_dz`]).
fn plane(p: &CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan, lag: i64, reads: bool) {
    let z = p.names.get(walk_var(k));
    let (r, off) = (i64::from(tp.ring()), tp.slot_offset());
    b.push(Stmt::konst(
        "idx_t",
        z.clone(),
        if lag == 0 {
            "mint_w".to_string()
        } else {
            format!("mint_w - {lag}")
        },
    ));
    let [lo, hi] = tp.shared_dz.map(i64::from);
    let dzs: Vec<i64> = if reads { (lo..=hi).collect() } else { vec![0] };
    for dz in dzs {
        b.push(Stmt::konst(
            "int",
            slot_var(dz),
            format!("(int)((unsigned)({z}{} + {off}) % {r}u)", plus(dz)),
        ));
    }
}

/// Step 0: the input plane into ring 0. Looking ahead ([`look_ahead`]),
/// from the register it was loaded into at the previous plane of the walk, and the next
/// plane's load issued into that register: the load's latency then overlaps the steps that
/// follow it rather than stalling them. Otherwise loaded here.
fn load_step(p: &mut CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan, w: Walk) {
    let ahead = look_ahead(k, tp);
    let tested = w == Walk::General;
    b.comment(if ahead {
        "step 0: the input plane, loaded one plane ahead"
    } else {
        "step 0: the input plane"
    });
    b.scope(|b| {
        plane(p, b, k, tp, 0, false);
        let z = p.names.get(walk_var(k));
        let top = queue_ref(tp, 0, i64::from(tp.queue()) - 1, w);
        let a = &k.arrays[tp.input].name;
        let (value, next) = if ahead {
            (
                next_ref(tp),
                load_next(p, k, tp, "mint_w + 1".into(), tested),
            )
        } else {
            (flat_ref(p, &p.names.get(a), a, &axis_exprs(k)), Vec::new())
        };
        let this = tested.then(|| load_cond(k, tp, &z));
        per_row(b, tp, row_consts(p, k, tp, 0), |b| {
            shift(b, tp, 0, w);
            b.if_some(this.as_deref(), |b| {
                b.push(Stmt::assign(top.clone(), value));
                b.push(Stmt::assign(
                    "mint_ring0[mint_slot_0][mint_ty][mint_tx]",
                    top,
                ))
            });
            if !next.is_empty() {
                b.scope(|b| {
                    for st in next {
                        b.push(st);
                    }
                });
            }
        });
    });
}

/// The registers holding each row's input at the walk's next plane (`mint_next`), and
/// their first load, of the walk's first plane.
fn first_load(p: &mut CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan) {
    if !look_ahead(k, tp) {
        return;
    }
    let ty = k.arrays[tp.input].elem.cuda_name();
    b.comment("the input at the walk's next plane, one register per row");
    b.push(Stmt::vars(
        ty,
        vec![crate::kir::Var {
            name: "mint_next".into(),
            len: Some(tp.rows),
            init: Some("{}".into()),
        }],
    ));
    let first = load_next(
        p,
        k,
        tp,
        format!("mint_z0 - {}", tp.depth * tp.reach[2]),
        true,
    );
    b.scope(|b| {
        per_row(b, tp, row_consts(p, k, tp, 0), |b| {
            for st in first {
                b.push(st);
            }
        })
    });
}

/// `mint_next[row]`.
fn next_ref(tp: &TemporalPlan) -> String {
    if tp.rows == 1 {
        "mint_next[0]".into()
    } else {
        "mint_next[mint_r]".into()
    }
}

/// The load of the input at plane `plane` of the thread's column (of its current row) into
/// `mint_next`, where the walk loads that plane: the kernel's `z` bound to `plane` (in a
/// scope of its own), then the load, guarded where `tested` ([`Walk`]).
fn load_next(
    p: &CPrinter,
    k: &Kernel,
    tp: &TemporalPlan,
    plane: String,
    tested: bool,
) -> Vec<Stmt> {
    let a = &k.arrays[tp.input].name;
    let z = p.names.get(walk_var(k));
    let src = flat_ref(p, &p.names.get(a), a, &axis_exprs(k));
    let load = Stmt::assign(next_ref(tp), src);
    let load = if tested {
        Stmt::if_(load_cond(k, tp, &z), vec![load])
    } else {
        load
    };
    vec![Stmt::konst("idx_t", z.clone(), plane), load]
}

/// Whether the walk loads the input at plane `z` of the thread's column: inside the array,
/// and not past the block's planes and the reach of its steps.
fn load_cond(k: &Kernel, tp: &TemporalPlan, z: &str) -> String {
    let a = &k.arrays[tp.input].name;
    format!(
        "mint_in && {z} >= 0 && {z} < {} && {z} < mint_z1 + {}",
        extent_name(a, walk_axis(k) as u8),
        tp.depth * tp.reach[2]
    )
}

/// `[z, y, x]` (`[y, x]` in 2-D): the point's subscripts as the kernel names its indices.
fn axis_exprs(k: &Kernel) -> Vec<Expr> {
    (k.nest.iter())
        .map(|l| Expr::new(ExprKind::Var(l.var.clone()), 0))
        .collect()
}

/// Step `s` of `1..depth`: where it writes, the body on the previous step's ring; outside
/// the loop ranges, the array that step writes in the unblocked loop (the output at odd
/// steps, the input at even ones).
fn inner_step(p: &mut CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan, s: u32, w: Walk) {
    let keep = &k.arrays[if s % 2 == 1 { tp.output } else { tp.input }].name;
    b.comment(format!(
        "step {s}, {} plane(s) behind the input",
        s * tp.lag()
    ));
    b.scope(|b| {
        plane(p, b, k, tp, i64::from(s * tp.lag()), true);
        let top = queue_ref(tp, s, i64::from(tp.queue()) - 1, w);
        let store = Stmt::assign(
            format!("mint_ring{s}[mint_slot_0][mint_ty][mint_tx]"),
            top.clone(),
        );
        // the general walk's tests, and the value it keeps outside the loop ranges
        let general = (w == Walk::General).then(|| {
            let z = p.names.get(walk_var(k));
            let kept = flat_ref(p, &p.names.get(keep), keep, &axis_exprs(k));
            (
                format!("mint_in && {z} >= mint_zlo{s} && {z} < mint_zhi{s}"),
                format!(
                    "mint_in_ranges && {z} >= {} && {z} < {}",
                    whole_lo_name(walk_axis(k)),
                    whole_hi_name(walk_axis(k))
                ),
                vec![Stmt::assign(top, kept), store.clone()],
            )
        });
        let valid = general.as_ref().map(|_| format!("mint_col{s}"));
        per_row(b, tp, row_consts(p, k, tp, s), |b| {
            shift(b, tp, s, w);
            let then = b.nest(|b| {
                b.if_some(valid.as_deref(), |b| {
                    b.body(p, |p| p.block_body(&k.body));
                    b.push(store)
                })
            });
            match general {
                Some((needed, in_ranges, els)) => {
                    b.if_(needed, |b| b.push(Stmt::if_else(in_ranges, then, els)))
                }
                None => b.extend(then),
            }
        });
    });
}

/// The rows of the tile inside step `s`'s margin ([`margin`]). The interior walk's last
/// step computes only those (where the reach along y is not 0): where the tile is 32 or
/// 64 columns wide a warp is a row of the tile or half of one, so the test skips whole
/// warps, at depth 3 and a reach of 1 6 of a tile's 32 rows. The earlier steps compute
/// every row (why: `docs/src/guide/time-loops.md`).
fn margin_rows(tp: &TemporalPlan, s: u32) -> String {
    let ry = tp.reach[1];
    format!(
        "mint_ty >= {} && mint_ty < {}",
        s * ry,
        tp.tile()[1] - s * ry
    )
}

/// The columns whose step-`s` value depends only on columns of the block.
fn margin(tp: &TemporalPlan, s: u32) -> String {
    let rx = tp.reach[0];
    format!(
        "mint_tx >= {} && mint_tx < {} && {}",
        s * rx,
        tp.tile()[0] - s * rx,
        margin_rows(tp, s)
    )
}

/// The last step: the body on the previous ring, into device memory, on the block's
/// inner columns and its own planes.
fn last_step(p: &mut CPrinter, b: &mut Builder, k: &Kernel, tp: &TemporalPlan, w: Walk) {
    let d = tp.depth;
    b.comment(format!("step {d}: into device memory"));
    b.scope(|b| {
        plane(p, b, k, tp, i64::from(d * tp.lag()), true);
        let z = p.names.get(walk_var(k));
        let row = row_consts(p, k, tp, d);
        let out = &k.arrays[tp.output];
        let rows = (tp.reach[1] > 0).then(|| margin_rows(tp, d));
        let outs: Vec<(&ArrayParam, String)> = std::iter::once((out, "mint_out".to_string()))
            .chain(
                (tp.carried.iter().enumerate())
                    .map(|(c, p)| (&k.arrays[p.1], format!("mint_out_c{c}"))),
            )
            .collect();
        let stores = (outs.iter())
            .map(|(a, v)| {
                Stmt::assign(
                    flat_ref(p, &p.names.get(&a.name), &a.name, &axis_exprs(k)),
                    v.clone(),
                )
            })
            .collect();
        let store = Stmt::if_(format!("mint_col{d}"), stores);
        per_row(b, tp, row, |b| match w {
            Walk::General => b.if_(
                format!("{z} >= mint_z0 && mint_in_ranges && mint_col{d}"),
                |b| b.body(p, |p| p.block_body(&k.body)),
            ),
            // on the rows of the margin ([`margin_rows`]), the value at every column,
            // into `mint_out` ([`StepRefs`]), stored on the margin's: a predicated store
            // rather than a branch around the step
            Walk::Interior(_) => b.if_some(rows.as_deref(), |b| {
                b.push(Stmt::vars(
                    out.elem.cuda_name(),
                    outs.iter().map(|(_, v)| Var::plain(v)).collect(),
                ));
                b.body(p, |p| p.block_body(&k.body));
                b.push(store);
            }),
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::kernel;

    fn heat(body: &str) -> Kernel {
        kernel(
            "heat_0",
            &format!(
                "arrays: u f32 3, v f32 3, c f32 3
                 nest: z 1..n-1, y 1..n-1, x 1..n-1
                 {body}"
            ),
        )
    }

    fn blocked(k: &Kernel, depth: u8, tile: [u32; 3]) -> Kernel {
        let mut k = k.clone();
        k.options.time_block = depth;
        k.options.time_input = 0;
        k.clauses.tile = Some(tile.map(ClauseValue::Const));
        k.clauses.chunk = Some([1, 1, tile[2]].map(ClauseValue::Const));
        k
    }

    const STAR: &str = "v[z][y][x] = u[z][y][x] + u[z][y][x-1] + u[z][y][x+1] + u[z-1][y][x] + u[z+1][y][x] + u[z][y-2][x];";

    #[test]
    fn the_step_is_checked() {
        assert_eq!(check(&heat(STAR), 0), Ok((1, [1, 2, 1])));
        for (body, why) in [
            ("v[z][y][x] = u[z][y][x] + v[z][y][x+1];", "reads `v`"),
            ("if x > 3 { v[z][y][x] = u[z][y][x]; }", "outside any `if`"),
            (
                "v[z][y][x] = u[z][y][x]; c[z][y][x] = 1.0;",
                "writes 2 arrays",
            ),
            ("v[z][y][x+1] = u[z][y][x];", "at the point only"),
            (
                "v[z][y][x] = u[z][0][x];",
                "within a fixed distance of the point",
            ),
        ] {
            let e = check(&heat(body), 0).unwrap_err();
            assert!(e.contains(why), "{body}: {e}");
        }
        assert!(
            check(&heat(STAR), 1)
                .unwrap_err()
                .contains("writes `v`, the array it reads")
        );
        assert!(
            check(&heat(STAR), 2)
                .unwrap_err()
                .contains("does not name an array")
        );
    }

    /// The cardiac model's step (Aliev-Panfilov, `examples/cardiac`): E read at its
    /// mirrored neighbours, written, then read back at the point; R carried at the point.
    const CARDIAC: &str = "arrays: e f32 2, ep f32 2, r f32 2, rn f32 2
         nest: j 1..n+1, i 1..n+1
         let jm = if j == 1 { j + 1 } else { j - 1 };
         let jp = if j == n { j - 1 } else { j + 1 };
         e[j][i] = ep[j][i] + 0.1 * (ep[j][i+1] + ep[j][i-1] - 4.0 * ep[j][i] + ep[jp][i] + ep[jm][i]);
         e[j][i] = e[j][i] - 0.01 * (8.0 * e[j][i] * (e[j][i] - 0.1) + e[j][i] * r[j][i]);
         rn[j][i] = r[j][i] + 0.01 * (-r[j][i] - 8.0 * e[j][i]);";

    #[test]
    fn a_step_carries_pairs_at_its_point() {
        let k = kernel("cardiac_0", CARDIAC);
        // the pair read at neighbours is the input, whatever the swaps' order
        let b = check_pairs(&k, &[(2, 3), (1, 0)]).unwrap();
        assert_eq!((b.input, b.output, b.carried), (1, 0, vec![(2, 3)]));
        assert_eq!(b.reach, [1, 0, 1]);
        // without the second swap, `rn` is a second array written
        let e = check_pairs(&k, &[(1, 0)]).unwrap_err();
        assert!(e.contains("writes 2 arrays"), "{e}");
        let cases = [
            // R at a neighbour: two arrays of the swaps read there
            ("rn[j][i] = r[j][i+1];", "both arrays of the loop's swaps"),
            ("if i > 3 { rn[j][i] = r[j][i]; }", "outside any `if`"),
            ("rn[j][i] = rn[j][i] + r[j][i];", "before writing it"),
        ];
        for (line, why) in cases {
            let body = CARDIAC.replace(
                "rn[j][i] = r[j][i] + 0.01 * (-r[j][i] - 8.0 * e[j][i]);",
                line,
            );
            let e = check_pairs(&kernel("cardiac_0", &body), &[(1, 0), (2, 3)]).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
        // swaps that share an array, or repeat: refused
        for pairs in [
            &[(1, 0), (2, 3), (2, 3)][..],
            &[(1, 0), (2, 3), (3, 2)][..],
            &[(1, 0), (2, 3), (1, 3)][..],
        ] {
            let e = check_pairs(&k, pairs).unwrap_err();
            assert!(e.contains("more than once"), "{pairs:?}: {e}");
        }
        // E read before it is written: the older time level
        let body = CARDIAC.replace("e[j][i] = ep[j][i] +", "e[j][i] = e[j][i] +");
        let e = check_pairs(&kernel("cardiac_0", &body), &[(1, 0), (2, 3)]).unwrap_err();
        assert!(e.contains("reads `e`, the array it writes, before"), "{e}");
        let mut b = k.clone();
        b.options.time_block = 3;
        b.options.time_input = 1;
        b.options.time_carried[0] = [2, 3];
        b.clauses.tile = Some([256, 64, 1].map(ClauseValue::Const));
        b.clauses.chunk = Some([1, 64, 1].map(ClauseValue::Const));
        let s = crate::translate(&b, &Target::default()).unwrap().source;
        // R of steps 1 and 2 in queues beside E's; step 1 reads R from device memory,
        // step 2 from step 1's queue at the point, the last step writes `rn`
        assert!(s.contains("float mint_c0q1[4] = {};"), "{s}");
        assert!(s.contains("float mint_c0q2[4] = {};"), "{s}");
        assert!(!s.contains("mint_c0q0") && !s.contains("mint_c0q3"), "{s}");
        assert!(s.contains("mint_c0q1[1]"), "{s}");
        assert!(s.contains("mint_c0q1[3] = "), "{s}");
        // the last step of the general walk, and the interior walk's store
        assert_eq!(s.matches("rn[").count(), 2, "{s}");
    }

    #[test]
    fn the_kernel_fuses_steps_through_rings() {
        let k = blocked(&heat(STAR), 3, [32, 32, 64]);
        let t = crate::translate(&k, &Target::default()).unwrap();
        // 32 - 2·3·1 by 32 - 2·3·2 inner points, 64 planes per block
        assert_eq!(t.config.tile, [26, 20, 64]);
        assert_eq!(t.config.block, [32, 32, 1]);
        // a star: its other planes are read at the thread's own column, from registers,
        // so each ring holds the plane the next step reads and the one being written
        // (and a pad of ry + 1 = 3 tile rows before the first ring and after the last)
        assert_eq!(t.dynamic_shared_bytes, (3 * 2 * 32 * 32 + 2 * 3 * 32) * 4);
        let s = &t.source;
        // one barrier per plane, after all the steps: between the interior group's 3
        // planes, and one after the walk's two ways; each step one plane behind
        assert_eq!(s.matches("__syncthreads()").count(), 3, "{s}");
        assert!(s.contains("const idx_t z = mint_w - 3;"), "{s}");
        // outside the ranges, step 1 keeps the output's values and step 2 the input's
        assert!(s.contains("mint_q1[2] = v["), "{s}");
        assert!(s.contains("mint_q2[2] = u["), "{s}");
        assert!(
            s.contains("mint_ring1[mint_slot_0][mint_ty][mint_tx] = mint_q1[2];"),
            "{s}"
        );
        // u[z-1], u[z], u[z+1] of step 1 from step 0's queue, u[z][y-2] from its ring
        assert!(
            s.contains("mint_q1[2] = mint_q0[1] + mint_ring0[mint_slot_0][mint_ty][mint_tx - 1]"),
            "{s}"
        );
        assert!(s.contains("mint_q0[0] + mint_q0[2]"), "{s}");
        assert!(
            s.contains("mint_ring1[mint_slot_0][mint_ty - 2][mint_tx]"),
            "{s}"
        );
    }

    #[test]
    fn blocks_inside_the_grid_walk_their_middle_planes_without_tests() {
        let k = blocked(&heat(STAR), 3, [32, 32, 64]);
        let s = crate::translate(&k, &Target::default()).unwrap().source;
        // a tile inside the ranges and the input along x and y: 32 - 2·3·1 inner columns,
        // 32 - 2·3·2 inner rows, the tile widened by 3 and 6
        assert!(
            s.contains(
                "const bool mint_interior = (mint_lo_x + (idx_t)blockIdx.x * 26 - 3) >= mint_lo_x"
            ),
            "{s}"
        );
        assert!(
            s.contains("(mint_lo_y + (idx_t)blockIdx.y * 20 - 6) + 31 < mint_ny_u"),
            "{s}"
        );
        // the middle planes: the last step one of the block's own, every step inside the
        // whole z range and its planes, the look-ahead load inside the input
        assert!(s.contains("mint_z0 + 3"), "{s}");
        assert!(s.contains("max(mint_zlo2, mint_whole_lo_z) + 2"), "{s}");
        assert!(s.contains("min(mint_zhi1, mint_whole_hi_z) + 1"), "{s}");
        assert!(s.contains("mint_nz_u - 1"), "{s}");
        // a group of queue = 3 interior planes, then the general walk's one plane
        let (fast, general) = s
            .split_once("if (mint_p >= mint_fa && mint_p + 3 <= mint_fb) {")
            .and_then(|(_, rest)| rest.split_once("} else {"))
            .expect("the walk's two ways");
        // the interior planes test nothing but the last step's margin
        for test in [
            "mint_in &&",
            "mint_in_ranges &&",
            "if (mint_col1)",
            "mint_whole",
        ] {
            assert!(!fast.contains(test), "{test}: {fast}");
            assert!(general.contains(test), "{test}: {general}");
        }
        assert_eq!(fast.matches("if (mint_col3) {").count(), 3, "{fast}");
        // the last step computes only the rows of its margin (reach 2 along y: 6..26)
        let rows = "if (mint_ty >= 6 && mint_ty < 26) {";
        assert_eq!(fast.matches(rows).count(), 3, "{fast}");
        assert!(!general.contains(rows), "{general}");
        // the loop's increment and one barrier serve both ways; a group adds its other planes
        assert!(s.contains("mint_p < mint_z1 + 3; ++mint_p) {"), "{s}");
        assert!(
            fast.contains("mint_p += 2;") && !general.contains("++mint_p"),
            "{general}"
        );
        // the general walk moves each queue down a register; the group's r-th plane names
        // register j of it (z - 1 + j) by register (j + r + 1) mod 3, and moves nothing
        assert!(general.contains("mint_q1[0] = mint_q1[1];"), "{general}");
        assert!(!fast.contains("mint_q1[0] = mint_q1[1];"), "{fast}");
        let planes: Vec<&str> = fast.split("const idx_t mint_w = ").skip(1).collect();
        assert_eq!(planes.len(), 3);
        for (r, plane) in planes.iter().enumerate() {
            let reg = |j: usize| format!("mint_q0[{}]", (j + r + 1) % 3);
            // the input's top register, then step 1 from u[z - 1], u[z], u[z + 1]
            assert!(
                plane.contains(&format!("{} = mint_next[0];", reg(2))),
                "{plane}"
            );
            let step1 = format!("= {} + mint_ring0", reg(1));
            assert!(plane.contains(&step1), "{r}: {plane}");
            assert!(
                plane.contains(&format!("{} + {}", reg(0), reg(2))),
                "{plane}"
            );
        }
        // on a tile's edge columns the last step's value is computed and not stored
        assert!(fast.contains("mint_out = "), "{fast}");
        // a group is held to 64 registers per thread: 1 block of 1024 threads per SM
        assert!(s.contains("__launch_bounds__(1024, 1)"), "{s}");
        // several rows per thread and depth 5: more registers than a group may take; 512
        // threads, 3 blocks per SM where a group's 64 registers would leave 2; a subscript
        // known only at run time: one interior plane at a time
        let mut k5 = blocked(&heat(STAR), 5, [32, 64, 64]);
        k5.clauses.chunk = Some([1, 2, 64].map(ClauseValue::Const));
        let mut k512 = blocked(&heat(STAR), 3, [32, 32, 64]);
        k512.clauses.chunk = Some([1, 2, 64].map(ClauseValue::Const));
        let clamped =
            heat("let b = if z == 1 { z } else { z - 1 }; v[z][y][x] = u[b][y][x] + u[z][y][x+1];");
        for k in [k5, k512, blocked(&clamped, 3, [32, 32, 64])] {
            let s = crate::translate(&k, &Target::default()).unwrap().source;
            assert!(
                s.contains("if (mint_p >= mint_fa && mint_p + 1 <= mint_fb) {"),
                "{s}"
            );
            assert!(
                !s.contains("__launch_bounds__(1024, ") && !s.contains("__launch_bounds__(512, "),
                "{s}"
            );
        }
        // a step whose loop a value could lengthen, or of integers, walks every plane with
        // its tests; a loop of literal bounds does not keep it from the interior walk
        let counted = "let m = u[z][y][x] as usize; let mut t = 0.0; for i in 0..m { t = t + u[z][y][x+1]; } v[z][y][x] = t;";
        // `while t > 1.0 { t = t * 0.5; }` (the test kernels' syntax has no `while`)
        let mut whiles = heat(
            "let mut t = u[z][y][x]; if t > 1.0 { t = t * 0.5; } v[z][y][x] = t + u[z][y][x+1];",
        );
        let StmtKind::If { cond, then, .. } = whiles.body.stmts[1].kind.clone() else {
            panic!("the if")
        };
        whiles.body.stmts[1].kind = StmtKind::While { cond, body: then };
        for k in [heat(counted), whiles] {
            let s = crate::translate(&blocked(&k, 3, [32, 32, 64]), &Target::default());
            let s = s.unwrap().source;
            assert!(!s.contains("mint_interior"), "{s}");
        }
        let fixed = "let mut t = 0.0; for i in 1..n - 3 { t = t + u[z][y][x+1]; } v[z][y][x] = t;";
        let mut fixed = heat(fixed);
        fixed.scalars.push(ScalarParam {
            name: "n".into(),
            ty: Some(ScalarTy::Usize),
            span: 0,
        });
        let s = crate::translate(&blocked(&fixed, 3, [32, 32, 64]), &Target::default());
        assert!(s.unwrap().source.contains("mint_interior"));
        // a step that reads another array where a value could set the subscript, or only
        // where a value lets it, walks every plane with its tests
        for body in [
            "let m = u[z][y][x] as usize; v[z][y][x] = c[m][y][x] * u[z][y][x+1];",
            "let m = u[z][y][x+1] as i64; v[z][y][x] = c[z][y][(((x as i64 + m) as u8) as i64 - m) as usize] * u[z][y][x];",
            "let m = u[z][y][x+1] as i64; v[z][y][x] = c[z][y][((x as i64 + m) - m) as usize] * u[z][y][x];",
            "let mut t = u[z][y][x+1]; if t > 1.0 { t = c[z][y][x]; } v[z][y][x] = t;",
            "let mut t = u[z][y][x+1]; for i in 0..2 { t = t + c[z][y][x]; } v[z][y][x] = t;",
        ] {
            let t = crate::translate(&blocked(&heat(body), 3, [32, 32, 64]), &Target::default());
            let t = t.unwrap();
            assert!(!t.source.contains("mint_interior"), "{}", t.source);
            // and its rings need no pads: 3 rings of 2 planes of the 32x32 tile
            assert_eq!(t.dynamic_shared_bytes, 3 * 2 * 32 * 32 * 4, "{body}");
        }
        // one read at a constant offset from the point everywhere (Poisson's right-hand
        // side) reads the elements the unblocked kernel reads: the interior walk
        let k = blocked(
            &heat("v[z][y][x] = c[z][y][x] * u[z][y][x+1];"),
            3,
            [32, 32, 64],
        );
        let t = crate::translate(&k, &Target::default()).unwrap();
        assert!(t.source.contains("mint_interior"), "{}", t.source);
    }

    #[test]
    fn planes_read_at_other_columns_lengthen_the_ring() {
        // Poisson's edges: u[z±1][y±1][x] from the ring, which then holds 4 planes, and
        // each step is 2 planes behind the previous one
        let k = heat("v[z][y][x] = u[z][y][x] + u[z-1][y+1][x] + u[z+1][y-1][x] + u[z+1][y][x];");
        let t = crate::translate(&blocked(&k, 3, [32, 32, 64]), &Target::default()).unwrap();
        assert_eq!(t.dynamic_shared_bytes, (3 * 4 * 32 * 32 + 2 * 2 * 32) * 4);
        let s = &t.source;
        assert!(s.contains("const idx_t z = mint_w - 6;"), "{s}");
        assert!(
            s.contains("mint_ring0[mint_slot_m1][mint_ty + 1][mint_tx]"),
            "{s}"
        );
        // a queue of lag + rz + 1 = 4 planes: u[z+1][y][x] is its register 2
        assert!(s.contains("float mint_q0[4] = {};"), "{s}");
        assert!(s.contains("mint_q0[1] + mint_ring0"), "{s}");
        assert!(s.contains("+ mint_q0[2];"), "{s}");
        // a subscript known at run time reads the ring over the whole reach
        let k = heat(
            "let b = if z == 1 { z } else { z - 1 }; v[z][y][x] = u[z][y][x] + u[b][y][x] + u[z][y][x+1];",
        );
        let t = crate::translate(&blocked(&k, 3, [32, 32, 64]), &Target::default()).unwrap();
        assert_eq!(t.dynamic_shared_bytes, (3 * 4 * 32 * 32 + 2 * 32) * 4);
        assert!(
            t.source.contains("const idx_t z = mint_w - 6;"),
            "{}",
            t.source
        );
    }

    #[test]
    fn several_rows_per_thread_widen_the_tile() {
        let mut k = blocked(&heat(STAR), 3, [32, 64, 64]);
        k.clauses.chunk = Some([1, 2, 64].map(ClauseValue::Const));
        let t = crate::translate(&k, &Target::default()).unwrap();
        // 32 threads by 32, two rows each: a 32×64 tile, 26 by 64 - 2·3·2 inner points
        assert_eq!(t.config.tile, [26, 52, 64]);
        assert_eq!(t.config.block, [32, 32, 1]);
        assert_eq!(t.dynamic_shared_bytes, (3 * 2 * 32 * 64 + 2 * 3 * 32) * 4);
        let s = &t.source;
        assert_eq!(s.matches("__syncthreads()").count(), 3, "{s}");
        // every step, the load included, walks the thread's two rows, and so does the
        // walk's first load one plane ahead (3 steps × 2 rows: it looks ahead), in the
        // walk's general plane and in each of its group of 3 interior ones
        assert_eq!(s.matches("mint_r < 2").count(), 1 + 4 * 4, "{s}");
        assert!(s.contains("float mint_next[2] = {};"), "{s}");
        assert!(
            s.contains("mint_q0[mint_r * 3 + 2] = mint_next[mint_r];"),
            "{s}"
        );
        assert!(s.contains("mint_ty0 + mint_r * 32"), "{s}");
        // the last step writes the rows whose step-3 value the tile holds: 6 <= ty < 58
        assert!(s.contains("mint_ty >= 6 && mint_ty < 58"), "{s}");
    }

    #[test]
    fn the_walk_looks_ahead_only_where_registers_allow() {
        let ahead = |k: &Kernel, depth: u8, rows: u32| {
            let mut b = blocked(k, depth, [32, 32 * rows, 64]);
            b.clauses.chunk = Some([1, rows, 64].map(ClauseValue::Const));
            let t = crate::translate(&b, &Target::default()).unwrap();
            t.source.contains("mint_next")
        };
        let star = heat(
            "v[z][y][x] = u[z][y][x] + u[z][y][x-1] + u[z][y][x+1] + u[z][y-1][x] + u[z][y+1][x] + u[z-1][y][x] + u[z+1][y][x];",
        );
        assert!(ahead(&star, 3, 2), "3 steps x 2 rows");
        assert!(ahead(&star, 5, 1), "5 steps x 1 row");
        assert!(!ahead(&star, 5, 2), "5 steps x 2 rows");
        // a step that also reads a coefficient array loads in place
        let coeff = heat(
            "v[z][y][x] = c[z][y][x] * (u[z][y][x-1] + u[z][y][x+1] + u[z][y-1][x] + u[z][y+1][x] + u[z-1][y][x] + u[z+1][y][x]);",
        );
        assert!(!ahead(&coeff, 3, 2), "a coefficient array");
    }

    #[test]
    fn a_2d_step_walks_its_rows_with_tiles_of_one_row() {
        let k = kernel(
            "heat2_0",
            "arrays: u f32 2, v f32 2
             nest: y 1..n-1, x 1..n-1
             v[y][x] = u[y][x] + u[y][x-1] + u[y][x+1] + u[y-1][x] + u[y+1][x] + u[y+2][x];",
        );
        assert_eq!(check(&k, 0), Ok((1, [1, 0, 2])));
        let mut b = k.clone();
        b.options.time_block = 3;
        b.options.time_input = 0;
        b.clauses.tile = Some([256, 64, 1].map(ClauseValue::Const));
        b.clauses.chunk = Some([1, 64, 1].map(ClauseValue::Const));
        let t = crate::translate(&b, &Target::default()).unwrap();
        // 256 - 2·3·1 columns of each of 64 rows per block, a block of 256 threads
        assert_eq!(t.config.tile, [250, 64, 1]);
        assert_eq!(t.config.block, [256, 1, 1]);
        let s = &t.source;
        assert!(s.contains("mint_lo_y + (idx_t)blockIdx.y * 64"), "{s}");
        assert!(s.contains("const idx_t y = mint_w - 6;"), "{s}");
        assert!(
            s.contains("mint_ring0[mint_slot_0][mint_ty][mint_tx - 1]"),
            "{s}"
        );
        // u[y-1], u[y], u[y+1], u[y+2] from the previous step's register queue
        assert!(s.contains("float mint_q0[5] = {};"), "{s}");
        assert!(!s.contains("mint_lo_z") && !s.contains("blockIdx.z"), "{s}");
    }

    #[test]
    fn tiles_too_small_and_rings_too_large_are_errors() {
        let k = blocked(&heat(STAR), 9, [32, 32, 64]);
        let e = crate::translate(&k, &Target::default()).unwrap_err();
        assert!(e[0].message.contains("no inner points"), "{}", e[0].message);
        // 18×4 of 32×32 columns
        let k = blocked(&heat(STAR), 7, [32, 32, 64]);
        let e = crate::translate(&k, &Target::default()).unwrap_err();
        assert!(e[0].message.contains("18×4 points"), "{}", e[0].message);
        let k = blocked(&heat(STAR), 5, [32, 32, 64]);
        let small = Target {
            shared_bytes_optin: 32 * 1024,
            ..Target::default()
        };
        let e = crate::translate(&k, &small).unwrap_err();
        assert!(e[0].message.contains("shared memory"), "{}", e[0].message);
        // 2²² rows per thread: 2³² columns, whose products would overflow 32 bits
        let mut k = blocked(&heat(STAR), 3, [32, 32 << 22, 64]);
        k.clauses.chunk = Some([1, 1 << 22, 64].map(ClauseValue::Const));
        let e = crate::translate(&k, &Target::default()).unwrap_err();
        assert!(e[0].message.contains("shared memory"), "{}", e[0].message);
    }
}
