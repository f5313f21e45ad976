//! The autotuner's search space (issue #15): the configurations that the `tune` option
//! tries for a kernel.
//!
//! A candidate is a set of optimizer options (thesis Table 3.2: `register`, `shared`,
//! `prefer_l1`; beyond it `vectorize`, `pipeline`, `swizzle` and `roll_z`) with a `tile` and a
//! `chunksize`.
//! The space is the thesis's optimization levels (Sec. 6.2.2: baseline, opt-1 to opt-3,
//! opt-3 with `prefer_l1`, opt-3 with 4 rows per thread along y), the `vectorize` levels,
//! and other block shapes and sliding-window lengths that the benchmark harness found to
//! win for some kernel of its suite on an H100: short z chunks for the register queue, y
//! chunks, wider tiles in x for 16-byte loads; `pipeline` at five register tiles; and
//! `swizzle` (the blocks' order) with five of those tiles; `roll_z` (the z steps of a chunk
//! as a loop) at ten `vectorize` tiles with z chunks of 4 and more; and `vectorize` with
//! `pipeline` (the x and y neighbours from shared-memory rings) at three tiles, and at one
//! with two y rows per thread. ImageCL (seed `000_3a52e492fab7fe1b.txt`) treats
//! optimizations as tuning parameters in the same way;
//! Farstad (seed `004_c4ec796f4eb5494f.txt`, Ch. 4) tunes block shapes.
//!
//! A second round ([`refinements`]) tries the two fastest with `swizzle` flipped.
//!
//! This module only enumerates; the runtime (`mint_runtime::tune`) times the candidates
//! on the GPU, keeps the fastest whose results equal the kernel's as written, and stores
//! the choice. A candidate that does not fit the device (threads, shared memory) is
//! rejected by [`crate::translate`] or by the driver, and the runtime skips it.

use crate::baseline::config::{self, vector_width};
use crate::diag::DiagResult;
use crate::ir::{ClauseValue, Kernel, OptOptions};
use crate::target::Target;
use serde::{Deserialize, Serialize};

/// One configuration of a kernel: optimizer options, `tile` and `chunksize` (x, y, z;
/// with `vectorize`, `chunksize` x is 1 as written and the translator sets it to the
/// vector width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Candidate {
    pub options: OptOptions,
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
}

impl Candidate {
    /// The fused launch of `depth` steps of `kernel`, each reading array `input` (an index
    /// in `kernel.arrays`) and writing the other array of the time loop's swap (temporal
    /// blocking, issue #45: `crate::optimizer::temporal`). `block` is `[x threads, y
    /// threads, planes, rows per thread]`, as `crate::optimizer::temporal::default_tile`
    /// gives it: the block's tile is `x × (y · rows)` columns over `planes` planes, each
    /// thread computing `rows` rows. A 2-D kernel's tile is one row (`y · rows` = 1) and
    /// its `planes` are rows of the grid. The kernel's own `unroll` is kept; its other
    /// options are not, since the fused kernel stages through its own rings.
    ///
    /// # Errors
    /// The reason in words where `y × rows` overflows `u32` (a `MINT_TIME_TILE` too
    /// large) or is not 1 for a 2-D kernel, or `depth` or `input` is above 255.
    pub fn time_blocked(
        kernel: &Kernel,
        input: usize,
        depth: u32,
        block: [u32; 4],
    ) -> Result<Candidate, String> {
        let [bx, by, planes, rows] = block;
        let ty = by
            .checked_mul(rows)
            .ok_or_else(|| format!("MINT_TIME_TILE: {by} threads × {rows} rows overflow"))?;
        // a 2-D step's tile is one row, its planes the grid's rows (y)
        let (tile, chunk) = match kernel.nest.len() {
            2 if ty != 1 => {
                return Err(format!(
                    "a 2-D step's tile is one row: MINT_TIME_TILE x,1,planes, not {by} threads × {rows} rows"
                ));
            }
            2 => ([bx, planes, 1], [1, planes, 1]),
            _ => ([bx, ty, planes], [1, rows, planes]),
        };
        let time_block =
            u8::try_from(depth).map_err(|_| format!("block = {depth} is above 255 steps"))?;
        let time_input = u8::try_from(input)
            .map_err(|_| format!("the input is array {input} of the kernel, above 255"))?;
        Ok(Candidate {
            options: OptOptions {
                time_block,
                time_input,
                unroll: kernel.options.unroll,
                ..OptOptions::default()
            },
            tile,
            chunk,
        })
    }

    /// The same fused launch carrying the pairs `carried` at its point (`(read, written)`,
    /// indices in the kernel's arrays; `crate::optimizer::temporal::check_pairs`).
    ///
    /// # Errors
    /// More than [`crate::ir::MAX_CARRIED`] pairs, or an index above 255.
    pub fn carrying(mut self, carried: &[(usize, usize)]) -> Result<Candidate, String> {
        if carried.len() > crate::ir::MAX_CARRIED {
            return Err(format!(
                "a blocked step carries at most {} pairs, not {}",
                crate::ir::MAX_CARRIED,
                carried.len()
            ));
        }
        for (slot, &(i, o)) in self.options.time_carried.iter_mut().zip(carried) {
            let b = |v: usize| {
                u8::try_from(v).map_err(|_| format!("array {v} of the kernel is above 255"))
            };
            *slot = [b(i)?, b(o)?];
        }
        Ok(self)
    }

    /// The candidate as a user would write it: `options; tile(..), chunksize(..)`.
    pub fn describe(&self) -> String {
        let opts = self.options.written();
        let (t, c) = (self.tile, self.chunk);
        format!(
            "{}; tile({}, {}, {}), chunksize({}, {}, {})",
            if opts.is_empty() {
                "no options".to_string()
            } else {
                opts.join(", ")
            },
            t[0],
            t[1],
            t[2],
            c[0],
            c[1],
            c[2]
        )
    }

    /// `kernel` with this candidate's options, `tile` and `chunksize` (as literal clauses,
    /// so that no run-time clause value is needed). `tune` stays as it was: it does not
    /// change the translation.
    pub fn apply(&self, kernel: &Kernel) -> Kernel {
        let mut k = kernel.clone();
        let tune = k.options.tune;
        k.options = self.options;
        k.options.tune = tune;
        let n = k.nest.len();
        let axes = |v: [u32; 3]| {
            let mut v = v;
            for (i, x) in v.iter_mut().enumerate() {
                if i >= n {
                    *x = 1;
                }
            }
            v.map(ClauseValue::Const)
        };
        k.clauses.tile = Some(axes(self.tile));
        k.clauses.chunk = Some(axes(self.chunk));
        k
    }
}

/// The kernel's configuration as written: its options, and its `tile` and `chunksize`
/// with run-time entries taken from `target.clause_values` and missing clauses at their
/// defaults (Sec. 3.3.2). `tune` is cleared.
///
/// # Errors
/// What [`config::resolve`] rejects (a chunksize that does not divide the tile, too many
/// threads per block, ...).
pub fn as_written(kernel: &Kernel, target: &Target) -> DiagResult<Candidate> {
    let cfg = config::resolve(kernel, target)?;
    let mut chunk = cfg.chunk;
    if vector_width(kernel).is_some() {
        // resolve() sets chunksize x to the vector width; as written it is 1
        chunk[0] = 1;
    }
    let mut options = kernel.options;
    options.tune = false;
    Ok(Candidate {
        options,
        tile: cfg.tile,
        chunk,
    })
}

/// Which option sets a kernel admits: `vector` when `vectorize` would apply to it (two
/// or more parallel loops, arrays of the nest's rank of one element size of 4 or 8
/// bytes, no reduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Space {
    /// Number of parallel loops (1..=3).
    pub nest: usize,
    pub vector: bool,
}

impl Space {
    /// The space of `kernel`; `None` for what is not tuned: a `single` block, and a
    /// kernel with a reduction (its value depends on the block shape through the order
    /// of the sum, so no other configuration could give the same result).
    pub fn of(kernel: &Kernel) -> Option<Space> {
        if kernel.is_single() || kernel.reduction.is_some() || kernel.nest.is_empty() {
            return None;
        }
        let mut k = kernel.clone();
        k.options.vectorize = true;
        Some(Space {
            nest: kernel.nest.len().min(3),
            vector: vector_width(&k).is_some(),
        })
    }
}

/// The candidates for a kernel of `space` written as `written`: `written` first, then the
/// levels and block shapes of the module documentation, without repeats. Every candidate
/// keeps `written`'s `unroll` and `same_index`, except the baseline with no options at
/// all (the thesis's baseline level) at two block shapes; `shared` keeps its plane count
/// when `written` gave one (8 otherwise).
pub fn candidates(space: Space, written: &Candidate) -> Vec<Candidate> {
    let l = Levels::of(written);
    let mut list = vec![*written];
    let all: Vec<Candidate> = match space.nest {
        1 => [64, 128, 256, 512, 1024]
            .into_iter()
            .map(|t| c(l.none, [t, 1, 1], [1, 1, 1]))
            .chain([c(l.plain, [256, 1, 1], [1, 1, 1])])
            .collect(),
        2 => table_2d(&l),
        _ => table_3d(&l),
    };
    for cand in all {
        if cand.options.vectorize && !space.vector {
            continue;
        }
        if !list.contains(&cand) {
            list.push(cand);
        }
    }
    list
}

/// The option sets the candidates combine, from the kernel as written (`written`'s
/// `unroll`, `same_index` and plane count).
struct Levels {
    none: OptOptions,
    plain: OptOptions,
    reg: OptOptions,
    sh: OptOptions,
    sr: OptOptions,
    srl1: OptOptions,
    vec: OptOptions,
    srp: OptOptions,
    vec_sw: OptOptions,
    none_sw: OptOptions,
    vec_roll: OptOptions,
    vec_pipe: OptOptions,
}

impl Levels {
    fn of(written: &Candidate) -> Levels {
        let w = written.options;
        let planes = if w.shared > 0 { w.shared } else { 8 };
        let opts = |register: bool, shared: bool, prefer_l1: bool, vectorize: bool| OptOptions {
            register,
            shared: if shared { planes } else { 0 },
            prefer_l1,
            unroll: w.unroll,
            same_index: w.same_index,
            vectorize,
            tune: false,
            pipeline: false,
            swizzle: false,
            roll_z: false,
            time_block: 0,
            time_input: 0,
            time_carried: Default::default(),
        };
        let none = opts(false, false, false, false);
        // the thesis's baseline level has no options at all: unrolling a long serial loop
        // can cost more than it saves (the radius-8 star in f32 on an H100:
        // 100 GPts/s without `unroll`, 89 with it)
        let plain = OptOptions {
            unroll: false,
            same_index: false,
            ..none
        };
        let reg = opts(true, false, false, false);
        let sh = opts(false, true, false, false);
        let sr = opts(true, true, false, false);
        let srl1 = opts(true, true, true, false);
        let vec = opts(false, false, false, true);
        // `pipeline`: the planes copied with `cp.async`, two ahead (a prototype of it ran the
        // radius-4 star at 87% of copy in f64 on an H100 where the register-staged kernels
        // reached 75%)
        let srp = OptOptions {
            pipeline: true,
            ..sr
        };
        // `swizzle`: the blocks in bands of y tiles swept along z
        let vec_sw = OptOptions {
            swizzle: true,
            ..vec
        };
        let none_sw = OptOptions {
            swizzle: true,
            ..none
        };
        // `roll_z`: the z steps of a chunk as a loop, not unrolled
        let vec_roll = OptOptions {
            roll_z: true,
            ..vec
        };
        // `vectorize` with `pipeline`: the x and y neighbours from shared-memory rings
        let vec_pipe = OptOptions {
            pipeline: true,
            ..vec
        };
        Levels {
            none,
            plain,
            reg,
            sh,
            sr,
            srl1,
            vec,
            srp,
            vec_sw,
            none_sw,
            vec_roll,
            vec_pipe,
        }
    }
}

/// A candidate of `options` at `tile` threads and `chunk` points per thread.
fn c(options: OptOptions, tile: [u32; 3], chunk: [u32; 3]) -> Candidate {
    Candidate {
        options,
        tile,
        chunk,
    }
}

/// The 2-D candidates: the thesis's levels (Sec. 6.2.2), then block shapes, y chunks and
/// `vectorize`.
fn table_2d(l: &Levels) -> Vec<Candidate> {
    vec![
        // the levels (Sec. 6.2.2) in 2-D
        c(l.none, [32, 8, 1], [1, 1, 1]),
        c(l.none, [16, 16, 1], [1, 1, 1]),
        c(l.sh, [32, 8, 1], [1, 1, 1]),
        c(l.reg, [32, 8, 1], [1, 1, 1]),
        c(l.sr, [32, 8, 1], [1, 1, 1]),
        c(l.srl1, [32, 8, 1], [1, 1, 1]),
        c(l.sr, [32, 16, 1], [1, 4, 1]),
        // block shapes and y chunks
        c(l.none, [64, 4, 1], [1, 1, 1]),
        c(l.none, [128, 2, 1], [1, 1, 1]),
        c(l.none, [32, 16, 1], [1, 4, 1]),
        c(l.sr, [32, 32, 1], [1, 4, 1]),
        c(l.sr, [64, 16, 1], [2, 4, 1]),
        c(l.vec, [128, 4, 1], [1, 1, 1]),
        c(l.vec, [128, 8, 1], [1, 1, 1]),
        c(l.vec, [256, 2, 1], [1, 1, 1]),
        c(l.vec, [128, 16, 1], [1, 4, 1]),
        c(l.plain, [32, 8, 1], [1, 1, 1]),
        c(l.plain, [64, 4, 1], [1, 1, 1]),
    ]
}

/// The 3-D candidates: the thesis's levels (Sec. 6.2.2), block shapes and sliding-window
/// lengths, `vectorize` with its row and z-chunk shapes, `swizzle`, `roll_z` and `pipeline`.
fn table_3d(l: &Levels) -> Vec<Candidate> {
    vec![
        // the levels (Sec. 6.2.2)
        c(l.none, [32, 8, 1], [1, 1, 1]),
        c(l.none, [16, 16, 1], [1, 1, 1]),
        c(l.sh, [32, 8, 1], [1, 1, 1]),
        c(l.sh, [32, 8, 64], [1, 1, 64]),
        c(l.sr, [32, 8, 64], [1, 1, 64]),
        c(l.reg, [32, 8, 1], [1, 1, 1]),
        c(l.srl1, [32, 8, 64], [1, 1, 64]),
        c(l.sr, [32, 16, 64], [1, 4, 64]),
        c(l.vec, [128, 4, 1], [1, 1, 1]),
        c(l.vec, [128, 4, 4], [1, 1, 4]),
        // block shapes and sliding-window lengths
        c(l.none, [64, 4, 1], [1, 1, 1]),
        c(l.none, [32, 4, 2], [1, 1, 2]),
        c(l.reg, [32, 8, 16], [1, 1, 16]),
        c(l.reg, [32, 4, 32], [1, 1, 32]),
        c(l.sr, [32, 8, 16], [1, 1, 16]),
        c(l.sr, [64, 4, 32], [1, 1, 32]),
        c(l.sr, [32, 16, 32], [1, 2, 32]),
        c(l.sr, [32, 32, 32], [1, 4, 32]),
        c(l.srl1, [32, 8, 16], [1, 1, 16]),
        c(l.srp, [32, 8, 64], [1, 1, 64]),
        c(l.srp, [32, 16, 64], [1, 4, 64]),
        c(l.srp, [32, 16, 32], [1, 2, 32]),
        c(l.srp, [32, 32, 32], [1, 4, 32]),
        c(l.srp, [64, 16, 64], [2, 4, 64]),
        c(l.vec, [64, 4, 2], [1, 1, 2]),
        c(l.vec, [64, 4, 4], [1, 1, 4]),
        c(l.vec, [128, 4, 2], [1, 1, 2]),
        c(l.vec, [128, 4, 8], [1, 1, 8]),
        c(l.vec, [128, 4, 16], [1, 1, 16]),
        // taller tiles: fewer y ghost rows per point for kernels whose z queues
        // hold the y ± 1 rows too (the 27-point box)
        c(l.vec, [128, 8, 8], [1, 1, 8]),
        c(l.vec, [64, 8, 16], [1, 1, 16]),
        // two y rows per thread, sharing their row vectors (the 27-point box: 88.6% of
        // copy in f32 at 128x8x4 and 85% in f64 at 64x8x4 on an H100, where one row
        // per thread reached 82% and 80%)
        c(l.vec, [128, 8, 2], [1, 2, 2]),
        c(l.vec, [128, 8, 4], [1, 2, 4]),
        c(l.vec, [64, 8, 4], [1, 2, 4]),
        c(l.vec, [128, 8, 8], [1, 2, 8]),
        c(l.plain, [32, 8, 1], [1, 1, 1]),
        c(l.plain, [64, 4, 1], [1, 1, 1]),
        // `swizzle`: the same blocks in bands of y tiles swept along z, for kernels
        // whose z neighbours are read by other blocks (one plane per block) or whose
        // many arrays crowd L2 (the seismic kernels read 12 and 15 arrays)
        c(l.vec_sw, [128, 4, 1], [1, 1, 1]),
        c(l.vec_sw, [128, 4, 2], [1, 1, 2]),
        c(l.vec_sw, [128, 4, 4], [1, 1, 4]),
        c(l.vec_sw, [128, 4, 16], [1, 1, 16]),
        c(l.none_sw, [32, 8, 1], [1, 1, 1]),
        // `roll_z`: the z chunks of 4 and more with their steps rolled, for kernels
        // that spill when the steps are unrolled (the seismic kernels on an H200:
        // 90.8% of copy with the steps rolled, 85.0% unrolled)
        c(l.vec_roll, [128, 4, 4], [1, 1, 4]),
        c(l.vec_roll, [64, 4, 4], [1, 1, 4]),
        c(l.vec_roll, [128, 4, 8], [1, 1, 8]),
        c(l.vec_roll, [128, 4, 16], [1, 1, 16]),
        c(l.vec_roll, [128, 8, 8], [1, 1, 8]),
        c(l.vec_roll, [64, 8, 16], [1, 1, 16]),
        c(l.vec_roll, [128, 8, 4], [1, 2, 4]),
        c(l.vec_roll, [64, 8, 4], [1, 2, 4]),
        c(l.vec_roll, [128, 8, 8], [1, 2, 8]),
        // blocks of 128 threads in f64 at a long chunk: three per SM at 168 registers
        // (the radius-8 star in f64 on an H100: 43.1% of copy, against 41.9% for the
        // best candidate without it)
        c(l.vec_roll, [64, 4, 16], [1, 1, 16]),
        // the x and y neighbours from shared-memory rings, one block of 64 or 128
        // threads per tile (the radius-8 star on an H100: 63% of copy in f32 at
        // 32x16x32 and 61% at 64x8x32, 57.7% in f64 at 16x16x64, against 52% and 43%
        // reading device memory)
        c(l.vec_pipe, [32, 16, 32], [1, 1, 32]),
        c(l.vec_pipe, [64, 8, 32], [1, 1, 32]),
        c(l.vec_pipe, [16, 16, 64], [1, 1, 64]),
        // two y rows per thread sharing their ring vectors, 4 planes ahead (the
        // radius-8 star in f64 on an H100: 60.1% of copy in the prototype, against
        // 56.5% with one row; translated, `tune` chose it at 61.6%)
        c(l.vec_pipe, [16, 16, 64], [1, 2, 64]),
    ]
}

/// The second round of a search: the candidates of a 3-D kernel that differ from the
/// round's fastest ones (`best`, fastest first) only in `swizzle`, that `tried` does not
/// hold already. The blocks' order is independent of the tile and the options, so the
/// first round tries it at a few tiles only, and the second at the tiles that won.
pub fn refinements(space: Space, best: &[Candidate], tried: &[Candidate]) -> Vec<Candidate> {
    if space.nest != 3 {
        return Vec::new();
    }
    let mut out: Vec<Candidate> = Vec::new();
    for b in best {
        let mut twin = *b;
        twin.options.swizzle = !twin.options.swizzle;
        if !tried.contains(&twin) && !out.contains(&twin) {
            out.push(twin);
        }
    }
    out
}

pub use crate::target::PIPELINE_MIN_CC;

/// `cands` without the ones that would only repeat another candidate's kernel on a device
/// of compute capability `cc`: below [`PIPELINE_MIN_CC`], `pipeline` falls back to the
/// register-staged planes, so its candidates are the `shared, register` ones again and
/// would be compiled and timed twice. The first candidate (the kernel as written) is kept
/// whatever its options.
pub fn for_device(cands: Vec<Candidate>, cc: (u32, u32)) -> Vec<Candidate> {
    cands
        .into_iter()
        .enumerate()
        .filter(|(i, c)| *i == 0 || !c.options.pipeline || cc >= PIPELINE_MIN_CC)
        .map(|(_, c)| c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ScalarTy;
    use crate::testing::kernel;

    fn heat(header: &str) -> Kernel {
        kernel(
            "heat_0",
            &format!(
                "arrays: u f64 3, v f64 3
                 nest: z 1..n-1, y 1..n-1, x 1..n-1
                 {header}
                 v[z][y][x] = u[z][y][x-1] + u[z][y][x+1] + u[z-1][y][x] + u[z+1][y][x];"
            ),
        )
    }

    #[test]
    fn a_fused_block_keeps_unroll_drops_staging_and_refuses_overflow() {
        let k = heat("options: shared=4, register, unroll");
        let c = Candidate::time_blocked(&k, 0, 3, [32, 16, 64, 2]).unwrap();
        // the block as the translator reads it: 32 × 32 columns, 2 rows per thread
        assert_eq!((c.tile, c.chunk), ([32, 32, 64], [1, 2, 64]));
        let o = c.options;
        assert_eq!((o.time_block, o.time_input), (3, 0));
        assert!(o.unroll && !o.register && o.shared == 0);
        let err = Candidate::time_blocked(&k, 0, 3, [32, u32::MAX, 64, 2]).unwrap_err();
        assert!(err.contains("overflow"), "{err}");
        assert!(Candidate::time_blocked(&k, 0, 300, [32, 16, 64, 1]).is_err());
    }

    #[test]
    fn the_kernel_as_written_comes_first_and_nothing_repeats() {
        let k = heat("options: shared=4, unroll\ntile: 64, 4, 8\nchunk: 1, 1, 8");
        let w = as_written(&k, &Target::default()).unwrap();
        assert_eq!((w.tile, w.chunk), ([64, 4, 8], [1, 1, 8]));
        assert_eq!(w.options.shared, 4);
        let space = Space::of(&k).unwrap();
        assert_eq!(
            space,
            Space {
                nest: 3,
                vector: true
            }
        );
        let c = candidates(space, &w);
        assert_eq!(c[0], w);
        for (i, a) in c.iter().enumerate() {
            assert!(!c[i + 1..].contains(a), "{} repeats", a.describe());
            // the written unroll and plane count are kept, but for the plain baseline
            let o = a.options;
            let plain = !(o.register || o.shared > 0 || o.vectorize || o.prefer_l1);
            assert!(a.options.unroll || plain, "{}", a.describe());
            assert!(a.options.shared == 0 || a.options.shared == 4);
            assert!(!a.options.tune);
        }
        // the thesis's levels are there: the baseline, opt-3, opt-3+y; and vectorize+z
        let has = |p: &dyn Fn(&Candidate) -> bool| c.iter().any(p);
        assert!(has(&|a| {
            let o = a.options;
            !o.register && o.shared == 0 && !o.vectorize && a.tile == [32, 8, 1]
        }));
        assert!(has(&|a| a.options.register
            && a.options.shared > 0
            && a.chunk == [1, 1, 64]));
        assert!(has(&|a| a.chunk == [1, 4, 64]));
        assert!(has(&|a| a.options.vectorize && a.chunk == [1, 1, 4]));
    }

    /// The second round flips `swizzle` on the winners it was not tried with, in 3-D only.
    #[test]
    fn the_second_round_flips_swizzle_on_the_winners() {
        let k = heat("");
        let w = as_written(&k, &Target::default()).unwrap();
        let space = Space::of(&k).unwrap();
        let all = candidates(space, &w);
        let on = |c: &Candidate| Candidate {
            options: OptOptions {
                swizzle: true,
                ..c.options
            },
            ..*c
        };
        // a winner whose swizzled twin was tried gets none; one without gets it
        let tried_twin = all
            .iter()
            .find(|c| !c.options.swizzle && all.contains(&on(c)))
            .expect("a candidate tried both ways");
        let untried = all
            .iter()
            .find(|c| !c.options.swizzle && !all.contains(&on(c)))
            .expect("a candidate tried one way");
        let r = refinements(space, &[*untried, *tried_twin, *untried], &all);
        assert_eq!(r, vec![on(untried)]);
        // and a swizzled winner gets its plain twin when that was not tried
        let sw = on(untried);
        assert_eq!(refinements(space, &[sw], &[sw]), vec![*untried]);
        let flat = Space { nest: 2, ..space };
        assert!(refinements(flat, &[*untried], &all).is_empty());
    }

    /// Below compute capability 8.0 `pipeline` falls back to the register-staged planes:
    /// its candidates are dropped (the kernel as written is kept even with `pipeline`),
    /// and the rest stay in order. From 8.0 nothing is dropped.
    #[test]
    fn pipeline_candidates_are_dropped_where_they_cannot_apply() {
        let k =
            heat("options: shared=4, register, unroll, pipeline\ntile: 32, 8, 16\nchunk: 1, 1, 16");
        let w = as_written(&k, &Target::default()).unwrap();
        assert!(w.options.pipeline);
        let all = candidates(Space::of(&k).unwrap(), &w);
        let piped = all.iter().skip(1).filter(|c| c.options.pipeline).count();
        assert!(piped > 0);
        assert_eq!(for_device(all.clone(), (9, 0)), all);
        assert_eq!(for_device(all.clone(), (8, 0)), all);
        let old = for_device(all.clone(), (7, 5));
        assert_eq!(old.len(), all.len() - piped);
        assert_eq!(old[0], w);
        assert!(old.iter().skip(1).all(|c| !c.options.pipeline));
        let rest: Vec<_> = all.iter().skip(1).filter(|c| !c.options.pipeline).collect();
        assert_eq!(old.iter().skip(1).collect::<Vec<_>>(), rest);
    }

    #[test]
    fn every_candidate_translates_or_is_rejected_with_a_message() {
        // on the default target every candidate of a plain 3-D stencil fits
        let k = heat("");
        let w = as_written(&k, &Target::default()).unwrap();
        assert_eq!(w.tile, [16, 16, 1], "the default tile (Sec. 3.3.2)");
        let all = candidates(Space::of(&k).unwrap(), &w);
        assert!(all.len() > 20);
        for c in &all {
            let t = crate::translate(&c.apply(&k), &Target::default());
            let t = t.unwrap_or_else(|d| panic!("{}: {:?}", c.describe(), d));
            assert_eq!(t.config.tile, c.tile, "{}", c.describe());
            assert_eq!(t.ir.options.vectorize, c.options.vectorize);
        }
        // a device that allows 128 threads per block rejects the 256-thread blocks, and
        // the translator says why
        let small = Target {
            max_threads_per_block: 128,
            ..Target::default()
        };
        let mut fits = 0;
        for c in &all {
            let threads = (0..3).map(|i| c.tile[i] / c.chunk[i]).product::<u32>();
            // vectorize: 16 bytes, two f64 x points per thread
            let wide = if c.options.vectorize {
                threads / 2
            } else {
                threads
            };
            match crate::translate(&c.apply(&k), &small) {
                Ok(_) => {
                    assert!(wide <= 128, "{}", c.describe());
                    fits += 1;
                }
                Err(d) => {
                    assert!(wide > 128, "{}: {:?}", c.describe(), d);
                    assert!(d[0].message.contains("threads per block"), "{:?}", d);
                }
            }
        }
        assert!(fits > 0 && fits < all.len());
    }

    #[test]
    fn vectorize_is_left_out_where_it_cannot_apply_and_reductions_are_not_tuned() {
        let k2 = kernel(
            "mixed_0",
            "arrays: u f32 2, v f64 2
             nest: y 1..n-1, x 1..n-1
             v[y][x] = u[y][x] * 2.0;",
        );
        let s = Space::of(&k2).unwrap();
        assert_eq!(
            s,
            Space {
                nest: 2,
                vector: false
            },
            "mixed element sizes"
        );
        let w = as_written(&k2, &Target::default()).unwrap();
        let c = candidates(s, &w);
        assert!(c.len() > 10);
        assert!(c.iter().all(|c| !c.options.vectorize));
        assert!(c.iter().all(|c| c.tile[2] == 1 && c.chunk[2] == 1));
        let mut r = kernel(
            "sum_0",
            "arrays: u f64 1
             nest: x 0..n
             reduction: +: s
             s += u[x];",
        );
        r.reduction.as_mut().unwrap().ty = Some(ScalarTy::F64);
        assert_eq!(Space::of(&r), None);
    }

    #[test]
    fn apply_sets_literal_clauses_and_keeps_the_body() {
        let mut k = heat("options: unroll\ntile: 64, 8, 1");
        k.options.tune = true;
        let c = Candidate {
            options: OptOptions {
                register: true,
                ..OptOptions::default()
            },
            tile: [32, 4, 32],
            chunk: [1, 1, 32],
        };
        let a = c.apply(&k);
        assert_eq!(a.body, k.body);
        assert!(a.options.register && a.options.tune && !a.options.unroll);
        let t = crate::translate(&a, &Target::default()).unwrap();
        assert_eq!((t.config.tile, t.config.chunk), ([32, 4, 32], [1, 1, 32]));
        assert_eq!(as_written(&a, &Target::default()).unwrap(), c);
    }
}
