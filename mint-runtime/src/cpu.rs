//! The CPU backend: the annotated loops themselves, with the outermost parallel loop
//! spread over threads by the backend's fork-join pool (`cpu/pool.rs`; `rayon` where the
//! pool is busy).
//!
//! The generated code shadows each array the loop body uses with a [`CpuView`], a
//! shareable raw view indexed exactly like the `ndarray` array (`a[[z, y, x]]`, `a[i]`),
//! so the body runs unchanged on every thread. Iterations of a Mint parallel loop are
//! independent by definition, so threads write disjoint elements, as on the GPU.
//!
//! An index outside the array, or outside the planes an emulated device holds, does not
//! panic: the view records it in the run's [`Faults`], reads a zero or writes nowhere,
//! and the region returns it as a [`crate::Error`] once the kernel has run.

pub use crate::host::Reducible;
use crate::host::{Element, HostArray, HostArrayMut};
use mint_translator::ir::RedOp;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

mod pool;
pub use pool::DEFAULT_SPIN_US;

/// A view of a host array of `N` dimensions that threads of the CPU backend share.
/// Indexing is bounds-checked; a fault is recorded (see the module's doc), not raised.
pub struct CpuView<'a, T, const N: usize> {
    /// Address of the element at index 0 along every axis. For a slab of an emulated
    /// device (`MINT_DEVICE=cpu:N`) that plane is not held, so the pointer is only ever
    /// offset back into the slab.
    ptr: *mut T,
    /// Upper bound of each index (for a slab, along axis 0: the end of the planes held).
    shape: [usize; N],
    strides: [isize; N],
    /// Lowest index held along axis 0 (0 except for a slab).
    lo0: usize,
    /// The array's extent along axis 0.
    extent0: usize,
    /// The slab this view reads, on an emulated device.
    slab: Option<&'a SlabInfo>,
    /// The kernel runs under owner-computes (`slab`'s `owner`, held by value so that the
    /// test of it is a register's and the compiler can take it out of loops).
    owner: bool,
    /// The kernel's array this is a view of (its index in the kernel's arrays).
    array: usize,
    /// Where a fault is recorded.
    faults: &'a Faults,
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

/// What a kernel's CPU version did that it may not, recorded by the views instead of a
/// panic; the region turns the first into an error ([`Faults::error`]).
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    /// Outside what an emulated device holds ([`crate::Error::OutsideSlab`]).
    Slab(SlabFault),
    /// Outside the array ([`crate::Error::IndexOutOfBounds`]): the kernel's array, the
    /// index and the shape, slowest first.
    OutOfBounds {
        array: usize,
        index: Vec<usize>,
        shape: Vec<usize>,
    },
    /// A view that could not be made (an array of another rank or element type).
    View { array: usize, message: String },
}

/// The faults of one kernel run on one (emulated) device: the first is kept.
#[derive(Debug, Default)]
pub struct Faults {
    any: AtomicBool,
    first: Mutex<Option<Fault>>,
}

impl Faults {
    #[cold]
    #[inline(never)]
    fn record(&self, f: Fault) {
        if !self.any.swap(true, Ordering::Relaxed) {
            *self.first.lock().unwrap_or_else(|p| p.into_inner()) = Some(f);
        }
    }

    /// Whether a fault was recorded.
    pub fn any(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    /// The first fault recorded, as an error of `site`'s kernel.
    pub(crate) fn error(&self, site: &crate::site::KernelSite) -> Option<crate::Error> {
        if !self.any() {
            return None;
        }
        let f = self
            .first
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        let name = |i: usize| {
            site.kernel()
                .ok()
                .and_then(|k| k.arrays.get(i))
                .map_or_else(|| format!("#{i}"), |a| a.name.clone())
        };
        Some(match f {
            Fault::Slab(s) => fault_error(&s, site),
            Fault::OutOfBounds {
                array,
                index,
                shape,
            } => crate::Error::IndexOutOfBounds {
                kernel: site.name.into(),
                location: site.location(),
                array: name(array),
                index,
                shape,
            },
            Fault::View { array, message } => crate::Error::Translate {
                kernel: site.name.into(),
                location: site.location(),
                message: format!("array `{}`: {message}", name(array)),
            },
        })
    }
}

impl<'a, T: Element, const N: usize> CpuView<'a, T, N> {
    /// Bytes per element: what keys a kernel's choice of vector width
    /// ([`run_wide`]), for a kernel whose element type is bound at launch.
    pub fn elem_bytes(&self) -> usize {
        std::mem::size_of::<T>()
    }

    /// A view of the whole array `r`, the kernel's array `array`.
    fn from_raw(r: crate::host::RawArray<T>, array: usize, faults: &'a Faults) -> Self {
        let mut v = CpuView {
            ptr: r.ptr,
            shape: [0; N],
            strides: [0; N],
            lo0: 0,
            extent0: 0,
            slab: None,
            owner: false,
            array,
            faults,
            _borrow: PhantomData,
        };
        let wrong = if !r.is_whole() {
            Some(format!(
                "a SlabArray holding planes {:?} of {} runs kernels only in a region split over MPI ranks, where each rank's devices hold their own planes",
                r.planes(),
                r.shape[3 - r.ndim]
            ))
        } else if r.ndim != N {
            Some(format!(
                "indexed with {N} indices but it has {} dimensions",
                r.ndim
            ))
        } else {
            None
        };
        if let Some(message) = wrong {
            // every access of this empty view is a fault too; the first is this one
            faults.record(Fault::View { array, message });
            return v;
        }
        v.shape.copy_from_slice(&r.shape[3 - N..]);
        v.strides.copy_from_slice(&r.strides[3 - N..]);
        v.extent0 = v.shape[0];
        v
    }

    /// The element at `i`: checked against the shape (and, on a slab, the planes held).
    #[inline(always)]
    fn elem(&self, i: [usize; N], write: bool) -> *mut T {
        let mut ok = i[0] >= self.lo0;
        let mut off = 0isize;
        for ((&i, &n), &s) in i.iter().zip(&self.shape).zip(&self.strides) {
            ok &= i < n;
            off += i as isize * s;
        }
        if ok {
            self.ptr.wrapping_offset(off)
        } else {
            // by value: a call that took the view's address would keep every field of it
            // in memory in the loop around
            Self::outside(
                Outside {
                    ptr: self.ptr,
                    shape: self.shape,
                    strides: self.strides,
                    extent0: self.extent0,
                    slab: self.slab,
                    array: self.array,
                    faults: self.faults,
                },
                i,
                write,
            )
        }
    }

    /// An index outside the planes of the view's main run: a ring's wrapped ghost planes
    /// ([`SlabInfo::wrap`]), or a fault.
    #[cold]
    #[inline(never)]
    fn outside(v: Outside<'_, T, N>, i: [usize; N], write: bool) -> *mut T {
        let mut global = v.shape;
        global[0] = v.extent0;
        let inside = i.iter().zip(&global).all(|(i, n)| i < n);
        match v.slab {
            Some(s) if inside && s.wrap.0 <= i[0] && i[0] < s.wrap.1 => {
                let off: isize = i
                    .iter()
                    .zip(&v.strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum();
                return v.ptr.wrapping_offset(off);
            }
            Some(s) if inside => v
                .faults
                .record(Fault::Slab(SlabFault::new(s, i.to_vec(), None))),
            _ => v.faults.record(Fault::OutOfBounds {
                array: v.array,
                index: i.to_vec(),
                shape: global.to_vec(),
            }),
        }
        dummy(write)
    }

    /// The element at `i` under owner-computes (see [`crate::decomp::Mode::Owner`]): the
    /// element itself, the shared zero for a read of a plane this device does not hold
    /// (which poisons the statement), or this thread's sink for a write that does not
    /// take effect here.
    #[inline]
    fn owner_elem(&self, s: &SlabInfo, i: [usize; N], write: bool) -> *mut T {
        let z = i[0];
        let fault = |st: &PointState| SlabFault::new(s, i.to_vec(), Some(st.read_at));
        let (sink, fault) = POINT.with(|p| {
            let mut st = p.get();
            let owned = s.owned.0 <= z && z < s.owned.1;
            if s.distributed && st.first.is_none() {
                st.first = Some(owned);
            }
            let mut f = None;
            let sink = if !write {
                if s.distributed && !s.holds(z) && z < self.extent0 {
                    st.poisoned = true;
                    st.any = true;
                    st.read_at.get_or_insert(z);
                    true
                } else {
                    false
                }
            } else if s.distributed {
                if !owned {
                    true
                } else if st.poisoned {
                    f = Some(fault(&st));
                    true
                } else {
                    false
                }
            } else if st.poisoned {
                // A replicated array: another device, holding what this statement reads,
                // writes it; unless this device is the iteration's owner.
                if st.first == Some(true) {
                    f = Some(fault(&st));
                }
                true
            } else {
                false
            };
            p.set(st);
            (sink, f)
        });
        if let Some(f) = fault {
            self.faults.record(Fault::Slab(f));
        }
        if sink {
            return dummy(write);
        }
        self.elem(i, write)
    }
}

impl<'a, T: Element, const N: usize> CpuView<'a, T, N> {
    /// What the view allows, for [`CpuDev::guard`]: per axis (`[z, y, x]`, the view's
    /// own `N`), the indices `lo..hi` it holds, and whether it may be read without checks
    /// ([`FastView`]: not owner-computes, unit stride along its last axis).
    pub fn bounds(&self) -> ViewBounds {
        let mut b = ViewBounds {
            ndim: N,
            lo: [0; 3],
            hi: [0; 3],
            fast: !self.owner && N > 0 && self.strides[N - 1] == 1 && !self.faults.any(),
        };
        for d in 0..N {
            b.hi[d] = self.shape[d] as i64;
        }
        b.lo[0] = self.lo0 as i64;
        b
    }

    /// The view without checks, for the rows [`Guard::row_table`] proves inside
    /// [`CpuView::bounds`]; only used where `bounds().fast`.
    #[inline(always)]
    pub fn fast(&self) -> FastView<'a, T, N> {
        FastView {
            // the first plane held: inside the allocation, unlike a slab's `ptr`
            ptr: self
                .ptr
                .wrapping_offset(self.lo0 as isize * self.strides[0]),
            base: {
                let mut b = [0; N];
                if N > 0 {
                    b[0] = self.lo0 as isize;
                }
                b
            },
            strides: self.strides,
            #[cfg(debug_assertions)]
            held: {
                let mut lo = [0; N];
                if N > 0 {
                    lo[0] = self.lo0;
                }
                (lo, self.shape)
            },
            _borrow: PhantomData,
        }
    }
}

/// A [`CpuView`] without checks, for the iterations the kernel's reaches prove inside the
/// array (and inside the planes an emulated device holds): the innermost loop of such rows
/// is straight-line code the compiler vectorizes. Its last axis has unit stride.
///
/// Every access is computed from a base index ([`FastView::row`]): the generated code
/// addresses each view from the enclosing loops' indices, so that `u[[z - 1, y, x]]` is the
/// row's address minus a plane, a distance the compiler sees as constant along the row.
pub struct FastView<'a, T, const N: usize> {
    /// Where the element at `base` is (or would be: after [`FastView::row`] it may lie
    /// outside the view).
    ptr: *mut T,
    base: [isize; N],
    strides: [isize; N],
    /// The indices the view holds, `lo..hi` per axis: with debug assertions, every
    /// access checks that the reach analysis was right (a violation is a bug in Mint).
    #[cfg(debug_assertions)]
    held: ([usize; N], [usize; N]),
    _borrow: PhantomData<&'a T>,
}

impl<T, const N: usize> Clone for FastView<'_, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for FastView<'_, T, N> {}
// SAFETY: as for `CpuView`.
unsafe impl<T: Send, const N: usize> Send for FastView<'_, T, N> {}
unsafe impl<T: Sync, const N: usize> Sync for FastView<'_, T, N> {}

impl<T, const N: usize> FastView<'_, T, N> {
    /// The view addressed from index `base` (`[z, y, x]` order, one per axis): the same
    /// elements, each access's offset computed from `base` rather than from the array's
    /// start. `base` need not be inside the view.
    #[inline(always)]
    pub fn row(self, base: [isize; N]) -> Self {
        let mut off = 0isize;
        for ((&b, &o), &s) in base.iter().zip(&self.base).zip(&self.strides) {
            off = off.wrapping_add(b.wrapping_sub(o).wrapping_mul(s));
        }
        FastView {
            ptr: self.ptr.wrapping_offset(off),
            base,
            ..self
        }
    }

    /// # Safety
    /// `i` is inside the view's array (what [`Guard::row_table`] proves of its rows).
    #[inline(always)]
    unsafe fn at(&self, i: [usize; N]) -> *mut T {
        #[cfg(debug_assertions)]
        {
            let (lo, hi) = self.held;
            let inside = (0..N).all(|d| lo[d] <= i[d] && i[d] < hi[d]);
            assert!(
                inside,
                "mint: an unchecked access at {i:?} is outside the view's {lo:?}..{hi:?}: \
                 a bug in Mint's reach analysis (mint_translator::analyzer::reach), please report it"
            );
        }
        // the last axis has unit stride. An index loop: written with iterators (`zip`,
        // `take`) it kept the radius-4 star's rows from vectorizing (Decision log)
        let mut off = (i[N - 1] as isize).wrapping_sub(self.base[N - 1]);
        #[allow(clippy::needless_range_loop)]
        for d in 0..N - 1 {
            off = off.wrapping_add(
                (i[d] as isize)
                    .wrapping_sub(self.base[d])
                    .wrapping_mul(self.strides[d]),
            );
        }
        // wrapping: `ptr` may be outside the allocation, the element is not
        self.ptr.wrapping_offset(off)
    }
}

impl<T: Element, const N: usize> Index<[usize; N]> for FastView<'_, T, N> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: [usize; N]) -> &T {
        // SAFETY: the generated code uses a fast view only for iterations whose every
        // access [`Guard::row_table`] proved inside the view's bounds.
        unsafe { &*self.at(i) }
    }
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for FastView<'_, T, N> {
    #[inline(always)]
    fn index_mut(&mut self, i: [usize; N]) -> &mut T {
        // SAFETY: as for `index`; made from a writable view.
        unsafe { &mut *self.at(i) }
    }
}

impl<T: Element> Index<usize> for FastView<'_, T, 1> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self[[i]]
    }
}

impl<T: Element> IndexMut<usize> for FastView<'_, T, 1> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self[[i]]
    }
}

/// Per axis of a view (slowest first, as many as it has): the indices `lo..hi` it holds,
/// and whether it may be read without checks.
#[derive(Clone, Copy, Debug)]
pub struct ViewBounds {
    pub ndim: usize,
    pub lo: [i64; 3],
    pub hi: [i64; 3],
    pub fast: bool,
}

/// Where a kernel's CPU version may run without checks: per parallel loop (outermost
/// first), the indices `lo..hi` for which every reference of the kernel, at its reach
/// ([`mint_translator::analyzer::reach`]), stays inside its view's bounds. The generated
/// code checks this once per row of the innermost loop ([`Guard::row_kind`]) and runs the
/// row's middle on [`FastView`]s, its ends (and rows outside) on the checked views, so
/// every error the checked views would find is still found.
///
/// A subscript whose every value lies inside its view
/// ([`mint_translator::analyzer::reach::Within`], evaluated for the launch's scalars: a
/// clamped face `if z == 0 { z } else { z - 1 }` over the whole array) bounds no loop.
/// Two sets of bounds are kept: `rows` for the body as written, and `lifted` for the body
/// whose selects along the innermost loop read every arm (the macro's `faces::lift`),
/// where such a subscript of the innermost loop bounds it unless it has a single case.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    on: bool,
    rows: [(i64, i64); 3],
    lifted: [(i64, i64); 3],
}

/// The parts of a row of the innermost loop that run in different ways ([`Guard::row_table`]):
/// up to five, each `(how, (a, b))` for the indices `a..b`, in order along the row.
#[derive(Clone, Copy, Debug)]
pub struct RowParts {
    len: usize,
    parts: [(u8, (i64, i64)); 5],
}

impl RowParts {
    /// The non-empty ones of `parts`, in their order.
    fn new(parts: [(u8, (i64, i64)); 5]) -> RowParts {
        let mut r = RowParts {
            len: 0,
            parts: [(0, (0, 0)); 5],
        };
        for p in parts.into_iter().filter(|p| p.1.0 < p.1.1) {
            r.parts[r.len] = p;
            r.len += 1;
        }
        r
    }

    /// The parts, in order along the row.
    #[inline(always)]
    pub fn as_slice(&self) -> &[(u8, (i64, i64))] {
        &self.parts[..self.len]
    }
}

impl Guard {
    /// No unchecked rows.
    pub const OFF: Guard = Guard {
        on: false,
        rows: [(0, 0); 3],
        lifted: [(0, 0); 3],
    };

    /// The parts of a row of the innermost loop's `range` (`lo..hi`), for each kind of
    /// row ([`Guard::row_kind`]), computed once per launch: in order along the row, the
    /// non-empty ones of checked (0), the body as written unchecked (1: the part the
    /// `rows` bounds prove inside every array, less the lifted span), the lifted body
    /// unchecked (2: the part the `lifted` bounds prove), as written (1), checked (0).
    /// `outer`: the number of enclosing parallel loops; `lifted`: whether the kernel has
    /// a lifted body (without one, the unchecked part is all lifted, 2).
    pub fn row_table(&self, outer: usize, range: (i64, i64), lifted: bool) -> [RowParts; 3] {
        let (lo, hi) = range;
        let clip = |(a, b): (i64, i64), (lo, hi): (i64, i64)| {
            let a = a.max(lo);
            (a, b.min(hi).max(a))
        };
        [0, 1, 2].map(|kind| {
            let rows = if kind >= 1 {
                clip(self.rows[outer], range)
            } else {
                (lo, lo)
            };
            let span = match (lifted, kind) {
                (false, _) => rows,
                (true, 2) => Some(clip(self.lifted[outer], rows))
                    .filter(|s| s.0 < s.1)
                    .unwrap_or((rows.1, rows.1)),
                (true, _) => (rows.1, rows.1),
            };
            RowParts::new([
                (0, (lo, rows.0)),
                (1, (rows.0, span.0)),
                (2, span),
                (1, (span.1, rows.1)),
                (0, (rows.1, hi)),
            ])
        })
    }

    /// For a kernel of one parallel loop over `range` (`lo..hi`): the indices `a..b` of
    /// it whose every access the reaches prove inside the arrays (and inside the planes an
    /// emulated device holds), computed once per launch; empty where the guard is off. The
    /// generated code runs them on [`FastView`]s, the others checked.
    pub fn span(&self, range: (i64, i64)) -> (i64, i64) {
        if !self.on {
            return (range.0, range.0);
        }
        let a = self.rows[0].0.max(range.0);
        (a, self.rows[0].1.min(range.1).max(a))
    }

    /// Which of [`Guard::row_table`]'s parts the row at the enclosing parallel loops'
    /// indices `outer` (outermost first) runs: 0 where the `rows` bounds exclude it (all
    /// checked), 1 where only the lifted body's exclude it, 2 where neither does. The
    /// `lifted` bounds are tested only inside the `rows` ones, so a row outside `rows`
    /// is checked whatever `lifted` holds.
    #[inline(always)]
    pub fn row_kind(&self, outer: &[i64]) -> usize {
        let inside = |allowed: &[(i64, i64); 3]| {
            let mut ok = self.on;
            for (d, &v) in outer.iter().enumerate() {
                ok &= allowed[d].0 <= v && v < allowed[d].1;
            }
            ok
        };
        if !inside(&self.rows) {
            0
        } else if !inside(&self.lifted) {
            1
        } else {
            2
        }
    }

    /// The guard of a kernel whose references are `plan` over views of `bounds` (in the
    /// kernel's array order), for the launch's `scalars` (in the kernel's order).
    fn new(
        plan: &crate::site::FastPlan,
        bounds: &[ViewBounds],
        scalars: &[crate::host::ScalarValue],
    ) -> Guard {
        use crate::site::FastSub;
        let all = [(i64::MIN, i64::MAX); 3];
        let mut g = Guard {
            on: true,
            rows: all,
            lifted: all,
        };
        let innermost = plan.depth.saturating_sub(1);
        for r in &plan.refs {
            let Some(b) = bounds
                .get(r.array)
                .filter(|b| b.fast && b.ndim == r.subs.len())
            else {
                return Guard::OFF;
            };
            for (d, sub) in r.subs.iter().enumerate() {
                match sub {
                    FastSub::Rel {
                        par,
                        lo,
                        hi,
                        within,
                        single,
                    } => {
                        let inside = within.as_ref().is_some_and(|cases| {
                            cases
                                .iter()
                                .all(|c| c.inside(scalars, b.lo[d], b.hi[d]) == Some(true))
                        });
                        let near = (b.lo[d].saturating_sub(*lo), b.hi[d].saturating_sub(*hi));
                        let narrow = |a: &mut (i64, i64)| {
                            a.0 = a.0.max(near.0);
                            a.1 = a.1.min(near.1);
                        };
                        if !inside {
                            narrow(&mut g.rows[*par]);
                        }
                        if !inside || (*par == innermost && !single) {
                            narrow(&mut g.lifted[*par]);
                        }
                    }
                    FastSub::Abs { lo, hi } => {
                        if *lo < b.lo[d] || *hi >= b.hi[d] {
                            return Guard::OFF;
                        }
                    }
                    FastSub::Inside { within } => {
                        let inside = within
                            .iter()
                            .all(|c| c.inside(scalars, b.lo[d], b.hi[d]) == Some(true));
                        if !inside {
                            return Guard::OFF;
                        }
                    }
                }
            }
        }
        g
    }
}

/// What [`CpuView::outside`] needs of the view.
struct Outside<'a, T, const N: usize> {
    ptr: *mut T,
    shape: [usize; N],
    strides: [isize; N],
    extent0: usize,
    slab: Option<&'a SlabInfo>,
    array: usize,
    faults: &'a Faults,
}

/// What a skipped or faulting access touches: the shared zero for a read, this thread's
/// sink for a write.
fn dummy<T>(write: bool) -> *mut T {
    if write {
        SINK.with(|c| c.get() as *mut T)
    } else {
        ZERO.as_ptr() as *mut T
    }
}

/// What the CPU backend's view of a slab knows about it, for owner-computes and errors.
#[derive(Clone, Debug)]
pub struct SlabInfo {
    pub array: &'static str,
    pub kernel: &'static str,
    pub device: usize,
    /// `[lo, hi)` of the planes the device holds, and of those it owns.
    pub held: (usize, usize),
    pub owned: (usize, usize),
    /// `[lo, hi)` of more planes the device holds: a ring's ghost planes wrapped around
    /// the extent's end (`decomp::Slabs::ring`); empty otherwise.
    pub wrap: (usize, usize),
    /// The array is distributed (otherwise replicated).
    pub distributed: bool,
    /// The kernel runs under owner-computes.
    pub owner: bool,
}

impl SlabInfo {
    /// Whether the device holds plane `z`.
    pub fn holds(&self, z: usize) -> bool {
        (self.held.0 <= z && z < self.held.1) || (self.wrap.0 <= z && z < self.wrap.1)
    }
}

/// An access outside what an emulated device holds; the region turns it into
/// [`crate::Error::OutsideSlab`]. `write`: the device owns what it writes at `index`,
/// but the statement read plane `read_at`, which it does not hold.
#[derive(Clone, Debug)]
pub struct SlabFault {
    pub array: &'static str,
    pub kernel: &'static str,
    pub device: usize,
    pub index: Vec<usize>,
    pub held: (usize, usize),
    pub owned: (usize, usize),
    pub write: bool,
    pub read_at: Option<usize>,
}

impl SlabFault {
    /// A read of `index` outside the planes held (`read_at` `None`), or a write of
    /// `index` (empty: a reduction value) from a statement that read plane `read_at`.
    fn new(s: &SlabInfo, index: Vec<usize>, read_at: Option<Option<usize>>) -> SlabFault {
        SlabFault {
            array: s.array,
            kernel: s.kernel,
            device: s.device,
            index,
            held: s.held,
            owned: s.owned,
            write: read_at.is_some(),
            read_at: read_at.flatten(),
        }
    }
}

/// Owner-computes state of the iteration a thread is running.
/// A device's access outside the planes it holds ([`SlabFault`]), as an error of `site`'s
/// kernel: on emulated devices, or read back from a GPU's fault record.
pub(crate) fn fault_error(f: &SlabFault, site: &crate::site::KernelSite) -> crate::Error {
    let message = if f.write {
        format!(
            "device {} must write {} (it owns planes {}..{}), but the statement computing it reads plane {}, outside the planes {}..{} the device holds; a kernel that is not split may reach only as far from its first distributed reference as the region's ghost planes",
            f.device,
            if f.index.is_empty() {
                "the iteration's reduction value".to_string()
            } else {
                format!("index {:?}", f.index)
            },
            f.owned.0,
            f.owned.1,
            f.read_at.map_or("?".to_string(), |p| p.to_string()),
            f.held.0,
            f.held.1
        )
    } else {
        format!(
            "it reads index {:?}, outside the planes {}..{} device {} holds (it owns {}..{})",
            f.index, f.held.0, f.held.1, f.device, f.owned.0, f.owned.1
        )
    };
    crate::Error::OutsideSlab {
        array: f.array.into(),
        kernel: site.name.into(),
        index: f.index.clone(),
        device: f.device,
        message: format!("{message} (the loop nest at {})", site.location()),
    }
}

#[derive(Clone, Copy, Default)]
struct PointState {
    /// Whether this device owns the plane of the iteration's first distributed reference.
    first: Option<bool>,
    /// The statement (with those whose values it uses) read a plane this device does
    /// not hold: its writes do not take effect here.
    poisoned: bool,
    /// Some statement of the iteration was poisoned.
    any: bool,
    /// The first plane read that the device does not hold.
    read_at: Option<usize>,
}

thread_local! {
    static POINT: std::cell::Cell<PointState> = const { std::cell::Cell::new(PointState { first: None, poisoned: false, any: false, read_at: None }) };
    static SINK: std::cell::Cell<*mut u64> = std::cell::Cell::new(Box::leak(Box::new(0u64)));
}

/// What a skipped iteration reads from a plane its device does not hold.
static ZERO: [u64; 1] = [0];

impl<T: Element, const N: usize> Index<[usize; N]> for CpuView<'_, T, N> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: [usize; N]) -> &T {
        if self.owner
            && let Some(s) = self.slab
        {
            // SAFETY: a checked element of the slab, or the shared zero.
            return unsafe { &*self.owner_elem(s, i, false) };
        }
        // SAFETY: `elem` checked every index against the shape of the borrowed array
        // (for a slab: against the planes held), or gave the shared zero.
        unsafe { &*self.elem(i, false) }
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
    /// The view on `dev` of the kernel's array `i` (see [`CpuDev::view`]).
    fn auto_view_on<'a>(&'a self, dev: &'a CpuDev<'_>, i: usize) -> Self::View<'a>;
}

/// [`AutoView`] for arrays written through the view.
pub trait AutoViewMut: AutoView {
    /// The writable view on `dev` of the kernel's array `i`.
    fn auto_view_mut_on<'a>(&'a mut self, dev: &'a CpuDev<'_>, i: usize) -> Self::View<'a>;
}

/// [`AutoView`] and [`AutoViewMut`] for one host array type of `N` dimensions: the
/// generics of each impl in brackets (read, then write), then the type.
macro_rules! auto_view {
    ([$($g:tt)*] [$($gm:tt)*] $t:ty => $n:literal) => {
        impl<$($g)*> AutoView for $t {
            type Elem = T;
            type View<'a> = CpuView<'a, T, $n> where Self: 'a;
            fn auto_view_on<'a>(&'a self, dev: &'a CpuDev<'_>, i: usize) -> CpuView<'a, T, $n> {
                dev.view::<$n, _>(i, self)
            }
        }
        impl<$($gm)*> AutoViewMut for $t {
            fn auto_view_mut_on<'a>(&'a mut self, dev: &'a CpuDev<'_>, i: usize) -> CpuView<'a, T, $n> {
                dev.view_mut::<$n, _>(i, self)
            }
        }
    };
}
macro_rules! auto_view_nd {
    ($($ix:ty => $n:literal),*) => {$(
        auto_view!(
            [S: ndarray::Data<Elem = T>, T: Element]
            [S: ndarray::DataMut<Elem = T>, T: Element]
            ndarray::ArrayBase<S, $ix> => $n
        );
        // Mint's own host arrays: a rank's planes and page-locked arrays, so that they too
        // can be fields of structs whose arrays device functions read
        auto_view!([T: Element] [T: Element] crate::slab::SlabArray<T, $ix> => $n);
        auto_view!([T: Element] [T: Element] crate::pinned::PinnedArray<T, $ix> => $n);
    )*};
}
auto_view_nd!(ndarray::Ix1 => 1, ndarray::Ix2 => 2, ndarray::Ix3 => 3);
auto_view!([T: Element] [T: Element] [T] => 1);
auto_view!([T: Element] [T: Element] Vec<T> => 1);
impl<A: AutoView + ?Sized> AutoView for &A {
    type Elem = A::Elem;
    type View<'a>
        = A::View<'a>
    where
        Self: 'a;
    fn auto_view_on<'a>(&'a self, dev: &'a CpuDev<'_>, i: usize) -> A::View<'a> {
        (**self).auto_view_on(dev, i)
    }
}
impl<A: AutoView + ?Sized> AutoView for &mut A {
    type Elem = A::Elem;
    type View<'a>
        = A::View<'a>
    where
        Self: 'a;
    fn auto_view_on<'a>(&'a self, dev: &'a CpuDev<'_>, i: usize) -> A::View<'a> {
        (**self).auto_view_on(dev, i)
    }
}
impl<A: AutoViewMut + ?Sized> AutoViewMut for &mut A {
    fn auto_view_mut_on<'a>(&'a mut self, dev: &'a CpuDev<'_>, i: usize) -> A::View<'a> {
        (**self).auto_view_mut_on(dev, i)
    }
}

/// The view of the kernel's array `i` on `dev`, its number of dimensions following the
/// array's type.
pub fn auto_view_on<'a, A: AutoView + ?Sized>(
    dev: &'a CpuDev<'_>,
    i: usize,
    a: &'a A,
) -> A::View<'a> {
    a.auto_view_on(dev, i)
}

/// The writable view of the kernel's array `i` on `dev` (see [`auto_view_on`]).
pub fn auto_view_mut_on<'a, A: AutoViewMut + ?Sized>(
    dev: &'a CpuDev<'_>,
    i: usize,
    a: &'a mut A,
) -> A::View<'a> {
    a.auto_view_mut_on(dev, i)
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for CpuView<'_, T, N> {
    #[inline(always)]
    fn index_mut(&mut self, i: [usize; N]) -> &mut T {
        if self.owner
            && let Some(s) = self.slab
        {
            // SAFETY: a checked element of the slab, or this thread's sink.
            return unsafe { &mut *self.owner_elem(s, i, true) };
        }
        // SAFETY: as for `index`; the view was made from a mutable borrow (or this
        // thread's sink).
        unsafe { &mut *self.elem(i, true) }
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

/// One device as a kernel's CPU version sees it (the generated code's `__mint_dev`): the
/// host arrays themselves on the plain CPU backend, or one emulated device's slabs and
/// replicas under `MINT_DEVICE=cpu:N`, with the outermost parallel loop clipped to the
/// iterations it owns.
pub struct CpuDev<'r> {
    pub(crate) split: Option<DevSplit<'r>>,
    /// What the kernel's views found wrong ([`Faults`]).
    pub(crate) faults: Faults,
}

/// An emulated device running one kernel.
pub(crate) struct DevSplit<'r> {
    pub device: usize,
    pub mode: crate::decomp::Mode,
    pub owned: (usize, usize),
    /// Per kernel array.
    pub arrays: Vec<PartView>,
    pub _region: PhantomData<&'r mut ()>,
}

/// One array's storage on an emulated device.
pub(crate) struct PartView {
    /// The element at index 0 of the first plane stored (`info.held.0`; for a ring, plane
    /// 0: [`crate::decomp::Slabs::held`]).
    pub ptr: *mut u8,
    /// The first plane stored.
    pub stored: usize,
    pub elem: mint_translator::ir::ScalarTy,
    /// The whole array's shape, `[z, y, x]` padded to three axes.
    pub shape: [usize; 3],
    pub ndim: usize,
    pub info: SlabInfo,
}

// SAFETY: the parts are the region's, which the kernel run borrows mutably; threads
// touch distinct elements as on the host arrays.
unsafe impl Sync for DevSplit<'_> {}
unsafe impl Send for DevSplit<'_> {}

impl CpuDev<'static> {
    /// The plain CPU backend: kernels run on the host arrays.
    pub fn host() -> CpuDev<'static> {
        CpuDev {
            split: None,
            faults: Faults::default(),
        }
    }
}

impl<'r> CpuDev<'r> {
    /// The view of the kernel's array `i`: `host` itself, or this device's part of it.
    pub fn view<'a, const N: usize, A: HostArray + ?Sized>(
        &'a self,
        i: usize,
        host: &'a A,
    ) -> CpuView<'a, A::Elem, N> {
        match &self.split {
            None => CpuView::from_raw(host.raw(), i, &self.faults),
            Some(s) => s.view(i, &self.faults),
        }
    }

    /// The writable view of the kernel's array `i`.
    pub fn view_mut<'a, const N: usize, A: HostArrayMut + ?Sized>(
        &'a self,
        i: usize,
        host: &'a mut A,
    ) -> CpuView<'a, A::Elem, N> {
        match &self.split {
            None => CpuView::from_raw(host.raw_mut(), i, &self.faults),
            Some(s) => s.view(i, &self.faults),
        }
    }

    /// `range` clipped to the iterations this device runs.
    pub fn range<R: ClipRange>(&self, range: R) -> R {
        match &self.split {
            Some(DevSplit {
                mode: crate::decomp::Mode::Split { clip },
                owned,
                ..
            }) => {
                let (lo, hi) = range.bounds();
                let (a, b) = crate::decomp::clip_range(lo, hi, *owned, *clip);
                range.clip(a, b)
            }
            _ => range,
        }
    }

    /// Where the kernel of `site` may run without checks over views of `bounds` (in the
    /// kernel's array order): never under owner-computes, nor when its reaches are not
    /// all bounded.
    pub fn guard(
        &self,
        site: &crate::site::KernelSite,
        bounds: &[ViewBounds],
        scalars: &[crate::host::ScalarValue],
    ) -> Guard {
        if self.owner() {
            return Guard::OFF;
        }
        match site.fast_plan() {
            Some(p) => Guard::new(p, bounds, scalars),
            None => Guard::OFF,
        }
    }

    /// Whether kernels run under owner-computes on this device (the generated code reads
    /// it once per kernel run and calls [`CpuDev::point`] and [`CpuDev::statement`] only
    /// then).
    pub fn is_owner(&self) -> bool {
        self.owner()
    }

    /// Whether kernels run under owner-computes on this device.
    fn owner(&self) -> bool {
        matches!(
            &self.split,
            Some(DevSplit {
                mode: crate::decomp::Mode::Owner,
                ..
            })
        )
    }

    /// Starts one iteration (one point of the parallel loops, or a `single` block).
    #[inline(always)]
    pub fn point(&self) {
        if self.owner() {
            POINT.with(|p| p.set(PointState::default()));
        }
    }

    /// Starts a statement of the iteration that uses no value an earlier statement
    /// computed (the macro inserts the call): under owner-computes it starts unpoisoned.
    #[inline(always)]
    pub fn statement(&self) {
        if self.owner() {
            POINT.with(|p| {
                let mut st = p.get();
                st.poisoned = false;
                p.set(st)
            });
        }
    }

    /// Whether the iteration just run counts on this device, for a reduction: always,
    /// except under owner-computes, where it counts on the device that owns the plane of
    /// its first distributed reference (a device owning no distributed plane it
    /// references counts it if it is device 0). When the device that counts the
    /// iteration could not read all of it, a [`SlabFault`] is recorded.
    #[inline(always)]
    pub fn counts(&self) -> bool {
        let Some(s) = self.split.as_ref().filter(|_| self.owner()) else {
            return true;
        };
        let st = POINT.with(|p| p.get());
        let mine = st.first.unwrap_or(s.device == 0);
        if mine
            && st.any
            && let Some(a) = s.arrays.iter().find(|a| a.info.distributed)
        {
            self.faults.record(Fault::Slab(SlabFault::new(
                &a.info,
                Vec::new(),
                Some(st.read_at),
            )));
        }
        mine
    }

    /// The outermost loop of a nest over this device's part of `range`, the nest's inner
    /// loops spanning `inner` (`[lo, hi)` each, outermost first; `None` where the body runs
    /// serial loops of its own, so that its points say nothing of its work): [`par_for`],
    /// or, where the nest has fewer than [`SERIAL_POINTS`] points, a plain loop on the
    /// calling thread. Handing a loop that small to the pool's threads (waking them,
    /// waiting for the last) costs more than running it; the points and the results are
    /// the same either way.
    pub fn par_for<R>(
        &self,
        range: R,
        inner: Option<&[(i64, i64)]>,
        f: impl Fn(<R as IntoIterator>::Item) + Sync + Send,
    ) where
        R: ClipRange + Clone + Send + Sync + IntoIterator,
    {
        // one copy of the body for every chunk
        let f: &(dyn Fn(<R as IntoIterator>::Item) + Sync + Send) = &f;
        self.par_rows(range, inner, |part: R| part.into_iter().for_each(f));
    }

    /// As [`CpuDev::par_for`], but `f` runs a contiguous part of `range` (a chunk of
    /// [`par_chunks`]'s, or all of it where the nest runs on the calling thread) rather
    /// than one index: the generated code of a kernel of two parallel loops runs its rows in a
    /// loop of its own, so that what each call sets up (the row's views, the choice of
    /// [`run_wide`]'s copy) is set up once per chunk rather than once per row. The same
    /// indices run, each once.
    pub fn par_rows<R>(&self, range: R, inner: Option<&[(i64, i64)]>, f: impl Fn(R) + Sync + Send)
    where
        R: ClipRange + Clone + Send + Sync,
    {
        let range = self.range(range);
        let f: &(dyn Fn(R) + Sync + Send) = &f;
        if inner.is_some_and(|inner| nest_points(range.bounds(), inner) < SERIAL_POINTS) {
            f(range);
        } else {
            par_chunks(range, f);
        }
    }

    /// [`par_reduce`] over this device's part of `range`.
    pub fn par_reduce<R, T>(
        &self,
        range: R,
        op: RedOp,
        f: impl Fn(<R as IntoIterator>::Item) -> T + Sync + Send,
    ) -> T
    where
        R: ClipRange + IntoIterator + Clone + Send + Sync,
        T: Reducible,
    {
        par_reduce(self.range(range), op, f)
    }
}

impl DevSplit<'_> {
    fn view<'a, T: Element, const N: usize>(
        &'a self,
        i: usize,
        faults: &'a Faults,
    ) -> CpuView<'a, T, N> {
        let p = &self.arrays[i];
        let mut v = CpuView {
            ptr: p.ptr as *mut T,
            shape: [0; N],
            strides: [0; N],
            lo0: 0,
            extent0: 0,
            slab: Some(&p.info),
            owner: p.info.owner,
            array: i,
            faults,
            _borrow: PhantomData,
        };
        if p.ndim != N || p.elem != T::TY {
            faults.record(Fault::View {
                array: i,
                message: format!(
                    "the emulated device holds {} of {} dimensions, the kernel indexes {} of {N}",
                    p.elem,
                    p.ndim,
                    T::TY
                ),
            });
            return v;
        }
        v.shape.copy_from_slice(&p.shape[3 - N..]);
        let mut st = 1isize;
        for d in (0..N).rev() {
            v.strides[d] = st;
            st *= v.shape[d] as isize;
        }
        v.extent0 = v.shape[0];
        let (lo0, hi0) = p.info.held;
        v.shape[0] = hi0;
        v.lo0 = lo0;
        v.ptr = v.ptr.wrapping_offset(-(p.stored as isize) * v.strides[0]);
        v
    }
}

/// Ranges of a parallel loop that [`CpuDev::range`] can clip, keeping their type.
pub trait ClipRange: Sized {
    /// `[lo, hi)` of the range.
    fn bounds(&self) -> (i64, i64);
    /// The range `[lo, hi)` in this type (`lo <= hi`, both within the original range).
    fn clip(self, lo: i64, hi: i64) -> Self;
}

macro_rules! clip_range {
    ($($t:ty),*) => {$(
        impl ClipRange for std::ops::Range<$t> {
            fn bounds(&self) -> (i64, i64) { (self.start as i64, self.end as i64) }
            fn clip(self, lo: i64, hi: i64) -> Self { lo as $t..hi as $t }
        }
        impl ClipRange for std::ops::RangeInclusive<$t> {
            fn bounds(&self) -> (i64, i64) {
                if self.is_empty() { (0, 0) } else { (*self.start() as i64, *self.end() as i64 + 1) }
            }
            #[allow(clippy::reversed_empty_ranges)]
            fn clip(self, lo: i64, hi: i64) -> Self {
                if hi <= lo { 1 as $t..=0 as $t } else { lo as $t..=(hi - 1) as $t }
            }
        }
    )*};
}
clip_range!(usize, isize, i32, i64, u32, u64, i16, u16, i8, u8);

/// Whether the rows of a kernel run through [`run_wide`]: on x86-64 CPUs with AVX2 and
/// FMA (detected once, at run time), unless `MINT_CPU_WIDE=0`.
#[inline]
pub fn wide() -> bool {
    crate::wide::level() > 0
}

/// Runs a kernel's rows `f` compiled for AVX-512 where the CPU has it and `site`'s choice
/// for elements of `elem_bytes` bytes (timed on its first planes) picks it, for AVX2 and
/// FMA otherwise, and returns its value; `None`, without running `f`, where the CPU has no
/// AVX2. `f` is inlined into two functions with those target features, its only callers,
/// and so compiled once for each. The generated code passes it a kernel's rows, and runs
/// the baseline copy where it returns `None`. Every copy gives the same bits.
#[inline(always)]
pub fn run_wide<R>(
    site: &crate::site::KernelSite,
    elem_bytes: usize,
    f: impl FnOnce() -> R,
) -> Option<R> {
    #[cfg(target_arch = "x86_64")]
    match crate::wide::level() {
        0 => {}
        // SAFETY: `level()` found AVX2 and FMA on this CPU.
        1 => return Some(unsafe { avx2(f) }),
        // SAFETY: `level()` found AVX2, FMA and AVX-512 (F, VL, BW, DQ).
        3 => return Some(unsafe { avx512(f) }),
        _ => {
            // one choice per element size: a kernel generic over `T: Real` is one site
            let w = &site.wide[usize::from(elem_bytes > 4)];
            let (copy, timed) = w.pick();
            let t0 = timed.then(std::time::Instant::now);
            // SAFETY: `level()` found AVX2, FMA and AVX-512 (F, VL, BW, DQ).
            let r = unsafe { if copy == 1 { avx512(f) } else { avx2(f) } };
            if let Some(t0) = t0
                && let Some((kept, ns)) = w.record(copy, t0.elapsed().as_nanos() as u64)
                && crate::stats::report_enabled()
            {
                eprintln!(
                    "mint report: {} on the CPU runs its rows with {} (median call {} ns with AVX2, {} ns with AVX-512)",
                    site.name,
                    ["AVX2", "AVX-512"][kept],
                    ns[0],
                    ns[1]
                );
            }
            return Some(r);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    drop((site, elem_bytes, f));
    None
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq")]
#[inline]
unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `f`, a closure the generated code marks `#[inline(never)]`: the parts of a row
/// that run rarely (its checked ends, and the rows at a clamped stencil's `y` or `z` face)
/// are compiled apart from the rows' vectorized middles, so that the addresses they read
/// are not computed before every row. Compiled for the target's baseline, even when
/// called from [`run_wide`]'s copies; every copy gives the same bits.
#[inline(always)]
pub fn apart<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The number of points of a nest below which [`CpuDev::par_for`] runs it on the calling
/// thread: a few microseconds of work, about what starting a parallel loop costs (on a
/// 16-core host, 64² points of the cardiac model took 40 µs a step in two parallel loops).
pub const SERIAL_POINTS: u64 = 4096;

/// The points of a nest whose outermost loop spans `outer` and inner loops `inner`
/// (`[lo, hi)` each; an empty loop makes it 0).
fn nest_points(outer: (i64, i64), inner: &[(i64, i64)]) -> u64 {
    std::iter::once(&outer)
        .chain(inner)
        .map(|&(lo, hi)| hi.saturating_sub(lo).max(0) as u64)
        .fold(1, u64::saturating_mul)
}

/// Chunks of a parallel loop per thread: enough that a thread that starts late (woken
/// from sleep, or sharing its core) leaves most of its share to the others.
const CHUNKS_PER_THREAD: usize = 4;

/// Runs `f` on contiguous chunks of `range`, the outermost parallel loop, spread over as
/// many threads as the pool the caller runs in has (`rayon::current_num_threads`: the
/// global pool's, or that of a `ThreadPool::install`), the caller one of them: the range
/// is cut into `CHUNKS_PER_THREAD` (4) chunks per thread; each thread runs its own share
/// of them in order, the same at every launch, then takes what is left of the others'
/// (`cpu/pool.rs`). Where the pool runs another loop (a loop inside a loop's body, or
/// loops on several threads at once), `rayon` runs the chunks.
pub fn par_chunks<R>(range: R, f: impl Fn(R) + Sync + Send)
where
    R: ClipRange + Clone + Send + Sync,
{
    let threads = rayon::current_num_threads();
    let (lo, hi) = range.bounds();
    let n = (hi - lo).max(0) as usize;
    if threads <= 1 || n <= 1 {
        f(range);
        return;
    }
    let chunks = n.min(threads * CHUNKS_PER_THREAD);
    let edge = |c: usize| lo + (c as u128 * n as u128 / chunks as u128) as i64;
    let chunk = |c: usize| f(range.clone().clip(edge(c), edge(c + 1)));
    if !pool::run(threads, chunks, &chunk) {
        use rayon::prelude::*;
        (0..chunks).into_par_iter().for_each(chunk);
    }
}

/// Runs `f` for every index of the outermost parallel loop: [`par_chunks`], each chunk's
/// indices in order.
pub fn par_for<R>(range: R, f: impl Fn(<R as IntoIterator>::Item) + Sync + Send)
where
    R: ClipRange + Clone + Send + Sync + IntoIterator,
{
    par_chunks(range, |part: R| part.into_iter().for_each(&f));
}

/// Runs `f` for every index of the outermost parallel loop and combines the values it
/// returns with `op`, in a fixed order: the range is cut into at most 64 chunks whatever
/// the number of threads, spread over the threads as in [`par_for`]; each chunk is folded
/// in index order and the chunks' values are combined in order, so a floating-point sum
/// has the same bits on every run (rayon's own `reduce` combines in the order
/// work-stealing happens to give).
pub fn par_reduce<R, T>(range: R, op: RedOp, f: impl Fn(R::Item) -> T + Sync + Send) -> T
where
    R: ClipRange + IntoIterator + Clone + Send + Sync,
    T: Reducible,
{
    let (lo, hi) = range.bounds();
    let n = (hi - lo).max(0) as u64;
    let chunk = n.div_ceil(64).max(1);
    let fold = |c: usize| {
        let a = lo + (c as u64 * chunk) as i64;
        let b = (a + chunk as i64).min(hi);
        range
            .clone()
            .clip(a, b)
            .into_iter()
            .map(&f)
            .fold(T::red_identity(op), |x, y| T::red_combine(op, x, y))
    };
    let chunks = n.div_ceil(chunk) as usize;
    let parts: Vec<std::sync::OnceLock<T>> = (0..chunks).map(|_| Default::default()).collect();
    let threads = rayon::current_num_threads();
    if threads <= 1
        || !pool::run(threads, chunks, &|c| {
            let _ = parts[c].set(fold(c));
        })
    {
        parts.par_iter().enumerate().for_each(|(c, p)| {
            let _ = p.set(fold(c));
        });
    }
    let mut parts = parts
        .into_iter()
        .filter_map(std::sync::OnceLock::into_inner);
    let first = parts.next().unwrap_or_else(|| T::red_identity(op));
    parts.fold(first, |a, b| T::red_combine(op, a, b))
}

/// The reduction identity for `op` on `T` (the value each thread's private copy starts at).
pub fn identity<T: Reducible>(op: RedOp) -> T {
    T::red_identity(op)
}

/// [`identity`] of the type of `_like` (a reduction variable of a generic type, which the
/// generated code cannot name).
pub fn identity_like<T: Reducible>(_like: &T, op: RedOp) -> T {
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
        let dev = CpuDev::host();
        let v = dev.view::<3, _>(0, &a);
        assert_eq!(v[[2, 3, 4]], 234.0);
        let dev = CpuDev::host();
        let mut w = dev.view_mut::<3, _>(0, &mut a);
        w[[1, 1, 1]] = -1.0;
        assert_eq!(a[[1, 1, 1]], -1.0);
    }

    /// A nest below `SERIAL_POINTS` runs every outer index once, in order, on the calling
    /// thread; a larger one, or one without spans, runs every outer index once (on the
    /// pool, which the test cannot see: the caller may take every index itself).
    #[test]
    fn small_nests_run_on_the_calling_thread() {
        use std::sync::Mutex;
        let dev = CpuDev::host();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        // 40 × 10 × 10 points run here; 41 × 10 × 10 (4100), and a body with serial loops
        // of its own (no spans), spread over the pool
        let spans: &[(i64, i64)] = &[(0, 10), (5, 15)];
        for (n, inner, serial) in [
            (40usize, Some(spans), true),
            (41, Some(spans), false),
            (40, None, false),
        ] {
            let seen = Mutex::new(Vec::new());
            pool.install(|| {
                let caller = std::thread::current().id();
                dev.par_for(0..n, inner, |z| {
                    let here = std::thread::current().id() == caller;
                    seen.lock().unwrap().push((z, here));
                    // long enough for the pool's other threads to steal, where they may
                    std::thread::sleep(std::time::Duration::from_millis(1));
                });
            });
            let mut seen = seen.into_inner().unwrap();
            if serial {
                assert!(
                    seen.iter().all(|&(_, here)| here),
                    "{n} planes ran elsewhere"
                );
                assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "in index order");
            }
            seen.sort();
            assert_eq!(
                seen.iter().map(|s| s.0).collect::<Vec<_>>(),
                (0..n).collect::<Vec<_>>()
            );
        }
        assert_eq!(nest_points((0, 41), &[(0, 10), (5, 15)]), 4100);
        assert_eq!(nest_points((3, 2), &[(0, 10)]), 0);
        assert_eq!(nest_points((0, 1 << 40), &[(0, 1 << 40)]), u64::MAX);
    }

    /// Each point of a row gets the part its own bounds give it: checked outside the
    /// `rows` bounds, lifted inside the `lifted` ones, as written between; the table's
    /// parts cover the row in order, each point once.
    #[test]
    fn the_row_table_gives_each_point_its_part() {
        let g = Guard {
            on: true,
            rows: [(1, 7), (0, 10), (1, 15)],
            lifted: [(2, 6), (1, 9), (2, 13)],
        };
        for lifted in [false, true] {
            for range in [(0, 16), (0, 3), (5, 9), (14, 20), (3, 3)] {
                let table = g.row_table(2, range, lifted);
                for z in -1..9 {
                    for y in -1..11 {
                        let parts = table[g.row_kind(&[z, y])].as_slice();
                        let mut at = range.0;
                        for &(_, (a, b)) in parts {
                            assert!(a == at && a < b, "{parts:?}");
                            at = b;
                        }
                        assert_eq!(at.max(range.0), range.1.max(range.0), "{parts:?}");
                        let inside = |b: &[(i64, i64); 3], v: [i64; 3]| {
                            (0..3).all(|d| b[d].0 <= v[d] && v[d] < b[d].1)
                        };
                        for x in range.0..range.1 {
                            let how = parts.iter().find(|p| p.1.0 <= x && x < p.1.1).unwrap().0;
                            let want = match (inside(&g.rows, [z, y, x]), lifted) {
                                (false, _) => 0,
                                (true, false) => 2,
                                (true, true) if inside(&g.lifted, [z, y, x]) => 2,
                                (true, true) => 1,
                            };
                            assert_eq!(how, want, "z {z} y {y} x {x} {range:?} lifted {lifted}");
                        }
                    }
                }
            }
        }
        // `lifted` wider than `rows` along an outer axis: a row outside `rows` is checked
        let wide = Guard {
            on: true,
            rows: [(2, 4), (0, 10), (0, 10)],
            lifted: [(0, 9), (0, 10), (0, 10)],
        };
        let table = wide.row_table(2, (0, 10), true);
        assert_eq!(table[wide.row_kind(&[1, 5])].as_slice(), &[(0, (0, 10))]);
        let off = Guard::OFF.row_table(2, (0, 5), true);
        assert_eq!(off[Guard::OFF.row_kind(&[0, 0])].as_slice(), &[(0, (0, 5))]);
    }

    #[test]
    fn a_row_view_reads_what_ndarray_reads_from_any_base() {
        let a =
            Array3::<f64>::from_shape_fn((4, 5, 12), |(z, y, x)| (1000 * z + 10 * y + x) as f64);
        let dev = CpuDev::host();
        let v = dev.view::<3, _>(0, &a);
        let f = v.fast();
        let (nz, ny, nx) = a.dim();
        // the bases the macro chooses ([z, y, 0]) and others: outside the array, negative
        for base in [[0, 0, 0], [2, 3, 0], [3, 4, 0], [-2, 7, 5], [40, -9, 100]] {
            // from the array's start, and rebased from another base
            for r in [f.row(base), f.row([9, -3, 2]).row(base)] {
                for z in 0..nz {
                    for y in 0..ny {
                        for x in 0..nx {
                            assert_eq!(
                                r[[z, y, x]],
                                a[[z, y, x]],
                                "base {base:?} at {:?}",
                                [z, y, x]
                            );
                        }
                    }
                }
            }
        }
        // one axis: a table read `c[i]`
        let c: Vec<f32> = (0..7).map(|i| i as f32 * 0.5).collect();
        let dev = CpuDev::host();
        let v = dev.view::<1, _>(0, &c);
        let r = v.fast().row([0]);
        assert!((0..7).all(|i| r[i] == c[i]));
    }

    #[test]
    fn an_index_out_of_bounds_is_recorded_not_raised() {
        let mut a = Array3::<f64>::zeros((2, 2, 2));
        let dev = CpuDev::host();
        let mut w = dev.view_mut::<3, _>(0, &mut a);
        assert_eq!(w[[0, 0, 2]], 0.0, "a read outside reads zero");
        w[[2, 0, 0]] = 5.0;
        assert!(dev.faults.any());
        let f = dev.faults.first.lock().unwrap().clone();
        let Some(Fault::OutOfBounds { index, shape, .. }) = f else {
            panic!("{f:?}")
        };
        assert_eq!(
            (index, shape),
            (vec![0, 0, 2], vec![2, 2, 2]),
            "the first fault"
        );
        assert!(
            a.iter().all(|&x| x == 0.0),
            "the write outside went nowhere"
        );
    }

    #[test]
    fn non_standard_layouts_index_correctly_on_the_cpu() {
        let a = Array3::<f64>::from_shape_fn((3, 4, 5), |(z, y, x)| (100 * z + 10 * y + x) as f64);
        let t = a.view().reversed_axes();
        let dev = CpuDev::host();
        let v = dev.view::<3, _>(0, &t);
        assert_eq!(v[[4, 3, 2]], 234.0);
    }

    #[test]
    fn float_sums_have_the_same_bits_whatever_the_thread_count() {
        let sum = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| par_reduce(0..10_007i64, RedOp::Add, |i| ((i as f64) * 0.37).sin()))
        };
        let one = sum(1);
        for t in [2, 3, 7] {
            assert_eq!(sum(t).to_bits(), one.to_bits(), "{t} threads");
        }
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
