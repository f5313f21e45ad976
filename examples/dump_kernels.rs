//! Writes the CUDA of every kernel linked into this program (the kernel suite) to a
//! directory, without running anything or needing a GPU:
//!
//! ```text
//! cargo run --example dump_kernels -- DIR [LEVEL]
//! ```
//!
//! LEVEL (default opt-3) sets the `tile`/`chunksize` of kernels whose clauses are
//! expressions; each kernel keeps its own optimizer options.

use mint_kernels::{Kernel, Level};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: dump_kernels DIR [LEVEL]")?;
    let level = match args.next() {
        Some(l) => Level::parse(&l).ok_or("unknown level")?,
        None => Level::Opt3,
    };
    assert!(!Kernel::ALL.is_empty(), "links the kernel suite");
    let (tile, chunk) = level.config(3);
    let n = mint::dump_kernels(
        std::path::Path::new(&dir),
        &mint::Target::default(),
        tile,
        chunk,
    )?;
    println!("wrote {n} kernels to {dir} (tile {tile:?}, chunksize {chunk:?})");
    Ok(())
}
