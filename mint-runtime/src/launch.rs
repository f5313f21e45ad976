//! Kernel launches in the configuration the autotuner chose ([`crate::tune`]): the entry
//! points of a region on one GPU, of a decomposition's GPUs and of a streamed region.
//!
//! Each annotated loop nest is a kernel site, a `static` in the user's program holding the
//! kernel's IR (as JSON) and, per device and launch configuration, the translated,
//! compiled and loaded variant. The first launch of a configuration translates the IR for
//! the device's limits, compiles it with NVRTC (or reads the on-disk cache) and loads it;
//! later launches only fill parameters and launch.

use crate::error::Result;
use crate::exec::{LaunchCtx, launch_as, launch_key};
use crate::host::ScalarValue;
use crate::site::{KernelSite, LaunchArgs};
use crate::variant::variant;
use mint_translator::tune::Candidate;

pub use crate::site::KernelAttrs;
pub use crate::variant::kernel_attrs;

/// Launches `site` with `args`, in the configuration the autotuner chose when the
/// kernel is tuned ([`crate::tune`]). Returns the reduced value for a reduction.
pub(crate) fn launch(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
    nowait: bool,
) -> Result<Option<ScalarValue>> {
    let config = if cx.owner.is_none() {
        crate::tune::choose(cx, site, args)?
    } else {
        None
    };
    launch_as(cx, site, args, nowait, config, true)
}

/// Everything [`launch`] does before the launch itself: the autotuner's choice (which
/// may search) and the compiled, loaded variant; returns the choice. A streamed region
/// calls it before it times its first slab, so that compilation is not counted as the
/// kernels' time, and launches every slab in that choice ([`launch_as`]).
///
/// # Errors
/// As [`launch`].
pub(crate) fn prepare(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
) -> Result<Option<Candidate>> {
    let config = if cx.owner.is_none() {
        crate::tune::choose(cx, site, args)?
    } else {
        None
    };
    let (_, mut key) = launch_key(cx, site, args)?;
    key.config = config;
    variant(site, cx.gpu, key)?;
    Ok(config)
}
