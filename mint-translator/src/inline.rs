//! Inlining of device functions (`#[mint::device]`), the first pass a kernel with calls
//! goes through: every [`ExprKind::Apply`] is replaced by the called function's body, so
//! that the stencil analyzer (thesis Sec. 5.3), the optimizer and the halo widths see the
//! array references a call makes exactly as if the user had written them in the loop.
//!
//! A call is replaced as follows:
//! - array parameters are renamed to the arrays passed (`&u`, `&self.u`);
//! - a scalar parameter the function never assigns is replaced by the argument
//!   expression itself (kernel expressions have no side effects), so an index such as
//!   `z + 1` stays an affine expression of the loop indices;
//! - the function's immutable `let`s are folded into the expressions that use them;
//! - a function whose body is then one expression becomes that expression, wherever the
//!   call stood;
//! - any other function (loops, assignments, `let mut`) must be called as the whole value
//!   of a `let` or an assignment: its statements go before that statement, with its locals
//!   renamed, and the call becomes a local holding the result.
//!
//! Calls nest; a cycle is an error (the front end rejects direct recursion at compile
//! time, and a cycle through several functions is rejected by rustc).

use crate::baseline::outline;
use crate::diag::{Diag, DiagResult};
use crate::ir::*;
use std::collections::HashMap;

/// A device function and how the calls in its own body resolve: `calls[i]` maps a path as
/// written in the body to an index into the same library.
#[derive(Clone, Debug)]
pub struct Callee {
    pub f: DeviceFn,
    pub calls: Vec<(String, usize)>,
}

/// A function body after inlining: statements (no calls in them) and the result.
#[derive(Clone, Debug)]
struct Flat {
    stmts: Vec<Stmt>,
    result: Expr,
}

struct Inliner<'a> {
    lib: &'a [Callee],
    flat: HashMap<usize, Flat>,
    /// Functions being flattened, for cycles.
    stack: Vec<usize>,
    counter: usize,
    diags: Vec<Diag>,
}

/// Whether any expression of `b` is a call of a device function.
pub fn has_calls(b: &Block) -> bool {
    let mut found = false;
    b.walk_exprs(&mut |e| {
        if matches!(e.kind, ExprKind::Apply { .. }) {
            found = true;
        }
    });
    found
}

/// Inlines every call of `kernel`, resolving the paths written in the kernel through
/// `calls` (indices into `lib`), and recomputes the kernel's array uses.
///
/// # Errors
/// A call of a function `calls` does not name, a cycle, a wrong number or kind of
/// arguments (an array where a number is expected, `&` where the function takes `&mut`),
/// or a function with statements called where they cannot go first (inside an `if`
/// expression or a loop condition).
pub fn inline(kernel: &Kernel, calls: &[(String, usize)], lib: &[Callee]) -> DiagResult<Kernel> {
    let mut inl = Inliner {
        lib,
        flat: HashMap::new(),
        stack: Vec::new(),
        counter: 0,
        diags: Vec::new(),
    };
    let mut k = kernel.clone();
    k.body = inl.block(&kernel.body, calls);
    if !inl.diags.is_empty() {
        return Err(inl.diags);
    }
    // Which arrays are read and written, and with how many indices, as the inlined body
    // shows.
    let bound: Vec<&str> = k.nest.iter().map(|l| l.var.as_str()).collect();
    let (uses, _) = outline::arguments(&k.body, &bound);
    for a in &mut k.arrays {
        if let Some(u) = uses.iter().find(|u| u.name == a.name) {
            a.read = u.read;
            a.written = u.written;
            if a.ndim == 0 && u.ndim > 0 {
                a.ndim = u.ndim as u8;
            }
        }
    }
    Ok(k)
}

impl Inliner<'_> {
    fn err(&mut self, span: SpanId, m: impl Into<String>) {
        self.diags.push(Diag::new(span, m));
    }

    fn block(&mut self, b: &Block, calls: &[(String, usize)]) -> Block {
        let mut out = Vec::with_capacity(b.stmts.len());
        for s in &b.stmts {
            self.stmt(s, calls, &mut out);
        }
        Block { stmts: out }
    }

    /// Inlines the calls of one statement, appending what it becomes to `out`.
    fn stmt(&mut self, s: &Stmt, calls: &[(String, usize)], out: &mut Vec<Stmt>) {
        let mut pre = Vec::new();
        let kind = match &s.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => StmtKind::Let {
                name: name.clone(),
                mutable: *mutable,
                ty: *ty,
                init: init.as_ref().map(|e| self.expr(e, calls, Some(&mut pre))),
            },
            StmtKind::Assign { place, op, value } => {
                let place = match place {
                    Place::Var(n) => Place::Var(n.clone()),
                    Place::Elem { array, index } => Place::Elem {
                        array: array.clone(),
                        index: index
                            .iter()
                            .map(|e| self.expr(e, calls, Some(&mut pre)))
                            .collect(),
                    },
                };
                StmtKind::Assign {
                    place,
                    op: *op,
                    value: self.expr(value, calls, Some(&mut pre)),
                }
            }
            StmtKind::If { cond, then, els } => StmtKind::If {
                cond: self.expr(cond, calls, Some(&mut pre)),
                then: self.block(then, calls),
                els: els.as_ref().map(|b| self.block(b, calls)),
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
                lo: self.expr(lo, calls, Some(&mut pre)),
                hi: self.expr(hi, calls, Some(&mut pre)),
                inclusive: *inclusive,
                step: step.as_ref().map(|e| self.expr(e, calls, Some(&mut pre))),
                reverse: *reverse,
                body: self.block(body, calls),
            },
            StmtKind::While { cond, body } => StmtKind::While {
                cond: self.expr(cond, calls, None),
                body: self.block(body, calls),
            },
            StmtKind::Block(b) => StmtKind::Block(self.block(b, calls)),
            StmtKind::Break => StmtKind::Break,
            StmtKind::Continue => StmtKind::Continue,
        };
        out.append(&mut pre);
        out.push(Stmt { kind, span: s.span });
    }

    /// Inlines the calls in `e`. Statements a call needs go to `pre` (run before the
    /// statement holding `e`); `None` where nothing may run first (a loop condition, an
    /// `if` expression's branch).
    fn expr(&mut self, e: &Expr, calls: &[(String, usize)], pre: Option<&mut Vec<Stmt>>) -> Expr {
        let mut pre = pre;
        let kind = match &e.kind {
            ExprKind::Apply { func, args } => {
                let args: Vec<Expr> = args
                    .iter()
                    .map(|a| self.expr(a, calls, pre.as_deref_mut()))
                    .collect();
                return self.call(func, &args, e.span, calls, pre);
            }
            ExprKind::Select { cond, then, els } => ExprKind::Select {
                cond: Box::new(self.expr(cond, calls, pre.as_deref_mut())),
                then: Box::new(self.expr(then, calls, None)),
                els: Box::new(self.expr(els, calls, None)),
            },
            ExprKind::Elem { array, index } => ExprKind::Elem {
                array: array.clone(),
                index: index
                    .iter()
                    .map(|i| self.expr(i, calls, pre.as_deref_mut()))
                    .collect(),
            },
            ExprKind::Unary { op, expr } => ExprKind::Unary {
                op: *op,
                expr: Box::new(self.expr(expr, calls, pre)),
            },
            ExprKind::Binary { op, lhs, rhs } => {
                let lhs = self.expr(lhs, calls, pre.as_deref_mut());
                // `&&` and `||` evaluate their right side only sometimes
                let rhs = if op.is_logical() {
                    self.expr(rhs, calls, None)
                } else {
                    self.expr(rhs, calls, pre)
                };
                ExprKind::Binary {
                    op: *op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                }
            }
            ExprKind::Cast { expr, to } => ExprKind::Cast {
                expr: Box::new(self.expr(expr, calls, pre)),
                to: *to,
            },
            ExprKind::Call { func, args } => ExprKind::Call {
                func: *func,
                args: args
                    .iter()
                    .map(|a| self.expr(a, calls, pre.as_deref_mut()))
                    .collect(),
            },
            other => other.clone(),
        };
        Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }
    }

    /// The function `lib[i]` with its own calls inlined, its `let`s folded where they can
    /// be.
    fn flat(&mut self, i: usize, span: SpanId) -> Option<Flat> {
        if let Some(f) = self.flat.get(&i) {
            return Some(f.clone());
        }
        if self.stack.contains(&i) {
            let names: Vec<&str> = self
                .stack
                .iter()
                .chain(std::iter::once(&i))
                .map(|&j| self.lib[j].f.name.as_str())
                .collect();
            self.err(
                span,
                format!(
                    "device functions call each other in a cycle ({}); recursion cannot be inlined",
                    names.join(" -> ")
                ),
            );
            return None;
        }
        self.stack.push(i);
        let callee = &self.lib[i];
        let calls = callee.calls.clone();
        let f = callee.f.clone();
        let mut stmts = Vec::new();
        for s in &f.body.stmts {
            self.stmt(s, &calls, &mut stmts);
        }
        let result = self.expr(&f.result, &calls, Some(&mut stmts));
        self.stack.pop();
        let flat = fold_lets(Flat { stmts, result });
        self.flat.insert(i, flat.clone());
        Some(flat)
    }

    fn call(
        &mut self,
        func: &str,
        args: &[Expr],
        span: SpanId,
        calls: &[(String, usize)],
        pre: Option<&mut Vec<Stmt>>,
    ) -> Expr {
        let bad = Expr::new(ExprKind::Lit(Lit::Bool(false)), span);
        let Some(&(_, i)) = calls.iter().find(|(p, _)| p == func) else {
            self.err(
                span,
                format!("`{func}` is not a device function this kernel can call (mark it `#[mint::device]`)"),
            );
            return bad;
        };
        let Some(flat) = self.flat(i, span) else {
            return bad;
        };
        let f = &self.lib[i].f;
        if f.params.len() != args.len() {
            self.err(
                span,
                format!(
                    "`{}` takes {} argument(s) but {} were given",
                    f.name,
                    f.params.len(),
                    args.len()
                ),
            );
            return bad;
        }
        self.counter += 1;
        let tag = format!("__{}{}_", f.name, self.counter);
        let mut sub = Subst {
            values: HashMap::new(),
            arrays: HashMap::new(),
            locals: HashMap::new(),
        };
        let mut lets = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            match (&p.kind, &a.kind) {
                (
                    DeviceParamKind::Array { mutable, .. },
                    ExprKind::ArrayRef { array, mutable: m },
                ) => {
                    if *mutable && !m {
                        self.err(
                            a.span,
                            format!(
                                "`{}` takes `{}` as `&mut`: pass `&mut {array}`",
                                f.name, p.name
                            ),
                        );
                    }
                    sub.arrays.insert(p.name.clone(), array.clone());
                }
                (DeviceParamKind::Array { .. }, _) => {
                    self.err(
                        a.span,
                        format!(
                            "`{}` takes the array `{}`: pass an array as `&a`",
                            f.name, p.name
                        ),
                    );
                }
                (DeviceParamKind::Scalar { .. }, ExprKind::ArrayRef { array, .. }) => {
                    self.err(
                        a.span,
                        format!(
                            "`{}` takes the number `{}`, but `{array}` is passed as a whole array",
                            f.name, p.name
                        ),
                    );
                }
                (DeviceParamKind::Scalar { mutable: true, ty }, _) => {
                    let local = format!("{tag}{}", p.name);
                    sub.locals.insert(p.name.clone(), local.clone());
                    lets.push(Stmt {
                        kind: StmtKind::Let {
                            name: local,
                            mutable: true,
                            ty: *ty,
                            init: Some(a.clone()),
                        },
                        span,
                    });
                }
                (DeviceParamKind::Scalar { mutable: false, .. }, _) => {
                    sub.values.insert(p.name.clone(), a.clone());
                }
            }
        }
        if flat.stmts.is_empty() && lets.is_empty() {
            let mut r = flat.result.clone();
            sub.expr(&mut r);
            return r;
        }
        let Some(pre) = pre else {
            self.err(
                span,
                format!(
                    "`{}` has statements (loops, assignments, `let mut`), so it must be called as the whole value of a `let` or an assignment, not inside an `if` expression, `&&`/`||` or a loop condition",
                    f.name
                ),
            );
            return bad;
        };
        // Locals of the function get names of their own.
        for s in &flat.stmts {
            s_locals(s, &tag, &mut sub.locals);
        }
        pre.extend(lets);
        for s in &flat.stmts {
            let mut s = s.clone();
            sub.stmt(&mut s);
            pre.push(s);
        }
        let ret = format!("{tag}result");
        let mut r = flat.result.clone();
        sub.expr(&mut r);
        pre.push(Stmt {
            kind: StmtKind::Let {
                name: ret.clone(),
                mutable: false,
                ty: f.ret,
                init: Some(r),
            },
            span,
        });
        Expr::new(ExprKind::Var(ret), span)
    }
}

/// Names bound by `s` and the statements inside it, renamed with `tag`.
fn s_locals(s: &Stmt, tag: &str, out: &mut HashMap<String, String>) {
    s_walk(s, &mut |s| match &s.kind {
        StmtKind::Let { name, .. } | StmtKind::For { var: name, .. } => {
            out.insert(name.clone(), format!("{tag}{name}"));
        }
        _ => {}
    });
}

fn s_walk<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Stmt)) {
    f(s);
    match &s.kind {
        StmtKind::If { then, els, .. } => {
            then.stmts.iter().for_each(|t| s_walk(t, f));
            if let Some(e) = els {
                e.stmts.iter().for_each(|t| s_walk(t, f));
            }
        }
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Block(body) => {
            body.stmts.iter().for_each(|t| s_walk(t, f))
        }
        _ => {}
    }
}

/// Folds a body's leading immutable `let`s into the expressions after them, as long as
/// every statement is such a `let`: then the function is one expression.
fn fold_lets(flat: Flat) -> Flat {
    let all_lets = flat.stmts.iter().all(|s| {
        matches!(
            &s.kind,
            StmtKind::Let {
                mutable: false,
                init: Some(_),
                ..
            }
        )
    });
    if !all_lets {
        return flat;
    }
    let mut values: HashMap<String, Expr> = HashMap::new();
    for s in &flat.stmts {
        if let StmtKind::Let {
            name,
            init: Some(e),
            ..
        } = &s.kind
        {
            let mut e = e.clone();
            Subst {
                values: values.clone(),
                arrays: HashMap::new(),
                locals: HashMap::new(),
            }
            .expr(&mut e);
            values.insert(name.clone(), e);
        }
    }
    let mut result = flat.result;
    Subst {
        values,
        arrays: HashMap::new(),
        locals: HashMap::new(),
    }
    .expr(&mut result);
    Flat {
        stmts: Vec::new(),
        result,
    }
}

/// Substitution of a function's parameters and locals at one call.
struct Subst {
    /// Parameters replaced by the argument expressions.
    values: HashMap<String, Expr>,
    /// Array parameters renamed to the arrays passed.
    arrays: HashMap<String, String>,
    /// Locals (and `mut` parameters) renamed.
    locals: HashMap<String, String>,
}

impl Subst {
    fn name(&self, n: &mut String) {
        if let Some(m) = self.locals.get(n.as_str()) {
            *n = m.clone();
        }
    }

    fn array(&self, a: &mut String) {
        if let Some(m) = self.arrays.get(a.as_str()) {
            *a = m.clone();
        }
    }

    fn expr(&self, e: &mut Expr) {
        if let ExprKind::Var(n) = &e.kind
            && let Some(v) = self.values.get(n)
        {
            // the argument keeps its own type; this expression's annotation, if any, was
            // made for the parameter
            *e = v.clone();
            return;
        }
        match &mut e.kind {
            ExprKind::Var(n) => self.name(n),
            ExprKind::Elem { array, index } => {
                self.array(array);
                index.iter_mut().for_each(|i| self.expr(i));
            }
            ExprKind::ArrayRef { array, .. } => self.array(array),
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => self.expr(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => {
                args.iter_mut().for_each(|a| self.expr(a))
            }
            ExprKind::Select { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::Lit(_) => {}
        }
    }

    /// A block's statements; a parameter a binding in it hides is visible again after it.
    fn block(&mut self, b: &mut Block) {
        let outer = self.values.clone();
        b.stmts.iter_mut().for_each(|s| self.stmt(s));
        self.values = outer;
    }

    /// A statement; a `let` of a parameter's name hides the parameter from the statements
    /// after it (`let x = x + 1;`), which then name the local.
    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Let { name, init, .. } => {
                if let Some(e) = init {
                    self.expr(e);
                }
                self.values.remove(name.as_str());
                self.name(name);
            }
            StmtKind::Assign { place, value, .. } => {
                match place {
                    Place::Var(n) => self.name(n),
                    Place::Elem { array, index } => {
                        self.array(array);
                        index.iter_mut().for_each(|i| self.expr(i));
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
                let hidden = self.values.remove(var.as_str()).map(|v| (var.clone(), v));
                self.name(var);
                self.block(body);
                if let Some((n, v)) = hidden {
                    self.values.insert(n, v);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.block(body);
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}
