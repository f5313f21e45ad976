//! The translation pipeline: type inference, validation, kernel configuration, the
//! optimizer passes, and CUDA emission.

use crate::baseline::config::{self, LaunchConfig};
use crate::diag::DiagResult;
use crate::emit::cexpr::{CPrinter, helpers_source};
use crate::emit::cuda::{self, GlobalRefs, Param};
use crate::ir::*;
use crate::report::Report;
use crate::target::Target;
use crate::{typeck, validate};
use serde::{Deserialize, Serialize};

/// How the runtime finishes a reduction: a second kernel combines the per-block partials.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReductionPlan {
    pub op: RedOp,
    pub ty: ScalarTy,
    pub var: String,
    /// Entry point of the finish kernel (in the same module).
    pub finish_entry: String,
}

/// A translated kernel: CUDA source and everything the runtime needs to launch it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Translation {
    /// The kernel's name in the program (e.g. `heat_0`).
    pub kernel: String,
    /// The `extern "C"` entry point.
    pub entry: String,
    pub source: String,
    pub config: LaunchConfig,
    /// Kernel parameters in order.
    pub params: Vec<Param>,
    /// Parameters packed into a device array of 8-byte words (empty when not packed).
    pub packed: Vec<Param>,
    /// Dynamic shared memory to request at launch, in bytes.
    pub dynamic_shared_bytes: u32,
    /// Static shared memory the kernel declares, in bytes.
    pub static_shared_bytes: u32,
    /// Request the L1-preferring carveout (`prefer_l1`).
    pub prefer_l1: bool,
    /// The registers per thread `__launch_bounds__` holds the kernel to, if it does
    /// ([`Target::max_registers`], vectorized kernels).
    pub max_registers: Option<u32>,
    pub idx64: bool,
    pub reduction: Option<ReductionPlan>,
    /// What the analyzer and optimizer decided, for `MINT_REPORT`.
    pub report: Report,
    /// The typed kernel that was translated (after unrolling, if any).
    pub ir: Kernel,
    /// Groups of array indices that share pitch and plane-stride variables
    /// (`same_index`); the runtime checks their layouts agree.
    #[serde(default)]
    pub same_index: Vec<Vec<usize>>,
}

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

/// The baseline translation (thesis Ch. 4): every reference goes to device memory.
pub fn baseline(k: &Kernel, cfg: &LaunchConfig, target: &Target, report: Report) -> Translation {
    let entry = cuda::entry_name(k);
    let params = cuda::base_params(k, &[]);
    let (params, packed) = cuda::pack_params(k, params, target.idx64, target.param_limit);
    let refs = GlobalRefs { kernel: k };
    let names = cuda::base_names(k, &params, &packed);
    let mut p = CPrinter::new(names, &refs);
    if k.is_single() {
        p.block_body(&k.body);
    } else {
        cuda::baseline_body(&mut p, k, cfg);
    }
    let body = std::mem::take(&mut p.out);
    let helpers = helpers_source(&p.helpers.borrow());
    let mut notes =
        vec!["optimizations: none (baseline: every reference goes to device memory)".to_string()];
    if !packed.is_empty() {
        notes.push(format!(
            "{} parameter words exceed the {}-byte limit and are packed",
            packed.len(),
            target.param_limit
        ));
    }
    let kernel_source = KernelSource {
        entry: &entry,
        notes: &notes,
        helpers: &helpers,
        params: &params,
        packed: &packed,
        body: &body,
        max_registers: None,
    };
    let (source, reduction, static_shared_bytes) = kernel_source.assemble(k, cfg, target);
    Translation {
        kernel: k.name.clone(),
        entry,
        source,
        config: *cfg,
        params,
        packed,
        dynamic_shared_bytes: 0,
        static_shared_bytes,
        prefer_l1: k.options.prefer_l1,
        max_registers: None,
        idx64: target.idx64,
        reduction,
        report,
        ir: k.clone(),
        same_index: Vec::new(),
    }
}

/// The parts of a generated kernel, as the baseline translator and the optimizer produce
/// them.
pub(crate) struct KernelSource<'a> {
    pub entry: &'a str,
    pub notes: &'a [String],
    pub helpers: &'a str,
    pub params: &'a [Param],
    pub packed: &'a [Param],
    pub body: &'a str,
    /// Registers per thread to hold the kernel to (`__launch_bounds__`' minimum blocks).
    pub max_registers: Option<u32>,
}

impl KernelSource<'_> {
    /// The CUDA source: preamble, signature, body and, for a reduction, the kernel that
    /// combines the blocks' partial results (thesis Sec. 4.2; reductions beyond `+`).
    /// Returns the source, the reduction's plan, and the static shared-memory bytes the
    /// reduction's per-thread partials take.
    pub(crate) fn assemble(
        &self,
        k: &Kernel,
        cfg: &LaunchConfig,
        target: &Target,
    ) -> (String, Option<ReductionPlan>, u32) {
        let mut source = cuda::preamble(k, cfg, target.idx64, self.notes, self.helpers);
        source.push_str(&cuda::signature(
            k,
            self.entry,
            cfg,
            self.params,
            self.packed,
            self.max_registers,
        ));
        source.push_str(self.body);
        source.push_str("}\n");
        let reduction = k.reduction.as_ref().map(|r| {
            let ty = r.ty.unwrap_or(ScalarTy::F64);
            let finish_entry = format!("{}_finish", self.entry);
            source.push('\n');
            source.push_str(&cuda::finish_kernel(&finish_entry, r.op, ty));
            ReductionPlan {
                op: r.op,
                ty,
                var: r.var.clone(),
                finish_entry,
            }
        });
        let partial_bytes = k
            .reduction
            .as_ref()
            .map(|r| cfg.threads() * r.ty.unwrap_or(ScalarTy::F64).size_bytes())
            .unwrap_or(0);
        (source, reduction, partial_bytes)
    }
}
