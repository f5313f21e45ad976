//! Faults in the JIT path that need NVRTC but no GPU (issue #14, item 6): an NVRTC failure,
//! a truncated, corrupt or empty cache entry, a cache directory that cannot be written, and
//! two processes compiling into one cache at once. Each is a `mint::Error` or a clean
//! recompile; nothing panics. CI installs NVRTC from PyPI (`.ci/run`); without it the test
//! skips with a message, unless `MINT_REQUIRE_NVRTC=1`.
//!
//! The cache directory comes from `MINT_CACHE_DIR`, which is process-wide: the checks run in
//! order in one test, and the concurrent compiles run in child processes.

use std::path::{Path, PathBuf};
use std::process::Command;

const CC: (u32, u32) = (9, 0);

fn source(i: usize) -> String {
    format!(
        "extern \"C\" __global__ void k{i}(float* a) {{ a[threadIdx.x] = {i}.0f * a[threadIdx.x]; }}\n"
    )
}

fn nvrtc_or_skip() -> bool {
    if mint::__rt::nvrtc_available() {
        return true;
    }
    if std::env::var("MINT_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
        panic!("MINT_REQUIRE_NVRTC=1 but libnvrtc was not found (set LD_LIBRARY_PATH)");
    }
    eprintln!("skipped: NVRTC not found (the JIT cache faults were not exercised)");
    false
}

/// The cache entries in `dir`, and any temporary files left there.
fn entries(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .partition(|p| p.extension().is_some_and(|e| e == "cubin" || e == "ptx"))
}

fn set_cache(dir: &Path) {
    // SAFETY: this binary's only other test reads the variable in a child process
    unsafe { std::env::set_var("MINT_CACHE_DIR", dir) };
}

fn compile(i: usize) -> mint::Result<usize> {
    mint::__rt::compile_only(CC, &format!("k{i}"), &source(i))
}

/// Compiles kernel `i` and returns how the JIT statistics moved:
/// (compiled, disk cache hits, entries rejected).
fn counted(i: usize) -> (u64, u64, u64) {
    let a = mint::jit_stats();
    compile(i).unwrap_or_else(|e| panic!("k{i}: {e}"));
    let b = mint::jit_stats();
    (
        b.compiled - a.compiled,
        b.disk_cache_hits - a.disk_cache_hits,
        b.disk_cache_rejected - a.disk_cache_rejected,
    )
}

#[test]
fn jit_faults_are_errors_or_clean_recompiles() {
    if !nvrtc_or_skip() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("jit-cache-faults-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("cache");
    set_cache(&dir);

    // a fresh compile writes one entry; the second is read from it
    assert_eq!(counted(0), (1, 0, 0), "first compile");
    let (files, tmp) = entries(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(tmp.is_empty(), "{tmp:?}");
    assert_eq!(counted(0), (0, 1, 0), "cache hit");
    let entry = files[0].clone();
    let good = std::fs::read(&entry).unwrap();

    // a truncated, a corrupt and an empty entry are each rejected and compiled again,
    // and the entry written anew is good
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x5a;
    for (what, bad) in [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("corrupt", flipped),
        ("empty", Vec::new()),
        ("without the trailer", good[..good.len() - 40].to_vec()),
    ] {
        std::fs::write(&entry, &bad).unwrap();
        assert_eq!(counted(0), (1, 0, 1), "{what} entry");
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good,
            "{what}: entry rewritten"
        );
        assert_eq!(counted(0), (0, 1, 0), "{what}: then a hit");
    }

    // NVRTC failure: an error naming the kernel, with NVRTC's log and the source kept;
    // nothing is cached
    let bad = "extern \"C\" __global__ void broken(float* a) { a[0] = undefined_name; }\n";
    match mint::__rt::compile_only(CC, "broken", bad) {
        Err(mint::Error::Compile {
            kernel,
            log,
            source_path,
        }) => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("undefined_name"), "{log}");
            assert_eq!(std::fs::read_to_string(&source_path).unwrap(), bad);
            let msg = mint::Error::Compile {
                kernel,
                log,
                source_path,
            }
            .to_string();
            assert!(
                msg.contains("broken") && msg.contains("source kept at"),
                "{msg}"
            );
        }
        other => panic!("expected Error::Compile, got {other:?}"),
    }
    assert_eq!(entries(&dir).0.len(), 1, "a failed compile is not cached");

    // a cache directory that cannot be created (its parent is a file): compiles, writes nothing
    let blocker = root.join("a-file");
    std::fs::write(&blocker, b"not a directory").unwrap();
    set_cache(&blocker.join("cache"));
    assert_eq!(counted(1), (1, 0, 0), "unwritable cache");
    assert_eq!(counted(1), (1, 0, 0), "unwritable cache: compiled again");
    assert_eq!(std::fs::read(&blocker).unwrap(), b"not a directory");

    // two processes compiling the same twelve kernels into one cache at once
    let shared = root.join("shared");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "child_compiles_into_the_shared_cache",
                    "--ignored",
                    "--nocapture",
                ])
                .env("MINT_CACHE_DIR", &shared)
                .env("MINT_JIT_CACHE_CHILD", "1")
                .spawn()
                .expect("child process")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a child failed");
    }
    let (files, tmp) = entries(&shared);
    assert_eq!(files.len(), 12, "{files:?}");
    assert!(tmp.is_empty(), "temporary files left: {tmp:?}");
    set_cache(&shared);
    for i in 100..112 {
        assert_eq!(counted(i), (0, 1, 0), "k{i} after the concurrent compiles");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// The child of the concurrent-compile check: compiles kernels 100..112 into
/// `MINT_CACHE_DIR`. Does nothing unless `MINT_JIT_CACHE_CHILD=1`.
#[test]
#[ignore = "run as a child process by jit_faults_are_errors_or_clean_recompiles"]
fn child_compiles_into_the_shared_cache() {
    if std::env::var("MINT_JIT_CACHE_CHILD").as_deref() != Ok("1") {
        return;
    }
    for i in 100..112 {
        compile(i).unwrap_or_else(|e| panic!("k{i}: {e}"));
    }
}
