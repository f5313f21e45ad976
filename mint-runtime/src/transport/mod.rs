//! Halo transports: *how* the runs of a halo scheme ([`crate::halo`]) move. The scheme
//! says which ghost planes each device receives from which; a transport moves them:
//!
//! | between | emulated devices (`cpu:N`) | GPUs |
//! | --- | --- | --- |
//! | this rank's devices | memcpy ([`memcpy`]) | peer copies on streams ([`peer`]) |
//! | ranks | MPI, staged by memcpy | MPI, staged through page-locked memory ([`mpi`]) |
//! | any two GPUs, with `MINT_NCCL=1` | | NCCL send/receive groups ([`nccl`]) |
//!
//! An exchange runs in one of two strategies ([`Strategy`]): ordered after all work
//! queued so far (the exchange a kernel's first read of stale ghost planes starts), or
//! overlapped, on the halo streams right after a split kernel's boundary part while its
//! interior runs ([`crate::overlap`]). Both walk the same scheme.
//!
//! A new transport is a module here that moves a list of the scheme's runs
//! ([`HaloScheme::runs`], [`HaloScheme::within`] or [`HaloScheme::between`]), and a branch
//! of [`exchange`] that picks it.

mod memcpy;
mod mpi;
mod nccl;
mod peer;

use crate::decomp::Slabs;
use crate::device::Gpu;
use crate::error::Result;
use crate::halo::HaloScheme;
use crate::overlap::Halos;
use crate::parts::Parts;
use crate::pinned::PinnedArray1;
use cudarc::driver::sys;
use std::ops::Range;
use std::sync::Arc;

/// When an exchange's copies may start.
#[derive(Clone, Copy)]
pub(crate) enum Strategy<'m> {
    /// After all work queued on the devices so far, on their own streams: each device's
    /// next work follows the copies into its ghost planes and out of its owned ones.
    Ordered,
    /// On the halo streams right after a split kernel's boundary part: `marks[i]` marks
    /// local GPU `i`'s boundary part done ([`crate::overlap`]).
    Overlapped(&'m [sys::CUevent]),
}

impl Strategy<'_> {
    fn marks(&self) -> Option<&[sys::CUevent]> {
        match self {
            Strategy::Ordered => None,
            Strategy::Overlapped(m) => Some(m),
        }
    }
}

/// One array's exchange: its storage and its scheme.
pub(crate) struct Exchange<'a> {
    pub name: &'static str,
    /// Each local device's storage of the array.
    pub parts: &'a mut Parts,
    pub slabs: &'a Slabs,
    pub scheme: &'a HaloScheme,
    /// Bytes of one plane along the slowest axis.
    pub plane_bytes: usize,
    /// The array's page-locked staging of its runs between ranks (allocated at the first
    /// such exchange, grown when a run needs more).
    pub staging: &'a mut Option<PinnedArray1<u8>>,
}

/// The devices of a split as the transports see them.
pub(crate) struct Devices<'a> {
    /// The devices this rank holds (global device numbers).
    pub local: Range<usize>,
    /// The GPUs this rank holds, one per local device (`None`: emulated devices).
    pub gpus: Option<&'a [Arc<Gpu>]>,
    /// The halo streams and the halo copies each GPU's next work waits for.
    pub halos: &'a mut Halos,
    /// The emulation of a streamed region ([`crate::stream`]), which never uses NCCL.
    pub streamed: bool,
}

/// Refreshes the ghost planes of `a` from their owners, in strategy `how`: through NCCL
/// when it is asked for and can be used, else runs between ranks by MPI and runs within
/// this rank by memcpy or peer copies.
///
/// # Errors
/// A failed copy between GPUs ([`crate::Error::Driver`], naming the array and devices);
/// [`crate::Error::Ranks`] when a message fails or another rank could not stage its
/// planes.
pub(crate) fn exchange(
    devs: &mut Devices<'_>,
    mut a: Exchange<'_>,
    how: Strategy<'_>,
) -> Result<()> {
    if nccl::exchange(devs, &a, how.marks())? {
        return Ok(());
    }
    if crate::ranks::size() > 1 {
        between_ranks(devs, &mut a, how)?;
    }
    within_rank(devs, &mut a, how)?;
    if let Strategy::Overlapped(_) = how {
        crate::overlap::count_exchange();
    }
    Ok(())
}

/// The runs between this rank's devices and other ranks', by MPI.
fn between_ranks(devs: &mut Devices<'_>, a: &mut Exchange<'_>, how: Strategy<'_>) -> Result<()> {
    let runs = a.scheme.between();
    let pb = a.plane_bytes;
    let total = mpi::total_bytes(runs, pb);
    let local = devs.local.clone();
    let first = local.start;
    match (&mut *a.parts, how) {
        (Parts::Host(parts), _) => {
            let mut heap = vec![0u8; total];
            let mut stager = memcpy::Staged {
                parts,
                slabs: a.slabs,
                first,
                pb,
            };
            mpi::exchange(a.name, runs, &local, &mut heap, pb, &mut stager)
        }
        (Parts::Gpu(parts), Strategy::Ordered) => {
            let buf = mpi::halo_buffer(a.staging, total);
            let mut stager = peer::Staged { parts, first };
            mpi::exchange(a.name, runs, &local, buf, pb, &mut stager)
        }
        (Parts::Gpu(parts), Strategy::Overlapped(marks)) => {
            let buf = mpi::halo_buffer(a.staging, total);
            let mut stager = peer::HaloStaged {
                parts,
                gpus: devs.gpus.expect("a split over GPUs"),
                halos: devs.halos,
                marks,
                first,
                name: a.name,
                into: vec![false; local.len()],
            };
            mpi::exchange(a.name, runs, &local, buf, pb, &mut stager)
        }
    }
}

/// The runs between this rank's devices.
fn within_rank(devs: &mut Devices<'_>, a: &mut Exchange<'_>, how: Strategy<'_>) -> Result<()> {
    let first = devs.local.start;
    match (&mut *a.parts, how) {
        (Parts::Host(parts), _) => {
            memcpy::within(parts, a.slabs, a.scheme, first, a.plane_bytes);
            Ok(())
        }
        (Parts::Gpu(parts), Strategy::Ordered) => {
            peer::ordered(parts, a.scheme, &devs.local, a.name)
        }
        (Parts::Gpu(parts), Strategy::Overlapped(marks)) => peer::overlapped(
            parts,
            a.scheme,
            first,
            devs.gpus.expect("a split over GPUs"),
            devs.halos,
            marks,
            a.name,
        ),
    }
}
