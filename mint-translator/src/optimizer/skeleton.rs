//! The pieces of kernel skeletons that the optimizer's lowerings share, as kernel IR
//! builders: the tile origin, the end of a thread's z chunk (the sliding window's bound),
//! the split between a fast path and the edge path, and the `cp.async` sequence at the
//! start of a z step of a `pipeline` ring, and the dynamic shared allocation that typed
//! views are carved from. The staged kernel (`chunk`), the vector path (`vector`), its
//! shared-memory rings (`vector::ring`) and the temporally blocked kernel (`temporal`)
//! build their skeletons from these; a construct that a second lowering needs goes here.

use crate::emit::cuda::{hi_name, lo_name};
use crate::kir::{Builder, Shared, Stmt};

/// The kernel's dynamic shared allocation, `mint_smem` (16-byte aligned, sized at
/// launch), which `Stmt::SharedView`s carve into typed planes.
pub fn dynamic_shared(b: &mut Builder) {
    b.push(Stmt::Shared(Shared {
        ty: "unsigned char".into(),
        name: "mint_smem".into(),
        dims: Vec::new(),
        align: Some(16),
    }));
}

/// The block's tile origin in x and y (thesis Sec. 5.7): `mint_x_tile` and `mint_y_tile`,
/// the first point of the `tx` × `ty` tile, with `by` the block's y index
/// (`emit::cuda::block_yz`).
pub fn tile_origin(b: &mut Builder, by: &str, tx: u32, ty: u32) {
    b.push(Stmt::konst(
        "idx_t",
        "mint_x_tile",
        format!("{} + (idx_t)blockIdx.x * {tx}", lo_name(0)),
    ));
    b.push(Stmt::konst(
        "idx_t",
        "mint_y_tile",
        format!("{} + (idx_t){by} * {ty}", lo_name(1)),
    ));
}

/// The z window's bound: `mint_z_end`, the end of the `len` planes from `mint_z0` that the
/// thread walks, clipped to the loop's range.
pub fn z_end(b: &mut Builder, len: u32) {
    b.push(Stmt::konst(
        "idx_t",
        "mint_z_end",
        format!("min(mint_z0 + {len}, {})", hi_name(2)),
    ));
}

/// The edge split: `fast` where `cond` holds, else the `edge` path (the loop body per
/// point with device-memory references), under `active` where some threads of the block
/// compute nothing (`} else if (active) {`).
pub fn edge_split(
    b: &mut Builder,
    cond: String,
    fast: Vec<Stmt>,
    active: Option<&str>,
    edge: Vec<Stmt>,
) {
    let edge = match active {
        Some(a) => vec![Stmt::if_(a, edge)],
        None => edge,
    };
    b.push(Stmt::if_else(cond, fast, edge));
}

/// The start of a z step whose planes arrive through a `pipeline` ring, `depth` planes
/// ahead: wait until this step's copies have landed (`landed` says which), meet the block
/// (`freed`: why), issue the copies of the plane `depth` ahead where `ahead` holds (into
/// the slot the previous step freed), and commit them as one group.
pub fn async_step(
    b: &mut Builder,
    depth: i64,
    landed: &str,
    freed: Option<&str>,
    ahead: String,
    copies: impl FnOnce(&mut Builder),
) {
    b.push(Stmt::AsyncWait {
        pending: depth - 1,
        note: Some(landed.into()),
    });
    b.push(Stmt::Barrier {
        note: freed.map(String::from),
    });
    b.if_(ahead, copies);
    b.push(Stmt::AsyncCommit);
}
