//! Scalar types of the kernel language and their CUDA spellings.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A scalar type a kernel can compute with: the Rust primitive numeric types and `bool`.
///
/// `usize` and `isize` are *index types*: in CUDA they become `idx_t`, which is a 32-bit
/// `int` unless some array of the launch holds 2^31 or more elements (then `long long`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ScalarTy {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
}

impl ScalarTy {
    /// Every scalar type, in declaration order.
    pub const ALL: [ScalarTy; 13] = [
        ScalarTy::Bool,
        ScalarTy::I8,
        ScalarTy::I16,
        ScalarTy::I32,
        ScalarTy::I64,
        ScalarTy::Isize,
        ScalarTy::U8,
        ScalarTy::U16,
        ScalarTy::U32,
        ScalarTy::U64,
        ScalarTy::Usize,
        ScalarTy::F32,
        ScalarTy::F64,
    ];

    /// Parses a Rust primitive type name (`"f64"`, `"usize"`, ...).
    pub fn from_rust(name: &str) -> Option<ScalarTy> {
        Self::ALL.iter().copied().find(|t| t.rust_name() == name)
    }

    /// The Rust spelling of this type.
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarTy::Bool => "bool",
            ScalarTy::I8 => "i8",
            ScalarTy::I16 => "i16",
            ScalarTy::I32 => "i32",
            ScalarTy::I64 => "i64",
            ScalarTy::Isize => "isize",
            ScalarTy::U8 => "u8",
            ScalarTy::U16 => "u16",
            ScalarTy::U32 => "u32",
            ScalarTy::U64 => "u64",
            ScalarTy::Usize => "usize",
            ScalarTy::F32 => "f32",
            ScalarTy::F64 => "f64",
        }
    }

    /// The CUDA C++ spelling. Index types map to `idx_t`, defined at the top of every kernel.
    pub fn cuda_name(self) -> &'static str {
        match self {
            ScalarTy::Bool => "bool",
            ScalarTy::I8 => "signed char",
            ScalarTy::I16 => "short",
            ScalarTy::I32 => "int",
            ScalarTy::I64 => "long long",
            ScalarTy::Isize | ScalarTy::Usize => "idx_t",
            ScalarTy::U8 => "unsigned char",
            ScalarTy::U16 => "unsigned short",
            ScalarTy::U32 => "unsigned int",
            ScalarTy::U64 => "unsigned long long",
            ScalarTy::F32 => "float",
            ScalarTy::F64 => "double",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarTy::F32 | ScalarTy::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != ScalarTy::Bool
    }

    /// An integer type of 8 or 16 bits, which may not hold an index's value.
    pub fn is_narrow(self) -> bool {
        matches!(
            self,
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::U8 | ScalarTy::U16
        )
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::I32 | ScalarTy::I64 | ScalarTy::Isize
        )
    }

    /// Index types (`usize`, `isize`) whose CUDA width is chosen at launch.
    pub fn is_index(self) -> bool {
        matches!(self, ScalarTy::Usize | ScalarTy::Isize)
    }

    /// Integer types narrower than C's `int`, whose arithmetic must be wrapped back to
    /// their width after C's integer promotion.
    pub fn is_narrow_int(self) -> bool {
        matches!(
            self,
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::U8 | ScalarTy::U16
        )
    }

    /// Size in bytes on the device. Index types report 8 (their host size); the kernel
    /// parameter for them is `idx_t`, see [`ScalarTy::param_bytes`].
    pub fn size_bytes(self) -> u32 {
        match self {
            ScalarTy::Bool | ScalarTy::I8 | ScalarTy::U8 => 1,
            ScalarTy::I16 | ScalarTy::U16 => 2,
            ScalarTy::I32 | ScalarTy::U32 | ScalarTy::F32 => 4,
            ScalarTy::I64 | ScalarTy::U64 | ScalarTy::F64 | ScalarTy::Isize | ScalarTy::Usize => 8,
        }
    }

    /// Size of a kernel parameter of this type, given the index width of the launch.
    pub fn param_bytes(self, idx64: bool) -> u32 {
        if self.is_index() {
            if idx64 { 8 } else { 4 }
        } else {
            self.size_bytes()
        }
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}
