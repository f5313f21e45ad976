//! Hand-written CUDA kernels launched through the runtime: the reference implementations
//! Mint is compared with use the same device arrays (pitched, interior-aligned), the same
//! NVRTC compilation and cache, and the same launch path as generated kernels, so both
//! pay the same host costs.

use crate::array::DeviceArray;
use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::host::{Element, HostArray, HostArrayMut, ScalarValue};
use crate::jit;
use cudarc::driver::{CudaFunction, result as drv, sys};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

/// A device array for hand-written kernels, allocated as Mint allocates (rows padded to
/// 128 bytes, element `align_x` of every row 128-byte aligned).
pub struct RawArray {
    array: DeviceArray,
}

impl RawArray {
    /// Allocates and uploads `host` (standard layout).
    ///
    /// # Errors
    /// [`Error::NotStandardLayout`], [`Error::OutOfMemory`], driver failures.
    pub fn upload<A: HostArray + ?Sized>(
        gpu: &Arc<Gpu>,
        name: &'static str,
        host: &A,
        align_x: usize,
    ) -> Result<RawArray> {
        let raw = host.raw();
        if !raw.standard {
            return Err(Error::NotStandardLayout { array: name.into() });
        }
        let array = DeviceArray::alloc(
            gpu,
            name,
            <A::Elem as Element>::TY,
            raw.shape,
            raw.ndim,
            align_x,
        )?;
        array.upload(&raw)?;
        Ok(RawArray { array })
    }

    /// Copies the device array back into `host` (same shape).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], driver failures.
    pub fn download<A: HostArrayMut + ?Sized>(&self, host: &mut A) -> Result<()> {
        let raw = host.raw_mut();
        if raw.shape != self.array.shape || !raw.standard {
            return Err(Error::ShapeMismatch {
                array: self.array.name.into(),
                what: "downloading a raw array into a host array of another shape".into(),
                expected: self.array.user_shape(),
                found: raw.user_shape(),
            });
        }
        self.array.download(&raw)
    }

    /// Device address of element `[0, 0, 0]`.
    pub fn ptr(&self) -> u64 {
        self.array.ptr
    }
    /// Elements between rows.
    pub fn pitch(&self) -> usize {
        self.array.pitch
    }
    /// Elements between planes.
    pub fn slice(&self) -> usize {
        self.array.slice
    }
}

/// One kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum RawArg {
    /// A device pointer.
    Ptr(u64),
    /// A 32-bit integer.
    I32(i32),
    /// A scalar of any kernel type.
    Scalar(ScalarValue),
}

/// A hand-written CUDA kernel compiled with NVRTC for the device.
pub struct RawKernel {
    name: String,
    func: CudaFunction,
    gpu: Arc<Gpu>,
}

impl RawKernel {
    /// Compiles `entry` of `source` (CUDA C++, the entry `extern "C"`) for `gpu`, through
    /// the runtime's NVRTC path and disk cache.
    ///
    /// # Errors
    /// [`Error::Compile`] with NVRTC's log; [`Error::Launch`] if the entry is missing.
    pub fn new(gpu: &Arc<Gpu>, name: &str, source: &str, entry: &str) -> Result<RawKernel> {
        let image = jit::compile(gpu, name, source)?;
        gpu.bind()?;
        let ptx = if image.is_cubin {
            Ptx::from_binary(image.data)
        } else {
            let text: Vec<u8> = image.data.into_iter().take_while(|&b| b != 0).collect();
            Ptx::from_src(String::from_utf8_lossy(&text).into_owned())
        };
        let err = |what: &str, e| Error::Launch {
            kernel: name.into(),
            location: "hand-written CUDA".into(),
            message: format!("{what}: {}", describe(e)),
        };
        let module = gpu
            .ctx
            .load_module(ptx)
            .map_err(|e| err("loading the module", e))?;
        let func = module
            .load_function(entry)
            .map_err(|e| err("finding the entry point", e))?;
        Ok(RawKernel {
            name: name.into(),
            func,
            gpu: gpu.clone(),
        })
    }

    /// Raises the kernel's dynamic shared-memory limit (for more than 48 KB).
    ///
    /// # Errors
    /// Driver failures.
    pub fn set_dynamic_shared(&self, bytes: u32) -> Result<()> {
        self.func
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .map_err(|e| Error::driver("cuFuncSetAttribute", e))
    }

    /// Enqueues one launch on the runtime's stream and returns at once: no event, no
    /// wait (the host cost of a bare `cuLaunchKernel`, the baseline of
    /// `benches/launch.rs`). A fault shows at the next wait on the device.
    ///
    /// # Errors
    /// [`Error::Launch`] when the driver refuses the launch.
    pub fn enqueue(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[RawArg],
    ) -> Result<()> {
        let word = |a: &RawArg| match *a {
            RawArg::Ptr(p) => p,
            RawArg::I32(v) => v as u32 as u64,
            RawArg::Scalar(s) => s.bits,
        };
        // on the stack for the usual kernel: this is the benchmark's bare-launch baseline
        let mut buf = [0u64; 32];
        let heap: Vec<u64>;
        let words: &[u64] = if args.len() <= buf.len() {
            for (w, a) in buf.iter_mut().zip(args) {
                *w = word(a);
            }
            &buf[..args.len()]
        } else {
            heap = args.iter().map(word).collect();
            &heap
        };
        crate::launch::enqueue_words(
            self.func.cu_function(),
            grid,
            block,
            shared,
            self.gpu.stream.cu_stream(),
            words,
        )
        .map_err(|e| Error::Launch {
            kernel: self.name.clone(),
            location: "hand-written CUDA".into(),
            message: format!("launch: {}", describe(e)),
        })
    }

    /// Waits for everything enqueued on the runtime's stream.
    ///
    /// # Errors
    /// [`Error::Launch`] when a kernel faulted.
    pub fn wait(&self) -> Result<()> {
        self.gpu.synchronize().map_err(|e| Error::Launch {
            kernel: self.name.clone(),
            location: "hand-written CUDA".into(),
            message: e.to_string(),
        })
    }

    /// Launches on the runtime's stream and, when `timed`, returns the kernel's device
    /// time in seconds (CUDA events); waits for the kernel either way.
    ///
    /// # Errors
    /// [`Error::Launch`] when the launch fails or the kernel faults.
    pub fn launch(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[RawArg],
        timed: bool,
    ) -> Result<f64> {
        let stream = self.gpu.stream.cu_stream();
        let err = |what: &str, e| Error::Launch {
            kernel: self.name.clone(),
            location: "hand-written CUDA".into(),
            message: format!("{what}: {}", describe(e)),
        };
        let events = if timed {
            let a = drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| err("cuEventCreate", e))?;
            let b = drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| err("cuEventCreate", e))?;
            unsafe { drv::event::record(a, stream) }.map_err(|e| err("cuEventRecord", e))?;
            Some((a, b))
        } else {
            None
        };
        self.enqueue(grid, block, shared, args)?;
        let mut t = 0.0;
        if let Some((a, b)) = events {
            unsafe { drv::event::record(b, stream) }.map_err(|e| err("cuEventRecord", e))?;
            self.wait()?;
            t = unsafe { drv::event::elapsed(a, b) }.map_err(|e| err("cuEventElapsedTime", e))?
                as f64
                * 1e-3;
            unsafe {
                let _ = drv::event::destroy(a);
                let _ = drv::event::destroy(b);
            }
        } else {
            self.wait()?;
        }
        Ok(t)
    }
}
