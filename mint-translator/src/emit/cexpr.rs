//! Printing typed IR expressions and statements as CUDA C++.
//!
//! Expressions are printed with C's precedence rules, so the output carries only the
//! parentheses C needs. Every operation is printed at its Rust type: `f32` math calls the
//! `f`-suffixed CUDA functions and `f32` literals carry an `f` suffix; arithmetic on
//! integers narrower than `int` is wrapped back to its width, as Rust's is.
//!
//! Array element references are printed through a [`RefResolver`], which is how the
//! optimizer redirects references to shared memory and registers while the baseline
//! flattens them to device-memory addresses (thesis Sec. 4.2.5).

use super::names::Names;
use crate::ir::*;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

/// Decides how an array element reference is spelled in C.
pub trait RefResolver {
    /// The C lvalue/rvalue for `array[index]`.
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String;
    /// The kernel being printed (its arrays' roles decide how some reads are printed).
    fn kernel(&self) -> &Kernel;
}

/// Device helper functions the printed code calls; [`helpers_source`] defines them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Helper {
    Powi,
    IPow,
    IMin,
    IMax,
    IAbs,
    Clamp,
    Signum,
    Fract,
    RemEuclid,
    SatSub,
    VolatileLoad,
    /// `cp.async` into shared memory of one 4- or 8-byte element (`mint_cp_async`) or of a
    /// 16-byte chunk (`mint_cp_async16`), zero-filled when the source is outside the
    /// array; its group commit and wait (`pipeline`, compute capability 8.0).
    AsyncCopy,
}

/// Prints expressions and statements of one kernel body.
pub struct CPrinter<'a> {
    pub names: Names,
    pub refs: &'a dyn RefResolver,
    pub helpers: RefCell<BTreeSet<Helper>>,
    /// Set by the emitter: whether an `f32` literal needs the `f` suffix (always true; kept
    /// as a field so tests can print Rust-like text).
    pub indent: usize,
    pub out: String,
    /// Inside a select whose arms both read arrays: reads of written arrays are volatile.
    volatile_written: Cell<u32>,
}

const PREC_TERNARY: u8 = 3;
const PREC_UNARY: u8 = 15;
const PREC_ATOM: u8 = 16;

fn ty(e: &Expr) -> ScalarTy {
    e.ty.unwrap_or(ScalarTy::F64)
}

/// `1.0f`/`1.0` for a literal of `t` with decimal text `text`.
pub fn float_lit(text: &str, t: ScalarTy) -> String {
    let f32 = t == ScalarTy::F32;
    match text {
        "inf" => (if f32 {
            "__int_as_float(0x7f800000)"
        } else {
            "__longlong_as_double(0x7ff0000000000000LL)"
        })
        .into(),
        "-inf" => (if f32 {
            "__int_as_float(0xff800000)"
        } else {
            "__longlong_as_double(0xfff0000000000000LL)"
        })
        .into(),
        "nan" => (if f32 {
            "__int_as_float(0x7fc00000)"
        } else {
            "__longlong_as_double(0x7ff8000000000000LL)"
        })
        .into(),
        _ if f32 => format!("{text}f"),
        _ => text.to_string(),
    }
}

/// An integer literal of type `t`.
pub fn int_lit(v: u128, t: ScalarTy) -> String {
    match t {
        ScalarTy::U32 => format!("{v}u"),
        ScalarTy::U64 => format!("{v}ull"),
        ScalarTy::I64 => format!("{v}ll"),
        ScalarTy::Usize | ScalarTy::Isize if v > i32::MAX as u128 => format!("(idx_t){v}ll"),
        ScalarTy::F32 => format!("{v}.0f"),
        ScalarTy::F64 => format!("{v}.0"),
        ScalarTy::Bool => (if v != 0 { "true" } else { "false" }).into(),
        _ => format!("{v}"),
    }
}

/// The identity of a reduction operator for type `t`, as a C literal.
pub fn red_identity(op: RedOp, t: ScalarTy) -> String {
    match (op, t.is_float()) {
        (RedOp::Add, _) => int_lit(0, t),
        (RedOp::Mul, _) => int_lit(1, t),
        (RedOp::Min, true) => float_lit("inf", t),
        (RedOp::Max, true) => float_lit("-inf", t),
        (RedOp::Min, false) => match t {
            ScalarTy::I32 => "2147483647".into(),
            ScalarTy::I64 => "9223372036854775807ll".into(),
            _ => "4294967295u".into(),
        },
        (RedOp::Max, false) => match t {
            ScalarTy::I32 => "(-2147483647 - 1)".into(),
            ScalarTy::I64 => "(-9223372036854775807ll - 1)".into(),
            _ => "0u".into(),
        },
    }
}

/// `op(a, b)` in C for a reduction operator.
pub fn red_combine(op: RedOp, t: ScalarTy, a: &str, b: &str) -> String {
    let f = if t == ScalarTy::F32 { "f" } else { "" };
    match op {
        RedOp::Add => format!("{a} + {b}"),
        RedOp::Mul => format!("{a} * {b}"),
        RedOp::Min if t.is_float() => format!("fmin{f}({a}, {b})"),
        RedOp::Max if t.is_float() => format!("fmax{f}({a}, {b})"),
        RedOp::Min => format!("({b} < {a} ? {b} : {a})"),
        RedOp::Max => format!("({b} > {a} ? {b} : {a})"),
    }
}

impl<'a> CPrinter<'a> {
    pub fn new(names: Names, refs: &'a dyn RefResolver) -> CPrinter<'a> {
        CPrinter {
            names,
            refs,
            helpers: RefCell::new(BTreeSet::new()),
            indent: 1,
            out: String::new(),
            volatile_written: Cell::new(0),
        }
    }

    fn is_written(&self, array: &str) -> bool {
        let k = self.refs.kernel();
        k.array_index(array).is_some_and(|i| k.arrays[i].written)
    }

    /// Whether `e` reads an array element (only of arrays the kernel writes, if `written`).
    fn reads_array(&self, e: &Expr, written: bool) -> bool {
        let mut found = false;
        e.walk(&mut |x| {
            if let ExprKind::Elem { array, .. } = &x.kind {
                found |= !written || self.is_written(array);
            }
        });
        found
    }

    /// Records that the printed code calls helper `h`.
    pub fn use_helper(&self, h: Helper) {
        self.helpers.borrow_mut().insert(h);
    }

    /// The C text of `e`.
    pub fn expr(&self, e: &Expr) -> String {
        self.expr_prec(e).0
    }

    /// The C text of `e`, parenthesized if its precedence is below `min`.
    pub fn expr_at(&self, e: &Expr, min: u8) -> String {
        let (s, p) = self.expr_prec(e);
        if p < min { format!("({s})") } else { s }
    }

    fn wrap_narrow(&self, t: ScalarTy, s: String) -> (String, u8) {
        if t.is_narrow_int() {
            (format!("({})({s})", t.cuda_name()), PREC_UNARY)
        } else {
            (s, 0)
        }
    }

    fn expr_prec(&self, e: &Expr) -> (String, u8) {
        let t = ty(e);
        match &e.kind {
            ExprKind::Lit(Lit::Int { value, .. }) => (int_lit(*value, t), PREC_ATOM),
            ExprKind::Lit(Lit::Float { text, .. }) => (float_lit(text, t), PREC_ATOM),
            ExprKind::Lit(Lit::Bool(b)) => ((if *b { "true" } else { "false" }).into(), PREC_ATOM),
            ExprKind::Var(n) => (self.names.get(n), PREC_ATOM),
            ExprKind::Elem { array, index } => {
                let r = self.refs.elem(self, array, index);
                if self.volatile_written.get() > 0 && self.is_written(array) {
                    self.use_helper(Helper::VolatileLoad);
                    (format!("mint_vld({r})"), PREC_ATOM)
                } else {
                    (r, PREC_ATOM)
                }
            }
            ExprKind::Unary { op, expr } => self.unary(op, expr, t),
            ExprKind::Binary { op, lhs, rhs } => self.binary(op, lhs, rhs, t),
            ExprKind::Cast { expr, to } => {
                if expr.ty == Some(*to) {
                    return self.expr_prec(expr);
                }
                (
                    format!("({}){}", to.cuda_name(), self.expr_at(expr, PREC_UNARY)),
                    PREC_UNARY,
                )
            }
            ExprKind::Call { func, args } => (self.call(*func, args), PREC_ATOM),
            // `translate` inlines device functions before anything is printed
            ExprKind::Apply { func, .. } => {
                (format!("/* call of {func} not inlined */"), PREC_ATOM)
            }
            ExprKind::ArrayRef { array, .. } => (self.names.get(array), PREC_ATOM),
            ExprKind::Select { cond, then, els } => self.select(cond, then, els),
        }
    }

    /// A unary operation at type `t`.
    fn unary(&self, op: &UnOp, expr: &Expr, t: ScalarTy) -> (String, u8) {
        let inner = self.expr_at(expr, PREC_UNARY);
        let inner = if inner.starts_with('-') {
            format!("({inner})")
        } else {
            inner
        };
        match op {
            UnOp::Neg => {
                let s = format!("-{inner}");
                if t.is_narrow_int() {
                    self.wrap_narrow(t, s)
                } else {
                    (s, PREC_UNARY)
                }
            }
            UnOp::Not if t == ScalarTy::Bool => (format!("!{inner}"), PREC_UNARY),
            UnOp::Not => {
                let s = format!("~{inner}");
                if t.is_narrow_int() {
                    self.wrap_narrow(t, s)
                } else {
                    (s, PREC_UNARY)
                }
            }
        }
    }

    /// A binary operation at type `t`: `fmod` for a float remainder, a fused
    /// multiply-add for a float sum or difference with a product, else C's operator.
    fn binary(&self, op: &BinOp, lhs: &Expr, rhs: &Expr, t: ScalarTy) -> (String, u8) {
        if *op == BinOp::Rem && ty(lhs).is_float() {
            let f = if ty(lhs) == ScalarTy::F32 {
                "fmodf"
            } else {
                "fmod"
            };
            return (
                format!("{f}({}, {})", self.expr(lhs), self.expr(rhs)),
                PREC_ATOM,
            );
        }
        // A sum or difference with a product is printed as an explicit fused
        // multiply-add, so that every variant of a kernel rounds alike. Left to
        // the compilers, `s + a*b` and `s - a*b` are fused or not by the shape of
        // the code around them: NVVM fuses `s + a*b` but leaves `s - a*b` to
        // ptxas, which fuses it only where the product has no other use, and a
        // z queue that computes two points in one thread shares the product
        // (k[z] + k[z+1])·(u[z+1] − u[z]) between them (heat3d-7pt-var: 15 of 43
        // candidates rounded differently and the autotuner rejected them). With
        // `a*b + c*d` NVVM picked the product to fuse by whether an operand came
        // from a register or a load (the 27-point box). The product on the right
        // is fused where both sides are products.
        if matches!(op, BinOp::Add | BinOp::Sub) && t.is_float() {
            let f = if t == ScalarTy::F32 {
                "__fmaf_rn"
            } else {
                "__fma_rn"
            };
            // (product, addend, whether the product is the right operand)
            let fused = if is_mul(rhs) {
                Some((rhs, lhs, true))
            } else if is_mul(lhs) {
                Some((lhs, rhs, false))
            } else {
                None
            };
            if let Some((prod, addend, right)) = fused
                && let ExprKind::Binary { lhs: a, rhs: b, .. } = &prod.kind
            {
                let (mut a, b, mut c) = (self.expr(a), self.expr(b), self.expr(addend));
                // s - a*b = fma(-a, b, s); a*b - s = fma(a, b, -s)
                if *op == BinOp::Sub {
                    let neg = |s: &mut String| *s = format!("-({s})");
                    neg(if right { &mut a } else { &mut c });
                }
                return (format!("{f}({a}, {b}, {c})"), PREC_ATOM);
            }
        }
        let p = op.c_prec();
        // Comparisons of comparisons need parentheses in C for clarity and are rare;
        // treat all binary operators as left-associative.
        let l = self.expr_at(lhs, p);
        let r = self.expr_at(rhs, p + 1);
        let s = format!("{l} {} {r}", op.c_op());
        if !op.is_comparison() && !op.is_logical() && t.is_narrow_int() {
            self.wrap_narrow(t, s)
        } else {
            (s, p)
        }
    }

    /// `cond ? then : els`.
    fn select(&self, cond: &Expr, then: &Expr, els: &Expr) -> (String, u8) {
        // NVVM (CUDA 13.0) turns `c ? p[i] : q[j]` into one load through a selected
        // pointer, and marks it non-coherent when q is a read-only array even where p
        // is written in this kernel; ptxas then moves that load above the store to
        // p[i] (found by tests/fuzz.rs, seed 21045). Reads of written arrays in the
        // arms of such a select are therefore volatile loads.
        let guard = self.reads_array(then, false)
            && self.reads_array(els, false)
            && (self.reads_array(then, true) || self.reads_array(els, true));
        let c = self.expr_at(cond, PREC_TERNARY + 1);
        self.volatile_written
            .set(self.volatile_written.get() + u32::from(guard));
        let (a, b) = (
            self.expr_at(then, PREC_TERNARY + 1),
            self.expr_at(els, PREC_TERNARY),
        );
        self.volatile_written
            .set(self.volatile_written.get() - u32::from(guard));
        (format!("{c} ? {a} : {b}"), PREC_TERNARY)
    }

    fn call(&self, func: MathFn, args: &[Expr]) -> String {
        let t = ty(&args[0]);
        let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
        if t.is_float() {
            self.float_call(func, args, &a, t)
        } else {
            self.int_call(func, &a, t)
        }
    }

    /// A math function on floats of type `t` (`args` printed as `a`): CUDA's function,
    /// `f`-suffixed in `f32`, or a helper.
    fn float_call(&self, func: MathFn, args: &[Expr], a: &[String], t: ScalarTy) -> String {
        let f32 = t == ScalarTy::F32;
        let fname = |base: &str| {
            if f32 {
                format!("{base}f")
            } else {
                base.to_string()
            }
        };
        use MathFn::*;
        match func {
            Sqrt => format!("{}({})", fname("sqrt"), a[0]),
            Cbrt => format!("{}({})", fname("cbrt"), a[0]),
            Exp => format!("{}({})", fname("exp"), a[0]),
            Exp2 => format!("{}({})", fname("exp2"), a[0]),
            ExpM1 => format!("{}({})", fname("expm1"), a[0]),
            Ln => format!("{}({})", fname("log"), a[0]),
            Log2 => format!("{}({})", fname("log2"), a[0]),
            Log10 => format!("{}({})", fname("log10"), a[0]),
            Ln1p => format!("{}({})", fname("log1p"), a[0]),
            Sin => format!("{}({})", fname("sin"), a[0]),
            Cos => format!("{}({})", fname("cos"), a[0]),
            Tan => format!("{}({})", fname("tan"), a[0]),
            Asin => format!("{}({})", fname("asin"), a[0]),
            Acos => format!("{}({})", fname("acos"), a[0]),
            Atan => format!("{}({})", fname("atan"), a[0]),
            Sinh => format!("{}({})", fname("sinh"), a[0]),
            Cosh => format!("{}({})", fname("cosh"), a[0]),
            Tanh => format!("{}({})", fname("tanh"), a[0]),
            Asinh => format!("{}({})", fname("asinh"), a[0]),
            Acosh => format!("{}({})", fname("acosh"), a[0]),
            Atanh => format!("{}({})", fname("atanh"), a[0]),
            Floor => format!("{}({})", fname("floor"), a[0]),
            Ceil => format!("{}({})", fname("ceil"), a[0]),
            Round => format!("{}({})", fname("round"), a[0]),
            Trunc => format!("{}({})", fname("trunc"), a[0]),
            Abs => format!("{}({})", fname("fabs"), a[0]),
            Min => format!("{}({}, {})", fname("fmin"), a[0], a[1]),
            Max => format!("{}({}, {})", fname("fmax"), a[0], a[1]),
            Powf => format!("{}({}, {})", fname("pow"), a[0], a[1]),
            Atan2 => format!("{}({}, {})", fname("atan2"), a[0], a[1]),
            Hypot => format!("{}({}, {})", fname("hypot"), a[0], a[1]),
            Copysign => format!("{}({}, {})", fname("copysign"), a[0], a[1]),
            MulAdd => format!("{}({}, {}, {})", fname("fma"), a[0], a[1], a[2]),
            IsNan => format!("isnan({})", a[0]),
            IsFinite => format!("isfinite({})", a[0]),
            IsInfinite => format!("isinf({})", a[0]),
            Recip => format!("{} / {}", float_lit("1.0", t), self.expr_at(&args[0], 14)),
            ToDegrees => {
                if f32 {
                    format!(
                        "{} * 57.2957795130823208767981548141051703f",
                        self.expr_at(&args[0], 13)
                    )
                } else {
                    format!(
                        "{} * (180.0 / 3.14159265358979323846264338327950288)",
                        self.expr_at(&args[0], 13)
                    )
                }
            }
            ToRadians => {
                if f32 {
                    format!(
                        "{} * (3.14159265358979323846264338327950288f / 180.0f)",
                        self.expr_at(&args[0], 13)
                    )
                } else {
                    format!(
                        "{} * (3.14159265358979323846264338327950288 / 180.0)",
                        self.expr_at(&args[0], 13)
                    )
                }
            }
            Fract => {
                self.use_helper(Helper::Fract);
                format!("mint_fract({})", a[0])
            }
            Signum => {
                self.use_helper(Helper::Signum);
                format!("mint_signum({})", a[0])
            }
            Powi => {
                self.use_helper(Helper::Powi);
                format!("mint_powi({}, {})", a[0], a[1])
            }
            Clamp => {
                self.use_helper(Helper::Clamp);
                format!("mint_clamp({}, {}, {})", a[0], a[1], a[2])
            }
            RemEuclid => {
                self.use_helper(Helper::RemEuclid);
                format!("mint_rem_euclid({}, {})", a[0], a[1])
            }
            Pow | SaturatingSub => format!("/* {} on float */ 0", func.rust_name()),
        }
    }

    /// A math function on integers of type `t` (arguments printed as `a`): a helper.
    fn int_call(&self, func: MathFn, a: &[String], t: ScalarTy) -> String {
        let c = t.cuda_name();
        use MathFn::*;
        match func {
            Abs => {
                self.use_helper(Helper::IAbs);
                format!("mint_iabs<{c}>({})", a[0])
            }
            Min => {
                self.use_helper(Helper::IMin);
                format!("mint_imin<{c}>({}, {})", a[0], a[1])
            }
            Max => {
                self.use_helper(Helper::IMax);
                format!("mint_imax<{c}>({}, {})", a[0], a[1])
            }
            Pow => {
                self.use_helper(Helper::IPow);
                format!("mint_ipow<{c}>({}, {})", a[0], a[1])
            }
            Clamp => {
                self.use_helper(Helper::Clamp);
                format!("mint_clamp<{c}>({}, {}, {})", a[0], a[1], a[2])
            }
            Signum => {
                self.use_helper(Helper::Signum);
                format!("mint_signum<{c}>({})", a[0])
            }
            RemEuclid => {
                self.use_helper(Helper::RemEuclid);
                format!("mint_rem_euclid<{c}>({}, {})", a[0], a[1])
            }
            SaturatingSub => {
                // Rust's unsigned types saturate at 0 whatever their C type (`usize`
                // prints as the signed `idx_t`)
                self.use_helper(Helper::SatSub);
                let unsigned = !t.is_signed_int();
                format!("mint_sat_sub<{c}, {unsigned}>({}, {})", a[0], a[1])
            }
            other => format!("/* unsupported integer {} */ 0", other.rust_name()),
        }
    }

    // ----- statements -----

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Prints the statements of `b` in a new scope (without braces).
    pub fn block_body(&mut self, b: &Block) {
        self.names.push();
        for s in &b.stmts {
            self.stmt(s);
        }
        self.names.pop();
    }

    fn braced(&mut self, head: &str, b: &Block) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.block_body(b);
        self.indent -= 1;
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Var(n) => self.names.get(n),
            Place::Elem { array, index } => self.refs.elem(self, array, index),
        }
    }

    /// `if (cond) { … }`, with `} else if (…) {` for else blocks holding one `if`.
    fn if_stmt(&mut self, cond: &Expr, then: &Block, els: &Option<Block>) {
        let c = self.expr(cond);
        self.braced(&format!("if ({c})"), then);
        let mut els = els.as_ref();
        while let Some(e) = els {
            // `else if` chains come from the front end as an else block holding one `if`.
            if let [
                Stmt {
                    kind:
                        StmtKind::If {
                            cond,
                            then,
                            els: e2,
                        },
                    ..
                },
            ] = e.stmts.as_slice()
            {
                let c = self.expr(cond);
                self.braced(&format!("}} else if ({c})"), then);
                els = e2.as_ref();
            } else {
                self.braced("} else", e);
                els = None;
            }
        }
        self.line("}");
    }

    /// A serial `for` loop of the loop body (counting down on a copy for `.rev()`).
    fn for_stmt(&mut self, s: &Stmt) {
        let StmtKind::For {
            var,
            ty,
            lo,
            hi,
            inclusive,
            step,
            reverse,
            body,
        } = &s.kind
        else {
            unreachable!("a for loop")
        };
        let t = ty.unwrap_or(ScalarTy::Usize).cuda_name();
        let lo_s = self.expr(lo);
        let hi_s = self.expr(hi);
        let step_s = step.as_ref().map(|e| self.expr(e));
        self.names.push();
        let v = self.names.bind(var);
        let end = format!("{v}_end");
        self.names.reserve(&end);
        let head = if *reverse {
            // Rust's `(lo..hi).rev()` yields hi-1 down to lo; count down on a copy
            // so that unsigned indices never wrap.
            let it = format!("{v}_it");
            self.names.reserve(&it);
            let hi_excl = if *inclusive {
                format!("{hi_s} + 1")
            } else {
                hi_s
            };
            self.line(&format!(
                "for ({t} {it} = {hi_excl}, {end} = {lo_s}; {it} > {end}; ) {{"
            ));
            self.indent += 1;
            self.line(&format!("const {t} {v} = --{it};"));
            None
        } else {
            let cmp = if *inclusive { "<=" } else { "<" };
            let inc = match &step_s {
                Some(s) => format!("{v} += {s}"),
                None => format!("++{v}"),
            };
            Some(format!(
                "for ({t} {v} = {lo_s}, {end} = {hi_s}; {v} {cmp} {end}; {inc}) {{"
            ))
        };
        if let Some(h) = head {
            self.line(&h);
            self.indent += 1;
        }
        self.block_body(body);
        self.indent -= 1;
        self.line("}");
        self.names.pop();
    }

    pub fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { name, ty, init, .. } => {
                let t = ty.unwrap_or(ScalarTy::F64);
                let init_s = init.as_ref().map(|e| self.expr(e));
                let c = self.names.bind(name);
                match init_s {
                    Some(i) => self.line(&format!("{} {c} = {i};", t.cuda_name())),
                    None => self.line(&format!("{} {c};", t.cuda_name())),
                }
            }
            StmtKind::Assign { place, op, value } => {
                let lhs = self.place(place);
                let vt = value.ty.unwrap_or(ScalarTy::F64);
                let line = match op {
                    None => format!("{lhs} = {};", self.expr(value)),
                    Some(BinOp::Rem) if vt.is_float() => {
                        let f = if vt == ScalarTy::F32 { "fmodf" } else { "fmod" };
                        format!("{lhs} = {f}({lhs}, {});", self.expr(value))
                    }
                    Some(o) if vt.is_narrow_int() && !o.is_shift() => format!(
                        "{lhs} = ({})({lhs} {} {});",
                        vt.cuda_name(),
                        o.c_op(),
                        self.expr_at(value, o.c_prec() + 1)
                    ),
                    Some(o) => format!("{lhs} {}= {};", o.c_op(), self.expr(value)),
                };
                self.line(&line);
            }
            StmtKind::If { cond, then, els } => self.if_stmt(cond, then, els),
            StmtKind::For { .. } => self.for_stmt(s),
            StmtKind::While { cond, body } => {
                let c = self.expr(cond);
                self.braced(&format!("while ({c})"), body);
                self.line("}");
            }
            StmtKind::Block(b) => {
                self.line("{");
                self.indent += 1;
                self.block_body(b);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
        }
    }
}

/// Whether `e` is a floating-point multiplication (a candidate for contraction).
fn is_mul(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Binary { op: BinOp::Mul, .. }) && ty(e).is_float()
}
