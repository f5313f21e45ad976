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
use mint_translator::ir::ScalarTy;
use std::ffi::c_void;
use std::sync::Arc;

/// Kernel parameters a launch packs on the stack; more take a heap buffer.
pub(crate) const STACK_PARAMS: usize = 64;

/// `cuLaunchKernel` of `func` with one 64-bit word per parameter, on `stream`; up to
/// [`STACK_PARAMS`] parameters without allocating. Every launch of a kernel goes
/// through here: generated kernels, replays of a batch ([`crate::graph`]) and
/// hand-written ones ([`RawKernel`]).
pub(crate) fn enqueue_words(
    func: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: sys::CUstream,
    words: &[u64],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let n = words.len();
    let (mut word_buf, mut word_vec) = ([0u64; STACK_PARAMS], Vec::new());
    let (mut ptr_buf, mut ptr_vec) = ([std::ptr::null_mut::<c_void>(); STACK_PARAMS], Vec::new());
    let (w, p): (&mut [u64], &mut [*mut c_void]) = if n <= STACK_PARAMS {
        (&mut word_buf[..n], &mut ptr_buf[..n])
    } else {
        word_vec.resize(n, 0);
        ptr_vec.resize(n, std::ptr::null_mut());
        (&mut word_vec, &mut ptr_vec)
    };
    w.copy_from_slice(words);
    for (p, w) in p.iter_mut().zip(w.iter_mut()) {
        *p = w as *mut u64 as *mut c_void;
    }
    // SAFETY: `func` is a loaded kernel whose parameters are these words (the callers'
    // translation or source says so); the driver copies them before returning.
    unsafe {
        drv::launch_kernel(
            func,
            (grid[0], grid[1], grid[2]),
            (block[0], block[1], block[2]),
            shared,
            stream,
            p,
        )
    }
}

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
        enqueue_words(
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

/// The kernel of [`DeviceArray::same_bytes`]: sets `*flag` when a 32-bit word differs.
const DIFFER: &str = r#"
extern "C" __global__ void mint_differ(const unsigned int* a, const unsigned int* b,
                                       unsigned long long n, unsigned int* flag) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        if (a[i] != b[i]) { *flag = 1u; return; }
    }
}
"#;

/// The comparison kernel of `gpu`, compiled once per process (and kept in the JIT cache).
fn differ_kernel(gpu: &Arc<Gpu>) -> Result<Arc<RawKernel>> {
    static K: std::sync::Mutex<Vec<(usize, Arc<RawKernel>)>> = std::sync::Mutex::new(Vec::new());
    let mut ks = K.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, k)) = ks.iter().find(|(o, _)| *o == gpu.ordinal) {
        return Ok(k.clone());
    }
    let k = Arc::new(RawKernel::new(gpu, "mint.differ", DIFFER, "mint_differ")?);
    ks.push((gpu.ordinal, k.clone()));
    Ok(k)
}

impl DeviceArray {
    /// Whether this allocation and `other`'s (same layout: a
    /// [`DeviceArray::scratch_copy`]) hold the same bytes, padding and guard bands
    /// included, compared on the device after the stream's earlier work (a few
    /// milliseconds for gigabytes, where reading both to the host takes seconds).
    ///
    /// # Errors
    /// [`Error::Compile`] or [`Error::Launch`] for the comparison kernel; driver failures.
    pub(crate) fn same_bytes(&self, other: &DeviceArray) -> Result<bool> {
        debug_assert_eq!(self.bytes, other.bytes);
        if !self.bytes.is_multiple_of(4) {
            return Ok(self.read_all()? == other.read_all()?);
        }
        if self.bytes == 0 {
            return Ok(true);
        }
        let k = differ_kernel(&self.gpu)?;
        self.gpu.bind()?;
        let flag = crate::array::malloc(&self.gpu, || "the comparison flag".into(), 4)?;
        let stream = self.gpu.stream.cu_stream();
        let run = || -> Result<bool> {
            unsafe { drv::memset_d8_async(flag, 0, 4, stream) }
                .map_err(|e| Error::driver("cuMemsetD8", e))?;
            let words = (self.bytes / 4) as u64;
            let blocks = words.div_ceil(256).min(4096) as u32;
            k.launch(
                [blocks, 1, 1],
                [256, 1, 1],
                0,
                &[
                    RawArg::Ptr(self.base),
                    RawArg::Ptr(other.base),
                    RawArg::Scalar(ScalarValue {
                        ty: ScalarTy::U64,
                        bits: words,
                    }),
                    RawArg::Ptr(flag),
                ],
                false,
            )?;
            let mut host = [0u8; 4];
            unsafe { drv::memcpy_dtoh_sync(&mut host[..], flag) }
                .map_err(|e| Error::driver("cuMemcpyDtoH", e))?;
            Ok(host == [0; 4])
        };
        let r = run();
        crate::array::free(&self.gpu, flag, 4);
        r
    }
}
