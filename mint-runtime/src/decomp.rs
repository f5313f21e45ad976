//! Domain decomposition of a region over several devices (issue #12): slabs along the
//! slowest axis, ghost widths from the stencil analyzer, and how each kernel runs on a
//! slab.
//!
//! The rules, which `README.md` ("Several devices") states for users:
//!
//! - The region's **rank** R is the largest number of subscripts of any array reference
//!   in its kernels. Arrays of rank R (R ≥ 2) whose slowest extent is the region's are
//!   **distributed**: split into contiguous **slabs** of planes along that axis (z for
//!   3-D, y for 2-D), one per device, the first `extent % devices` devices holding one
//!   plane more. Every other array is **replicated** on every device.
//! - Each slab carries **ghost planes** on both sides, as many as the widest reach of any
//!   kernel of the region along the slowest axis ([`region_ghost`], from
//!   [`mint_translator::analyzer::slabs`]).
//! - A kernel whose outermost parallel index is the slowest subscript of its distributed
//!   references (`u[[z + c, y, x]]`) is **split**: each device runs the iterations whose
//!   writes land in the planes it owns ([`Mode::Split`]).
//! - Any other kernel that touches a distributed array runs under **owner-computes**
//!   ([`Mode::Owner`]): every device runs every iteration and writes only the planes it
//!   owns, from what it holds. A statement that reads a plane its device does not hold
//!   has no effect there (another device writes what it would have written); if it would
//!   write a plane its device owns, that is an error ([`crate::Error::OutsideSlab`]).
//!   Statements that use a value an earlier statement of the iteration computed inherit
//!   that statement's state. An iteration's `reduction` contribution counts on the device
//!   that owns the plane of its first distributed reference.
//! - A kernel that touches no distributed array runs on every device alike
//!   ([`Mode::Everywhere`]), which keeps the replicas equal.
//! - The reaches come from [`mint_translator::analyzer::reach`]: a clamped face
//!   (`if z == 0 { z } else { z - 1 }`) needs the ghost planes of its interior reach and
//!   nothing more; a periodic wrap (`(z + 1) % nz`) makes the array's slabs a **ring**
//!   ([`Slabs::ring`]): the first and last devices exchange ghost planes too. A split
//!   kernel that reads a distributed array at a plane no reach bounds is refused
//!   ([`Refusal`]), never run on trust.

use mint_translator::analyzer::slabs::{SlabRef, Slow};
use mint_translator::ir::Kernel;

/// Slabs of one extent over `devices` devices with `ghost` ghost planes on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slabs {
    /// Planes along the slowest axis.
    pub extent: usize,
    /// Ghost planes on each side of a slab.
    pub ghost: usize,
    /// `[lo, hi)` of the planes each device owns, in device order; they tile `0..extent`.
    pub owned: Vec<(usize, usize)>,
    /// A ring: the ghost planes wrap around the extent's ends (a kernel reads the array
    /// periodically, `(z + 1) % nz`), so the first and last devices exchange halos. Each
    /// device then stores the whole extent (its storage is addressed by global plane, as
    /// the kernels' wrapped subscripts are), of which only the owned and ghost planes are
    /// current ([`Slabs::valid`]).
    pub ring: bool,
}

impl Slabs {
    /// Splits `extent` planes over `devices` devices: the first `extent % devices` devices
    /// own one plane more than the others.
    pub fn new(extent: usize, devices: usize, ghost: usize) -> Slabs {
        let devices = devices.max(1);
        let (base, rem) = (extent / devices, extent % devices);
        let mut lo = 0;
        let owned = (0..devices)
            .map(|d| {
                let n = base + usize::from(d < rem);
                let r = (lo, lo + n);
                lo += n;
                r
            })
            .collect();
        Slabs {
            extent,
            ghost,
            owned,
            ring: false,
        }
    }

    /// [`Slabs::new`] as a ring ([`Slabs::ring`]).
    pub fn ring(extent: usize, devices: usize, ghost: usize) -> Slabs {
        Slabs {
            ring: true,
            ..Slabs::new(extent, devices, ghost)
        }
    }

    pub fn devices(&self) -> usize {
        self.owned.len()
    }

    /// `[lo, hi)` of the planes devices `devices` own together (consecutive devices own
    /// consecutive planes): a rank's planes across MPI ranks ([`crate::ranks`]).
    pub fn owned_span(&self, devices: std::ops::Range<usize>) -> (usize, usize) {
        (self.owned[devices.start].0, self.owned[devices.end - 1].1)
    }

    /// `[lo, hi)` of the planes device `d` stores: the planes it owns and its ghost
    /// planes, within `0..extent`; for a ring, the whole extent.
    pub fn held(&self, d: usize) -> (usize, usize) {
        if self.ring {
            return (0, self.extent);
        }
        let (lo, hi) = self.owned[d];
        (
            lo.saturating_sub(self.ghost),
            (hi + self.ghost).min(self.extent),
        )
    }

    /// The runs `[lo, hi)` of planes device `d` has current: its owned and ghost planes
    /// ([`Slabs::held`], except that a ring's ghost planes wrap around the ends).
    pub fn valid(&self, d: usize) -> Vec<(usize, usize)> {
        if !self.ring {
            return vec![self.held(d)];
        }
        let mut planes: Vec<usize> = self.ring_planes(d).collect();
        planes.sort_unstable();
        planes.dedup();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for p in planes {
            match runs.last_mut() {
                Some(r) if r.1 == p => r.1 = p + 1,
                _ => runs.push((p, p + 1)),
            }
        }
        runs
    }

    /// A ring's planes of device `d`: its ghost planes below, its own, its ghost planes
    /// above, each taken modulo the extent.
    fn ring_planes(&self, d: usize) -> impl Iterator<Item = usize> + '_ {
        let (lo, hi) = self.owned[d];
        let n = self.extent as i64;
        let g = (self.ghost as i64).min(n);
        (lo as i64 - g..hi as i64 + g).map(move |p| p.rem_euclid(n.max(1)) as usize)
    }

    /// The device that owns plane `p` (`p < extent`).
    pub fn owner(&self, p: usize) -> usize {
        self.owned
            .iter()
            .position(|&(lo, hi)| lo <= p && p < hi)
            .unwrap_or(self.owned.len() - 1)
    }

    /// The runs of ghost planes device `d` refreshes from their owners: `(from, lo, hi)`.
    pub fn ghost_sources(&self, d: usize) -> Vec<(usize, usize, usize)> {
        let (own_lo, own_hi) = self.owned[d];
        let (held_lo, held_hi) = self.held(d);
        let ghosts: Vec<usize> = if self.ring {
            // below, then above, each once, never the device's own planes
            let mut seen = std::collections::BTreeSet::new();
            self.ring_planes(d)
                .filter(|&p| !(own_lo..own_hi).contains(&p) && seen.insert(p))
                .collect()
        } else {
            (held_lo..own_lo).chain(own_hi..held_hi).collect()
        };
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        for p in ghosts {
            let from = self.owner(p);
            match runs.last_mut() {
                Some(r) if r.0 == from && r.2 == p => r.2 = p + 1,
                _ => runs.push((from, p, p + 1)),
            }
        }
        runs
    }
}

/// How a kernel runs on a region split over several devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The outermost parallel loop is clipped on each device to `[lo - clip, hi - clip)`
    /// of the planes `[lo, hi)` it owns, so that its writes `a[[z + clip, ..]]` land in
    /// owned planes.
    Split { clip: i64 },
    /// Owner-computes: every device runs every iteration; an iteration takes effect only
    /// on the device owning the plane of its first distributed reference.
    Owner,
    /// No distributed array: every device runs the whole kernel.
    Everywhere,
}

/// How one kernel runs on a split region, given which of its arrays are distributed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelPlan {
    pub mode: Mode,
    /// Per kernel array: the kernel reads it beyond the planes an iteration owns, so its
    /// ghost planes must be current before the kernel runs.
    pub reads_ghosts: Vec<bool>,
    /// Per kernel array: the kernel writes it.
    pub writes: Vec<bool>,
    /// Why a kernel that touches distributed arrays runs owner-computes.
    pub why: Option<String>,
    /// Per kernel array: the scalar a split kernel's periodic wrap takes the slowest
    /// subscript modulo (`nz` of `(z + 1) % nz`), which must be the array's extent.
    pub wraps: Vec<Option<String>>,
}

/// Why a kernel cannot run split: it reads a distributed array at planes that no ghost
/// width bounds. The region stops at the kernel's first launch with this, rather than
/// run a split it cannot justify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub array: String,
    /// The slowest subscript as written.
    pub subscript: String,
    pub why: String,
}

/// How a kernel whose distributed references are `dist` runs: `Some(clip)` when it can
/// be split (some reference follows the outermost parallel index, and every write to a
/// distributed array is at that index plus one constant `clip`), or why not.
fn split_clip(dist: &[&SlabRef]) -> std::result::Result<i64, String> {
    if !dist
        .iter()
        .any(|r| matches!(r.slow, Slow::Outer { .. } | Slow::Wrap { .. }))
    {
        return Err(
            "no reference to a distributed array follows its outermost parallel index".into(),
        );
    }
    let mut clip = None;
    for r in dist.iter().filter(|r| r.write) {
        match (&r.slow, clip) {
            (Slow::Outer { lo, hi }, None) if lo == hi => clip = Some(*lo),
            (Slow::Outer { lo, hi }, Some(k)) if lo == hi && *lo == k => {}
            (Slow::Outer { lo, hi }, Some(k)) if lo == hi => {
                return Err(format!(
                    "it writes distributed arrays at two offsets from its outermost parallel index ({k:+} and {lo:+})"
                ));
            }
            _ => {
                return Err(format!(
                    "it writes `{}` at planes that do not follow its outermost parallel index",
                    r.array
                ));
            }
        }
    }
    Ok(clip.unwrap_or(0))
}

/// The ghost width a region's slabs need: the widest reach along the slowest axis of any
/// of its kernels, taking the arrays with `rank` subscripts as distributed.
///
/// A split kernel that writes `a[[z + c, ..]]` and reads `b[[z + r, ..]]` reaches
/// `|r - c|` (for every `r` a serial loop of constant bounds gives). An owner-computes
/// kernel whose first distributed reference is `a[[e + c0, ..]]` and which also
/// references `b[[e + c1, ..]]` (the same base `e`) reaches `|c1 - c0|`: the neighbours
/// of a receiver's interpolation, for example. References whose distance cannot be
/// known are checked at run time.
pub fn region_ghost(kernels: &[Vec<SlabRef>], rank: u8) -> usize {
    let mut g = 0i64;
    for refs in kernels {
        let dist: Vec<&SlabRef> = refs.iter().filter(|r| r.subscripts == rank).collect();
        if dist.is_empty() {
            continue;
        }
        match split_clip(&dist) {
            Ok(clip) => {
                for r in &dist {
                    if let Slow::Outer { lo, hi } | Slow::Wrap { lo, hi, .. } = r.slow
                        && !r.write
                    {
                        g = g.max((lo - clip).abs()).max((hi - clip).abs());
                    }
                }
            }
            Err(_) => {
                // Writes follow the outer index: each written plane needs what its
                // statement reads, as far as the farthest read from the write.
                let outer = |w: bool| {
                    dist.iter()
                        .filter(move |r| r.write == w)
                        .filter_map(|r| match r.slow {
                            Slow::Outer { lo, hi } => Some((lo, hi)),
                            Slow::Wrap { .. } | Slow::Other { .. } => None,
                        })
                };
                for (wl, wh) in outer(true) {
                    for (rl, rh) in outer(false) {
                        g = g.max((rl - wh).abs()).max((rh - wl).abs());
                    }
                }
                for r in &dist[1..] {
                    match (&dist[0].slow, &r.slow) {
                        (Slow::Other { base, offset }, Slow::Other { base: b, offset: o })
                            if b == base =>
                        {
                            g = g.max((o - offset).abs());
                        }
                        (Slow::Outer { lo: l0, hi: h0 }, Slow::Outer { lo, hi }) => {
                            g = g.max((lo - h0).abs()).max((hi - l0).abs());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    g as usize
}

/// Plans `kernel` (device functions inlined) on a split region. `distributed[i]` says
/// whether the kernel's array `i` is distributed.
///
/// # Errors
/// A [`Refusal`] when the kernel would run split but reads a distributed array at a plane
/// that no ghost width bounds (a constant plane, a subscript the analysis cannot bound).
pub fn plan_kernel(
    kernel: &Kernel,
    refs: &[SlabRef],
    distributed: &[bool],
) -> std::result::Result<KernelPlan, Refusal> {
    let is_dist = |name: &str| {
        kernel
            .array_index(name)
            .is_some_and(|i| distributed.get(i).copied().unwrap_or(false))
    };
    let dist: Vec<&SlabRef> = refs.iter().filter(|r| is_dist(&r.array)).collect();
    let n = kernel.arrays.len();
    let mut reads_ghosts = vec![false; n];
    let mut wraps = vec![None; n];
    let writes: Vec<bool> = kernel.arrays.iter().map(|a| a.written).collect();
    let mut why = None;
    let mode = if dist.is_empty() {
        Mode::Everywhere
    } else {
        match split_clip(&dist) {
            Ok(clip) => {
                for r in dist.iter().filter(|r| !r.write) {
                    let i = kernel.array_index(&r.array).expect("a kernel array");
                    match &r.slow {
                        Slow::Outer { lo, hi } => reads_ghosts[i] |= *lo != clip || *hi != clip,
                        Slow::Wrap { modulus, .. } => {
                            reads_ghosts[i] = true;
                            wraps[i] = Some(modulus.clone());
                        }
                        Slow::Other { .. } => return Err(refusal(r)),
                    }
                }
                Mode::Split { clip }
            }
            Err(w) => {
                for r in dist.iter().filter(|r| !r.write) {
                    if let Some(i) = kernel.array_index(&r.array) {
                        reads_ghosts[i] = true;
                    }
                }
                why = Some(w);
                Mode::Owner
            }
        }
    };
    Ok(KernelPlan {
        mode,
        reads_ghosts,
        writes,
        why,
        wraps,
    })
}

/// Why the read `r` of a distributed array stops a split kernel.
fn refusal(r: &SlabRef) -> Refusal {
    use mint_translator::analyzer::reach::Reach;
    let why = match &r.reach {
        Reach::Unbounded(w) => format!("no ghost width bounds the planes it reads: {w}"),
        Reach::Abs { lo, hi } if lo == hi => format!(
            "it reads plane {lo} from every iteration, which only the devices holding that plane have"
        ),
        Reach::Abs { lo, hi } => format!(
            "it reads planes {lo}..={hi} from every iteration, which only the devices holding them have"
        ),
        Reach::Rel { var, .. } => format!("it follows `{var}`, not the loop index the slabs split"),
        Reach::Never => "it reads no plane".into(),
    };
    Refusal {
        array: r.array.clone(),
        subscript: r.text.clone(),
        why,
    }
}

/// The half-open range of the outermost parallel loop `[lo, hi)` that device `d` runs
/// under `clip`: the iterations whose writes land in the planes `owned` it owns.
pub fn clip_range(lo: i64, hi: i64, owned: (usize, usize), clip: i64) -> (i64, i64) {
    let a = lo.max(owned.0 as i64 - clip);
    let b = hi.min(owned.1 as i64 - clip);
    if b <= a { (a, a) } else { (a, b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mint_testing::kernel;
    use mint_translator::analyzer::slabs::slab_refs;

    #[test]
    fn slabs_tile_the_extent_with_the_remainder_first() {
        let s = Slabs::new(10, 3, 2);
        assert_eq!(s.owned, vec![(0, 4), (4, 7), (7, 10)]);
        assert_eq!(s.held(0), (0, 6));
        assert_eq!(s.held(1), (2, 9));
        assert_eq!(s.held(2), (5, 10));
        assert_eq!(
            (0..10).map(|p| s.owner(p)).collect::<Vec<_>>(),
            vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        );
        assert_eq!(s.ghost_sources(1), vec![(0, 2, 4), (2, 7, 9)]);
        // A slab thinner than the ghost width takes its ghosts from several devices.
        let t = Slabs::new(5, 4, 2);
        assert_eq!(t.owned, vec![(0, 2), (2, 3), (3, 4), (4, 5)]);
        assert_eq!(t.ghost_sources(2), vec![(0, 1, 2), (1, 2, 3), (3, 4, 5)]);
    }

    #[test]
    fn a_seven_point_stencil_is_split_with_one_ghost_plane() {
        let k = kernel(
            "h_0",
            "arrays: u f64 3, v f64 3
             nest: z 1..n, y 1..n, x 1..n
             v[z][y][x] = u[z-1][y][x] + u[z+1][y][x] + u[z][y][x];",
        );
        let refs = slab_refs(&k);
        assert_eq!(region_ghost(std::slice::from_ref(&refs), 3), 1);
        let p = plan_kernel(&k, &refs, &[true, true]).unwrap();
        assert_eq!(p.mode, Mode::Split { clip: 0 });
        assert_eq!(p.reads_ghosts, vec![true, false]);
        // Replicated arrays only: every device runs it.
        let p = plan_kernel(&k, &refs, &[false, false]).unwrap();
        assert_eq!(p.mode, Mode::Everywhere);
    }

    #[test]
    fn writes_at_an_offset_clip_the_loop_and_shift_the_reach() {
        let k = kernel(
            "s_0",
            "arrays: u f64 3
             nest: z 0..n, y 0..n, x 0..n
             u[z+1][y][x] = u[z][y][x];",
        );
        let refs = slab_refs(&k);
        assert_eq!(region_ghost(std::slice::from_ref(&refs), 3), 1);
        let p = plan_kernel(&k, &refs, &[true]).unwrap();
        assert_eq!(p.mode, Mode::Split { clip: 1 });
        assert_eq!(clip_range(0, 9, (4, 7), 1), (3, 6));
        assert_eq!(clip_range(0, 2, (4, 7), 1), (3, 3), "empty");
        let two = kernel(
            "s_1",
            "arrays: u f64 3
             nest: z 0..n, y 0..n, x 0..n
             u[z+1][y][x] = 1.0;
             u[z][y][x] = 2.0;",
        );
        let p = plan_kernel(&two, &slab_refs(&two), &[true]).unwrap();
        assert_eq!(p.mode, Mode::Owner);
        assert!(p.why.unwrap().contains("two offsets"));
    }

    #[test]
    fn indirect_references_run_owner_computes_and_reach_their_neighbours() {
        let k = kernel(
            "r_0",
            "arrays: u f64 3, s i64 1, out f64 1
             nest: i 0..n
             let k = s[i] as usize;
             out[i] = u[k][0][0] + u[k + 1][0][0];",
        );
        let refs = slab_refs(&k);
        assert_eq!(region_ghost(std::slice::from_ref(&refs), 3), 1);
        let p = plan_kernel(&k, &refs, &[true, false, false]).unwrap();
        assert_eq!(p.mode, Mode::Owner);
        assert_eq!(p.reads_ghosts, vec![true, false, false]);
    }
}
