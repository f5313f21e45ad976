//! # mint-translator
//!
//! The Mint translator as a library (D. Unat, *Domain-Specific Translator and Optimizer
//! for Massive On-Chip Parallelism*, UCSD 2012, Ch. 4 and 5): an IR for annotated loop
//! nests, the baseline translation to CUDA C++, the stencil analyzer and the on-chip
//! optimizer. It knows nothing of GPUs at run time; the front end (`mint-macros`) runs it
//! at compile time to reject what cannot be translated, and the runtime runs it again
//! with the device's limits.

pub mod analyzer;
pub mod baseline;
pub mod diag;
pub mod emit;
pub mod inline;
pub mod ir;
pub mod kir;
pub mod optimizer;
pub mod owner;
pub mod passes;
pub mod plan;
pub mod report;
pub mod target;
// tests' text notation for kernels, behind the `testing` feature (the fuzzing tools, in
// `mint-testing/`, turn it on and re-export it)
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
pub mod translate;
pub mod translation;
pub mod tune;
pub mod typeck;
pub mod validate;

pub use baseline::config::LaunchConfig;
pub use diag::{Diag, DiagResult};
pub use inline::{Callee, inline};
pub use report::Report;
pub use target::Target;
pub use translate::{ReductionPlan, Translation, check, translate};
