//! Host-side arrays and scalars as the generated code hands them to the runtime.

use mint_translator::ir::{RedOp, ScalarTy};
use ndarray::{ArrayBase, Data, DataMut, Dimension};

/// A plain numeric type that can live in a device array or be passed to a kernel.
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The kernel language's name for this type.
    const TY: ScalarTy;
    /// The value as raw little-endian bits in the low bytes of a `u64`.
    fn to_bits64(self) -> u64;
    /// The value from the low bytes of a `u64`.
    fn from_bits64(b: u64) -> Self;
}

macro_rules! element {
    ($($t:ty => $v:ident, $bits:ty);* $(;)?) => {$(
        impl Element for $t {
            const TY: ScalarTy = ScalarTy::$v;
            #[inline]
            fn to_bits64(self) -> u64 {
                <$bits>::from_ne_bytes(self.to_ne_bytes()) as u64
            }
            #[inline]
            fn from_bits64(b: u64) -> Self {
                <$t>::from_ne_bytes((b as $bits).to_ne_bytes())
            }
        }
    )*};
}
element! {
    f32 => F32, u32; f64 => F64, u64;
    i8 => I8, u8; i16 => I16, u16; i32 => I32, u32; i64 => I64, u64; isize => Isize, u64;
    u8 => U8, u8; u16 => U16, u16; u32 => U32, u32; u64 => U64, u64; usize => Usize, u64;
}

impl Element for bool {
    const TY: ScalarTy = ScalarTy::Bool;
    fn to_bits64(self) -> u64 {
        self as u64
    }
    fn from_bits64(b: u64) -> Self {
        b & 1 == 1
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element type of a region or device function generic over its precision:
/// `fn step<T: mint::Real>(u: &mut Array3<T>, c: T)`. Implemented for `f32` and `f64`
/// only. It is `num_traits::Float` (arithmetic, comparisons, `sqrt`, `abs`, `exp`, `ln`,
/// `powi`, `powf`, `min`, `max`, `sin`, `cos`, `mul_add`, ...) plus the compound
/// assignments, and [`Real::new`] for constants. The runtime binds `T` at each kernel's
/// launch and translates one CUDA kernel per precision.
#[diagnostic::on_unimplemented(
    message = "Mint regions and device functions are generic over `f32` and `f64` only, not `{Self}`",
    label = "not `f32` or `f64`",
    note = "write a separate region for other element types, or convert the data to f32/f64"
)]
pub trait Real:
    Element
    + Reducible
    + num_traits::Float
    + std::ops::AddAssign
    + std::ops::SubAssign
    + std::ops::MulAssign
    + std::ops::DivAssign
    + std::fmt::Display
    + sealed::Sealed
{
    /// The constant `v` in this precision (write `T::new(0.5)` where a non-generic kernel
    /// writes `0.5`). In a kernel the argument must be a literal, and it becomes a literal
    /// of the kernel's precision (`0.5f` in an `f32` kernel), as an `f32` literal in Rust
    /// would. On the host it is `v as f32`, which rounds the decimal twice (to `f64`, then
    /// to `f32`); the two agree except for decimals within half an `f64` ulp of an `f32`
    /// rounding boundary.
    fn new(v: f64) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn new(v: f64) -> f32 {
        v as f32
    }
}

impl Real for f64 {
    #[inline(always)]
    fn new(v: f64) -> f64 {
        v
    }
}

/// Element types a `reduction` clause supports, with the operators' identities.
pub trait Reducible: Element {
    fn red_identity(op: RedOp) -> Self;
    fn red_combine(op: RedOp, a: Self, b: Self) -> Self;
}

macro_rules! reducible_float {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            fn red_identity(op: RedOp) -> Self {
                match op { RedOp::Add => 0.0, RedOp::Mul => 1.0, RedOp::Min => <$t>::INFINITY, RedOp::Max => <$t>::NEG_INFINITY }
            }
            fn red_combine(op: RedOp, a: Self, b: Self) -> Self {
                match op { RedOp::Add => a + b, RedOp::Mul => a * b, RedOp::Min => a.min(b), RedOp::Max => a.max(b) }
            }
        }
    )*};
}
macro_rules! reducible_int {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            fn red_identity(op: RedOp) -> Self {
                match op { RedOp::Add => 0, RedOp::Mul => 1, RedOp::Min => <$t>::MAX, RedOp::Max => <$t>::MIN }
            }
            fn red_combine(op: RedOp, a: Self, b: Self) -> Self {
                match op {
                    RedOp::Add => a.wrapping_add(b),
                    RedOp::Mul => a.wrapping_mul(b),
                    RedOp::Min => a.min(b),
                    RedOp::Max => a.max(b),
                }
            }
        }
    )*};
}
reducible_float!(f32, f64);
reducible_int!(i32, i64, u32);

/// A raw view of a host array: element pointer, shape and strides (in elements),
/// padded to three dimensions as `[z, y, x]`.
#[derive(Clone, Copy, Debug)]
pub struct RawArray<T> {
    pub ptr: *mut T,
    pub shape: [usize; 3],
    pub strides: [isize; 3],
    pub ndim: usize,
    /// Row-major and contiguous.
    pub standard: bool,
    /// The planes along the slowest axis that exist in memory, `[lo, hi)`, when only
    /// some do: a [`crate::slab::SlabArray`] on one of several MPI ranks, whose `ptr` is
    /// then the address element 0 would have (never read or written through outside
    /// these planes). `None`: all planes.
    pub held: Option<(usize, usize)>,
}

impl<T> RawArray<T> {
    /// The same array seen as bytes (the element type travels separately).
    pub fn bytes(&self) -> RawArray<u8> {
        RawArray {
            ptr: self.ptr as *mut u8,
            shape: self.shape,
            strides: self.strides,
            ndim: self.ndim,
            standard: self.standard,
            held: self.held,
        }
    }
    /// The planes that exist in memory, `[lo, hi)`: all of them unless
    /// [`RawArray::held`] says otherwise.
    pub fn planes(&self) -> (usize, usize) {
        self.held.unwrap_or((0, self.shape[3 - self.ndim]))
    }
    /// Whether every plane exists in memory (not a rank's part of a
    /// [`crate::slab::SlabArray`]).
    pub fn is_whole(&self) -> bool {
        self.planes() == (0, self.shape[3 - self.ndim])
    }
    /// [`crate::Error::ShapeMismatch`] unless every plane exists in memory: what every
    /// copy but one of a region split over MPI ranks needs.
    pub fn check_whole(&self, name: &str) -> crate::Result<()> {
        if self.is_whole() {
            return Ok(());
        }
        let (lo, hi) = self.planes();
        Err(crate::Error::ShapeMismatch {
            array: name.into(),
            what: format!(
                "a SlabArray holding planes {lo}..{hi} of {} can be copied only by a region split over MPI ranks, where each rank copies its own planes (here the whole array is needed: one process, or an array the region replicates)",
                self.shape[3 - self.ndim]
            ),
            expected: self.user_shape(),
            found: self.user_shape(),
        })
    }
    /// The shape as the user sees it (`ndim` entries, slowest first).
    pub fn user_shape(&self) -> Vec<usize> {
        self.shape[3 - self.ndim..].to_vec()
    }
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn raw_from_parts<T>(
    ptr: *mut T,
    shape: &[usize],
    strides: &[isize],
    standard: bool,
) -> RawArray<T> {
    let nd = shape.len();
    assert!(
        (1..=3).contains(&nd),
        "Mint arrays have 1, 2 or 3 dimensions, found {nd}"
    );
    let mut s = [1usize; 3];
    let mut st = [0isize; 3];
    s[3 - nd..].copy_from_slice(shape);
    st[3 - nd..].copy_from_slice(strides);
    RawArray {
        ptr,
        shape: s,
        strides: st,
        ndim: nd,
        standard,
        held: None,
    }
}

/// An array the macros accept: `ndarray` arrays of 1 to 3 dimensions, `Vec`s and slices
/// (as 1-D arrays), and references to these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an array Mint can copy to the device",
    note = "Mint accepts arrays of ndarray 0.17 (the version it is built against) of 1, 2 or 3 dimensions, Vec<T> and [T], with T a plain numeric type",
    note = "an array of another ndarray version is not one: depend on `ndarray = \"0.17\"`, or import the arrays from Mint's re-export, `use mint::ndarray::Array3;`"
)]
pub trait HostArray {
    type Elem: Element;
    /// Read-only raw view (the pointer must not be written through).
    fn raw(&self) -> RawArray<Self::Elem>;
}

/// A host array that can be written: the target of `copy!(x, from_device)` and arrays a
/// kernel writes on the CPU backend.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written by Mint",
    note = "`copy!(x, from_device)` and kernels that assign elements of `x` need `x` to be mutable: `&mut Array3<T>` or an owned array declared `mut`",
    note = "Mint takes arrays of ndarray 0.17, the version it is built against; an array of another ndarray version is not one (use `mint::ndarray`)"
)]
pub trait HostArrayMut: HostArray {
    fn raw_mut(&mut self) -> RawArray<Self::Elem>;
}

impl<S, D> HostArray for ArrayBase<S, D>
where
    S: Data,
    S::Elem: Element,
    D: Dimension,
{
    type Elem = S::Elem;
    fn raw(&self) -> RawArray<S::Elem> {
        raw_from_parts(
            self.as_ptr() as *mut S::Elem,
            self.shape(),
            self.strides(),
            self.is_standard_layout(),
        )
    }
}

impl<S, D> HostArrayMut for ArrayBase<S, D>
where
    S: DataMut,
    S::Elem: Element,
    D: Dimension,
{
    fn raw_mut(&mut self) -> RawArray<S::Elem> {
        let standard = self.is_standard_layout();
        let shape = self.shape().to_vec();
        let strides = self.strides().to_vec();
        raw_from_parts(self.as_mut_ptr(), &shape, &strides, standard)
    }
}

impl<T: Element> HostArray for [T] {
    type Elem = T;
    fn raw(&self) -> RawArray<T> {
        raw_from_parts(self.as_ptr() as *mut T, &[self.len()], &[1], true)
    }
}
impl<T: Element> HostArrayMut for [T] {
    fn raw_mut(&mut self) -> RawArray<T> {
        raw_from_parts(self.as_mut_ptr(), &[self.len()], &[1], true)
    }
}
impl<T: Element> HostArray for Vec<T> {
    type Elem = T;
    fn raw(&self) -> RawArray<T> {
        self.as_slice().raw()
    }
}
impl<T: Element> HostArrayMut for Vec<T> {
    fn raw_mut(&mut self) -> RawArray<T> {
        self.as_mut_slice().raw_mut()
    }
}
impl<A: HostArray + ?Sized> HostArray for &A {
    type Elem = A::Elem;
    fn raw(&self) -> RawArray<A::Elem> {
        (**self).raw()
    }
}
impl<A: HostArray + ?Sized> HostArray for &mut A {
    type Elem = A::Elem;
    fn raw(&self) -> RawArray<A::Elem> {
        (**self).raw()
    }
}
impl<A: HostArrayMut + ?Sized> HostArrayMut for &mut A {
    fn raw_mut(&mut self) -> RawArray<A::Elem> {
        (**self).raw_mut()
    }
}

/// A scalar kernel argument, with its type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarValue {
    pub ty: ScalarTy,
    /// The value's bits in the low bytes.
    pub bits: u64,
}

impl ScalarValue {
    pub fn of<T: Element>(v: T) -> ScalarValue {
        ScalarValue {
            ty: T::TY,
            bits: v.to_bits64(),
        }
    }
    /// The value as an `i64` if it is an integer (for range checks of index types).
    pub fn as_i128(&self) -> Option<i128> {
        Some(match self.ty {
            ScalarTy::I8 => self.bits as u8 as i8 as i128,
            ScalarTy::I16 => self.bits as u16 as i16 as i128,
            ScalarTy::I32 => self.bits as u32 as i32 as i128,
            ScalarTy::I64 | ScalarTy::Isize => self.bits as i64 as i128,
            ScalarTy::U8 | ScalarTy::U16 | ScalarTy::U32 | ScalarTy::U64 | ScalarTy::Usize => {
                self.bits as i128
            }
            _ => return None,
        })
    }
}
