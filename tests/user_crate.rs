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
    run_user_crate(
        &cargo,
        &manifest,
        &root.join("target/user-crate"),
        "the source tree",
    );
}

/// The four published crates as `cargo package` makes them, verified (each packaged crate
/// builds from its `.crate` alone), then the user crate built against them by version:
/// `mint-stencil = "0.1.0"` with `[patch.crates-io]` pointing at the unpacked `.crate`
/// files, not at this source tree. Minutes of building, so `#[ignore]`d; `.ci/run` runs it.
#[test]
#[ignore = "packages and builds the crates (minutes); .ci/run runs it"]
fn the_packaged_crates_build_a_user_crate_by_version() {
    use std::process::Command;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = root.join("target/package-check");
    let crates = [
        "mint-stencil-translator",
        "mint-stencil-macros",
        "mint-stencil-runtime",
        "mint-stencil",
    ];
    let mut package = Command::new(&cargo);
    // the tree as it is, committed or not (a test checks the files, not the history)
    package.args(["package", "--allow-dirty"]).current_dir(root);
    for c in crates {
        package.args(["-p", c]);
    }
    let out = package
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo package failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // unpack each .crate and point the user crate's dependency at them
    let unpacked = target.join("unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    std::fs::create_dir_all(&unpacked).unwrap();
    let mut patch = String::from("[patch.crates-io]\n");
    for c in crates {
        let file = target.join(format!("package/{c}-0.1.0.crate"));
        let st = Command::new("tar")
            .arg("-xzf")
            .arg(&file)
            .arg("-C")
            .arg(&unpacked)
            .status()
            .expect("tar runs");
        assert!(st.success(), "unpacking {}", file.display());
        let dir = unpacked.join(format!("{c}-0.1.0"));
        patch += &format!("{c} = {{ path = {:?} }}\n", dir.display().to_string());
    }
    let user = target.join("user-crate");
    let _ = std::fs::remove_dir_all(&user);
    std::fs::create_dir_all(user.join("src")).unwrap();
    std::fs::copy(
        root.join("tests/user-crate/src/main.rs"),
        user.join("src/main.rs"),
    )
    .unwrap();
    let manifest = std::fs::read_to_string(root.join("tests/user-crate/Cargo.toml")).unwrap();
    let by_path = r#"version = "0.1.0", path = "../..""#;
    assert!(
        manifest.contains(by_path),
        "tests/user-crate/Cargo.toml changed"
    );
    let manifest = manifest.replace(by_path, r#"version = "0.1.0""#) + "\n" + &patch;
    std::fs::write(user.join("Cargo.toml"), manifest).unwrap();
    run_user_crate(
        &cargo,
        &user.join("Cargo.toml"),
        &target.join("user-target"),
        "the packaged crates",
    );
}

/// Builds and runs the user crate of `manifest` on the CPU backend (`target` its build
/// directory) and checks that it ran to its last line; `against` says what it depends on.
fn run_user_crate(
    cargo: &str,
    manifest: &std::path::Path,
    target: &std::path::Path,
    against: &str,
) {
    let out = std::process::Command::new(cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(manifest)
        .env("CARGO_TARGET_DIR", target)
        .env("MINT_DEVICE", "cpu")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the user crate failed against {against}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("user crate: last change"), "{stdout}");
}
