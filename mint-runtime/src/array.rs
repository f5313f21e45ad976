//! Device arrays: pitched allocations whose interior rows start 128-byte aligned.
//!
//! Mint allocated with `cudaMalloc3D`, which aligns the first element of each row, ghost
//! cells included; the thesis measured 10% from aligning the first *interior* element
//! instead (Sec. 6.2.3). Here each row is padded to a multiple of 128 bytes and the
//! allocation is offset so that element `x = align_x` (the first interior column the
//! kernels write) of every row sits on a 128-byte boundary. A guard band of
//! [`GUARD_BYTES`] precedes the first element and follows the last, so that the 16-byte
//! vector loads of `vectorize` kernels, which may stick out of a row at either end, stay
//! inside the allocation.

use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::host::{Element, RawArray};
use crate::transfer::{self, Direction, Rows};
use cudarc::driver::{result as drv, sys};
use mint_translator::ir::ScalarTy;
pub use mint_translator::target::GUARD_BYTES;
use std::sync::Arc;

/// Alignment of interior rows, in bytes.
pub const ROW_ALIGN: usize = 128;

/// An array in device memory, shape `[z, y, x]` (padded with leading 1s for 1-D and
/// 2-D arrays).
pub struct DeviceArray {
    pub name: &'static str,
    pub elem: ScalarTy,
    pub elem_bytes: usize,
    pub shape: [usize; 3],
    pub ndim: usize,
    /// Address of element `[0, 0, 0]`.
    pub ptr: sys::CUdeviceptr,
    /// Elements from one row to the next.
    pub pitch: usize,
    /// Elements from one plane to the next.
    pub slice: usize,
    /// `[lo, hi)` of the planes along the slowest axis this allocation holds: all of them,
    /// or a slab with its ghost planes on one of several GPUs. `ptr` is still the address
    /// element `[0, 0, 0]` would have, so kernels index slabs with global indices.
    pub planes: (usize, usize),
    /// Elements the whole array would span in this layout (decides 64-bit indexing).
    span: usize,
    pub(crate) base: sys::CUdeviceptr,
    pub(crate) bytes: usize,
    pub(crate) gpu: Arc<Gpu>,
}

impl std::fmt::Debug for DeviceArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceArray({}: {} {:?}, pitch {}, {} bytes)",
            self.name,
            self.elem,
            self.user_shape(),
            self.pitch,
            self.bytes
        )
    }
}

/// Layout of a pitched, interior-aligned allocation: (front padding in elements, pitch
/// in elements, total bytes). The front padding is the guard band plus what aligns
/// element `align_x` of every row to 128 bytes; the total includes the guard band after
/// the last row.
pub fn layout(shape: [usize; 3], elem_bytes: usize, align_x: usize) -> (usize, usize, usize) {
    let es = elem_bytes;
    let nx = shape[2];
    let rows = shape[0] * shape[1];
    if rows * nx == 0 {
        return (0, nx, 0);
    }
    let row_bytes = nx * es;
    let pitch_bytes = if rows == 1 {
        row_bytes
    } else {
        row_bytes.div_ceil(ROW_ALIGN) * ROW_ALIGN
    };
    let front_bytes = GUARD_BYTES + (ROW_ALIGN - (align_x * es) % ROW_ALIGN) % ROW_ALIGN;
    let total = front_bytes + (rows - 1) * pitch_bytes + row_bytes + GUARD_BYTES;
    (
        front_bytes / es,
        pitch_bytes / es,
        total.div_ceil(ROW_ALIGN) * ROW_ALIGN,
    )
}

/// Bytes [`DeviceArray::alloc_planes`] allocates for `planes` planes (along the slowest
/// axis) of an array of `shape` with `elem_bytes`-byte elements.
pub fn planes_alloc_bytes(
    shape: [usize; 3],
    elem_bytes: usize,
    ndim: usize,
    align_x: usize,
    planes: usize,
) -> usize {
    let es = elem_bytes;
    let (front, pitch, _) = layout(shape, es, align_x);
    let mut local = shape;
    local[slow_axis(ndim)] = planes;
    let rows = local[0] * local[1];
    if rows * local[2] == 0 {
        0
    } else {
        (front * es + (rows - 1) * pitch * es + local[2] * es + GUARD_BYTES).div_ceil(ROW_ALIGN)
            * ROW_ALIGN
    }
}

/// `bytes` of device memory on `gpu` (bound), 0 for none; running out is
/// [`Error::OutOfMemory`] naming `array()` with the bytes requested and free.
///
/// The bytes count against the `MINT_DEVICE_MEMORY` cap ([`crate::memcap`]) until
/// [`free`] gives them back.
pub(crate) fn malloc(
    gpu: &Gpu,
    array: impl Fn() -> String,
    bytes: usize,
) -> Result<sys::CUdeviceptr> {
    if bytes == 0 {
        return Ok(0);
    }
    gpu.usage.take(&array, bytes)?;
    unsafe { drv::malloc_sync(bytes) }.map_err(|e| {
        gpu.usage.give(bytes);
        if e.0 == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
            let (free, total) = gpu.memory_info();
            Error::OutOfMemory {
                array: array(),
                requested_bytes: bytes,
                free_bytes: free,
                total_bytes: total,
            }
        } else {
            Error::driver("cuMemAlloc", e)
        }
    })
}

/// Frees what [`malloc`] allocated on `gpu` (bound).
pub(crate) fn free(gpu: &Gpu, ptr: sys::CUdeviceptr, bytes: usize) {
    if ptr != 0 {
        let _ = unsafe { drv::free_sync(ptr) };
        gpu.usage.give(bytes);
    }
}

/// The index, in the padded `[z, y, x]` shape, of the slowest axis of an array of `ndim`
/// dimensions (z for 3-D, y for 2-D, x for 1-D).
fn slow_axis(ndim: usize) -> usize {
    3 - ndim.clamp(1, 3)
}

impl DeviceArray {
    /// Allocates an array of `shape` (`ndim` significant dimensions) on `gpu`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the bytes requested and free.
    pub fn alloc(
        gpu: &Arc<Gpu>,
        name: &'static str,
        elem: ScalarTy,
        shape: [usize; 3],
        ndim: usize,
        align_x: usize,
    ) -> Result<DeviceArray> {
        let planes = (0, shape[slow_axis(ndim)]);
        Self::alloc_planes(gpu, name, elem, shape, ndim, align_x, planes)
    }

    /// Allocates the planes `planes` (`[lo, hi)` along the slowest axis: z for a 3-D array,
    /// y for a 2-D one) of an array of `shape` on `gpu`: a slab of a region split over
    /// several GPUs. Indices stay global: element `[z, y, x]` of the slab is at
    /// `ptr + z * slice + y * pitch + x` for `z` in `planes`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] with the bytes requested and free.
    pub fn alloc_planes(
        gpu: &Arc<Gpu>,
        name: &'static str,
        elem: ScalarTy,
        shape: [usize; 3],
        ndim: usize,
        align_x: usize,
        planes: (usize, usize),
    ) -> Result<DeviceArray> {
        let es = elem.size_bytes() as usize;
        // the whole array's layout (front padding, pitch): slabs of one array share it,
        // and their rows are its rows
        let (front, pitch, whole_bytes) = layout(shape, es, align_x);
        let span = whole_bytes / es.max(1);
        let bytes = planes_alloc_bytes(shape, es, ndim, align_x, planes.1 - planes.0);
        gpu.bind()?;
        let base = malloc(gpu, || name.into(), bytes)?;
        if base != 0 {
            // zero once: the guard bands and row padding are read by 16-byte vector
            // loads (their lanes outside the array are discarded) and must not be
            // uninitialized memory (compute-sanitizer's initcheck, tests/sanitize.sh).
            // Waited for here: the "synchronous" cuMemsetD8 runs on the legacy stream and
            // may return before it is done, and Mint's streams (non-blocking) do not wait
            // for that one, so a copy on another stream could land first and be zeroed
            // (seen with two MPI ranks sharing a GPU).
            let stream = gpu.stream.cu_stream();
            let zeroed = unsafe { drv::memset_d8_async(base, 0, bytes, stream) }
                .and_then(|_| unsafe { drv::stream::synchronize(stream) });
            if let Err(e) = zeroed {
                free(gpu, base, bytes);
                return Err(Error::driver("cuMemsetD8", e));
            }
        }
        let slice = pitch * shape[1];
        let plane = if ndim >= 3 { slice } else { pitch };
        Ok(DeviceArray {
            name,
            elem,
            elem_bytes: es,
            shape,
            ndim,
            ptr: (base + (front * es) as u64).wrapping_sub((planes.0 * plane * es) as u64),
            pitch,
            slice,
            planes,
            span,
            base,
            bytes,
            gpu: gpu.clone(),
        })
    }

    /// The shape as the user sees it (`ndim` entries, slowest first).
    pub fn user_shape(&self) -> Vec<usize> {
        self.shape[3 - self.ndim..].to_vec()
    }

    /// Elements the whole array spans in this layout, padding included (decides 64-bit
    /// indexing; for a slab, what the whole array would span).
    pub fn span_elems(&self) -> usize {
        self.span
    }

    /// The extent along `axis` (0 = x, 1 = y, 2 = z) that the optimizer's guards compare
    /// indices with: the array's, except along the slowest axis of a slab, where it is the
    /// end of the planes allocated. Guards use it to skip loads that tiles reaching past
    /// the iterations (the last block of a clipped launch, the sliding window's prefetch)
    /// would make; those loads feed no result, and past a slab they would leave its
    /// allocation.
    pub fn guard_extent(&self, axis: usize) -> usize {
        let i = 2 - axis.min(2);
        if i == slow_axis(self.ndim) {
            self.shape[i].min(self.planes.1)
        } else {
            self.shape[i]
        }
    }

    /// The GPU the array lives on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Elements from one plane of the slowest axis to the next (a row for a 2-D array).
    pub fn plane_elems(&self) -> usize {
        match self.ndim {
            3 => self.slice,
            2 => self.pitch,
            _ => 1,
        }
    }

    /// Device address of the first element of plane `p` (of the slowest axis).
    pub fn plane_ptr(&self, p: usize) -> sys::CUdeviceptr {
        self.ptr
            .wrapping_add((p * self.plane_elems() * self.elem_bytes) as u64)
    }

    /// Bytes from the start of plane `lo` to the end of the last element of plane
    /// `hi - 1`: what a copy of planes `lo..hi` between two slabs moves.
    pub fn planes_bytes(&self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return 0;
        }
        ((hi - lo) * self.plane_elems() - (self.pitch - self.shape[2])) * self.elem_bytes
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A scratch copy for the autotuner: a new allocation of the same layout (pitch,
    /// padding, planes), so that `ptr` keeps the same alignment, with the whole
    /// allocation copied from `self` on the device's stream (asynchronous).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] naming the array.
    pub(crate) fn scratch_copy(&self) -> Result<DeviceArray> {
        self.gpu.bind()?;
        let name = || format!("{} (the autotuner's scratch copy)", self.name);
        let base = malloc(&self.gpu, name, self.bytes)?;
        let copy = DeviceArray {
            name: self.name,
            elem: self.elem,
            elem_bytes: self.elem_bytes,
            shape: self.shape,
            ndim: self.ndim,
            ptr: base.wrapping_add(self.ptr.wrapping_sub(self.base)),
            pitch: self.pitch,
            slice: self.slice,
            planes: self.planes,
            span: self.span,
            base,
            bytes: self.bytes,
            gpu: self.gpu.clone(),
        };
        copy.copy_from(self)?;
        Ok(copy)
    }

    /// Copies all of `src`'s allocation into this one (same layout: a
    /// [`DeviceArray::scratch_copy`] of it, or the array it was made from), on the
    /// device's stream.
    pub(crate) fn copy_from(&self, src: &DeviceArray) -> Result<()> {
        debug_assert_eq!(self.bytes, src.bytes);
        if self.bytes == 0 {
            return Ok(());
        }
        unsafe {
            drv::memcpy_dtod_async(self.base, src.base, self.bytes, self.gpu.stream.cu_stream())
        }
        .map_err(|e| Error::driver("cuMemcpyDtoD", e))
    }

    /// The whole allocation's bytes (padding and guard bands included), read to the host
    /// after the stream's earlier work.
    pub(crate) fn read_all(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.bytes];
        if self.bytes > 0 {
            unsafe { drv::memcpy_dtoh_async(&mut v[..], self.base, self.gpu.stream.cu_stream()) }
                .map_err(|e| Error::driver("cuMemcpyDtoH", e))?;
            self.gpu.synchronize()?;
        }
        Ok(v)
    }

    fn copy2d(&self, host: *mut u8, to_device: bool) -> Result<()> {
        self.copy_planes(host, self.planes.0, self.planes.1, to_device)
    }

    /// Copies planes `lo..hi` (of the slowest axis, within [`DeviceArray::planes`])
    /// between the device and a standard-layout host buffer of the whole array's shape
    /// that starts at `host`.
    /// The rows of planes `lo..hi` between this array and a standard-layout host array
    /// of its shape whose element 0 would be at `host`.
    pub(crate) fn plane_rows(&self, host: *mut u8, lo: usize, hi: usize) -> Rows {
        debug_assert!(self.planes.0 <= lo && hi <= self.planes.1 && self.ndim >= 2);
        let rows_per_plane = if self.ndim >= 3 { self.shape[1] } else { 1 };
        let row_bytes = self.shape[2] * self.elem_bytes;
        Rows {
            host: host.wrapping_add(lo * rows_per_plane * row_bytes),
            dev: self.plane_ptr(lo),
            rows: (hi - lo) * rows_per_plane,
            row_bytes,
            pitch: self.pitch * self.elem_bytes,
        }
    }

    /// [`DeviceArray::plane_rows`] for `out`, exactly the bytes of planes `lo..hi`.
    pub(crate) fn plane_rows_of(&self, out: &mut [u8], lo: usize, hi: usize) -> Rows {
        let pb = self.plane_bytes_host();
        assert_eq!(out.len(), (hi - lo) * pb, "a run of whole planes");
        self.plane_rows(out.as_mut_ptr().wrapping_sub(lo * pb), lo, hi)
    }

    fn copy_planes(&self, host: *mut u8, lo: usize, hi: usize, to_device: bool) -> Result<()> {
        debug_assert!(self.planes.0 <= lo && hi <= self.planes.1);
        let rows_per_plane = if self.ndim >= 3 { self.shape[1] } else { 1 };
        let rows = if self.ndim <= 1 {
            self.shape[0] * self.shape[1]
        } else {
            (hi - lo) * rows_per_plane
        };
        let (lo, rows_per_plane) = if self.ndim <= 1 {
            (0, 0)
        } else {
            (lo, rows_per_plane)
        };
        let row_bytes = self.shape[2] * self.elem_bytes;
        let host = host.wrapping_add(lo * rows_per_plane * row_bytes);
        let dev = self.plane_ptr(lo);
        if rows * row_bytes == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        let call = if to_device {
            "cuMemcpy2D (host to device)"
        } else {
            "cuMemcpy2D (device to host)"
        };
        let rows = Rows {
            host,
            dev,
            rows,
            row_bytes,
            pitch: self.pitch * self.elem_bytes,
        };
        let dir = if to_device {
            Direction::ToDevice
        } else {
            Direction::ToHost
        };
        // SAFETY: `host` covers the planes' rows (the callers pass a buffer of the whole
        // array's shape); the device rows lie inside this array's allocation.
        unsafe { transfer::copy(&self.gpu, dir, rows) }.map_err(|e| Error::Driver {
            call: call.into(),
            message: format!("array `{}`: {}", self.name, describe(e)),
        })
    }

    /// Copies a standard-layout host array of the same shape into this array (into the
    /// planes it holds).
    pub(crate) fn upload<T: Element>(&self, host: &RawArray<T>) -> Result<()> {
        debug_assert!(host.standard && host.shape == self.shape && T::TY == self.elem);
        self.copy2d(host.ptr as *mut u8, true)
    }

    /// Copies planes `lo..hi` (within those allocated) from a standard-layout host array
    /// of this array's shape whose element 0 would be at `host`; only those planes of
    /// it are read (a rank's part of a [`crate::slab::SlabArray`]).
    pub(crate) fn upload_planes(&self, host: *mut u8, lo: usize, hi: usize) -> Result<()> {
        if hi <= lo {
            return Ok(());
        }
        self.copy_planes(host, lo, hi, true)
    }

    /// [`DeviceArray::upload`] from a standard-layout host buffer of this array's shape
    /// and element type at `host`.
    pub(crate) fn upload_bytes(&self, host: *mut u8) -> Result<()> {
        self.copy2d(host, true)
    }

    /// Moves the planes this allocation holds to start at `lo` (as many as before),
    /// keeping global indices: a streaming buffer reused by one slab after another
    /// ([`crate::stream`]). Only the address arithmetic changes; no byte moves.
    pub(crate) fn rebase(&mut self, lo: usize) {
        let n = self.planes.1 - self.planes.0;
        let plane = (self.plane_elems() * self.elem_bytes) as u64;
        self.ptr = self
            .ptr
            .wrapping_add(self.planes.0 as u64 * plane)
            .wrapping_sub(lo as u64 * plane);
        self.planes = (lo, lo + n);
    }

    /// Copies planes `lo..hi` of this array into the same planes of `host`, a
    /// standard-layout buffer of the whole array's bytes.
    pub(crate) fn download_planes(&self, host: &mut [u8], lo: usize, hi: usize) -> Result<()> {
        let whole: usize = self.shape.iter().product::<usize>() * self.elem_bytes;
        assert!(host.len() >= whole, "host buffer of the whole array");
        self.copy_planes(host.as_mut_ptr(), lo, hi, false)
    }

    /// Planes `lo..hi` (within [`DeviceArray::planes`]) of a 2-D or 3-D array, as
    /// standard-layout bytes: a halo run sent to another MPI rank ([`crate::ranks`]).
    pub(crate) fn read_planes(&self, lo: usize, hi: usize) -> Result<Vec<u8>> {
        let mut v = vec![0u8; (hi - lo) * self.plane_bytes_host()];
        self.read_planes_into(&mut v, lo, hi)?;
        Ok(v)
    }

    /// [`DeviceArray::read_planes`] into `out` (exactly the planes' bytes): a page-locked
    /// buffer makes it one DMA ([`crate::pinned`]).
    pub(crate) fn read_planes_into(&self, out: &mut [u8], lo: usize, hi: usize) -> Result<()> {
        debug_assert!(self.ndim >= 2);
        let pb = self.plane_bytes_host();
        assert_eq!(out.len(), (hi - lo) * pb, "a run of whole planes");
        // The copy addresses the host buffer as the whole array; only planes lo..hi of
        // it, which are `out`, are written.
        let base = out.as_mut_ptr().wrapping_sub(lo * pb);
        self.copy_planes(base, lo, hi, false)
    }

    /// Writes planes `lo..hi` of a 2-D or 3-D array from standard-layout `bytes`: a halo
    /// run received from another MPI rank.
    pub(crate) fn write_planes(&self, bytes: &[u8], lo: usize, hi: usize) -> Result<()> {
        debug_assert!(self.ndim >= 2);
        let pb = self.plane_bytes_host();
        assert_eq!(bytes.len(), (hi - lo) * pb, "a run of whole planes");
        let base = (bytes.as_ptr() as *mut u8).wrapping_sub(lo * pb);
        // Host to device only reads the host buffer.
        self.copy_planes(base, lo, hi, true)
    }

    /// Bytes of one plane in a standard-layout host array of this shape.
    fn plane_bytes_host(&self) -> usize {
        let rows = if self.ndim >= 3 { self.shape[1] } else { 1 };
        rows * self.shape[2] * self.elem_bytes
    }

    /// Copies this array into a standard-layout host array of the same shape.
    ///
    /// The device's stream is waited for before any byte of the host array is written,
    /// so a fault of earlier work leaves it untouched. A small array (below
    /// [`transfer::DIRECT_BELOW`] bytes) lands in a host buffer first, so a failed copy
    /// leaves it untouched too; a large one streams through the page-locked ring of
    /// [`crate::transfer`] straight into the host array, where only a failure of the
    /// copy itself (the device lost in the middle of it) can leave part of it written.
    pub(crate) fn download<T: Element>(&self, host: &RawArray<T>) -> Result<()> {
        debug_assert!(host.standard && host.shape == self.shape && T::TY == self.elem);
        let n = host.len();
        if n * self.elem_bytes >= transfer::DIRECT_BELOW {
            return self.copy2d(host.ptr as *mut u8, false);
        }
        let mut staging: Vec<T> = vec![T::default(); n];
        self.copy2d(staging.as_mut_ptr() as *mut u8, false)?;
        // SAFETY: the host array is standard layout with `n` elements, exclusively
        // borrowed by the caller for this copy.
        unsafe { std::ptr::copy_nonoverlapping(staging.as_ptr(), host.ptr, n) };
        Ok(())
    }
}

impl Drop for DeviceArray {
    fn drop(&mut self) {
        if self.base != 0 {
            let _ = self.gpu.bind();
            free(&self.gpu, self.base, self.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_rows_are_128_byte_aligned() {
        for (nx, es, ax) in [
            (130, 8, 1),
            (514, 8, 1),
            (258, 4, 1),
            (100, 4, 0),
            (34, 8, 4),
            (7, 2, 3),
        ] {
            let shape = [5, 6, nx];
            let (front, pitch, total) = layout(shape, es, ax);
            assert_eq!((pitch * es) % ROW_ALIGN, 0, "pitch {pitch} for nx {nx}");
            for row in 0..30 {
                let interior = (front + row * pitch + ax) * es;
                assert_eq!(interior % ROW_ALIGN, 0, "nx {nx} es {es} ax {ax} row {row}");
            }
            // guard bands before the first element and after the last
            assert!(front * es >= GUARD_BYTES);
            assert!((front + 29 * pitch + nx) * es + GUARD_BYTES <= total);
            assert!(pitch >= nx);
        }
    }

    #[test]
    fn one_row_arrays_are_not_padded_per_row() {
        let (front, pitch, total) = layout([1, 1, 1000], 8, 0);
        assert_eq!((front, pitch), (GUARD_BYTES / 8, 1000));
        assert_eq!(total, (2 * GUARD_BYTES + 8000).div_ceil(128) * 128);
    }
}
