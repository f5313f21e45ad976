//! A region's arrays on several emulated devices (`MINT_DEVICE=cpu:N`): each device's
//! slabs and replicas in its own host memory, scatter at `copy!(x, to_device)`, gather
//! and the merge of replicas at `copy!(x, from_device)`.
//!
//! The same on several GPUs (`MINT_DEVICE=cuda:0,1`): each GPU's slabs and replicas are
//! [`DeviceArray`]s holding only their planes, indexed with global indices; transfers go
//! plane range by plane range, and launches are clipped (split kernels) or lowered for
//! owner-computes ([`mint_translator::owner`]).
//!
//! The decomposition itself (which arrays are distributed, slabs, ghost widths, how each
//! kernel runs) is [`crate::decomp`]'s. This module decides when an array's halos move (a
//! kernel reads its stale ghost planes; right after a split kernel writes an array read
//! off-slab); what moves is the array's halo scheme ([`crate::halo`]), and how, the
//! transports' ([`crate::transport`]).

use crate::array::DeviceArray;
use crate::cpu::{CpuDev, DevSplit, PartView, SlabFault, SlabInfo};
use crate::decomp::{self, KernelPlan, Mode, Slabs};
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::exec::{LaunchCtx, OwnerArgs};
use crate::halo::HaloScheme;
use crate::host::ScalarValue;
use crate::host::{Element, RawArray, Reducible};
use crate::parts::{Parts, bytes, bytes_mut, on_device};
use crate::site::{KernelSite, LaunchArgs, RegionInfo};
use crate::transport::{self, Devices, Exchange, Strategy};
use cudarc::driver::sys;
use mint_translator::analyzer::slabs::{SlabRef, Slow};
use mint_translator::ir::{RedOp, ScalarTy};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

mod deep;
pub(crate) mod steps;

/// Planes a GPU slab's allocation extends beyond its ghost planes on each side. The
/// on-chip optimizer's sliding windows prefetch the next step's plane one step ahead
/// (`optimizer/chunk.rs`, `optimizer/vector.rs`), guarded by the array's extent rather
/// than the loop's bounds, so a clipped launch may load one plane past the planes its
/// device holds. Those loads never feed a result; the planes are allocated so that they
/// stay inside the allocation, are filled by `copy!(x, to_device)` and never exchanged.
pub(crate) const PREFETCH_PLANES: usize = 1;

/// One array of a split region.
pub(crate) struct SplitArray {
    pub name: &'static str,
    pub elem: ScalarTy,
    /// `[z, y, x]`, padded to three axes.
    pub shape: [usize; 3],
    pub ndim: usize,
    /// The slabs of a distributed array; `None` for a replicated one.
    pub slabs: Option<Slabs>,
    /// What the array's halo exchange moves, derived from its slabs when it is placed.
    pub halo: Option<HaloScheme>,
    /// Each device's storage: the planes it holds, or the whole array.
    pub parts: Parts,
    /// A kernel wrote the array since its ghost planes were last refreshed.
    pub stale: bool,
    /// Which launches wrote it since then ([`Writers`]): a blocked loop's block skips
    /// refreshing its output's ghost planes when only the loop's own steps wrote it.
    pub writers: Writers,
    /// For a replicated array: its bytes as last copied to the devices, which the merge
    /// at `copy!(.., from_device)` compares each device's copy with.
    pub snapshot: Vec<u8>,
    /// Page-locked staging of the halo runs this rank sends to and receives from other
    /// MPI ranks' GPUs (allocated at the first such exchange).
    pub halo_host: Option<crate::pinned::PinnedArray1<u8>>,
    /// A kernel of the region has read the array beyond its planes: a kernel writing it
    /// exchanges its halos at once, overlapped with its interior ([`crate::overlap`]).
    pub read_off_slab: bool,
    /// The block of steps of a time loop of several kernels per step that last wrote it
    /// ([`steps::Block`]; 0: none).
    pub block: u64,
}

impl SplitArray {
    fn esz(&self) -> usize {
        self.elem.size_bytes() as usize
    }
    fn user_shape(&self) -> Vec<usize> {
        self.shape[3 - self.ndim..].to_vec()
    }
    fn len(&self) -> usize {
        self.shape.iter().product()
    }
    /// Bytes of one plane along the slowest axis.
    fn plane_bytes(&self) -> usize {
        self.user_shape()[1..].iter().product::<usize>() * self.esz()
    }
    /// [`Error::ShapeMismatch`] unless `raw` has this array's shape and element type.
    fn check<T: Element>(&self, name: &str, raw: &RawArray<T>) -> Result<()> {
        self.check_as(name, &raw.user_shape(), T::TY)
    }
    /// [`Error::ShapeMismatch`] unless `shape` and `elem` are this array's.
    fn check_as(&self, name: &str, shape: &[usize], elem: ScalarTy) -> Result<()> {
        if self.user_shape() != shape || self.elem != elem {
            return Err(Error::ShapeMismatch {
                array: name.into(),
                what: "the host array's shape differs from its device array's".into(),
                expected: self.user_shape(),
                found: shape.to_vec(),
            });
        }
        Ok(())
    }
    fn held(&self, d: usize) -> (usize, usize) {
        match &self.slabs {
            Some(s) => s.held(d),
            None => (0, self.user_shape()[0]),
        }
    }
    /// The planes device `d`'s GPU allocation spans: those it holds and
    /// [`PREFETCH_PLANES`] more on each side (within the array).
    fn allocated(&self, d: usize) -> (usize, usize) {
        let (lo, hi) = self.held(d);
        let n = self.user_shape()[0];
        if self.slabs.is_none() {
            return (0, n);
        }
        (
            lo.saturating_sub(PREFETCH_PLANES),
            (hi + PREFETCH_PLANES).min(n),
        )
    }
    fn owned(&self, d: usize) -> (usize, usize) {
        match &self.slabs {
            Some(s) => s.owned[d],
            None => (0, self.user_shape()[0]),
        }
    }
    /// The planes device `d` has current ([`valid_runs`]).
    fn valid(&self, d: usize) -> ((usize, usize), (usize, usize)) {
        match &self.slabs {
            Some(s) => valid_runs(Some(s), d),
            None => (self.held(d), (0, 0)),
        }
    }
}

/// Which launches wrote an array since its ghost planes were last refreshed: a kernel site
/// (its address) in one execution of a time loop (its number, [`Split::time_loop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Writers {
    None,
    One(usize, u64),
    Several,
}

impl Writers {
    /// With a write by `(site, time loop)` added.
    fn and(self, me: (usize, u64)) -> Writers {
        match self {
            Writers::None => Writers::One(me.0, me.1),
            Writers::One(s, l) if (s, l) == me => self,
            _ => Writers::Several,
        }
    }
}

/// The split state of a region on `devices` devices, of which this process holds
/// `local` (all of them, unless the region spans MPI ranks, [`crate::ranks`]).
pub(crate) struct Split {
    /// Devices over all ranks: the slabs' count.
    pub devices: usize,
    /// The devices this rank holds, `rank × n .. (rank + 1) × n`; `parts`, `gpus`,
    /// `faults` and `usage` are indexed by `d - local.start`.
    pub local: std::ops::Range<usize>,
    /// The GPUs this rank holds, one per local device in slab order (`None`: emulated
    /// devices on the CPU).
    pub gpus: Option<Vec<Arc<Gpu>>>,
    /// Each local GPU's fault record for owner-computes kernels.
    faults: Vec<DeviceArray>,
    /// The execution of a blocked time loop the region is in (a new number for each), for
    /// [`Writers`]; set by the region.
    pub(crate) time_loop: u64,
    pub ghost: usize,
    /// The slowest extent of the distributed arrays: that of the first array of rank
    /// `rank` copied to the devices.
    pub extent: Option<usize>,
    pub slots: Vec<Option<SplitArray>>,
    info: &'static RegionInfo,
    plans: HashMap<(usize, Vec<bool>), KernelPlan>,
    layout: Layout,
    /// The emulation of a streamed region ([`crate::stream`]): kernels must be split and
    /// may not need a halo exchange.
    pub streamed: bool,
    /// Each local emulated device's arrays, against `MINT_DEVICE_MEMORY`.
    usage: Vec<crate::memcap::Usage>,
    /// The halo streams and the halo copies each GPU's next work waits for.
    halos: crate::overlap::Halos,
    /// The block of steps of a time loop of several kernels per step in progress, and the
    /// number of blocks started ([`steps`]).
    pub(crate) block: Option<steps::Block>,
    blocks: u64,
}

impl Drop for Split {
    fn drop(&mut self) {
        if let Some(g) = &self.gpus {
            self.halos.release(g);
        }
    }
}

/// What a launch on a GPU covers ([`crate::overlap`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Every iteration of the device's planes.
    Whole,
    /// The iterations writing the planes other devices hold as ghosts.
    Boundary,
    /// The others.
    Interior,
}

/// The region's kernels, for the decomposition: every kernel site that names `info`.
pub(crate) fn region_kernels(info: &'static RegionInfo) -> Vec<&'static KernelSite> {
    crate::site::kernel_sites()
        .filter(|s| s.region.is_some_and(|r| std::ptr::eq(r, info)))
        .collect()
}

/// What a region's kernels say about its arrays, before any is copied: the rank of the
/// arrays the slabs split, the ghost width, and which slots are replicated whatever their
/// shape. Shared by several devices ([`Split`]) and streaming ([`crate::stream`]).
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// The rank of the arrays the slabs split (0 or 1: nothing is split).
    pub rank: u8,
    pub ghost: usize,
    /// Per region slot: why the array is replicated whatever its shape (no kernel writes
    /// it, and some kernel reads it at planes no ghost width bounds).
    replicate: Vec<Option<String>>,
    /// Per region slot: its slabs are a ring ([`Slabs::ring`]): some kernel of the region
    /// reads an array with a periodic wrap along the slowest axis.
    pub ring: Vec<bool>,
}

impl Layout {
    /// # Errors
    /// [`Error::Translate`] when a kernel's IR cannot be read or inlined.
    pub fn of(info: &'static RegionInfo) -> Result<Layout> {
        let mut refs = Vec::new();
        let mut blocks = Vec::new();
        let mut groups = Vec::new();
        let n = info.arrays.len();
        let mut written = vec![false; n];
        let mut unbounded: Vec<Option<String>> = vec![None; n];
        let mut follows = vec![false; n];
        let mut ring = vec![false; n];
        for site in region_kernels(info) {
            let kernel = site.inlined()?;
            let r = site.slab_refs()?;
            // a kernel some reference of which follows its outermost parallel index: a
            // candidate for a split, whose reads must then be bounded
            let splits = r
                .iter()
                .any(|r| matches!(r.slow, Slow::Outer { .. } | Slow::Wrap { .. }));
            for (i, &slot) in site.slots.iter().enumerate() {
                let (Some(a), true) = (kernel.arrays.get(i), slot < n) else {
                    continue;
                };
                written[slot] |= a.written;
                let mine = || r.iter().filter(|r| r.array == a.name);
                follows[slot] |= mine().any(|r| matches!(r.slow, Slow::Outer { .. }));
                ring[slot] |= mine().any(|r| matches!(r.slow, Slow::Wrap { .. }));
                if unbounded[slot].is_none()
                    && let Some(r) = mine().find(|r| {
                        !r.write && matches!(r.slow, Slow::Other { .. }) && (r.varying || splits)
                    })
                {
                    unbounded[slot] = Some(if r.varying {
                        format!(
                            "no kernel writes it, and kernel {} reads it along the slowest axis with an index that changes within an iteration (a serial loop), which no ghost width bounds",
                            site.name
                        )
                    } else {
                        format!(
                            "no kernel writes it, and kernel {} reads it at `{}` along the slowest axis, which no ghost width bounds ({})",
                            site.name,
                            r.text,
                            r.reach.describe()
                        )
                    });
                }
            }
            refs.push(r.clone());
            blocks.push(ghost_depth(site));
            groups.push(site.time_group);
        }
        // Arrays that swap places (`std::mem::swap(u, unew)`) trade their storage, so
        // they are stored alike: what one is (written, read beyond any ghost width, a
        // ring), its partners are.
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b) in info.swaps.iter().filter(|&&(a, b)| a < n && b < n) {
                for v in [&mut written, &mut follows, &mut ring] {
                    if v[a] != v[b] {
                        (v[a], v[b]) = (true, true);
                        changed = true;
                    }
                }
                if unbounded[a].is_some() != unbounded[b].is_some() {
                    let why = unbounded[a].clone().or_else(|| unbounded[b].clone());
                    (unbounded[a], unbounded[b]) = (why.clone(), why);
                    changed = true;
                }
            }
        }
        let replicate = (0..n)
            .map(|s| match &unbounded[s] {
                Some(why) if !written[s] => Some(why.clone()),
                _ if !follows[s] => Some(
                    "no kernel indexes its slowest axis with the outermost parallel index (plus a constant)".to_string(),
                ),
                _ => None,
            })
            .collect();
        let rank = refs
            .iter()
            .map(|r| mint_translator::analyzer::slabs::rank(r))
            .max()
            .unwrap_or(0);
        // a kernel in a time loop blocked k steps deep runs k steps between two halo
        // exchanges: its slabs need k times its reach
        // and a loop of several kernels per step, k times their summed reaches
        let ghost = if rank >= 2 {
            let reach = |r: &Vec<SlabRef>| decomp::region_ghost(std::slice::from_ref(r), rank);
            let mut steps: HashMap<u32, (usize, usize)> = HashMap::new();
            for ((r, &k), &g) in refs.iter().zip(&blocks).zip(&groups) {
                if g > 0 {
                    let s = steps.entry(g).or_insert((k, 0));
                    s.1 += reach(r);
                }
            }
            let deep = refs.iter().zip(&blocks).map(|(r, &k)| k * reach(r));
            let grouped = steps.values().map(|&(k, sum)| k * sum);
            deep.chain(grouped)
                .fold(decomp::region_ghost(&refs, rank), usize::max)
        } else {
            0
        };
        let ghost = match *GHOST_OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(g) => g,
            None => ghost,
        };
        Ok(Layout {
            rank,
            ghost,
            replicate,
            ring,
        })
    }

    /// Whether an array of this shape in `slot` is distributed (`Ok`), or why it is
    /// replicated. The first distributed array fixes `extent`, the planes the slabs split.
    pub fn classify(
        &self,
        slot: usize,
        ndim: usize,
        shape: &[usize],
        extent: &mut Option<usize>,
    ) -> std::result::Result<(), String> {
        if let Some(why) = &self.replicate[slot] {
            return Err(why.clone());
        }
        if self.rank < 2 {
            return Err(format!(
                "the region's kernels index arrays with at most {} subscript(s); slabs split arrays of 2 or 3 dimensions",
                self.rank
            ));
        }
        if ndim != self.rank as usize {
            return Err(format!(
                "it has {ndim} dimension(s) and the region's slabs split its {}-D arrays",
                self.rank
            ));
        }
        let e = shape[0];
        match *extent {
            None => *extent = Some(e),
            Some(n) if n != e => {
                return Err(format!(
                    "its slowest extent {e} differs from the {n} planes the region's slabs split"
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

/// How a region would be decomposed over several devices, as `MINT_REPORT=1` states it:
/// what its kernels' reaches give, before any array is copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// The number of subscripts of the arrays the slabs split (3 for `[z, y, x]`); below
    /// 2, nothing is split.
    pub rank: u8,
    /// Ghost planes each slab carries on each side along the slowest axis.
    pub ghost: usize,
    /// Per array of the region, in the order of the region's table: its name, whether its
    /// slabs are a ring (a periodic wrap along the slowest axis), and why it is replicated
    /// whatever its shape (`None`: distributed if its shape is the region's).
    pub arrays: Vec<(&'static str, bool, Option<String>)>,
}

/// The decomposition of the region `region` (the function's name; `module::name` when
/// several regions share it).
///
/// # Errors
/// [`Error::Translate`] when no region of the program has that name, or a kernel's IR
/// cannot be read or inlined.
pub fn decomposition(region: &str) -> Result<Decomposition> {
    let info = crate::site::kernel_sites()
        .filter_map(|s| s.region)
        .find(|r| r.name == region || format!("{}::{}", r.file, r.name) == region)
        .ok_or_else(|| Error::Translate {
            kernel: String::new(),
            location: region.into(),
            message: format!("no region named `{region}` has kernels in this program"),
        })?;
    let l = Layout::of(info)?;
    Ok(Decomposition {
        rank: l.rank,
        ghost: l.ghost,
        arrays: info
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name, l.ring[i], l.replicate[i].clone()))
            .collect(),
    })
}

impl Split {
    /// # Errors
    /// [`Error::Translate`] when a kernel's IR cannot be read or inlined.
    pub fn new(
        info: &'static RegionInfo,
        devices: usize,
        gpus: Option<Vec<Arc<Gpu>>>,
    ) -> Result<Split> {
        Split::spanning(info, devices, 0, 1, gpus)
    }

    /// A split over `per_rank` devices on each of the program's MPI ranks
    /// ([`crate::ranks`]), in rank order; [`Split::new`] on one rank.
    ///
    /// # Errors
    /// As [`Split::new`].
    pub fn across_ranks(
        info: &'static RegionInfo,
        per_rank: usize,
        gpus: Option<Vec<Arc<Gpu>>>,
    ) -> Result<Split> {
        Split::spanning(
            info,
            per_rank,
            crate::ranks::rank(),
            crate::ranks::size(),
            gpus,
        )
    }

    fn spanning(
        info: &'static RegionInfo,
        per_rank: usize,
        rank: usize,
        ranks: usize,
        gpus: Option<Vec<Arc<Gpu>>>,
    ) -> Result<Split> {
        let layout = Layout::of(info)?;
        Ok(Split {
            devices: per_rank * ranks,
            local: rank * per_rank..(rank + 1) * per_rank,
            gpus,
            faults: Vec::new(),
            time_loop: 0,
            ghost: layout.ghost,
            extent: None,
            slots: (0..info.arrays.len()).map(|_| None).collect(),
            info,
            plans: HashMap::new(),
            layout,
            streamed: false,
            usage: (0..per_rank).map(|_| Default::default()).collect(),
            halos: Default::default(),
            block: None,
            blocks: 0,
        })
    }

    /// Slabs for an array of this shape, or why it is replicated.
    fn classify(
        &mut self,
        slot: usize,
        ndim: usize,
        shape: &[usize],
    ) -> std::result::Result<Slabs, String> {
        self.layout.classify(slot, ndim, shape, &mut self.extent)?;
        Ok(if self.layout.ring[slot] {
            Slabs::ring(shape[0], self.devices, self.ghost)
        } else {
            Slabs::new(shape[0], self.devices, self.ghost)
        })
    }

    /// `copy!(x, to_device)`: allocates the devices' parts on first use and copies the
    /// planes each device holds (all of a replicated array).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the host array's shape differs from the parts'.
    pub fn copy_to<T: Element>(
        &mut self,
        slot: usize,
        name: &'static str,
        raw: &RawArray<T>,
    ) -> Result<()> {
        self.copy_in(slot, name, &raw.bytes(), T::TY)
    }

    /// [`Split::copy_to`] of a standard-layout host array of `elem`s at `raw.ptr`.
    ///
    /// # Errors
    /// As [`Split::copy_to`]; [`Error::OverMemoryCap`] when an emulated device's parts
    /// would exceed `MINT_DEVICE_MEMORY`.
    pub(crate) fn copy_in(
        &mut self,
        slot: usize,
        name: &'static str,
        raw: &RawArray<u8>,
        elem: ScalarTy,
    ) -> Result<()> {
        let r = self.copy_in_local(slot, name, raw, elem, true);
        crate::ranks::agree(|| format!("`copy!({name}, to_device)`"), r)
    }

    /// `copy!(x, alloc)`: allocates the devices' parts of an array of `raw`'s shape and
    /// element type, copying nothing (a replicated array's merge at `copy!(x,
    /// from_device)` then takes every element a device wrote).
    ///
    /// # Errors
    /// As [`Split::copy_to`].
    pub(crate) fn alloc(
        &mut self,
        slot: usize,
        name: &'static str,
        raw: &RawArray<u8>,
        elem: ScalarTy,
    ) -> Result<()> {
        let r = self.copy_in_local(slot, name, raw, elem, false);
        crate::ranks::agree(|| format!("`copy!({name}, alloc)`"), r)
    }

    /// A new array of the region in `slot`: distributed in slabs, with its halo scheme, or
    /// replicated (as the layout says, reported with `MINT_REPORT=1`), its parts allocated
    /// on this rank's devices.
    ///
    /// # Errors
    /// [`Error::OverMemoryCap`] when an emulated device's parts would exceed
    /// `MINT_DEVICE_MEMORY`; a GPU's allocation failure, naming the device.
    fn place(
        &mut self,
        slot: usize,
        name: &'static str,
        raw: &RawArray<u8>,
        elem: ScalarTy,
    ) -> Result<SplitArray> {
        let user = raw.user_shape();
        let slabs = match self.classify(slot, raw.ndim, &user) {
            Ok(s) => Some(s),
            Err(why) => {
                report_replicated(self.info, name, &why);
                None
            }
        };
        if let Some(s) = &slabs {
            report_distributed(self.info, name, s);
        }
        let mut a = SplitArray {
            name,
            elem,
            shape: raw.shape,
            ndim: raw.ndim,
            halo: slabs
                .as_ref()
                .map(|s| HaloScheme::new(s, self.devices, &self.local)),
            slabs,
            parts: Parts::Host(Vec::new()),
            stale: false,
            writers: Writers::None,
            snapshot: Vec::new(),
            halo_host: None,
            read_off_slab: false,
            block: 0,
        };
        a.parts = self.alloc_parts(&a, slot, raw)?;
        Ok(a)
    }

    /// Each local device's storage of `a` (in `slot`, of `raw`'s shape): its held planes in
    /// host memory on emulated devices, counted against `MINT_DEVICE_MEMORY`, or a device
    /// array per GPU spanning its allocated planes.
    fn alloc_parts(&self, a: &SplitArray, slot: usize, raw: &RawArray<u8>) -> Result<Parts> {
        let (name, elem) = (a.name, a.elem);
        Ok(match &self.gpus {
            None => {
                let sizes: Vec<usize> = self
                    .local
                    .clone()
                    .map(|d| {
                        let (lo, hi) = a.held(d);
                        ((hi - lo) * a.plane_bytes()).div_ceil(8)
                    })
                    .collect();
                for (i, &n) in sizes.iter().enumerate() {
                    let d = self.local.start + i;
                    let what = || format!("{name} (emulated device {d})");
                    if let Err(e) = self.usage[i].take(what, n * 8) {
                        for (u, &m) in self.usage.iter().zip(&sizes).take(i) {
                            u.give(m * 8);
                        }
                        return Err(e);
                    }
                }
                Parts::Host(sizes.iter().map(|&n| vec![0u64; n]).collect())
            }
            Some(gpus) => Parts::Gpu(
                gpus.iter()
                    .zip(self.local.clone())
                    .map(|(g, d)| {
                        DeviceArray::alloc_planes(
                            g,
                            name,
                            elem,
                            raw.shape,
                            raw.ndim,
                            self.info.arrays[slot].align_x,
                            a.allocated(d),
                        )
                        .map_err(|e| on_device(e, d))
                    })
                    .collect::<Result<_>>()?,
            ),
        })
    }

    /// [`Split::copy_in`] to this rank's devices (`upload`), or only the allocation.
    fn copy_in_local(
        &mut self,
        slot: usize,
        name: &'static str,
        raw: &RawArray<u8>,
        elem: ScalarTy,
        upload: bool,
    ) -> Result<()> {
        self.join_halos()?;
        if let Some(a) = &self.slots[slot] {
            a.check_as(name, &raw.user_shape(), elem)?;
        } else {
            let a = self.place(slot, name, raw, elem)?;
            self.slots[slot] = Some(a);
        }
        let a = self.slots[slot].as_mut().expect("allocated");
        if !upload {
            if a.slabs.is_none() && a.snapshot.is_empty() {
                a.snapshot = vec![0; a.len() * a.esz()];
            }
            return Ok(());
        }
        let pb = a.plane_bytes();
        let held: Vec<(usize, usize)> = self.local.clone().map(|d| a.held(d)).collect();
        // The planes the host array has (a rank's part of a SlabArray, or all): they must
        // cover every plane this rank's devices hold.
        let (alo, ahi) = raw.planes();
        if a.slabs.is_none() {
            raw.check_whole(name)?;
        }
        if let Some((d, &(lo, hi))) = self
            .local
            .clone()
            .zip(&held)
            .find(|&(_, &(lo, hi))| hi > lo && (lo < alo || hi > ahi))
        {
            return Err(Error::ShapeMismatch {
                array: name.into(),
                what: format!(
                    "the SlabArray holds planes {alo}..{ahi}, but device {d} holds planes {lo}..{hi} (its slab and the region's {} ghost plane(s) each side): create it with a ghost width of at least {}",
                    self.ghost, self.ghost
                ),
                expected: vec![lo, hi],
                found: vec![alo, ahi],
            });
        }
        // SAFETY: a standard-layout host array whose planes alo..ahi exist (checked by
        // the caller and `RawArray::held`).
        let host = unsafe {
            std::slice::from_raw_parts(
                (raw.ptr as *const u8).wrapping_add(alo * pb),
                (ahi - alo) * pb,
            )
        };
        match &mut a.parts {
            Parts::Host(parts) => {
                for (part, &(lo, hi)) in parts.iter_mut().zip(&held) {
                    bytes_mut(part)[..(hi - lo) * pb]
                        .copy_from_slice(&host[(lo - alo) * pb..(hi - alo) * pb]);
                }
            }
            Parts::Gpu(parts) => {
                for (part, d) in parts.iter().zip(self.local.clone()) {
                    // The allocation's prefetch planes beyond the host array's stay zero:
                    // they never feed a result (`PREFETCH_PLANES`).
                    let (lo, hi) = part.planes;
                    part.upload_planes(raw.ptr, lo.max(alo), hi.min(ahi))
                        .map_err(|e| on_device(e, d))?;
                }
            }
        }
        if a.slabs.is_none() {
            a.snapshot = host.to_vec();
        }
        a.stale = false;
        a.writers = Writers::None;
        Ok(())
    }

    /// `copy!(x, from_device)`: each device's owned planes of a distributed array; for a
    /// replicated array, the merge of the devices' copies: every element takes the value
    /// of the last device (in device order) whose copy differs from what was last copied
    /// to the devices, or that value if no device changed it. Across MPI ranks every rank
    /// receives the whole array, gathered in rank order.
    ///
    /// # Errors
    /// [`Error::NotOnDevice`], [`Error::ShapeMismatch`]; [`Error::Ranks`] when another
    /// rank's copy failed. The host array is untouched on error.
    pub fn copy_from<T: Element>(&self, slot: usize, name: &str, raw: &RawArray<T>) -> Result<()> {
        self.join_halos()?;
        if !raw.is_whole() {
            return self.copy_from_slab(slot, name, raw);
        }
        let local = self.gather_local(slot, name, raw);
        let local = crate::ranks::agree(|| format!("`copy!({name}, from_device)`"), local)?;
        let a = self.slots[slot].as_ref().expect("checked by gather_local");
        let total = a.len() * a.esz();
        let out = if crate::ranks::size() == 1 {
            local
        } else {
            self.gather_ranks(a, local)?
        };
        // SAFETY: a standard-layout, writable host array of `total` bytes (checked by the
        // caller); nothing above can fail once we get here.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), raw.ptr as *mut u8, total) };
        Ok(())
    }

    /// [`Split::copy_from`] into a rank's part of a [`crate::slab::SlabArray`]: the planes
    /// this rank's devices own, and no others; nothing moves between ranks.
    fn copy_from_slab<T: Element>(&self, slot: usize, name: &str, raw: &RawArray<T>) -> Result<()> {
        let runs = (|| -> Result<Vec<(usize, Vec<u8>)>> {
            let Some(a) = &self.slots[slot] else {
                return Err(Error::NotOnDevice {
                    array: name.into(),
                    when: format!("`copy!({name}, from_device)` runs"),
                });
            };
            a.check(name, raw)?;
            let Some(s) = &a.slabs else {
                // A replicated array needs the whole host array: an error here.
                return raw.check_whole(name).map(|()| Vec::new());
            };
            let pb = a.plane_bytes();
            let (alo, ahi) = raw.planes();
            let mut runs = Vec::new();
            for (i, d) in self.local.clone().enumerate() {
                let (lo, hi) = s.owned[d];
                if hi <= lo {
                    continue;
                }
                if lo < alo || hi > ahi {
                    return Err(Error::ShapeMismatch {
                        array: name.into(),
                        what: format!(
                            "the SlabArray holds planes {alo}..{ahi}, but device {d} owns planes {lo}..{hi}: it was created for another device count"
                        ),
                        expected: vec![lo, hi],
                        found: vec![alo, ahi],
                    });
                }
                let bytes = match &a.parts {
                    Parts::Host(parts) => {
                        let h = s.held(d).0;
                        bytes(&parts[i])[(lo - h) * pb..(hi - h) * pb].to_vec()
                    }
                    Parts::Gpu(parts) => {
                        parts[i].read_planes(lo, hi).map_err(|e| on_device(e, d))?
                    }
                };
                runs.push((lo * pb, bytes));
            }
            Ok(runs)
        })();
        let runs = crate::ranks::agree(|| format!("`copy!({name}, from_device)`"), runs)?;
        for (at, b) in runs {
            // SAFETY: planes the SlabArray holds (checked above), writable (the caller's
            // `raw_mut`).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    b.as_ptr(),
                    (raw.ptr as *mut u8).wrapping_add(at),
                    b.len(),
                )
            };
        }
        Ok(())
    }

    /// This rank's part of [`Split::copy_from`]: the whole array's bytes with the planes
    /// its devices own filled in (a distributed array), or the merge of its devices'
    /// copies (a replicated one).
    fn gather_local<T: Element>(
        &self,
        slot: usize,
        name: &str,
        raw: &RawArray<T>,
    ) -> Result<Vec<u8>> {
        let Some(a) = &self.slots[slot] else {
            return Err(Error::NotOnDevice {
                array: name.into(),
                when: format!("`copy!({name}, from_device)` runs"),
            });
        };
        a.check(name, raw)?;
        let total = a.len() * a.esz();
        let pb = a.plane_bytes();
        Ok(match &a.slabs {
            Some(s) => {
                let mut out = vec![0u8; total];
                for (i, d) in self.local.clone().enumerate() {
                    let (lo, hi) = s.owned[d];
                    let h = s.held(d).0;
                    match &a.parts {
                        Parts::Host(parts) => out[lo * pb..hi * pb]
                            .copy_from_slice(&bytes(&parts[i])[(lo - h) * pb..(hi - h) * pb]),
                        Parts::Gpu(parts) => parts[i]
                            .download_planes(&mut out, lo, hi)
                            .map_err(|e| on_device(e, d))?,
                    }
                }
                out
            }
            None => {
                let mut out = a.snapshot.clone();
                for (i, d) in self.local.clone().enumerate() {
                    let staged;
                    let p = match &a.parts {
                        Parts::Host(parts) => &bytes(&parts[i])[..total],
                        Parts::Gpu(parts) => {
                            let mut v = vec![0u8; total];
                            let n = a.user_shape()[0];
                            parts[i]
                                .download_planes(&mut v, 0, n)
                                .map_err(|e| on_device(e, d))?;
                            staged = v;
                            &staged[..]
                        }
                    };
                    merge_changed(&mut out, p, &a.snapshot, a.esz());
                }
                out
            }
        })
    }

    /// The whole array from every rank's [`Split::gather_local`]: each rank's owned planes
    /// (distributed), or the ranks' merges merged again in rank order (replicated), which
    /// is the merge of all devices in device order.
    fn gather_ranks(&self, a: &SplitArray, local: Vec<u8>) -> Result<Vec<u8>> {
        let pb = a.plane_bytes();
        let per_rank = self.local.len();
        match &a.slabs {
            Some(s) => {
                let owned = |r: usize| s.owned_span(r * per_rank..(r + 1) * per_rank);
                let (lo, hi) = owned(crate::ranks::rank());
                let parts = crate::ranks::all_gather(&local[lo * pb..hi * pb])?;
                let mut out = local;
                for (r, part) in parts.iter().enumerate() {
                    let (lo, hi) = owned(r);
                    out[lo * pb..hi * pb].copy_from_slice(part);
                }
                Ok(out)
            }
            None => {
                let parts = crate::ranks::all_gather(&local)?;
                let mut out = a.snapshot.clone();
                for p in &parts {
                    merge_changed(&mut out, p, &a.snapshot, a.esz());
                }
                Ok(out)
            }
        }
    }

    /// `std::mem::swap` of two arrays: on every device.
    pub fn swap(&mut self, a: usize, b: usize) {
        self.slots.swap(a, b);
    }

    /// Refreshes the ghost planes of slot `slot` from their owners, after the work queued
    /// so far ([`Strategy::Ordered`]): on other ranks by MPI messages (staged through the
    /// host from a GPU), on this rank by memcpy or peer copy; or through NCCL.
    ///
    /// # Errors
    /// A failed copy between GPUs ([`Error::Driver`], naming the array and devices);
    /// [`Error::Ranks`] when a message fails or another rank could not stage its planes.
    fn exchange(&mut self, slot: usize) -> Result<()> {
        self.exchange_as(slot, Strategy::Ordered)
    }

    /// The halo exchange of `slot` right after a split kernel's boundary planes, on the
    /// halo streams ([`crate::overlap`], [`Strategy::Overlapped`]): `marks[i]` marks local
    /// GPU `i`'s boundary part done.
    fn exchange_overlapped(&mut self, slot: usize, marks: &[sys::CUevent]) -> Result<()> {
        self.exchange_as(slot, Strategy::Overlapped(marks))
    }

    /// The halo exchange of `slot` by its scheme ([`HaloScheme`]) and the transports
    /// ([`crate::transport`]); nothing for an array that is not distributed.
    fn exchange_as(&mut self, slot: usize, how: Strategy<'_>) -> Result<()> {
        let Some(a) = self.slots[slot].as_mut() else {
            return Ok(());
        };
        let (Some(slabs), Some(scheme)) = (&a.slabs, &a.halo) else {
            return Ok(());
        };
        let plane_bytes = a.plane_bytes();
        let mut devices = Devices {
            local: self.local.clone(),
            gpus: self.gpus.as_deref(),
            halos: &mut self.halos,
            streamed: self.streamed,
        };
        let exchange = Exchange {
            name: a.name,
            parts: &mut a.parts,
            slabs,
            scheme,
            plane_bytes,
            staging: &mut a.halo_host,
        };
        transport::exchange(&mut devices, exchange, how)?;
        crate::stats::record_halo_exchange(self.info.name);
        a.stale = false;
        a.writers = Writers::None;
        Ok(())
    }

    /// The plan of `site` with these slots, after refreshing the ghosts it reads.
    fn prepare(&mut self, site: &'static KernelSite, slots: &[usize]) -> Result<KernelPlan> {
        self.join_halos()?;
        let kernel = site.inlined()?;
        let mut dist = Vec::with_capacity(slots.len());
        for (i, &slot) in slots.iter().enumerate() {
            match self.slots.get(slot).and_then(|s| s.as_ref()) {
                Some(a) => dist.push(a.slabs.is_some()),
                None => return Err(site.not_on_device(i)),
            }
        }
        let key = (site as *const KernelSite as usize, dist.clone());
        let plan = match self.plans.get(&key) {
            Some(p) => p.clone(),
            None => {
                let p = decomp::plan_kernel(kernel, site.slab_refs()?, &dist)
                    .map_err(|r| site.unsplittable(r))?;
                if crate::stats::report_enabled()
                    && crate::stats::report_once(format!("{:p} {dist:?}", site))
                {
                    let mut reach: Vec<String> = site
                        .slab_refs()?
                        .iter()
                        .filter(|r| !matches!(r.slow, Slow::Outer { lo, hi } if lo == hi))
                        .map(|r| format!("{}[{}..] {}", r.array, r.text, r.reach.describe()))
                        .collect();
                    reach.dedup();
                    eprintln!(
                        "mint report: decomposition: kernel {} ({}) runs {}{}",
                        site.name,
                        site.location(),
                        match p.mode {
                            Mode::Split { clip: 0 } =>
                                "split: each device its own planes".to_string(),
                            Mode::Split { clip } => format!(
                                "split: each device the iterations writing its own planes (offset {clip:+})"
                            ),
                            Mode::Owner => format!(
                                "owner-computes: every device runs every iteration and writes the planes it owns ({}); this does not scale",
                                p.why.as_deref().unwrap_or("")
                            ),
                            Mode::Everywhere =>
                                "on every device alike (no distributed array)".to_string(),
                        },
                        if reach.is_empty() {
                            String::new()
                        } else {
                            format!("; reaches along the slowest axis: {}", reach.join(", "))
                        }
                    );
                }
                self.plans.insert(key, p.clone());
                p
            }
        };
        if self.streamed {
            let arrays: Vec<(&str, bool, bool)> = slots
                .iter()
                .map(|&s| {
                    let a = self.slots[s].as_ref().expect("checked above");
                    (a.name, a.slabs.is_some(), a.stale)
                })
                .collect();
            crate::stream::check::check_kernel(self.info, site, &plan, &arrays)?;
        }
        // In a block of steps (`steps`) every array a launch writes, or reads on widened
        // planes, is current on every plane its device holds before the block first
        // touches it: a widened launch reads its ghost planes, and a later one reads the
        // planes of an array this launch writes that it does not write itself.
        let in_block = self.block.is_some();
        let widened = self.block.as_ref().is_some_and(|b| b.widen(site) > 0);
        for (i, &slot) in slots.iter().enumerate() {
            let reads = kernel.arrays.get(i).is_some_and(|a| a.read);
            let touched = in_block && ((widened && reads) || plan.writes[i]);
            if !(plan.reads_ghosts[i] || touched) {
                continue;
            }
            let fresh = self.slots[slot]
                .as_ref()
                .is_none_or(|a| self.written_in_block(a));
            if let Some(a) = self.slots[slot].as_mut() {
                a.read_off_slab |= plan.reads_ghosts[i];
                if a.stale && !fresh {
                    self.exchange(slot)?;
                }
            }
        }
        // the kernel follows the halos it reads (an exchange on the halo streams)
        self.join_halos()?;
        Ok(plan)
    }

    /// Makes every local GPU's stream wait for the halo copies of an overlapped exchange
    /// that it must follow.
    fn join_halos(&self) -> Result<()> {
        match &self.gpus {
            Some(g) if self.halos.busy() => self.halos.join(g, self.local.start),
            _ => Ok(()),
        }
    }

    /// The arrays a kernel writes whose halos go out at once, overlapped with its interior
    /// ([`crate::overlap`]): distributed, read beyond their planes by some kernel of the
    /// region before; none for a kernel that is not split, reduces, or runs streamed.
    fn eager_slots(
        &self,
        site: &'static KernelSite,
        plan: &KernelPlan,
        slots: &[usize],
    ) -> Result<Vec<usize>> {
        if !crate::overlap::overlap()
            || self.streamed
            || self.block.is_some()
            || !matches!(plan.mode, Mode::Split { .. })
            || site.kernel()?.reduction.is_some()
        {
            return Ok(Vec::new());
        }
        let mut v: Vec<usize> = slots
            .iter()
            .enumerate()
            .filter(|(k, _)| plan.writes[*k])
            .map(|(_, &s)| s)
            .filter(|&s| {
                self.slots[s]
                    .as_ref()
                    .is_some_and(|a| a.slabs.is_some() && a.read_off_slab)
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    fn dev(
        &mut self,
        site: &'static KernelSite,
        plan: &KernelPlan,
        slots: &[usize],
        d: usize,
    ) -> CpuDev<'_> {
        let owner = plan.mode == Mode::Owner;
        let i = d - self.local.start;
        let mut arrays = Vec::with_capacity(slots.len());
        let mut owned = (0, 0);
        for &slot in slots {
            let a = self.slots[slot].as_mut().expect("checked in prepare");
            if a.slabs.is_some() {
                owned = a.owned(d);
            }
            let ((held, wrap), stored) = (a.valid(d), a.held(d).0);
            let Parts::Host(parts) = &mut a.parts else {
                unreachable!("CPU kernels run on emulated devices only")
            };
            arrays.push(PartView {
                ptr: parts[i].as_mut_ptr() as *mut u8,
                stored,
                elem: a.elem,
                shape: a.shape,
                ndim: a.ndim,
                info: SlabInfo {
                    array: a.name,
                    kernel: site.name,
                    device: d,
                    held,
                    owned: a.owned(d),
                    wrap,
                    distributed: a.slabs.is_some(),
                    owner,
                },
            });
        }
        CpuDev {
            split: Some(DevSplit {
                device: d,
                mode: plan.mode,
                owned,
                arrays,
                _region: PhantomData,
            }),
            faults: Default::default(),
        }
    }

    /// After `site` ran: the arrays it wrote are stale, written by it in the current time
    /// loop ([`Split::time_loop`]).
    fn finish(&mut self, site: &KernelSite, plan: &KernelPlan, slots: &[usize]) {
        let me = (site as *const KernelSite as usize, self.time_loop);
        let block = self.block.as_ref().map_or(0, |b| b.id);
        for (i, &slot) in slots.iter().enumerate() {
            if plan.writes[i]
                && let Some(a) = self.slots[slot].as_mut()
            {
                a.stale = true;
                a.writers = a.writers.and(me);
                a.block = block;
            }
        }
    }

    /// Runs a kernel's CPU version on every device in turn.
    ///
    /// # Errors
    /// [`Error::OutsideSlab`] when a device reads a plane it does not hold;
    /// [`Error::NotOnDevice`].
    pub fn run<R>(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        f: impl FnMut(&CpuDev) -> R,
    ) -> Result<Vec<R>> {
        self.run_planned(site, slots, f).map(|(_, v)| v)
    }

    /// [`Split::run`], also returning how the kernel ran; the values are this rank's
    /// devices', in device order.
    fn run_planned<R>(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        mut f: impl FnMut(&CpuDev) -> R,
    ) -> Result<(Mode, Vec<R>)> {
        let plan = self.prepare(site, slots)?;
        let mut out = Vec::with_capacity(self.local.len());
        let mut fault = None;
        for d in self.local.clone() {
            // a block of steps widens a split kernel's planes (`steps`)
            let wide = match (self.slabs(), plan.mode) {
                (Some(sl), Mode::Split { .. }) if self.block.is_some() => {
                    Some(self.widened(site, plan.mode, sl.owned[d], d))
                }
                _ => None,
            };
            let mut dev = self.dev(site, &plan, slots, d);
            if let (Some(s), Some(w)) = (dev.split.as_mut(), wide) {
                s.owned = w;
            }
            let v = f(&dev);
            if let Some(e) = dev.faults.error(site) {
                fault = Some(e);
                break;
            }
            out.push(v);
        }
        crate::ranks::agree(
            || format!("kernel {} ({})", site.name, site.location()),
            fault.map_or(Ok(()), Err),
        )?;
        self.finish(site, &plan, slots);
        // emulated devices exchange the halos the overlap would, right after the kernel
        for slot in self.eager_slots(site, &plan, slots)? {
            self.exchange(slot)?;
            crate::overlap::count_exchange();
        }
        Ok((plan.mode, out))
    }

    /// Runs a reduction kernel on every device and combines the devices' values in device
    /// order (split and owner-computes kernels), or takes device 0's (a kernel on
    /// replicated arrays only, which every device runs whole).
    ///
    /// # Errors
    /// As [`Split::run`].
    pub fn reduce<T: Reducible>(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        op: RedOp,
        f: impl FnMut(&CpuDev) -> T,
    ) -> Result<T> {
        let (mode, vals) = self.run_planned(site, slots, f)?;
        if mode == Mode::Everywhere {
            // Every device ran the whole kernel on the same replicas.
            return Ok(vals[0]);
        }
        let vals = if crate::ranks::size() > 1 {
            every_rank(&vals)?
        } else {
            vals
        };
        let mut it = vals.into_iter();
        let first = it.next().unwrap_or_else(|| T::red_identity(op));
        Ok(it.fold(first, |a, b| T::red_combine(op, a, b)))
    }
}

/// Every rank's `vals`, in rank order (so in device order).
fn every_rank<T: Copy>(vals: &[T]) -> Result<Vec<T>> {
    let n = std::mem::size_of_val(vals);
    // SAFETY: plain values (numbers) viewed as bytes.
    let mine = unsafe { std::slice::from_raw_parts(vals.as_ptr() as *const u8, n) };
    let mut out = Vec::new();
    for part in crate::ranks::all_gather(mine)? {
        for c in part.chunks_exact(std::mem::size_of::<T>()) {
            // SAFETY: the bytes of a `T` another rank sent, as above.
            out.push(unsafe { std::ptr::read_unaligned(c.as_ptr() as *const T) });
        }
    }
    Ok(out)
}

/// Every element (of `esz` bytes) of `copy` that differs from `snapshot`, into `out`.
fn merge_changed(out: &mut [u8], copy: &[u8], snapshot: &[u8], esz: usize) {
    for e in (0..out.len()).step_by(esz) {
        if copy[e..e + esz] != snapshot[e..e + esz] {
            out[e..e + esz].copy_from_slice(&copy[e..e + esz]);
        }
    }
}

impl Split {
    /// The slabs every distributed array of the region follows (`None` before the first
    /// distributed array is copied).
    fn slabs(&self) -> Option<Slabs> {
        self.extent.map(|e| Slabs::new(e, self.devices, self.ghost))
    }

    /// Waits for every GPU.
    ///
    /// # Errors
    /// A kernel fault on one of them, naming the device.
    pub fn synchronize(&self) -> Result<()> {
        self.join_halos()?;
        for (g, d) in self.gpus.iter().flatten().zip(self.local.clone()) {
            g.synchronize().map_err(|e| on_device(e, d))?;
        }
        Ok(())
    }

    /// Launches a kernel on every GPU, in device order: a split kernel over the iterations
    /// writing each device's planes, an owner-computes kernel lowered
    /// ([`mint_translator::owner`]) over all of them, any other kernel whole. Returns each
    /// device's reduced value, combined in device order (device 0's for a kernel on
    /// replicated data only). Unless `nowait`, waits for every GPU.
    ///
    /// # Errors
    /// [`Error::NotOnDevice`]; translation, compilation and launch failures;
    /// [`Error::OutsideSlab`] when an owner-computes kernel faults on a device.
    pub fn launch(
        &mut self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        nowait: bool,
    ) -> Result<Option<ScalarValue>> {
        // With timing on, a launch that waits is timed on the host, from before its halo
        // exchange to the end of its slowest device (events cannot span GPUs).
        let t0 = (!nowait && crate::stats::timing_enabled()).then(std::time::Instant::now);
        let plan = self.prepare(site, args.arrays)?;
        self.check_wraps(site, args, &plan)?;
        let values = self.launch_local(site, args, nowait, &plan);
        let mut values = crate::ranks::agree(
            || format!("kernel {} ({})", site.name, site.location()),
            values,
        )?;
        if let Some(t0) = t0 {
            record_host_time(site, args, t0)?;
        }
        let reduction = site.kernel()?.reduction.as_ref();
        if crate::ranks::size() > 1 && reduction.is_some() && plan.mode != Mode::Everywhere {
            values = every_rank(&values)?;
        }
        Ok(match (values.first(), reduction) {
            (None, _) => None,
            (Some(v), _) if plan.mode == Mode::Everywhere => Some(*v),
            (Some(_), Some(r)) => Some(crate::exec::combine_values(r.op, &values)),
            (Some(v), None) => Some(*v),
        })
    }

    /// [`Error::Unsplittable`] unless every periodic wrap of the kernel is modulo its
    /// array's slowest extent: the ring's ghost planes hold the planes `(z + c) % extent`,
    /// and a wrap by another modulus reads planes no ghost width bounds. (On emulated
    /// devices every read is checked as it happens.)
    fn check_wraps(
        &self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        plan: &KernelPlan,
    ) -> Result<()> {
        let kernel = site.inlined()?;
        for (i, wrap) in plan.wraps.iter().enumerate() {
            let (Some(m), Some(a)) = (
                wrap,
                args.arrays.get(i).and_then(|&s| self.slots[s].as_ref()),
            ) else {
                continue;
            };
            let value = kernel
                .scalars
                .iter()
                .position(|s| &s.name == m)
                .and_then(|j| args.scalars.get(j))
                .and_then(|v| v.as_i128());
            let extent = a.user_shape()[0] as i128;
            if value != Some(extent) {
                let r = site
                    .slab_refs()?
                    .iter()
                    .find(|r| {
                        r.array == kernel.arrays[i].name
                            && matches!(r.slow, mint_translator::analyzer::slabs::Slow::Wrap { .. })
                    })
                    .map_or_else(String::new, |r| r.text.clone());
                return Err(site.unsplittable(decomp::Refusal {
                    array: a.name.into(),
                    subscript: r,
                    why: format!(
                        "it wraps modulo `{m}` = {}, not the array's {extent} planes along the slowest axis, which the ring of ghost planes holds",
                        value.map_or("?".to_string(), |v| v.to_string())
                    ),
                }));
            }
        }
        Ok(())
    }

    /// [`Split::launch`] on this rank's GPUs: their reduced values, in device order.
    fn launch_local(
        &mut self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        nowait: bool,
        plan: &KernelPlan,
    ) -> Result<Vec<ScalarValue>> {
        let owner = plan.mode == Mode::Owner;
        let check = matches!(plan.mode, Mode::Split { .. }) && check_reads();
        if (owner || check) && self.faults.is_empty() {
            self.alloc_faults()?;
        }
        // Overlap: the boundary planes of every GPU first, then the interiors, and the
        // halos of `eager` arrays exchanged while the interiors run.
        let eager = self.eager_slots(site, plan, args.arrays)?;
        let mut marks: Vec<cudarc::driver::sys::CUevent> = Vec::new();
        let values = self.launch_phases(site, args, plan, &eager, &mut marks)?;
        self.finish(site, plan, args.arrays);
        let exchanged = eager
            .iter()
            .try_for_each(|&slot| self.exchange_overlapped(slot, &marks));
        for e in marks {
            unsafe { cudarc::driver::result::event::destroy(e) }.ok();
        }
        exchanged?;
        if owner || check {
            self.synchronize().map_err(|e| launch_error(site, e))?;
            self.check_faults(site, args.arrays)?;
        } else if !nowait {
            self.synchronize().map_err(|e| launch_error(site, e))?;
        }
        Ok(values.into_iter().flatten().collect())
    }

    /// Each local GPU's fault record for owner-computes and `MINT_CHECK` kernels.
    fn alloc_faults(&mut self) -> Result<()> {
        let gpus = self.gpus.as_deref().expect("a split over GPUs");
        for (g, d) in gpus.iter().zip(self.local.clone()) {
            let f = DeviceArray::alloc(
                g,
                mint_translator::owner::FAULT,
                ScalarTy::I64,
                [1, 1, mint_translator::owner::FAULT_WORDS],
                1,
                0,
            )
            .map_err(|e| on_device(e, d))?;
            self.faults.push(f);
        }
        Ok(())
    }

    /// The launches of [`Split::launch_local`], phase by phase ([`Phase`]) and GPU by GPU:
    /// with `eager` arrays ([`Split::eager_slots`]), every GPU's boundary parts, each GPU's
    /// marked done in `marks`, then the interiors; else each GPU's whole part. Returns each
    /// GPU's reduced value.
    fn launch_phases(
        &self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        plan: &KernelPlan,
        eager: &[usize],
        marks: &mut Vec<cudarc::driver::sys::CUevent>,
    ) -> Result<Vec<Option<ScalarValue>>> {
        let gpus = self.gpus.as_deref().expect("a split over GPUs");
        let slabs = self.slabs();
        let owner = plan.mode == Mode::Owner;
        let check = matches!(plan.mode, Mode::Split { .. }) && check_reads();
        let distributed: Vec<bool> = if owner || check {
            args.arrays
                .iter()
                .map(|&s| self.slots[s].as_ref().is_some_and(|a| a.slabs.is_some()))
                .collect()
        } else {
            Vec::new()
        };
        // the boundary parts cover the planes any eager array's neighbours read: both ends
        // of every slab when one of them is a ring (its wrap ghosts)
        let ring = eager.iter().any(|&s| {
            self.slots[s]
                .as_ref()
                .and_then(|a| a.slabs.as_ref())
                .is_some_and(|s| s.ring)
        });
        let boundary = slabs.as_ref().map(|s| Slabs { ring, ..s.clone() });
        let overlap = boundary.as_ref().filter(|_| !eager.is_empty());
        let phases: &[Phase] = match overlap {
            Some(_) => &[Phase::Boundary, Phase::Interior],
            None => &[Phase::Whole],
        };
        let mut configs = vec![None; gpus.len()];
        let mut values = Vec::with_capacity(gpus.len());
        let arrays = &self.slots;
        for &phase in phases {
            for (i, g) in gpus.iter().enumerate() {
                let d = self.local.start + i;
                let slot = |s: usize| gpu_part(arrays, i, s);
                let owned = slabs
                    .as_ref()
                    .map_or((0, 0), |s| self.widened(site, plan.mode, s.owned[d], d));
                let clip = match plan.mode {
                    Mode::Split { clip } => Some(clip),
                    _ => None,
                };
                let clipped = |planes: (usize, usize)| clip_bounds(args.bounds, planes, clip);
                let owner_args = self.owner_args(i, (owner, check), &distributed, slabs.as_ref());
                let (mut events, mut pending) = (Vec::new(), Vec::new());
                let mut cx = LaunchCtx::quiet(g, &slot, &mut events, &mut pending);
                cx.owner = owner_args;
                let whole = clipped(owned);
                let a = LaunchArgs {
                    bounds: &whole,
                    ..*args
                };
                let [low, high, interior] =
                    overlap.map_or([owned; 3], |s| crate::overlap::parts(s, d));
                match phase {
                    Phase::Whole => values.push(crate::launch::launch(&mut cx, site, &a, true)?),
                    Phase::Boundary => {
                        // one configuration for the parts: the autotuner's for the whole
                        configs[i] = crate::launch::prepare(&mut cx, site, &a)?;
                        for part in [low, high] {
                            let b = clipped(part);
                            let a = LaunchArgs {
                                bounds: &b,
                                ..*args
                            };
                            crate::exec::launch_as(&mut cx, site, &a, true, configs[i], false)?;
                        }
                        marks.push(crate::overlap::Halos::record(g.stream.cu_stream(), d)?);
                    }
                    Phase::Interior => {
                        let b = clipped(interior);
                        let a = LaunchArgs {
                            bounds: &b,
                            ..*args
                        };
                        values.push(crate::exec::launch_as(
                            &mut cx, site, &a, true, configs[i], true,
                        )?);
                    }
                }
            }
        }
        Ok(values)
    }

    /// The arguments the owner-computes lowering (`owner`) or the `MINT_CHECK` lowering
    /// (`check`) adds to a kernel on local GPU `i`: its fault record and its planes; `None`
    /// for neither.
    fn owner_args(
        &self,
        i: usize,
        (owner, check): (bool, bool),
        distributed: &[bool],
        slabs: Option<&Slabs>,
    ) -> Option<OwnerArgs<'_>> {
        let d = self.local.start + i;
        let owned = slabs.map_or((0, 0), |s| s.owned[d]);
        let held = slabs.map_or((0, 0), |s| s.held(d));
        if owner {
            Some(OwnerArgs {
                distributed: distributed.to_vec(),
                check: false,
                fault: &self.faults[i],
                scalars: vec![
                    ScalarValue::of(held.0 as i64),
                    ScalarValue::of(held.1 as i64),
                    ScalarValue::of(owned.0 as i64),
                    ScalarValue::of(owned.1 as i64),
                    ScalarValue::of(d == 0),
                ],
            })
        } else if check {
            let (main, wrap) = valid_runs(slabs, d);
            Some(OwnerArgs {
                distributed: distributed.to_vec(),
                check: true,
                fault: &self.faults[i],
                scalars: [main.0, main.1, wrap.0, wrap.1]
                    .map(|p| ScalarValue::of(p as i64))
                    .to_vec(),
            })
        } else {
            None
        }
    }

    /// Reads each GPU's fault record (owner-computes, or `MINT_CHECK`), in device order;
    /// the first fault is an error (and every record is cleared).
    fn check_faults(&self, site: &'static KernelSite, slots: &[usize]) -> Result<()> {
        use mint_translator::owner::{FAULT_REDUCTION, FAULT_SPLIT_READ, FAULT_WORDS};
        let mut first = None;
        for (f, d) in self.faults.iter().zip(self.local.clone()) {
            let mut w = vec![0u8; FAULT_WORDS * 8];
            f.download_planes(&mut w, 0, FAULT_WORDS)
                .map_err(|e| on_device(e, d))?;
            let word = |i: usize| i64::from_le_bytes(w[i * 8..i * 8 + 8].try_into().unwrap());
            if word(0) == 0 {
                continue;
            }
            f.gpu().bind()?;
            // On the stream the next owner-computes kernel runs on (see `alloc_planes`).
            let stream = f.gpu().stream.cu_stream();
            unsafe { cudarc::driver::result::memset_d8_async(f.ptr, 0, FAULT_WORDS * 8, stream) }
                .map_err(|e| Error::driver("cuMemsetD8", e))?;
            if first.is_some() {
                continue;
            }
            let kernel = site.kernel()?;
            let ai = word(1) as usize;
            let slab = self
                .slabs()
                .expect("an owner-computes kernel has a distributed array");
            let name = match (word(0), slots.get(ai)) {
                (FAULT_REDUCTION, _) | (_, None) => slots
                    .iter()
                    .filter_map(|&s| self.slots[s].as_ref())
                    .find(|a| a.slabs.is_some())
                    .map_or("", |a| a.name),
                (_, Some(&s)) => self.slots[s].as_ref().map_or("", |a| a.name),
            };
            let ndim = if word(0) == FAULT_REDUCTION {
                0
            } else {
                kernel.arrays.get(ai).map_or(0, |a| a.ndim as usize)
            };
            let split_read = word(0) == FAULT_SPLIT_READ;
            let fault = SlabFault {
                array: name,
                kernel: site.name,
                device: d,
                index: (0..ndim.min(3)).map(|k| word(3 + k) as usize).collect(),
                held: if split_read {
                    valid_runs(Some(&slab), d).0
                } else {
                    slab.held(d)
                },
                owned: slab.owned[d],
                write: !split_read,
                read_at: (word(2) >= 0 && !split_read).then(|| word(2) as usize),
            };
            first = Some(match crate::cpu::fault_error(&fault, site) {
                Error::OutsideSlab {
                    array,
                    kernel,
                    index,
                    device,
                    message,
                } if split_read => Error::OutsideSlab {
                    array,
                    kernel,
                    index,
                    device,
                    message: format!(
                        "{message}; found by MINT_CHECK: the split kernel reads beyond the ghost planes the decomposition gave it"
                    ),
                },
                e => e,
            });
        }
        first.map_or(Ok(()), Err)
    }
}

static GHOST_OVERRIDE: std::sync::Mutex<Option<usize>> = std::sync::Mutex::new(None);

/// Region slot `s`'s storage on local GPU `i` (a split over GPUs).
fn gpu_part(arrays: &[Option<SplitArray>], i: usize, s: usize) -> Option<&DeviceArray> {
    arrays.get(s)?.as_ref().map(|a| match &a.parts {
        Parts::Gpu(p) => &p[i],
        Parts::Host(_) => unreachable!("a split over GPUs"),
    })
}

/// A launch's loop `bounds` for a device holding `planes`: the outermost clipped to the
/// iterations writing those planes for a split kernel (`clip`: its written plane's offset
/// from the outermost index), unchanged otherwise.
fn clip_bounds(
    bounds: &[(i64, i64)],
    planes: (usize, usize),
    clip: Option<i64>,
) -> Vec<(i64, i64)> {
    let mut b = bounds.to_vec();
    if let (Some(clip), Some(z)) = (clip, b.first_mut()) {
        *z = decomp::clip_range(z.0, z.1, planes, clip);
    }
    b
}

/// Gives every region decomposed from now on `ghost` ghost planes, whatever its kernels
/// reach (`None`: what they reach). For tests of the checks that catch a decomposition
/// holding too few planes (the CPU backend's views, `MINT_CHECK` on GPUs); never for use.
#[doc(hidden)]
pub fn override_ghost_planes(ghost: Option<usize>) {
    *GHOST_OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) = ghost;
}

static CHECK: crate::flag::EnvFlag = crate::flag::EnvFlag::new("MINT_CHECK", false);

/// Whether split kernels on GPUs check every read of a distributed array against the
/// planes their device holds (`MINT_CHECK=1`, off by default): the GPU's counterpart of the
/// CPU backend's checked views. It costs a wait after every such kernel and the on-chip
/// optimizations, which it turns off.
pub fn check_reads() -> bool {
    CHECK.get()
}

/// Turns [`check_reads`] on or off (`None`: `MINT_CHECK` again).
pub fn set_check_reads(on: Option<bool>) {
    CHECK.set_or_reset(on);
}

/// The planes device `d` has current: the run holding its own planes, and a ring's run
/// wrapped around the extent's other end (empty when none).
fn valid_runs(s: Option<&Slabs>, d: usize) -> ((usize, usize), (usize, usize)) {
    let Some(s) = s else {
        return ((0, usize::MAX >> 1), (0, 0));
    };
    let runs = s.valid(d);
    let own = s.owned[d].0;
    let main = runs
        .iter()
        .copied()
        .find(|r| r.0 <= own && own < r.1)
        .unwrap_or(runs[0]);
    let wrap = runs.iter().copied().find(|&r| r != main).unwrap_or((0, 0));
    (main, wrap)
}

/// A failure found while waiting for a kernel, as a launch error of `site`.
fn launch_error(site: &KernelSite, e: Error) -> Error {
    match e {
        Error::Driver { message, .. } => Error::Launch {
            kernel: site.name.into(),
            location: site.location(),
            message,
        },
        other => other,
    }
}

fn report_distributed(info: &'static RegionInfo, name: &str, s: &Slabs) {
    if crate::stats::report_enabled() && crate::stats::report_once(format!("{:p} {name}", info)) {
        let slabs: Vec<String> = s
            .owned
            .iter()
            .enumerate()
            .map(|(d, (lo, hi))| format!("device {d}: planes {lo}..{hi}"))
            .collect();
        eprintln!(
            "mint report: decomposition of {}: `{name}` distributed in {} slabs along its slowest axis ({}), {} ghost plane(s) each side{}",
            info.name,
            s.devices(),
            slabs.join(", "),
            s.ghost,
            if s.ring {
                " as a ring (a kernel wraps around the extent: the first and last devices exchange ghost planes, and each device stores the whole extent)"
            } else {
                ""
            }
        );
    }
}

fn report_replicated(info: &'static RegionInfo, name: &str, why: &str) {
    if crate::stats::report_enabled() && crate::stats::report_once(format!("{:p} {name}", info)) {
        eprintln!(
            "mint report: decomposition of {}: `{name}` replicated on every device: {why}",
            info.name
        );
    }
}

/// The most steps `site`'s time loop runs between two halo exchanges, whose reach times
/// this the slabs carry in ghost planes: its `block`, or for a loop written without one,
/// [`crate::AUTO_DEEPEST`] where the kernel is tuned (`tune`, `MINT_TUNE=1`) and 1 where it
/// is not, as the loop decides (`AutoDepth::settle` asks the same question).
fn ghost_depth(site: &KernelSite) -> usize {
    if site.time_block_if_tuned && !crate::tune::wanted(site) {
        1
    } else {
        site.time_block.max(1) as usize
    }
}

/// Records a launch over several devices timed on the host from `t0` (events cannot span
/// GPUs): its halo exchange, its slowest device and, at a first launch, its compilation
/// and tuning included.
///
/// # Errors
/// [`Error::Translate`] where the site's kernel does not translate.
pub(crate) fn record_host_time(
    site: &KernelSite,
    args: &LaunchArgs,
    t0: std::time::Instant,
) -> Result<()> {
    let points: f64 = args
        .bounds
        .iter()
        .map(|&(lo, hi)| (hi - lo).max(0) as f64)
        .product();
    let bytes: f64 = site
        .kernel()?
        .arrays
        .iter()
        .map(|a| a.elem.size_bytes() as f64 * (a.read as u8 + a.written as u8) as f64)
        .sum::<f64>()
        * points;
    crate::stats::record_time(site.qualified(), t0.elapsed().as_secs_f64(), points, bytes);
    Ok(())
}
