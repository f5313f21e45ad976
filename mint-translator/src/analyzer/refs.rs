//! Array reference lists (thesis Sec. 5.3.1): every element reference of the kernel
//! body, grouped by array, with its offsets from the thread's point when its subscripts
//! are of the form `index ± constant`.

use crate::ir::*;
use std::collections::BTreeMap;

/// A linear form `Σ coeff·var + constant` of an integer expression.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linear {
    pub coeffs: BTreeMap<String, i64>,
    pub constant: i64,
}

impl Linear {
    fn add(mut self, o: Linear, sign: i64) -> Linear {
        for (v, c) in o.coeffs {
            *self.coeffs.entry(v).or_insert(0) += sign * c;
        }
        self.coeffs.retain(|_, c| *c != 0);
        self.constant += sign * o.constant;
        self
    }
    fn scale(mut self, k: i64) -> Linear {
        for c in self.coeffs.values_mut() {
            *c *= k;
        }
        self.coeffs.retain(|_, c| *c != 0);
        self.constant *= k;
        self
    }
    /// `Some(c)` if the form is exactly `var + c`.
    pub fn offset_of(&self, var: &str) -> Option<i64> {
        (self.coeffs.len() == 1 && self.coeffs.get(var) == Some(&1)).then_some(self.constant)
    }
    /// `Some(c)` if the form is the constant `c`.
    pub fn as_const(&self) -> Option<i64> {
        self.coeffs.is_empty().then_some(self.constant)
    }
}

/// The linear form of an integer expression, if it is one (variables, integer literals,
/// `+`, `-`, unary `-`, and multiplication by a constant).
pub fn linear(e: &Expr) -> Option<Linear> {
    match &e.kind {
        ExprKind::Var(v) => Some(Linear {
            coeffs: BTreeMap::from([(v.clone(), 1)]),
            constant: 0,
        }),
        ExprKind::Lit(Lit::Int { value, .. }) => Some(Linear {
            coeffs: BTreeMap::new(),
            constant: i64::try_from(*value).ok()?,
        }),
        ExprKind::Unary {
            op: UnOp::Neg,
            expr,
        } => Some(linear(expr)?.scale(-1)),
        ExprKind::Binary { op, lhs, rhs } => {
            let (l, r) = (linear(lhs)?, linear(rhs)?);
            match op {
                BinOp::Add => Some(l.add(r, 1)),
                BinOp::Sub => Some(l.add(r, -1)),
                BinOp::Mul => match (l.as_const(), r.as_const()) {
                    (Some(k), _) => Some(r.scale(k)),
                    (_, Some(k)) => Some(l.scale(k)),
                    _ => None,
                },
                // constants only (`W / 2` of a window): integer division and remainder
                // truncate as in Rust and CUDA
                BinOp::Div | BinOp::Rem => {
                    let (a, b) = (l.as_const()?, r.as_const()?);
                    let c = if *op == BinOp::Div {
                        a.checked_div(b)?
                    } else {
                        a.checked_rem(b)?
                    };
                    Some(Linear {
                        coeffs: BTreeMap::new(),
                        constant: c,
                    })
                }
                _ => None,
            }
        }
        // a cast to a type of 32 bits or more keeps an index's value (no array is 2^31
        // elements along an axis); a narrower one may wrap it (`(x + 200) as u8`)
        ExprKind::Cast { expr, to } if to.is_int() && !to.is_narrow() => linear(expr),
        _ => None,
    }
}

/// One reference to an array element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    pub array: String,
    /// Offsets `[dx, dy, dz]` from the thread's point, when every subscript is the
    /// parallel index of its axis plus a constant. Axes the array does not have are 0.
    pub offset: Option<[i64; 3]>,
    pub write: bool,
    /// Inside an `if`, a loop or a conditional expression.
    pub conditional: bool,
    /// Position in program order.
    pub order: usize,
}

/// Every array reference of `k`'s body, in program order.
pub fn references(k: &Kernel) -> Vec<Ref> {
    let mut out = Vec::new();
    let mut order = 0;
    collect_block(k, &k.body, false, &mut order, &mut out);
    out
}

/// Offsets `[dx, dy, dz]` of `array[index]` from the thread's point, when every subscript
/// is the parallel index of its axis plus a constant and the array has one dimension per
/// parallel loop.
pub fn stencil_offset(k: &Kernel, array: &str, index: &[Expr]) -> Option<[i64; 3]> {
    let a = k.array(array)?;
    let n = k.nest.len();
    if a.ndim as usize != n || index.len() != n {
        return None;
    }
    let mut off = [0i64; 3];
    for (d, e) in index.iter().enumerate() {
        let axis = n - 1 - d;
        let var = k.axis_var(axis)?;
        off[axis] = linear(e)?.offset_of(var)?;
    }
    Some(off)
}

fn collect_expr(k: &Kernel, e: &Expr, cond: bool, order: &mut usize, out: &mut Vec<Ref>) {
    match &e.kind {
        ExprKind::Elem { array, index } => {
            for i in index {
                collect_expr(k, i, cond, order, out);
            }
            out.push(Ref {
                array: array.clone(),
                offset: stencil_offset(k, array, index),
                write: false,
                conditional: cond,
                order: *order,
            });
            *order += 1;
        }
        ExprKind::Select { cond: c, then, els } => {
            collect_expr(k, c, cond, order, out);
            collect_expr(k, then, true, order, out);
            collect_expr(k, els, true, order, out);
        }
        ExprKind::Binary {
            op: BinOp::And | BinOp::Or,
            lhs,
            rhs,
        } => {
            collect_expr(k, lhs, cond, order, out);
            collect_expr(k, rhs, true, order, out);
        }
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => {
            collect_expr(k, expr, cond, order, out)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_expr(k, lhs, cond, order, out);
            collect_expr(k, rhs, cond, order, out);
        }
        ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => args
            .iter()
            .for_each(|a| collect_expr(k, a, cond, order, out)),
        ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
    }
}

fn collect_block(k: &Kernel, b: &Block, cond: bool, order: &mut usize, out: &mut Vec<Ref>) {
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    collect_expr(k, e, cond, order, out);
                }
            }
            StmtKind::Assign { place, op, value } => {
                collect_expr(k, value, cond, order, out);
                if let Place::Elem { array, index } = place {
                    for i in index {
                        collect_expr(k, i, cond, order, out);
                    }
                    let offset = stencil_offset(k, array, index);
                    if op.is_some() {
                        out.push(Ref {
                            array: array.clone(),
                            offset,
                            write: false,
                            conditional: cond,
                            order: *order,
                        });
                        *order += 1;
                    }
                    out.push(Ref {
                        array: array.clone(),
                        offset,
                        write: true,
                        conditional: cond,
                        order: *order,
                    });
                    *order += 1;
                }
            }
            StmtKind::If { cond: c, then, els } => {
                collect_expr(k, c, cond, order, out);
                collect_block(k, then, true, order, out);
                if let Some(e) = els {
                    collect_block(k, e, true, order, out);
                }
            }
            StmtKind::For {
                lo, hi, step, body, ..
            } => {
                collect_expr(k, lo, cond, order, out);
                collect_expr(k, hi, cond, order, out);
                if let Some(st) = step {
                    collect_expr(k, st, cond, order, out);
                }
                collect_block(k, body, true, order, out);
            }
            StmtKind::While { cond: c, body } => {
                collect_expr(k, c, true, order, out);
                collect_block(k, body, true, order, out);
            }
            StmtKind::Block(b) => collect_block(k, b, cond, order, out),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{kernel, parse_expr};

    #[test]
    fn linear_forms() {
        let l = linear(&parse_expr("x - 1 + 3")).unwrap();
        assert_eq!(l.offset_of("x"), Some(2));
        let l = linear(&parse_expr("(i + 2) - i + 2")).unwrap();
        assert_eq!(l.as_const(), Some(4));
        assert!(linear(&parse_expr("x * y")).is_none());
        // constant division and remainder fold; a variable divided does not
        assert_eq!(
            linear(&parse_expr("x - 5 / 2 + 1")).unwrap().offset_of("x"),
            Some(-1)
        );
        assert_eq!(
            linear(&parse_expr("7 % 4 + x")).unwrap().offset_of("x"),
            Some(3)
        );
        assert!(linear(&parse_expr("x / 2")).is_none());
        assert!(linear(&parse_expr("x + 1 / 0")).is_none());
        assert_eq!(
            linear(&parse_expr("2 * (x + 1) - x"))
                .unwrap()
                .offset_of("x"),
            Some(2)
        );
    }

    #[test]
    fn offsets_follow_the_axes() {
        let k = kernel(
            "r_0",
            "arrays: u f64 3, v f64 3
             nest: z 1..n, y 1..n, x 1..n
             v[z][y][x] = u[z+1][y][x-2] + u[z][y][0] + u[y][z][x];",
        );
        let r = references(&k);
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].offset, Some([-2, 0, 1]));
        assert_eq!(
            r[1].offset, None,
            "a constant subscript is not a stencil reference"
        );
        assert_eq!(
            r[2].offset, None,
            "transposed subscripts are not a stencil reference"
        );
        assert!(r[3].write && r[3].offset == Some([0, 0, 0]));
    }

    #[test]
    fn a_narrowing_cast_is_not_an_offset() {
        let k = kernel(
            "r_0",
            "arrays: u f64 3, v f64 3
             nest: z 1..n, y 1..n, x 1..n
             v[z][y][x] = u[z][y][((x + 200) as u8) as usize] + u[z][y][((x + 2) as i32) as usize];",
        );
        let r = references(&k);
        assert_eq!(r[0].offset, None, "`as u8` wraps x + 200");
        assert_eq!(r[1].offset, Some([2, 0, 0]));
        let reach = crate::analyzer::reach::reaches(&k);
        assert!(reach[0].reach[2].rel_to("x").is_none(), "{:?}", reach[0]);
        assert_eq!(reach[1].reach[2].rel_to("x"), Some((2, 2)));
    }
}
