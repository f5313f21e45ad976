//! The kernel's `__launch_bounds__`: the threads of a block and, where the plan holds the
//! kernel to a register cap (the vector path: [`crate::Target::max_registers`]), the
//! minimum blocks per SM that keeps each thread within it ([`crate::target::min_blocks`]).

use super::{Context, kernel_fn};
use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use crate::kir::{LaunchBounds, Module};

/// Sets the kernel's launch bounds.
pub fn run(m: &mut Module, cx: &Context) {
    let cap = cx.plan.max_registers(cx.target);
    kernel_fn(m).bounds = bounds(cx.kernel(), cx.cfg, cap);
}

/// The launch bounds of `k`: the block's thread count and, with `max_registers`, the
/// minimum number of blocks per SM that holds each thread to about that many registers.
/// None for a `single` kernel.
pub fn bounds(k: &Kernel, cfg: &LaunchConfig, max_registers: Option<u32>) -> Option<LaunchBounds> {
    let threads = cfg.threads();
    (!k.is_single()).then(|| LaunchBounds {
        threads,
        min_blocks: max_registers.map(|r| crate::target::min_blocks(r, threads)),
    })
}
