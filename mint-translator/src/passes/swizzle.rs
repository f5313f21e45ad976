//! `swizzle`: the order a 3-D kernel's blocks run in. Without it the hardware runs them x
//! fastest, then y, then z. With it each block takes the place it has when the y tiles
//! are cut into bands of about [`SWIZZLE_BAND_BLOCKS`] blocks (with the x tiles) and each
//! band is swept along z before the next, computed once at the kernel's start. The map is
//! a bijection of the grid (the last band takes the y tiles left over), and the hardware
//! starts blocks in the order of their linear index, x fastest, so the blocks that read
//! one plane start close together.
//!
//! Every lowering that places tiles leaves a [`Hook::BlockIndices`] before its first tile
//! origin and names the block's y and z indices `blockIdx.y` and `blockIdx.z`
//! (`emit::cuda::block_yz`). Where the plan applies `swizzle` (three parallel loops, not a
//! `single` block), this pass computes the remapped indices at the hook and renames the
//! built-ins in the kernel's expressions to them.

use super::{Context, kernel_fn};
use crate::kir::visit::{each_mut, exprs_mut, fill_hook};
use crate::kir::{Hook, Module, Stmt};
use crate::plan::Opt;
use crate::target::SWIZZLE_BAND_BLOCKS;

/// Remaps the block indices where the plan applies `swizzle`.
pub fn run(m: &mut Module, cx: &Context) {
    if !cx.plan.applied(Opt::Swizzle) {
        return;
    }
    let f = kernel_fn(m);
    each_mut(&mut f.body, &mut |s| {
        exprs_mut(s, &mut |e| {
            if e.contains("blockIdx.") {
                *e = e
                    .replace("blockIdx.y", "mint_by")
                    .replace("blockIdx.z", "mint_bz");
            }
        })
    });
    let filled = fill_hook(&mut f.body, Hook::BlockIndices, remap());
    assert!(
        filled,
        "a lowering that places tiles leaves a hook for the block indices"
    );
}

/// The block's place in the swizzled order: `mint_by` and `mint_bz`.
fn remap() -> Vec<Stmt> {
    let band = SWIZZLE_BAND_BLOCKS;
    let u = "unsigned int";
    vec![
        Stmt::Comment(format!(
            "swizzle: bands of about {band} blocks (y tiles with the x tiles), each swept along z"
        )),
        Stmt::konst(
            u,
            "mint_sw_band",
            format!("max(1u, min(gridDim.y, {band}u / gridDim.x))"),
        ),
        Stmt::konst(u, "mint_sw_l", "blockIdx.y + gridDim.y * blockIdx.z"),
        Stmt::konst(u, "mint_sw_full", "gridDim.y / mint_sw_band * mint_sw_band"),
        Stmt::konst("bool", "mint_sw_in", "mint_sw_l < mint_sw_full * gridDim.z"),
        Stmt::konst(
            u,
            "mint_sw_rows",
            "mint_sw_in ? mint_sw_band : gridDim.y - mint_sw_full",
        ),
        Stmt::konst(
            u,
            "mint_sw_r",
            "mint_sw_in ? mint_sw_l % (mint_sw_band * gridDim.z) : mint_sw_l - mint_sw_full * gridDim.z",
        ),
        Stmt::konst(
            u,
            "mint_sw_first",
            "mint_sw_in ? mint_sw_l / (mint_sw_band * gridDim.z) * mint_sw_band : mint_sw_full",
        ),
        Stmt::konst(u, "mint_by", "mint_sw_first + mint_sw_r % mint_sw_rows"),
        Stmt::konst(u, "mint_bz", "mint_sw_r / mint_sw_rows"),
    ]
}
