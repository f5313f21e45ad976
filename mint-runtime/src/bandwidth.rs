//! The device's copy bandwidth, measured: the bound a memory-bound stencil is judged by.

use crate::device::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{result as drv, sys};

/// Median device-to-device copy bandwidth of `gpu`, in bytes per second counting bytes
/// read plus bytes written, over `reps` copies of a `bytes`-byte buffer (after one
/// warm-up copy). Timed with CUDA events.
///
/// # Errors
/// [`Error::OutOfMemory`] if two buffers of `bytes` do not fit; driver failures.
pub fn copy_bandwidth(gpu: &Gpu, bytes: usize, reps: usize) -> Result<f64> {
    gpu.bind()?;
    let alloc = |what: &str| -> Result<sys::CUdeviceptr> {
        unsafe { drv::malloc_sync(bytes) }.map_err(|_| {
            let (free, total) = gpu.memory_info();
            Error::OutOfMemory {
                array: what.into(),
                requested_bytes: bytes,
                free_bytes: free,
                total_bytes: total,
            }
        })
    };
    let src = alloc("copy-bandwidth source")?;
    let dst = match alloc("copy-bandwidth destination") {
        Ok(d) => d,
        Err(e) => {
            unsafe { drv::free_sync(src) }.ok();
            return Err(e);
        }
    };
    let stream = gpu.stream.cu_stream();
    let run = || -> Result<f64> {
        unsafe { drv::memset_d8_async(src, 1, bytes, stream) }
            .map_err(|e| Error::driver("cuMemsetD8", e))?;
        median_seconds(gpu, reps, || {
            unsafe { drv::memcpy_dtod_async(dst, src, bytes, stream) }
                .map_err(|e| Error::driver("cuMemcpyDtoD", e))
        })
    };
    let r = run();
    unsafe {
        let _ = drv::free_sync(src);
        let _ = drv::free_sync(dst);
    }
    Ok(2.0 * bytes as f64 / r?)
}

/// The median over `reps` runs (after one warm-up) of the device time of what `op`
/// queues on `gpu`'s stream, in seconds, timed with CUDA events.
fn median_seconds(gpu: &Gpu, reps: usize, mut op: impl FnMut() -> Result<()>) -> Result<f64> {
    let stream = gpu.stream.cu_stream();
    let ev = || {
        drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| Error::driver("cuEventCreate", e))
    };
    let (a, b) = (ev()?, ev()?);
    let mut run = || -> Result<Vec<f64>> {
        let mut times = Vec::with_capacity(reps);
        for i in 0..=reps {
            unsafe { drv::event::record(a, stream) }
                .map_err(|e| Error::driver("cuEventRecord", e))?;
            op()?;
            unsafe { drv::event::record(b, stream) }
                .map_err(|e| Error::driver("cuEventRecord", e))?;
            gpu.synchronize()?;
            let ms = unsafe { drv::event::elapsed(a, b) }
                .map_err(|e| Error::driver("cuEventElapsedTime", e))?;
            if i > 0 {
                times.push(ms as f64 * 1e-3);
            }
        }
        Ok(times)
    };
    let r = run();
    unsafe {
        let _ = drv::event::destroy(a);
        let _ = drv::event::destroy(b);
    }
    let mut t = r?;
    t.sort_by(|a, b| a.total_cmp(b));
    Ok(t[t.len() / 2])
}

/// Where the host side of a measured host↔device copy lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostMemory {
    /// Page-locked (`cuMemHostAlloc`, not write-combined): the link's speed.
    PageLocked,
    /// Ordinary pageable memory (a `Vec`): what the driver does for an unstaged copy.
    Pageable,
}

/// Host↔device copy bandwidth of `gpu`: the median over `reps` copies (after one
/// warm-up each way) of `bytes` bytes between a host buffer of kind `mem` and a device
/// buffer, as (host to device, device to host) in bytes per second. Timed with CUDA
/// events around one `cuMemcpyHtoDAsync`/`cuMemcpyDtoHAsync`. Page-locked, this is what
/// the link gives and what `copy!` is judged against.
///
/// # Errors
/// [`Error::OutOfMemory`] if the device buffer does not fit; [`Error::Driver`] if the
/// page-locked buffer cannot be allocated (`cuMemHostAlloc`) or a copy fails.
pub fn host_copy_bandwidth(
    gpu: &Gpu,
    bytes: usize,
    reps: usize,
    mem: HostMemory,
) -> Result<(f64, f64)> {
    gpu.bind()?;
    let dev = unsafe { drv::malloc_sync(bytes) }.map_err(|_| {
        let (free, total) = gpu.memory_info();
        Error::OutOfMemory {
            array: "host-copy bandwidth device buffer".into(),
            requested_bytes: bytes,
            free_bytes: free,
            total_bytes: total,
        }
    })?;
    let mut pageable = Vec::new();
    let host = match mem {
        HostMemory::Pageable => {
            pageable = vec![1u8; bytes];
            pageable.as_mut_ptr()
        }
        HostMemory::PageLocked => match unsafe { drv::malloc_host(bytes, 0) } {
            Ok(h) => h as *mut u8,
            Err(e) => {
                unsafe { drv::free_sync(dev) }.ok();
                return Err(Error::driver("cuMemHostAlloc", e));
            }
        },
    };
    let stream = gpu.stream.cu_stream();
    let run = |up: bool| -> Result<f64> {
        // SAFETY: `host` holds `bytes` bytes, `dev` too.
        unsafe { std::ptr::write_bytes(host, 1, bytes) };
        let t = median_seconds(gpu, reps, || {
            let r = unsafe {
                if up {
                    let src = std::slice::from_raw_parts(host as *const u8, bytes);
                    drv::memcpy_htod_async(dev, src, stream)
                } else {
                    let dst = std::slice::from_raw_parts_mut(host, bytes);
                    drv::memcpy_dtoh_async(dst, dev, stream)
                }
            };
            r.map_err(|e| Error::driver("cuMemcpy (host)", e))
        })?;
        Ok(bytes as f64 / t)
    };
    let r = run(true).and_then(|up| Ok((up, run(false)?)));
    unsafe {
        if mem == HostMemory::PageLocked {
            let _ = drv::free_host(host as _);
        }
        let _ = drv::free_sync(dev);
    }
    drop(pageable);
    r
}
