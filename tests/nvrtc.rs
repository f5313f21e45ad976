//! Every kernel of the suite, at every optimization level's `tile`/`chunksize`, translates
//! and compiles with NVRTC for Hopper (sm_90). Needs NVRTC but no GPU: CI installs it
//! from PyPI (`.ci/run`), so the generated CUDA of every kernel is compiled on every
//! change. Skips with a message when NVRTC is absent, unless `MINT_REQUIRE_NVRTC=1`.

use mint_kernels::{Kernel, Level};
use rayon::prelude::*;

#[test]
fn every_kernel_at_every_level_compiles_for_sm_90() {
    // the suite's kernel sites are linked into this binary through this use
    assert_eq!(Kernel::ALL.len(), 16);
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
        for v in mint_kernels::harness::candidates(dims) {
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
