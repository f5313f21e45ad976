//! The translation pipeline ([`translate`]): the faces lift, type inference and
//! validation, the kernel configuration, the plan, the lowering to the kernel IR, the
//! passes over it, and the printed CUDA.

use crate::baseline::config;
use crate::diag::DiagResult;
use crate::ir::*;
use crate::kir;
use crate::optimizer::{chunk, temporal, vector};
use crate::passes;
use crate::plan::{self, KernelPlan, Kind};
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

/// Translates `kernel` for `target`, as a flat list of steps: refuse what must be bound
/// first, split faces into stencil points (loop IR), check, configure, plan (the kernel's
/// kind and every option decision), lower to the kernel IR, run each pass of
/// [`passes::PASSES`] by name, print. `MINT_DUMP_AFTER=<step>` writes the plan and the
/// kernel IR after `lower` or after the pass of that name to standard error.
///
/// # Errors
/// Ill-typed or invalid kernels (see [`check`]) and clauses that do not fit the device
/// (see [`config::resolve`]).
pub fn translate(kernel: &Kernel, target: &Target) -> DiagResult<Translation> {
    bound(kernel)?;
    let (mut k, faces) = lift_faces(kernel);
    check(&mut k)?;
    let cfg = config::resolve(&k, target)?;
    let blocked = temporal::plan(&k, &cfg, target)?;
    let plan = plan::plan(k, faces, &cfg, target, blocked);
    let lowered = match &plan.kind {
        Kind::Baseline => crate::baseline::lower(&plan.kernel, &cfg, target),
        Kind::Staged(p) => chunk::lower(&plan.kernel, &cfg, p, target, plan.level()),
        Kind::Vector(v) => vector::lower(&plan.kernel, &cfg, target, v, plan.level()),
        Kind::Temporal(t) => temporal::lower(&plan.kernel, &cfg, t, target),
    };
    let mut module = lowered.module(&plan.kernel, &cfg, target);
    let dump = DumpAfter::from_env();
    dump.after("lower", &plan, &module);
    let cx = passes::Context {
        plan: &plan,
        cfg: &cfg,
        target,
    };
    for (name, pass) in passes::PASSES {
        pass(&mut module, &cx);
        dump.after(name, &plan, &module);
    }
    let source = kir::print::module(&module);
    let (report, cap) = (plan.report(), plan.max_registers(target));
    // a blocked kernel's grid covers the ranges with the tiles' inner points
    let cfg = match &plan.kind {
        Kind::Temporal(t) => t.launch(&cfg),
        _ => cfg,
    };
    let mut t = lowered.translation(source, &plan.kernel, &cfg, target, report, cap);
    t.report.reaches = crate::analyzer::reach::report_lines(kernel);
    Ok(t)
}

/// Refuses a kernel that calls device functions or has element types bound at launch:
/// the caller inlines and binds first.
fn bound(kernel: &Kernel) -> DiagResult<()> {
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
    Ok(())
}

/// Where the optimizer runs (any on-chip option, not a `single` block): the faces split
/// into their stencil points, for it to stage ([`crate::optimizer::faces`]), and how many
/// references were split.
fn lift_faces(kernel: &Kernel) -> (Kernel, Option<usize>) {
    if kernel.options.any()
        && !kernel.is_single()
        && let Some((lifted, n)) = crate::optimizer::faces::lift(kernel)
    {
        return (lifted, Some(n));
    }
    (kernel.clone(), None)
}

/// The steps `MINT_DUMP_AFTER` names (comma-separated; `all` for every one): `lower` and
/// the passes.
struct DumpAfter(Vec<String>);

impl DumpAfter {
    fn from_env() -> DumpAfter {
        let names: Vec<String> = std::env::var("MINT_DUMP_AFTER")
            .unwrap_or_default()
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let known =
            |n: &str| n == "all" || n == "lower" || passes::PASSES.iter().any(|(p, _)| *p == n);
        if let Some(n) = names.iter().find(|n| !known(n)) {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                let steps: Vec<&str> = passes::PASSES.iter().map(|(p, _)| *p).collect();
                eprintln!(
                    "MINT_DUMP_AFTER: no step `{n}`; the steps are lower, {}, or all",
                    steps.join(", ")
                );
            });
        }
        DumpAfter(names)
    }

    /// Writes the plan and the module after step `name`, if asked for, in one write.
    fn after(&self, name: &str, plan: &KernelPlan, module: &kir::Module) {
        if self.0.iter().any(|n| n == name || n == "all") {
            eprint!(
                "// MINT_DUMP_AFTER={name}: kernel `{}`\n{}{}",
                plan.kernel.name,
                plan.describe(),
                kir::print::dump(module)
            );
        }
    }
}
