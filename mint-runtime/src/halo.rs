//! The halo scheme of a distributed array: *what* its halo exchange moves. Each device
//! refreshes its ghost planes from the devices that own them; the scheme lists those runs
//! of planes, derived once from the array's slabs ([`Slabs::ghost_sources`]) when the
//! array is first placed on the devices, and split by where their ends are: both on this
//! rank, or one on this rank and one on another. *How* the runs move is the transports'
//! part (`crate::transport`: memcpy between emulated devices, peer copies between GPUs,
//! MPI through page-locked staging between ranks, NCCL).
//!
//! Device numbers are global: over all ranks, rank `r` holding devices `r × n .. (r + 1)
//! × n` when each holds `n` ([`crate::ranks`]).

use crate::decomp::Slabs;
use std::ops::Range;

/// A run of ghost planes `lo..hi` (along the slowest axis) that device `to` receives from
/// device `from`, which owns them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub to: usize,
    pub from: usize,
    pub lo: usize,
    pub hi: usize,
}

impl Run {
    /// The number of planes the run moves.
    pub fn planes(&self) -> usize {
        self.hi - self.lo
    }
}

/// The runs of one array's halo exchange that have an end on this rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HaloScheme {
    /// Every run with an end on this rank, in the order every rank lists them: by
    /// receiving device, then as [`Slabs::ghost_sources`] lists the device's sources.
    runs: Vec<Run>,
    /// The runs between two of this rank's devices, in `runs` order.
    within: Vec<Run>,
    /// The runs between one of this rank's devices and another rank's, in `runs` order:
    /// every rank lists the runs it shares with another in the same order, so that their
    /// MPI messages match.
    between: Vec<Run>,
}

impl HaloScheme {
    /// The scheme of an array split into `slabs` over `devices` devices (over all ranks),
    /// of which this rank holds `local`.
    pub fn new(slabs: &Slabs, devices: usize, local: &Range<usize>) -> HaloScheme {
        let per_rank = local.len();
        let runs: Vec<Run> = (0..devices)
            .flat_map(|d| {
                slabs
                    .ghost_sources(d)
                    .into_iter()
                    .map(move |(from, lo, hi)| Run {
                        to: d,
                        from,
                        lo,
                        hi,
                    })
            })
            .filter(|r| local.contains(&r.to) || local.contains(&r.from))
            .collect();
        let (between, within) = runs
            .iter()
            .partition(|r| rank_of(r.to, per_rank) != rank_of(r.from, per_rank));
        HaloScheme {
            runs,
            within,
            between,
        }
    }

    /// Every run with an end on this rank, in one global order (what NCCL's group lists).
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The runs between two of this rank's devices, by receiving device.
    pub fn within(&self) -> &[Run] {
        &self.within
    }

    /// The runs device `d` of this rank receives from this rank's devices, in order.
    pub fn runs_into(&self, d: usize) -> impl Iterator<Item = &Run> {
        self.within.iter().filter(move |r| r.to == d)
    }

    /// The runs between this rank's devices and other ranks', in the order every rank
    /// lists them.
    pub fn between(&self) -> &[Run] {
        &self.between
    }
}

/// The rank that holds device `d` when each rank holds `per_rank` devices.
pub(crate) fn rank_of(d: usize, per_rank: usize) -> usize {
    d / per_rank.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &Slabs) -> Vec<Run> {
        HaloScheme::new(s, s.devices(), &(0..s.devices())).runs
    }

    #[test]
    fn one_rank_has_every_run_within() {
        let s = Slabs::new(10, 3, 1);
        let h = HaloScheme::new(&s, 3, &(0..3));
        assert!(h.between().is_empty());
        assert_eq!(h.within(), h.runs());
        // device 1 (planes 4..7) receives plane 3 from device 0 and plane 7 from device 2
        let into1: Vec<Run> = h.runs_into(1).copied().collect();
        assert_eq!(
            into1,
            [
                Run {
                    to: 1,
                    from: 0,
                    lo: 3,
                    hi: 4
                },
                Run {
                    to: 1,
                    from: 2,
                    lo: 7,
                    hi: 8
                }
            ]
        );
    }

    #[test]
    fn runs_split_by_where_their_ends_are() {
        for s in [Slabs::new(23, 6, 2), Slabs::ring(23, 6, 2)] {
            let every = all(&s);
            for per_rank in [1, 2, 3] {
                for rank in 0..6 / per_rank {
                    let local = rank * per_rank..(rank + 1) * per_rank;
                    let h = HaloScheme::new(&s, 6, &local);
                    let here = |d: usize| local.contains(&d);
                    let mine: Vec<Run> = every
                        .iter()
                        .copied()
                        .filter(|r| here(r.to) || here(r.from))
                        .collect();
                    assert_eq!(h.runs(), mine);
                    assert!(h.within().iter().all(|r| here(r.to) && here(r.from)));
                    assert!(h.between().iter().all(|r| here(r.to) != here(r.from)));
                    assert_eq!(h.within().len() + h.between().len(), mine.len());
                }
            }
        }
    }

    #[test]
    fn two_ranks_list_the_runs_they_share_in_one_order() {
        let s = Slabs::ring(40, 8, 3);
        let per_rank = 2;
        let scheme = |r: usize| HaloScheme::new(&s, 8, &(r * per_rank..(r + 1) * per_rank));
        for a in 0..4 {
            for b in 0..4 {
                if a == b {
                    continue;
                }
                let shared = |r: usize| -> Vec<Run> {
                    scheme(r)
                        .between()
                        .iter()
                        .copied()
                        .filter(|x| {
                            let ranks = [rank_of(x.to, per_rank), rank_of(x.from, per_rank)];
                            ranks.contains(&a) && ranks.contains(&b)
                        })
                        .collect()
                };
                assert_eq!(shared(a), shared(b));
            }
        }
    }
}
