//! # mint-kernels
//!
//! The stencil kernels Mint is measured on: the five of thesis Table 6.3, a 27-point box,
//! a 13-point 4th-order star, Farstad's star stencils of radius 1, 2, 4 and 8 in 2-D and
//! 3-D, and the miniAMR 7-point average. Each is written once as Mint-annotated loops and
//! once as a plain serial reference that tests compare against, and states its flop count
//! per point (the thesis's, where it gives one) and its compulsory memory traffic in words
//! per point, from which benchmarks report GFLOP/s and effective bandwidth.
//!
//! Arrays are `ndarray` arrays indexed `[z, y, x]` (3-D) or `[y, x]` (2-D), x fastest.
//! Each kernel updates the interior (points at least its radius from the edge) and leaves
//! the boundary untouched.
//!
//! Every kernel is compiled once per optimizer option set ([`Opts`]); [`Level`] names
//! the thesis's optimization levels (Sec. 6.2.2) with their `tile`/`chunksize`.

#[macro_use]
mod levels;
#[macro_use]
pub mod suite;

pub mod hand;
pub mod harness;

pub mod box27;
pub mod heat2d;
pub mod heat3d;
pub mod heat7var;
pub mod heatclamped;
pub mod miniamr;
pub mod poisson19;
pub mod poisson7;
pub mod star;
pub mod star13;

pub use levels::{Level, Opts};
pub use suite::{Kernel, Precision};
