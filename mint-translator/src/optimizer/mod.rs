//! The on-chip optimizer (thesis Ch. 5).

use crate::baseline::config::LaunchConfig;
use crate::diag::DiagResult;
use crate::ir::Kernel;
use crate::target::Target;
use crate::translate::Translation;

/// Applies the optimizations `kernel.options` asks for. `None` means the baseline
/// translation stands.
pub fn optimize(
    _kernel: &Kernel,
    _cfg: &LaunchConfig,
    _target: &Target,
) -> DiagResult<Option<Translation>> {
    Ok(None)
}
