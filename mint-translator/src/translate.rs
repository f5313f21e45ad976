//! The translation pipeline: type inference, validation, kernel configuration, the
//! optimizer passes, and CUDA emission.

pub use crate::baseline::baseline;
use crate::baseline::config;
use crate::diag::DiagResult;
use crate::emit::cuda;
use crate::ir::*;
use crate::report::Report;
use crate::target::Target;
pub use crate::translation::{ReductionPlan, Translation};
use crate::{typeck, validate};

/// Type-checks and validates a kernel as the front end lowered it.
///
/// # Errors
/// The diagnostics of [`typeck::check`] and [`validate::check`].
pub fn check(kernel: &mut Kernel) -> DiagResult<()> {
    if kernel.types_at_launch() {
        typeck::check_open(kernel)?;
        return validate::check(kernel);
    }
    typeck::check(kernel)?;
    validate::check(kernel)
}

/// Translates `kernel` for `target`.
///
/// # Errors
/// Ill-typed or invalid kernels (see [`check`]) and clauses that do not fit the device
/// (see [`config::resolve`]).
pub fn translate(kernel: &Kernel, target: &Target) -> DiagResult<Translation> {
    if crate::inline::has_calls(&kernel.body) {
        return Err(vec![crate::diag::Diag::new(
            0,
            "this kernel calls device functions; inline them first with `mint_translator::inline`",
        )]);
    }
    if let Some(a) = kernel
        .arrays
        .iter()
        .find(|a| a.elem_at_launch || a.ndim == 0)
    {
        return Err(vec![crate::diag::Diag::new(
            a.span,
            format!(
                "the element type of `{}` is bound at launch; bind it first with `Kernel::bind_types`",
                a.name
            ),
        )]);
    }
    let mut k = kernel.clone();
    // faces split into their stencil points, for the optimizer to stage
    let mut faces = None;
    if k.options.any()
        && !k.is_single()
        && let Some((lifted, n)) = crate::optimizer::faces::lift(&k)
    {
        k = lifted;
        faces = Some(n);
    }
    check(&mut k)?;
    let cfg = config::resolve(&k, target)?;
    let mut t = if k.options.any()
        && !k.is_single()
        && let Some(t) = crate::optimizer::optimize(&k, &cfg, target)?
    {
        t
    } else {
        let mut report = Report::baseline(&k, &cfg);
        if k.options.roll_z {
            report
                .notes
                .push(crate::optimizer::ROLL_Z_NOT_APPLIED.into());
        }
        baseline(&k, &cfg, target, report)
    };
    t.report.reaches = crate::analyzer::reach::report_lines(kernel);
    if let Some(n) = faces {
        t.report.notes.push(format!(
            "faces: {n} reference(s) with clamped, mirrored or wrapped subscripts split into their stencil points"
        ));
    }
    if k.options.swizzle {
        t.report.notes.push(if cuda::swizzled(&k) {
            format!(
                "swizzle: blocks run in bands of about {} blocks of y tiles, each band swept along z",
                cuda::SWIZZLE_BAND_BLOCKS
            )
        } else {
            "swizzle not applied: it orders the blocks of three parallel loops".into()
        });
    }
    Ok(t)
}
