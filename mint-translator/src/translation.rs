//! What a translation produces: the CUDA source and everything the runtime needs to launch
//! it ([`Translation`]), and what a lowering produces ([`KernelSource`]): the parts of a
//! kernel, assembled into a kernel IR module for the passes and into the one
//! [`Translation`] of every path.

use crate::baseline::config::LaunchConfig;
use crate::emit::cuda::{self, Param};
use crate::ir::*;
use crate::kir;
use crate::report::Report;
use crate::target::Target;
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

/// The parts of a generated kernel as a lowering produces them (the baseline, the staged
/// kernel, the vector path): [`KernelSource::module`] assembles its [`kir::Module`] for the
/// passes, and [`KernelSource::translation`] makes the one [`Translation`] of all three
/// from the printed module.
pub(crate) struct KernelSource {
    pub entry: String,
    /// The header's notes (the optimizations applied).
    pub notes: Vec<String>,
    /// The device helper functions' definitions.
    pub helpers: String,
    pub params: Vec<Param>,
    pub packed: Vec<Param>,
    /// The kernel's body in the kernel IR.
    pub body: Vec<kir::Stmt>,
    /// Dynamic shared memory (the staged planes), bytes.
    pub dynamic_shared_bytes: u32,
    /// Static shared memory besides the reduction's partials (the vector path's rings),
    /// bytes.
    pub static_shared_bytes: u32,
    /// Arrays sharing pitch and plane-stride variables (`same_index`).
    pub same_index: Vec<Vec<usize>>,
}

impl KernelSource {
    /// The kernel's module as lowered, before the passes: the header, the index type, the
    /// helpers and the kernel (the packed parameters' prologue, then the body); no launch
    /// bounds and no finish kernel yet (`crate::passes`).
    pub(crate) fn module(&self, k: &Kernel, cfg: &LaunchConfig, target: &Target) -> kir::Module {
        let mut body = cuda::unpack(k, &self.packed);
        body.extend(self.body.iter().cloned());
        kir::Module {
            comments: cuda::header(k, cfg, &self.notes),
            idx64: target.idx64,
            helpers: self.helpers.clone(),
            functions: vec![kir::Function {
                entry: self.entry.clone(),
                bounds: None,
                params: cuda::param_list(k, &self.params),
                close_on_last: false,
                body,
            }],
        }
    }

    /// The translation of `k`: the CUDA `source` (the module after the passes, printed)
    /// and what the runtime needs to launch it, with the reduction's plan (the finish
    /// kernel combines the blocks' partial results: thesis Sec. 4.2; reductions beyond
    /// `+`) and the static shared memory its per-thread partials take.
    pub(crate) fn translation(
        self,
        source: String,
        k: &Kernel,
        cfg: &LaunchConfig,
        target: &Target,
        mut report: Report,
        max_registers: Option<u32>,
    ) -> Translation {
        let reduction = k.reduction.as_ref().map(|r| ReductionPlan {
            op: r.op,
            ty: r.ty.unwrap_or(ScalarTy::F64),
            var: r.var.clone(),
            finish_entry: cuda::finish_entry(&self.entry),
        });
        let partial_bytes = reduction
            .as_ref()
            .map(|r| cfg.threads() * r.ty.size_bytes())
            .unwrap_or(0);
        report.shared_bytes = self.dynamic_shared_bytes + self.static_shared_bytes;
        Translation {
            kernel: k.name.clone(),
            entry: self.entry,
            source,
            config: *cfg,
            params: self.params,
            packed: self.packed,
            dynamic_shared_bytes: self.dynamic_shared_bytes,
            static_shared_bytes: partial_bytes + self.static_shared_bytes,
            prefer_l1: k.options.prefer_l1,
            max_registers,
            idx64: target.idx64,
            reduction,
            report,
            ir: k.clone(),
            same_index: self.same_index,
        }
    }
}
