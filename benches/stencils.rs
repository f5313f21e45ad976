//! The stencil benchmark: every kernel of the suite at every optimization level, checked
//! against its serial reference before it is timed.
//!
//! ```text
//! cargo bench --bench stencils -- [--size 512] [--size2d 8192] [--steps 20] [--reps 5]
//!     [--kernels heat3d-7pt,poisson3d-19pt] [--levels baseline,opt-3] [--precision f64,f32]
//!     [--tune] [--out DIR]
//! ```
//!
//! Writes `DIR/stencils.json` and `DIR/stencils.md` (default DIR: `target/bench`) and
//! prints the table.

use mint_kernels::harness::{self, Config};
use mint_kernels::{Kernel, Level, Precision};

fn list<T>(v: &str, parse: impl Fn(&str) -> Option<T>, what: &str) -> Vec<T> {
    v.split(',')
        .map(|s| parse(s.trim()).unwrap_or_else(|| panic!("unknown {what} `{s}`")))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut c = Config::default();
    let mut out = std::path::PathBuf::from("target/bench");
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--size" => c.size3 = val()?.parse()?,
            "--size2d" => c.size2 = val()?.parse()?,
            "--steps" => c.steps = val()?.parse()?,
            "--reps" => c.reps = val()?.parse()?,
            "--check-size" => c.check_size = val()?.parse()?,
            "--kernels" => c.kernels = list(&val()?, Kernel::parse, "kernel"),
            "--levels" => c.levels = list(&val()?, Level::parse, "level"),
            "--precision" => c.precisions = list(&val()?, Precision::parse, "precision"),
            "--out" => out = val()?.into(),
            "--tune" => c.tune = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let r = harness::run(&c)?;
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("stencils.json"), serde_json::to_string_pretty(&r)?)?;
    let md = r.markdown(&c.levels);
    std::fs::write(out.join("stencils.md"), &md)?;
    println!("{md}");
    println!("wrote {}/stencils.json and stencils.md", out.display());
    Ok(())
}
