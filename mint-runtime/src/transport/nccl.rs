//! NCCL ([`crate::nccl`], `MINT_NCCL=1`): every run with an end on this rank as one
//! `ncclSend`/`ncclRecv` in one group per exchange, on each GPU's communicator stream,
//! between GPUs of this process, slabs of one GPU and other ranks' GPUs alike.

use super::{Devices, Exchange};
use crate::error::Result;
use crate::overlap::Halos;
use crate::parts::Parts;
use cudarc::driver::sys;

/// The exchange of `a` through NCCL, on each GPU's communicator stream after `marks` (a
/// split kernel's boundary parts, [`super::Strategy::Overlapped`]) or after all work queued
/// so far. `Ok(false)`: NCCL is not asked for or cannot be used here, and the caller moves
/// the halos itself.
///
/// # Errors
/// A failed NCCL call or event ([`crate::Error::Driver`]); [`crate::Error::Ranks`] when
/// another rank's group failed.
pub(super) fn exchange(
    devs: &mut Devices<'_>,
    a: &Exchange<'_>,
    marks: Option<&[sys::CUevent]>,
) -> Result<bool> {
    if !crate::nccl::requested() || devs.streamed {
        return Ok(false);
    }
    let Some(gpus) = devs.gpus else {
        return Ok(false);
    };
    let Ok(comms) = crate::nccl::comms(gpus) else {
        return Ok(false);
    };
    let first = devs.local.start;
    let local = devs.local.clone();
    let halos = &mut *devs.halos;
    let Parts::Gpu(parts) = &*a.parts else {
        unreachable!("a split over GPUs")
    };
    // the communicator's stream on each GPU, after its devices' marks or after
    // everything queued on them
    let _one_at_a_time = comms.lock();
    let mut streams = Vec::with_capacity(gpus.len());
    for (i, g) in gpus.iter().enumerate() {
        let (_, cs) = comms.of(g.ordinal);
        g.bind()?;
        match marks {
            Some(m) => Halos::wait(cs, m[i], first + i)?,
            None => {
                let e = Halos::record(g.stream.cu_stream(), first + i)?;
                let r = Halos::wait(cs, e, first + i);
                unsafe { cudarc::driver::result::event::destroy(e) }.ok();
                r?;
            }
        }
        streams.push(cs);
    }
    // every run between two devices, at least one of them here, in one global order
    let mut ops: Vec<(bool, crate::nccl::Op)> = Vec::new();
    for run in a.scheme.runs() {
        let (d, from, lo, hi) = (run.to, run.from, run.lo, run.hi);
        for (send, dev, peer) in [(true, from, d), (false, d, from)] {
            if local.contains(&dev) {
                let i = dev - first;
                let p = &parts[i];
                let (comm, _) = comms.of(gpus[i].ordinal);
                let bytes = p.planes_bytes(lo, hi);
                let peer = comms.device_rank[peer];
                ops.push((send, (p.plane_ptr(lo), bytes, peer, comm, streams[i])));
            }
        }
    }
    let r = crate::nccl::group(&ops);
    crate::ranks::agree(|| format!("the NCCL halo exchange of `{}`", a.name), r)?;
    // each GPU's next work waits for the group: its ghosts arrive, its planes are read
    for (i, &cs) in streams.iter().enumerate() {
        gpus[i].bind()?;
        halos.after(i, cs, first + i)?;
    }
    crate::nccl::count_exchange();
    Ok(true)
}
