//! Compiles the C peers (`c/*.c`) with gcc and OpenMP, and links libgomp statically so the
//! benchmark runs where libgomp.so is not installed. Without gcc or OpenMP the crate still
//! builds: it compiles nothing, and its C wrappers report why (`MINT_PEERS_WHY`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags every C peer is compiled with (benches/peers/README.md).
const FLAGS: [&str; 4] = ["-O3", "-march=native", "-fopenmp", "-ffp-contract=off"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(peers_c)");
    println!("cargo::rerun-if-changed=c");
    println!("cargo::rerun-if-changed=build.rs");
    commit();
    match build() {
        Ok(()) => println!("cargo::rustc-cfg=peers_c"),
        Err(why) => {
            let why = why.replace('\n', " ");
            println!("cargo::warning=C peer not built: {why}");
            println!("cargo::rustc-env=MINT_PEERS_WHY={why}");
        }
    }
}

/// The checkout's commit at build time as `MINT_PEERS_COMMIT` (none outside a git
/// checkout), rebuilt when HEAD or the branch it names moves: the benchmark records it, as
/// a copy of the binaries run elsewhere may sit in a checkout at another commit.
fn commit() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) else {
        return;
    };
    println!("cargo::rerun-if-changed={head}");
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(r) = git(&["rev-parse", "--git-path", &branch])
    {
        println!("cargo::rerun-if-changed={r}");
    }
    if let Some(hash) = git(&["rev-parse", "HEAD"]) {
        println!("cargo::rustc-env=MINT_PEERS_COMMIT={hash}");
    }
}

/// Compiles the sources and emits the link lines; the reason it could not, if not.
fn build() -> Result<(), String> {
    let gomp = static_libgomp()?;
    let sources = sources()?;
    let mut b = cc::Build::new();
    b.compiler("gcc").files(&sources).warnings(true);
    for f in FLAGS {
        b.flag(f);
    }
    b.try_compile("mintpeers")
        .map_err(|e| format!("gcc {}: {e}", FLAGS.join(" ")))?;
    let dir = gomp.parent().ok_or("libgomp.a has no directory")?;
    println!("cargo::rustc-link-search=native={}", dir.display());
    println!("cargo::rustc-link-lib=static=gomp");
    println!("cargo::rustc-link-lib=pthread");
    Ok(())
}

/// `c/*.c`, sorted.
fn sources() -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("c")
        .map_err(|e| format!("reading c/: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    if v.is_empty() {
        return Err("no c/*.c sources".into());
    }
    Ok(v)
}

/// The path of gcc's `libgomp.a` (`gcc -print-file-name=libgomp.a`).
fn static_libgomp() -> Result<PathBuf, String> {
    let out = Command::new("gcc")
        .arg("-print-file-name=libgomp.a")
        .output()
        .map_err(|e| format!("gcc not found ({e})"))?;
    if !out.status.success() {
        return Err(format!(
            "`gcc -print-file-name=libgomp.a` failed ({})",
            out.status
        ));
    }
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // gcc prints the bare name back when it has no such file
    if !path.is_absolute() || !Path::new(&path).exists() {
        return Err("gcc has no libgomp.a (no OpenMP runtime installed)".into());
    }
    Ok(path)
}
