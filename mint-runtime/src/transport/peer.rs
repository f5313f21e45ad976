//! GPUs: runs between this process's GPUs as peer copies (`cuMemcpyAsync` between plane
//! ranges), ordered by CUDA events rather than host waits, and runs between ranks staged
//! through the MPI buffer by copies between device and page-locked host memory. Each comes
//! in the two strategies of [`super::Strategy`]: after all work queued on the GPUs' own
//! streams, or on the halo streams right after a split kernel's boundary part
//! ([`crate::overlap`]).

use super::mpi::Stager;
use crate::array::DeviceArray;
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::halo::{HaloScheme, Run};
use crate::overlap::Halos;
use crate::parts::on_device;
use crate::transfer::{Direction, memcpy2d};
use cudarc::driver::sys;
use std::ops::Range;
use std::sync::Arc;

/// A failed copy of an overlapped exchange, naming the array, the planes and the device.
fn driver(
    name: &str,
    call: &str,
    lo: usize,
    hi: usize,
    d: usize,
    e: cudarc::driver::DriverError,
) -> Error {
    Error::Driver {
        call: call.into(),
        message: format!(
            "array `{}`, planes {lo}..{hi} of device {d}: {}",
            name,
            crate::error::describe(e)
        ),
    }
}

/// The runs between this rank's GPUs, stream-ordered with no host wait: each device pulls
/// its ghost planes from their owners on its own stream, after the owners' work so far
/// (their kernels that wrote those planes), and each owner's later work waits for the
/// copies that read its planes (its next kernel must not overwrite a plane a peer is
/// still copying). Slabs on one GPU share its stream. `parts[i]` is device
/// `local.start + i`'s array.
pub(super) fn ordered(
    parts: &[DeviceArray],
    scheme: &HaloScheme,
    local: &Range<usize>,
    name: &str,
) -> Result<()> {
    let wait = |on: &Gpu, other: &Gpu, d: usize| {
        on.stream
            .join(&other.stream)
            .map_err(|e| on_device(Error::driver("cuStreamWaitEvent (halo exchange)", e), d))
    };
    let mut read_by: Vec<Vec<usize>> = vec![Vec::new(); parts.len()];
    for (i, dst) in parts.iter().enumerate() {
        let d = local.start + i;
        let g = dst.gpu();
        let sources: Vec<(usize, usize, usize)> = scheme
            .runs_into(d)
            .map(|r| (r.from - local.start, r.lo, r.hi))
            .collect();
        for &(from, _, _) in &sources {
            let owner = parts[from].gpu();
            if !Arc::ptr_eq(&owner.stream, &g.stream) && !read_by[from].contains(&i) {
                wait(g, owner, d)?;
                read_by[from].push(i);
            }
        }
        g.bind()?;
        for (from, lo, hi) in sources {
            let src = &parts[from];
            let r = unsafe {
                cudarc::driver::sys::cuMemcpyAsync(
                    dst.plane_ptr(lo),
                    src.plane_ptr(lo),
                    dst.planes_bytes(lo, hi),
                    g.stream.cu_stream(),
                )
            };
            r.result().map_err(|e| Error::Driver {
                call: "cuMemcpyAsync (halo exchange)".into(),
                message: format!(
                    "array `{}`, planes {lo}..{hi} from device {} to device {d}: {}",
                    name,
                    local.start + from,
                    crate::error::describe(e)
                ),
            })?;
        }
    }
    for (from, readers) in read_by.iter().enumerate() {
        for &i in readers {
            wait(parts[from].gpu(), parts[i].gpu(), local.start + from)?;
        }
    }
    Ok(())
}

/// The runs between this rank's GPUs on the halo streams: peer copies on the receiving
/// GPU's halo stream that wait only for their source's and destination's marks (`marks[i]`
/// marks local GPU `i`'s boundary part done); each GPU's next work waits for the copies
/// into its ghost planes and out of its owned ones.
pub(super) fn overlapped(
    parts: &[DeviceArray],
    scheme: &HaloScheme,
    first: usize,
    gpus: &[Arc<Gpu>],
    halos: &mut Halos,
    marks: &[sys::CUevent],
    name: &str,
) -> Result<()> {
    for (i, dst) in parts.iter().enumerate() {
        let d = first + i;
        let sources: Vec<(usize, usize, usize)> = scheme
            .runs_into(d)
            .map(|r| (r.from - first, r.lo, r.hi))
            .collect();
        if sources.is_empty() {
            continue;
        }
        let h = halos.stream(i, &gpus[i], d)?;
        Halos::wait(h, marks[i], d)?;
        let mut from_all: Vec<usize> = sources.iter().map(|r| r.0).collect();
        from_all.dedup();
        for &f in &from_all {
            Halos::wait(h, marks[f], first + f)?;
        }
        for (f, lo, hi) in sources {
            let r = unsafe {
                sys::cuMemcpyAsync(
                    dst.plane_ptr(lo),
                    parts[f].plane_ptr(lo),
                    dst.planes_bytes(lo, hi),
                    h,
                )
            };
            r.result()
                .map_err(|e| driver(name, "cuMemcpyAsync (halo exchange)", lo, hi, d, e))?;
        }
        // the destination's next work reads these ghosts; the sources' next work may
        // overwrite the planes copied
        halos.after(i, h, d)?;
        for f in from_all {
            halos.after(f, h, first + f)?;
        }
    }
    Ok(())
}

/// Runs between ranks staged by copies on each GPU's own stream, after its queued work
/// (the host waits for each).
pub(super) struct Staged<'a> {
    pub parts: &'a [DeviceArray],
    /// The first device of this rank: `parts[i]` is device `first + i`.
    pub first: usize,
}

impl Stager for Staged<'_> {
    fn stage(&mut self, r: &Run, out: &mut [u8]) -> Result<()> {
        let i = r.from - self.first;
        self.parts[i]
            .read_planes_into(out, r.lo, r.hi)
            .map_err(|e| on_device(e, r.from))
    }

    fn unstage(&mut self, r: &Run, got: &mut [u8]) -> Result<()> {
        let i = r.to - self.first;
        self.parts[i]
            .write_planes(got, r.lo, r.hi)
            .map_err(|e| on_device(e, r.to))
    }
}

/// Runs between ranks staged on the halo streams right after a kernel's boundary part:
/// the host waits for the boundary parts (not the interiors) before MPI moves the planes,
/// and each GPU's next work waits for the planes unstaged into it.
pub(super) struct HaloStaged<'a> {
    pub parts: &'a [DeviceArray],
    pub gpus: &'a [Arc<Gpu>],
    pub halos: &'a mut Halos,
    /// `marks[i]` marks local GPU `i`'s boundary part done.
    pub marks: &'a [sys::CUevent],
    /// The first device of this rank: `parts[i]` is device `first + i`.
    pub first: usize,
    pub name: &'a str,
    /// Per local GPU: a run was unstaged into it.
    pub into: Vec<bool>,
}

impl Stager for HaloStaged<'_> {
    fn stage(&mut self, r: &Run, out: &mut [u8]) -> Result<()> {
        let (from, lo, hi) = (r.from, r.lo, r.hi);
        let i = from - self.first;
        let h = self.halos.stream(i, &self.gpus[i], from)?;
        Halos::wait(h, self.marks[i], from)?;
        let rows = self.parts[i].plane_rows_of(out, lo, hi);
        memcpy2d(Direction::ToHost, rows, h).map_err(|e| {
            driver(
                self.name,
                "cuMemcpy2DAsync (halo, device to host)",
                lo,
                hi,
                from,
                e,
            )
        })
    }

    fn staged(&mut self) -> Result<()> {
        self.halos.synchronize(self.gpus, self.first)
    }

    fn unstage(&mut self, r: &Run, got: &mut [u8]) -> Result<()> {
        let (d, lo, hi) = (r.to, r.lo, r.hi);
        let i = d - self.first;
        let h = self.halos.stream(i, &self.gpus[i], d)?;
        if !self.into[i] {
            Halos::wait(h, self.marks[i], d)?;
            self.into[i] = true;
        }
        let rows = self.parts[i].plane_rows_of(got, lo, hi);
        memcpy2d(Direction::ToDevice, rows, h).map_err(|e| {
            driver(
                self.name,
                "cuMemcpy2DAsync (halo, host to device)",
                lo,
                hi,
                d,
                e,
            )
        })
    }

    fn received(&mut self) -> Result<()> {
        for (i, &got) in self.into.iter().enumerate() {
            if got {
                let h = self.halos.stream(i, &self.gpus[i], self.first + i)?;
                self.halos.after(i, h, self.first + i)?;
            }
        }
        Ok(())
    }
}
