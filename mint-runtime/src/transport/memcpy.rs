//! Emulated devices (`cpu:N`): every device's planes are host memory, so runs move by
//! memcpy, between this rank's devices and to and from the MPI buffer.

use super::mpi::Stager;
use crate::decomp::Slabs;
use crate::error::Result;
use crate::halo::{HaloScheme, Run};
use crate::parts::{bytes, bytes_mut};

/// Copies every run between this rank's devices (`parts[i]` is device `first + i`'s
/// planes, from its first held plane; `pb` bytes per plane).
pub(super) fn within(
    parts: &mut [Vec<u64>],
    slabs: &Slabs,
    scheme: &HaloScheme,
    first: usize,
    pb: usize,
) {
    for r in scheme.within() {
        let (i, from) = (r.to - first, r.from - first);
        let (lo, hi) = (r.lo, r.hi);
        let dst_lo = slabs.held(r.to).0;
        let src_lo = slabs.held(r.from).0;
        let src = bytes(&parts[from])[(lo - src_lo) * pb..(hi - src_lo) * pb].to_vec();
        bytes_mut(&mut parts[i])[(lo - dst_lo) * pb..(hi - dst_lo) * pb].copy_from_slice(&src);
    }
}

/// Runs between ranks staged by memcpy from and into the emulated devices' planes.
pub(super) struct Staged<'a> {
    pub parts: &'a mut [Vec<u64>],
    pub slabs: &'a Slabs,
    /// The first device of this rank: `parts[i]` is device `first + i`.
    pub first: usize,
    pub pb: usize,
}

impl Stager for Staged<'_> {
    fn stage(&mut self, r: &Run, out: &mut [u8]) -> Result<()> {
        let (i, pb) = (r.from - self.first, self.pb);
        let h = self.slabs.held(r.from).0;
        out.copy_from_slice(&bytes(&self.parts[i])[(r.lo - h) * pb..(r.hi - h) * pb]);
        Ok(())
    }

    fn unstage(&mut self, r: &Run, got: &mut [u8]) -> Result<()> {
        let (i, pb) = (r.to - self.first, self.pb);
        let h = self.slabs.held(r.to).0;
        bytes_mut(&mut self.parts[i])[(r.lo - h) * pb..(r.hi - h) * pb].copy_from_slice(got);
        Ok(())
    }
}
