//! Host arrays that hold only this rank's planes (issue #13): a problem whose global
//! arrays do not fit in one node's memory can start, because no rank ever holds more
//! than its slab and ghost planes.
//!
//! A [`SlabArray`] has the global shape (what `dim()` returns and what kernels index) but
//! stores only planes `lo..hi` along its slowest axis (z of `[z, y, x]`, y of `[y, x]`):
//! the planes this rank's devices own ([`owned_planes`]) and `ghost` more on each side.
//! Indexing it uses global indices and panics outside the planes it holds. In a region
//! split over MPI ranks, `copy!(u, to_device)` scatters each rank's planes to its own
//! devices and `copy!(u, from_device)` writes back only the planes its devices own, with
//! no gather: write out [`SlabArray::owned`] from each rank. On one process it holds
//! every plane and behaves like an `ndarray` array.
//!
//! ```no_run
//! use mint_runtime::slab::SlabArray3;
//! // the rank's planes of a 2048³ field, with 2 ghost planes each side
//! let mut u = SlabArray3::<f32>::from_fn((2048, 2048, 2048), 2, |(z, y, x)| (z + y + x) as f32);
//! let (nz, _, _) = u.dim(); // 2048 on every rank
//! ```

use crate::host::{Element, HostArray, HostArrayMut, RawArray};
use ndarray::{Array, ArrayView, ArrayViewMut, Axis, Dimension, Ix2, Ix3, ShapeBuilder};
use std::ops::{Index, IndexMut, Range};

/// The planes `0..extent` along the slowest axis that this rank's devices own, by the
/// decomposition's slab rule (`decomp::Slabs`) over every rank's devices
/// (`MINT_DEVICE` or [`crate::with_device`] on each; one each when it is unreadable). On
/// one process: all of them.
pub fn owned_planes(extent: usize) -> Range<usize> {
    let per_rank = crate::device::requested_device()
        .map(|d| d.count())
        .unwrap_or(1)
        .max(1);
    let ranks = crate::ranks::size();
    if ranks == 1 {
        return 0..extent;
    }
    let r = crate::ranks::rank();
    let (lo, hi) = crate::decomp::Slabs::new(extent, per_rank * ranks, 0)
        .owned_span(r * per_rank..(r + 1) * per_rank);
    lo..hi
}

/// [`owned_planes`] and `ghost` more planes on each side, within `0..extent`.
pub fn held_planes(extent: usize, ghost: usize) -> Range<usize> {
    let o = owned_planes(extent);
    o.start.saturating_sub(ghost)..(o.end + ghost).min(extent)
}

/// An array of global shape `D` of which this rank holds only some planes along the
/// slowest axis (see the [module](self)). [`SlabArray2`] and [`SlabArray3`] are the
/// shapes Mint splits.
#[derive(Clone, Debug)]
pub struct SlabArray<T, D: Dimension> {
    /// The planes held, as an array of their own (`hi - lo` planes).
    data: Array<T, D>,
    /// The global shape.
    global: D,
    /// The first plane held.
    lo: usize,
}

/// A 2-D [`SlabArray`], split along y of `[y, x]`.
pub type SlabArray2<T> = SlabArray<T, Ix2>;
/// A 3-D [`SlabArray`], split along z of `[z, y, x]`.
pub type SlabArray3<T> = SlabArray<T, Ix3>;

impl<T: Element, D: Dimension> SlabArray<T, D> {
    /// The rank's planes of an array of global `shape`, with `ghost` planes beyond its
    /// owned ones on each side ([`held_planes`]), each element `f(global index)`. `f` is
    /// called only for the held planes, so a rank fills only its own part.
    ///
    /// `ghost` must be at least the ghost width the region's kernels need (the widest
    /// reach of a stencil along the slowest axis: `MINT_REPORT=1` prints it); a smaller
    /// one is an error at `copy!(u, to_device)` naming the planes missing.
    pub fn from_fn<Sh>(shape: Sh, ghost: usize, mut f: impl FnMut(D::Pattern) -> T) -> Self
    where
        Sh: ShapeBuilder<Dim = D>,
    {
        let (global, local, lo) = Self::held_shape(shape, ghost);
        let data = Array::from_shape_fn(local, |i: D::Pattern| {
            let mut d = to_dim::<D>(i);
            d[0] += lo;
            f(d.into_pattern())
        });
        SlabArray { data, global, lo }
    }

    /// [`SlabArray::from_fn`] with every element zero.
    pub fn zeros<Sh>(shape: Sh, ghost: usize) -> Self
    where
        Sh: ShapeBuilder<Dim = D>,
    {
        let (global, local, lo) = Self::held_shape(shape, ghost);
        SlabArray {
            data: Array::from_elem(local, T::default()),
            global,
            lo,
        }
    }

    /// The global shape, the shape of the planes held, and the first plane held.
    fn held_shape<Sh>(shape: Sh, ghost: usize) -> (D, D, usize)
    where
        Sh: ShapeBuilder<Dim = D>,
    {
        let global = shape.into_shape_with_order().raw_dim().clone();
        let planes = held_planes(global[0], ghost);
        let mut local = global.clone();
        local[0] = planes.len();
        (global, local, planes.start)
    }

    /// The global shape, as `ndarray`'s `dim()`: the same on every rank.
    pub fn dim(&self) -> D::Pattern {
        self.global.clone().into_pattern()
    }

    /// The global shape.
    pub fn shape(&self) -> &[usize] {
        self.global.slice()
    }

    /// The planes held, along the slowest axis.
    pub fn planes(&self) -> Range<usize> {
        self.lo..self.lo + self.data.len_of(Axis(0))
    }

    /// The planes this rank's devices own ([`owned_planes`]): those
    /// `copy!(u, from_device)` writes, and the part of the array a rank writes out.
    pub fn owned(&self) -> Range<usize> {
        owned_planes(self.global[0])
    }

    /// The planes held, as an array of `planes().len()` planes (local index 0 is global
    /// plane `planes().start`).
    pub fn local(&self) -> ArrayView<'_, T, D> {
        self.data.view()
    }

    /// [`SlabArray::local`], writable.
    pub fn local_mut(&mut self) -> ArrayViewMut<'_, T, D> {
        self.data.view_mut()
    }

    /// The owned planes ([`SlabArray::owned`]) as an array of their own.
    pub fn owned_view(&self) -> ArrayView<'_, T, D> {
        let o = self.owned();
        self.data
            .slice_axis(Axis(0), (o.start - self.lo..o.end - self.lo).into())
    }

    /// Whether every plane is held (one process).
    pub fn is_whole(&self) -> bool {
        self.lo == 0 && self.data.len_of(Axis(0)) == self.global[0]
    }

    /// A new array of the same shape and planes, each element `f` of this one's (as
    /// `ndarray`'s `mapv`).
    pub fn mapv(&self, f: impl FnMut(T) -> T) -> Self {
        SlabArray {
            data: self.data.mapv(f),
            global: self.global.clone(),
            lo: self.lo,
        }
    }

    /// Sets every held element to `v`.
    pub fn fill(&mut self, v: T) {
        self.data.fill(v);
    }

    /// A new array of the same shape and planes, each element `f(a, b)` of this one's and
    /// `other`'s at the same index.
    ///
    /// # Panics
    /// When `other` has another global shape or holds other planes.
    pub fn zip_with(&self, other: &Self, mut f: impl FnMut(T, T) -> T) -> Self {
        assert!(
            self.global == other.global && self.planes() == other.planes(),
            "SlabArray::zip_with: shapes {:?} and {:?}, planes {:?} and {:?}",
            self.shape(),
            other.shape(),
            self.planes(),
            other.planes()
        );
        let mut data = self.data.clone();
        ndarray::Zip::from(&mut data)
            .and(&other.data)
            .for_each(|a, &b| *a = f(*a, b));
        SlabArray {
            data,
            global: self.global.clone(),
            lo: self.lo,
        }
    }

    fn plane_elems(&self) -> usize {
        self.global.slice()[1..].iter().product()
    }

    fn raw_at(&self, ptr: *mut T) -> RawArray<T> {
        let shape = self.global.slice();
        let nd = shape.len();
        let mut s = [1usize; 3];
        s[3 - nd..].copy_from_slice(shape);
        let mut st = [0isize; 3];
        let mut acc = 1isize;
        for k in (0..3).rev() {
            st[k] = acc;
            acc *= s[k] as isize;
        }
        RawArray {
            // The address global element 0 would have; only held planes are addressed.
            ptr: ptr.wrapping_sub(self.lo * self.plane_elems()),
            shape: s,
            strides: st,
            ndim: nd,
            standard: true,
            held: Some((self.planes().start, self.planes().end)),
        }
    }

    fn local_index(&self, p: usize) -> usize {
        let held = self.planes();
        assert!(
            held.contains(&p),
            "SlabArray: plane {p} is not held by rank {} (it holds planes {}..{} of {})",
            crate::ranks::rank(),
            held.start,
            held.end,
            self.global[0]
        );
        p - self.lo
    }
}

fn to_dim<D: Dimension>(p: D::Pattern) -> D {
    ndarray::IntoDimension::into_dimension(p)
}

impl<T: Element, D: Dimension> HostArray for SlabArray<T, D> {
    type Elem = T;
    fn raw(&self) -> RawArray<T> {
        self.raw_at(self.data.as_ptr() as *mut T)
    }
}

impl<T: Element, D: Dimension> HostArrayMut for SlabArray<T, D> {
    fn raw_mut(&mut self) -> RawArray<T> {
        let p = self.data.as_mut_ptr();
        self.raw_at(p)
    }
}

impl<T: Element> Index<[usize; 3]> for SlabArray<T, Ix3> {
    type Output = T;
    fn index(&self, [z, y, x]: [usize; 3]) -> &T {
        &self.data[[self.local_index(z), y, x]]
    }
}

impl<T: Element> IndexMut<[usize; 3]> for SlabArray<T, Ix3> {
    fn index_mut(&mut self, [z, y, x]: [usize; 3]) -> &mut T {
        let z = self.local_index(z);
        &mut self.data[[z, y, x]]
    }
}

impl<T: Element> Index<[usize; 2]> for SlabArray<T, Ix2> {
    type Output = T;
    fn index(&self, [y, x]: [usize; 2]) -> &T {
        &self.data[[self.local_index(y), x]]
    }
}

impl<T: Element> IndexMut<[usize; 2]> for SlabArray<T, Ix2> {
    fn index_mut(&mut self, [y, x]: [usize; 2]) -> &mut T {
        let y = self.local_index(y);
        &mut self.data[[y, x]]
    }
}
