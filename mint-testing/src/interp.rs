//! A plain interpreter of the kernel IR: it runs a typed kernel on host arrays, one point
//! of the iteration space after another, with Rust's semantics for every operation (the
//! semantics the CPU backend compiles the same loop body to). It is the reference that
//! generated kernels are checked against (issue #14): what the translator, the optimizer
//! and the GPU compute must equal what this computes, bit for bit for integers and to
//! rounding for floats.
//!
//! Integers wrap at their width (as CUDA's do; Rust's debug builds would panic instead),
//! `f32` arithmetic rounds to `f32` after every operation, math functions are Rust's.

use mint_translator::ir::*;
use std::collections::HashMap;

/// A value of the kernel language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    /// An integer of the given type, held sign- or zero-extended.
    Int(i128, ScalarTy),
    F32(f32),
    F64(f64),
}

impl Value {
    /// The value as `f64` (integers converted, `true` as 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Bool(b) => b as u8 as f64,
            Value::Int(v, _) => v as f64,
            Value::F32(v) => v as f64,
            Value::F64(v) => v,
        }
    }

    /// The zero of type `t`.
    pub fn zero(t: ScalarTy) -> Value {
        Value::from_f64(0.0, t)
    }

    /// `v` converted to type `t` as Rust's `as` converts it.
    pub fn from_f64(v: f64, t: ScalarTy) -> Value {
        match t {
            ScalarTy::Bool => Value::Bool(v != 0.0),
            ScalarTy::F32 => Value::F32(v as f32),
            ScalarTy::F64 => Value::F64(v),
            t => Value::Int(wrap(v as i128, t), t),
        }
    }

    /// The value's type.
    pub fn ty(self) -> ScalarTy {
        match self {
            Value::Bool(_) => ScalarTy::Bool,
            Value::Int(_, t) => t,
            Value::F32(_) => ScalarTy::F32,
            Value::F64(_) => ScalarTy::F64,
        }
    }

    fn truth(self) -> bool {
        match self {
            Value::Bool(b) => b,
            other => other.as_f64() != 0.0,
        }
    }
}

/// An integer wrapped to the width and signedness of `t` (index types as 64 bits).
fn wrap(v: i128, t: ScalarTy) -> i128 {
    match t {
        ScalarTy::I8 => v as i8 as i128,
        ScalarTy::I16 => v as i16 as i128,
        ScalarTy::I32 => v as i32 as i128,
        ScalarTy::I64 | ScalarTy::Isize => v as i64 as i128,
        ScalarTy::U8 => v as u8 as i128,
        ScalarTy::U16 => v as u16 as i128,
        ScalarTy::U32 => v as u32 as i128,
        ScalarTy::U64 | ScalarTy::Usize => v as u64 as i128,
        _ => v,
    }
}

/// `v` clamped to the range of `t` (saturating arithmetic).
fn saturate(v: i128, t: ScalarTy) -> i128 {
    let (lo, hi): (i128, i128) = match t {
        ScalarTy::I8 => (i8::MIN.into(), i8::MAX.into()),
        ScalarTy::I16 => (i16::MIN.into(), i16::MAX.into()),
        ScalarTy::I32 => (i32::MIN.into(), i32::MAX.into()),
        ScalarTy::I64 | ScalarTy::Isize => (i64::MIN.into(), i64::MAX.into()),
        ScalarTy::U8 => (0, u8::MAX.into()),
        ScalarTy::U16 => (0, u16::MAX.into()),
        ScalarTy::U32 => (0, u32::MAX.into()),
        ScalarTy::U64 | ScalarTy::Usize => (0, u64::MAX.into()),
        _ => return v,
    };
    v.clamp(lo, hi)
}

/// A host array for the interpreter, `shape` slowest-varying first, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub elem: ScalarTy,
    pub shape: Vec<usize>,
    pub data: Vec<Value>,
}

impl Array {
    fn offset(&self, index: &[usize]) -> Result<usize, String> {
        if index.len() != self.shape.len() {
            return Err(format!(
                "indexed with {} indices, has {} dimensions",
                index.len(),
                self.shape.len()
            ));
        }
        let mut off = 0;
        for (&i, &n) in index.iter().zip(&self.shape) {
            if i >= n {
                return Err(format!("index {index:?} out of bounds of {:?}", self.shape));
            }
            off = off * n + i;
        }
        Ok(off)
    }
}

/// What a kernel needs to run: its arrays (in the kernel's order), its scalars (in the
/// kernel's order), the `[lo, hi)` of each parallel loop (outermost first), and the
/// initial value of the reduction variable, if any.
pub struct Launch<'a> {
    pub arrays: &'a mut [Array],
    pub scalars: &'a [Value],
    pub bounds: &'a [(i64, i64)],
    pub reduction: Option<Value>,
}

enum Flow {
    Next,
    Break,
    Continue,
}

/// Where the interpreter's arrays live: host [`Array`]s, or (for the decomposition fuzz)
/// one emulated device's views of them. The hooks follow owner-computes as the CPU
/// backend's generated code calls them (`mint_runtime::cpu::CpuDev`).
pub trait Store {
    /// The element at `index` (slowest first) of the kernel's array `a`.
    ///
    /// # Errors
    /// An index outside the array, with the array's name.
    fn load(&mut self, a: usize, index: &[usize]) -> Result<Value, String>;
    /// Stores `v` (already converted to the element type) at `index` of array `a`.
    ///
    /// # Errors
    /// As [`Store::load`].
    fn store(&mut self, a: usize, index: &[usize], v: Value) -> Result<(), String>;
    /// The element type of array `a`.
    fn elem(&self, a: usize) -> ScalarTy;
    /// A point (an iteration of the parallel loops) starts.
    fn point(&mut self) {}
    /// A top-level statement starts that uses no local an earlier one binds.
    fn statement(&mut self) {}
    /// Whether the point just run counts towards the reduction.
    fn counts(&mut self) -> bool {
        true
    }
}

/// Host arrays as a [`Store`].
pub struct HostStore<'a>(pub &'a mut [Array]);

impl Store for HostStore<'_> {
    fn load(&mut self, a: usize, index: &[usize]) -> Result<Value, String> {
        let off = self.0[a].offset(index)?;
        Ok(self.0[a].data[off])
    }
    fn store(&mut self, a: usize, index: &[usize], v: Value) -> Result<(), String> {
        let off = self.0[a].offset(index)?;
        self.0[a].data[off] = v;
        Ok(())
    }
    fn elem(&self, a: usize) -> ScalarTy {
        self.0[a].elem
    }
}

struct Interp<'k, 'a> {
    arrays: &'a mut dyn Store,
    array_index: HashMap<&'k str, usize>,
    scopes: Vec<HashMap<String, Value>>,
    steps: u64,
}

/// Most statements one point may execute before the interpreter gives up (a `while`
/// that never ends in a generated kernel).
const STEP_LIMIT: u64 = 10_000_000;

/// Runs a type-checked kernel (see [`mint_translator::check`]) over its whole iteration
/// space, points in lexicographic order (a Mint parallel loop's iterations are
/// independent, so any order gives the same result). Returns the reduced value for a
/// reduction.
///
/// # Errors
/// An out-of-bounds index, an integer division by zero, a variable with no value, or a
/// point that runs more than ten million statements, each with the kernel's name.
pub fn run(kernel: &Kernel, l: Launch) -> Result<Option<Value>, String> {
    run_on(
        kernel,
        &mut HostStore(l.arrays),
        l.scalars,
        l.bounds,
        l.reduction,
    )
}

/// [`run`] on arrays that live in `store`, calling its owner-computes hooks as the CPU
/// backend's generated code does.
///
/// # Errors
/// As [`run`], and what `store` refuses.
pub fn run_on(
    kernel: &Kernel,
    store: &mut dyn Store,
    scalars: &[Value],
    bounds: &[(i64, i64)],
    reduction: Option<Value>,
) -> Result<Option<Value>, String> {
    let l = Launch {
        arrays: &mut [],
        scalars,
        bounds,
        reduction,
    };
    let marks = statement_marks(&kernel.body);
    let mut it = Interp {
        array_index: kernel
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.as_str(), i))
            .collect(),
        arrays: store,
        scopes: Vec::new(),
        steps: 0,
    };
    let mut globals = HashMap::new();
    for (p, v) in kernel.scalars.iter().zip(l.scalars) {
        globals.insert(p.name.clone(), *v);
    }
    let red = kernel.reduction.as_ref();
    let red_ty = red.and_then(|r| r.ty);
    let mut acc = l.reduction;
    let err = |e: String| format!("kernel `{}`: {e}", kernel.name);
    if kernel.is_single() {
        it.scopes.push(globals);
        it.arrays.point();
        it.top(&kernel.body, &marks).map_err(err)?;
        return Ok(None);
    }
    let n = kernel.nest.len();
    let mut idx: Vec<i64> = l.bounds.iter().map(|b| b.0).collect();
    if l.bounds.iter().any(|b| b.1 <= b.0) {
        return Ok(acc);
    }
    loop {
        let mut scope = globals.clone();
        for (lp, &i) in kernel.nest.iter().zip(&idx) {
            let t = lp.ty.unwrap_or(ScalarTy::Usize);
            scope.insert(lp.var.clone(), Value::Int(wrap(i as i128, t), t));
        }
        if let Some(r) = red {
            // each point combines into a private copy holding the identity
            let t = red_ty.unwrap_or(ScalarTy::F64);
            scope.insert(r.var.clone(), identity(r.op, t));
        }
        it.scopes = vec![scope];
        it.steps = 0;
        it.arrays.point();
        it.top(&kernel.body, &marks).map_err(err)?;
        if let Some(r) = red
            && it.arrays.counts()
        {
            let v = it.scopes[0][&r.var];
            acc = Some(match acc {
                Some(a) => combine(r.op, a, v),
                None => v,
            });
        }
        // next point, x fastest
        let mut d = n;
        loop {
            if d == 0 {
                return Ok(acc);
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < l.bounds[d].1 {
                break;
            }
            idx[d] = l.bounds[d].0;
        }
    }
}

/// Evaluates an expression of host values only (a parallel loop's bound, say) with the
/// variables of `env`.
///
/// # Errors
/// A variable `env` does not hold, or an operation the interpreter refuses.
pub fn eval(e: &Expr, env: &HashMap<String, Value>) -> Result<Value, String> {
    let mut none = HostStore(&mut []);
    let mut it = Interp {
        array_index: HashMap::new(),
        arrays: &mut none,
        scopes: vec![env.clone()],
        steps: 0,
    };
    it.expr(e)
}

/// The identity of a reduction operator in type `t`.
pub fn identity(op: RedOp, t: ScalarTy) -> Value {
    match op {
        RedOp::Add => Value::zero(t),
        RedOp::Mul => Value::from_f64(1.0, t),
        RedOp::Min => match t {
            ScalarTy::F32 => Value::F32(f32::INFINITY),
            ScalarTy::F64 => Value::F64(f64::INFINITY),
            t => Value::Int(max_int(t), t),
        },
        RedOp::Max => match t {
            ScalarTy::F32 => Value::F32(f32::NEG_INFINITY),
            ScalarTy::F64 => Value::F64(f64::NEG_INFINITY),
            t => Value::Int(min_int(t), t),
        },
    }
}

fn max_int(t: ScalarTy) -> i128 {
    let bits = t.size_bytes() * 8;
    if t.is_signed_int() {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    }
}

fn min_int(t: ScalarTy) -> i128 {
    if t.is_signed_int() {
        -(1i128 << (t.size_bytes() * 8 - 1))
    } else {
        0
    }
}

/// `a op b` for a reduction.
pub fn combine(op: RedOp, a: Value, b: Value) -> Value {
    match op {
        RedOp::Add => binary(BinOp::Add, a, b).unwrap_or(a),
        RedOp::Mul => binary(BinOp::Mul, a, b).unwrap_or(a),
        RedOp::Min => math(MathFn::Min, &[a, b]),
        RedOp::Max => math(MathFn::Max, &[a, b]),
    }
}

/// Per top-level statement of `b`: whether it starts unpoisoned under owner-computes (it
/// is not the first, and uses no local an earlier statement binds or assigns): the marks
/// the macros insert in the CPU backend's code (`mint-macros`' `statement_marks`).
fn statement_marks(b: &Block) -> Vec<bool> {
    let mut bound: std::collections::HashSet<String> = Default::default();
    let mut marks = Vec::with_capacity(b.stmts.len());
    for (i, st) in b.stmts.iter().enumerate() {
        let mut uses = false;
        let one = Block {
            stmts: vec![st.clone()],
        };
        one.walk_exprs(&mut |e| {
            if let ExprKind::Var(v) = &e.kind {
                uses |= bound.contains(v);
            }
        });
        one.walk_stmts(&mut |s| match &s.kind {
            StmtKind::Assign {
                place: Place::Var(v),
                ..
            } => uses |= bound.contains(v),
            StmtKind::For { var, .. } => uses |= bound.contains(var),
            _ => {}
        });
        marks.push(i > 0 && !uses);
        one.walk_stmts(&mut |s| match &s.kind {
            StmtKind::Let { name, .. } => {
                bound.insert(name.clone());
            }
            StmtKind::Assign {
                place: Place::Var(v),
                ..
            } => {
                bound.insert(v.clone());
            }
            StmtKind::For { var, .. } => {
                bound.insert(var.clone());
            }
            _ => {}
        });
    }
    marks
}

impl Interp<'_, '_> {
    /// The body's top-level statements, with the owner-computes marks.
    fn top(&mut self, b: &Block, marks: &[bool]) -> Result<Flow, String> {
        self.scopes.push(HashMap::new());
        let mut r = Ok(Flow::Next);
        for (s, &m) in b.stmts.iter().zip(marks) {
            if m {
                self.arrays.statement();
            }
            self.steps += 1;
            match self.stmt(s) {
                Ok(Flow::Next) => {}
                other => {
                    r = other;
                    break;
                }
            }
        }
        self.scopes.pop();
        r
    }

    fn get(&self, name: &str) -> Result<Value, String> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
            .ok_or_else(|| format!("`{name}` has no value"))
    }

    fn set(&mut self, name: &str, v: Value) -> Result<(), String> {
        for s in self.scopes.iter_mut().rev() {
            if let Some(slot) = s.get_mut(name) {
                *slot = v;
                return Ok(());
            }
        }
        Err(format!("`{name}` is assigned but not bound"))
    }

    fn index(&mut self, array: &str, index: &[Expr]) -> Result<(usize, Vec<usize>), String> {
        let a = *self
            .array_index
            .get(array)
            .ok_or_else(|| format!("`{array}` is not an array of the kernel"))?;
        let mut ix = Vec::with_capacity(index.len());
        for e in index {
            let v = self.expr(e)?;
            let i = match v {
                Value::Int(i, _) if i >= 0 => i as usize,
                other => return Err(format!("index {other:?} of `{array}` is not an index")),
            };
            ix.push(i);
        }
        Ok((a, ix))
    }

    fn block(&mut self, b: &Block) -> Result<Flow, String> {
        self.scopes.push(HashMap::new());
        let r = self.stmts(&b.stmts);
        self.scopes.pop();
        r
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<Flow, String> {
        for s in stmts {
            self.steps += 1;
            if self.steps > STEP_LIMIT {
                return Err("a point ran more than ten million statements".into());
            }
            match self.stmt(s)? {
                Flow::Next => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Flow, String> {
        match &s.kind {
            StmtKind::Let { name, ty, init, .. } => {
                let v = match init {
                    Some(e) => self.expr(e)?,
                    None => Value::zero(ty.unwrap_or(ScalarTy::F64)),
                };
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name.clone(), v);
            }
            StmtKind::Assign { place, op, value } => {
                let v = self.expr(value)?;
                match place {
                    Place::Var(n) => {
                        let nv = match op {
                            Some(o) => binary(*o, self.get(n)?, v)?,
                            None => v,
                        };
                        self.set(n, nv)?;
                    }
                    Place::Elem { array, index } => {
                        let (a, ix) = self.index(array, index)?;
                        let nv = match op {
                            Some(o) => {
                                let old = self
                                    .arrays
                                    .load(a, &ix)
                                    .map_err(|e| format!("`{array}` {e}"))?;
                                binary(*o, old, v)?
                            }
                            None => v,
                        };
                        // a store converts to the element type as the C store does
                        let t = self.arrays.elem(a);
                        self.arrays
                            .store(a, &ix, convert(nv, t))
                            .map_err(|e| format!("`{array}` {e}"))?;
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                if self.expr(cond)?.truth() {
                    return self.block(then);
                } else if let Some(e) = els {
                    return self.block(e);
                }
            }
            StmtKind::For {
                var,
                ty,
                lo,
                hi,
                inclusive,
                step,
                reverse,
                body,
            } => {
                let t = ty.unwrap_or(ScalarTy::Usize);
                let lo = self.int(lo)?;
                let hi = self.int(hi)? + *inclusive as i128;
                let step = match step {
                    Some(e) => self.int(e)?.max(1),
                    None => 1,
                };
                let mut vals: Vec<i128> = (0..)
                    .map(|k| lo + k * step)
                    .take_while(|&v| v < hi)
                    .collect();
                if *reverse {
                    vals.reverse();
                }
                for v in vals {
                    self.scopes
                        .push(HashMap::from([(var.clone(), Value::Int(wrap(v, t), t))]));
                    let f = self.block(body);
                    self.scopes.pop();
                    match f? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                    }
                }
            }
            StmtKind::While { cond, body } => {
                while self.expr(cond)?.truth() {
                    match self.block(body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                    }
                    self.steps += 1;
                    if self.steps > STEP_LIMIT {
                        return Err("a point ran more than ten million statements".into());
                    }
                }
            }
            StmtKind::Block(b) => return self.block(b),
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Next)
    }

    fn int(&mut self, e: &Expr) -> Result<i128, String> {
        match self.expr(e)? {
            Value::Int(v, _) => Ok(v),
            other => Err(format!("{other:?} where an integer is needed")),
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<Value, String> {
        let t = e.ty;
        Ok(match &e.kind {
            ExprKind::Lit(Lit::Bool(b)) => Value::Bool(*b),
            ExprKind::Lit(Lit::Int { value, .. }) => {
                let t = t.unwrap_or(ScalarTy::I32);
                if t.is_float() {
                    Value::from_f64(*value as f64, t)
                } else {
                    Value::Int(wrap(*value as i128, t), t)
                }
            }
            ExprKind::Lit(Lit::Float { text, .. }) => {
                let clean: String = text.chars().filter(|c| *c != '_').collect();
                match t.unwrap_or(ScalarTy::F64) {
                    // parsed once in the literal's own precision, as rustc and nvcc do
                    ScalarTy::F32 => Value::F32(clean.parse::<f32>().map_err(|e| e.to_string())?),
                    _ => Value::F64(clean.parse::<f64>().map_err(|e| e.to_string())?),
                }
            }
            ExprKind::Var(n) => self.get(n)?,
            ExprKind::Elem { array, index } => {
                let (a, ix) = self.index(array, index)?;
                self.arrays
                    .load(a, &ix)
                    .map_err(|e| format!("`{array}` {e}"))?
            }
            ExprKind::Unary { op, expr } => {
                let v = self.expr(expr)?;
                match (op, v) {
                    (UnOp::Neg, Value::F32(x)) => Value::F32(-x),
                    (UnOp::Neg, Value::F64(x)) => Value::F64(-x),
                    (UnOp::Neg, Value::Int(x, t)) => Value::Int(wrap(-x, t), t),
                    (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                    (UnOp::Not, Value::Int(x, t)) => Value::Int(wrap(!x, t), t),
                    (op, v) => return Err(format!("{op:?} of {v:?}")),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs)?;
                match op {
                    BinOp::And if !a.truth() => Value::Bool(false),
                    BinOp::Or if a.truth() => Value::Bool(true),
                    BinOp::And | BinOp::Or => Value::Bool(self.expr(rhs)?.truth()),
                    _ => {
                        let b = self.expr(rhs)?;
                        binary(*op, a, b)?
                    }
                }
            }
            ExprKind::Cast { expr, to } => convert(self.expr(expr)?, *to),
            ExprKind::Call { func, args } => {
                let vs: Vec<Value> = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<_, _>>()?;
                math(*func, &vs)
            }
            ExprKind::Select { cond, then, els } => {
                if self.expr(cond)?.truth() {
                    self.expr(then)?
                } else {
                    self.expr(els)?
                }
            }
            ExprKind::Apply { func, .. } => {
                return Err(format!("call of `{func}` not inlined"));
            }
            ExprKind::ArrayRef { array, .. } => {
                return Err(format!("`{array}` passed whole outside a call"));
            }
        })
    }
}

/// `v as t`, with Rust's rules (float to integer saturates, NaN to 0).
pub fn convert(v: Value, t: ScalarTy) -> Value {
    match (v, t) {
        (Value::Bool(b), t) => Value::from_f64(b as u8 as f64, t),
        (Value::Int(x, _), ScalarTy::F32) => Value::F32(x as f32),
        (Value::Int(x, _), ScalarTy::F64) => Value::F64(x as f64),
        (Value::Int(x, _), ScalarTy::Bool) => Value::Bool(x != 0),
        (Value::Int(x, _), t) => Value::Int(wrap(x, t), t),
        (Value::F32(x), ScalarTy::F64) => Value::F64(x as f64),
        (Value::F64(x), ScalarTy::F32) => Value::F32(x as f32),
        (Value::F32(x), ScalarTy::F32) => Value::F32(x),
        (Value::F64(x), ScalarTy::F64) => Value::F64(x),
        (f, ScalarTy::Bool) => Value::Bool(f.as_f64() != 0.0),
        (f, t) => {
            // saturating, as Rust's `as`
            let x = f.as_f64();
            let v = if x.is_nan() {
                0
            } else {
                (x.trunc().max(min_int(t) as f64).min(max_int(t) as f64)) as i128
            };
            Value::Int(v, t)
        }
    }
}

/// `a op b` for two values of one type (shifts: any integer on the right).
pub fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    use BinOp::*;
    Ok(match (a, b) {
        (Value::F32(x), Value::F32(y)) => match op {
            Add => Value::F32(x + y),
            Sub => Value::F32(x - y),
            Mul => Value::F32(x * y),
            Div => Value::F32(x / y),
            Rem => Value::F32(x % y),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            Lt => Value::Bool(x < y),
            Le => Value::Bool(x <= y),
            Gt => Value::Bool(x > y),
            Ge => Value::Bool(x >= y),
            _ => return Err(format!("{op:?} on f32")),
        },
        (Value::F64(x), Value::F64(y)) => match op {
            Add => Value::F64(x + y),
            Sub => Value::F64(x - y),
            Mul => Value::F64(x * y),
            Div => Value::F64(x / y),
            Rem => Value::F64(x % y),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            Lt => Value::Bool(x < y),
            Le => Value::Bool(x <= y),
            Gt => Value::Bool(x > y),
            Ge => Value::Bool(x >= y),
            _ => return Err(format!("{op:?} on f64")),
        },
        (Value::Int(x, t), Value::Int(y, _)) => {
            let w = |v: i128| Value::Int(wrap(v, t), t);
            match op {
                Add => w(x + y),
                Sub => w(x - y),
                Mul => w(x.wrapping_mul(y)),
                Div | Rem if y == 0 => return Err("integer division by zero".into()),
                Div => w(x / y),
                Rem => w(x % y),
                BitAnd => w(x & y),
                BitOr => w(x | y),
                BitXor => w(x ^ y),
                Shl => w(x << (y as u32 % (t.size_bytes() * 8))),
                Shr => w(x >> (y as u32 % (t.size_bytes() * 8))),
                Eq => Value::Bool(x == y),
                Ne => Value::Bool(x != y),
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                And | Or => Value::Bool(match op {
                    And => x != 0 && y != 0,
                    _ => x != 0 || y != 0,
                }),
            }
        }
        (Value::Bool(x), Value::Bool(y)) => Value::Bool(match op {
            And | BitAnd => x && y,
            Or | BitOr => x || y,
            BitXor | Ne => x != y,
            Eq => x == y,
            Lt => !x & y,
            Le => x <= y,
            Gt => x & !y,
            Ge => x >= y,
            _ => return Err(format!("{op:?} on bool")),
        }),
        (a, b) => return Err(format!("{op:?} of {a:?} and {b:?}")),
    })
}

/// A math function on values, Rust's std semantics.
pub fn math(f: MathFn, a: &[Value]) -> Value {
    use MathFn::*;
    // the same method on f32 and f64: `$x` the receiver, `$y(i)` the i-th argument
    macro_rules! float_math {
        ($x:expr, $y:expr, $wrap:path) => {{
            let (x, y) = ($x, $y);
            $wrap(match f {
                Sqrt => x.sqrt(),
                Cbrt => x.cbrt(),
                Exp => x.exp(),
                Exp2 => x.exp2(),
                ExpM1 => x.exp_m1(),
                Ln => x.ln(),
                Log2 => x.log2(),
                Log10 => x.log10(),
                Ln1p => x.ln_1p(),
                Sin => x.sin(),
                Cos => x.cos(),
                Tan => x.tan(),
                Asin => x.asin(),
                Acos => x.acos(),
                Atan => x.atan(),
                Sinh => x.sinh(),
                Cosh => x.cosh(),
                Tanh => x.tanh(),
                Asinh => x.asinh(),
                Acosh => x.acosh(),
                Atanh => x.atanh(),
                Floor => x.floor(),
                Ceil => x.ceil(),
                Round => x.round(),
                Trunc => x.trunc(),
                Fract => x.fract(),
                Recip => x.recip(),
                ToDegrees => x.to_degrees(),
                ToRadians => x.to_radians(),
                Abs => x.abs(),
                Signum => x.signum(),
                Min => x.min(y(1)),
                Max => x.max(y(1)),
                Powf | Pow | SaturatingSub => x.powf(y(1)),
                Atan2 => x.atan2(y(1)),
                Hypot => x.hypot(y(1)),
                Copysign => x.copysign(y(1)),
                RemEuclid => x.rem_euclid(y(1)),
                Powi => x.powi(a[1].as_f64() as i32),
                Clamp => x.clamp(y(1), y(2)),
                MulAdd => x.mul_add(y(1), y(2)),
                IsNan => return Value::Bool(x.is_nan()),
                IsFinite => return Value::Bool(x.is_finite()),
                IsInfinite => return Value::Bool(x.is_infinite()),
            })
        }};
    }
    match a[0] {
        Value::F32(x) => float_math!(
            x,
            |i: usize| a.get(i).map(|v| v.as_f64() as f32).unwrap_or(0.0),
            Value::F32
        ),
        Value::F64(x) => float_math!(
            x,
            |i: usize| a.get(i).map(|v| v.as_f64()).unwrap_or(0.0),
            Value::F64
        ),
        Value::Int(x, t) => {
            let y = |i: usize| match a.get(i) {
                Some(Value::Int(v, _)) => *v,
                _ => 0,
            };
            let w = |v: i128| Value::Int(wrap(v, t), t);
            match f {
                Abs => w(x.abs()),
                Signum => w(x.signum()),
                Min => w(x.min(y(1))),
                Max => w(x.max(y(1))),
                Pow => w(x.wrapping_pow(y(1) as u32)),
                Clamp => w(x.clamp(y(1), y(2).max(y(1)))),
                RemEuclid if y(1) != 0 => w(x.rem_euclid(y(1))),
                SaturatingSub => Value::Int(saturate(x - y(1), t), t),
                _ => Value::Int(x, t),
            }
        }
        v @ Value::Bool(_) => v,
    }
}
