//! # mint-kernels
//!
//! The stencil kernels Mint was measured on (thesis Table 6.3 and the applications of
//! Ch. 7), each written twice: as a Mint region (`run`) and as a plain serial reference
//! (`serial`) that tests compare against. Each kernel module also states its flop count
//! per point (the thesis's, where it gives one) and its compulsory memory traffic in
//! words per point, from which benchmarks report GFLOP/s and effective bandwidth.
//!
//! Arrays are `ndarray` arrays indexed `[z, y, x]` (3-D) or `[y, x]` (2-D), x fastest.
//! Every kernel updates the interior and leaves the boundary (ghost cells) untouched.

pub mod heat2d;
pub mod heat3d;
