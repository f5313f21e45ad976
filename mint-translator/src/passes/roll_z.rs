//! `roll_z`: the z steps of a vector kernel's sliding window run as a loop
//! (`#pragma unroll 1`) instead of unrolled (the lowering unrolls them completely up to 16
//! steps, the ring path by 4). The plan decides where it applies (`crate::plan`: the
//! vector path with a sliding window); the pass sets the pragma of every
//! [`LoopRole::ZWindow`] loop.

use super::{Context, kernel_fn};
use crate::kir::visit::each_mut;
use crate::kir::{LoopRole, Module, Stmt, Unroll};
use crate::plan::Opt;

/// Rolls the z steps where the plan applies `roll_z`.
pub fn run(m: &mut Module, cx: &Context) {
    if !cx.plan.applied(Opt::RollZ) {
        return;
    }
    each_mut(&mut kernel_fn(m).body, &mut |s| {
        if let Stmt::Loop(l) = s
            && l.role == LoopRole::ZWindow
        {
            l.unroll = Some(Unroll::By(1));
        }
    });
}
