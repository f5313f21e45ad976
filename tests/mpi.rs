//! Builds and runs `tests/mpi_ranks.rs` (regions across MPI ranks, issue #13) with the
//! cargo feature `mpi`, when an MPI library and `mpirun` are installed, so that
//! `cargo test --workspace` runs it on any machine that can. Without MPI it prints why
//! and passes, unless `MINT_REQUIRE_MPI` is set (`.ci/run` installs Open MPI and sets
//! it), which makes a missing MPI a failure.

use std::path::Path;
use std::process::Command;

/// Why MPI tests cannot run here, or `None` when they can.
fn missing() -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in ["mpirun", "mpicc"] {
        if !std::env::split_paths(&path).any(|p| p.join(tool).is_file()) {
            return Some(format!(
                "no `{tool}` on the PATH (Open MPI: `apt install libopenmpi-dev openmpi-bin`)"
            ));
        }
    }
    None
}

#[test]
fn regions_across_mpi_ranks() {
    if mint::ranks::ENABLED {
        eprintln!("this build has the `mpi` feature: tests/mpi_ranks.rs runs in it");
        return;
    }
    if let Some(why) = missing() {
        assert!(
            std::env::var_os("MINT_REQUIRE_MPI").is_none(),
            "MINT_REQUIRE_MPI is set but {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let t = std::time::Instant::now();
    let out = match Command::new(cargo)
        .current_dir(root)
        .args(["test", "--features", "mpi", "--test", "mpi_ranks"])
        .output()
    {
        Ok(out) => out,
        // a packed test binary on a machine without Rust (the GPU machines): the packed
        // `mpi_ranks` binary runs there instead
        Err(e) => {
            assert!(
                std::env::var_os("MINT_REQUIRE_MPI").is_none(),
                "MINT_REQUIRE_MPI is set but cargo does not start: {e}"
            );
            eprintln!(
                "skipped: cargo does not start ({e}), so the `mpi` build cannot be made here"
            );
            return;
        }
    };
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "`cargo test --features mpi --test mpi_ranks` failed:\n{log}"
    );
    assert!(
        log.contains("test regions_across_ranks_equal_one_rank ... ok"),
        "the MPI test did not run:\n{log}"
    );
    eprintln!("{log}");
    eprintln!(
        "MPI tests built and ran in {:.0} s",
        t.elapsed().as_secs_f64()
    );
}
