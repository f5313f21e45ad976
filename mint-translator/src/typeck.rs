//! Type inference for kernel bodies, following Rust's rules.
//!
//! Every expression, `let` binding, loop index and captured host scalar gets a type
//! variable; operators and assignments unify them as rustc does (`f32 * {float}` makes the
//! literal an `f32`; array indices are `usize`). Unconstrained integer literals default to
//! `i32` and float literals to `f64`, as in Rust. Because the same loop body is also
//! compiled by rustc for the CPU backend, an ill-typed body never reaches a user; this pass
//! exists to give every node of the IR its exact type so that the CUDA emitter writes
//! `0.5f` in an `f32` kernel and calls `sqrtf`, never `sqrt`.

use crate::diag::{Diag, DiagResult};
use crate::ir::*;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Known(ScalarTy),
    /// `{integer}`: an unsuffixed integer literal not yet constrained.
    Int,
    /// `{float}`: an unsuffixed float literal not yet constrained.
    Float,
    /// Nothing known yet.
    Any,
}

struct Infer {
    parent: Vec<usize>,
    slot: Vec<Slot>,
    /// Type variable of every expression, in post-order of the traversal.
    order: Vec<usize>,
    scopes: Vec<HashMap<String, usize>>,
    loop_vars: HashMap<String, usize>,
    captured: HashMap<String, usize>,
    /// Type variable of each array's elements.
    arrays: HashMap<String, usize>,
    /// Names of the variables behind type variables, for messages.
    names: Vec<(usize, String, SpanId)>,
    diags: Vec<Diag>,
    /// In parallel-loop bounds, unknown names are host variables: give them fresh types.
    lenient_names: bool,
}

impl Infer {
    fn fresh(&mut self, s: Slot) -> usize {
        self.parent.push(self.parent.len());
        self.slot.push(s);
        self.parent.len() - 1
    }

    fn known(&mut self, t: ScalarTy) -> usize {
        self.fresh(Slot::Known(t))
    }

    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            let p = self.parent[v];
            self.parent[v] = self.parent[p];
            v = p;
        }
        v
    }

    fn slot_of(&mut self, v: usize) -> Slot {
        let r = self.find(v);
        self.slot[r]
    }

    fn unify(&mut self, a: usize, b: usize, span: SpanId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let merged = match (self.slot[ra], self.slot[rb]) {
            (Slot::Any, s) | (s, Slot::Any) => Some(s),
            (Slot::Int, Slot::Int) => Some(Slot::Int),
            (Slot::Float, Slot::Float) => Some(Slot::Float),
            (Slot::Int, Slot::Known(t)) | (Slot::Known(t), Slot::Int) if t.is_int() => {
                Some(Slot::Known(t))
            }
            (Slot::Float, Slot::Known(t)) | (Slot::Known(t), Slot::Float) if t.is_float() => {
                Some(Slot::Known(t))
            }
            (Slot::Known(x), Slot::Known(y)) if x == y => Some(Slot::Known(x)),
            _ => None,
        };
        match merged {
            Some(s) => {
                self.parent[rb] = ra;
                self.slot[ra] = s;
            }
            None => {
                let (sa, sb) = (self.slot[ra], self.slot[rb]);
                self.diags.push(Diag::new(
                    span,
                    format!(
                        "mismatched types in kernel: {} and {}; Rust does not convert \
                         implicitly, add an `as` cast",
                        describe(sa),
                        describe(sb)
                    ),
                ));
            }
        }
    }

    /// Requires `v` to be a float type (or makes an unconstrained one a `{float}`).
    fn require_float(&mut self, v: usize, span: SpanId, what: &str) {
        let r = self.find(v);
        match self.slot[r] {
            Slot::Any => self.slot[r] = Slot::Float,
            Slot::Float => {}
            Slot::Known(t) if t.is_float() => {}
            s => self.diags.push(Diag::new(
                span,
                format!("`{what}` needs a float (f32 or f64), found {}", describe(s)),
            )),
        }
    }

    fn require_int(&mut self, v: usize, span: SpanId, what: &str) {
        let r = self.find(v);
        match self.slot[r] {
            Slot::Any => self.slot[r] = Slot::Int,
            Slot::Int => {}
            Slot::Known(t) if t.is_int() => {}
            s => self.diags.push(Diag::new(
                span,
                format!("`{what}` needs an integer, found {}", describe(s)),
            )),
        }
    }

    fn lookup(&mut self, name: &str, span: SpanId) -> usize {
        for s in self.scopes.iter().rev() {
            if let Some(&v) = s.get(name) {
                return v;
            }
        }
        if let Some(&v) = self.loop_vars.get(name) {
            return v;
        }
        if let Some(&v) = self.captured.get(name) {
            return v;
        }
        if !self.lenient_names {
            self.diags.push(Diag::new(
                span,
                format!("`{name}` is not a local, a loop index or a host scalar of this kernel"),
            ));
        }
        let v = self.fresh(Slot::Any);
        if self.lenient_names {
            self.captured.insert(name.to_string(), v);
        }
        v
    }

    fn bind_local(&mut self, name: &str, v: usize, span: SpanId) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name.to_string(), v);
        self.names.push((v, name.to_string(), span));
    }

    fn expr(&mut self, e: &Expr) -> usize {
        let v = match &e.kind {
            ExprKind::Lit(Lit::Int { suffix, .. }) => match suffix {
                Some(t) => self.known(*t),
                None => self.fresh(Slot::Int),
            },
            ExprKind::Lit(Lit::Float { suffix, .. }) => match suffix {
                Some(t) => self.known(*t),
                None => self.fresh(Slot::Float),
            },
            ExprKind::Lit(Lit::Bool(_)) => self.known(ScalarTy::Bool),
            ExprKind::Var(name) => self.lookup(name, e.span),
            ExprKind::Elem { array, index } => {
                for i in index {
                    let iv = self.expr(i);
                    let u = self.known(ScalarTy::Usize);
                    self.unify(iv, u, i.span);
                }
                match self.arrays.get(array).copied() {
                    Some(v) => v,
                    None => {
                        self.diags.push(Diag::new(
                            e.span,
                            format!("`{array}` is not an array of this kernel"),
                        ));
                        self.fresh(Slot::Any)
                    }
                }
            }
            ExprKind::Unary { op, expr } => {
                let v = self.expr(expr);
                if *op == UnOp::Not {
                    // `!` is logical on bool and bitwise on integers.
                    match self.slot_of(v) {
                        Slot::Float | Slot::Known(ScalarTy::F32) | Slot::Known(ScalarTy::F64) => {
                            self.diags
                                .push(Diag::new(e.span, "`!` cannot apply to a float"))
                        }
                        _ => {}
                    }
                }
                v
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                if op.is_logical() {
                    let b = self.known(ScalarTy::Bool);
                    self.unify(l, b, lhs.span);
                    self.unify(r, b, rhs.span);
                    b
                } else if op.is_comparison() {
                    self.unify(l, r, e.span);
                    self.known(ScalarTy::Bool)
                } else if op.is_shift() {
                    self.require_int(l, lhs.span, op.c_op());
                    self.require_int(r, rhs.span, op.c_op());
                    l
                } else {
                    self.unify(l, r, e.span);
                    l
                }
            }
            ExprKind::Cast { expr, to } => {
                self.expr(expr);
                self.known(*to)
            }
            ExprKind::Call { func, args } => self.call(*func, args, e.span),
            // A call's type is known once the function is inlined (at launch): here only
            // its arguments are checked.
            ExprKind::Apply { args, .. } => {
                for a in args {
                    self.expr(a);
                }
                self.fresh(Slot::Any)
            }
            ExprKind::ArrayRef { .. } => self.fresh(Slot::Any),
            ExprKind::Select { cond, then, els } => {
                let c = self.expr(cond);
                let b = self.known(ScalarTy::Bool);
                self.unify(c, b, cond.span);
                let t = self.expr(then);
                let f = self.expr(els);
                self.unify(t, f, e.span);
                t
            }
        };
        self.order.push(v);
        v
    }

    fn call(&mut self, func: MathFn, args: &[Expr], span: SpanId) -> usize {
        let vs: Vec<usize> = args.iter().map(|a| self.expr(a)).collect();
        let name = func.rust_name();
        if vs.len() != func.arity() {
            self.diags.push(Diag::new(
                span,
                format!(
                    "`{name}` takes {} argument(s) including the receiver, found {}",
                    func.arity(),
                    vs.len()
                ),
            ));
            return self.fresh(Slot::Any);
        }
        let a0 = vs[0];
        match func {
            MathFn::Powi => {
                self.require_float(a0, args[0].span, name);
                let i = self.known(ScalarTy::I32);
                self.unify(vs[1], i, args[1].span);
                a0
            }
            MathFn::Pow => {
                self.require_int(a0, args[0].span, name);
                let u = self.known(ScalarTy::U32);
                self.unify(vs[1], u, args[1].span);
                a0
            }
            MathFn::IsNan | MathFn::IsFinite | MathFn::IsInfinite => {
                self.require_float(a0, args[0].span, name);
                self.known(ScalarTy::Bool)
            }
            _ => {
                for (v, a) in vs.iter().zip(args).skip(1) {
                    self.unify(a0, *v, a.span);
                }
                if !func.accepts_int() {
                    self.require_float(a0, args[0].span, name);
                } else if !func.accepts_float() {
                    self.require_int(a0, args[0].span, name);
                } else if let Slot::Known(ScalarTy::Bool) = self.slot_of(a0) {
                    self.diags
                        .push(Diag::new(span, format!("`{name}` cannot apply to a bool")));
                }
                a0
            }
        }
    }

    fn block(&mut self, b: &Block, local_types: &mut Vec<usize>) {
        self.scopes.push(HashMap::new());
        for s in &b.stmts {
            self.stmt(s, local_types);
        }
        self.scopes.pop();
    }

    /// `local_types` collects, in statement pre-order, the variable of each `let` and
    /// each serial `for` index, so that their resolved types can be written back.
    fn stmt(&mut self, s: &Stmt, local_types: &mut Vec<usize>) {
        match &s.kind {
            StmtKind::Let { name, ty, init, .. } => {
                let v = match ty {
                    Some(t) => self.known(*t),
                    None => self.fresh(Slot::Any),
                };
                if let Some(e) = init {
                    let iv = self.expr(e);
                    self.unify(v, iv, e.span);
                }
                local_types.push(v);
                self.bind_local(name, v, s.span);
            }
            StmtKind::Assign { place, op, value } => {
                let pv = match place {
                    Place::Var(n) => self.lookup(n, s.span),
                    Place::Elem { array, index } => {
                        for i in index {
                            let iv = self.expr(i);
                            let u = self.known(ScalarTy::Usize);
                            self.unify(iv, u, i.span);
                        }
                        match self.arrays.get(array).copied() {
                            Some(v) => v,
                            None => {
                                self.diags.push(Diag::new(
                                    s.span,
                                    format!("`{array}` is not an array of this kernel"),
                                ));
                                self.fresh(Slot::Any)
                            }
                        }
                    }
                };
                let vv = self.expr(value);
                match op {
                    Some(o) if o.is_shift() => self.require_int(vv, value.span, o.c_op()),
                    _ => self.unify(pv, vv, value.span),
                }
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                let b = self.known(ScalarTy::Bool);
                self.unify(c, b, cond.span);
                self.block(then, local_types);
                if let Some(e) = els {
                    self.block(e, local_types);
                }
            }
            StmtKind::For {
                var,
                ty,
                lo,
                hi,
                step,
                body,
                ..
            } => {
                let v = match ty {
                    Some(t) => self.known(*t),
                    None => self.fresh(Slot::Any),
                };
                let l = self.expr(lo);
                let h = self.expr(hi);
                self.unify(v, l, lo.span);
                self.unify(v, h, hi.span);
                if let Some(st) = step {
                    let sv = self.expr(st);
                    let u = self.known(ScalarTy::Usize);
                    self.unify(sv, u, st.span);
                }
                self.require_int(v, s.span, "for");
                local_types.push(v);
                self.scopes.push(HashMap::new());
                self.bind_local(var, v, s.span);
                self.block(body, local_types);
                self.scopes.pop();
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond);
                let b = self.known(ScalarTy::Bool);
                self.unify(c, b, cond.span);
                self.block(body, local_types);
            }
            StmtKind::Block(b) => self.block(b, local_types),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }

    fn resolve(&mut self, v: usize) -> Option<ScalarTy> {
        match self.slot_of(v) {
            Slot::Known(t) => Some(t),
            Slot::Int => Some(ScalarTy::I32),
            Slot::Float => Some(ScalarTy::F64),
            Slot::Any => None,
        }
    }
}

fn describe(s: Slot) -> String {
    match s {
        Slot::Known(t) => format!("`{t}`"),
        Slot::Int => "an integer literal".into(),
        Slot::Float => "a float literal".into(),
        Slot::Any => "an unknown type".into(),
    }
}

/// Writes resolved types back in the same traversal order `Infer` used.
struct Apply<'a> {
    types: std::slice::Iter<'a, Option<ScalarTy>>,
    locals: std::slice::Iter<'a, Option<ScalarTy>>,
}

impl Apply<'_> {
    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Elem { index, .. } => index.iter_mut().for_each(|i| self.expr(i)),
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => self.expr(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => {
                args.iter_mut().for_each(|a| self.expr(a))
            }
            ExprKind::ArrayRef { .. } => {}
            ExprKind::Select { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
        }
        e.ty = *self.types.next().expect("one type per expression");
    }

    fn block(&mut self, b: &mut Block) {
        for s in &mut b.stmts {
            match &mut s.kind {
                StmtKind::Let { ty, init, .. } => {
                    if let Some(e) = init {
                        self.expr(e);
                    }
                    *ty = *self.locals.next().expect("one type per let");
                }
                StmtKind::Assign { place, value, .. } => {
                    if let Place::Elem { index, .. } = place {
                        index.iter_mut().for_each(|i| self.expr(i));
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
                    ty,
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
                    *ty = *self.locals.next().expect("one type per for");
                    self.block(body);
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
}

/// Infers and records the type of every expression, local, loop index, captured scalar
/// and reduction variable of `kernel`.
///
/// # Errors
/// Mismatched types, math methods applied to the wrong kind of number, and variables
/// whose type nothing determines (the message names the variable and the annotation that
/// fixes it).
pub fn check(kernel: &mut Kernel) -> DiagResult<()> {
    infer(kernel, false)
}

/// Checks a kernel whose element types are bound at launch
/// ([`Kernel::types_at_launch`]): each open array's elements get a type variable, so
/// what the body itself makes inconsistent (an `f32` host scalar times an `f64` array, a
/// shift of a float) is still an error, while types that only the launch decides are
/// left open. Records nothing in the kernel; the runtime checks it fully with
/// [`check`] once [`Kernel::bind_types`] has closed it.
///
/// # Errors
/// As [`check`], except that types nothing determines are not errors.
pub fn check_open(kernel: &Kernel) -> DiagResult<()> {
    let mut k = kernel.clone();
    infer(&mut k, true)
}

fn infer(kernel: &mut Kernel, open: bool) -> DiagResult<()> {
    let mut inf = Infer {
        parent: Vec::new(),
        slot: Vec::new(),
        order: Vec::new(),
        scopes: vec![HashMap::new()],
        loop_vars: HashMap::new(),
        captured: HashMap::new(),
        arrays: HashMap::new(),
        names: Vec::new(),
        diags: Vec::new(),
        lenient_names: false,
    };
    for a in &kernel.arrays {
        let v = if a.elem_at_launch {
            inf.fresh(Slot::Any)
        } else {
            inf.known(a.elem)
        };
        inf.arrays.insert(a.name.clone(), v);
    }
    let mut scalar_vars = Vec::new();
    for s in &kernel.scalars {
        let v = match s.ty {
            Some(t) => inf.known(t),
            None => inf.fresh(Slot::Any),
        };
        inf.captured.insert(s.name.clone(), v);
        inf.names.push((v, s.name.clone(), s.span));
        scalar_vars.push(v);
    }
    let red_var = kernel.reduction.as_ref().map(|r| {
        let v = match inf.captured.get(&r.var) {
            Some(&v) => v,
            None => {
                let v = inf.fresh(Slot::Any);
                inf.captured.insert(r.var.clone(), v);
                v
            }
        };
        if let Some(t) = r.ty {
            let k = inf.known(t);
            inf.unify(v, k, r.span);
        }
        inf.names.push((v, r.var.clone(), r.span));
        v
    });
    // Parallel loop indices, typed by their bounds where the front end could lower them.
    let mut loop_vars = Vec::new();
    for l in &kernel.nest {
        let v = match l.ty {
            Some(t) => inf.known(t),
            None => inf.fresh(Slot::Any),
        };
        inf.lenient_names = true;
        for b in [&l.lo, &l.hi].into_iter().flatten() {
            let bv = inf.expr(b);
            inf.unify(v, bv, b.span);
        }
        inf.lenient_names = false;
        inf.loop_vars.insert(l.var.clone(), v);
        inf.names.push((v, l.var.clone(), l.span));
        loop_vars.push(v);
    }
    let bound_exprs = inf.order.len();
    let mut local_vars = Vec::new();
    inf.block(&kernel.body, &mut local_vars);

    // A parallel index nothing constrains is an index: `usize`.
    for &v in &loop_vars {
        if inf.slot_of(v) == Slot::Any {
            let r = inf.find(v);
            inf.slot[r] = Slot::Known(ScalarTy::Usize);
        }
    }
    if open {
        return if inf.diags.is_empty() {
            Ok(())
        } else {
            Err(inf.diags)
        };
    }
    // Report variables nothing constrains, once each.
    let mut reported = std::collections::HashSet::new();
    for (v, name, span) in inf.names.clone() {
        if inf.resolve(v).is_none() && reported.insert(name.clone()) {
            inf.diags.push(Diag::new(
                span,
                format!(
                    "cannot infer the type of `{name}` used in this kernel; annotate it where \
                     it is declared, e.g. `let {name}: f64 = ...` or `{name}: usize` in the \
                     function's signature"
                ),
            ));
        }
    }
    if !inf.diags.is_empty() {
        return Err(inf.diags);
    }

    let all: Vec<Option<ScalarTy>> = inf
        .order
        .clone()
        .into_iter()
        .map(|v| inf.resolve(v))
        .collect();
    let locals: Vec<Option<ScalarTy>> = local_vars.into_iter().map(|v| inf.resolve(v)).collect();
    let mut ap = Apply {
        types: all[..bound_exprs].iter(),
        locals: locals.iter(),
    };
    for l in &mut kernel.nest {
        for b in [&mut l.lo, &mut l.hi].into_iter().flatten() {
            ap.expr(b);
        }
    }
    ap.types = all[bound_exprs..].iter();
    ap.block(&mut kernel.body);

    for (s, v) in kernel.scalars.iter_mut().zip(scalar_vars) {
        s.ty = inf.resolve(v);
    }
    for (l, v) in kernel.nest.iter_mut().zip(loop_vars) {
        l.ty = inf.resolve(v);
    }
    if let (Some(r), Some(v)) = (kernel.reduction.as_mut(), red_var) {
        r.ty = inf.resolve(v);
    }
    Ok(())
}
