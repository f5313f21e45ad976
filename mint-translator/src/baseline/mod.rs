//! The baseline translator (thesis Sec. 4.2): the argument handler of the outliner, the
//! kernel configuration, and (in [`crate::emit::cuda`]) the work partitioner and array
//! flattening. The memory manager's host-to-device table lives in the runtime's region,
//! filled by the `copy!`s the front end finds.

pub mod config;
pub mod outline;

use crate::emit::cexpr::CPrinter;
use crate::emit::cuda::{self, GlobalRefs};
use crate::ir::Kernel;
use crate::kir::Builder;
use crate::kir::print::helpers::helpers_source;
use crate::target::Target;
use crate::translation::KernelSource;
use config::LaunchConfig;

/// The baseline lowering (thesis Ch. 4): every reference goes to device memory; a
/// `single` kernel's body runs as it is.
pub(crate) fn lower(k: &Kernel, cfg: &LaunchConfig, target: &Target) -> KernelSource {
    let entry = cuda::entry_name(k);
    let params = cuda::base_params(k, &[]);
    let (params, packed) = cuda::pack_params(k, params, target.idx64, target.param_limit);
    let refs = GlobalRefs { kernel: k };
    let names = cuda::base_names(k, &params, &packed);
    let mut p = CPrinter::new(names, &refs);
    let mut b = Builder::new();
    if k.is_single() {
        b.body(&mut p, |p| p.block_body(&k.body));
    } else {
        cuda::baseline_body(&mut p, &mut b, k, cfg);
    }
    let body = b.finish();
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
    KernelSource {
        entry,
        notes,
        helpers,
        params,
        packed,
        body,
        dynamic_shared_bytes: 0,
        static_shared_bytes: 0,
        same_index: Vec::new(),
    }
}
