//! One launch of a kernel on one GPU: the launch's device arrays and the key of its
//! variant ([`LaunchCtx`], `launch_key`), the checks of the arrays against the translation,
//! the parameter words, and then a record in the region's batch ([`crate::graph`]) or a
//! `cuLaunchKernel` on the stream, with timing events and a reduction's finish kernel
//! ([`launch_as`]); and the autotuner's configurations of a launch ([`Configs`]).

use crate::array::DeviceArray;
use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::host::{Reducible, ScalarValue};
use crate::jit;
use crate::raw::{STACK_PARAMS, enqueue_words};
use crate::site::{Bound, Buffers, DevBuf, KernelSite, LaunchArgs, Variant, VariantKey};
use crate::stats;
use crate::variant::{
    compile_variant, launch_err, load_variant, param_limit, raised_cap, register_cap,
    report_variant, target_of, variant,
};
use cudarc::driver::CudaFunction;
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use mint_translator::Translation;
use mint_translator::emit::ParamKind;
use mint_translator::ir::{Kernel, ScalarTy};
use mint_translator::passes::reduction::FINISH_THREADS;
use mint_translator::tune::{Candidate, Space};
use std::sync::Arc;
use std::time::Instant;

/// The autotuner's configurations of one launch of a kernel: what
/// [`crate::tune`] needs from this module.
pub(crate) struct Configs<'a> {
    site: &'static KernelSite,
    key: VariantKey,
    gpu: &'a Arc<Gpu>,
    /// The kernel with its types bound, as JSON (part of the key of a stored choice).
    kernel_json: String,
}

impl<'a> Configs<'a> {
    /// The configurations of a launch of `site` with `args` on `cx`'s GPU: the space the
    /// kernel admits and its configuration as written; `Ok(None)` when the autotuner does
    /// not tune it ([`mint_translator::tune::Space::of`]).
    ///
    /// # Errors
    /// What the launch itself would fail with: an array not on the device, or a kernel
    /// the translator rejects as written.
    pub(crate) fn of(
        cx: &LaunchCtx<'a>,
        site: &'static KernelSite,
        args: &LaunchArgs,
    ) -> Result<Option<(Configs<'a>, Space, Candidate)>> {
        let gpu = cx.gpu;
        let (_, key) = launch_key(cx, site, args)?;
        let k = site.bound_kernel(key.types.as_ref())?;
        let Some(space) = Space::of(&k) else {
            return Ok(None);
        };
        let written =
            mint_translator::tune::as_written(&k, &target_of(gpu, &key, register_cap().0))
                .map_err(|d| site.translate_err(d))?;
        let kernel_json = serde_json::to_string(k.as_ref()).unwrap_or_default();
        Ok(Some((
            Configs {
                site,
                key,
                gpu,
                kernel_json,
            },
            space,
            written,
        )))
    }

    /// Translates and compiles every candidate on several threads (NVRTC is
    /// thread-safe), then loads them: each candidate's error, if it has one (it does not
    /// fit the device, or its module does not load).
    pub(crate) fn prepare(&self, cands: &[Candidate]) -> Vec<Option<Error>> {
        use rayon::prelude::*;
        let keys: Vec<VariantKey> = cands
            .iter()
            .map(|c| VariantKey {
                config: Some(*c),
                ..self.key.clone()
            })
            .collect();
        let gpu: &Gpu = self.gpu;
        // in rounds: every candidate still to load is compiled in parallel, then loaded;
        // the ones that spill go to the next round at their next register cap (`unspill`,
        // with the raises compiled in parallel rather than one candidate after another)
        let mut todo: Vec<(usize, u32)> = (0..keys.len())
            .filter(|&i| !self.loaded(&keys[i]))
            .map(|i| (i, register_cap().0))
            .collect();
        let mut notes: Vec<Vec<String>> = vec![Vec::new(); keys.len()];
        let mut errors: Vec<Option<Error>> = (0..keys.len()).map(|_| None).collect();
        while !todo.is_empty() {
            let compiled: Vec<Result<(Translation, jit::Image)>> = todo
                .par_iter()
                .map(|&(i, cap)| compile_variant(self.site, gpu, &keys[i], cap))
                .collect();
            let mut next = Vec::new();
            for (&(i, _), c) in todo.iter().zip(compiled) {
                let r = c.and_then(|(t, image)| {
                    load_variant(
                        self.site,
                        self.gpu,
                        keys[i].clone(),
                        t,
                        image,
                        Instant::now(),
                        false,
                    )
                });
                match r {
                    Ok(mut v) => match raised_cap(&v) {
                        Some((cap, note)) => {
                            notes[i].push(note);
                            next.push((i, cap));
                        }
                        None => {
                            v.t.report.notes.append(&mut notes[i]);
                            let mut vs =
                                self.site.variants.lock().unwrap_or_else(|p| p.into_inner());
                            vs.push(Arc::new(v));
                        }
                    },
                    Err(e) => errors[i] = Some(e),
                }
            }
            todo = next;
        }
        errors
    }

    /// The kernel with its types bound, as JSON.
    pub(crate) fn kernel_json(&self) -> &str {
        &self.kernel_json
    }

    /// Which of the kernel's arrays it writes, from the loaded variant of `c`.
    pub(crate) fn written_arrays(&self, c: &Candidate) -> Result<Vec<bool>> {
        let key = VariantKey {
            config: Some(*c),
            ..self.key.clone()
        };
        let v = variant(self.site, self.gpu, key)?;
        Ok(v.t.ir.arrays.iter().map(|a| a.written).collect())
    }

    fn loaded(&self, key: &VariantKey) -> bool {
        let vs = self.site.variants.lock().unwrap_or_else(|p| p.into_inner());
        vs.iter().any(|v| &v.key == key)
    }

    /// Unloads the candidates other than `keep`, so that later launches search a short
    /// list of variants, and reports `keep`'s variant (`MINT_REPORT=1`).
    pub(crate) fn unload_except(&self, keep: &Candidate) {
        let mut vs = self.site.variants.lock().unwrap_or_else(|p| p.into_inner());
        vs.retain(|v| v.key.config.is_none() || v.key.config.as_ref() == Some(keep));
        if let Some(v) = vs
            .iter()
            .find(|v| v.key.config.as_ref() == Some(keep) && v.key.clauses == self.key.clauses)
        {
            report_variant(v);
        }
    }
}

/// Events timing one launch, resolved at the next synchronization.
pub(crate) struct Pending {
    pub kernel: &'static KernelSite,
    pub start: sys::CUevent,
    pub end: sys::CUevent,
    pub points: f64,
    pub bytes: f64,
}

/// What the region passes to a launch.
pub(crate) struct LaunchCtx<'a> {
    pub gpu: &'a Arc<Gpu>,
    /// The device array of a region slot on this GPU.
    pub slot: &'a dyn Fn(usize) -> Option<&'a DeviceArray>,
    pub events: &'a mut Vec<sys::CUevent>,
    pub pending: &'a mut Vec<Pending>,
    /// Time the launch with events (one GPU only).
    pub timing: bool,
    /// Owner-computes on one of several GPUs: the lowered kernel's added array and
    /// scalars, and which of the kernel's arrays are distributed.
    pub owner: Option<OwnerArgs<'a>>,
    /// Where launches the host does not wait for are recorded ([`crate::graph`]); a
    /// launch that goes to the stream directly submits it first.
    pub batch: Option<&'a mut crate::graph::Batch>,
    /// On one of several devices: the loops' bounds as the region wrote them, before the
    /// decomposition clipped `args.bounds` to the device's planes (`None`: the same).
    pub whole: Option<&'a [(i64, i64)]>,
}

/// The arguments [`mint_translator::owner::lower`] (or, with `check`,
/// [`mint_translator::owner::lower_check`]) adds to a kernel.
pub(crate) struct OwnerArgs<'a> {
    pub distributed: Vec<bool>,
    pub check: bool,
    pub fault: &'a DeviceArray,
    pub scalars: Vec<ScalarValue>,
}

impl<'a> LaunchCtx<'a> {
    /// A context for launches on `gpu` that are not timed, not owner-computes and not
    /// batched: the autotuner's candidates, a streamed slab, one GPU of a split.
    pub(crate) fn quiet(
        gpu: &'a Arc<Gpu>,
        slot: &'a dyn Fn(usize) -> Option<&'a DeviceArray>,
        events: &'a mut Vec<sys::CUevent>,
        pending: &'a mut Vec<Pending>,
    ) -> LaunchCtx<'a> {
        LaunchCtx {
            gpu,
            slot,
            events,
            pending,
            timing: false,
            owner: None,
            batch: None,
            whole: None,
        }
    }
}

impl LaunchCtx<'_> {
    fn event(&mut self) -> Result<sys::CUevent> {
        match self.events.pop() {
            Some(e) => Ok(e),
            None => drv::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| Error::driver("cuEventCreate", e)),
        }
    }
}

fn fits_i32(v: i128) -> bool {
    v >= i32::MIN as i128 && v <= i32::MAX as i128
}

/// The device arrays of a launch, in the kernel's order, and the key of its variant in
/// the kernel's own configuration.
pub(crate) fn launch_key<'a>(
    cx: &LaunchCtx<'a>,
    site: &'static KernelSite,
    args: &LaunchArgs,
) -> Result<(Vec<&'a DeviceArray>, VariantKey)> {
    let kernel = site.kernel()?;
    let gpu = cx.gpu;
    // Device arrays of this launch, in the kernel's order.
    let mut arrays: Vec<&DeviceArray> = Vec::with_capacity(args.arrays.len());
    for (i, &slot) in args.arrays.iter().enumerate() {
        match (cx.slot)(slot) {
            Some(a) => arrays.push(a),
            None => return Err(site.not_on_device(i)),
        }
    }
    // 64-bit indexing only when some array or bound needs it.
    let idx64 = arrays.iter().any(|a| a.span_elems() > i32::MAX as usize)
        || args
            .bounds
            .iter()
            .any(|&(lo, hi)| !fits_i32(lo as i128) || !fits_i32(hi as i128))
        || kernel.scalars.iter().zip(args.scalars).any(|(p, v)| {
            p.ty.unwrap_or(v.ty).is_index() && v.as_i128().is_some_and(|x| !fits_i32(x))
        });
    // Types bound at launch: each array's element type from its device array, each open
    // scalar's from the host value.
    let mut types = None;
    if site.is_open(kernel) {
        let mut b = Bound::default();
        for (p, a) in kernel.arrays.iter().zip(&arrays) {
            if p.ndim != 0 && p.ndim as usize != a.ndim {
                return Err(Error::Translate {
                    kernel: site.name.into(),
                    location: site.location(),
                    message: format!(
                        "array `{}` has {} dimension(s) on the device but the kernel indexes it with {}",
                        p.name, a.ndim, p.ndim
                    ),
                });
            }
            b.arrays.push((a.elem, a.ndim as u8));
        }
        b.scalars = args.scalars.iter().map(|v| v.ty).collect();
        let mut last = site.last_types.lock().unwrap_or_else(|p| p.into_inner());
        if last.as_ref() != Some(&b) {
            *last = Some(b.clone());
        }
        drop(last);
        types = Some(b);
    }
    let key = VariantKey {
        ordinal: gpu.ordinal,
        idx64,
        clauses: args.clauses.to_vec(),
        param_limit: param_limit(),
        types,
        owner: cx.owner.as_ref().map(|o| (o.distributed.clone(), o.check)),
        config: None,
    };
    Ok((arrays, key))
}

/// Launches `site` with `args` in configuration `config` (the kernel's own when
/// `None`); `counted`: the launch counts in the kernel's statistics (the autotuner's
/// trial launches do not).
pub(crate) fn launch_as(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
    nowait: bool,
    config: Option<Candidate>,
    counted: bool,
) -> Result<Option<ScalarValue>> {
    let gpu = cx.gpu.clone();
    let (mut arrays, mut key) = launch_key(cx, site, args)?;
    key.config = config;
    let idx64 = key.idx64;
    let v = variant(site, &gpu, key)?;
    if let Some(o) = &cx.owner {
        arrays.push(o.fault);
    }
    let t = &v.t;
    check_arrays(site, t, &arrays)?;
    // at most three parallel loops
    let mut extent_buf = [0i64; 3];
    for (e, &(lo, hi)) in extent_buf.iter_mut().zip(args.bounds) {
        *e = hi - lo;
    }
    let extents = &extent_buf[..args.bounds.len().min(3)];
    let grid = t.config.grid(extents);
    let red = t.reduction.as_ref();
    if counted {
        stats::record_launch(site.qualified(), || site.location());
    }
    if grid.contains(&0) {
        // An empty iteration space: nothing runs; a reduction yields its identity.
        return Ok(red.map(|r| identity_value(r.op, r.ty)));
    }
    check_grid(site, &grid, &gpu)?;
    let blocks: u64 = grid.iter().product();
    let timing = cx.timing && stats::timing_enabled();
    // Recorded into the region's batch: a counted launch nobody waits for, not timed,
    // without a reduction or packed parameters (whose buffers the stream writes).
    let batched = nowait && counted && !timing && red.is_none() && t.packed.is_empty();
    if !batched && let Some(b) = cx.batch.as_deref_mut() {
        b.flush()?;
    }

    let mut bufs = v.bufs.lock().unwrap_or_else(|p| p.into_inner());
    let partials = match red {
        Some(r) => Some(
            bufs.partials
                .get_or_insert(DevBuf { ptr: 0, bytes: 0 })
                .ensure(&gpu, blocks as usize * r.ty.size_bytes() as usize)?,
        ),
        None => None,
    };
    let params = Params {
        arrays: &arrays,
        idx64,
        owner: cx.owner.as_ref(),
        args,
        kernel: &t.ir,
        partials,
        whole: cx.whole.unwrap_or(args.bounds),
    };
    // The parameter words, on the stack for the usual kernel (no allocation per launch).
    let mut word_buf = [0u64; STACK_PARAMS];
    let mut word_vec = Vec::new();
    let words = params.words(t, &mut bufs, &gpu, &mut word_buf, &mut word_vec)?;
    let to_u32 = |g: u64| g as u32;
    let grid = [to_u32(grid[0]), to_u32(grid[1]), to_u32(grid[2])];
    if batched && let Some(b) = cx.batch.as_deref_mut() {
        b.push(crate::graph::Rec {
            site,
            func: v.func.cu_function(),
            _keep: v.clone(),
            grid,
            block: t.config.block,
            shared: t.dynamic_shared_bytes,
            words: words.to_vec(),
        })?;
        return Ok(None);
    }
    enqueue_timed(cx, site, &v, grid, words, timing.then_some(extents))?;
    let result = match (red, &v.finish) {
        (Some(r), Some(f)) => Some(finish_reduction(
            site, &gpu, &mut bufs, f, r.ty, partials, blocks,
        )?),
        _ => None,
    };
    if !nowait && result.is_none() {
        gpu.synchronize().map_err(|e| as_launch_error(site, e))?;
    }
    Ok(result)
}

/// [`Error::Translate`] unless the launch's device arrays (`arrays`, in the kernel's
/// order) hold the element types the translation `t` reads, and the arrays of each of its
/// `same_index` groups share a layout.
fn check_arrays(site: &KernelSite, t: &Translation, arrays: &[&DeviceArray]) -> Result<()> {
    // The typed kernel as translated (the same as `site.kernel()` unless types are bound
    // at launch).
    let kernel = &t.ir;
    for (i, a) in arrays.iter().enumerate() {
        if kernel.arrays.get(i).is_some_and(|p| p.elem != a.elem) {
            return Err(Error::Translate {
                kernel: site.name.into(),
                location: site.location(),
                message: format!(
                    "array `{}` holds {} on the device but the kernel reads it as {}",
                    a.name, a.elem, kernel.arrays[i].elem
                ),
            });
        }
    }
    // `same_index` trusts arrays of one group to share a layout (thesis Sec. 5.9); check it.
    for g in &t.same_index {
        let first = arrays[g[0]];
        if let Some(&i) = g
            .iter()
            .find(|&&i| arrays[i].pitch != first.pitch || arrays[i].slice != first.slice)
        {
            return Err(Error::Translate {
                kernel: site.name.into(),
                location: site.location(),
                message: format!(
                    "same_index needs arrays of identical shape: `{}` is {:?} but `{}` is {:?}; remove same_index from this kernel",
                    first.name,
                    first.user_shape(),
                    arrays[i].name,
                    arrays[i].user_shape()
                ),
            });
        }
    }
    Ok(())
}

/// [`Error::Translate`] when `grid` (blocks along x, y, z) exceeds the device's limits.
fn check_grid(site: &KernelSite, grid: &[u64; 3], gpu: &Gpu) -> Result<()> {
    for (axis, (&g, &max)) in grid.iter().zip(&gpu.max_grid).enumerate() {
        if g > max as u64 {
            return Err(Error::Translate {
                kernel: site.name.into(),
                location: site.location(),
                message: format!(
                    "{g} blocks along {} exceed the device's {max}; use a larger tile there",
                    ["x", "y", "z"][axis]
                ),
            });
        }
    }
    Ok(())
}

/// What the parameter words of one launch are made of ([`ParamKind`]).
struct Params<'a> {
    /// The launch's device arrays in the kernel's order (an owner-computes kernel's fault
    /// record last).
    arrays: &'a [&'a DeviceArray],
    idx64: bool,
    owner: Option<&'a OwnerArgs<'a>>,
    args: &'a LaunchArgs<'a>,
    /// The typed kernel as translated.
    kernel: &'a Kernel,
    /// A reduction's buffer of partial values.
    partials: Option<u64>,
    /// The loops' bounds before a decomposition clipped them ([`LaunchCtx::whole`]).
    whole: &'a [(i64, i64)],
}

impl Params<'_> {
    /// Scalar `i`: the launch's, or one an owner-computes lowering added after them.
    fn scalar(&self, i: usize) -> ScalarValue {
        let n_user_scalars = self.args.scalars.len();
        match self.owner {
            Some(o) if i >= n_user_scalars => o.scalars[i - n_user_scalars],
            _ => self.args.scalars[i],
        }
    }

    fn word(&self, k: ParamKind) -> Result<u64> {
        let (arrays, args) = (self.arrays, self.args);
        let idx = |v: i128| -> u64 {
            if self.idx64 {
                v as i64 as u64
            } else {
                v as i32 as u32 as u64
            }
        };
        Ok(match k {
            ParamKind::ArrayPtr(i) => arrays[i].ptr,
            ParamKind::ArrayPitch(i) => idx(arrays[i].pitch as i128),
            ParamKind::ArraySlice(i) => idx(arrays[i].slice as i128),
            ParamKind::ArrayExtent(i, axis) => idx(arrays[i].guard_extent(axis as usize) as i128),
            ParamKind::Scalar(i) => {
                let s = self.scalar(i);
                match self.kernel.scalars[i].ty {
                    Some(ty) if ty.is_index() => idx(s.as_i128().unwrap_or(0)),
                    _ => s.bits,
                }
            }
            ParamKind::Lo(i) => idx(args.bounds[i].0 as i128),
            ParamKind::Hi(i) => idx(args.bounds[i].1 as i128),
            ParamKind::WholeLo(i) => idx(self.whole[i].0 as i128),
            ParamKind::WholeHi(i) => idx(self.whole[i].1 as i128),
            ParamKind::Partials => self.partials.unwrap_or(0),
            ParamKind::Packed => 0,
        })
    }

    /// The launch's parameter words, in `stack` (up to [`STACK_PARAMS`]) or `heap`; packed
    /// parameters are uploaded to the variant's buffer (on the stream, when they changed)
    /// and their word points at it.
    fn words<'w>(
        &self,
        t: &Translation,
        bufs: &mut Buffers,
        gpu: &Gpu,
        stack: &'w mut [u64; STACK_PARAMS],
        heap: &'w mut Vec<u64>,
    ) -> Result<&'w mut [u64]> {
        let words: &mut [u64] = if t.params.len() <= STACK_PARAMS {
            &mut stack[..t.params.len()]
        } else {
            heap.resize(t.params.len(), 0);
            heap
        };
        for (w, p) in words.iter_mut().zip(&t.params) {
            *w = self.word(p.kind)?;
        }
        if !t.packed.is_empty() {
            let packed: Vec<u64> = t
                .packed
                .iter()
                .map(|p| self.word(p.kind))
                .collect::<Result<_>>()?;
            let buf = bufs
                .packed
                .get_or_insert(DevBuf { ptr: 0, bytes: 0 })
                .ensure(gpu, packed.len() * 8)?;
            if bufs.packed_words != packed {
                unsafe { drv::memcpy_htod_async(buf, &packed, gpu.stream.cu_stream()) }
                    .map_err(|e| Error::driver("cuMemcpyHtoD (packed parameters)", e))?;
                bufs.packed_words = packed;
            }
            for (w, p) in words.iter_mut().zip(&t.params) {
                if p.kind == ParamKind::Packed {
                    *w = buf;
                }
            }
        }
        Ok(words)
    }
}

/// `cuLaunchKernel` of `v` on the GPU's stream; with `timed` (the launch's extents),
/// between two events, resolved into the kernel's statistics at the region's next wait.
fn enqueue_timed(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    v: &Variant,
    grid: [u32; 3],
    words: &[u64],
    timed: Option<&[i64]>,
) -> Result<()> {
    let gpu = cx.gpu;
    let t = &v.t;
    let ev = if timed.is_some() {
        let (s, e) = (cx.event()?, cx.event()?);
        unsafe { drv::event::record(s, gpu.stream.cu_stream()) }
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        Some((s, e))
    } else {
        None
    };
    enqueue_words(
        v.func.cu_function(),
        grid,
        t.config.block,
        t.dynamic_shared_bytes,
        gpu.stream.cu_stream(),
        words,
    )
    .map_err(|e| launch_err(site, "launch", e))?;

    if let (Some((s, e)), Some(extents)) = (ev, timed) {
        unsafe { drv::event::record(e, gpu.stream.cu_stream()) }
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        let points: f64 = extents.iter().map(|&e| e.max(0) as f64).product();
        let bytes: f64 =
            t.ir.arrays
                .iter()
                .map(|a| a.elem.size_bytes() as f64 * (a.read as u8 + a.written as u8) as f64)
                .sum::<f64>()
                * points;
        cx.pending.push(Pending {
            kernel: site,
            start: s,
            end: e,
            points,
            bytes,
        });
    }
    Ok(())
}

/// A reduction's finish kernel `f` over the `blocks` partial values at `partials`, and its
/// value of type `ty` read back (the host waits for the stream).
fn finish_reduction(
    site: &KernelSite,
    gpu: &Arc<Gpu>,
    bufs: &mut Buffers,
    f: &CudaFunction,
    ty: ScalarTy,
    partials: Option<u64>,
    blocks: u64,
) -> Result<ScalarValue> {
    let out = bufs
        .out
        .get_or_insert(DevBuf { ptr: 0, bytes: 0 })
        .ensure(gpu, 8)?;
    enqueue_words(
        f.cu_function(),
        [1, 1, 1],
        [FINISH_THREADS, 1, 1],
        0,
        gpu.stream.cu_stream(),
        &[partials.unwrap_or(0), blocks, out],
    )
    .map_err(|e| launch_err(site, "launching the reduction finish kernel", e))?;
    let mut host = [0u8; 8];
    unsafe {
        drv::memcpy_dtoh_async(
            &mut host[..ty.size_bytes() as usize],
            out,
            gpu.stream.cu_stream(),
        )
    }
    .map_err(|e| launch_err(site, "reading the reduction result", e))?;
    gpu.synchronize().map_err(|e| as_launch_error(site, e))?;
    Ok(ScalarValue {
        ty,
        bits: u64::from_le_bytes(host),
    })
}

/// A failure found while waiting for the launch of `site`, as its launch error.
fn as_launch_error(site: &KernelSite, e: Error) -> Error {
    match e {
        Error::Driver { message, .. } => Error::Launch {
            kernel: site.name.into(),
            location: site.location(),
            message,
        },
        other => other,
    }
}

/// The devices' reduced values combined in device order.
pub(crate) fn combine_values(op: mint_translator::ir::RedOp, vals: &[ScalarValue]) -> ScalarValue {
    fn fold<T: Reducible>(op: mint_translator::ir::RedOp, vals: &[ScalarValue]) -> ScalarValue {
        let mut it = vals.iter().map(|v| T::from_bits64(v.bits));
        let first = it.next().unwrap_or_else(|| T::red_identity(op));
        ScalarValue::of(it.fold(first, |a, b| T::red_combine(op, a, b)))
    }
    match vals.first().map(|v| v.ty) {
        Some(ScalarTy::F32) => fold::<f32>(op, vals),
        Some(ScalarTy::F64) => fold::<f64>(op, vals),
        Some(ScalarTy::I32) => fold::<i32>(op, vals),
        Some(ScalarTy::I64) => fold::<i64>(op, vals),
        Some(ScalarTy::U32) => fold::<u32>(op, vals),
        _ => vals[0],
    }
}

fn identity_value(op: mint_translator::ir::RedOp, ty: ScalarTy) -> ScalarValue {
    match ty {
        ScalarTy::F32 => ScalarValue::of(f32::red_identity(op)),
        ScalarTy::F64 => ScalarValue::of(f64::red_identity(op)),
        ScalarTy::I32 => ScalarValue::of(i32::red_identity(op)),
        ScalarTy::I64 => ScalarValue::of(i64::red_identity(op)),
        _ => ScalarValue::of(u32::red_identity(op)),
    }
}
