//! Run-time compilation with NVRTC, an on-disk cache, and `MINT_DUMP`.
//!
//! A kernel is compiled for the device's own architecture (a CUBIN for `sm_XY`; PTX for
//! the newest architecture NVRTC knows when the device is newer still). The image is
//! cached in `MINT_CACHE_DIR` (default: the user's cache directory, `mint` inside it)
//! under the SHA-256 of the source, the compile options and the NVRTC version, so a
//! second run of the same program compiles nothing.

use crate::device::Gpu;
use crate::error::{Error, Result};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};
use sha2::{Digest, Sha256};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

static COMPILED: AtomicU64 = AtomicU64::new(0);
static CACHE_HITS: AtomicU64 = AtomicU64::new(0);
static CACHE_REJECTED: AtomicU64 = AtomicU64::new(0);
static MEMORY_HITS: AtomicU64 = AtomicU64::new(0);
static COMPILE_NANOS: AtomicU64 = AtomicU64::new(0);
static LOAD_NANOS: AtomicU64 = AtomicU64::new(0);

/// Counts of this process's JIT work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JitStats {
    /// Kernels NVRTC compiled.
    pub compiled: u64,
    /// Kernels loaded from the on-disk cache.
    pub disk_cache_hits: u64,
    /// Cache entries found truncated or corrupt (or of an older format): removed and
    /// compiled again.
    pub disk_cache_rejected: u64,
    /// Launches that found their kernel already loaded in this process.
    pub memory_hits: u64,
    /// Seconds spent in NVRTC.
    pub compile_seconds: f64,
    /// Seconds spent translating, compiling or reading the cache, and loading modules.
    pub load_seconds: f64,
}

/// This process's JIT statistics so far.
pub fn jit_stats() -> JitStats {
    JitStats {
        compiled: COMPILED.load(Ordering::Relaxed),
        disk_cache_hits: CACHE_HITS.load(Ordering::Relaxed),
        disk_cache_rejected: CACHE_REJECTED.load(Ordering::Relaxed),
        memory_hits: MEMORY_HITS.load(Ordering::Relaxed),
        compile_seconds: COMPILE_NANOS.load(Ordering::Relaxed) as f64 * 1e-9,
        load_seconds: LOAD_NANOS.load(Ordering::Relaxed) as f64 * 1e-9,
    }
}

pub(crate) fn note_memory_hit() {
    MEMORY_HITS.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn note_load_time(t: Instant) {
    LOAD_NANOS.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
}

/// A compiled module image.
pub(crate) struct Image {
    pub data: Vec<u8>,
    pub is_cubin: bool,
}

fn nvrtc_version() -> (i32, i32) {
    static V: OnceLock<(i32, i32)> = OnceLock::new();
    *V.get_or_init(|| {
        let (mut a, mut b) = (0, 0);
        unsafe { nvrtc_sys::nvrtcVersion(&mut a, &mut b) };
        (a, b)
    })
}

/// Architectures NVRTC can target (e.g. 75, 80, 86, 89, 90, ...).
fn supported_archs() -> &'static [i32] {
    static A: OnceLock<Vec<i32>> = OnceLock::new();
    A.get_or_init(|| unsafe {
        let mut n = 0;
        if nvrtc_sys::nvrtcGetNumSupportedArchs(&mut n) != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Vec::new();
        }
        let mut v = vec![0i32; n.max(0) as usize];
        nvrtc_sys::nvrtcGetSupportedArchs(v.as_mut_ptr());
        v
    })
}

/// The `--gpu-architecture` value for a device, and whether it yields a CUBIN.
fn arch_for(cc: (u32, u32)) -> (String, bool) {
    let want = (cc.0 * 10 + cc.1) as i32;
    let archs = supported_archs();
    if archs.is_empty() || archs.contains(&want) {
        (format!("sm_{want}"), true)
    } else {
        let best = archs
            .iter()
            .copied()
            .filter(|&a| a <= want)
            .max()
            .unwrap_or(want);
        (format!("compute_{best}"), false)
    }
}

/// Where compiled images are cached, if anywhere.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("MINT_CACHE_DIR") {
        Some(d) if d.is_empty() => None,
        Some(d) => Some(PathBuf::from(d)),
        None => dirs::cache_dir().map(|d| d.join("mint")),
    }
}

fn dump(name: &str, source: &str) {
    if let Some(dir) = std::env::var_os("MINT_DUMP") {
        let dir = PathBuf::from(dir);
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(dir.join(format!("{name}.cu")), source);
        }
    }
}

fn keep_failed_source(name: &str, source: &str) -> PathBuf {
    let dir = std::env::var_os("MINT_DUMP")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(format!("mint-failed-{name}.cu"));
    let _ = std::fs::write(&p, source);
    p
}

/// The trailer of a cache entry: this magic, then the SHA-256 of the image before it.
const CACHE_MAGIC: &[u8; 8] = b"MINTJIT2";

/// Writes a cache entry (the image, [`CACHE_MAGIC`] and the image's SHA-256) through a
/// temporary file of this process and thread and a rename, so that processes compiling into
/// one cache at once never see a partial entry. Failures (a cache directory that cannot be
/// written) are ignored: the kernel was compiled and the next run compiles it again.
pub(crate) fn write_atomic(path: &Path, data: &[u8]) {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = path.with_extension(format!(
        "tmp{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut entry = Vec::with_capacity(data.len() + 40);
    entry.extend_from_slice(data);
    entry.extend_from_slice(CACHE_MAGIC);
    entry.extend_from_slice(&Sha256::digest(data));
    if std::fs::write(&tmp, &entry).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The image of a cache entry whose checksum holds; `None` for a missing entry, and `None`
/// with the file removed for one that is truncated, corrupt or of an older format (it is
/// then compiled again).
pub(crate) fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let mut data = std::fs::read(path).ok()?;
    let ok = data.len() > 40 && {
        let n = data.len() - 40;
        &data[n..n + 8] == CACHE_MAGIC && data[n + 8..] == Sha256::digest(&data[..n])[..]
    };
    if ok {
        data.truncate(data.len() - 40);
        Some(data)
    } else {
        CACHE_REJECTED.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
        None
    }
}

/// Whether NVRTC can be loaded (it is enough to compile kernels without a GPU).
pub fn nvrtc_available() -> bool {
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Compiles `source` (kernel `name`) for `gpu`, or reads it from the cache.
///
/// # Errors
/// [`Error::Compile`] with NVRTC's log when the source does not compile.
pub(crate) fn compile(gpu: &Gpu, name: &str, source: &str) -> Result<Image> {
    compile_for(gpu.compute_capability, name, source)
}

/// Compiles `source` (kernel `name`) for compute capability `cc` with NVRTC, or reads it
/// from the cache; needs NVRTC but no GPU. Returns the CUBIN (or PTX) image's size.
///
/// # Errors
/// [`Error::Compile`] with NVRTC's log when the source does not compile;
/// [`Error::NoDevice`] when NVRTC is not installed.
pub fn compile_only(cc: (u32, u32), name: &str, source: &str) -> Result<usize> {
    if !nvrtc_available() {
        return Err(Error::NoDevice {
            requested: "NVRTC".into(),
            reason: "the NVRTC library (libnvrtc) was not found".into(),
        });
    }
    compile_for(cc, name, source).map(|i| i.data.len())
}

fn compile_for(cc: (u32, u32), name: &str, source: &str) -> Result<Image> {
    dump(name, source);
    let (arch, is_cubin) = arch_for(cc);
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
        "-lineinfo".to_string(),
        "--fmad=true".to_string(),
    ];
    // extra NVRTC options for diagnosis (`-G`, `--ptxas-options=-O0`), part of the cache key
    if let Ok(extra) = std::env::var("MINT_NVRTC_OPTIONS") {
        options.extend(extra.split_whitespace().map(str::to_string));
    }
    let (va, vb) = nvrtc_version();
    let mut h = Sha256::new();
    h.update(b"mint-jit-v2\0");
    h.update(source.as_bytes());
    for o in &options {
        h.update(b"\0");
        h.update(o.as_bytes());
    }
    h.update(format!("\0nvrtc {va}.{vb}").as_bytes());
    let key = format!("{:x}", h.finalize());
    let ext = if is_cubin { "cubin" } else { "ptx" };
    let cached = cache_dir().map(|d| d.join(format!("{key}.{ext}")));
    if let Some(p) = &cached
        && let Some(data) = read_entry(p)
    {
        CACHE_HITS.fetch_add(1, Ordering::Relaxed);
        return Ok(Image { data, is_cubin });
    }

    let t0 = Instant::now();
    let fail = |log: String| Error::Compile {
        kernel: name.to_string(),
        log,
        source_path: keep_failed_source(name, source),
    };
    let c_src = CString::new(source).map_err(|_| fail("source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{name}.cu")).unwrap_or_default();
    let prog = nvrtc::create_program(&c_src, Some(&c_name))
        .map_err(|e| fail(format!("nvrtcCreateProgram: {e:?}")))?;
    let compiled = unsafe { nvrtc::compile_program(prog, &options) };
    let log = unsafe { nvrtc::get_program_log(prog) }
        .map(|v| {
            let bytes: Vec<u8> = v
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .unwrap_or_default();
    if let Err(e) = compiled {
        unsafe {
            let _ = nvrtc::destroy_program(prog);
        }
        return Err(fail(if log.is_empty() {
            format!("{e:?}")
        } else {
            log
        }));
    }
    let data = unsafe {
        if is_cubin {
            let mut size = 0usize;
            let r = nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size);
            let mut v = vec![0u8; size];
            let r2 = nvrtc_sys::nvrtcGetCUBIN(prog, v.as_mut_ptr() as *mut _);
            if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
                || r2 != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
            {
                let _ = nvrtc::destroy_program(prog);
                return Err(fail("nvrtcGetCUBIN failed".into()));
            }
            v
        } else {
            match nvrtc::get_ptx(prog) {
                Ok(p) => p.iter().map(|&c| c as u8).collect(),
                Err(e) => {
                    let _ = nvrtc::destroy_program(prog);
                    return Err(fail(format!("nvrtcGetPTX: {e:?}")));
                }
            }
        }
    };
    unsafe {
        let _ = nvrtc::destroy_program(prog);
    }
    COMPILED.fetch_add(1, Ordering::Relaxed);
    COMPILE_NANOS.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
    if let Some(p) = &cached {
        if let Some(d) = p.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        write_atomic(p, &data);
    }
    Ok(Image { data, is_cubin })
}
