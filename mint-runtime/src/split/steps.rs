//! Blocked time loops whose step is several kernels (issue #45, item 4), on several devices:
//! `k` steps between two halo exchanges.
//!
//! A step of kernels `K_1 … K_m` (a leapfrog's velocity and stress updates, a chain of
//! filters) reaching `r_1 … r_m` planes along the slowest axis reaches `R = r_1 + … + r_m`
//! planes per step. The region's slabs then hold `k × R` ghost planes
//! ([`super::Layout`]), and a block of `k` steps refreshes every array it touches once, at
//! the first launch of the block that reads or writes it, unless the block wrote it before
//! (`SplitArray::block`): every plane the device holds is then current. Each launch
//! computes its own planes widened by the reach of everything after it in the block:
//! kernel `K_i` at step `j` of a block of `n ≤ k` steps on `(n − j) × R + r_{i+1} + … + r_m`
//! more planes on each side (within the planes the device holds and the loop's range).
//! A plane a launch reads is then one its device held current when the block first touched
//! the array, or one an earlier launch of the block computed over a width at least the
//! reader's widening plus its reach; the planes no launch writes (outside the loops'
//! ranges) keep what the refresh gave them. The owned planes after each step are exactly
//! one device's, bit for bit; seed `002_c2277fb7a2a128f7.txt` Sec. 3.2.1 (overlapped
//! tiling) applied to the slabs, as `deep` applies it to one kernel's fused steps.
//!
//! The block runs step by step instead, and `MINT_REPORT=1` says why, where a kernel of the
//! step runs owner-computes, an array's slabs are a ring, a kernel of the step reads a
//! replicated array that a kernel of the region writes (a split kernel writes only its
//! own entries of it on each device, which a widened launch would read past), the region
//! is streamed, the slabs hold fewer ghost planes, or `MINT_CHECK=1` checks reads on
//! GPUs.

use super::{Split, SplitArray, region_kernels};
use crate::decomp::{self, Mode};
use crate::site::{KernelSite, RegionInfo};

/// A block of steps in progress.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// The block's number within the region: the arrays a launch of the block writes carry
    /// it ([`SplitArray::block`]).
    pub id: u64,
    /// The steps of the block after the current one.
    pub after: usize,
    /// The step's kernels in order: each site's address and its reach along the slowest
    /// axis, in planes.
    pub kernels: Vec<(usize, usize)>,
}

impl Block {
    /// The planes `site`'s launch widens its own by on each side: the reach of every
    /// launch after it in the block (0 for a kernel not of the step).
    pub(crate) fn widen(&self, site: &KernelSite) -> usize {
        self.widen_at(site as *const KernelSite as usize)
    }

    /// [`Block::widen`] of the site at address `key`.
    fn widen_at(&self, key: usize) -> usize {
        let Some(i) = self.kernels.iter().position(|k| k.0 == key) else {
            return 0;
        };
        let per_step: usize = self.kernels.iter().map(|k| k.1).sum();
        let later: usize = self.kernels[i + 1..].iter().map(|k| k.1).sum();
        self.after * per_step + later
    }
}

/// The kernels of `info`'s time loop `group`, in their order within the step.
pub(crate) fn group_sites(info: &'static RegionInfo, group: u32) -> Vec<&'static KernelSite> {
    let mut v: Vec<_> = region_kernels(info)
        .into_iter()
        .filter(|s| s.time_group == group)
        .collect();
    v.sort_by_key(|s| s.time_order);
    v.dedup_by_key(|s| *s as *const KernelSite);
    v
}

impl Split {
    /// The kernels of a step, in order, each with its reach along the slowest axis, where
    /// `depth` steps of them can run between two halo exchanges; `Err(why)` otherwise.
    pub(crate) fn step_kernels(
        &self,
        sites: &[&'static KernelSite],
        depth: usize,
    ) -> std::result::Result<Vec<(usize, usize)>, String> {
        if sites.is_empty() {
            return Err("the loop's kernels are not registered".into());
        }
        let mut kernels = Vec::with_capacity(sites.len());
        for site in sites {
            let kernel = site.inlined().map_err(|e| e.to_string())?;
            let refs = site.slab_refs().map_err(|e| e.to_string())?;
            let mut dist = Vec::with_capacity(site.slots.len());
            for (i, &slot) in site.slots.iter().enumerate() {
                let Some(a) = self.slots.get(slot).and_then(|a| a.as_ref()) else {
                    return Err(format!(
                        "kernel {}'s array `{}` is not on the devices",
                        site.name,
                        kernel.arrays.get(i).map_or("?", |a| a.name.as_str())
                    ));
                };
                if a.slabs.as_ref().is_some_and(|s| s.ring) {
                    return Err(format!(
                        "the slabs of `{}` are a ring (a periodic wrap)",
                        a.name
                    ));
                }
                let read = kernel.arrays.get(i).is_some_and(|k| k.read);
                if a.slabs.is_none() && read && self.written_by_region(slot) {
                    return Err(format!(
                        "kernel {} reads `{}`, a replicated array the region writes: a split kernel writes only its own entries of it on each device, and a widened step would read the others",
                        site.name, a.name
                    ));
                }
                dist.push(a.slabs.is_some());
            }
            let plan = decomp::plan_kernel(kernel, refs, &dist)
                .map_err(|r| format!("kernel {} does not split: {}", site.name, r.why))?;
            if plan.mode == Mode::Owner {
                return Err(format!(
                    "kernel {} runs owner-computes, writing only its own planes",
                    site.name
                ));
            }
            let reach = decomp::region_ghost(std::slice::from_ref(refs), self.layout.rank);
            kernels.push((*site as *const KernelSite as usize, reach));
        }
        self.block_allowed(depth, kernels.iter().map(|k| k.1).sum())?;
        Ok(kernels)
    }

    /// Whether a kernel of the region writes the array of `slot` or of a slot it swaps
    /// places with.
    fn written_by_region(&self, slot: usize) -> bool {
        let mut slots = vec![slot];
        for &(a, b) in self.info.swaps {
            if a == slot {
                slots.push(b);
            }
            if b == slot {
                slots.push(a);
            }
        }
        region_kernels(self.info).iter().any(|s| {
            s.kernel().is_ok_and(|k| {
                s.slots
                    .iter()
                    .enumerate()
                    .any(|(j, sl)| slots.contains(sl) && k.arrays.get(j).is_some_and(|a| a.written))
            })
        })
    }

    /// Starts a block of `steps` steps of `kernels` ([`Split::step_kernels`]), or ends the
    /// block in progress (`None`).
    pub(crate) fn set_block(&mut self, block: Option<(usize, Vec<(usize, usize)>)>) {
        self.block = block.map(|(steps, kernels)| {
            self.blocks += 1;
            Block {
                id: self.blocks,
                after: steps.saturating_sub(1),
                kernels,
            }
        });
    }

    /// The block in progress moves to its next step.
    pub(crate) fn next_step(&mut self) {
        if let Some(b) = &mut self.block {
            b.after = b.after.saturating_sub(1);
        }
    }

    /// Whether the block in progress wrote `a`: its held planes were current when the
    /// block first wrote it ([`Split::prepare`] refreshed them then), and the block's
    /// launches computed the planes its later launches read; a refresh now would bring
    /// back the owners' values only within the writer's widening, and older ones beyond.
    pub(crate) fn written_in_block(&self, a: &SplitArray) -> bool {
        self.block.as_ref().is_some_and(|b| a.block == b.id)
    }

    /// Device `d`'s planes for a launch of `site` running `mode` over `owned`: widened for
    /// the block in progress, within the planes the device holds.
    pub(crate) fn widened(
        &self,
        site: &KernelSite,
        mode: Mode,
        owned: (usize, usize),
        d: usize,
    ) -> (usize, usize) {
        let w = match (&self.block, mode) {
            (Some(b), Mode::Split { .. }) => b.widen(site),
            _ => 0,
        };
        match self.slabs().filter(|_| w > 0) {
            Some(s) => {
                let held = s.held(d);
                (
                    owned.0.saturating_sub(w).max(held.0),
                    (owned.1 + w).min(held.1),
                )
            }
            None => owned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Block;

    #[test]
    fn a_launch_widens_by_the_reach_of_every_later_launch_of_the_block() {
        let (a, b, c) = (1usize, 2usize, 3usize);
        let block = |after| Block {
            id: 1,
            after,
            kernels: vec![(a, 1), (b, 2), (c, 0)],
        };
        // the last step: the kernels after each in the step
        assert_eq!(block(0).widen_at(a), 2);
        assert_eq!(block(0).widen_at(b), 0);
        assert_eq!(block(0).widen_at(c), 0);
        // two steps after: twice the step's reach more
        assert_eq!(block(2).widen_at(a), 2 * 3 + 2);
        assert_eq!(block(2).widen_at(c), 2 * 3);
        // a kernel not of the step
        assert_eq!(block(2).widen_at(4), 0);
    }
}
