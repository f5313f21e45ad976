//! Choosing the backend (`MINT_DEVICE`) and the CUDA devices themselves.

use crate::error::{Error, Result, describe};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Once, OnceLock};

/// Where a region runs.
///
/// `MINT_DEVICE` selects it for the process: `auto` (default: CUDA device 0 when a driver,
/// NVRTC and a device exist, else the CPU; the choice is logged once), `cpu`, `cpu:N`
/// (N emulated devices), `cuda` (device 0, an error if absent), `cuda:N`, `cuda:0,1,..`
/// and `cuda:all` (several GPUs). [`with_device`] overrides it for one thread.
///
/// On several devices a region's arrays are split into slabs along their slowest axis
/// (see `decomp` and the README's "Several devices"); results are bitwise those
/// of one device, except the sums and products of `reduction`s, which combine the
/// devices' partial values in device order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// CUDA device 0 if present, otherwise the CPU.
    Auto,
    /// The CPU backend (rayon threads).
    Cpu,
    /// The CPU backend emulating `N` devices (`cpu:N`): each holds its own slabs and
    /// replicas in host memory, and halos are exchanged by memcpy, exactly as on `N`
    /// GPUs. For testing decompositions without GPUs; `Cpus(1)` is one emulated device
    /// (host arrays are touched only by `copy!`, as on a GPU).
    Cpus(usize),
    /// CUDA device `N`; an error if it is not there.
    Cuda(usize),
    /// Several CUDA devices, in slab order (`cuda:0,1`). A GPU may be listed more than
    /// once (`cuda:0,0`): it then holds several slabs, which tests a decomposition on a
    /// machine with one GPU.
    CudaList(GpuList),
    /// Every CUDA device of the machine (`cuda:all`).
    CudaAll,
}

/// The ordinals of [`Device::CudaList`], in slab order (at most 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpuList {
    len: u8,
    ordinals: [u8; 16],
}

impl GpuList {
    /// The list, or `None` for an empty list, more than 16 entries or an ordinal above 255.
    pub fn new(ordinals: &[usize]) -> Option<GpuList> {
        if ordinals.is_empty() || ordinals.len() > 16 || ordinals.iter().any(|&o| o > 255) {
            return None;
        }
        let mut l = GpuList {
            len: ordinals.len() as u8,
            ordinals: [0; 16],
        };
        for (d, &o) in l.ordinals.iter_mut().zip(ordinals) {
            *d = o as u8;
        }
        Some(l)
    }
    /// The ordinals, in slab order.
    pub fn ordinals(&self) -> Vec<usize> {
        self.ordinals[..self.len as usize]
            .iter()
            .map(|&o| o as usize)
            .collect()
    }
}

impl Device {
    /// Parses a `MINT_DEVICE` value.
    ///
    /// # Errors
    /// [`Error::BadDeviceSpec`] for anything but `auto`, `cpu`, `cuda`, `cuda:N`.
    pub fn parse(s: &str) -> Result<Device> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "" | "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda(0)),
            "cuda:all" | "gpu:all" => Ok(Device::CudaAll),
            _ => {
                let bad = || Error::BadDeviceSpec { value: s.into() };
                if let Some(n) = t.strip_prefix("cpu:") {
                    return match n.trim().parse::<usize>() {
                        Ok(n) if (1..=1024).contains(&n) => Ok(Device::Cpus(n)),
                        _ => Err(bad()),
                    };
                }
                let list = t.strip_prefix("cuda:").ok_or_else(bad)?;
                let ords = list
                    .split(',')
                    .map(|p| p.trim().parse::<usize>().map_err(|_| bad()))
                    .collect::<Result<Vec<_>>>()?;
                match ords.as_slice() {
                    [n] => Ok(Device::Cuda(*n)),
                    _ => GpuList::new(&ords).map(Device::CudaList).ok_or_else(bad),
                }
            }
        }
    }

    /// How many devices a region spans on this choice (for `cuda:all`, the machine's GPUs;
    /// 0 when there are none).
    pub fn count(self) -> usize {
        match self {
            Device::Auto | Device::Cpu | Device::Cuda(_) => 1,
            Device::Cpus(n) => n,
            Device::CudaList(l) => l.len as usize,
            Device::CudaAll => cuda_device_count(),
        }
    }

    /// The process-wide choice from `MINT_DEVICE`.
    ///
    /// # Errors
    /// [`Error::BadDeviceSpec`] for a malformed value.
    pub fn from_env() -> Result<Device> {
        match std::env::var("MINT_DEVICE") {
            Ok(v) => Device::parse(&v),
            Err(_) => Ok(Device::Auto),
        }
    }
}

thread_local! {
    static OVERRIDE: Cell<Option<Device>> = const { Cell::new(None) };
}

/// Runs `f` with regions on this thread using `device`, whatever `MINT_DEVICE` says.
/// Tests use it to run the same region on the CPU and on CUDA.
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Device>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OVERRIDE.with(|o| o.replace(Some(device))));
    f()
}

/// The device regions on this thread use now.
///
/// # Errors
/// [`Error::BadDeviceSpec`] for a malformed `MINT_DEVICE`.
pub fn requested_device() -> Result<Device> {
    match OVERRIDE.with(|o| o.get()) {
        Some(d) => Ok(d),
        None => Device::from_env(),
    }
}

/// Whether `MINT_DEVICE` demands CUDA (`cuda` or `cuda:N`): tests that need a GPU then
/// fail instead of skipping when none is found.
pub fn cuda_required() -> bool {
    matches!(
        Device::from_env(),
        Ok(Device::Cuda(_) | Device::CudaList(_) | Device::CudaAll)
    )
}

/// Why CUDA cannot be used on this machine, or the number of devices.
fn cuda_probe() -> &'static std::result::Result<usize, String> {
    static PROBE: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    PROBE.get_or_init(|| {
        // cudarc panics at first use when a library is missing: look before touching it.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("the CUDA driver library (libcuda) was not found".into());
        }
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err("the NVRTC library (libnvrtc) was not found".into());
        }
        cudarc::driver::result::init().map_err(|e| format!("cuInit failed: {}", describe(e)))?;
        let n = cudarc::driver::result::device::get_count()
            .map_err(|e| format!("cuDeviceGetCount failed: {}", describe(e)))?;
        if n <= 0 {
            return Err("the CUDA driver reports no devices".into());
        }
        Ok(n as usize)
    })
}

/// The number of CUDA devices (0 without a driver, NVRTC or a device).
pub fn cuda_device_count() -> usize {
    cuda_probe().as_ref().copied().unwrap_or(0)
}

/// Whether a usable CUDA device exists (driver, NVRTC and at least one device).
pub fn cuda_available() -> bool {
    cuda_probe().is_ok()
}

/// A CUDA device in use: its context, the stream Mint's work runs on, and the
/// properties the translator needs.
pub struct Gpu {
    pub ordinal: usize,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub max_threads_per_block: u32,
    pub shared_bytes_per_block: u32,
    pub shared_bytes_optin: u32,
    /// Shared memory of one multiprocessor (the most the carveout can give).
    pub shared_bytes_per_sm: u32,
    pub total_memory: usize,
    pub l2_bytes: u32,
    pub max_grid: [u32; 3],
    /// Page-locked staging buffers for large host↔device copies, allocated at the
    /// first ([`crate::transfer`]).
    pub(crate) staging: Mutex<Option<crate::staging::Staging>>,
    /// Bytes of Mint's arrays on this device, against `MINT_DEVICE_MEMORY`.
    pub(crate) usage: crate::memcap::Usage,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CUDA device {} ({}, sm_{}{})",
            self.ordinal, self.name, self.compute_capability.0, self.compute_capability.1
        )
    }
}

impl Gpu {
    fn open(ordinal: usize) -> Result<Gpu> {
        let no = |reason: String| Error::NoDevice {
            requested: format!("cuda:{ordinal}"),
            reason,
        };
        let count = *cuda_probe().as_ref().map_err(|r| no(r.clone()))?;
        if ordinal >= count {
            return Err(no(format!("there are only {count} CUDA device(s)")));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| no(describe(e)))?;
        let stream = ctx
            .new_stream()
            .map_err(|e| Error::driver("cuStreamCreate", e))?;
        let attr = |a: Attr| -> Result<u32> {
            ctx.attribute(a)
                .map(|v| v as u32)
                .map_err(|e| Error::driver("cuDeviceGetAttribute", e))
        };
        Ok(Gpu {
            ordinal,
            name: ctx.name().unwrap_or_else(|_| "unknown".into()),
            compute_capability: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            shared_bytes_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_bytes_optin: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_bytes_per_sm: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )?,
            total_memory: ctx.total_mem().unwrap_or(0),
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            max_grid: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            ctx,
            stream,
            staging: Mutex::new(None),
            usage: Default::default(),
        })
    }

    /// The device with this ordinal, opened once per process.
    ///
    /// # Errors
    /// [`Error::NoDevice`] when CUDA or the device is missing.
    pub fn get(ordinal: usize) -> Result<Arc<Gpu>> {
        static GPUS: OnceLock<Mutex<HashMap<usize, Arc<Gpu>>>> = OnceLock::new();
        let mut map = GPUS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(g) = map.get(&ordinal) {
            return Ok(g.clone());
        }
        let g = Arc::new(Gpu::open(ordinal)?);
        map.insert(ordinal, g.clone());
        Ok(g)
    }

    /// Makes this device's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", e))
    }

    /// Waits for all of Mint's work on this device.
    ///
    /// # Errors
    /// A kernel that faulted reports here as [`Error::Driver`].
    pub fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| Error::driver("cuStreamSynchronize", e))
    }

    /// Free and total device memory in bytes.
    pub fn memory_info(&self) -> (usize, usize) {
        let _ = self.bind();
        self.ctx.mem_get_info().unwrap_or((0, self.total_memory))
    }
}

/// Lets every GPU of `gpus` read and write the memory of every other one directly (over
/// NVLink or PCIe), where the hardware allows; halo copies between GPUs without peer
/// access go through host memory inside the driver.
fn enable_peer_access(gpus: &[Arc<Gpu>]) {
    static DONE: OnceLock<Mutex<std::collections::HashSet<(usize, usize)>>> = OnceLock::new();
    let mut done = DONE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    for a in gpus {
        for b in gpus {
            if a.ordinal == b.ordinal || !done.insert((a.ordinal, b.ordinal)) {
                continue;
            }
            let mut can = 0i32;
            let ok = unsafe {
                cudarc::driver::sys::cuDeviceCanAccessPeer(
                    &mut can,
                    a.ctx.cu_device(),
                    b.ctx.cu_device(),
                )
            };
            if ok == cudarc::driver::sys::CUresult::CUDA_SUCCESS && can != 0 && a.bind().is_ok() {
                let _ = unsafe { cudarc::driver::sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
            }
        }
    }
}

/// The backend a region runs on.
#[derive(Clone, Debug)]
pub enum Backend {
    Cpu,
    /// The CPU backend emulating this many devices (`cpu:N`).
    CpuSplit(usize),
    Cuda(Arc<Gpu>),
    /// Several GPUs, one slab each, in slab order (the same GPU may appear twice).
    CudaSplit(Vec<Arc<Gpu>>),
}

impl Backend {
    /// Short description: `CPU (N threads)` or `CUDA device 0 (NVIDIA H100 ..., sm_90)`.
    pub fn describe(&self) -> String {
        let one = self.describe_one();
        match crate::ranks::size() {
            1 => one,
            p => format!("{one}, on each of {p} MPI ranks"),
        }
    }

    fn describe_one(&self) -> String {
        match self {
            Backend::Cpu => format!("CPU ({} threads)", rayon::current_num_threads()),
            Backend::CpuSplit(n) => format!(
                "CPU emulating {n} device(s) ({} threads)",
                rayon::current_num_threads()
            ),
            Backend::Cuda(g) => format!("{g:?}"),
            Backend::CudaSplit(gs) => gs
                .iter()
                .map(|g| format!("{g:?}"))
                .collect::<Vec<_>>()
                .join(" + "),
        }
    }
}

/// The GPU a rank drives for `cuda:n` (and `cuda`, `auto`): `n` itself on one rank;
/// across MPI ranks ([`crate::ranks`]) the GPU `n` places after it by its rank on the host
/// (its local rank), modulo the host's GPUs, so that `mpirun -np 4` on a host of 4 GPUs
/// gives each rank its own.
fn rank_gpu(n: usize) -> usize {
    if crate::ranks::size() == 1 {
        return n;
    }
    (n + crate::ranks::local_rank()) % cuda_device_count().max(1)
}

/// Resolves the backend for a region entered on this thread now.
///
/// # Errors
/// [`Error::BadDeviceSpec`] for a malformed `MINT_DEVICE`; [`Error::NoDevice`] when CUDA
/// is demanded and absent.
pub fn backend() -> Result<Backend> {
    static LOG: Once = Once::new();
    let log = |msg: String| {
        LOG.call_once(|| {
            if std::env::var_os("MINT_QUIET").is_none() {
                eprintln!("mint: {msg}");
            }
        })
    };
    match requested_device()? {
        Device::Cpu => Ok(Backend::Cpu),
        Device::Cpus(n) => Ok(Backend::CpuSplit(n)),
        d @ (Device::CudaList(_) | Device::CudaAll) => {
            let ords = match d {
                Device::CudaList(l) => l.ordinals(),
                _ => {
                    let n = *cuda_probe().as_ref().map_err(|r| Error::NoDevice {
                        requested: "cuda:all".into(),
                        reason: r.clone(),
                    })?;
                    (0..n).collect()
                }
            };
            let gpus = ords
                .iter()
                .map(|&o| Gpu::get(o))
                .collect::<Result<Vec<_>>>()?;
            enable_peer_access(&gpus);
            if gpus.len() == 1 {
                log(format!("running on {:?}", gpus[0]));
                return Ok(Backend::Cuda(gpus[0].clone()));
            }
            let b = Backend::CudaSplit(gpus);
            log(format!("running on {}", b.describe()));
            Ok(b)
        }
        Device::Cuda(n) => {
            let g = Gpu::get(rank_gpu(n))?;
            log(format!("running on {g:?}"));
            Ok(Backend::Cuda(g))
        }
        Device::Auto => match cuda_probe() {
            Ok(_) => match Gpu::get(rank_gpu(0)) {
                Ok(g) => {
                    log(format!(
                        "running on {g:?} (MINT_DEVICE=cpu selects the CPU)"
                    ));
                    Ok(Backend::Cuda(g))
                }
                Err(e) => {
                    log(format!("{e}; running on the CPU"));
                    Ok(Backend::Cpu)
                }
            },
            Err(reason) => {
                log(format!(
                    "no CUDA device ({reason}); running on the CPU backend"
                ));
                Ok(Backend::Cpu)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_specs_parse() {
        assert_eq!(Device::parse("auto").unwrap(), Device::Auto);
        assert_eq!(Device::parse("").unwrap(), Device::Auto);
        assert_eq!(Device::parse("CPU").unwrap(), Device::Cpu);
        assert_eq!(Device::parse("cuda").unwrap(), Device::Cuda(0));
        assert_eq!(Device::parse("cuda:3").unwrap(), Device::Cuda(3));
        assert!(matches!(
            Device::parse("tpu"),
            Err(Error::BadDeviceSpec { .. })
        ));
        assert!(matches!(
            Device::parse("cuda:x"),
            Err(Error::BadDeviceSpec { .. })
        ));
        assert_eq!(Device::parse("cpu:3").unwrap(), Device::Cpus(3));
        let list = |o: &[usize]| Device::CudaList(GpuList::new(o).unwrap());
        assert_eq!(Device::parse("cuda:0,1").unwrap(), list(&[0, 1]));
        assert_eq!(Device::parse("cuda: 2 , 5").unwrap(), list(&[2, 5]));
        assert_eq!(Device::parse("cuda:1,1").unwrap(), list(&[1, 1]));
        assert_eq!(
            Device::parse("cuda:3,0,3").unwrap().count(),
            3,
            "a GPU listed twice holds two slabs"
        );
        assert_eq!(Device::parse("cuda:1,").ok(), None);
        assert_eq!(Device::parse("cuda:256,0").ok(), None);
        assert_eq!(Device::parse("cuda:all").unwrap(), Device::CudaAll);
        assert_eq!(Device::parse("cpu:0").ok(), None);
        assert_eq!(Device::parse("cpu:x").ok(), None);
    }

    #[test]
    fn with_device_overrides_and_restores() {
        let before = requested_device().ok();
        with_device(Device::Cpu, || {
            assert_eq!(requested_device().unwrap(), Device::Cpu);
            with_device(Device::Cuda(1), || {
                assert_eq!(requested_device().unwrap(), Device::Cuda(1))
            });
            assert_eq!(requested_device().unwrap(), Device::Cpu);
        });
        assert_eq!(requested_device().ok(), before);
    }
}
