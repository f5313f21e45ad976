//! A parallel region at run time: the memory manager's host-to-device table (thesis
//! Sec. 4.2.1), transfers, swaps, launches, `barrier!()`, and region exit.

use crate::array::DeviceArray;
use crate::cpu::CpuDev;
use crate::device::{Backend, Gpu, backend};
use crate::error::{Error, Result};
use crate::exec::{LaunchCtx, Pending, launch_as};
use crate::graph::{self, Batch};
use crate::host::{Element, HostArray, HostArrayMut, RawArray, Reducible, ScalarValue};
use crate::launch;
use crate::site::{KernelSite, LaunchArgs, RegionInfo};
use crate::split::Split;
use crate::stats;
use crate::stream::{HostRef, Streamer};
use crate::timeloop::TimeLoop;
pub use crate::timeloop::auto::AutoDepth;
use crate::timeloop::auto::Pending as AutoLaunch;
use cudarc::driver::{result as drv, sys};
use mint_translator::ir::RedOp;
use mint_translator::tune::Candidate;
use std::sync::Arc;

/// Timing events a region holds before it waits to read them.
const MAX_PENDING: usize = 512;

static SYNC: crate::flag::EnvFlag = crate::flag::EnvFlag::new("MINT_SYNC", false);

/// Whether the host waits at the end of every `for` without `nowait`, as the thesis's
/// Mint does (`MINT_SYNC=1`, [`set_sync_each_launch`]), instead of at the next point it
/// can observe the device (Mint's default): a fault is then reported by the launch that
/// caused it.
pub fn sync_each_launch() -> bool {
    SYNC.get()
}

/// Waits at the end of every `for` without `nowait` from now on (`true`), or lazily
/// (`false`, the default), over `MINT_SYNC`.
pub fn set_sync_each_launch(on: bool) {
    SYNC.set(on);
}

/// A fault the host found while waiting, charged to the kernels launched since it last
/// waited (`unwaited`, in launch order; empty when only `nowait` kernels of another
/// path ran).
fn unwaited_fault(info: &RegionInfo, unwaited: &[&'static KernelSite], message: String) -> Error {
    match unwaited {
        [] => Error::Launch {
            kernel: "(a kernel launched with nowait)".into(),
            location: format!("{}:{} (fn {})", info.file, info.line, info.name),
            message,
        },
        [one] => Error::Launch {
            kernel: one.name.into(),
            location: one.location(),
            message,
        },
        several => Error::Launch {
            kernel: several
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join("` or `"),
            location: several
                .iter()
                .map(|s| s.location())
                .collect::<Vec<_>>()
                .join(", "),
            message: format!(
                "{message} (one of the kernels launched since the host last waited; \
                 MINT_SYNC=1 waits after each launch and names the one that faulted)"
            ),
        },
    }
}

/// A region being executed. Created on entry to the function; dropping it waits for the
/// device and frees every device array (Mint's region exit).
pub struct Region {
    info: &'static RegionInfo,
    backend: Backend,
    slots: Vec<Option<DeviceArray>>,
    /// Kernels launched since the host last waited for the device.
    outstanding: bool,
    /// The kernels launched since the last wait, each once, in launch order: a fault
    /// found at the next wait names them.
    unwaited: Vec<&'static KernelSite>,
    /// The kernels this region has launched: the first launch of each waits for the
    /// device first (it may tune, and the tuner's trial runs wait).
    launched: Vec<&'static KernelSite>,
    events: Vec<sys::CUevent>,
    pending: Vec<Pending>,
    /// The arrays on several emulated devices (`cpu:N`).
    split: Option<Split>,
    /// Launches recorded for CUDA graphs ([`crate::graph`]; one GPU, `MINT_GRAPHS`).
    batch: Option<Batch>,
    /// A streamed region's recording ([`crate::stream`]; one GPU or the CPU).
    streamer: Option<Streamer>,
    /// On the plain CPU backend (one device), the slots that are "on the device": copied
    /// or allocated, so that it refuses what a GPU refuses (a kernel or a copy back of an
    /// array that never went to the device).
    cpu_on_device: Vec<bool>,
    /// The blocked time loop the region is in (`#[mint::time_loop]`).
    time: TimeLoop,
    /// Its time loops of several kernels per step ([`crate::timeloop::steps`]).
    steps: crate::timeloop::steps::Steps,
    /// The launch of a `block = auto` loop in flight, and the kernel site its loop
    /// launches (for the report).
    auto_launch: Option<AutoLaunch>,
    time_site: Option<&'static KernelSite>,
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Region({} on {})",
            self.info.name,
            self.backend.describe()
        )
    }
}

/// A `copy!`'s host array, as a streamed region records it.
fn host_ref<T: Element>(raw: &RawArray<T>) -> HostRef {
    HostRef {
        raw: raw.bytes(),
        elem: T::TY,
    }
}

fn check_shape(array: &str, what: &str, expected: &[usize], found: &[usize]) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            array: array.into(),
            what: what.into(),
            expected: expected.to_vec(),
            found: found.to_vec(),
        })
    }
}

impl Region {
    /// Enters a region: resolves the backend (`MINT_DEVICE`, [`crate::with_device`]).
    ///
    /// # Errors
    /// [`Error::NoDevice`] when CUDA is demanded and absent; [`Error::BadDeviceSpec`].
    pub fn enter(info: &'static RegionInfo) -> Result<Region> {
        let mut backend = backend()?;
        if crate::ranks::size() > 1 {
            // Across MPI ranks every region is split, each rank holding its devices' slabs.
            backend = match backend {
                Backend::Cpu => Backend::CpuSplit(1),
                Backend::Cuda(g) => Backend::CudaSplit(vec![g]),
                b => b,
            };
        }
        if let Backend::Cuda(g) = &backend {
            g.bind()?;
        }
        let split = match &backend {
            Backend::CpuSplit(n) => Some(Split::across_ranks(info, *n, None)?),
            Backend::CudaSplit(gpus) => {
                Some(Split::across_ranks(info, gpus.len(), Some(gpus.clone()))?)
            }
            _ => None,
        };
        let streamer = match (&info.stream, &backend) {
            (Some(spec), Backend::Cuda(_) | Backend::Cpu) => {
                Some(Streamer::new(spec, info.arrays.len()))
            }
            (Some(_), _) => {
                if stats::report_enabled() {
                    eprintln!(
                        "mint report: stream {}: not streamed on several devices ({}); the region runs split over them",
                        info.name,
                        backend.describe()
                    );
                }
                None
            }
            (None, _) => None,
        };
        let batch = match &backend {
            Backend::Cuda(g) if graph::enabled() && streamer.is_none() => {
                Some(Batch::take(g.stream.cu_stream()))
            }
            _ => None,
        };
        Ok(Region {
            streamer,
            split,
            batch,
            info,
            backend,
            slots: (0..info.arrays.len()).map(|_| None).collect(),
            cpu_on_device: vec![false; info.arrays.len()],
            time: TimeLoop::default(),
            steps: Default::default(),
            auto_launch: None,
            time_site: None,
            outstanding: false,
            unwaited: Vec::new(),
            launched: Vec::new(),
            events: Vec::new(),
            pending: Vec::new(),
        })
    }

    /// Whether this region runs on the CPU backend.
    pub fn is_cpu(&self) -> bool {
        matches!(self.backend, Backend::Cpu | Backend::CpuSplit(_))
    }

    /// The backend this region runs on.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    fn gpu(&self) -> Option<&Arc<Gpu>> {
        match &self.backend {
            Backend::Cuda(g) => Some(g),
            Backend::Cpu | Backend::CpuSplit(_) | Backend::CudaSplit(_) => None,
        }
    }

    fn name(&self, slot: usize) -> &'static str {
        self.info.arrays[slot].name
    }

    /// `copy!(x, to_device [, shape])`: allocates `x`'s device array on first use, then
    /// copies the host data to it. On the CPU backend only the shape is checked.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `shape` or an earlier allocation disagrees with the
    /// host array; [`Error::NotStandardLayout`]; [`Error::OutOfMemory`].
    pub fn copy_to_device<A: HostArray + ?Sized>(
        &mut self,
        slot: usize,
        host: &A,
        shape: Option<&[usize]>,
    ) -> Result<()> {
        let raw = host.raw();
        let name = self.name(slot);
        if let Some(s) = shape {
            check_shape(
                name,
                "the shape given to copy! differs from the host array's",
                s,
                &raw.user_shape(),
            )?;
        }
        if self.split.is_none() {
            raw.check_whole(name)?;
        }
        if let Some(st) = &mut self.streamer {
            if !raw.standard {
                return Err(Error::NotStandardLayout { array: name.into() });
            }
            st.record_input(slot, host_ref(&raw));
            return Ok(());
        }
        self.cpu_on_device[slot] = true;
        if self.split.is_some() {
            self.wait()?;
            if !raw.standard {
                return Err(Error::NotStandardLayout { array: name.into() });
            }
            let split = self.split.as_mut().expect("checked");
            return split.copy_to(slot, name, &raw);
        }
        let Some(gpu) = self.gpu().cloned() else {
            return Ok(());
        };
        self.wait()?;
        if !raw.standard {
            return Err(Error::NotStandardLayout { array: name.into() });
        }
        if let Some(d) = &self.slots[slot] {
            check_shape(
                name,
                "the host array's shape differs from its device array's",
                &d.user_shape(),
                &raw.user_shape(),
            )?;
        } else {
            let d = DeviceArray::alloc(
                &gpu,
                name,
                <A::Elem as Element>::TY,
                raw.shape,
                raw.ndim,
                self.info.arrays[slot].align_x,
            )?;
            self.slots[slot] = Some(d);
        }
        self.slots[slot].as_ref().expect("allocated").upload(&raw)
    }

    /// `copy!(x, from_device [, shape])`: copies the device array back into `x`. The host
    /// array is untouched if anything fails.
    ///
    /// # Errors
    /// [`Error::NotOnDevice`] when `x` was never copied to the device;
    /// [`Error::ShapeMismatch`]; [`Error::NotStandardLayout`]; a kernel fault still
    /// pending on the device.
    pub fn copy_from_device<A: HostArrayMut + ?Sized>(
        &mut self,
        slot: usize,
        host: &mut A,
        shape: Option<&[usize]>,
    ) -> Result<()> {
        let raw = host.raw_mut();
        let name = self.name(slot);
        if let Some(s) = shape {
            check_shape(
                name,
                "the shape given to copy! differs from the host array's",
                s,
                &raw.user_shape(),
            )?;
        }
        if self.split.is_none() {
            raw.check_whole(name)?;
        }
        if self.split.is_none()
            && let Some(st) = &mut self.streamer
        {
            if !raw.standard {
                return Err(Error::NotStandardLayout { array: name.into() });
            }
            let last = st.record_output(name, slot, host_ref(&raw))?;
            if last && let Some(gpu) = self.gpu().cloned() {
                let st = self.streamer.take().expect("checked");
                return crate::stream::run(&gpu, self.info, st);
            }
            return Ok(());
        }
        if self.split.is_some() {
            self.wait()?;
            if !raw.standard {
                return Err(Error::NotStandardLayout { array: name.into() });
            }
            let split = self.split.as_ref().expect("checked");
            return split.copy_from(slot, name, &raw);
        }
        if self.is_cpu() {
            return if self.cpu_on_device[slot] {
                Ok(())
            } else {
                Err(Error::NotOnDevice {
                    array: name.into(),
                    when: format!("`copy!({name}, from_device)` runs"),
                })
            };
        }
        self.wait()?;
        let Some(d) = &self.slots[slot] else {
            return Err(Error::NotOnDevice {
                array: name.into(),
                when: format!("`copy!({name}, from_device)` runs"),
            });
        };
        check_shape(
            name,
            "the host array's shape differs from its device array's",
            &d.user_shape(),
            &raw.user_shape(),
        )?;
        if !raw.standard {
            return Err(Error::NotStandardLayout { array: name.into() });
        }
        d.download(&raw)
    }

    /// `std::mem::swap(a, b)` of two device-resident arrays in host code: their device
    /// arrays are swapped too, so each name keeps following its data.
    pub fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        if let Some(split) = &mut self.split {
            split.swap(a, b);
        } else if !self.is_cpu() {
            self.slots.swap(a, b);
        }
        self.cpu_on_device.swap(a, b);
    }

    /// `copy!(x, alloc [, shape])`: allocates `x`'s device array (of the host array's
    /// shape and element type) without copying anything; its contents are undefined until
    /// a kernel writes them (OpenACC's `create`).
    ///
    /// # Errors
    /// As [`Region::copy_to_device`]; [`Error::Stream`] in a streamed region.
    pub fn alloc_on_device<A: HostArray + ?Sized>(
        &mut self,
        slot: usize,
        host: &A,
        shape: Option<&[usize]>,
    ) -> Result<()> {
        let raw = host.raw();
        let name = self.name(slot);
        if let Some(s) = shape {
            check_shape(
                name,
                "the shape given to copy! differs from the host array's",
                s,
                &raw.user_shape(),
            )?;
        }
        if self.streamer.is_some() {
            return Err(Error::Stream {
                region: self.info.name.into(),
                message: format!("`copy!({name}, alloc)` has no place in a streamed region"),
            });
        }
        self.cpu_on_device[slot] = true;
        if let Some(split) = &mut self.split {
            return split.alloc(slot, name, &raw.bytes(), <A::Elem as Element>::TY);
        }
        let Some(gpu) = self.gpu().cloned() else {
            return Ok(());
        };
        self.wait()?;
        match &self.slots[slot] {
            Some(d) => check_shape(
                name,
                "the host array's shape differs from its device array's",
                &d.user_shape(),
                &raw.user_shape(),
            ),
            None => {
                let d = DeviceArray::alloc(
                    &gpu,
                    name,
                    <A::Elem as Element>::TY,
                    raw.shape,
                    raw.ndim,
                    self.info.arrays[slot].align_x,
                )?;
                self.slots[slot] = Some(d);
                Ok(())
            }
        }
    }

    /// Runs a kernel's CPU version: `f` once on the host arrays (`cpu`), or once per
    /// emulated device (`cpu:N`) after refreshing the ghost planes it reads.
    /// `slots[i]` is the region slot of the kernel's array `i`.
    ///
    /// # Errors
    /// On emulated devices: [`Error::NotOnDevice`], [`Error::OutsideSlab`].
    pub fn cpu_run(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        mut f: impl FnMut(&CpuDev),
    ) -> Result<()> {
        self.stream_on_cpu()?;
        if self.split.is_none() {
            self.check_on_cpu(site, slots)?;
        }
        let fused = self.cpu_fused(site, slots);
        match &mut self.split {
            None => {
                let dev = CpuDev::host();
                f(&dev);
                dev.faults.error(site).map_or(Ok(()), Err)
            }
            Some(s) => {
                if let Some((steps, pairs)) = fused
                    && s.run_fused(site, slots, steps, &pairs, &mut f)?
                {
                    self.time.ran(site, steps.0, true);
                    return Ok(());
                }
                s.run(site, slots, f).map(|_| ())
            }
        }
    }

    /// On emulated devices (`cpu:N`), in a blocked time loop: the steps `site` runs
    /// between two halo exchanges and its reach along the slowest axis, and the kernel's
    /// arrays that trade places at each step (`(read, written)`, the input and output
    /// first); `None`: one step (on the host CPU, blocking changes
    /// nothing). Decided at the loop's first launch of `site`, as on GPUs.
    fn cpu_fused(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
    ) -> Option<(DepthReach, Vec<(usize, usize)>)> {
        let depth = self.time.requested()?;
        let split = self.split.as_ref()?;
        let f = match self.time.decision(site) {
            Some(f) => f,
            None => {
                let how = site.kernel().map_err(|e| e.to_string()).and_then(|k| {
                    let f = self.time.config(k, slots, u32::MAX)?;
                    split.deep_halo(site, slots, depth, f.reach[2] as usize)?;
                    Ok(f)
                });
                self.time.decide(site, how)
            }
        }?;
        Some(((depth, f.reach[2] as usize), f.pairs()))
    }

    /// [`Region::cpu_run`] for a reduction kernel: `f` returns a device's value; the
    /// devices' values are combined in device order.
    ///
    /// # Errors
    /// As [`Region::cpu_run`].
    pub fn cpu_reduce<T: Reducible>(
        &mut self,
        site: &'static KernelSite,
        slots: &[usize],
        op: RedOp,
        mut f: impl FnMut(&CpuDev) -> T,
    ) -> Result<T> {
        self.stream_on_cpu()?;
        if self.split.is_none() {
            self.check_on_cpu(site, slots)?;
        }
        match &mut self.split {
            None => {
                let dev = CpuDev::host();
                let v = f(&dev);
                dev.faults.error(site).map_or(Ok(v), Err)
            }
            Some(s) => s.reduce(site, slots, op, f),
        }
    }

    /// [`Error::NotOnDevice`] for the first of a kernel's arrays that is not on the plain
    /// CPU backend's "device" (never copied or allocated), as a GPU would refuse it.
    fn check_on_cpu(&self, site: &'static KernelSite, slots: &[usize]) -> Result<()> {
        match slots.iter().position(|&s| !self.cpu_on_device[s]) {
            Some(i) => Err(site.not_on_device(i)),
            None => Ok(()),
        }
    }

    /// A streamed region on the CPU: at its first kernel, the emulated devices that stand
    /// for its slabs ([`crate::stream::cpu_split`]).
    fn stream_on_cpu(&mut self) -> Result<()> {
        if self.split.is_none()
            && let Some(st) = &self.streamer
        {
            self.split = Some(crate::stream::cpu_split(self.info, st)?);
        }
        Ok(())
    }

    /// Launches a kernel. Returns the reduced value of a `reduction` kernel.
    ///
    /// # Errors
    /// [`Error::NotOnDevice`] for an array never copied; [`Error::Translate`],
    /// [`Error::Compile`] on the first launch of a configuration; [`Error::Launch`].
    pub fn launch(
        &mut self,
        site: &'static KernelSite,
        args: &LaunchArgs,
        nowait: bool,
    ) -> Result<Option<ScalarValue>> {
        if self.auto_launch.is_some() {
            self.time_site = Some(site);
        }
        let blocked = self.blocked(site, args);
        if let Some(st) = &mut self.streamer {
            st.record_launch(self.info, site, args)?;
            return Ok(None);
        }
        if let (Some(split), Backend::CudaSplit(_)) = (&mut self.split, &self.backend) {
            let r = match blocked.map(|c| (c, split.launch_fused(site, args, nowait, c))) {
                Some((c, Ok(true))) => {
                    self.time
                        .ran(site, usize::from(c.options.time_block), false);
                    Ok(None)
                }
                // the fused kernel does not translate here: step by step from now on
                Some((_, Err(Error::Translate { message, .. }))) => {
                    self.time.decide(site, Err(message));
                    split.launch(site, args, nowait)
                }
                Some((_, Err(e))) => Err(e),
                Some((_, Ok(false))) | None => split.launch(site, args, nowait),
            };
            self.outstanding = nowait;
            if nowait && !self.unwaited.iter().any(|s| std::ptr::eq(*s, site)) {
                self.unwaited.push(site);
            }
            return r;
        }
        let Some(gpu) = self.gpu().cloned() else {
            unreachable!("the generated code runs the CPU version of a kernel on the CPU backend")
        };
        // A launch that waits for the device itself (a reduction reads its value back, a
        // first launch may tune) first waits for the kernels before it, so that a fault of
        // theirs is reported as theirs.
        let first = !self.launched.iter().any(|s| std::ptr::eq(*s, site));
        let reduction = site.kernel().is_ok_and(|k| k.reduction.is_some());
        if self.outstanding && (first || reduction) {
            self.wait()?;
        }
        if first {
            self.launched.push(site);
        }
        // The end of a `for` without `nowait` is a barrier (thesis Sec. 3.3.4); Mint
        // waits for it lazily, at the next point the host can observe the device
        // (`wait`), unless MINT_SYNC=1 asks for the thesis's eager wait.
        let eager = !nowait && sync_each_launch();
        let slots = &self.slots;
        let slot = |s: usize| slots.get(s).and_then(|a| a.as_ref());
        let mut cx = LaunchCtx {
            gpu: &gpu,
            slot: &slot,
            events: &mut self.events,
            pending: &mut self.pending,
            timing: true,
            owner: None,
            whole: None,
            // A first launch goes to the stream itself (its errors are its own; the batch
            // is empty: the region waited above). A launch the host waits for submits
            // the batch before it (`launch_as`).
            batch: if first { None } else { self.batch.as_mut() },
        };
        let r = match blocked {
            Some(c) => match launch_as(&mut cx, site, args, !eager, Some(c), true) {
                Ok(r) => {
                    self.time
                        .ran(site, usize::from(c.options.time_block), false);
                    r
                }
                // the fused kernel does not translate here (its rings do not fit the
                // device): this loop runs step by step from now on
                Err(Error::Translate { message, .. }) => {
                    self.time.decide(site, Err(message));
                    launch::launch(&mut cx, site, args, !eager)?
                }
                Err(e) => return Err(e),
            },
            None => launch::launch(&mut cx, site, args, !eager)?,
        };
        if eager || reduction {
            // the launch waited
            self.outstanding = false;
            self.unwaited.clear();
            self.resolve_timing();
        } else {
            self.outstanding = true;
            if !self.unwaited.iter().any(|s| std::ptr::eq(*s, site)) {
                self.unwaited.push(site);
            }
            // bound the events held for timing
            if self.pending.len() >= MAX_PENDING {
                self.wait()?;
            }
        }
        Ok(r)
    }

    /// `#[mint::time_loop(block = depth)]`, before an iteration of the loop's body with
    /// `left` steps to go: the body's launch fuses `depth` steps where it can (not the
    /// loop's last step). `swaps`: the slots of the two arrays each of the body's
    /// `std::mem::swap`s exchanges. The generated code calls it (issue #45).
    pub fn time_step_begin(&mut self, depth: usize, left: usize, swaps: &[(usize, usize)]) {
        self.time.begin(depth, left, swaps);
        if let Some(s) = &mut self.split {
            s.time_loop = self.time.execution();
        }
    }

    /// After an iteration of a blocked time loop's body: the steps it ran (1, or the
    /// depth of a fused launch).
    pub fn time_step_end(&mut self) -> usize {
        self.time.end()
    }

    /// `#[mint::time_loop(block = depth)]` on a loop whose step is several kernels (the
    /// region's time loop `group`, 1 first), before a step with `left` steps to go: on
    /// several devices, `depth` steps run between two halo exchanges where the loop
    /// allows it ([`crate::split`]'s `steps`); on one device, step by step. The generated
    /// code calls it (issue #45).
    pub fn time_group_begin(&mut self, depth: usize, left: usize, group: u32) {
        self.steps
            .begin(self.info, self.split.as_mut(), (depth, left, group));
    }

    /// After a step of a loop of several kernels per step: the steps it ran (1).
    pub fn time_group_end(&mut self) -> usize {
        self.steps.end(self.split.as_mut())
    }

    /// `#[mint::time_loop(block = auto)]`, before an iteration of the loop's body: as
    /// [`Region::time_step_begin`] at the depth `auto` gives, which times the loop's first
    /// launches at each depth and keeps the fastest (`crate::timeloop::auto`); on the CPU
    /// backend, and in a region split over MPI ranks, one step. The generated code calls
    /// it.
    ///
    /// # Errors
    /// A fault of an earlier kernel, found while waiting for the device before a timed
    /// launch.
    pub fn time_step_begin_auto(
        &mut self,
        auto: &'static AutoDepth,
        left: usize,
        swaps: &[(usize, usize)],
    ) -> Result<()> {
        // the ranks of a split region would time different depths and choose apart
        if self.is_cpu() || (self.split.is_some() && crate::ranks::size() > 1) {
            self.time_step_begin(1, left, swaps);
            self.auto_launch = None;
            return Ok(());
        }
        let (depth, timed) = auto.next();
        self.time_step_begin(depth, left, swaps);
        // the loop's last step runs alone: not a launch at `depth`
        if depth > 1 && left <= depth {
            self.auto_launch = None;
            return Ok(());
        }
        let start = if timed {
            self.wait()?;
            Some(std::time::Instant::now())
        } else {
            None
        };
        self.auto_launch = Some(AutoLaunch { depth, start });
        Ok(())
    }

    /// After an iteration of a `block = auto` loop's body: as [`Region::time_step_end`],
    /// and the launch's time goes to `auto` (the host waits for the device first when it
    /// was timed).
    ///
    /// # Errors
    /// A fault of the iteration's kernel, found while waiting.
    pub fn time_step_end_auto(&mut self, auto: &'static AutoDepth) -> Result<usize> {
        let steps = self.time.end();
        let Some(AutoLaunch { depth, start }) = self.auto_launch.take() else {
            return Ok(steps);
        };
        // a loop written without `block` times the depths only for a tuned kernel
        if let Some(site) = self.time_site
            && let Some(line) = auto.settle(|| crate::tune::wanted(site))
        {
            crate::timeloop::say(site, &line);
        }
        let secs = match start {
            Some(t0) => {
                self.wait()?;
                Some(t0.elapsed().as_secs_f64())
            }
            None => None,
        };
        if let Some(line) = auto.record(depth, steps, secs)
            && let Some(site) = self.time_site
        {
            crate::timeloop::say(site, &line);
        }
        Ok(steps)
    }

    /// The configuration of a fused launch of `site`, when the time loop asks for one
    /// and the step can be blocked here; otherwise `None`, and the report says why.
    fn blocked(&mut self, site: &'static KernelSite, args: &LaunchArgs) -> Option<Candidate> {
        let depth = self.time.requested()?;
        if let Some(f) = self.time.decision(site) {
            return f.map(|f| f.c);
        }
        let how = if self.streamer.is_some() {
            Err("a streamed region runs it step by step".to_string())
        } else {
            match site.kernel() {
                Ok(k) => {
                    let shared = match &self.split {
                        Some(s) => s.gpus.as_deref().and_then(|g| g.first()),
                        None => self.gpu(),
                    }
                    .map_or(u32::MAX, |g| g.shared_bytes_optin);
                    let f = self.time.config(k, args.arrays, shared);
                    match &self.split {
                        // several devices: `depth` steps between two halo exchanges
                        Some(s) => f.and_then(|f| {
                            s.deep_halo(site, args.arrays, depth, f.reach[2] as usize)?;
                            Ok(f)
                        }),
                        None => f,
                    }
                }
                Err(e) => Err(e.to_string()),
            }
        };
        self.time.decide(site, how).map(|f| f.c)
    }

    /// Typed wrapper of [`Region::launch`] for reductions: the reduced value as `T`.
    ///
    /// # Errors
    /// As [`Region::launch`].
    pub fn launch_reduce<T: Element>(
        &mut self,
        site: &'static KernelSite,
        args: &LaunchArgs,
    ) -> Result<T> {
        let v = self
            .launch(site, args, false)?
            .expect("a reduction kernel returns its value");
        Ok(T::from_bits64(v.bits))
    }

    fn wait(&mut self) -> Result<()> {
        let info = self.info;
        let unwaited = std::mem::take(&mut self.unwaited);
        // a fault found while waiting belongs to one of the kernels launched since the
        // last wait
        let fault = |e: Error| match e {
            Error::Driver { message, .. } => unwaited_fault(info, &unwaited, message),
            other => other,
        };
        if let (Some(s), true) = (&self.split, self.outstanding) {
            s.synchronize().map_err(fault)?;
            self.outstanding = false;
        }
        if let Some(b) = &mut self.batch {
            b.flush().map_err(fault)?;
        }
        if let Some(g) = self.gpu()
            && (self.outstanding || !self.pending.is_empty())
        {
            g.synchronize().map_err(fault)?;
            self.outstanding = false;
        }
        self.resolve_timing();
        Ok(())
    }

    fn resolve_timing(&mut self) {
        for p in self.pending.drain(..) {
            let ms = unsafe { drv::event::elapsed(p.start, p.end) }.unwrap_or(0.0);
            stats::record_time(p.kernel.qualified(), ms as f64 * 1e-3, p.points, p.bytes);
            self.events.push(p.start);
            self.events.push(p.end);
        }
    }

    /// `mint::barrier!()`: waits for every kernel launched with `nowait`.
    ///
    /// # Errors
    /// A fault of one of those kernels.
    pub fn barrier(&mut self) -> Result<()> {
        self.wait()
    }

    /// Region exit with errors reported: waits for the device and frees the arrays.
    /// (Dropping the region does the same and ignores errors.)
    ///
    /// # Errors
    /// A fault of a kernel still running.
    pub fn exit(mut self) -> Result<()> {
        self.wait()
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        let _ = self.wait();
        let report = stats::report_enabled();
        for s in self.slots.iter_mut() {
            *s = None;
        }
        if let Some(g) = self.gpu() {
            let _ = g.bind();
            for e in self.events.drain(..) {
                let _ = unsafe { drv::event::destroy(e) };
            }
            if let Some(b) = self.batch.take() {
                b.give_back();
            }
        }
        if report && !self.is_cpu() {
            for s in stats::kernel_stats() {
                if s.timed_launches > 0 {
                    eprintln!(
                        "mint report: {} ({}): {} launches, {:.3} ms/launch, {:.1} GB/s effective",
                        s.kernel,
                        s.location,
                        s.launches,
                        s.seconds_per_launch() * 1e3,
                        s.effective_bandwidth() * 1e-9
                    );
                }
            }
        }
    }
}

/// The steps a blocked launch runs between two halo exchanges and its reach along the
/// slowest axis.
type DepthReach = (usize, usize);
