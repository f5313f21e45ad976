//! Device functions (`#[mint::device]`): functions that kernels call and that
//! [`crate::inline`] substitutes into a kernel's body before any analysis, so the stencil
//! analyzer, the optimizer and the halo widths see through them.

use super::expr::Expr;
use super::kernel::Origin;
use super::stmt::Block;
use super::types::ScalarTy;
use serde::{Deserialize, Serialize};

/// A device function as the front end lowered it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceFn {
    /// The function's name (`dx4`).
    pub name: String,
    pub params: Vec<DeviceParam>,
    /// The return type; `None` for a function returning a float type the call site binds
    /// (a generic `T: mint::Real`).
    pub ret: Option<ScalarTy>,
    /// The statements before the final expression.
    pub body: Block,
    /// The final expression: the value the function returns.
    pub result: Expr,
    pub origin: Origin,
}

/// A parameter of a device function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceParam {
    pub name: String,
    pub kind: DeviceParamKind,
}

/// What a device function's parameter takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DeviceParamKind {
    /// A number by value (`z: usize`, `a: f32`); `ty` is `None` for a generic `T`. A
    /// `mut` parameter is a local the function may assign.
    Scalar { ty: Option<ScalarTy>, mutable: bool },
    /// An array by reference (`a: &Array3<f32>`, `a: &mut Array3<f32>`, `a: &[f64]`),
    /// indexed `[z, y, x]` with `ndim` indices; `elem` is `None` for a generic `T`.
    Array {
        elem: Option<ScalarTy>,
        ndim: u8,
        mutable: bool,
    },
}
