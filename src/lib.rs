//! # Mint for Rust
//!
//! Annotate ordinary nested loops over `ndarray` arrays; get CUDA kernels, and keep one
//! source that still runs on a machine with no GPU. This is the Mint programming model
//! (D. Unat, *Domain-Specific Translator and Optimizer for Massive On-Chip Parallelism*,
//! UC San Diego, 2012) as Rust procedural macros.
//!
//! ```no_run
//! use ndarray::Array3;
//!
//! /// 7-point heat equation (thesis Table 3.1).
//! #[mint::parallel]
//! fn heat(u: &mut Array3<f64>, unew: &mut Array3<f64>, c0: f64, c1: f64, steps: usize) -> mint::Result<()> {
//!     let (nz, ny, nx) = u.dim();
//!     mint::copy!(u, to_device);
//!     mint::copy!(unew, to_device);
//!     for _ in 0..steps {
//!         #[mint::r#for(nest(all), tile(16, 16, 64), chunksize(1, 1, 64))]
//!         for z in 1..nz - 1 {
//!             for y in 1..ny - 1 {
//!                 for x in 1..nx - 1 {
//!                     unew[[z, y, x]] = c0 * u[[z, y, x]]
//!                         + c1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]]
//!                             + u[[z, y - 1, x]] + u[[z, y + 1, x]]
//!                             + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
//!                 }
//!             }
//!         }
//!         std::mem::swap(u, unew);
//!     }
//!     mint::copy!(u, from_device);
//!     Ok(())
//! }
//! ```
//!
//! ## Directives (thesis Table 3.3)
//!
//! | directive | meaning |
//! | --- | --- |
//! | [`#[mint::parallel(options)]`](macro@parallel) on a `fn` | the body is the accelerated region; device arrays live from their first `copy!` to the end of the function |
//! | [`#[mint::r#for(nest(..), tile(..), chunksize(..), reduction(op: var), nowait, options)]`](macro@r#for) on a `for` loop | the loop nest becomes one kernel; the host waits at its end unless `nowait` |
//! | [`copy!(x, to_device)`](copy!) / `copy!(x, from_device)`, optionally `copy!(x, to_device, [nz, ny, nx])` | allocates on first use and moves data at that point of the host code |
//! | [`mint::barrier!()`](barrier!) | the host waits for every kernel launched with `nowait` |
//! | [`#[mint::single] { .. }`](macro@single) | the block runs on the device by one thread |
//!
//! ## Run time
//!
//! `MINT_DEVICE=auto|cpu|cuda|cuda:N` picks the backend (default `auto`: CUDA device 0
//! when a driver, NVRTC and a device exist, otherwise the CPU, logged once);
//! `MINT_DUMP=DIR` writes every generated kernel to `DIR/<kernel>.cu`; `MINT_REPORT=1`
//! prints what the translator decided for each kernel and its registers, spills and
//! occupancy, and timings at region exit; `MINT_CACHE_DIR` holds compiled kernels and
//! the autotuner's choices ([`tune`]; `MINT_TUNE=0|1|fresh`). The host waits for a
//! kernel lazily, where it could observe the device (`copy!`, a reduction, `barrier!()`,
//! the region's end; `MINT_SYNC=1` waits at the end of every `for`), and a region's
//! steady loop of launches is replayed as CUDA graphs ([`graph`]; `MINT_GRAPHS=0` off).
//! Failures are [`Error`]s, returned through `?` from a region that returns a `Result`
//! whose error converts from [`Error`], and panics otherwise.

pub use mint_macros::{device, r#for, parallel, single, time_loop};

pub use mint_runtime::Real;
pub use mint_runtime::graph;
pub use mint_runtime::memcap;
pub use mint_runtime::nccl;
pub use mint_runtime::overlap;
pub use mint_runtime::pinned::{self, PinnedArray, PinnedArray1, PinnedArray2, PinnedArray3};
pub use mint_runtime::ranks;
pub use mint_runtime::slab::{self, SlabArray, SlabArray2, SlabArray3};
pub use mint_runtime::stream;
pub use mint_runtime::tune;
pub use mint_runtime::{
    Backend, Decomposition, Device, Error, GpuList, JitStats, KernelStats, Result, TransferStats,
    check_reads, cuda_available, cuda_device_count, cuda_required, decomposition, halo_exchanges,
    jit_stats, kernel_stat, kernel_stats, reset_kernel_stats, set_check_reads,
    set_sync_each_launch, set_timing, sync_each_launch, transfer_stats, with_device,
};
/// The `ndarray` Mint is built against (0.17): import it from here (`use
/// mint::ndarray::Array3;`) to stay in step with Mint's version. Arrays of another
/// `ndarray` version are not arrays Mint can copy to the device.
pub use ndarray;

/// Every kernel of the program (each annotated loop nest and `single` block linked into
/// it), whether or not it has run: for tools that list, dump or precompile kernels.
pub fn kernel_sites() -> impl Iterator<Item = &'static mint_runtime::KernelSite> {
    mint_runtime::kernel_sites()
}

/// Writes the CUDA of every kernel of the program to `dir/<module>.<kernel>.cu`,
/// translated for `target` with each kernel's `tile`/`chunksize` expressions set to
/// `tile`/`chunk` (literal clauses keep their values). Nothing runs; no GPU is needed.
///
/// A kernel the translator rejects at these clauses (for example a `vectorize` kernel
/// given a chunk size along x above 1) is not written; it is listed in
/// [`Dumped::rejected`] and the others are still written.
///
/// # Errors
/// I/O errors creating `dir` or writing a file, as [`Error::Driver`] with the path.
pub fn dump_kernels(
    dir: &std::path::Path,
    target: &Target,
    tile: [u32; 3],
    chunk: [u32; 3],
) -> Result<Dumped> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Driver {
        call: format!("create {}", dir.display()),
        message: e.to_string(),
    })?;
    let mut dumped = Dumped::default();
    for site in kernel_sites() {
        let translated = site.kernel().and_then(|k| {
            let t = Target {
                clause_values: mint_runtime::clause_values(k, tile, chunk),
                ..target.clone()
            };
            site.translate(&t)
        });
        let tr = match translated {
            Ok(tr) => tr,
            Err(e) => {
                dumped.rejected.push((site.qualified().to_string(), e));
                continue;
            }
        };
        let path = dir.join(format!("{}.cu", site.qualified().replace("::", ".")));
        std::fs::write(&path, tr.source).map_err(|e| Error::Driver {
            call: format!("write {}", path.display()),
            message: e.to_string(),
        })?;
        dumped.written.push(path);
    }
    Ok(dumped)
}

/// What [`dump_kernels`] wrote.
#[derive(Debug, Default)]
pub struct Dumped {
    /// The files written, one per kernel, in the order of [`kernel_sites`].
    pub written: Vec<std::path::PathBuf>,
    /// The kernels not written (their qualified names, `module::kernel`), each with the
    /// translator's [`Error::Translate`] saying why.
    pub rejected: Vec<(String, Error)>,
}

pub use mint_runtime::Target;

/// The backend a region entered on this thread now would run on.
///
/// # Errors
/// [`Error::BadDeviceSpec`] for a malformed `MINT_DEVICE`; [`Error::NoDevice`] when CUDA
/// is demanded and absent.
pub fn backend() -> Result<Backend> {
    mint_runtime::backend()
}

/// Measured device-to-device copy bandwidth of the CUDA device the current backend
/// uses (the first GPU of several), in bytes per second (bytes read plus bytes written), median of `reps` copies of
/// `bytes` bytes. This is the bound memory-bound stencils are judged against.
///
/// # Errors
/// [`Error::NoDevice`] on the CPU backend; [`Error::OutOfMemory`] if two buffers of
/// `bytes` do not fit.
pub fn device_copy_bandwidth(bytes: usize, reps: usize) -> Result<f64> {
    match backend()? {
        Backend::Cuda(g) => mint_runtime::copy_bandwidth(&g, bytes, reps),
        Backend::CudaSplit(gs) => mint_runtime::copy_bandwidth(&gs[0], bytes, reps),
        Backend::Cpu | Backend::CpuSplit(_) => Err(Error::NoDevice {
            requested: "copy bandwidth".into(),
            reason: "the current backend is the CPU".into(),
        }),
    }
}

/// Measured host↔device copy bandwidth of the CUDA device the current backend uses (the
/// first GPU of several): (host to device, device to host) in bytes per second, the
/// median of `reps` copies of `bytes` bytes between a host buffer of kind `mem` and the
/// device. [`HostMemory::PageLocked`] gives the link's speed, the bound `copy!` is
/// judged against (`cargo bench --bench transfer`).
///
/// # Errors
/// [`Error::NoDevice`] on the CPU backend; [`Error::OutOfMemory`] if the device buffer
/// does not fit; [`Error::Driver`] if page-locked memory cannot be allocated.
pub fn host_copy_bandwidth(bytes: usize, reps: usize, mem: HostMemory) -> Result<(f64, f64)> {
    use mint_runtime::host_copy_bandwidth as measure;
    match backend()? {
        Backend::Cuda(g) => measure(&g, bytes, reps, mem),
        Backend::CudaSplit(gs) => measure(&gs[0], bytes, reps, mem),
        Backend::Cpu | Backend::CpuSplit(_) => Err(Error::NoDevice {
            requested: "copy bandwidth".into(),
            reason: "the current backend is the CPU".into(),
        }),
    }
}

pub use mint_runtime::HostMemory;

/// `copy!(x, to_device)`, `copy!(x, from_device)`, `copy!(x, to_device, [nz, ny, nx])`:
/// moves array `x` between host and device at this point of a `#[mint::parallel]`
/// function (thesis Sec. 3.3.3). The first `to_device` allocates `x`'s device array,
/// which lives until the function returns. The optional shape (slowest dimension first)
/// is checked against the array. Outside a region this is a compile error.
#[macro_export]
macro_rules! copy {
    ($($t:tt)*) => {
        ::core::compile_error!("`copy!` can only be used inside a `#[mint::parallel]` function: put it in the region's body, or add `#[mint::parallel]` to this function")
    };
}

/// `mint::barrier!()`: the host waits for every kernel launched with `nowait` (thesis
/// Sec. 3.3.4). Outside a region this is a compile error.
#[macro_export]
macro_rules! barrier {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`mint::barrier!()` can only be used inside a `#[mint::parallel]` function"
        )
    };
}

/// Hand-written CUDA kernels on Mint's device arrays, compiled and launched through the
/// runtime (the benchmark's Hand-CUDA references use this).
pub mod cuda {
    pub use mint_runtime::transfer;
    pub use mint_runtime::{Gpu, ScalarValue};
    pub use mint_runtime::{RawArg, RawArray, RawKernel};
}

/// What the generated code calls. Not a stable API.
#[doc(hidden)]
pub mod __rt {
    pub use mint_runtime::cpu;
    pub use mint_runtime::mint_translator::ir::ScalarTy;
    pub use mint_runtime::{
        AUTO_DEEPEST, ArrayInfo, AutoDepth, DeviceFnSite, Element, HostArray, HostArrayMut,
        KernelSite, LaunchArgs, RedOp, Region, RegionInfo, ScalarValue, SiteRef, StreamSpec,
        bounds, clause, inventory, or_panic, scalar,
    };
    pub use mint_runtime::{
        clause_values, compile_only, nvrtc_available, override_ghost_planes, register_site,
    };

    /// Compile-time check that array `a` holds `T`s (what the macro inferred).
    #[inline(always)]
    pub fn assert_elem<T: Element, A: HostArray<Elem = T> + ?Sized>(_a: &A) {}

    /// The element type and number of dimensions of host array `a`, for kernels whose
    /// types are bound at launch.
    #[inline(always)]
    pub fn elem_ndim<A: HostArray + ?Sized>(a: &A) -> (ScalarTy, usize) {
        (<A::Elem as Element>::TY, a.raw().ndim)
    }

    /// A shape given to `copy!`, as `usize`s.
    pub fn shape<S: AsRef<[usize]>>(s: S) -> Vec<usize> {
        s.as_ref().to_vec()
    }
}
#[cfg(doctest)]
mod guide;
