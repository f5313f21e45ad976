//! Staging clamped, mirrored and periodic faces (issue #41): a reference whose subscript
//! selects between stencil points is split into a select of references whose subscripts
//! are the loop index plus a constant, which the optimizer stages like any other.
//!
//! `u[[b, y, x]]` with `let b = if z == 0 { z } else { z - 1 };` becomes
//! `if z == 0 { u[[z, y, x]] } else { u[[z - 1, y, x]] }`: on the interior the second arm
//! reads the shared-memory plane (or register) that `u[[z - 1, y, x]]` would, and only the
//! face takes the first. The rewrite is exact, case by case, for integer subscripts:
//!
//! - `if c { a } else { b }` is `a` where `c`, `b` elsewhere;
//! - `min(a, b)` is `a` where `a <= b`, `b` elsewhere; `max` alike; `clamp(x, lo, hi)` is
//!   `min(max(x, lo), hi)`;
//! - `a.saturating_sub(b)` is `a - b` where `a >= b`, and stays itself elsewhere;
//! - `e % n` is `e` where `e < n`, `e - n` where `e < n + n` (which the periodic wrap
//!   `(z + n - 1) % n` turns into `z - 1`), and stays itself elsewhere;
//! - `+`, `-`, `*`, negation and casts distribute over the cases of their operands.
//!
//! `let`-bound index locals are substituted into subscripts first, where that cannot
//! change their value (the local and every name its definition uses are bound once, and
//! loop indices only by their loop). Subscripts that read arrays or call device functions
//! are left alone, as are references with more than [`MAX_CASES`] cases. The pass runs on
//! the kernel as the front end lowered it, before type checking.

use crate::ir::*;
use std::collections::HashMap;

/// The most cases one reference is split into.
pub const MAX_CASES: usize = 8;

/// The kernel with its face references split, and how many were; `None` when none is.
pub fn lift(k: &Kernel) -> Option<(Kernel, usize)> {
    let mut bindings: HashMap<String, (usize, bool)> = HashMap::new();
    k.body.walk_stmts(&mut |s| match &s.kind {
        StmtKind::Let { name, .. } => bindings.entry(name.clone()).or_default().0 += 1,
        StmtKind::For { var, .. } => {
            let b = bindings.entry(var.clone()).or_default();
            b.0 += 1;
            b.1 = true;
        }
        StmtKind::Assign {
            place: Place::Var(v),
            ..
        } => bindings.entry(v.clone()).or_default().0 += 2,
        _ => {}
    });
    let mut l = Lifter {
        bindings,
        scopes: vec![HashMap::new()],
        lifted: 0,
    };
    let body = l.block(&k.body);
    (l.lifted > 0).then(|| {
        let mut out = k.clone();
        out.body = body;
        (out, l.lifted)
    })
}

/// A case of a subscript: the conditions under which it takes the value `value`.
type Case = (Vec<Expr>, Expr);

struct Lifter {
    /// Per name: how often the body binds it (a `let`, a loop; an assignment counts
    /// twice), and whether a loop does.
    bindings: HashMap<String, (usize, bool)>,
    /// The inlinable index locals in scope, with their definitions (already substituted).
    scopes: Vec<HashMap<String, Expr>>,
    lifted: usize,
}

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0)
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

impl Lifter {
    fn local(&self, n: &str) -> Option<&Expr> {
        self.scopes.iter().rev().find_map(|s| s.get(n))
    }

    /// Whether `n`'s value cannot change where the definition using it is substituted.
    fn stable(&self, n: &str) -> bool {
        match self.bindings.get(n) {
            None => true,
            Some(&(1, true)) => true,
            Some(&(1, false)) => self.local(n).is_some(),
            _ => false,
        }
    }

    fn block(&mut self, b: &Block) -> Block {
        self.scopes.push(HashMap::new());
        let stmts = b.stmts.iter().map(|s| self.stmt(s)).collect();
        self.scopes.pop();
        Block { stmts }
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let kind = match &s.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                let init = init.as_ref().map(|i| self.expr(i));
                if let Some(i) = &init
                    && self.bindings.get(name) == Some(&(1, false))
                    && self.indexy(i)
                {
                    let def = self.substitute(i);
                    self.scopes
                        .last_mut()
                        .expect("a scope")
                        .insert(name.clone(), def);
                }
                StmtKind::Let {
                    name: name.clone(),
                    mutable: *mutable,
                    ty: *ty,
                    init,
                }
            }
            StmtKind::Assign { place, op, value } => StmtKind::Assign {
                place: match place {
                    Place::Var(v) => Place::Var(v.clone()),
                    Place::Elem { array, index } => Place::Elem {
                        array: array.clone(),
                        index: index.iter().map(|i| self.expr(i)).collect(),
                    },
                },
                op: *op,
                value: self.expr(value),
            },
            StmtKind::If { cond, then, els } => StmtKind::If {
                cond: self.expr(cond),
                then: self.block(then),
                els: els.as_ref().map(|b| self.block(b)),
            },
            StmtKind::For {
                var,
                ty,
                lo,
                hi,
                inclusive,
                step,
                reverse,
                body,
            } => StmtKind::For {
                var: var.clone(),
                ty: *ty,
                lo: self.expr(lo),
                hi: self.expr(hi),
                inclusive: *inclusive,
                step: step.as_ref().map(|x| self.expr(x)),
                reverse: *reverse,
                body: self.block(body),
            },
            StmtKind::While { cond, body } => StmtKind::While {
                cond: self.expr(cond),
                body: self.block(body),
            },
            StmtKind::Block(b) => StmtKind::Block(self.block(b)),
            k @ (StmtKind::Break | StmtKind::Continue) => k.clone(),
        };
        Stmt { kind, span: s.span }
    }

    /// Whether `x` is an index expression whose substitution is safe: no array reads,
    /// no calls of device functions, and only stable names.
    fn indexy(&self, x: &Expr) -> bool {
        let mut ok = true;
        x.walk(&mut |n| match &n.kind {
            ExprKind::Elem { .. } | ExprKind::Apply { .. } | ExprKind::ArrayRef { .. } => {
                ok = false
            }
            ExprKind::Lit(Lit::Float { .. }) => ok = false,
            ExprKind::Var(v) => ok &= self.stable(v),
            _ => {}
        });
        ok
    }

    /// `x` with the inlinable locals in scope replaced by their definitions.
    fn substitute(&self, x: &Expr) -> Expr {
        let mut y = x.clone();
        y.walk_mut(&mut |n| {
            if let ExprKind::Var(v) = &n.kind
                && let Some(d) = self.local(v)
            {
                let span = n.span;
                *n = d.clone();
                n.span = span;
            }
        });
        y
    }

    /// `x` with every array read whose subscripts have several cases split into them.
    fn expr(&mut self, x: &Expr) -> Expr {
        let mut y = x.clone();
        y.walk_mut(&mut |n| {
            if let ExprKind::Elem { array, index } = &n.kind
                && index.iter().all(|i| self.indexy(i))
                && let Some(sel) = self.split(array, index, n.span)
            {
                *n = sel;
            }
        });
        y
    }

    /// The select over the cases of `array[index]`, when it has more than one.
    fn split(&mut self, array: &str, index: &[Expr], span: SpanId) -> Option<Expr> {
        let mut combos: Vec<(Vec<Expr>, Vec<Expr>)> = vec![(Vec::new(), Vec::new())];
        for i in index {
            let cases = cases(&self.substitute(i))?;
            let mut next = Vec::new();
            for (conds, idx) in &combos {
                for (c, v) in &cases {
                    let mut conds = conds.clone();
                    conds.extend(c.iter().cloned());
                    let mut idx = idx.clone();
                    idx.push(v.clone());
                    next.push((conds, idx));
                }
            }
            if next.len() > MAX_CASES {
                return None;
            }
            combos = next;
        }
        if combos.len() < 2 {
            return None;
        }
        self.lifted += 1;
        let read = |index: Vec<Expr>| {
            Expr::new(
                ExprKind::Elem {
                    array: array.to_string(),
                    index,
                },
                span,
            )
        };
        let mut combos = combos.into_iter().rev();
        let (_, last) = combos.next().expect("two cases");
        let mut out = read(last);
        for (conds, idx) in combos {
            let c = conds
                .into_iter()
                .reduce(|a, b| bin(BinOp::And, a, b))
                .unwrap_or_else(|| e(ExprKind::Lit(Lit::Bool(true))));
            out = Expr::new(
                ExprKind::Select {
                    cond: Box::new(c),
                    then: Box::new(read(idx)),
                    els: Box::new(out),
                },
                span,
            );
        }
        Some(out)
    }
}

/// The cases of an integer subscript, in order: each case's conditions hold only where
/// no earlier case's all do, and the last case holds wherever the others do not.
/// `None` when there are more than [`MAX_CASES`].
fn cases(x: &Expr) -> Option<Vec<Case>> {
    let one = |v: Expr| vec![(Vec::new(), v)];
    let out: Vec<Case> = match &x.kind {
        ExprKind::Select { cond, then, els } => {
            let mut out = guarded(cases(then)?, cond);
            out.extend(guarded(cases(els)?, &not((**cond).clone())));
            out
        }
        ExprKind::Call {
            func: func @ (MathFn::Min | MathFn::Max),
            args,
        } if args.len() == 2 => {
            let op = if *func == MathFn::Min {
                BinOp::Le
            } else {
                BinOp::Ge
            };
            let first = bin(op, args[0].clone(), args[1].clone());
            let mut out = guarded(cases(&args[0])?, &first);
            out.extend(guarded(cases(&args[1])?, &not(first)));
            out
        }
        ExprKind::Call {
            func: MathFn::Clamp,
            args,
        } if args.len() == 3 => {
            let max = e(ExprKind::Call {
                func: MathFn::Max,
                args: vec![args[0].clone(), args[1].clone()],
            });
            let min = e(ExprKind::Call {
                func: MathFn::Min,
                args: vec![max, args[2].clone()],
            });
            cases(&min)?
        }
        ExprKind::Call {
            func: MathFn::SaturatingSub,
            args,
        } if args.len() == 2 => {
            let ge = bin(BinOp::Ge, args[0].clone(), args[1].clone());
            let diff = bin(BinOp::Sub, args[0].clone(), args[1].clone());
            let mut out = guarded(cases(&diff)?, &ge);
            out.push((vec![not(ge)], x.clone()));
            out
        }
        ExprKind::Binary {
            op: BinOp::Rem,
            lhs,
            rhs,
        } if matches!(rhs.kind, ExprKind::Var(_) | ExprKind::Lit(Lit::Int { .. })) => {
            let below = bin(BinOp::Lt, (**lhs).clone(), (**rhs).clone());
            let twice = bin(
                BinOp::Lt,
                (**lhs).clone(),
                bin(BinOp::Add, (**rhs).clone(), (**rhs).clone()),
            );
            let minus = bin(BinOp::Sub, (**lhs).clone(), (**rhs).clone());
            let mut out = guarded(cases(lhs)?, &below);
            out.push((vec![not(below.clone()), twice.clone()], minus));
            out.push((vec![not(below), not(twice)], x.clone()));
            out
        }
        ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) => {
            let (a, b) = (cases(lhs)?, cases(rhs)?);
            if a.len() == 1 && b.len() == 1 {
                return Some(one(x.clone()));
            }
            let mut out = Vec::new();
            for (ca, va) in &a {
                for (cb, vb) in &b {
                    let mut c = ca.clone();
                    c.extend(cb.iter().cloned());
                    out.push((c, bin(*op, va.clone(), vb.clone())));
                }
            }
            out
        }
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        } => cases(expr)?
            .into_iter()
            .map(|(c, v)| {
                (
                    c,
                    e(ExprKind::Unary {
                        op: UnOp::Neg,
                        expr: Box::new(v),
                    }),
                )
            })
            .collect(),
        ExprKind::Cast { expr, to } => cases(expr)?
            .into_iter()
            .map(|(c, v)| {
                (
                    c,
                    e(ExprKind::Cast {
                        expr: Box::new(v),
                        to: *to,
                    }),
                )
            })
            .collect(),
        _ => one(x.clone()),
    };
    (out.len() <= MAX_CASES).then_some(out)
}

/// `cases`, each also under `cond`.
fn guarded(cases: Vec<Case>, cond: &Expr) -> Vec<Case> {
    cases
        .into_iter()
        .map(|(mut c, v)| {
            c.insert(0, cond.clone());
            (c, v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clamped_face_becomes_two_stencil_references() {
        let k = crate::testing::kernel(
            "h_0",
            "arrays: u f64 3, v f64 3
             scalars: nz usize
             nest: z 0..nz, y 1..9, x 1..9
             let b = if z == 0 { z } else { z - 1 };
             v[z][y][x] = u[b][y][x] + u[min(z + 1, nz - 1)][y][x];",
        );
        let (l, n) = lift(&k).expect("lifted");
        assert_eq!(n, 2);
        let refs = crate::analyzer::references(&l);
        let offsets: Vec<Option<[i64; 3]>> = refs
            .iter()
            .filter(|r| r.array == "u")
            .map(|r| r.offset)
            .collect();
        assert_eq!(
            offsets,
            vec![
                Some([0, 0, 0]),
                Some([0, 0, -1]),
                Some([0, 0, 1]),
                None, // `nz - 1`, the face
            ]
        );
    }
}
