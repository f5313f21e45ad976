//! Unrolling short loops and folding constants (thesis Sec. 5.4, option `unroll`).
//!
//! A serial loop whose bounds differ by a constant, like the Harris window
//! `for l in i - 2..=i + 2` (Table 7.6), is unrolled completely; its index is replaced by
//! `i + c` in each copy, and integer subscripts are folded to the form `i ± c` (or a
//! constant), so that the stencil analyzer sees the stencil.

use crate::analyzer::refs::{Linear, linear};
use crate::ir::*;

/// Loops with more iterations than this stay loops.
pub const MAX_TRIP: i64 = 16;

/// Unrolls every short constant-trip serial loop of `k` and folds its subscripts.
/// Returns the number of loops unrolled.
pub fn unroll(k: &mut Kernel) -> usize {
    let mut n = 0;
    unroll_block(&mut k.body, &mut n);
    fold_block(&mut k.body);
    n
}

fn trip(lo: &Expr, hi: &Expr, inclusive: bool) -> Option<i64> {
    let d = linear(hi)?.add_neg(&linear(lo)?)?;
    let t = d + inclusive as i64;
    (0..=MAX_TRIP).contains(&t).then_some(t)
}

trait LinearExt {
    fn add_neg(&self, o: &Linear) -> Option<i64>;
}
impl LinearExt for Linear {
    /// `self - o` if it is a constant.
    fn add_neg(&self, o: &Linear) -> Option<i64> {
        (self.coeffs == o.coeffs).then(|| self.constant - o.constant)
    }
}

fn binds(b: &Block, name: &str) -> bool {
    let mut found = false;
    b.walk_stmts(&mut |s| {
        if let StmtKind::Let { name: n, .. } | StmtKind::For { var: n, .. } = &s.kind {
            found |= n == name;
        }
    });
    found
}

fn unroll_block(b: &mut Block, n: &mut usize) {
    for s in &mut b.stmts {
        // inner loops first
        match &mut s.kind {
            StmtKind::If { then, els, .. } => {
                unroll_block(then, n);
                if let Some(e) = els {
                    unroll_block(e, n);
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => unroll_block(body, n),
            StmtKind::Block(b) => unroll_block(b, n),
            _ => {}
        }
        let replacement = match &s.kind {
            StmtKind::For {
                var,
                ty,
                lo,
                hi,
                inclusive,
                step: None,
                reverse: false,
                body,
            } if !binds(body, var) && !has_break(body) => trip(lo, hi, *inclusive).map(|t| {
                let ty = ty.unwrap_or(ScalarTy::Usize);
                let copies = (0..t)
                    .map(|c| {
                        let mut copy = body.clone();
                        let value = offset_expr(lo, c, ty, s.span);
                        substitute(&mut copy, var, &value);
                        Stmt {
                            kind: StmtKind::Block(copy),
                            span: s.span,
                        }
                    })
                    .collect();
                StmtKind::Block(Block { stmts: copies })
            }),
            _ => None,
        };
        if let Some(r) = replacement {
            s.kind = r;
            *n += 1;
        }
    }
}

fn has_break(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If { then, els, .. } => has_break(then) || els.as_ref().is_some_and(has_break),
        StmtKind::Block(b) => has_break(b),
        _ => false,
    })
}

/// `lo + c` as a typed expression.
fn offset_expr(lo: &Expr, c: i64, ty: ScalarTy, span: SpanId) -> Expr {
    let lit = |v: i64| Expr {
        kind: ExprKind::Lit(Lit::Int {
            value: v.unsigned_abs() as u128,
            suffix: None,
        }),
        ty: Some(ty),
        span,
    };
    if c == 0 {
        return lo.clone();
    }
    Expr {
        kind: ExprKind::Binary {
            op: if c > 0 { BinOp::Add } else { BinOp::Sub },
            lhs: Box::new(lo.clone()),
            rhs: Box::new(lit(c)),
        },
        ty: Some(ty),
        span,
    }
}

fn substitute(b: &mut Block, var: &str, value: &Expr) {
    b.walk_exprs_mut(&mut |e| {
        if matches!(&e.kind, ExprKind::Var(v) if v == var) {
            *e = value.clone();
        }
    });
}

/// Rewrites integer expressions that are `v ± c` or constant in canonical form.
fn fold_block(b: &mut Block) {
    b.walk_exprs_mut(&mut |e| {
        let Some(ty) = e.ty else { return };
        if !ty.is_int() || matches!(e.kind, ExprKind::Var(_) | ExprKind::Lit(_)) {
            return;
        }
        let Some(l) = linear(e) else { return };
        let span = e.span;
        let lit = |v: i64| Expr {
            kind: ExprKind::Lit(Lit::Int {
                value: v.unsigned_abs() as u128,
                suffix: None,
            }),
            ty: Some(ty),
            span,
        };
        if let Some(c) = l.as_const() {
            *e = if c >= 0 {
                lit(c)
            } else {
                Expr {
                    kind: ExprKind::Unary {
                        op: UnOp::Neg,
                        expr: Box::new(lit(c)),
                    },
                    ty: Some(ty),
                    span,
                }
            };
        } else if l.coeffs.len() == 1 && *l.coeffs.values().next().unwrap() == 1 {
            let v = l.coeffs.keys().next().unwrap().clone();
            let var = Expr {
                kind: ExprKind::Var(v),
                ty: Some(ty),
                span,
            };
            *e = match l.constant {
                0 => var,
                c => Expr {
                    kind: ExprKind::Binary {
                        op: if c > 0 { BinOp::Add } else { BinOp::Sub },
                        lhs: Box::new(var),
                        rhs: Box::new(lit(c)),
                    },
                    ty: Some(ty),
                    span,
                },
            };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::kernel;

    #[test]
    fn window_loops_unroll_to_offsets_of_the_parallel_index() {
        let mut k = kernel(
            "w_0",
            "arrays: d f32 2, w f32 2, o f32 2
             nest: i 2..n, j 2..m
             let mut s = 0.0f32;
             for l in i - 1..=i + 1 {
                 for m in j - 1..=j + 1 {
                     s += w[l - i + 1][m - j + 1] * d[l][m + 1];
                 }
             }
             o[i][j] = s;",
        );
        crate::typeck::check(&mut k).unwrap();
        assert_eq!(
            unroll(&mut k),
            2,
            "the inner loop, then the outer loop with it inside"
        );
        let refs = crate::analyzer::references(&k);
        let d: Vec<_> = refs
            .iter()
            .filter(|r| r.array == "d")
            .filter_map(|r| r.offset)
            .collect();
        assert_eq!(d.len(), 9);
        assert!(d.contains(&[2, -1, 0]) && d.contains(&[0, 1, 0]));
        // weights are read at constant subscripts
        let w: Vec<_> = refs.iter().filter(|r| r.array == "w").collect();
        assert_eq!(w.len(), 9);
        assert!(w.iter().all(|r| r.offset.is_none()));
    }

    #[test]
    fn long_or_variable_loops_stay_loops() {
        let mut k = kernel(
            "w_1",
            "arrays: d f64 1
             nest: i 0..n
             let mut s = 0.0;
             for l in 0..100 { s += d[l]; }
             for l in 0..i { s += d[l]; }
             d[i] = s;",
        );
        crate::typeck::check(&mut k).unwrap();
        assert_eq!(unroll(&mut k), 0);
    }
}
