//! Runs between ranks by MPI: this rank's side of every run between ranks in one buffer
//! (page-locked for GPUs, so that each run is one DMA), the planes this rank owns staged
//! into it, one message per run, and the planes received unstaged onto the devices. How
//! planes are staged and unstaged is the caller's [`Stager`]: by memcpy on emulated
//! devices, by copies on each GPU's stream, or on the halo streams after a kernel's
//! boundary part.

use crate::error::Result;
use crate::halo::{Run, rank_of};
use crate::pinned::PinnedArray1;
use crate::ranks::Message;
use std::ops::Range;

/// How a transport moves one run's planes between its devices and the MPI buffer.
pub(super) trait Stager {
    /// Copies the planes of run `r`, whose source is on this rank, into `out`.
    fn stage(&mut self, r: &Run, out: &mut [u8]) -> Result<()>;
    /// After every run is staged: the staged bytes are in the buffer when this returns.
    fn staged(&mut self) -> Result<()> {
        Ok(())
    }
    /// Copies `got`, the planes of run `r` received for a device of this rank, onto it.
    fn unstage(&mut self, r: &Run, got: &mut [u8]) -> Result<()>;
    /// After every received run is unstaged.
    fn received(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Exchanges `runs` (this rank's runs between ranks, in the order every rank lists them)
/// by MPI through `buf`, `pb` bytes per plane, for the array `name`: stages this rank's
/// planes, agrees with every rank that all could ([`crate::ranks::agree`]), sends and
/// receives, and unstages what arrived.
///
/// # Errors
/// [`crate::Error::Ranks`] when a message fails or another rank could not stage its
/// planes; the stager's errors.
pub(super) fn exchange(
    name: &str,
    runs: &[Run],
    local: &Range<usize>,
    buf: &mut [u8],
    pb: usize,
    stager: &mut dyn Stager,
) -> Result<()> {
    let mut slices = cut(buf, runs, pb);
    // this rank's planes for the others, staged
    let staged: Result<()> = runs
        .iter()
        .zip(slices.iter_mut())
        .filter(|(r, _)| local.contains(&r.from))
        .try_for_each(|(r, out)| stager.stage(r, out))
        .and_then(|_| stager.staged());
    crate::ranks::agree(|| format!("the halo exchange of `{name}`"), staged)?;
    let mut messages = messages(runs, slices, local);
    crate::ranks::exchange(&mut messages)?;
    for (r, m) in runs.iter().zip(messages.iter_mut()) {
        let Message::Recv { into: got, .. } = m else {
            continue;
        };
        stager.unstage(r, got)?;
    }
    stager.received()
}

/// The bytes of `runs`, `pb` per plane: the buffer [`exchange`] needs.
pub(super) fn total_bytes(runs: &[Run], pb: usize) -> usize {
    runs.iter().map(|r| r.planes() * pb).sum()
}

/// The first `total` bytes of an array's page-locked halo buffer, grown when needed.
pub(super) fn halo_buffer(buf: &mut Option<PinnedArray1<u8>>, total: usize) -> &mut [u8] {
    if buf.as_ref().is_none_or(|h| h.len() < total) {
        *buf = Some(PinnedArray1::zeros(total));
    }
    &mut buf.as_mut().expect("allocated").as_slice_mut()[..total]
}

/// `buf` cut into one slice per run of `runs`, in order (`pb` bytes per plane).
fn cut<'b>(mut buf: &'b mut [u8], runs: &[Run], pb: usize) -> Vec<&'b mut [u8]> {
    let mut slices = Vec::with_capacity(runs.len());
    for r in runs {
        let (head, tail) = std::mem::take(&mut buf).split_at_mut(r.planes() * pb);
        slices.push(head);
        buf = tail;
    }
    slices
}

/// This rank's MPI messages for `runs`: a send of each run it owns the source of, a receive
/// of each other into its slice.
fn messages<'b>(runs: &[Run], slices: Vec<&'b mut [u8]>, local: &Range<usize>) -> Vec<Message<'b>> {
    let per_rank = local.len();
    runs.iter()
        .zip(slices)
        .map(|(r, sl)| {
            if local.contains(&r.from) {
                Message::Send {
                    rank: rank_of(r.to, per_rank),
                    bytes: sl,
                }
            } else {
                Message::Recv {
                    rank: rank_of(r.from, per_rank),
                    into: sl,
                }
            }
        })
        .collect()
}
