//! Expressions of the kernel language.

use super::types::ScalarTy;
use serde::{Deserialize, Serialize};

/// Index into the front end's table of source spans, so that every diagnostic the
/// translator raises can be reported at the offending token of the user's code.
pub type SpanId = u32;

/// An expression with its (inferred) type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    /// Filled in by [`crate::typeck`]; `None` before type checking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<ScalarTy>,
    #[serde(default)]
    pub span: SpanId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    Lit(Lit),
    /// A kernel local, a loop index, or a scalar captured from the host.
    Var(String),
    /// `a[[z, y, x]]`, `a[[y, x]]` or `a[i]`: indices slowest-varying first.
    Elem {
        array: String,
        index: Vec<Expr>,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cast {
        expr: Box<Expr>,
        to: ScalarTy,
    },
    /// A math method or associated function; the receiver, if any, is `args[0]`.
    Call {
        func: MathFn,
        args: Vec<Expr>,
    },
    /// A call of a device function (`#[mint::device]`), by the path written at the call
    /// (`dx4`, `ops::dx4`). Array arguments are [`ExprKind::ArrayRef`]s. Calls exist only
    /// between the front end and [`crate::inline`], which replaces each by the function's
    /// body before any analysis.
    Apply {
        func: String,
        args: Vec<Expr>,
    },
    /// `&a` or `&mut a` passed to a device function: a whole array, not a value.
    ArrayRef {
        array: String,
        mutable: bool,
    },
    /// `if c { a } else { b }` used as a value.
    Select {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
}

/// A literal. Float literals keep their decimal text so that a `f32` literal is rounded
/// once, by the CUDA compiler, exactly as rustc rounds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Lit {
    Int {
        value: u128,
        suffix: Option<ScalarTy>,
    },
    /// `text` is a plain decimal or exponent form (`"0.5"`, `"1e-3"`, `"2.0"`), or one of
    /// `"inf"`, `"-inf"`, `"nan"` for the special constants.
    Float {
        text: String,
        suffix: Option<ScalarTy>,
    },
    Bool(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
    /// The C operator.
    pub fn c_op(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
    /// C precedence level (higher binds tighter).
    pub fn c_prec(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
            BinOp::Add | BinOp::Sub => 12,
            BinOp::Shl | BinOp::Shr => 11,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 10,
            BinOp::Eq | BinOp::Ne => 9,
            BinOp::BitAnd => 8,
            BinOp::BitXor => 7,
            BinOp::BitOr => 6,
            BinOp::And => 5,
            BinOp::Or => 4,
        }
    }
}

/// Math methods and functions a kernel may call. Each maps to the CUDA function of the
/// argument's precision (`sqrtf` for `f32`, `sqrt` for `f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MathFn {
    // float -> float
    Sqrt,
    Cbrt,
    Exp,
    Exp2,
    ExpM1,
    Ln,
    Log2,
    Log10,
    Ln1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fract,
    Recip,
    ToDegrees,
    ToRadians,
    // float or int -> same
    Abs,
    Signum,
    // (x, y) -> same
    Min,
    Max,
    Powf,
    Atan2,
    Hypot,
    Copysign,
    RemEuclid,
    // (x, i32)
    Powi,
    // (int, u32)
    Pow,
    // (int, int): `a - b`, clamped at the type's bounds (0 for unsigned indices)
    SaturatingSub,
    // (x, lo, hi)
    Clamp,
    // (a, b, c) = a * b + c
    MulAdd,
    // float -> bool
    IsNan,
    IsFinite,
    IsInfinite,
}

impl MathFn {
    /// The Rust method name.
    pub fn rust_name(self) -> &'static str {
        use MathFn::*;
        match self {
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Exp => "exp",
            Exp2 => "exp2",
            ExpM1 => "exp_m1",
            Ln => "ln",
            Log2 => "log2",
            Log10 => "log10",
            Ln1p => "ln_1p",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Fract => "fract",
            Recip => "recip",
            ToDegrees => "to_degrees",
            ToRadians => "to_radians",
            Abs => "abs",
            Signum => "signum",
            Min => "min",
            Max => "max",
            Powf => "powf",
            Atan2 => "atan2",
            Hypot => "hypot",
            Copysign => "copysign",
            RemEuclid => "rem_euclid",
            Powi => "powi",
            Pow => "pow",
            SaturatingSub => "saturating_sub",
            Clamp => "clamp",
            MulAdd => "mul_add",
            IsNan => "is_nan",
            IsFinite => "is_finite",
            IsInfinite => "is_infinite",
        }
    }

    pub const ALL: [MathFn; 46] = {
        use MathFn::*;
        [
            Sqrt,
            Cbrt,
            Exp,
            Exp2,
            ExpM1,
            Ln,
            Log2,
            Log10,
            Ln1p,
            Sin,
            Cos,
            Tan,
            Asin,
            Acos,
            Atan,
            Sinh,
            Cosh,
            Tanh,
            Asinh,
            Acosh,
            Atanh,
            Floor,
            Ceil,
            Round,
            Trunc,
            Fract,
            Recip,
            ToDegrees,
            ToRadians,
            Abs,
            Signum,
            Min,
            Max,
            Powf,
            Atan2,
            Hypot,
            Copysign,
            RemEuclid,
            Powi,
            Pow,
            SaturatingSub,
            Clamp,
            MulAdd,
            IsNan,
            IsFinite,
            IsInfinite,
        ]
    };

    /// Looks a method name up.
    pub fn from_rust(name: &str) -> Option<MathFn> {
        Self::ALL.iter().copied().find(|f| f.rust_name() == name)
    }

    /// Number of arguments including the receiver.
    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Min | Max | Powf | Atan2 | Hypot | Copysign | RemEuclid | Powi | Pow
            | SaturatingSub => 2,
            Clamp | MulAdd => 3,
            _ => 1,
        }
    }

    /// Whether the function accepts integer receivers.
    pub fn accepts_int(self) -> bool {
        matches!(
            self,
            MathFn::Abs
                | MathFn::Signum
                | MathFn::Min
                | MathFn::Max
                | MathFn::Pow
                | MathFn::SaturatingSub
                | MathFn::Clamp
                | MathFn::RemEuclid
        )
    }

    /// Whether the function accepts float receivers.
    pub fn accepts_float(self) -> bool {
        !matches!(self, MathFn::Pow | MathFn::SaturatingSub)
    }

    /// Whether the result is `bool` (the predicates).
    pub fn returns_bool(self) -> bool {
        matches!(self, MathFn::IsNan | MathFn::IsFinite | MathFn::IsInfinite)
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: SpanId) -> Expr {
        Expr {
            kind,
            ty: None,
            span,
        }
    }

    /// Visits this expression and every sub-expression, parents first.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
            ExprKind::Elem { index, .. } => index.iter().for_each(|e| e.walk(f)),
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => expr.walk(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|e| e.walk(f)),
            ExprKind::Apply { args, .. } => args.iter().for_each(|e| e.walk(f)),
            ExprKind::Select { cond, then, els } => {
                cond.walk(f);
                then.walk(f);
                els.walk(f);
            }
        }
    }

    /// Mutable visit of this expression and every sub-expression, children first.
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match &mut self.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
            ExprKind::Elem { index, .. } => index.iter_mut().for_each(|e| e.walk_mut(f)),
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => expr.walk_mut(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk_mut(f);
                rhs.walk_mut(f);
            }
            ExprKind::Call { args, .. } => args.iter_mut().for_each(|e| e.walk_mut(f)),
            ExprKind::Apply { args, .. } => args.iter_mut().for_each(|e| e.walk_mut(f)),
            ExprKind::Select { cond, then, els } => {
                cond.walk_mut(f);
                then.walk_mut(f);
                els.walk_mut(f);
            }
        }
        f(self);
    }

    /// `Some(v)` if this is an integer literal (possibly negated).
    pub fn as_int_lit(&self) -> Option<i128> {
        match &self.kind {
            ExprKind::Lit(Lit::Int { value, .. }) => i128::try_from(*value).ok(),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => expr.as_int_lit().map(|v| -v),
            _ => None,
        }
    }
}
