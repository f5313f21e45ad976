//! # mint-testing
//!
//! The tools for fuzzing and testing the Mint translator (issue #14), kept out of the
//! translator that every user's proc macro links (issue #44):
//!
//! - [`generate`]: a seeded generator of random well-typed kernels with their inputs;
//! - [`shrink`]: the shrinker that reduces a failing generated case to a minimal kernel and
//!   writes it out as a regression test;
//! - [`interp`]: the interpreter of the IR, the reference that generated kernels are
//!   checked against;
//! - [`kernel`], [`parse_expr`] and [`parse_block`]: the translator's compact text
//!   notation for kernels (`mint_translator::testing`, behind its `testing` feature,
//!   which this crate turns on; the translator's own unit tests use it there).
//!
//! Only tests, examples and benchmarks depend on this crate (as a path-only
//! dev-dependency); it is not published.

pub mod generate;
pub mod interp;
pub mod shrink;

pub use mint_translator::testing::{kernel, parse_block, parse_expr};
