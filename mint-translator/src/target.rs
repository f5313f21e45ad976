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
    /// (default [`crate::optimizer::vector::MAX_REGISTERS`]); the runtime raises it for
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
            max_registers: crate::optimizer::vector::MAX_REGISTERS,
        }
    }
}
