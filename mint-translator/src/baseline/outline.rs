//! Argument handler of the outliner (thesis Sec. 4.2.4).
//!
//! The outliner moves a loop body into a kernel; the argument handler decides what the
//! kernel must be passed. With L the variables declared inside the body (locals and loop
//! indices) and U the variables it references, the parameters are P = U − L: arrays
//! (element references) and scalars. Globals are passed too, since device memory is
//! separate.

use crate::ir::*;
use std::collections::HashSet;

/// An array the body references, with how it is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayUse {
    pub name: String,
    pub read: bool,
    pub written: bool,
    /// Number of indices at the first indexed reference; 0 when the array is only passed
    /// whole to device functions (`&a`).
    pub ndim: usize,
    /// Span of the first reference.
    pub span: SpanId,
    /// Every distinct number of indices used (more than one is an error the front end reports).
    pub ndims: Vec<usize>,
}

/// A free scalar variable of the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarUse {
    pub name: String,
    pub span: SpanId,
    pub assigned: bool,
}

/// P = U − L for a loop body: the arrays and scalars it needs from the host, in first-use
/// order. `bound` are the names already bound outside the body (parallel loop indices).
pub fn arguments(body: &Block, bound: &[&str]) -> (Vec<ArrayUse>, Vec<ScalarUse>) {
    let mut st = State {
        arrays: Vec::new(),
        scalars: Vec::new(),
        scopes: vec![bound.iter().map(|s| s.to_string()).collect()],
    };
    st.block(body);
    (st.arrays, st.scalars)
}

struct State {
    arrays: Vec<ArrayUse>,
    scalars: Vec<ScalarUse>,
    scopes: Vec<HashSet<String>>,
}

impl State {
    fn bound(&self, n: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(n))
    }

    /// A use of array `name`: with `ndim` indices, or whole (`ndim` 0, a `&a` argument of
    /// a device function, which may read and, if `&mut`, write it).
    fn array(&mut self, name: &str, ndim: usize, span: SpanId, write: bool) {
        let (read, written) = if ndim == 0 {
            (true, write)
        } else {
            (!write, write)
        };
        match self.arrays.iter_mut().find(|a| a.name == name) {
            Some(a) => {
                a.read |= read;
                a.written |= written;
                if ndim > 0 {
                    if a.ndim == 0 {
                        a.ndim = ndim;
                    }
                    if !a.ndims.contains(&ndim) {
                        a.ndims.push(ndim);
                    }
                }
            }
            None => self.arrays.push(ArrayUse {
                name: name.to_string(),
                read,
                written,
                ndim,
                span,
                ndims: if ndim > 0 { vec![ndim] } else { Vec::new() },
            }),
        }
    }

    fn scalar(&mut self, name: &str, span: SpanId, assigned: bool) {
        if self.bound(name) {
            return;
        }
        match self.scalars.iter_mut().find(|s| s.name == name) {
            Some(s) => s.assigned |= assigned,
            None => self.scalars.push(ScalarUse {
                name: name.to_string(),
                span,
                assigned,
            }),
        }
    }

    fn expr(&mut self, e: &Expr) {
        e.walk(&mut |x| match &x.kind {
            ExprKind::Var(n) => self.scalar(n, x.span, false),
            ExprKind::Elem { array, index } => self.array(array, index.len(), x.span, false),
            ExprKind::ArrayRef { array, mutable } => self.array(array, 0, x.span, *mutable),
            _ => {}
        });
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(HashSet::new());
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Let { name, init, .. } => {
                    if let Some(e) = init {
                        self.expr(e);
                    }
                    self.scopes.last_mut().unwrap().insert(name.clone());
                }
                StmtKind::Assign { place, op, value } => {
                    match place {
                        Place::Var(n) => {
                            if op.is_some() {
                                self.scalar(n, s.span, false);
                            }
                            self.scalar(n, s.span, true);
                        }
                        Place::Elem { array, index } => {
                            index.iter().for_each(|i| self.expr(i));
                            if op.is_some() {
                                self.array(array, index.len(), s.span, false);
                            }
                            self.array(array, index.len(), s.span, true);
                        }
                    }
                    self.expr(value);
                }
                StmtKind::If { cond, then, els } => {
                    self.expr(cond);
                    self.block(then);
                    if let Some(e) = els {
                        self.block(e);
                    }
                }
                StmtKind::For {
                    var,
                    lo,
                    hi,
                    step,
                    body,
                    ..
                } => {
                    self.expr(lo);
                    self.expr(hi);
                    if let Some(st) = step {
                        self.expr(st);
                    }
                    self.scopes.push(HashSet::from([var.clone()]));
                    self.block(body);
                    self.scopes.pop();
                }
                StmtKind::While { cond, body } => {
                    self.expr(cond);
                    self.block(body);
                }
                StmtKind::Block(b) => self.block(b),
                StmtKind::Break | StmtKind::Continue => {}
            }
        }
        self.scopes.pop();
    }
}
