//! The reach of subscripts (issue #41): for every element reference, the values each
//! subscript can take relative to the parallel indices, as a small interval domain.
//!
//! The textbook subscript `a[[z + c, y, x]]` reaches `z + c`. Real codes also write their
//! boundaries inside the kernel, and the analysis follows them:
//!
//! - `let`-bound locals that are never assigned (`let b = if z == 0 { z } else { z - 1 };`);
//! - `if`/`else` statements and select expressions, whose conditions are kept as guards;
//! - `min`, `max`, `clamp` and `saturating_sub` (`z.max(1) - 1`, `(z + 1).min(nz - 1)`);
//! - integer casts; serial loops of constant bounds (`u[[z - d, ..]]`, `d` in `1..=4`);
//! - the periodic wrap `(z + c) % n` and `(z + n - c) % n`.
//!
//! An integer expression is abstracted as a finite set of **cases**: linear forms over
//! the parallel indices, the host scalars and the serial loop indices, each with the
//! guards (linear forms known to be `>= 0`) under which the expression takes that form.
//! `if z == 0 { z } else { z - 1 }` is the two cases `z` (guards `z >= 0`, `0 - z >= 0`)
//! and `z - 1`. A case is then placed relative to a parallel index `v` ([`Reach`]): `z + c`
//! directly; a form without `v` (the face `0`, or `nz - 1` of `(z + 1).min(nz - 1)`) from
//! its guards and the parallel loops' bounds, by matching a guard `g >= 0` with `g ± (f - v)`
//! constant. The clamped subscripts above reach `z - 1 ..= z` and `z ..= z + 1`. The
//! mirrored face `if z == 0 { 1 } else { z - 1 }` reaches `z - 1 ..= z + 1`.
//!
//! Anything else (an indirect subscript `s[i]`, a division, a local assigned in a loop)
//! is [`Reach::Unbounded`], with the reason. The decomposition (`mint-runtime`'s `decomp`)
//! takes ghost widths from these reaches and refuses a split they cannot justify; the CPU
//! backend checks bounds once per row from them; `MINT_REPORT=1` prints them.
//!
//! This is the offset analysis of thesis Sec. 5.3.6 (there: `index ± constant` only),
//! extended with guards as in the footprint analysis of ImageCL (`000_3a52e492fab7fe1b.txt`,
//! boundary conditions).

use super::refs::{Linear, linear};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// The most cases one expression keeps before it is given up as unbounded.
const MAX_CASES: usize = 32;

/// Where one subscript can point, relative to a parallel index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// `var + c` for `lo <= c <= hi`. With `wrap`, the subscript may also be
    /// `var + c ± wrap` (the periodic wrap `(var + c) % wrap`): where `wrap` is the
    /// array's extent along this axis, that is the plane `var + c` taken cyclically.
    Rel {
        var: String,
        lo: i64,
        hi: i64,
        wrap: Option<String>,
    },
    /// A constant `lo ..= hi`, whatever the parallel indices.
    Abs { lo: i64, hi: i64 },
    /// No interval bounds it; the reason, for reports and errors.
    Unbounded(String),
    /// No value: every case's guards contradict each other (a `min` arm that the loop's
    /// bounds never select). Only inside the analysis; [`reaches`] never returns it.
    Never,
}

impl Reach {
    /// The offsets `lo ..= hi` from `var` when the subscript is `var + c`, not wrapped.
    pub fn rel_to(&self, var: &str) -> Option<(i64, i64)> {
        match self {
            Reach::Rel {
                var: v,
                lo,
                hi,
                wrap: None,
            } if v == var => Some((*lo, *hi)),
            _ => None,
        }
    }

    /// Short text for reports: `z-1..=z+0`, `z+1 (mod nz)`, `3`, `unbounded (..)`.
    pub fn describe(&self) -> String {
        let off = |c: i64| format!("{c:+}");
        match self {
            Reach::Rel { var, lo, hi, wrap } => {
                let r = if lo == hi {
                    format!("{var}{}", off(*lo))
                } else {
                    format!("{var}{}..={var}{}", off(*lo), off(*hi))
                };
                match wrap {
                    Some(m) => format!("{r} (mod {m})"),
                    None => r,
                }
            }
            Reach::Abs { lo, hi } if lo == hi => format!("{lo}"),
            Reach::Abs { lo, hi } => format!("{lo}..={hi}"),
            Reach::Unbounded(why) => format!("unbounded ({why})"),
            Reach::Never => "no value".into(),
        }
    }
}

/// One element reference with the reach of each subscript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefReach {
    pub array: String,
    pub write: bool,
    /// Per subscript, slowest first (`[z, y, x]`).
    pub reach: Vec<Reach>,
    /// The subscripts as written (for messages), slowest first.
    pub text: Vec<String>,
    /// Every subscript is written as a parallel index plus a constant, or a constant: the
    /// thesis's offset analysis already bounds it.
    pub textbook: bool,
    /// Per subscript, slowest first: absolute bounds of its value, where every case has
    /// some ([`Within`]).
    pub within: Vec<Option<Within>>,
}

/// Absolute bounds of a subscript's value over the whole iteration space, as forms of the
/// kernel's scalars: per case of the subscript (`if z == 0 { z } else { z - 1 }` has two),
/// forms the value is at least (`lo`) and at most (`hi`, inclusive). In each case the
/// value lies within `[max lo, min hi]`, so the subscript stays inside an axis
/// `[a, b)` when every case has a `lo` form worth at least `a` and a `hi` form worth less
/// than `b`. The clamped `if z == 0 { z } else { z - 1 }` over `0..nz` is the cases
/// `[0, 0]` and `[0, nz - 2]`: inside the array, though its reach is `z-1 ..= z`. A case
/// whose bounds cross (`max lo > min hi`) never happens.
///
/// The CPU backend runs a row without checks where this holds for the views at hand
/// (`mint_runtime::cpu::Guard`), so the faces of a clamped stencil run unchecked too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Within {
    pub cases: Vec<CaseBounds>,
}

/// The bounds of one case of a subscript ([`Within`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseBounds {
    /// Forms the value is at least (any of them bounds it).
    pub lo: Vec<Linear>,
    /// Forms the value is at most (any of them bounds it).
    pub hi: Vec<Linear>,
}

/// The most bound forms one case keeps each way.
const MAX_FORMS: usize = 6;

/// Every element reference of `k` with the reach of its subscripts, in the order a thread
/// evaluates them (a compound assignment reads its place before writing it): the order of
/// [`super::slabs::slab_refs`].
pub fn reaches(k: &Kernel) -> Vec<RefReach> {
    let mut a = Analyzer::new(k);
    a.block(&k.body);
    a.out
}

/// One line per distinct reference whose subscripts are not all a loop index plus a
/// constant as written: `t_in[b, y, x]: z-1..=z+0, y+0, x+0` (what `MINT_REPORT=1` prints
/// under "reach").
pub fn report_lines(k: &Kernel) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in reaches(k) {
        if r.textbook {
            continue;
        }
        let line = format!(
            "{}[{}]: {}",
            r.array,
            r.text.join(", "),
            r.reach
                .iter()
                .map(Reach::describe)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// One case of an integer expression: `form`, under `guards` (each `>= 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Case {
    form: Linear,
    guards: Vec<Linear>,
}

/// The abstract value of an integer expression.
#[derive(Clone, Debug)]
enum Val {
    Cases(Vec<Case>),
    Unknown(String),
}

impl Val {
    fn one(form: Linear) -> Val {
        Val::Cases(vec![Case {
            form,
            guards: Vec::new(),
        }])
    }
    fn constant(c: i64) -> Val {
        Val::one(Linear {
            coeffs: BTreeMap::new(),
            constant: c,
        })
    }
    /// The single unguarded form, if the value has exactly one case.
    fn single(&self) -> Option<&Linear> {
        match self {
            Val::Cases(c) if c.len() == 1 => Some(&c[0].form),
            _ => None,
        }
    }
    fn map(self, f: impl Fn(Linear) -> Linear) -> Val {
        match self {
            Val::Cases(cs) => Val::Cases(
                cs.into_iter()
                    .map(|c| Case {
                        form: f(c.form),
                        guards: c.guards,
                    })
                    .collect(),
            ),
            u => u,
        }
    }
    /// Every pair of cases combined by `f`, their guards together.
    fn zip(self, o: Val, f: impl Fn(&Linear, &Linear) -> Option<Linear>, what: &str) -> Val {
        let (a, b) = match (self, o) {
            (Val::Cases(a), Val::Cases(b)) => (a, b),
            (Val::Unknown(w), _) | (_, Val::Unknown(w)) => return Val::Unknown(w),
        };
        let mut out = Vec::new();
        for x in &a {
            for y in &b {
                let Some(form) = f(&x.form, &y.form) else {
                    return Val::Unknown(what.to_string());
                };
                let mut guards = x.guards.clone();
                guards.extend(y.guards.iter().cloned());
                out.push(Case { form, guards });
            }
        }
        capped(out)
    }
    /// Every case with `extra` guards added.
    fn guarded(self, extra: &[Linear]) -> Val {
        match self {
            Val::Cases(cs) => Val::Cases(
                cs.into_iter()
                    .map(|mut c| {
                        c.guards.extend(extra.iter().cloned());
                        c
                    })
                    .collect(),
            ),
            u => u,
        }
    }
    fn union(self, o: Val) -> Val {
        match (self, o) {
            (Val::Cases(mut a), Val::Cases(b)) => {
                a.extend(b);
                capped(a)
            }
            (Val::Unknown(w), _) | (_, Val::Unknown(w)) => Val::Unknown(w),
        }
    }
}

fn capped(mut cases: Vec<Case>) -> Val {
    cases.dedup();
    if cases.len() > MAX_CASES {
        Val::Unknown(format!("more than {MAX_CASES} cases"))
    } else {
        Val::Cases(cases)
    }
}

fn lin_add(a: &Linear, b: &Linear, sign: i64) -> Linear {
    let mut r = a.clone();
    for (v, c) in &b.coeffs {
        *r.coeffs.entry(v.clone()).or_insert(0) += sign * c;
    }
    r.coeffs.retain(|_, c| *c != 0);
    r.constant += sign * b.constant;
    r
}

fn lin_scale(a: &Linear, k: i64) -> Linear {
    let mut r = a.clone();
    for c in r.coeffs.values_mut() {
        *c *= k;
    }
    r.coeffs.retain(|_, c| *c != 0);
    r.constant *= k;
    r
}

fn lin_const(c: i64) -> Linear {
    Linear {
        coeffs: BTreeMap::new(),
        constant: c,
    }
}

fn lin_var(v: &str) -> Linear {
    Linear {
        coeffs: BTreeMap::from([(v.to_string(), 1)]),
        constant: 0,
    }
}

/// The walk over a kernel body: the environment of locals and the guards in force.
struct Analyzer<'k> {
    k: &'k Kernel,
    /// Parallel loop indices, outermost first.
    par: Vec<String>,
    /// `[lo, hi]` of serial loop indices of constant bounds.
    serial: BTreeMap<String, (i64, i64)>,
    /// Locals assigned after their `let` (or serial indices of unknown bounds): unknown.
    assigned: BTreeSet<String>,
    /// Scopes of `let`-bound locals, innermost last.
    scopes: Vec<BTreeMap<String, Val>>,
    /// Guards of the enclosing `if` statements.
    guards: Vec<Linear>,
    /// The parallel loops' bounds as guards (`v - lo >= 0`, `hi - 1 - v >= 0`).
    bounds: Vec<Linear>,
    out: Vec<RefReach>,
}

impl<'k> Analyzer<'k> {
    fn new(k: &'k Kernel) -> Analyzer<'k> {
        let mut assigned = BTreeSet::new();
        k.body.walk_stmts(&mut |s| {
            if let StmtKind::Assign {
                place: Place::Var(v),
                ..
            } = &s.kind
            {
                assigned.insert(v.clone());
            }
        });
        let mut a = Analyzer {
            k,
            par: k.nest.iter().map(|l| l.var.clone()).collect(),
            serial: BTreeMap::new(),
            assigned,
            scopes: vec![BTreeMap::new()],
            guards: Vec::new(),
            bounds: Vec::new(),
            out: Vec::new(),
        };
        for l in &k.nest {
            let v = lin_var(&l.var);
            let lo = l.lo.as_ref().map(|e| a.expr(e));
            let hi = l.hi.as_ref().map(|e| a.expr(e));
            if let Some(lo) = lo.as_ref().and_then(Val::single) {
                a.bounds.push(lin_add(&v, lo, -1));
            } else if l.ty.is_some_and(|t| t.is_int() && !t.is_signed_int()) {
                a.bounds.push(v.clone());
            }
            if let Some(hi) = hi.as_ref().and_then(Val::single) {
                let last = if l.inclusive { 0 } else { 1 };
                a.bounds
                    .push(lin_add(&lin_add(hi, &v, -1), &lin_const(last), -1));
            }
        }
        a
    }

    fn lookup(&self, name: &str) -> Option<&Val> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(BTreeMap::new());
        for s in &b.stmts {
            self.stmt(s);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { name, init, .. } => {
                let v = match init {
                    Some(e) => {
                        self.refs(e);
                        if self.assigned.contains(name) {
                            Val::Unknown(format!("`{name}` is assigned after its `let`"))
                        } else {
                            self.expr(e)
                        }
                    }
                    None => Val::Unknown(format!("`{name}` is declared without a value")),
                };
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name.clone(), v);
            }
            StmtKind::Assign { place, op, value } => {
                if let Place::Elem { array, index } = place {
                    index.iter().for_each(|i| self.refs(i));
                    if op.is_some() {
                        self.record(array, index, false);
                    }
                    self.refs(value);
                    self.record(array, index, true);
                } else {
                    self.refs(value);
                }
            }
            StmtKind::If { cond, then, els } => {
                self.refs(cond);
                let n = self.guards.len();
                let g = self.cond_guards(cond, true);
                self.guards.extend(g);
                self.block(then);
                self.guards.truncate(n);
                if let Some(e) = els {
                    let g = self.cond_guards(cond, false);
                    self.guards.extend(g);
                    self.block(e);
                    self.guards.truncate(n);
                }
            }
            StmtKind::For {
                var,
                lo,
                hi,
                inclusive,
                step,
                body,
                ..
            } => {
                self.refs(lo);
                self.refs(hi);
                if let Some(st) = step {
                    self.refs(st);
                }
                let c = |e: &Expr| linear(e).and_then(|l| l.as_const());
                let saved = self.serial.remove(var);
                self.scopes.push(BTreeMap::new());
                match (c(lo), c(hi)) {
                    (Some(a), Some(b)) if !self.assigned.contains(var) => {
                        let b = if *inclusive { b } else { b - 1 };
                        if a <= b {
                            self.serial.insert(var.clone(), (a, b));
                            self.scopes
                                .last_mut()
                                .expect("a scope")
                                .insert(var.clone(), Val::one(lin_var(var)));
                        }
                    }
                    _ => {
                        self.scopes.last_mut().expect("a scope").insert(
                            var.clone(),
                            Val::Unknown(format!(
                                "`{var}` is the index of a serial loop without constant bounds"
                            )),
                        );
                    }
                }
                self.block(body);
                self.scopes.pop();
                self.serial.remove(var);
                if let Some(s) = saved {
                    self.serial.insert(var.clone(), s);
                }
            }
            StmtKind::While { cond, body } => {
                self.refs(cond);
                self.block(body);
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }

    /// Records the element references inside `e`, in evaluation order.
    fn refs(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Elem { array, index } => {
                index.iter().for_each(|i| self.refs(i));
                self.record(array, index, false);
            }
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => self.refs(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.refs(lhs);
                self.refs(rhs);
            }
            ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => {
                args.iter().for_each(|a| self.refs(a))
            }
            ExprKind::Select { cond, then, els } => {
                self.refs(cond);
                let n = self.guards.len();
                let g = self.cond_guards(cond, true);
                self.guards.extend(g);
                self.refs(then);
                self.guards.truncate(n);
                let g = self.cond_guards(cond, false);
                self.guards.extend(g);
                self.refs(els);
                self.guards.truncate(n);
            }
        }
    }

    fn record(&mut self, array: &str, index: &[Expr], write: bool) {
        let n = index.len();
        let (reach, within) = index
            .iter()
            .enumerate()
            .map(|(d, e)| {
                let v = self.expr(e).guarded(&self.guards);
                let within = self.within(&v);
                // the parallel index of this subscript's axis, when the nest has one
                let axis = n - 1 - d;
                let own =
                    (axis < self.par.len()).then(|| self.par[self.par.len() - 1 - axis].clone());
                (self.place(v, own.as_deref()), within)
            })
            .unzip();
        let textbook = index.iter().all(|e| {
            linear(e).is_some_and(|l| {
                l.as_const().is_some() || self.par.iter().any(|p| l.offset_of(p).is_some())
            })
        });
        self.out.push(RefReach {
            array: array.to_string(),
            write,
            reach,
            text: index.iter().map(crate::emit::rust::expr).collect(),
            textbook,
            within,
        });
    }

    /// The abstract value of an integer expression.
    fn expr(&self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Lit(Lit::Int { value, .. }) => match i64::try_from(*value) {
                Ok(c) => Val::constant(c),
                Err(_) => Val::Unknown("a literal beyond i64".into()),
            },
            ExprKind::Lit(_) => Val::Unknown("not an integer".into()),
            ExprKind::Var(v) => match self.lookup(v) {
                Some(val) => val.clone(),
                None if self.assigned.contains(v) => {
                    Val::Unknown(format!("`{v}` is assigned in the kernel"))
                }
                None if self.par.contains(v) || self.k.scalars.iter().any(|s| &s.name == v) => {
                    Val::one(lin_var(v))
                }
                None => Val::Unknown(format!("`{v}` is not a loop index, scalar or `let`")),
            },
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => self.expr(expr).map(|l| lin_scale(&l, -1)),
            // a cast to 32 bits or more keeps an index's value; a narrower one may wrap it
            ExprKind::Cast { expr, to } if to.is_int() && !to.is_narrow() => self.expr(expr),
            ExprKind::Cast { to, .. } if to.is_int() => {
                Val::Unknown(format!("a cast to `{}`, which may wrap", to.rust_name()))
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            ExprKind::Select { cond, then, els } => {
                let t = self.expr(then).guarded(&self.cond_guards(cond, true));
                let f = self.expr(els).guarded(&self.cond_guards(cond, false));
                t.union(f)
            }
            ExprKind::Call { func, args } => self.call(*func, args),
            ExprKind::Elem { array, .. } => {
                Val::Unknown(format!("an index read from `{array}` (indirect)"))
            }
            _ => Val::Unknown("not an integer expression of indices".into()),
        }
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> Val {
        let (l, r) = (self.expr(lhs), self.expr(rhs));
        match op {
            BinOp::Add => l.zip(r, |a, b| Some(lin_add(a, b, 1)), ""),
            BinOp::Sub => l.zip(r, |a, b| Some(lin_add(a, b, -1)), ""),
            BinOp::Mul => l.zip(
                r,
                |a, b| match (a.as_const(), b.as_const()) {
                    (Some(k), _) => Some(lin_scale(b, k)),
                    (_, Some(k)) => Some(lin_scale(a, k)),
                    _ => None,
                },
                "a product of two indices",
            ),
            BinOp::Div => l.zip(
                r,
                |a, b| Some(lin_const(a.as_const()?.checked_div(b.as_const()?)?)),
                "a division",
            ),
            BinOp::Rem => self.rem(l, r),
            _ => Val::Unknown(format!("the operator `{}`", op.c_op())),
        }
    }

    /// `e % n`: constants fold; a form `f` modulo a single form `n` is `f` (when
    /// `0 <= f < n`) or `f - n` (when `f >= n`): the periodic wrap, for `0 <= f < 2n`,
    /// which the decomposition checks at run time (the modulus is the array's extent).
    fn rem(&self, l: Val, r: Val) -> Val {
        if let (Some(a), Some(b)) = (
            l.single().and_then(Linear::as_const),
            r.single().and_then(Linear::as_const),
        ) {
            return match a.checked_rem(b) {
                Some(c) => Val::constant(c),
                None => Val::Unknown("a remainder by zero".into()),
            };
        }
        let Some(n) = r.single().cloned() else {
            return Val::Unknown("a remainder by something other than one scalar".into());
        };
        let Val::Cases(cs) = l else { return l };
        let mut out = Vec::new();
        for c in cs {
            let wrapped = lin_add(&c.form, &n, -1);
            // f < n, i.e. n - f - 1 >= 0
            let mut below = c.guards.clone();
            below.push(lin_add(&lin_add(&n, &c.form, -1), &lin_const(1), -1));
            out.push(Case {
                form: c.form.clone(),
                guards: below,
            });
            let mut above = c.guards;
            above.push(wrapped.clone());
            out.push(Case {
                form: wrapped,
                guards: above,
            });
        }
        capped(out)
    }

    fn call(&self, func: MathFn, args: &[Expr]) -> Val {
        let v = |i: usize| self.expr(&args[i]);
        match func {
            MathFn::Min | MathFn::Max if args.len() == 2 => select_extreme(func, v(0), v(1)),
            MathFn::Clamp if args.len() == 3 => {
                select_extreme(MathFn::Min, select_extreme(MathFn::Max, v(0), v(1)), v(2))
            }
            // `a.saturating_sub(b)` of unsigned indices is `max(a, b) - b`
            MathFn::SaturatingSub if args.len() == 2 => {
                let b = v(1);
                select_extreme(MathFn::Max, v(0), b.clone()).zip(
                    b,
                    |x, y| Some(lin_add(x, y, -1)),
                    "",
                )
            }
            f => Val::Unknown(format!("the function `{}`", f.rust_name())),
        }
    }

    /// The guards `cond` (when `holds`) or its negation gives: comparisons of single
    /// linear forms, through `!` and `&&` (`||` when negated).
    fn cond_guards(&self, cond: &Expr, holds: bool) -> Vec<Linear> {
        match &cond.kind {
            ExprKind::Unary {
                op: UnOp::Not,
                expr,
            } => self.cond_guards(expr, !holds),
            ExprKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } if holds => {
                let mut g = self.cond_guards(lhs, true);
                g.extend(self.cond_guards(rhs, true));
                g
            }
            ExprKind::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
            } if !holds => {
                let mut g = self.cond_guards(lhs, false);
                g.extend(self.cond_guards(rhs, false));
                g
            }
            ExprKind::Binary { op, lhs, rhs } if op.is_comparison() => {
                let (Some(a), Some(b)) = (
                    self.expr(lhs).single().cloned(),
                    self.expr(rhs).single().cloned(),
                ) else {
                    return Vec::new();
                };
                let op = if holds { *op } else { negate(*op) };
                let one = lin_const(1);
                match op {
                    BinOp::Lt => vec![lin_add(&lin_add(&b, &a, -1), &one, -1)],
                    BinOp::Le => vec![lin_add(&b, &a, -1)],
                    BinOp::Gt => vec![lin_add(&lin_add(&a, &b, -1), &one, -1)],
                    BinOp::Ge => vec![lin_add(&a, &b, -1)],
                    BinOp::Eq => vec![lin_add(&b, &a, -1), lin_add(&a, &b, -1)],
                    BinOp::Ne => self.strict(&a, &b),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// The guard `a != b` gives where one side is already known to be at least the other
    /// (a loop's bound or an enclosing guard): `z != 0` under `z >= 0` is `z - 1 >= 0`,
    /// `z != nz - 1` under `nz - 1 - z >= 0` is `nz - 2 - z >= 0`.
    fn strict(&self, a: &Linear, b: &Linear) -> Vec<Linear> {
        let known = |d: &Linear| self.bounds.iter().chain(&self.guards).any(|g| g == d);
        let one = lin_const(1);
        [lin_add(a, b, -1), lin_add(b, a, -1)]
            .into_iter()
            .filter(known)
            .map(|d| lin_add(&d, &one, -1))
            .collect()
    }

    /// The absolute bounds of a subscript's value ([`Within`]), if every case has both.
    fn within(&self, v: &Val) -> Option<Within> {
        let Val::Cases(cases) = v else { return None };
        let scalar_only = |l: &Linear| {
            l.coeffs
                .keys()
                .all(|n| self.k.scalars.iter().any(|s| &s.name == n))
        };
        let mut out = Vec::with_capacity(cases.len());
        for c in cases {
            // serial loop indices of constant bounds widen the form
            let mut form = c.form.clone();
            let (mut dlo, mut dhi) = (0i64, 0i64);
            for (s, &(a, b)) in &self.serial {
                if let Some(k) = form.coeffs.remove(s) {
                    dlo += (k * a).min(k * b);
                    dhi += (k * a).max(k * b);
                }
            }
            let all: Vec<&Linear> = c.guards.iter().chain(&self.bounds).take(16).collect();
            let mut sums: Vec<Linear> = vec![lin_const(0)];
            sums.extend(all.iter().map(|g| (*g).clone()));
            for (i, a) in all.iter().enumerate() {
                for b in &all[i + 1..] {
                    sums.push(lin_add(a, b, 1));
                }
            }
            // form = (form - g) + g >= form - g; form = (form + g) - g <= form + g
            let mut lo: Vec<Linear> = Vec::new();
            let mut hi: Vec<Linear> = Vec::new();
            for g in &sums {
                let l = lin_add(&lin_add(&form, g, -1), &lin_const(dlo), 1);
                if scalar_only(&l) && !lo.contains(&l) && lo.len() < MAX_FORMS {
                    lo.push(l);
                }
                let h = lin_add(&lin_add(&form, g, 1), &lin_const(dhi), 1);
                if scalar_only(&h) && !hi.contains(&h) && hi.len() < MAX_FORMS {
                    hi.push(h);
                }
            }
            if lo.is_empty() || hi.is_empty() {
                return None;
            }
            out.push(CaseBounds { lo, hi });
        }
        Some(Within { cases: out })
    }

    /// The reach of a subscript's value, relative to the parallel index it follows.
    fn place(&self, v: Val, own: Option<&str>) -> Reach {
        let cases = match v {
            Val::Cases(c) => c,
            Val::Unknown(why) => return Reach::Unbounded(why),
        };
        let mut acc: Option<Reach> = None;
        for c in &cases {
            let r = self.place_case(c, own);
            acc = Some(match acc {
                None => r,
                Some(a) => join(a, r),
            });
            if matches!(acc, Some(Reach::Unbounded(_))) {
                break;
            }
        }
        match acc {
            None | Some(Reach::Never) => Reach::Unbounded("no case can happen".into()),
            Some(r) => r,
        }
    }

    /// One case: `v + c` (possibly `± n` of a wrap) for the parallel index `v` it has, or
    /// bounded through its guards relative to `own`, or a constant.
    fn place_case(&self, c: &Case, own: Option<&str>) -> Reach {
        // serial loop indices of constant bounds widen the constant into an interval
        let mut form = c.form.clone();
        let (mut dlo, mut dhi) = (0i64, 0i64);
        for (s, &(a, b)) in &self.serial {
            if let Some(k) = form.coeffs.remove(s) {
                dlo += (k * a).min(k * b);
                dhi += (k * a).max(k * b);
            }
        }
        let pars: Vec<&String> = self
            .par
            .iter()
            .filter(|p| form.coeffs.contains_key(p.as_str()))
            .collect();
        if let [p] = pars[..]
            && form.coeffs[p.as_str()] == 1
        {
            let rest = lin_add(&form, &lin_var(p), -1);
            if let Some(k) = rest.as_const() {
                return Reach::Rel {
                    var: p.clone(),
                    lo: k + dlo,
                    hi: k + dhi,
                    wrap: None,
                };
            }
            // `v + c ± n`: a periodic wrap by the scalar `n`
            if rest.coeffs.len() == 1 {
                let (n, &k) = rest.coeffs.iter().next().expect("one");
                if k.abs() == 1 && self.k.scalars.iter().any(|s| &s.name == n) {
                    return Reach::Rel {
                        var: p.clone(),
                        lo: rest.constant + dlo,
                        hi: rest.constant + dhi,
                        wrap: Some(n.clone()),
                    };
                }
            }
            return Reach::Unbounded(format!("`{p}` plus a term that is not a constant"));
        }
        if !pars.is_empty() {
            return Reach::Unbounded("not a parallel index plus a constant".into());
        }
        // A form without parallel indices: relative to `own` from the guards, else a
        // constant.
        if let Some(v) = own {
            match self.bounded_by_guards(&form, &c.guards, v) {
                Some(Ok((lo, hi))) => {
                    return Reach::Rel {
                        var: v.to_string(),
                        lo: lo + dlo,
                        hi: hi + dhi,
                        wrap: None,
                    };
                }
                Some(Err(())) => return Reach::Never,
                None => {}
            }
        }
        match form.as_const() {
            Some(k) => Reach::Abs {
                lo: k + dlo,
                hi: k + dhi,
            },
            None => Reach::Unbounded("a plane that no guard places near the loop index".into()),
        }
    }

    /// Bounds `lo <= f - v <= hi` that the case's guards and the loops' bounds imply:
    /// where `(f - v) + Σg` is a constant `c` for one or two guards `g >= 0`, `f - v <= c`;
    /// where `(f - v) - Σg` is a constant `c`, `f - v >= c`. `Some(Err(()))` when the bounds
    /// contradict each other: the case never happens.
    fn bounded_by_guards(
        &self,
        f: &Linear,
        guards: &[Linear],
        v: &str,
    ) -> Option<Result<(i64, i64), ()>> {
        let d = lin_add(f, &lin_var(v), -1);
        let all: Vec<&Linear> = guards.iter().chain(&self.bounds).collect();
        let mut sums: Vec<Linear> = all.iter().map(|g| (*g).clone()).collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                sums.push(lin_add(a, b, 1));
            }
        }
        let (mut lo, mut hi): (Option<i64>, Option<i64>) = (None, None);
        for g in &sums {
            if let Some(c) = lin_add(&d, g, 1).as_const() {
                hi = Some(hi.map_or(c, |h| h.min(c)));
            }
            if let Some(c) = lin_add(&d, g, -1).as_const() {
                lo = Some(lo.map_or(c, |l| l.max(c)));
            }
        }
        match (lo, hi) {
            (Some(l), Some(h)) if l > h => Some(Err(())),
            (Some(l), Some(h)) => Some(Ok((l, h))),
            _ => None,
        }
    }
}

fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        o => o,
    }
}

/// `min(a, b)` (or `max`) as the cases of `a` where `a` is the smaller (larger) and
/// those of `b` where `b` is.
fn select_extreme(func: MathFn, a: Val, b: Val) -> Val {
    let (Val::Cases(xs), Val::Cases(ys)) = (&a, &b) else {
        return a.union(b);
    };
    let mut out = Vec::new();
    for x in xs {
        for y in ys {
            // for min: x chosen when y - x >= 0, y when x - y >= 0
            let (gx, gy) = if func == MathFn::Min {
                (lin_add(&y.form, &x.form, -1), lin_add(&x.form, &y.form, -1))
            } else {
                (lin_add(&x.form, &y.form, -1), lin_add(&y.form, &x.form, -1))
            };
            let mut g = x.guards.clone();
            g.extend(y.guards.iter().cloned());
            let mut cx = g.clone();
            cx.push(gx);
            out.push(Case {
                form: x.form.clone(),
                guards: cx,
            });
            let mut cy = g;
            cy.push(gy);
            out.push(Case {
                form: y.form.clone(),
                guards: cy,
            });
        }
    }
    capped(out)
}

/// The reach of a subscript that is one of two reaches.
fn join(a: Reach, b: Reach) -> Reach {
    match (a, b) {
        (u @ Reach::Unbounded(_), _) | (_, u @ Reach::Unbounded(_)) => u,
        (Reach::Never, r) | (r, Reach::Never) => r,
        (
            Reach::Rel { var, lo, hi, wrap },
            Reach::Rel {
                var: v2,
                lo: l2,
                hi: h2,
                wrap: w2,
            },
        ) if var == v2 && (wrap.is_none() || w2.is_none() || wrap == w2) => Reach::Rel {
            var,
            lo: lo.min(l2),
            hi: hi.max(h2),
            wrap: wrap.or(w2),
        },
        (Reach::Abs { lo, hi }, Reach::Abs { lo: l2, hi: h2 }) => Reach::Abs {
            lo: lo.min(l2),
            hi: hi.max(h2),
        },
        (a, b) => Reach::Unbounded(format!(
            "one case reaches {} and another {}",
            a.describe(),
            b.describe()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::kernel;

    /// The reach of the slowest subscript of each reference to `u`.
    fn slowest(body: &str) -> Vec<Reach> {
        let k = kernel(
            "r_0",
            &format!(
                "arrays: u f64 3, v f64 3
                 scalars: nz usize, ny usize, nx usize
                 nest: z 0..nz, y 0..ny, x 0..nx
                 {body}"
            ),
        );
        reaches(&k)
            .into_iter()
            .filter(|r| r.array == "u")
            .map(|r| r.reach[0].clone())
            .collect()
    }

    fn rel(lo: i64, hi: i64) -> Reach {
        Reach::Rel {
            var: "z".into(),
            lo,
            hi,
            wrap: None,
        }
    }

    #[test]
    fn the_four_clamp_spellings_reach_one_plane_each_side() {
        let down = [
            "let b = if z == 0 { z } else { z - 1 };",
            "let b = max(z, 1) - 1;",
            "let b = saturating_sub(z, 1);",
            "let b = clamp(z as i64 - 1, 0, nz as i64 - 1) as usize;",
        ];
        for d in down {
            assert_eq!(
                slowest(&format!("{d} v[z][y][x] = u[b][y][x];")),
                vec![rel(-1, 0)],
                "{d}"
            );
        }
        let up = [
            "let t = if z == nz - 1 { z } else { z + 1 };",
            "let t = min(z + 1, nz - 1);",
            "let t = clamp(z + 1, 0, nz - 1);",
        ];
        for u in up {
            assert_eq!(
                slowest(&format!("{u} v[z][y][x] = u[t][y][x];")),
                vec![rel(0, 1)],
                "{u}"
            );
        }
    }

    #[test]
    fn textbook_offsets_and_serial_loops_are_unchanged() {
        assert_eq!(
            slowest("v[z][y][x] = u[z + 1][y][x] + u[z - 2][y][x];"),
            vec![rel(1, 1), rel(-2, -2)]
        );
        assert_eq!(
            slowest("let mut s = 0.0; for d in 1..5 { s += u[z - d][y][x]; } v[z][y][x] = s;"),
            vec![rel(-4, -1)]
        );
    }

    #[test]
    fn mirrored_faces_reach_the_reflected_plane() {
        assert_eq!(
            slowest("let b = if z == 0 { 1 } else { z - 1 }; v[z][y][x] = u[b][y][x];"),
            vec![rel(-1, 1)]
        );
        // as a statement: the condition guards the branch
        assert_eq!(
            slowest("if z == 0 { v[z][y][x] = u[1][y][x]; } else { v[z][y][x] = u[z - 1][y][x]; }"),
            vec![rel(1, 1), rel(-1, -1)]
        );
    }

    #[test]
    fn periodic_wraps_are_offsets_modulo_a_scalar() {
        let wrap = |lo, hi| Reach::Rel {
            var: "z".into(),
            lo,
            hi,
            wrap: Some("nz".into()),
        };
        assert_eq!(
            slowest("v[z][y][x] = u[(z + 1) % nz][y][x];"),
            vec![wrap(1, 1)]
        );
        assert_eq!(
            slowest("v[z][y][x] = u[(z + nz - 1) % nz][y][x];"),
            vec![wrap(-1, -1)]
        );
    }

    #[test]
    fn what_cannot_be_bounded_says_why() {
        for (body, why) in [
            ("v[z][y][x] = u[nz - 1 - z][y][x];", "not a parallel index"),
            ("let k = z * z; v[z][y][x] = u[k][y][x];", "product"),
            (
                "let mut k = z; k = k + 1; v[z][y][x] = u[k][y][x];",
                "assigned",
            ),
            ("v[z][y][x] = u[z / 2][y][x];", "division"),
            ("v[z][y][x] = u[nz - 1][y][x];", "no guard"),
        ] {
            let r = slowest(body);
            let Reach::Unbounded(w) = &r[0] else {
                panic!("{body}: {r:?}")
            };
            assert!(w.contains(why), "{body}: {w}");
        }
        assert_eq!(
            slowest("v[z][y][x] = u[3][y][x];"),
            vec![Reach::Abs { lo: 3, hi: 3 }]
        );
    }

    /// The values of `u`'s slowest subscript, per case, the absolute bounds allow at
    /// `nz = 10`: `(max lo, min hi)`, or `None` where some case is unbounded.
    fn within_at(body: &str) -> Vec<Option<Vec<(i64, i64)>>> {
        let k = kernel(
            "r_0",
            &format!(
                "arrays: u f64 3, v f64 3
                 scalars: nz usize, ny usize, nx usize
                 nest: z 0..nz, y 0..ny, x 0..nx
                 {body}"
            ),
        );
        let eval = |l: &Linear| {
            l.constant
                + l.coeffs
                    .iter()
                    .map(|(n, c)| c * if n == "nz" { 10 } else { 1000 })
                    .sum::<i64>()
        };
        reaches(&k)
            .into_iter()
            .filter(|r| r.array == "u")
            .map(|r| {
                r.within[0].as_ref().map(|w| {
                    w.cases
                        .iter()
                        .map(|c| {
                            let lo = c.lo.iter().map(eval).max().expect("a lower bound");
                            let hi = c.hi.iter().map(eval).min().expect("an upper bound");
                            (lo, hi)
                        })
                        .collect()
                })
            })
            .collect()
    }

    #[test]
    fn clamped_faces_stay_inside_the_array() {
        // every spelling of the clamp: each case's value inside 0..=9 at nz = 10, so a
        // row at a face needs no check; the interval reach alone (z-1..=z) would
        for d in [
            "let b = if z == 0 { z } else { z - 1 };",
            "let b = if z != 0 { z - 1 } else { z };",
            "let b = max(z, 1) - 1;",
            "let b = saturating_sub(z, 1);",
            "let b = clamp(z as i64 - 1, 0, nz as i64 - 1) as usize;",
            "let b = if z == nz - 1 { z } else { z + 1 };",
            "let b = min(z + 1, nz - 1);",
            "let b = if z == 0 { 1 } else { z - 1 };",
        ] {
            let w = within_at(&format!("{d} v[z][y][x] = u[b][y][x];"));
            let cases = w[0].as_ref().unwrap_or_else(|| panic!("{d}: unbounded"));
            // a case whose bounds cross never happens (`min`'s arm the loop never picks)
            assert!(cases.iter().any(|(lo, hi)| lo <= hi), "{d}: {cases:?}");
            for &(lo, hi) in cases {
                assert!(lo > hi || (lo >= 0 && hi <= 9), "{d}: {cases:?}");
            }
        }
        // the textbook neighbour is not: one plane below the array at z = 0
        assert_eq!(
            within_at("v[z][y][x] = u[z - 1][y][x];"),
            vec![Some(vec![(-1, 8)])]
        );
        assert_eq!(
            within_at("v[z][y][x] = u[z][y][x];"),
            vec![Some(vec![(0, 9)])]
        );
        // a serial loop widens the bounds; an index read from data has none
        assert_eq!(
            within_at("let mut s = 0.0; for d in 1..3 { s += u[z - d][y][x]; } v[z][y][x] = s;"),
            vec![Some(vec![(-2, 8)])]
        );
        assert_eq!(within_at("v[z][y][x] = u[z * z][y][x];"), vec![None]);
    }

    #[test]
    fn every_axis_has_its_reach() {
        let k = kernel(
            "r_0",
            "arrays: u f64 2, v f64 2
             scalars: ny usize, nx usize
             nest: y 0..ny, x 0..nx
             let xl = if x == 0 { x } else { x - 1 };
             let yu = min(y + 1, ny - 1);
             v[y][x] = u[yu][xl] + u[y][(x + 1) % nx];",
        );
        let r: Vec<Vec<String>> = reaches(&k)
            .iter()
            .map(|r| r.reach.iter().map(Reach::describe).collect())
            .collect();
        assert_eq!(
            r,
            vec![
                vec!["y+0..=y+1".to_string(), "x-1..=x+0".into()],
                vec!["y+0".into(), "x+1 (mod nx)".into()],
                vec!["y+0".into(), "x+0".into()],
            ]
        );
    }
}
