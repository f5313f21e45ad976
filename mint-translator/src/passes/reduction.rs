//! A kernel's reduction (thesis Sec. 4.2; reductions beyond `+`): each thread accumulates
//! its points' values from the operator's identity, the block combines its threads'
//! values in a fixed tree order into one partial per block, and a second kernel in the
//! same module (the finish kernel, [`FINISH_THREADS`] threads) combines the partials in a
//! fixed order, so the result does not depend on the order the blocks ran in.
//!
//! The lowerings that take reductions (the baseline and the staged kernel) leave a
//! [`Hook::Accumulator`] before the thread's first point (`emit::cuda::accumulator`) and
//! end with its last; this pass declares the accumulator at the hook, appends the block's
//! combination, and adds the finish kernel (`emit::cuda::finish_entry`).

use super::{Context, kernel_fn};
use crate::baseline::config::LaunchConfig;
use crate::emit::cexpr::{red_combine, red_identity};
use crate::emit::cuda::finish_entry;
use crate::emit::names::c_ident;
use crate::ir::{RedOp, Reduction, ScalarTy};
use crate::kir::visit::fill_hook;
use crate::kir::{Builder, Function, Hook, LaunchBounds, Loop, LoopRole, Module, Shared, Stmt};

/// Adds the reduction of a kernel that has one: its accumulator, the block's combination
/// and the finish kernel.
pub fn run(m: &mut Module, cx: &Context) {
    let Some(r) = &cx.kernel().reduction else {
        return;
    };
    let t = r.ty.unwrap_or(ScalarTy::F64);
    // the reduction variable is a kernel scalar: its C name is fixed (`Names::fixed`)
    let acc = c_ident(&r.var);
    let f = kernel_fn(m);
    let decl = Stmt::var(t.cuda_name(), acc.clone(), red_identity(r.op, t));
    let filled = fill_hook(&mut f.body, Hook::Accumulator, vec![decl]);
    assert!(
        filled,
        "a lowering that takes reductions leaves a hook for the accumulator"
    );
    f.body.extend(epilogue(r, t, &acc, cx.cfg));
    let finish = finish_kernel(&finish_entry(&f.entry), r.op, t);
    m.functions.push(finish);
}

/// The reduction's epilogue: the block's values combined in a fixed tree order, one
/// partial per block (deterministic; the finish kernel combines the partials), written to
/// the slot of the block's tile.
fn epilogue(r: &Reduction, t: ScalarTy, acc: &str, cfg: &LaunchConfig) -> Vec<Stmt> {
    let mut b = Builder::new();
    let nt = cfg.threads();
    let [bx, by, _] = cfg.block;
    b.comment(format!(
        "reduction({}: {}): the block's values are combined in a fixed order",
        r.op.symbol(),
        r.var
    ));
    b.push(Stmt::Shared(Shared {
        ty: t.cuda_name().into(),
        name: "mint_red".into(),
        dims: vec![nt],
        align: None,
    }));
    b.push(Stmt::konst(
        "int",
        "mint_tid",
        format!("threadIdx.x + {bx} * (threadIdx.y + {by} * threadIdx.z)"),
    ));
    b.push(Stmt::assign("mint_red[mint_tid]", acc));
    b.push(Stmt::Barrier { note: None });
    let half = nt.next_power_of_two() / 2;
    if half > 0 {
        let l = Loop::new(
            LoopRole::Reduction,
            format!("int mint_s = {half}"),
            "mint_s > 0",
            "mint_s >>= 1",
        );
        b.for_(l, |b| {
            b.push(Stmt::if_line(
                format!("mint_tid < mint_s && mint_tid + mint_s < {nt}"),
                Stmt::assign(
                    "mint_red[mint_tid]",
                    red_combine(r.op, t, "mint_red[mint_tid]", "mint_red[mint_tid + mint_s]"),
                ),
            ));
            b.push(Stmt::Barrier { note: None });
        });
    }
    // a block's partial goes to the slot of its tile, whatever order the blocks run in
    // (`swizzle` renames the block indices)
    let slot = "mint_partials[blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z)]";
    b.push(Stmt::if_line(
        "mint_tid == 0",
        Stmt::assign(slot, "mint_red[0]"),
    ));
    b.finish()
}

/// Threads of the finish kernel that combines per-block partials.
pub const FINISH_THREADS: u32 = 256;

/// The finish kernel: one block combines `mint_n` partials in a fixed order.
fn finish_kernel(entry: &str, op: RedOp, t: ScalarTy) -> Function {
    let c = t.cuda_name();
    let n = FINISH_THREADS;
    let comb = |a: &str, b: &str| red_combine(op, t, a, b);
    let mut acc = Loop::new(
        LoopRole::Plain,
        "unsigned long long i = threadIdx.x",
        "i < mint_n",
        format!("i += {n}"),
    );
    acc.body = vec![Stmt::assign(
        "mint_acc",
        comb("mint_acc", "mint_partials[i]"),
    )];
    acc.inline = true;
    let mut tree = Loop::new(
        LoopRole::Reduction,
        format!("int mint_s = {}", n / 2),
        "mint_s > 0",
        "mint_s >>= 1",
    );
    tree.body = vec![
        Stmt::if_line(
            "threadIdx.x < mint_s",
            Stmt::assign(
                "mint_red[threadIdx.x]",
                comb("mint_red[threadIdx.x]", "mint_red[threadIdx.x + mint_s]"),
            ),
        ),
        Stmt::Barrier { note: None },
    ];
    Function {
        entry: entry.into(),
        bounds: Some(LaunchBounds {
            threads: n,
            min_blocks: None,
        }),
        params: vec![
            (format!("const {c}* __restrict__"), "mint_partials".into()),
            ("const unsigned long long".into(), "mint_n".into()),
            (format!("{c}* __restrict__"), "mint_out".into()),
        ],
        close_on_last: true,
        body: vec![
            Stmt::Shared(Shared {
                ty: c.into(),
                name: "mint_red".into(),
                dims: vec![n],
                align: None,
            }),
            Stmt::var(c, "mint_acc", red_identity(op, t)),
            Stmt::Loop(acc),
            Stmt::assign("mint_red[threadIdx.x]", "mint_acc"),
            Stmt::Barrier { note: None },
            Stmt::Loop(tree),
            Stmt::if_line(
                "threadIdx.x == 0",
                Stmt::assign("mint_out[0]", "mint_red[0]"),
            ),
        ],
    }
}
