//! What the translator needs to know about the device and the launch.

use serde::{Deserialize, Serialize};

/// Bytes of guard band that every device array has before its first element and after
/// its last (`mint-runtime` `array::layout`). `vectorize` kernels load whole 16-byte
/// vectors that may stick out of a row at its ends (the x halo, the last thread's unused
/// lanes); the guard keeps those loads inside the allocation, so the vector path needs
/// no per-load bounds test. The values read there only reach lanes that are not stored.
pub const GUARD_BYTES: usize = 256;

/// Device limits and launch facts that shape the generated code. The front end
/// translates with [`Target::default`] to reject what cannot be translated; the runtime
/// translates again with the device's own limits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Target {
    /// Compute capability (major, minor), e.g. (9, 0) for Hopper.
    pub compute_capability: (u32, u32),
    /// 64-bit index arithmetic (`idx_t = long long`): needed when an array of the launch
    /// holds 2^31 or more elements or a bound exceeds `i32::MAX`.
    pub idx64: bool,
    pub max_threads_per_block: u32,
    /// Shared memory a block may use without opting in (bytes).
    pub shared_bytes_per_block: u32,
    /// Shared memory a block may use after opting in with the dynamic-size attribute (bytes).
    pub shared_bytes_optin: u32,
    /// Total bytes of kernel parameters allowed before arrays are packed into a device
    /// struct (thesis Sec. 4.2.9).
    pub param_limit: u32,
    /// Values of `tile`/`chunksize` entries given as host expressions.
    pub clause_values: Vec<u32>,
    /// Registers per thread a vectorized kernel is held to through `__launch_bounds__`
    /// (default [`MAX_REGISTERS`]); the runtime raises it for
    /// a kernel that spills under it.
    pub max_registers: u32,
}

impl Default for Target {
    /// An H100 (compute capability 9.0): 1024 threads per block, 48 KB of shared memory
    /// without opt-in and 227 KB with, 4 KB of kernel parameters.
    fn default() -> Self {
        Target {
            compute_capability: (9, 0),
            idx64: false,
            max_threads_per_block: 1024,
            shared_bytes_per_block: 48 * 1024,
            shared_bytes_optin: 227 * 1024,
            param_limit: 4096,
            clause_values: Vec::new(),
            max_registers: MAX_REGISTERS,
        }
    }
}

/// Registers per thread that vectorized kernels are held to (`__launch_bounds__` with a
/// minimum of `65536 / (64 · threads)` blocks per SM): at most 64 keeps at least half of
/// the SM's warp slots usable. Without the cap the compiler spends registers on hoisting
/// loads of later steps and occupancy falls to 20–40% (`ncu`, H100); with it the 13-point
/// star in `f64` gains 1.2× on an H100. High-order stencils need more (the radius-8 star's
/// z queue alone holds 17 vectors, and it spills 200–600 bytes per thread under 64): the
/// runtime translates a kernel that spills again with the cap raised to the next of
/// [`REGISTER_STEPS`] ([`crate::Target::max_registers`]).
pub const MAX_REGISTERS: u32 = 64;

/// The caps a kernel that spills is raised through, one occupancy step at a time: 96,
/// 128, 168 and 255 registers per thread leave about 21, 16, 12 and 8 warps per SM.
/// Doubling (64, 128, 255) would skip 168, where the seismic velocity kernel at one row per
/// thread fits without spilling and runs 4% faster on an H200 than at 255.
pub const REGISTER_STEPS: [u32; 4] = [96, 128, 168, 255];

/// The minimum blocks per SM that `__launch_bounds__` asks for to hold a block of
/// `threads` threads to about `cap` registers each: `65536 / (cap · threads)`, at least 1,
/// 65536 being the register file of an SM on every architecture from sm_50 to sm_90
/// (CUDA Programming Guide, "Launch Bounds").
pub fn min_blocks(cap: u32, threads: u32) -> u32 {
    (65536 / (cap.max(1) * threads).max(1)).max(1)
}

/// The next cap of [`REGISTER_STEPS`] above `cap` that lowers the minimum of blocks per
/// SM that `__launch_bounds__` asks of a block of `threads` threads (a step that asks the
/// same would compile the same kernel again), or `None` where none does: at one block
/// per SM the compiler may already use 255.
pub fn next_register_cap(cap: u32, threads: u32) -> Option<u32> {
    REGISTER_STEPS
        .into_iter()
        .find(|&c| c > cap && min_blocks(c, threads) < min_blocks(cap, threads))
}

/// The compute capability from which `pipeline` applies (`cp.async`, Ampere and later).
pub const PIPELINE_MIN_CC: (u32, u32) = (8, 0);

/// With `swizzle`: blocks per band of y tiles (x tiles times y tiles), about what a
/// plane's blocks should number so that several planes of a band are in flight at once
/// (the H100 runs 132 multiprocessors times a few blocks each) and a band's planes stay
/// in L2 until its next planes' blocks read them (`crate::passes::swizzle`).
pub const SWIZZLE_BAND_BLOCKS: u32 = 64;
