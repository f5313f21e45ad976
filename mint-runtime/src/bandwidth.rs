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
    let run = || -> Result<Vec<f64>> {
        unsafe { drv::memset_d8_async(src, 1, bytes, stream) }
            .map_err(|e| Error::driver("cuMemsetD8", e))?;
        let ev = |_: ()| {
            drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| Error::driver("cuEventCreate", e))
        };
        let (a, b) = (ev(())?, ev(())?);
        let mut times = Vec::with_capacity(reps);
        for i in 0..=reps {
            unsafe {
                drv::event::record(a, stream).map_err(|e| Error::driver("cuEventRecord", e))?;
                drv::memcpy_dtod_async(dst, src, bytes, stream)
                    .map_err(|e| Error::driver("cuMemcpyDtoD", e))?;
                drv::event::record(b, stream).map_err(|e| Error::driver("cuEventRecord", e))?;
            }
            gpu.synchronize()?;
            let ms = unsafe { drv::event::elapsed(a, b) }
                .map_err(|e| Error::driver("cuEventElapsedTime", e))?;
            if i > 0 {
                times.push(ms as f64 * 1e-3);
            }
        }
        unsafe {
            let _ = drv::event::destroy(a);
            let _ = drv::event::destroy(b);
        }
        Ok(times)
    };
    let r = run();
    unsafe {
        let _ = drv::free_sync(src);
        let _ = drv::free_sync(dst);
    }
    let mut t = r?;
    t.sort_by(|a, b| a.total_cmp(b));
    let med = t[t.len() / 2];
    Ok(2.0 * bytes as f64 / med)
}
