//! Writes the CUDA of every kernel linked into this program (the kernel suite) to a
//! directory, without running anything or needing a GPU:
//!
//! ```text
//! cargo run --example dump_kernels -- DIR [LEVEL [TILE [CHUNK]]]
//! ```
//!
//! LEVEL (default opt-3) sets the `tile`/`chunksize` of kernels whose clauses are
//! expressions; each kernel keeps its own optimizer options. TILE and CHUNK, written
//! `x,y,z` (e.g. `128,4,8`), replace the level's tile and chunk size. A kernel that does
//! not translate at those clauses is named on stderr and not written; the others are, and
//! the exit status is then 1.

use mint_kernels::{Kernel, Level};

/// Parses `x,y,z` into three positive sizes.
fn triple(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("`{s}`: {e} (write x,y,z, e.g. 128,4,8)"))?;
    match v[..] {
        [x, y, z] if x > 0 && y > 0 && z > 0 => Ok([x, y, z]),
        _ => Err(format!("`{s}`: expected three positive sizes x,y,z")),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: dump_kernels DIR [LEVEL [TILE [CHUNK]]]";
    let dir = args.next().ok_or(usage)?;
    let level = match args.next() {
        Some(l) => Level::parse(&l).ok_or_else(|| {
            let names: Vec<_> = Level::ALL.iter().map(|l| l.name()).collect();
            format!("unknown level `{l}`; one of {}", names.join(", "))
        })?,
        None => Level::Opt3,
    };
    assert!(!Kernel::ALL.is_empty(), "links the kernel suite");
    let (mut tile, mut chunk) = level.config(3);
    if let Some(t) = args.next() {
        tile = triple(&t)?;
    }
    if let Some(c) = args.next() {
        chunk = triple(&c)?;
    }
    let dumped = mint::dump_kernels(
        std::path::Path::new(&dir),
        &mint::Target::default(),
        tile,
        chunk,
    )?;
    println!(
        "wrote {} kernels to {dir} (tile {tile:?}, chunksize {chunk:?})",
        dumped.written.len()
    );
    for (kernel, e) in &dumped.rejected {
        eprintln!("not written: {kernel}: {e}");
    }
    if dumped.rejected.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} kernel(s) do not translate at these clauses; the others were written",
            dumped.rejected.len()
        )
        .into())
    }
}
