//! A crate outside this workspace depends on `mint` by path, annotates its own loops, and
//! builds and runs (on the CPU backend here).

#[test]
fn a_crate_outside_the_workspace_builds_and_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("tests/user-crate/Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if !manifest.is_file()
        || !std::process::Command::new(&cargo)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: no cargo or no source tree here");
        return;
    }
    let target = root.join("target/user-crate");
    let out = std::process::Command::new(&cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .env("MINT_DEVICE", "cpu")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the user crate failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("user crate: last change"), "{stdout}");
}
