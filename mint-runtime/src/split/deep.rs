//! Deep halos: `k` steps of a blocked time loop between two halo exchanges (issue #45,
//! item 4), on several GPUs and on emulated devices.
//!
//! A kernel in `#[mint::time_loop(block = k)]` gives its region's slabs `k ×` its reach
//! in ghost planes along the slowest axis (the farthest plane any of its arrays is read
//! at; the decomposition's `Layout`), whether or not its loop then runs blocked. Before
//! the `k` steps the ghost planes of the arrays they read are refreshed from their owners
//! (the input; a coefficient array written since its last exchange; the output, unless
//! only the loop's own steps wrote it, [`super::Writers`]); then each device computes step
//! `j` of `1..=k` on its own planes widened by `(k − j) × reach` on each side (within the
//! array and the loop's range), from what it holds: the planes step `j` reads are its own,
//! its ghost planes, or planes it computed at step `j − 1`. Its own planes after step `k`
//! are then exactly what one device computes, bit for bit, with one exchange where step by
//! step needs `k`: the communication-avoiding scheme of overlapped (ghost-zone) tiling,
//! seed `002_c2277fb7a2a128f7.txt` Sec. 3.2.1, applied to the slabs as the fused kernel
//! applies it to its x-y tiles.
//!
//! - On GPUs the `k` steps are one fused launch per GPU
//!   ([`mint_translator::optimizer::temporal`]), its z planes the device's own; the
//!   kernel tells the loop's fixed boundary planes by the loop's whole range
//!   ([`crate::exec::LaunchCtx::whole`]), and computes the widened planes of steps
//!   `1..k` itself, as it computes the ghost cells of its tiles.
//! - On emulated devices (`MINT_DEVICE=cpu:N`) the CPU runs the `k` steps one after the
//!   other on each device's storage, the two arrays of each of the loop's swaps trading
//!   places at every step, each step on its widened planes.
//!
//! Where this cannot hold the loop runs step by step: a ring of slabs, `MINT_CHECK=1` on
//! GPUs, slabs with fewer ghost planes than needed, a streamed region (`MINT_REPORT=1`
//! says why), and a kernel that does not run split (owner-computes, or on replicated
//! arrays only on `cpu:N`).

use super::{Split, check_reads, clip_bounds, gpu_part};
use crate::cpu::CpuDev;
use crate::decomp::{self, Mode};
use crate::error::Result;
use crate::exec::LaunchCtx;
use crate::site::{KernelSite, LaunchArgs};
use mint_translator::tune::Candidate;

impl Split {
    /// Whether `depth` steps of `site`, whose input reaches `reach` planes along the
    /// slowest axis, can run between two exchanges of the arrays in `slots`: the slabs
    /// must hold `depth ×` the farthest plane any of its arrays is read at; `Err(why)`
    /// otherwise.
    pub(crate) fn deep_halo(
        &self,
        site: &KernelSite,
        slots: &[usize],
        depth: usize,
        reach: usize,
    ) -> std::result::Result<(), String> {
        let refs = site.slab_refs().map_err(|e| e.to_string())?;
        let reach = decomp::region_ghost(std::slice::from_ref(refs), self.layout.rank).max(reach);
        self.block_allowed(depth, reach)?;
        let ring = slots.iter().any(|&s| {
            self.slots
                .get(s)
                .and_then(|a| a.as_ref())
                .and_then(|a| a.slabs.as_ref())
                .is_some_and(|sl| sl.ring)
        });
        if ring {
            return Err("its slabs are a ring (a periodic wrap)".into());
        }
        Ok(())
    }

    /// What any block of `depth` steps between two exchanges needs of the region, each
    /// step reaching `per_step` planes along the slowest axis (one kernel's, or the sum of
    /// a step's kernels, [`super::steps`]): a region not streamed, no `MINT_CHECK=1` on
    /// GPUs, and slabs of at least `depth × per_step` ghost planes; `Err(why)` otherwise.
    pub(super) fn block_allowed(
        &self,
        depth: usize,
        per_step: usize,
    ) -> std::result::Result<(), String> {
        if self.streamed {
            return Err("a streamed region runs it step by step".into());
        }
        if self.gpus.is_some() && check_reads() {
            return Err("MINT_CHECK checks each step's reads".into());
        }
        if self.ghost < depth * per_step {
            return Err(format!(
                "its slabs have {} ghost plane(s) each side, fewer than the {depth} x {per_step} that {depth} steps between two exchanges need",
                self.ghost
            ));
        }
        Ok(())
    }

    /// `depth` fused steps of `site` on every GPU, after refreshing the ghost planes they
    /// read: [`Candidate`] `c` is the fused launch's configuration. `Ok(false)`, having run
    /// nothing, where the kernel does not run split (the caller then runs one step).
    ///
    /// # Errors
    /// As [`Split::launch`]; [`crate::Error::Translate`] where the fused kernel does not
    /// translate for the device.
    pub(crate) fn launch_fused(
        &mut self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        nowait: bool,
        c: Candidate,
    ) -> Result<bool> {
        // timed on the host as `Split::launch` is, its exchange included
        let t0 = (!nowait && crate::stats::timing_enabled()).then(std::time::Instant::now);
        let plan = self.prepare(site, args.arrays)?;
        let clip = match plan.mode {
            Mode::Split { clip } => Some(clip),
            Mode::Everywhere => None,
            Mode::Owner => return Ok(false),
        };
        let outputs: Vec<usize> = (0..plan.writes.len()).filter(|&i| plan.writes[i]).collect();
        self.refresh(site, args.arrays, &outputs)?;
        let launched = self.launch_fused_local(site, args, clip, c);
        // every rank fails alike, or none does
        crate::ranks::agree(
            || format!("kernel {} ({})", site.name, site.location()),
            launched,
        )?;
        self.finish(site, &plan, args.arrays);
        if !nowait {
            self.synchronize()?;
        }
        if let Some(t0) = t0 {
            super::record_host_time(site, args, t0)?;
        }
        Ok(true)
    }

    /// [`Split::launch_fused`] on this rank's GPUs: each GPU's launch over its own planes.
    fn launch_fused_local(
        &self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        clip: Option<i64>,
        c: Candidate,
    ) -> Result<()> {
        let gpus = self.gpus.as_deref().expect("a split over GPUs");
        let slabs = self.slabs();
        let arrays = &self.slots;
        for (i, g) in gpus.iter().enumerate() {
            let d = self.local.start + i;
            let slot = |s: usize| gpu_part(arrays, i, s);
            let owned = slabs.as_ref().map_or((0, 0), |s| s.owned[d]);
            let bounds = clip_bounds(args.bounds, owned, clip);
            let a = LaunchArgs {
                bounds: &bounds,
                ..*args
            };
            let (mut events, mut pending) = (Vec::new(), Vec::new());
            let mut cx = LaunchCtx::quiet(g, &slot, &mut events, &mut pending);
            cx.whole = Some(args.bounds);
            crate::exec::launch_as(&mut cx, site, &a, true, Some(c), true)?;
        }
        Ok(())
    }

    /// `depth` steps of `site`'s CPU version on every emulated device between two
    /// exchanges: step `j` on each device's planes widened by `(depth − j) × reach`, the
    /// kernel's arrays of each pair of `pairs` (`(read, written)`, its indices; the input
    /// and output first) trading places at every step.
    /// `Ok(false)`, having run nothing, where the kernel does not run split.
    ///
    /// # Errors
    /// As [`Split::run`].
    pub(crate) fn run_fused(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        (depth, reach): (usize, usize),
        pairs: &[(usize, usize)],
        mut f: impl FnMut(&CpuDev),
    ) -> Result<bool> {
        let plan = self.prepare(site, slots)?;
        if !matches!(plan.mode, Mode::Split { .. }) {
            return Ok(false);
        }
        let outputs: Vec<usize> = pairs.iter().map(|p| p.1).collect();
        let output = outputs[0];
        self.refresh(site, slots, &outputs)?;
        let mut order = slots.to_vec();
        for j in 1..=depth {
            let widen = (depth - j) * reach;
            let mut fault = None;
            for d in self.local.clone() {
                // within the planes the device holds
                let held = self.slots[order[output]]
                    .as_ref()
                    .expect("checked in prepare")
                    .held(d);
                let mut dev = self.dev(site, &plan, &order, d);
                if let Some(s) = dev.split.as_mut() {
                    s.owned = (
                        s.owned.0.saturating_sub(widen).max(held.0),
                        (s.owned.1 + widen).min(held.1),
                    );
                }
                f(&dev);
                if let Some(e) = dev.faults.error(site) {
                    fault = Some(e);
                    break;
                }
            }
            crate::ranks::agree(
                || format!("kernel {} ({})", site.name, site.location()),
                fault.map_or(Ok(()), Err),
            )?;
            for &(input, output) in pairs {
                order.swap(input, output);
            }
        }
        self.finish(site, &plan, slots);
        // the steps between the first and the last wrote the inputs too
        let me = (site as *const KernelSite as usize, self.time_loop);
        for &(input, _) in pairs {
            if let Some(a) = self.slots[slots[input]].as_mut().filter(|_| depth > 1) {
                a.stale = true;
                a.writers = a.writers.and(me);
            }
        }
        Ok(true)
    }

    /// Before a block of steps of `site` (its kernel's arrays `outputs` those it writes):
    /// the ghost planes of every array the block reads are current. The steps widened into
    /// the ghost planes read the other arrays there (coefficients) and, at the points no
    /// step writes (fixed boundaries), the output; `prepare` refreshed the input. The
    /// output is left as it is where only this loop's steps wrote it since its last
    /// exchange: they write the points inside the loop's ranges, which the block writes
    /// before it reads them.
    fn refresh(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        outputs: &[usize],
    ) -> Result<()> {
        let me = super::Writers::One(site as *const KernelSite as usize, self.time_loop);
        for (i, &slot) in slots.iter().enumerate() {
            let Some(a) = self.slots.get(slot).and_then(|a| a.as_ref()) else {
                continue;
            };
            if a.slabs.is_none() || !a.stale || (outputs.contains(&i) && a.writers == me) {
                continue;
            }
            self.exchange(slot)?;
        }
        self.join_halos()
    }
}
