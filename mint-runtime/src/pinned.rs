//! Host arrays in page-locked memory (issue #16): `copy!` at the link's own speed.
//!
//! `copy!` of an ordinary `ndarray` array (pageable memory) goes through the staging ring
//! of [`crate::transfer`], and is bound by the host's memory bandwidth: the cores copy
//! every byte once more into page-locked buffers. A [`PinnedArray`] lives in page-locked
//! memory from the start (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_PORTABLE`, usable by
//! every device's context), so `copy!` hands it to the copy engine directly, one DMA per
//! array, at what CUDA calls pinned-memory bandwidth; a streamed region
//! ([`crate::stream`]) copies its slabs asynchronously, with no host copy at all. This is
//! CuPy's `cupyx.zeros_pinned` and PyTorch's `pin_memory()`.
//!
//! A `PinnedArray` has the shape, index order (`[z, y, x]` for 3-D, `[y, x]`, `[i]`) and
//! row-major layout of an `ndarray` array; [`PinnedArray::view`] and
//! [`PinnedArray::view_mut`] give one. Regions take `&PinnedArray3<T>` or
//! `&mut PinnedArray3<T>` parameters wherever they take `Array3<T>`.
//!
//! Where no CUDA device is in use (the CPU backend, `MINT_DEVICE=cpu`, no driver), or when
//! the driver refuses the page-locked allocation (the process's locked-memory limit), the
//! array lives in ordinary memory and behaves the same, more slowly on a GPU:
//! [`PinnedArray::is_page_locked`] says which. Page-locked memory is taken from the
//! operating system's pageable pool, so allocate what the transfers need, not every
//! scratch array.
//!
//! ```no_run
//! use mint_runtime::pinned::PinnedArray3;
//! let mut u = PinnedArray3::<f32>::from_shape_fn((512, 512, 512), |(z, y, x)| (z + y + x) as f32);
//! u[[1, 2, 3]] = 0.5;
//! assert_eq!(u.dim(), (512, 512, 512));
//! ```

use crate::host::{Element, HostArray, HostArrayMut, RawArray};
use cudarc::driver::{CudaContext, result as drv, sys};
use ndarray::{ArrayView, ArrayViewMut, Dimension, Ix1, Ix2, Ix3, ShapeBuilder};
use std::ops::{Index, IndexMut};
use std::sync::{Arc, Mutex};

/// An array of shape `D` (row-major, `[z, y, x]` for 3-D) in page-locked host memory when
/// a CUDA device is in use (see the [module](self)).
pub struct PinnedArray<T, D: Dimension> {
    ptr: *mut T,
    len: usize,
    dim: D,
    memory: Memory<T>,
}

/// A 1-D [`PinnedArray`].
pub type PinnedArray1<T> = PinnedArray<T, Ix1>;
/// A 2-D [`PinnedArray`], indexed `[y, x]`.
pub type PinnedArray2<T> = PinnedArray<T, Ix2>;
/// A 3-D [`PinnedArray`], indexed `[z, y, x]`.
pub type PinnedArray3<T> = PinnedArray<T, Ix3>;

enum Memory<T> {
    /// `cuMemHostAlloc`ed in this context (kept alive until the memory is freed).
    PageLocked(Arc<CudaContext>),
    /// Ordinary memory: no CUDA device in use, or the driver refused.
    Pageable(#[allow(dead_code)] Vec<T>),
}

// SAFETY: the array owns its memory exclusively, as a `Vec<T>` does.
unsafe impl<T: Send, D: Dimension> Send for PinnedArray<T, D> {}
// SAFETY: shared references give only shared access to the elements.
unsafe impl<T: Sync, D: Dimension> Sync for PinnedArray<T, D> {}

/// The byte ranges `[start, end)` of every live page-locked [`PinnedArray`], which
/// [`is_page_locked`] consults.
static LIVE: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Whether the `bytes` bytes at `ptr` lie inside one live page-locked [`PinnedArray`]:
/// a copy from or to them may go to the copy engine directly.
pub(crate) fn is_page_locked(ptr: *const u8, bytes: usize) -> bool {
    let (lo, hi) = (ptr as usize, ptr as usize + bytes);
    LIVE.lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .any(|&(s, e)| s <= lo && hi <= e)
}

/// The context page-locked memory is allocated in: the first GPU of the backend a region
/// would use now, if that is CUDA.
fn context() -> Option<Arc<CudaContext>> {
    match crate::device::backend().ok()? {
        crate::Backend::Cuda(g) => Some(g.ctx.clone()),
        crate::Backend::CudaSplit(gs) => gs.first().map(|g| g.ctx.clone()),
        crate::Backend::Cpu | crate::Backend::CpuSplit(_) => None,
    }
}

impl<T: Element, D: Dimension> PinnedArray<T, D> {
    /// An array of `shape` with every element `T::default()` (zero).
    pub fn zeros<Sh: ShapeBuilder<Dim = D>>(shape: Sh) -> Self {
        let dim = shape.into_shape_with_order().raw_dim().clone();
        let len = dim.size();
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        if let Some(ctx) = context()
            && ctx.bind_to_thread().is_ok()
        {
            // SAFETY: a fresh allocation of `bytes`, freed in `drop` in this context.
            let flags = sys::CU_MEMHOSTALLOC_PORTABLE;
            if let Ok(p) = unsafe { drv::malloc_host(bytes, flags) } {
                let ptr = p as *mut T;
                // SAFETY: `len` elements fit in `bytes`; page-locked memory starts
                // uninitialized, and every element is written before any is read.
                let all = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, bytes) };
                fill_zero(all);
                let s = ptr as usize;
                LIVE.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((s, s + bytes));
                return PinnedArray {
                    ptr,
                    len,
                    dim,
                    memory: Memory::PageLocked(ctx),
                };
            }
        }
        let mut v = vec![T::default(); len];
        PinnedArray {
            ptr: v.as_mut_ptr(),
            len,
            dim,
            memory: Memory::Pageable(v),
        }
    }

    /// An array of `shape` with element `i` equal to `f(i)`, `i` the index pattern
    /// (`(z, y, x)` for 3-D), called in row-major order.
    pub fn from_shape_fn<Sh: ShapeBuilder<Dim = D>>(
        shape: Sh,
        mut f: impl FnMut(D::Pattern) -> T,
    ) -> Self {
        let mut a = Self::zeros(shape);
        for (i, v) in a.view_mut().indexed_iter_mut() {
            *v = f(i);
        }
        a
    }

    /// A copy of `src` (any layout) in pinned memory.
    pub fn from_array<S: ndarray::Data<Elem = T>>(src: &ndarray::ArrayBase<S, D>) -> Self {
        let mut a = Self::zeros(src.raw_dim());
        a.view_mut().assign(src);
        a
    }

    /// Whether the array is in page-locked memory (see the [module](self) for when it
    /// is not).
    pub fn is_page_locked(&self) -> bool {
        matches!(self.memory, Memory::PageLocked(_))
    }

    /// The shape, as `ndarray`'s `dim()`: `(nz, ny, nx)` for 3-D.
    pub fn dim(&self) -> D::Pattern {
        self.dim.clone().into_pattern()
    }

    /// The shape, slowest axis first.
    pub fn shape(&self) -> &[usize] {
        self.dim.slice()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements in row-major order.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `len` initialized elements, owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The elements in row-major order, writable.
    pub fn as_slice_mut(&mut self) -> &mut [T] {
        // SAFETY: as `as_slice`, borrowed exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// The array as an `ndarray` view (standard layout).
    pub fn view(&self) -> ArrayView<'_, T, D> {
        ArrayView::from_shape(self.dim.clone(), self.as_slice()).expect("shape matches length")
    }

    /// The array as a writable `ndarray` view (standard layout).
    pub fn view_mut(&mut self) -> ArrayViewMut<'_, T, D> {
        let dim = self.dim.clone();
        ArrayViewMut::from_shape(dim, self.as_slice_mut()).expect("shape matches length")
    }

    /// A copy in an ordinary `ndarray` array.
    pub fn to_owned(&self) -> ndarray::Array<T, D> {
        self.view().to_owned()
    }

    /// The row-major offset of `idx`, with `ndarray`'s bounds check and message.
    fn offset(&self, idx: &[usize]) -> usize {
        let shape = self.dim.slice();
        let mut off = 0;
        for (k, (&i, &n)) in idx.iter().zip(shape).enumerate() {
            assert!(
                i < n,
                "PinnedArray: index {idx:?} out of bounds for shape {shape:?} (axis {k})"
            );
            off = off * n + i;
        }
        off
    }
}

/// Zeroes `all` on every core (first touch of page-locked memory on many cores).
fn fill_zero(all: &mut [u8]) {
    use rayon::prelude::*;
    all.par_chunks_mut(1 << 20).for_each(|c| c.fill(0));
}

impl<T, D: Dimension> Drop for PinnedArray<T, D> {
    fn drop(&mut self) {
        if let Memory::PageLocked(ctx) = &self.memory {
            let s = self.ptr as usize;
            LIVE.lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|&(a, _)| a != s);
            let _ = ctx.bind_to_thread();
            // SAFETY: allocated by `cuMemHostAlloc` in `zeros`; no copy uses it any more
            // (every copy into or out of it waits for its stream before returning).
            unsafe {
                let _ = drv::free_host(self.ptr as _);
            }
        }
    }
}

impl<T: Element, D: Dimension> Clone for PinnedArray<T, D> {
    fn clone(&self) -> Self {
        let mut a = Self::zeros(self.dim.clone());
        a.as_slice_mut().copy_from_slice(self.as_slice());
        a
    }
}

impl<T: Element, D: Dimension> std::fmt::Debug for PinnedArray<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PinnedArray(shape {:?}, {}) ",
            self.shape(),
            if self.is_page_locked() {
                "page-locked"
            } else {
                "pageable"
            }
        )?;
        self.view().fmt(f)
    }
}

impl<T: Element, D: Dimension> PartialEq for PinnedArray<T, D> {
    fn eq(&self, other: &Self) -> bool {
        self.dim == other.dim && self.as_slice() == other.as_slice()
    }
}

impl<T: Element, D: Dimension> HostArray for PinnedArray<T, D> {
    type Elem = T;
    fn raw(&self) -> RawArray<T> {
        self.view().raw()
    }
}

impl<T: Element, D: Dimension> HostArrayMut for PinnedArray<T, D> {
    fn raw_mut(&mut self) -> RawArray<T> {
        self.view_mut().raw_mut()
    }
}

macro_rules! index {
    ($d:ty, $idx:ty, |$i:ident| $slice:expr) => {
        impl<T: Element> Index<$idx> for PinnedArray<T, $d> {
            type Output = T;
            fn index(&self, $i: $idx) -> &T {
                &self.as_slice()[self.offset($slice)]
            }
        }
        impl<T: Element> IndexMut<$idx> for PinnedArray<T, $d> {
            fn index_mut(&mut self, $i: $idx) -> &mut T {
                let o = self.offset($slice);
                &mut self.as_slice_mut()[o]
            }
        }
    };
}
index!(Ix3, [usize; 3], |i| &i);
index!(Ix2, [usize; 2], |i| &i);
index!(Ix1, [usize; 1], |i| &i);
index!(Ix1, usize, |i| &[i]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_as_ndarray_does() {
        let a = PinnedArray3::<f64>::from_shape_fn((3, 4, 5), |(z, y, x)| {
            (100 * z + 10 * y + x) as f64
        });
        let b =
            ndarray::Array3::from_shape_fn((3, 4, 5), |(z, y, x)| (100 * z + 10 * y + x) as f64);
        assert_eq!(a.view(), b.view());
        assert_eq!(a[[2, 3, 4]], b[[2, 3, 4]]);
        assert_eq!(a.dim(), (3, 4, 5));
        let mut c = PinnedArray1::<i32>::zeros(7);
        c[6] = 3;
        assert_eq!(c.as_slice(), &[0, 0, 0, 0, 0, 0, 3]);
        let r = a.raw();
        assert!(r.standard && r.shape == [3, 4, 5] && r.ndim == 3);
    }

    #[test]
    #[should_panic(expected = "out of bounds for shape [3, 4, 5] (axis 1)")]
    fn out_of_bounds_panics_with_the_shape() {
        let a = PinnedArray3::<f32>::zeros((3, 4, 5));
        let _ = a[[0, 4, 0]];
    }

    #[test]
    fn equals_its_source_and_clones() {
        let src = ndarray::Array2::from_shape_fn((6, 9), |(y, x)| (y * 9 + x) as f32);
        let a = PinnedArray2::from_array(&src.t());
        assert_eq!(a.to_owned(), src.t().to_owned());
        assert_eq!(a.clone(), a);
    }
}
