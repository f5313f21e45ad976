//! The passes over the kernel IR: each takes the module a lowering built
//! ([`crate::kir::Module`]) and changes it where the plan ([`crate::plan`]) says its
//! option applies. `crate::translate::translate` runs them in the order of [`PASSES`],
//! and `MINT_DUMP_AFTER=<name>` shows the tree after the one of that name.
//!
//! A new option that changes lowered kernels is a file here with a [`Pass`] and one line
//! in [`PASSES`]; its decision goes in the plan's record where it depends on the kernel
//! (`crate::plan`). An option that shapes a lowering before it builds anything (the
//! rings of `pipeline`) stays in that lowering, and its decision comes from the plan too.

pub mod annotate;
pub mod launch_bounds;
pub mod reduction;
pub mod roll_z;
pub mod swizzle;

use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use crate::kir::{Function, Module};
use crate::plan::KernelPlan;
use crate::target::Target;

/// What a pass may read: the plan (the kernel, its kind, the option decisions), the launch
/// configuration and the target.
pub struct Context<'a> {
    /// The kernel's plan.
    pub plan: &'a KernelPlan,
    /// The launch configuration.
    pub cfg: &'a LaunchConfig,
    /// The device.
    pub target: &'a Target,
}

impl Context<'_> {
    /// The kernel as lowered (after the faces lift and `unroll`).
    pub fn kernel(&self) -> &Kernel {
        &self.plan.kernel
    }
}

/// A pass: changes the module in place.
pub type Pass = fn(&mut Module, &Context);

/// The passes in the order they run, by name. The reduction's epilogue names the block
/// indices that `swizzle` renames, so `reduction` runs first.
pub const PASSES: &[(&str, Pass)] = &[
    ("reduction", reduction::run),
    ("swizzle", swizzle::run),
    ("roll_z", roll_z::run),
    ("launch_bounds", launch_bounds::run),
    ("annotate", annotate::run),
];

/// The module's kernel: its first function (a reduction's finish kernel follows it).
pub fn kernel_fn(m: &mut Module) -> &mut Function {
    m.functions.first_mut().expect("a module holds its kernel")
}
