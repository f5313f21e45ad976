//! The translator's intermediate representation: a kernel is a loop nest (or a `single`
//! block) whose body is a small, typed, C-like statement language. The front end
//! (`mint-macros`) lowers Rust syntax into it; every pass and the CUDA emitter work on it.

mod device;
mod expr;
mod kernel;
mod stmt;
mod types;

pub use device::{DeviceFn, DeviceParam, DeviceParamKind};
pub use expr::{BinOp, Expr, ExprKind, Lit, MathFn, SpanId, UnOp};
pub use kernel::{
    ArrayParam, ClauseValue, Clauses, Kernel, MAX_CARRIED, OptOptions, Origin, ParLoop, RedOp,
    Reduction, ScalarParam,
};
pub use stmt::{Block, Place, Stmt, StmtKind};
pub use types::ScalarTy;
