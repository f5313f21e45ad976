//! Every kernel of the suite, at every optimization level's `tile`/`chunksize`, translates
//! and compiles with NVRTC for Hopper (sm_90). Needs NVRTC but no GPU: CI installs it
//! from PyPI (`.ci/run`), so the generated CUDA of every kernel is compiled on every
//! change. Skips with a message when NVRTC is absent, unless `MINT_REQUIRE_NVRTC=1`. Also
//! `mint::dump_kernels`, which writes that CUDA without NVRTC.

use mint_kernels::{Kernel, Level};
use rayon::prelude::*;

#[test]
fn every_kernel_at_every_level_compiles_for_sm_90() {
    // the suite's kernel sites are linked into this binary through this use
    assert_eq!(Kernel::ALL.len(), 17);
    if !mint::__rt::nvrtc_available() {
        if std::env::var("MINT_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("MINT_REQUIRE_NVRTC=1 but libnvrtc was not found (set LD_LIBRARY_PATH)");
        }
        eprintln!(
            "skipped: NVRTC not found (pip install nvidia-cuda-nvrtc and add its lib dir to LD_LIBRARY_PATH)"
        );
        return;
    }
    // SAFETY: set before any other thread of this binary reads the environment.
    unsafe {
        std::env::set_var(
            "MINT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/nvrtc-cache"),
        )
    };
    let sites: Vec<_> = mint::kernel_sites()
        .filter(|s| s.module.starts_with("mint_kernels"))
        .collect();
    assert!(
        sites.len() >= 160,
        "expected every kernel of the suite, found {}",
        sites.len()
    );
    // every level's clauses, and the autotuner's candidates
    // (level name, tile, chunksize, dimensions, options)
    type Config = (String, [u32; 3], [u32; 3], usize, mint_kernels::Opts);
    let mut configs: Vec<Config> = Vec::new();
    for dims in [2, 3] {
        for l in Level::ALL {
            let (t, c) = l.config(dims);
            configs.push((l.name().to_string(), t, c, dims, l.opts()));
        }
        for v in mint_kernels::harness::candidates(dims, None) {
            configs.push((v.name, v.tile, v.chunk, dims, v.opts));
        }
    }
    // each kernel function with the clauses of the levels that call it
    let jobs: Vec<_> = sites
        .iter()
        .flat_map(|s| {
            configs
                .iter()
                .filter(move |c| {
                    // `module::k_shared_register_0` is function `k_shared_register`
                    let q = s.qualified();
                    let f = q.rsplit("::").next().and_then(|n| n.rsplit_once('_'));
                    f.map(|(f, _)| f) == Some(c.4.function())
                })
                .map(move |c| (*s, c))
        })
        .collect();
    for s in &sites {
        assert!(
            jobs.iter().any(|(j, _)| j.qualified() == s.qualified()),
            "no level calls {}",
            s.qualified()
        );
    }
    let failures: Vec<String> = jobs
        .par_iter()
        .filter_map(|(site, (level, tile, chunk, dims, _))| {
            let k = site.kernel().ok()?;
            if k.nest.len() != *dims {
                return None;
            }
            let (tile, chunk) = (*tile, *chunk);
            let target = mint::Target {
                clause_values: mint::__rt::clause_values(k, tile, chunk),
                ..mint::Target::default()
            };
            let t = match site.translate(&target) {
                Ok(t) => t,
                Err(e) => return Some(format!("{} at {}: {e}", site.qualified(), level)),
            };
            if k.arrays.iter().all(|a| a.elem == mint::__rt::ScalarTy::F32)
                && t.source.contains("double")
            {
                return Some(format!(
                    "{} at {}: an f32 kernel computes in double:\n{}",
                    site.qualified(),
                    level,
                    t.source
                ));
            }
            match mint::__rt::compile_only((9, 0), site.qualified(), &t.source) {
                Ok(bytes) if bytes > 0 => None,
                Ok(_) => Some(format!("{} at {}: empty image", site.qualified(), level)),
                Err(e) => Some(format!(
                    "{} at {}: {e}\n{}",
                    site.qualified(),
                    level,
                    t.source
                )),
            }
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} translations failed:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_hand_written_references_compile_for_sm_90() {
    if !mint::__rt::nvrtc_available() {
        if std::env::var("MINT_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("MINT_REQUIRE_NVRTC=1 but libnvrtc was not found (set LD_LIBRARY_PATH)");
        }
        eprintln!("skipped: NVRTC not found");
        return;
    }
    for real in ["float", "double"] {
        let source = format!("typedef {real} real;\n{}", mint_kernels::hand::SOURCE);
        let bytes = mint::__rt::compile_only((9, 0), &format!("hand.{real}"), &source)
            .unwrap_or_else(|e| panic!("hand.cu with real = {real}: {e}"));
        assert!(bytes > 0);
    }
}

/// `mint::dump_kernels` writes every kernel that translates at the clauses given and names
/// the others, without stopping at the first: at a chunk of 2 along x the `vectorize`
/// kernels (a thread computes one vector along x) are rejected, and every other kernel of
/// the program is still written. Needs neither NVRTC nor a GPU.
#[test]
fn dump_kernels_writes_what_translates_and_names_the_rest() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dump-kernels");
    let _ = std::fs::remove_dir_all(&dir);
    let d = mint::dump_kernels(&dir, &mint::Target::default(), [64, 8, 8], [2, 1, 8]).unwrap();
    let sites: Vec<String> = mint::kernel_sites()
        .map(|s| s.qualified().to_string())
        .collect();
    assert_eq!(d.written.len() + d.rejected.len(), sites.len());
    assert!(
        !d.rejected.is_empty(),
        "a chunk of 2 along x rejects vectorize"
    );
    for (kernel, e) in &d.rejected {
        assert!(kernel.contains("::k_vector"), "{kernel} was rejected: {e}");
        assert!(matches!(e, mint::Error::Translate { .. }), "{kernel}: {e}");
    }
    let rejected: Vec<&str> = d.rejected.iter().map(|(k, _)| k.as_str()).collect();
    let want: Vec<std::path::PathBuf> = sites
        .iter()
        .filter(|s| !rejected.contains(&s.as_str()))
        .map(|s| dir.join(format!("{}.cu", s.replace("::", "."))))
        .collect();
    assert_eq!(d.written, want);
    for f in &d.written {
        let cuda = std::fs::read_to_string(f).unwrap();
        assert!(cuda.contains("__global__"), "{}", f.display());
    }
}
