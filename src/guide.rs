//! The user guide's chapters with Rust code (`docs/src/`), and the README and
//! ARCHITECTURE.md, as documentation: compiled only under `cfg(doctest)`, so that
//! `cargo test --doc` builds every Rust block of the book and runs those not marked
//! `no_run`. `tests/docs.rs` checks that every chapter with a Rust block is listed here.

#[doc = include_str!("../README.md")]
pub mod readme {}

#[doc = include_str!("../ARCHITECTURE.md")]
pub mod architecture {}

#[doc = include_str!("../docs/src/introduction.md")]
pub mod introduction {}

#[doc = include_str!("../docs/src/install.md")]
pub mod install {}

#[doc = include_str!("../docs/src/guide/directives.md")]
pub mod directives {}

#[doc = include_str!("../docs/src/guide/options.md")]
pub mod options {}

#[doc = include_str!("../docs/src/guide/boundaries.md")]
pub mod boundaries {}

#[doc = include_str!("../docs/src/guide/time-loops.md")]
pub mod time_loops {}

#[doc = include_str!("../docs/src/guide/structs.md")]
pub mod structs {}

#[doc = include_str!("../docs/src/guide/devices.md")]
pub mod devices {}

#[doc = include_str!("../docs/src/guide/mpi.md")]
pub mod mpi {}

#[doc = include_str!("../docs/src/guide/streaming.md")]
pub mod streaming {}

#[doc = include_str!("../docs/src/guide/transfers.md")]
pub mod transfers {}

#[doc = include_str!("../docs/src/guide/autotuning.md")]
pub mod autotuning {}

#[doc = include_str!("../docs/src/guide/errors.md")]
pub mod errors {}
