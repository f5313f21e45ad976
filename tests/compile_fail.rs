//! Misuse the macros can see is a compile error with a span on the offending token and a
//! sentence that names the fix. One case per misuse under `tests/ui/`, each with the
//! exact expected compiler output.

#[test]
fn ui() {
    // The cases need cargo and the source tree; on a machine that runs only the packed
    // test binaries (the GPU machine) neither is there.
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let has_cargo = std::process::Command::new(&cargo)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !manifest.join("tests/ui").is_dir() || !has_cargo {
        eprintln!("skipped: no cargo or no source tree here (compile-fail cases need both)");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
