//! What a streamed region's kernels must satisfy to run slab by slab
//! ([`check_kernel`]): checked before a streamed run on a GPU moves any byte, and at each
//! kernel of its emulation on the CPU ([`crate::split`]).

use crate::decomp::{KernelPlan, Mode};
use crate::error::{Error, Result};
use crate::site::{KernelSite, RegionInfo};

pub(crate) fn stream_error(info: &RegionInfo, message: String) -> Error {
    Error::Stream {
        region: info.name.into(),
        message,
    }
}

/// Checks that `site`, planned as `plan`, can run slab by slab. `arrays[i]` is the
/// kernel's array `i`: its name, whether it is distributed, and whether a kernel of the
/// region has written it.
///
/// # Errors
/// [`Error::Stream`] naming the kernel and the array.
pub(crate) fn check_kernel(
    info: &RegionInfo,
    site: &'static KernelSite,
    plan: &KernelPlan,
    arrays: &[(&str, bool, bool)],
) -> Result<()> {
    let at = site.location();
    match plan.mode {
        Mode::Split { .. } => {}
        Mode::Owner => {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} would run under owner-computes ({}); a streamed kernel must write its distributed arrays at z + c of its outermost parallel index",
                    site.name,
                    plan.why.as_deref().unwrap_or("")
                ),
            ));
        }
        Mode::Everywhere => {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} touches no array the slabs split (see MINT_REPORT=1 for why each is replicated)",
                    site.name
                ),
            ));
        }
    }
    for (i, &(name, dist, written)) in arrays.iter().enumerate() {
        if plan.writes[i] && !dist {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} writes `{name}`, which is replicated (MINT_REPORT=1 says why); a streamed kernel writes only arrays the slabs split",
                    site.name
                ),
            ));
        }
        if plan.reads_ghosts[i] && (written || plan.writes[i]) {
            return Err(stream_error(
                info,
                format!(
                    "kernel {} at {at} reads `{name}` beyond the planes it writes, and a kernel of the region writes `{name}`: slabs would need each other's results (a halo exchange); split the region, or drop `stream`",
                    site.name
                ),
            ));
        }
    }
    Ok(())
}
