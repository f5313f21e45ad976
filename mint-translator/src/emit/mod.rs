//! CUDA C++ emission.

pub mod cexpr;
pub mod cuda;
pub mod names;
pub mod rust;

pub use cuda::{Param, ParamKind};
