//! Kernel configuration (thesis Sec. 4.2.3): thread-block shape from `tile` and
//! `chunksize`, and the rule the runtime uses to size the grid from the loop ranges.
//!
//! The innermost parallel loop maps to x, the next to y, the next to z. A block computes
//! one tile of `tile = (tx, ty, tz)` points with `tile / chunksize` threads per dimension;
//! the grid has `ceil(range / tile)` blocks per dimension and, unlike Mint's 2-D grids of
//! 2012, is a real 3-D grid.

use crate::diag::{Diag, DiagResult};
use crate::ir::{ClauseValue, Kernel};
use crate::target::Target;
use serde::{Deserialize, Serialize};

/// The resolved `tile`, `chunksize` and block shape of a kernel, in x, y, z order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// Number of parallel loops (1..=3); 0 for a `single` block.
    pub nest: usize,
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
    /// Threads per block: `tile / chunk`.
    pub block: [u32; 3],
}

impl LaunchConfig {
    pub fn threads(&self) -> u32 {
        self.block.iter().product()
    }
    /// The configuration of a `single` block: one thread.
    pub fn single() -> LaunchConfig {
        LaunchConfig {
            nest: 0,
            tile: [1; 3],
            chunk: [1; 3],
            block: [1; 3],
        }
    }
    /// Blocks per grid dimension for the given loop ranges (outermost loop first, each
    /// `hi - lo` points); zero when any range is empty.
    pub fn grid(&self, extents: &[i64]) -> [u64; 3] {
        let mut g = [1u64; 3];
        let n = extents.len();
        for (i, &e) in extents.iter().enumerate() {
            let axis = n - 1 - i;
            let t = self.tile[axis] as i64;
            g[axis] = if e <= 0 { 0 } else { ((e + t - 1) / t) as u64 };
        }
        g
    }
}

/// Default tile for a nest of depth `nest`: 16×16×1 (thesis footnote in Sec. 3.3.2) for
/// two or three parallel loops, 256 points for one.
pub fn default_tile(nest: usize) -> [u32; 3] {
    if nest <= 1 { [256, 1, 1] } else { [16, 16, 1] }
}

fn value(v: ClauseValue, target: &Target) -> Result<u32, String> {
    match v {
        ClauseValue::Const(c) => Ok(c),
        ClauseValue::Runtime(i) => target
            .clause_values
            .get(i as usize)
            .copied()
            .ok_or_else(|| {
                format!("clause value #{i} was not supplied at launch (internal error)")
            }),
    }
}

/// The vector width of a `vectorize` kernel: the number of elements in 16 bytes of its
/// stencil arrays (those with one dimension per parallel loop): 4 for `f32`, `i32`,
/// `u32`; 2 for `f64`, `i64`, `u64`. `None` (the option has no effect on the thread
/// shape) without `vectorize`, for one parallel loop, with a reduction, or when those
/// arrays mix element sizes or have none of these types.
pub fn vector_width(k: &Kernel) -> Option<u32> {
    use crate::ir::ScalarTy::*;
    let n = k.nest.len();
    if !k.options.vectorize || n < 2 || k.reduction.is_some() {
        return None;
    }
    let mut size = None;
    for a in k.arrays.iter().filter(|a| a.ndim as usize == n) {
        if !matches!(a.elem, F32 | F64 | I32 | U32 | I64 | U64) {
            return None;
        }
        let s = a.elem.size_bytes();
        if *size.get_or_insert(s) != s {
            return None;
        }
    }
    size.map(|s| 16 / s)
}

/// Resolves and checks the `tile` and `chunksize` clauses.
///
/// # Errors
/// A zero entry, a `chunksize` entry that does not divide the `tile` entry, a tile extent
/// along an axis the nest does not parallelize, or more threads per block than the device
/// allows.
pub fn resolve(kernel: &Kernel, target: &Target) -> DiagResult<LaunchConfig> {
    if kernel.is_single() {
        return Ok(LaunchConfig::single());
    }
    let nest = kernel.nest.len();
    let span = kernel.clauses.span;
    let err = |m: String| Err(vec![Diag::new(span, m)]);
    let mut tile = default_tile(nest);
    if let Some(t) = kernel.clauses.tile {
        for (i, v) in t.iter().enumerate() {
            tile[i] = match value(*v, target) {
                Ok(x) => x,
                Err(m) => return err(m),
            };
        }
    }
    let mut chunk = [1u32; 3];
    if let Some(c) = kernel.clauses.chunk {
        for (i, v) in c.iter().enumerate() {
            chunk[i] = match value(*v, target) {
                Ok(x) => x,
                Err(m) => return err(m),
            };
        }
    }
    let axis = ["x", "y", "z"];
    for i in 0..3 {
        if tile[i] == 0 || chunk[i] == 0 {
            return err(format!(
                "tile and chunksize entries must be at least 1, found tile {} and chunksize {} \
                 along {}",
                tile[i], chunk[i], axis[i]
            ));
        }
        if !tile[i].is_multiple_of(chunk[i]) {
            return err(format!(
                "chunksize {} does not divide tile {} along {}: a block has tile/chunksize \
                 threads per dimension, so choose a chunksize that divides the tile",
                chunk[i], tile[i], axis[i]
            ));
        }
        if i >= nest && tile[i] != 1 {
            return err(format!(
                "tile {} along {} but the nest parallelizes only {} loop(s) ({}); use 1 there \
                 or parallelize more loops with nest(..)",
                tile[i],
                axis[i],
                nest,
                axis[..nest].join(", ")
            ));
        }
    }
    if let Some(v) = vector_width(kernel) {
        // `vectorize`: each thread takes `v` consecutive x points
        if chunk[0] != 1 {
            return err(format!(
                "`vectorize` gives each thread {v} consecutive x points (16 bytes); leave \
                 chunksize x at 1 (found {})",
                chunk[0]
            ));
        }
        if !tile[0].is_multiple_of(v) {
            return err(format!(
                "`vectorize` gives each thread {v} consecutive x points (16 bytes), so tile x \
                 must be a multiple of {v} (found {})",
                tile[0]
            ));
        }
        chunk[0] = v;
    }
    let block = [tile[0] / chunk[0], tile[1] / chunk[1], tile[2] / chunk[2]];
    // saturating: a huge tile must not overflow the product (found by the macro mutation
    // fuzz, seeds 5705, 18559 and, with three entries of 2^32 - 1, 18211)
    let threads: u64 = block
        .iter()
        .fold(1u64, |p, &b| p.saturating_mul(u64::from(b)));
    if threads > u64::from(target.max_threads_per_block) {
        return err(format!(
            "tile/chunksize gives {}×{}×{} = {threads} threads per block, more than the \
             device's {}; use a smaller tile or a larger chunksize",
            block[0], block[1], block[2], target.max_threads_per_block
        ));
    }
    if block[2] > 64 {
        return err(format!(
            "tile/chunksize gives {} threads along z; CUDA allows at most 64: raise the z \
             chunksize",
            block[2]
        ));
    }
    Ok(LaunchConfig {
        nest,
        tile,
        chunk,
        block,
    })
}
