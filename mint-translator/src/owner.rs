//! Owner-computes for the CUDA backend on several GPUs: a kernel that cannot be split
//! along the slowest axis (its writes do not follow the outermost parallel index) runs on
//! every device over the whole iteration space, and this IR-to-IR pass makes each access
//! to a distributed array check the planes the device holds and owns.
//!
//! The rules are those of `mint_runtime::decomp::Mode::Owner`, which the CPU backend
//! applies per access in `mint_runtime::cpu` (`MINT_DEVICE=cpu:N`); this pass states them
//! in the kernel language so that the translator prints them into CUDA:
//!
//! - A read of a distributed array at a plane the device does not hold yields zero and
//!   **poisons** the statement (the statement, and later ones of the iteration that use a
//!   value an earlier statement computed, have no effect on this device).
//! - A write to a distributed array takes effect only on the plane's owner; an owned write
//!   from a poisoned statement is a fault (`mint_ow_fault`, which the runtime turns into
//!   `mint::Error::OutsideSlab`).
//! - A write to a replicated array from a poisoned statement does not take effect, unless
//!   the device owns the plane of the iteration's first distributed reference, where it
//!   is a fault.
//! - A `reduction`'s contribution counts on the device owning the plane of the iteration's
//!   first distributed reference (device 0 when the iteration has none); a contribution
//!   from a poisoned iteration on that device is a fault.
//! - A statement of the body's top level starts unpoisoned unless it names a local an
//!   earlier top-level statement binds (the marks the macros insert on the CPU).
//!
//! The lowered kernel has four more `i64` scalars (`mint_ow_held_lo`, `mint_ow_held_hi`,
//! `mint_ow_own_lo`, `mint_ow_own_hi`: the device's planes, half-open), one `bool`
//! (`mint_ow_device0`) and one more array, `mint_ow_fault` (`i64`, [`FAULT_WORDS`]
//! elements: kind, kernel array, read plane, index slowest first), and no on-chip
//! optimizations, which would stage planes the device does not hold.

use crate::ir::*;
use std::collections::HashSet;

/// Elements of the fault record: `[kind, array, read plane, i0, i1, i2]`.
pub const FAULT_WORDS: usize = 6;
/// Fault kinds in word 0 of the fault record.
pub const FAULT_OWNED_WRITE: i64 = 1;
pub const FAULT_REPLICATED_WRITE: i64 = 2;
pub const FAULT_REDUCTION: i64 = 3;
/// A split kernel checked by [`lower_check`] read a plane its device does not hold.
pub const FAULT_SPLIT_READ: i64 = 4;

/// Names of the scalars [`lower_check`] adds, in order: the planes the device holds
/// (`[lo, hi)`) and a ring's planes wrapped around the extent's other end (`[lo, hi)`,
/// empty when there are none).
pub const CHECK_SCALARS: [&str; 4] = [
    "mint_ck_held_lo",
    "mint_ck_held_hi",
    "mint_ck_wrap_lo",
    "mint_ck_wrap_hi",
];

/// Names of the added scalars, in the order they are appended to [`Kernel::scalars`].
pub const SCALARS: [&str; 5] = [
    "mint_ow_held_lo",
    "mint_ow_held_hi",
    "mint_ow_own_lo",
    "mint_ow_own_hi",
    "mint_ow_device0",
];
/// Name of the added fault array (appended to [`Kernel::arrays`]).
pub const FAULT: &str = "mint_ow_fault";

const FIRST: &str = "mint_ow_first";
const POISONED: &str = "mint_ow_poisoned";
const ANY: &str = "mint_ow_any";
const READ_AT: &str = "mint_ow_read_at";
const SAVED: &str = "mint_ow_saved";

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0)
}
fn var(n: &str) -> Expr {
    e(ExprKind::Var(n.into()))
}
fn int(v: i64, ty: ScalarTy) -> Expr {
    let lit = e(ExprKind::Lit(Lit::Int {
        value: v.unsigned_abs() as u128,
        suffix: Some(ty),
    }));
    if v < 0 {
        e(ExprKind::Unary {
            op: UnOp::Neg,
            expr: Box::new(lit),
        })
    } else {
        lit
    }
}
fn boolean(b: bool) -> Expr {
    e(ExprKind::Lit(Lit::Bool(b)))
}
fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary {
        op,
        lhs: Box::new(l),
        rhs: Box::new(r),
    })
}
fn not(x: Expr) -> Expr {
    e(ExprKind::Unary {
        op: UnOp::Not,
        expr: Box::new(x),
    })
}
fn i64_of(x: Expr) -> Expr {
    e(ExprKind::Cast {
        expr: Box::new(x),
        to: ScalarTy::I64,
    })
}
fn s(kind: StmtKind) -> Stmt {
    Stmt { kind, span: 0 }
}
fn set(n: &str, v: Expr) -> Stmt {
    s(StmtKind::Assign {
        place: Place::Var(n.into()),
        op: None,
        value: v,
    })
}
fn when(c: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>) -> Stmt {
    s(StmtKind::If {
        cond: c,
        then: Block { stmts: then },
        els: els.map(|stmts| Block { stmts }),
    })
}
fn let_mut(n: &str, ty: ScalarTy, v: Expr) -> Stmt {
    s(StmtKind::Let {
        name: n.into(),
        mutable: true,
        ty: Some(ty),
        init: Some(v),
    })
}
/// `lo <= z && z < hi` for the plane `z` (an `i64` expression).
fn within(z: &Expr, lo: &str, hi: &str) -> Expr {
    bin(
        BinOp::And,
        bin(BinOp::Ge, z.clone(), var(lo)),
        bin(BinOp::Lt, z.clone(), var(hi)),
    )
}

struct Lower<'a> {
    /// Whether each array (by name) is distributed.
    distributed: &'a HashSet<String>,
    /// [`lower_check`]'s lowering: reads of planes not held are recorded as faults; no
    /// owner-computes.
    check: bool,
    /// Kernel array index by name.
    index_of: Vec<String>,
    elem_of: std::collections::HashMap<String, ScalarTy>,
}

impl Lower<'_> {
    fn is_dist(&self, a: &str) -> bool {
        self.distributed.contains(a)
    }

    /// `e` with every read of a distributed array guarded: zero where the plane is not held.
    fn guard(&self, x: &Expr) -> Expr {
        let mut y = x.clone();
        y.walk_mut(&mut |n| {
            if let ExprKind::Elem { array, index } = &n.kind
                && self.is_dist(array)
                && !index.is_empty()
            {
                let z = i64_of(index[0].clone());
                let ty = self.elem_of[array];
                let zero = e(ExprKind::Cast {
                    expr: Box::new(int(0, ScalarTy::I32)),
                    to: ty,
                });
                let el = n.clone();
                *n = e(ExprKind::Select {
                    cond: Box::new(self.holds(&z)),
                    then: Box::new(el),
                    els: Box::new(zero),
                });
            }
        });
        y
    }

    /// Whether the device holds plane `z`.
    fn holds(&self, z: &Expr) -> Expr {
        if self.check {
            bin(
                BinOp::Or,
                within(z, CHECK_SCALARS[0], CHECK_SCALARS[1]),
                within(z, CHECK_SCALARS[2], CHECK_SCALARS[3]),
            )
        } else {
            within(z, SCALARS[0], SCALARS[1])
        }
    }

    /// Records the iteration's first distributed reference (at plane `z`).
    fn first(&self, z: &Expr, out: &mut Vec<Stmt>) {
        out.push(when(
            bin(BinOp::Lt, var(FIRST), int(0, ScalarTy::I32)),
            vec![set(
                FIRST,
                e(ExprKind::Select {
                    cond: Box::new(within(z, SCALARS[2], SCALARS[3])),
                    then: Box::new(int(1, ScalarTy::I32)),
                    els: Box::new(int(0, ScalarTy::I32)),
                }),
            )],
            None,
        ));
    }

    /// The statements that account for the reads of `x`, in evaluation order.
    fn checks(&self, x: &Expr, out: &mut Vec<Stmt>) {
        match &x.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
            ExprKind::Elem { array, index } => {
                index.iter().for_each(|i| self.checks(i, out));
                if self.is_dist(array) && !index.is_empty() && self.check {
                    let z = i64_of(self.guard(&index[0]));
                    // the first fault only
                    let none = bin(
                        BinOp::Eq,
                        e(ExprKind::Elem {
                            array: FAULT.into(),
                            index: vec![int(0, ScalarTy::Usize)],
                        }),
                        int(0, ScalarTy::I64),
                    );
                    out.push(when(
                        bin(BinOp::And, not(self.holds(&z)), none),
                        vec![self.fault(FAULT_SPLIT_READ, array, index)],
                        None,
                    ));
                } else if self.is_dist(array) && !index.is_empty() {
                    let z = i64_of(self.guard(&index[0]));
                    self.first(&z, out);
                    out.push(when(
                        not(within(&z, SCALARS[0], SCALARS[1])),
                        vec![
                            set(POISONED, boolean(true)),
                            set(ANY, boolean(true)),
                            when(
                                bin(BinOp::Lt, var(READ_AT), int(0, ScalarTy::I64)),
                                vec![set(READ_AT, z.clone())],
                                None,
                            ),
                        ],
                        None,
                    ));
                }
            }
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => self.checks(expr, out),
            ExprKind::Binary { op, lhs, rhs } => {
                self.checks(lhs, out);
                let mut r = Vec::new();
                self.checks(rhs, &mut r);
                if r.is_empty() {
                    return;
                }
                match op {
                    BinOp::And => out.push(when(self.guard(lhs), r, None)),
                    BinOp::Or => out.push(when(not(self.guard(lhs)), r, None)),
                    _ => out.extend(r),
                }
            }
            ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => {
                args.iter().for_each(|a| self.checks(a, out))
            }
            ExprKind::Select { cond, then, els } => {
                self.checks(cond, out);
                let (mut t, mut f) = (Vec::new(), Vec::new());
                self.checks(then, &mut t);
                self.checks(els, &mut f);
                if !t.is_empty() || !f.is_empty() {
                    out.push(when(self.guard(cond), t, Some(f)));
                }
            }
        }
    }

    fn fault(&self, kind: i64, array: &str, index: &[Expr]) -> Stmt {
        let mut stmts = Vec::new();
        let put = |i: i64, v: Expr| {
            s(StmtKind::Assign {
                place: Place::Elem {
                    array: FAULT.into(),
                    index: vec![int(i, ScalarTy::Usize)],
                },
                op: None,
                value: v,
            })
        };
        stmts.push(put(0, int(kind, ScalarTy::I64)));
        let ai = self.index_of.iter().position(|n| n == array).unwrap_or(0);
        stmts.push(put(1, int(ai as i64, ScalarTy::I64)));
        stmts.push(put(
            2,
            if self.check {
                index
                    .first()
                    .map_or(int(-1, ScalarTy::I64), |z| i64_of(self.guard(z)))
            } else {
                var(READ_AT)
            },
        ));
        for (k, i) in index.iter().take(3).enumerate() {
            stmts.push(put(3 + k as i64, i64_of(self.guard(i))));
        }
        s(StmtKind::Block(Block { stmts }))
    }

    fn block(&self, b: &Block) -> Block {
        let mut out = Vec::new();
        for st in &b.stmts {
            self.stmt(st, &mut out);
        }
        Block { stmts: out }
    }

    /// An assignment's checks and guarded indices; a write to an element is kept only
    /// where the running device owns it (owner-computes), and a poisoned write faults.
    fn assign(
        &self,
        st: &Stmt,
        (place, op, value): (&Place, Option<BinOp>, &Expr),
        out: &mut Vec<Stmt>,
    ) {
        self.checks(value, out);
        let (array, index) = match place {
            Place::Var(_) => {
                out.push(Stmt {
                    kind: StmtKind::Assign {
                        place: place.clone(),
                        op,
                        value: self.guard(value),
                    },
                    span: st.span,
                });
                return;
            }
            Place::Elem { array, index } => (array, index),
        };
        index.iter().for_each(|i| self.checks(i, out));
        let write = Stmt {
            kind: StmtKind::Assign {
                place: Place::Elem {
                    array: array.clone(),
                    index: index.iter().map(|i| self.guard(i)).collect(),
                },
                op,
                value: self.guard(value),
            },
            span: st.span,
        };
        if self.check {
            // a split kernel's writes land in owned planes (the loop is clipped)
            out.push(write);
            return;
        }
        if self.is_dist(array) && !index.is_empty() {
            let z = i64_of(self.guard(&index[0]));
            self.first(&z, out);
            out.push(when(
                within(&z, SCALARS[2], SCALARS[3]),
                vec![when(
                    var(POISONED),
                    vec![self.fault(FAULT_OWNED_WRITE, array, index)],
                    Some(vec![write]),
                )],
                None,
            ));
        } else {
            out.push(when(
                var(POISONED),
                vec![when(
                    bin(BinOp::Eq, var(FIRST), int(1, ScalarTy::I32)),
                    vec![self.fault(FAULT_REPLICATED_WRITE, array, index)],
                    None,
                )],
                Some(vec![write]),
            ));
        }
    }

    fn stmt(&self, st: &Stmt, out: &mut Vec<Stmt>) {
        match &st.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                if let Some(i) = init {
                    self.checks(i, out);
                }
                out.push(Stmt {
                    kind: StmtKind::Let {
                        name: name.clone(),
                        mutable: *mutable,
                        ty: *ty,
                        init: init.as_ref().map(|i| self.guard(i)),
                    },
                    span: st.span,
                });
            }
            StmtKind::Assign { place, op, value } => self.assign(st, (place, *op, value), out),
            StmtKind::If { cond, then, els } => {
                self.checks(cond, out);
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: self.guard(cond),
                        then: self.block(then),
                        els: els.as_ref().map(|b| self.block(b)),
                    },
                    span: st.span,
                });
            }
            StmtKind::For {
                var: v,
                ty,
                lo,
                hi,
                inclusive,
                step,
                reverse,
                body,
            } => {
                self.checks(lo, out);
                self.checks(hi, out);
                if let Some(x) = step {
                    self.checks(x, out);
                }
                out.push(Stmt {
                    kind: StmtKind::For {
                        var: v.clone(),
                        ty: *ty,
                        lo: self.guard(lo),
                        hi: self.guard(hi),
                        inclusive: *inclusive,
                        step: step.as_ref().map(|x| self.guard(x)),
                        reverse: *reverse,
                        body: self.block(body),
                    },
                    span: st.span,
                });
            }
            StmtKind::While { cond, body } => {
                // the condition's reads are accounted before the loop and after each pass
                self.checks(cond, out);
                let mut b = self.block(body);
                self.checks(cond, &mut b.stmts);
                out.push(Stmt {
                    kind: StmtKind::While {
                        cond: self.guard(cond),
                        body: b,
                    },
                    span: st.span,
                });
            }
            StmtKind::Block(b) => out.push(Stmt {
                kind: StmtKind::Block(self.block(b)),
                span: st.span,
            }),
            StmtKind::Break | StmtKind::Continue => out.push(st.clone()),
        }
    }
}

/// The names a statement binds (lets, loop variables, assigned locals), nested ones
/// included, and the names it uses.
fn bound_and_used(st: &Stmt, bound: &mut HashSet<String>, used: &mut HashSet<String>) {
    let one = Block {
        stmts: vec![st.clone()],
    };
    one.walk_stmts(&mut |x| match &x.kind {
        StmtKind::Let { name, .. } => {
            bound.insert(name.clone());
        }
        StmtKind::For { var, .. } => {
            bound.insert(var.clone());
        }
        StmtKind::Assign {
            place: Place::Var(n),
            ..
        } => {
            bound.insert(n.clone());
            used.insert(n.clone());
        }
        _ => {}
    });
    one.walk_exprs(&mut |x| {
        if let ExprKind::Var(n) = &x.kind {
            used.insert(n.clone());
        }
    });
}

/// Lowers `k` for owner-computes on one of several devices: `distributed[i]` says whether
/// the kernel's array `i` is split into slabs. See the module documentation.
pub fn lower(k: &Kernel, distributed: &[bool]) -> Kernel {
    let dist: HashSet<String> = k
        .arrays
        .iter()
        .zip(distributed)
        .filter(|(_, d)| **d)
        .map(|(a, _)| a.name.clone())
        .collect();
    let l = Lower {
        distributed: &dist,
        check: false,
        index_of: k.arrays.iter().map(|a| a.name.clone()).collect(),
        elem_of: k.arrays.iter().map(|a| (a.name.clone(), a.elem)).collect(),
    };
    let mut body = vec![
        let_mut(FIRST, ScalarTy::I32, int(-1, ScalarTy::I32)),
        let_mut(POISONED, ScalarTy::Bool, boolean(false)),
        let_mut(ANY, ScalarTy::Bool, boolean(false)),
        let_mut(READ_AT, ScalarTy::I64, int(-1, ScalarTy::I64)),
    ];
    let red = k.reduction.as_ref().filter(|_| !k.is_single());
    if let Some(r) = red {
        body.push(s(StmtKind::Let {
            name: SAVED.into(),
            mutable: false,
            ty: r.ty,
            init: Some(var(&r.var)),
        }));
    }
    let mut bound = HashSet::new();
    for (i, st) in k.body.stmts.iter().enumerate() {
        let (mut b, mut used) = (HashSet::new(), HashSet::new());
        bound_and_used(st, &mut b, &mut used);
        if i > 0 && used.is_disjoint(&bound) {
            body.push(set(POISONED, boolean(false)));
        }
        bound.extend(b);
        l.stmt(st, &mut body);
    }
    if let Some(r) = red {
        // the device that counts the iteration
        let mine = e(ExprKind::Select {
            cond: Box::new(bin(BinOp::Lt, var(FIRST), int(0, ScalarTy::I32))),
            then: Box::new(var(SCALARS[4])),
            els: Box::new(bin(BinOp::Eq, var(FIRST), int(1, ScalarTy::I32))),
        });
        body.push(when(
            mine,
            vec![when(
                var(ANY),
                vec![l.fault(FAULT_REDUCTION, "", &[])],
                None,
            )],
            Some(vec![set(&r.var, var(SAVED))]),
        ));
    }
    let mut out = k.clone();
    out.body = Block { stmts: body };
    for (i, n) in SCALARS.iter().enumerate() {
        out.scalars.push(ScalarParam {
            name: (*n).into(),
            ty: Some(if i == 4 {
                ScalarTy::Bool
            } else {
                ScalarTy::I64
            }),
            span: 0,
        });
    }
    out.arrays.push(ArrayParam {
        name: FAULT.into(),
        elem: ScalarTy::I64,
        elem_at_launch: false,
        ndim: 1,
        read: false,
        written: true,
        span: 0,
    });
    out.options = OptOptions::default();
    out
}

/// Lowers a kernel that runs split on one of several devices (`MINT_CHECK=1`): every read
/// of a distributed array checks its plane against those the device holds
/// ([`CHECK_SCALARS`]); the first read outside them is recorded in the fault record
/// ([`FAULT`], kind [`FAULT_SPLIT_READ`]: array, plane, index) and reads zero instead of
/// memory the device does not hold. Everything else is the kernel as written, so a
/// decomposition that holds what its kernels read computes the same results. This is the
/// GPU's counterpart of the CPU backend's checked views (`mint_runtime::cpu`).
pub fn lower_check(k: &Kernel, distributed: &[bool]) -> Kernel {
    let dist: HashSet<String> = k
        .arrays
        .iter()
        .zip(distributed)
        .filter(|(_, d)| **d)
        .map(|(a, _)| a.name.clone())
        .collect();
    let l = Lower {
        distributed: &dist,
        check: true,
        index_of: k.arrays.iter().map(|a| a.name.clone()).collect(),
        elem_of: k.arrays.iter().map(|a| (a.name.clone(), a.elem)).collect(),
    };
    let mut out = k.clone();
    out.body = l.block(&k.body);
    for n in CHECK_SCALARS {
        out.scalars.push(ScalarParam {
            name: n.into(),
            ty: Some(ScalarTy::I64),
            span: 0,
        });
    }
    out.arrays.push(ArrayParam {
        name: FAULT.into(),
        elem: ScalarTy::I64,
        elem_at_launch: false,
        ndim: 1,
        read: true,
        written: true,
        span: 0,
    });
    out.options = OptOptions::default();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::kernel;

    fn target() -> crate::Target {
        crate::Target::default()
    }

    #[test]
    fn lowered_kernels_translate_and_guard_every_distributed_access() {
        // a boundary condition (no parallel index along z), an indirect source and a
        // reduction over a plane
        for (name, text, dist) in [
            (
                "bc",
                "arrays: u f64 3
                 nest: y 1..9, x 1..9
                 u[0][y][x] = u[1][y][x] + u[2][y][x];",
                vec![true],
            ),
            (
                "src",
                "arrays: u f64 3, k usize 1, amp f64 1
                 nest: s 0..4
                 u[k[s]][2][3] += amp[s];",
                vec![true, false, false],
            ),
            (
                "sum",
                "arrays: u f32 3
                 nest: y 0..9, x 0..9
                 reduction: +: total
                 total += u[5][y][x] * 2.0;",
                vec![true],
            ),
        ] {
            let k = kernel(name, text);
            let low = lower(&k, &dist);
            assert_eq!(low.scalars.len(), k.scalars.len() + SCALARS.len());
            assert_eq!(low.arrays.last().unwrap().name, FAULT);
            let t = crate::translate(&low, &target()).unwrap_or_else(|d| panic!("{name}: {d:?}"));
            assert!(t.source.contains("mint_ow_held_lo"), "{name}");
            assert!(t.source.contains("mint_ow_fault"), "{name}");
        }
    }
}
