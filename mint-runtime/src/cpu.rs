//! The CPU backend: the annotated loops themselves, with the outermost parallel loop
//! spread over threads by `rayon`.
//!
//! The generated code shadows each array the loop body uses with a [`CpuView`], a
//! shareable raw view indexed exactly like the `ndarray` array (`a[[z, y, x]]`, `a[i]`),
//! so the body runs unchanged on every thread. Iterations of a Mint parallel loop are
//! independent by definition, so threads write disjoint elements, as on the GPU.

use crate::host::{Element, HostArray, HostArrayMut};
use mint_translator::ir::RedOp;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A view of a host array of `N` dimensions that threads of the CPU backend share.
/// Indexing is bounds-checked and panics like `ndarray` on an out-of-bounds index.
pub struct CpuView<'a, T, const N: usize> {
    ptr: *mut T,
    shape: [usize; N],
    strides: [isize; N],
    _borrow: PhantomData<&'a T>,
}

impl<T, const N: usize> Clone for CpuView<'_, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for CpuView<'_, T, N> {}

// SAFETY: the view is created from a borrow the generated code holds for the view's
// lifetime; Mint's parallel-loop contract makes concurrent accesses touch distinct
// elements (or only read).
unsafe impl<T: Send, const N: usize> Send for CpuView<'_, T, N> {}
unsafe impl<T: Sync, const N: usize> Sync for CpuView<'_, T, N> {}

impl<'a, T: Element, const N: usize> CpuView<'a, T, N> {
    fn from_raw(r: crate::host::RawArray<T>) -> Self {
        assert!(
            r.ndim == N,
            "array indexed with {N} indices but it has {} dimensions",
            r.ndim
        );
        let mut shape = [0; N];
        let mut strides = [0; N];
        shape.copy_from_slice(&r.shape[3 - N..]);
        strides.copy_from_slice(&r.strides[3 - N..]);
        CpuView {
            ptr: r.ptr,
            shape,
            strides,
            _borrow: PhantomData,
        }
    }

    #[inline(always)]
    fn offset(&self, i: [usize; N]) -> isize {
        let mut ok = true;
        let mut off = 0isize;
        for ((&i, &n), &s) in i.iter().zip(&self.shape).zip(&self.strides) {
            ok &= i < n;
            off += i as isize * s;
        }
        if !ok {
            out_of_bounds(i, self.shape);
        }
        off
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds<const N: usize>(i: [usize; N], shape: [usize; N]) -> ! {
    panic!("ndarray: index {i:?} is out of bounds for array of shape {shape:?}")
}

/// A read-only view for the CPU backend.
pub fn view<const N: usize, A: HostArray + ?Sized>(a: &A) -> CpuView<'_, A::Elem, N> {
    CpuView::from_raw(a.raw())
}

/// A writable view for the CPU backend.
pub fn view_mut<const N: usize, A: HostArrayMut + ?Sized>(a: &mut A) -> CpuView<'_, A::Elem, N> {
    CpuView::from_raw(a.raw_mut())
}

impl<T: Element, const N: usize> Index<[usize; N]> for CpuView<'_, T, N> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: [usize; N]) -> &T {
        let off = self.offset(i);
        // SAFETY: `offset` checked every index against the shape of the borrowed array.
        unsafe { &*self.ptr.offset(off) }
    }
}

/// Host arrays whose number of dimensions is part of their type, so that the CPU view of
/// an array the macro sees only as a field path passed to a device function (`&self.u`)
/// can be made without the macro knowing it.
pub trait AutoView {
    type Elem: Element;
    type View<'a>
    where
        Self: 'a;
    fn auto_view(&self) -> Self::View<'_>;
}

/// [`AutoView`] for arrays written through the view.
pub trait AutoViewMut: AutoView {
    fn auto_view_mut(&mut self) -> Self::View<'_>;
}

macro_rules! auto_view_nd {
    ($($ix:ty => $n:literal),*) => {$(
        impl<S: ndarray::Data<Elem = T>, T: Element> AutoView for ndarray::ArrayBase<S, $ix> {
            type Elem = T;
            type View<'a> = CpuView<'a, T, $n> where Self: 'a;
            fn auto_view(&self) -> CpuView<'_, T, $n> {
                CpuView::from_raw(self.raw())
            }
        }
        impl<S: ndarray::DataMut<Elem = T>, T: Element> AutoViewMut for ndarray::ArrayBase<S, $ix> {
            fn auto_view_mut(&mut self) -> CpuView<'_, T, $n> {
                CpuView::from_raw(self.raw_mut())
            }
        }
    )*};
}
auto_view_nd!(ndarray::Ix1 => 1, ndarray::Ix2 => 2, ndarray::Ix3 => 3);

impl<T: Element> AutoView for [T] {
    type Elem = T;
    type View<'a> = CpuView<'a, T, 1>;
    fn auto_view(&self) -> CpuView<'_, T, 1> {
        CpuView::from_raw(self.raw())
    }
}
impl<T: Element> AutoViewMut for [T] {
    fn auto_view_mut(&mut self) -> CpuView<'_, T, 1> {
        CpuView::from_raw(self.raw_mut())
    }
}
impl<T: Element> AutoView for Vec<T> {
    type Elem = T;
    type View<'a> = CpuView<'a, T, 1>;
    fn auto_view(&self) -> CpuView<'_, T, 1> {
        CpuView::from_raw(self.raw())
    }
}
impl<T: Element> AutoViewMut for Vec<T> {
    fn auto_view_mut(&mut self) -> CpuView<'_, T, 1> {
        CpuView::from_raw(self.raw_mut())
    }
}
impl<A: AutoView + ?Sized> AutoView for &A {
    type Elem = A::Elem;
    type View<'a>
        = A::View<'a>
    where
        Self: 'a;
    fn auto_view(&self) -> A::View<'_> {
        (**self).auto_view()
    }
}
impl<A: AutoView + ?Sized> AutoView for &mut A {
    type Elem = A::Elem;
    type View<'a>
        = A::View<'a>
    where
        Self: 'a;
    fn auto_view(&self) -> A::View<'_> {
        (**self).auto_view()
    }
}
impl<A: AutoViewMut + ?Sized> AutoViewMut for &mut A {
    fn auto_view_mut(&mut self) -> A::View<'_> {
        (**self).auto_view_mut()
    }
}

/// A read-only view whose number of dimensions follows the array's type.
pub fn auto_view<A: AutoView + ?Sized>(a: &A) -> A::View<'_> {
    a.auto_view()
}

/// A writable view whose number of dimensions follows the array's type.
pub fn auto_view_mut<A: AutoViewMut + ?Sized>(a: &mut A) -> A::View<'_> {
    a.auto_view_mut()
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for CpuView<'_, T, N> {
    #[inline(always)]
    fn index_mut(&mut self, i: [usize; N]) -> &mut T {
        let off = self.offset(i);
        // SAFETY: as for `index`; the view was made from a mutable borrow.
        unsafe { &mut *self.ptr.offset(off) }
    }
}

impl<T: Element> Index<usize> for CpuView<'_, T, 1> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self[[i]]
    }
}

impl<T: Element> IndexMut<usize> for CpuView<'_, T, 1> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self[[i]]
    }
}

/// Runs `f` for every index of the outermost parallel loop, spread over threads.
pub fn par_for<R>(range: R, f: impl Fn(R::Item) + Sync + Send)
where
    R: IntoParallelIterator,
{
    range.into_par_iter().for_each(f);
}

/// Runs `f` for every index of the outermost parallel loop and combines the values it
/// returns with `op`.
pub fn par_reduce<R, T>(range: R, op: RedOp, f: impl Fn(R::Item) -> T + Sync + Send) -> T
where
    R: IntoParallelIterator,
    T: Reducible,
{
    range
        .into_par_iter()
        .map(f)
        .reduce(|| T::red_identity(op), |a, b| T::red_combine(op, a, b))
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

/// The reduction identity for `op` on `T` (the value each thread's private copy starts at).
pub fn identity<T: Reducible>(op: RedOp) -> T {
    T::red_identity(op)
}

/// `op(a, b)`.
pub fn combine<T: Reducible>(op: RedOp, a: T, b: T) -> T {
    T::red_combine(op, a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array3;

    #[test]
    fn views_index_like_ndarray() {
        let mut a =
            Array3::<f64>::from_shape_fn((3, 4, 5), |(z, y, x)| (100 * z + 10 * y + x) as f64);
        let v = view::<3, _>(&a);
        assert_eq!(v[[2, 3, 4]], 234.0);
        let mut w = view_mut::<3, _>(&mut a);
        w[[1, 1, 1]] = -1.0;
        assert_eq!(a[[1, 1, 1]], -1.0);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn views_check_bounds() {
        let a = Array3::<f64>::zeros((2, 2, 2));
        let v = view::<3, _>(&a);
        let _ = v[[0, 0, 2]];
    }

    #[test]
    fn non_standard_layouts_index_correctly_on_the_cpu() {
        let a = Array3::<f64>::from_shape_fn((3, 4, 5), |(z, y, x)| (100 * z + 10 * y + x) as f64);
        let t = a.view().reversed_axes();
        let v = view::<3, _>(&t);
        assert_eq!(v[[4, 3, 2]], 234.0);
    }

    #[test]
    fn par_reduce_combines_with_identity() {
        let s: i64 = par_reduce(0..1000i64, RedOp::Add, |i| i);
        assert_eq!(s, 999 * 1000 / 2);
        let m: f64 = par_reduce(0..100usize, RedOp::Max, |i| (i as f64).sin());
        let want = (0..100)
            .map(|i| (i as f64).sin())
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(m, want);
    }
}
