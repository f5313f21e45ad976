//! Run-time errors.

use std::path::PathBuf;

/// Everything that can go wrong at run time in a Mint region. No Mint operation panics,
/// aborts or silently computes a wrong answer; each failure is one of these, naming the
/// array, kernel or sizes involved. A failed `copy!(.., from_device)` leaves the host
/// array as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `MINT_DEVICE=cuda` (or `cuda:N`, or `mint::with_device(Device::Cuda(..))`) was
    /// asked for and no usable CUDA device exists.
    #[error("no CUDA device for `{requested}`: {reason}")]
    NoDevice { requested: String, reason: String },

    /// `MINT_DEVICE` holds something other than `auto`, `cpu`, `cpu:N`, `cuda`, `cuda:N`,
    /// `cuda:N,M,..` or `cuda:all`.
    #[error(
        "MINT_DEVICE={value:?} is not understood; use auto, cpu, cpu:N (N emulated devices), cuda, cuda:N, cuda:0,1,.. or cuda:all"
    )]
    BadDeviceSpec { value: String },

    /// A shape given to `copy!`, or the host array's shape, disagrees with the device
    /// array's (shapes are `[z, y, x]`, slowest first).
    #[error("array `{array}`: {what}: expected shape {expected:?}, found {found:?}")]
    ShapeMismatch {
        array: String,
        what: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },

    /// The host array is not in standard (row-major, contiguous) layout, so it cannot be
    /// copied to or from the device as it is.
    #[error(
        "array `{array}` is not in standard (row-major, contiguous) layout; copy it into one \
         first, e.g. with `.as_standard_layout().into_owned()`"
    )]
    NotStandardLayout { array: String },

    /// The device has too little free memory for an allocation.
    #[error(
        "device memory exhausted allocating array `{array}`: {requested_bytes} bytes requested, \
         {free_bytes} bytes free of {total_bytes}"
    )]
    OutOfMemory {
        array: String,
        requested_bytes: usize,
        free_bytes: usize,
        total_bytes: usize,
    },

    /// `MINT_DEVICE_MEMORY` does not parse.
    #[error(
        "MINT_DEVICE_MEMORY={value:?} is not understood; give bytes as an integer with an optional suffix K, M or G (powers of 1024), e.g. 512M"
    )]
    BadMemoryCap { value: String },

    /// An allocation would take a device past the `MINT_DEVICE_MEMORY` cap.
    #[error(
        "array `{array}` needs {requested_bytes} bytes of device memory, but {allocated_bytes} of the {cap_bytes} bytes MINT_DEVICE_MEMORY allows are taken; raise the cap, or stream the region in slabs (`#[mint::parallel(stream)]`)"
    )]
    OverMemoryCap {
        array: String,
        requested_bytes: usize,
        allocated_bytes: usize,
        cap_bytes: usize,
    },

    /// A region with `stream` cannot be streamed as written.
    #[error("region `{region}` cannot be streamed: {message}")]
    Stream { region: String, message: String },

    /// A region across MPI ranks ([`crate::ranks`]) could not go on: another rank's step
    /// failed (its own error is reported there), or MPI refused a message.
    #[error("MPI ranks: {message}")]
    Ranks { message: String },

    /// A kernel uses an array that has no device copy yet (its first `copy!(x,
    /// to_device)` has not run), or `copy!(x, from_device)` ran before any `to_device`.
    #[error(
        "array `{array}` is not on the device when {when}; `copy!({array}, to_device)` must run \
         first"
    )]
    NotOnDevice { array: String, when: String },

    /// NVRTC rejected a generated kernel. This is a bug in Mint for Rust; the source is
    /// kept at `source_path` for the report.
    #[error(
        "NVRTC could not compile kernel `{kernel}` (source kept at {}):\n{log}",
        source_path.display()
    )]
    Compile {
        kernel: String,
        log: String,
        source_path: PathBuf,
    },

    /// A launch failed, or the kernel faulted while running.
    #[error("kernel `{kernel}` from {location} failed: {message}")]
    Launch {
        kernel: String,
        location: String,
        message: String,
    },

    /// The translator could not translate a kernel for this device and launch (for
    /// example, `tile`/`chunksize` values given as expressions that do not divide, or a
    /// block larger than the device allows).
    #[error("kernel `{kernel}` from {location}: {message}")]
    Translate {
        kernel: String,
        location: String,
        message: String,
    },

    /// On a region split over several devices, a kernel reached a plane of a distributed
    /// array that the device running it does not hold (owner-computes: a device reads
    /// only what it holds, its planes and their ghost planes).
    #[error("kernel `{kernel}`, array `{array}` on device {device}: {message}")]
    OutsideSlab {
        array: String,
        kernel: String,
        /// The index, slowest first.
        index: Vec<usize>,
        device: usize,
        message: String,
    },

    /// A kernel's CPU version indexed an array outside its shape (on a GPU such an access
    /// reads or writes memory that is not the array's).
    #[error(
        "kernel `{kernel}` from {location}: index {index:?} of `{array}` is outside its shape {shape:?}"
    )]
    IndexOutOfBounds {
        kernel: String,
        location: String,
        array: String,
        /// Slowest first.
        index: Vec<usize>,
        shape: Vec<usize>,
    },

    /// A region over several devices (`cpu:N`, `cuda:0,1`, MPI ranks) cannot split a
    /// kernel along the slowest axis: it reads a distributed array at planes that no ghost
    /// width bounds (issue #41). Raised at the kernel's first launch, before it runs; the
    /// region runs on one device as written.
    #[error(
        "kernel `{kernel}` from {location} cannot be split over devices: it reads `{array}` {why}. Run the region on one device, or write the subscript as the loop index plus a constant, a clamp of it (`if z == 0 {{ z }} else {{ z - 1 }}`, `min`, `max`, `clamp`, `saturating_sub`) or a periodic wrap (`(z + 1) % nz`)"
    )]
    Unsplittable {
        kernel: String,
        location: String,
        array: String,
        /// The slowest subscript as written, and why no ghost width bounds it:
        /// ``at `(nz - 1) - z` along the slowest axis, and no ghost width bounds..``.
        why: String,
    },

    /// Some other CUDA driver call failed.
    #[error("CUDA driver call `{call}` failed: {message}")]
    Driver { call: String, message: String },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn driver(call: &str, e: cudarc::driver::DriverError) -> Error {
        Error::Driver {
            call: call.into(),
            message: describe(e),
        }
    }
}

/// Name and description of a driver error.
pub(crate) fn describe(e: cudarc::driver::DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if text.is_empty() {
        name
    } else {
        format!("{name}: {text}")
    }
}
