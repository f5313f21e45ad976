//! Where the CPU backend's unchecked rows address each array from.
//!
//! On the rows `mint_runtime::cpu::Guard` proves inside every array, each array is read
//! through a `FastView` addressed from a base index (`FastView::row`) rather than from
//! the array's start. With the base `[z, y, 0]`, `u[[z - 1, y, x]]` is the row's address
//! minus one plane, a distance the compiler sees as constant along the row, so each row
//! computes one address per array and the loads' distances follow. Any base gives the
//! same elements (the offsets are exact); the base only decides what the compiler can
//! fold. It is chosen here, per axis but the last, as the enclosing loop index that most
//! of the array's subscripts along that axis follow (`z`, `z + 1`, `z - 1`); an axis none
//! follows is addressed from 0, as before.

use std::collections::HashMap;
use syn::visit::Visit;
use syn::{BinOp, Expr, ExprLit, Lit};

/// For the array read as `local` in `body` with `ndim` subscripts: per axis, the position
/// in `outer` of the loop index to address it from, or `None` (from 0). The last axis is
/// always `None`: the innermost index is added to the row's address as it is.
pub(crate) fn bases(
    body: &syn::Block,
    local: &str,
    ndim: usize,
    outer: &[String],
) -> Vec<Option<usize>> {
    let mut votes = Votes {
        local,
        ndim,
        outer,
        counts: vec![HashMap::new(); ndim],
    };
    votes.visit_block(body);
    let mut out: Vec<Option<usize>> = votes
        .counts
        .into_iter()
        .map(|c| {
            // the most followed index; on a tie the outermost, so the choice is stable
            outer
                .iter()
                .enumerate()
                .filter_map(|(i, v)| c.get(v).map(|&n| (n, i)))
                .fold(None, |best: Option<(usize, usize)>, (n, i)| match best {
                    Some((m, _)) if m >= n => best,
                    _ => Some((n, i)),
                })
                .map(|(_, i)| i)
        })
        .collect();
    if let Some(last) = out.last_mut() {
        *last = None;
    }
    out
}

/// Counts, per axis, which loop index each subscript of `local` follows.
struct Votes<'a> {
    local: &'a str,
    ndim: usize,
    outer: &'a [String],
    counts: Vec<HashMap<String, usize>>,
}

impl<'ast> Visit<'ast> for Votes<'_> {
    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        if is_local(&e.expr, self.local) {
            let subs: Vec<&Expr> = match &*e.index {
                Expr::Array(a) => a.elems.iter().collect(),
                one => vec![one],
            };
            if subs.len() == self.ndim {
                for (d, s) in subs.into_iter().enumerate() {
                    if let Some(v) = follows(s).filter(|v| self.outer.contains(v)) {
                        *self.counts[d].entry(v).or_default() += 1;
                    }
                }
            }
        }
        syn::visit::visit_expr_index(self, e);
    }
}

fn is_local(e: &Expr, local: &str) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && p.path.is_ident(local),
        Expr::Paren(p) => is_local(&p.expr, local),
        _ => false,
    }
}

/// The variable `s` is, or is an integer literal away from: `v`, `v + 1`, `v - 2`,
/// `(v + 1)`, `v as usize`.
fn follows(s: &Expr) -> Option<String> {
    match s {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => follows(&p.expr),
        Expr::Cast(c) => follows(&c.expr),
        Expr::Binary(b) if matches!(b.op, BinOp::Add(_) | BinOp::Sub(_)) => {
            let lit = |e: &Expr| {
                matches!(
                    e,
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(_),
                        ..
                    })
                )
            };
            if lit(&b.right) {
                follows(&b.left)
            } else if matches!(b.op, BinOp::Add(_)) && lit(&b.left) {
                follows(&b.right)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the chosen indices (`z`, `y`).
    fn run(body: &str, local: &str, ndim: usize) -> Vec<Option<String>> {
        let b: syn::Block = syn::parse_str(body).unwrap();
        let outer = ["z".to_string(), "y".to_string()];
        bases(&b, local, ndim, &outer)
            .into_iter()
            .map(|i| i.map(|i| outer[i].clone()))
            .collect()
    }

    #[test]
    fn a_textbook_stencil_is_addressed_from_its_row() {
        let b = "{ v[[z, y, x]] = u[[z - 1, y, x]] + u[[z, y + 1, x]] + u[[(z + 1), y, x - 1]]; }";
        assert_eq!(run(b, "u", 3), [Some("z".into()), Some("y".into()), None]);
        assert_eq!(run(b, "v", 3), [Some("z".into()), Some("y".into()), None]);
    }

    #[test]
    fn an_axis_no_subscript_follows_is_addressed_from_zero() {
        // a clamped face's local and a table index: only `z` counts, once
        let b = "{ let t = if z == 0 { z } else { z - 1 }; o[[z, y, x]] = u[[t, k, x]] + u[[z, 3, x]] + c[y]; }";
        assert_eq!(run(b, "u", 3), [Some("z".into()), None, None]);
        // a 1-D array: its only axis is the last
        assert_eq!(run(b, "c", 1), [None]);
        // a 2-D coefficient array of a 3-D nest follows `y`
        let b = "{ o[[z, y, x]] = k[[y, x]] * u[[z, y, x]]; }";
        assert_eq!(run(b, "k", 2), [Some("y".into()), None]);
    }

    #[test]
    fn the_most_followed_index_wins() {
        let b = "{ o[[z, y, x]] = u[[y, y, x]] + u[[z, y, x]] + u[[z + 1, y, x]]; }";
        assert_eq!(run(b, "u", 3)[0], Some("z".into()));
    }
}
