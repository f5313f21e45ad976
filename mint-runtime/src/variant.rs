//! A kernel's variants: the kernel translated for one device and configuration (its
//! clause values, index width, types bound at launch, owner-computes lowering, the
//! autotuner's candidate), compiled with NVRTC or read from the on-disk cache, loaded, and
//! its resource use read from the driver. A vectorized kernel that spills is translated
//! again at the next register cap. Each site keeps its variants ([`KernelSite`]).

use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::jit;
use crate::site::{Buffers, KernelAttrs, KernelSite, Variant, VariantKey};
use crate::stats;
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::nvrtc::Ptx;
use mint_translator::optimizer::vector::next_register_cap;
use mint_translator::{Target, Translation};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The register cap a vectorized kernel is first translated with, and whether it is fixed:
/// `MINT_MAX_REGISTERS=N` holds every such kernel to N registers per thread even where
/// it spills (for measuring what occupancy is worth); otherwise
/// [`mint_translator::optimizer::vector::MAX_REGISTERS`], raised by [`unspill`].
pub(crate) fn register_cap() -> (u32, bool) {
    static C: OnceLock<(u32, bool)> = OnceLock::new();
    *C.get_or_init(|| {
        match std::env::var("MINT_MAX_REGISTERS")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
        {
            Some(n) => (n.clamp(16, 255), true),
            None => (mint_translator::optimizer::vector::MAX_REGISTERS, false),
        }
    })
}

pub(crate) fn param_limit() -> u32 {
    static L: OnceLock<u32> = OnceLock::new();
    *L.get_or_init(|| {
        std::env::var("MINT_PARAM_LIMIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(Target::default().param_limit)
    })
}

pub(crate) fn launch_err(site: &KernelSite, what: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Launch {
        kernel: site.name.into(),
        location: site.location(),
        message: format!("{what}: {}", describe(e)),
    }
}

/// The target a variant is translated for.
pub(crate) fn target_of(gpu: &Gpu, key: &VariantKey, max_registers: u32) -> Target {
    Target {
        max_registers,
        compute_capability: gpu.compute_capability,
        idx64: key.idx64,
        max_threads_per_block: gpu.max_threads_per_block,
        shared_bytes_per_block: gpu.shared_bytes_per_block,
        shared_bytes_optin: gpu.shared_bytes_optin,
        param_limit: key.param_limit,
        clause_values: key.clauses.clone(),
    }
}

/// Translates and compiles a variant (no device state: the autotuner runs this for its
/// candidates on several threads).
pub(crate) fn compile_variant(
    site: &KernelSite,
    gpu: &Gpu,
    key: &VariantKey,
    max_registers: u32,
) -> Result<(Translation, jit::Image)> {
    let t = site.translate_bound(
        &target_of(gpu, key, max_registers),
        key.types.as_ref(),
        key.owner.as_ref(),
        key.config.as_ref(),
    )?;
    let image = jit::compile(gpu, &site.qualified().replace("::", "."), &t.source)?;
    Ok((t, image))
}

pub(crate) fn build_variant(site: &KernelSite, gpu: &Arc<Gpu>, key: VariantKey) -> Result<Variant> {
    let t0 = Instant::now();
    let (t, image) = compile_variant(site, gpu, &key, register_cap().0)?;
    let v = load_variant(site, gpu, key, t, image, t0, false)?;
    let v = unspill(site, gpu, v)?;
    report_variant(&v);
    Ok(v)
}

/// A kernel held to a register cap (`vectorize`) that spills under it is translated
/// again with the cap raised one occupancy step
/// ([`mint_translator::optimizer::vector::next_register_cap`]: 96, 128, 168, 255), until
/// it does not spill: a high-order stencil's z queue needs more registers than the cap
/// that suits small radii ([`mint_translator::optimizer::vector::MAX_REGISTERS`]). The
/// translator's report says so.
pub(crate) fn unspill(site: &KernelSite, gpu: &Arc<Gpu>, mut v: Variant) -> Result<Variant> {
    let mut notes = Vec::new();
    while let Some((next, note)) = raised_cap(&v) {
        let t0 = Instant::now();
        let (t, image) = compile_variant(site, gpu, &v.key, next)?;
        let key = v.key.clone();
        v = load_variant(site, gpu, key, t, image, t0, false)?;
        notes.push(note);
    }
    v.t.report.notes.extend(notes);
    Ok(v)
}

/// The cap to translate a loaded variant again with, and the report's note saying why:
/// `None` where it does not spill, has no cap, its cap is fixed (`MINT_MAX_REGISTERS`) or
/// no occupancy step is left.
pub(crate) fn raised_cap(v: &Variant) -> Option<(u32, String)> {
    let cap = v.t.max_registers?;
    let spilled = v.attrs.local_bytes;
    if register_cap().1 || spilled == 0 {
        return None;
    }
    let next = next_register_cap(cap, v.t.config.threads())?;
    Some((
        next,
        format!(
            "registers: the cap of {cap} per thread spilled {spilled} bytes per thread; raised to {next}"
        ),
    ))
}

/// Loads a compiled variant and reads its resource use; `report`: print it
/// (`MINT_REPORT=1`; the autotuner's candidates are not, its choice is).
pub(crate) fn load_variant(
    site: &KernelSite,
    gpu: &Arc<Gpu>,
    key: VariantKey,
    t: Translation,
    image: jit::Image,
    t0: Instant,
    report: bool,
) -> Result<Variant> {
    gpu.bind()?;
    let ptx = if image.is_cubin {
        Ptx::from_binary(image.data)
    } else {
        let text: Vec<u8> = image.data.into_iter().take_while(|&b| b != 0).collect();
        Ptx::from_src(String::from_utf8_lossy(&text).into_owned())
    };
    let module = gpu
        .ctx
        .load_module(ptx)
        .map_err(|e| launch_err(site, "loading the compiled module", e))?;
    let func = module
        .load_function(&t.entry)
        .map_err(|e| launch_err(site, "finding the kernel in its module", e))?;
    let finish = match &t.reduction {
        Some(r) => Some(
            module
                .load_function(&r.finish_entry)
                .map_err(|e| launch_err(site, "finding the reduction finish kernel", e))?,
        ),
        None => None,
    };
    // The 48 KiB a block may use without opting in counts static and dynamic shared
    // memory together (a reduction's static scratch next to the stencil planes can pass
    // it while the planes alone do not: found by tests/fuzz.rs, seed 3501).
    let static_bytes = func
        .get_attribute(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        .unwrap_or(0)
        .max(0) as u32;
    if t.dynamic_shared_bytes + static_bytes > 48 * 1024 {
        func.set_attribute(
            FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            t.dynamic_shared_bytes as i32,
        )
        .map_err(|e| launch_err(site, "raising the dynamic shared-memory limit", e))?;
    }
    let get = |a: FnAttr| func.get_attribute(a).unwrap_or(0).max(0) as u32;
    let threads = t.config.threads();
    if t.prefer_l1 {
        // Prefer L1 as far as it costs no occupancy (thesis Sec. 5.5 on Hopper): the
        // carveout is the smallest share of the multiprocessor's shared memory that still
        // holds as many blocks as registers and threads allow.
        let blocks = func
            .occupancy_max_active_blocks_per_multiprocessor(
                threads,
                t.dynamic_shared_bytes as usize,
                None,
            )
            .unwrap_or(1)
            .max(1);
        let per_block = t.dynamic_shared_bytes + get(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        let percent = if per_block == 0 || gpu.shared_bytes_per_sm == 0 {
            0
        } else {
            // 1 KB per block is reserved by the system on sm_80 and newer
            let need = blocks as u64 * (per_block as u64 + 1024);
            (need * 100)
                .div_ceil(gpu.shared_bytes_per_sm as u64)
                .min(100) as i32
        };
        func.set_attribute(
            FnAttr::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            percent,
        )
        .map_err(|e| launch_err(site, "setting the L1 carveout", e))?;
    }
    let blocks_per_sm = func
        .occupancy_max_active_blocks_per_multiprocessor(
            threads,
            t.dynamic_shared_bytes as usize,
            None,
        )
        .unwrap_or(0);
    let max_warps = 64.0; // per SM on every architecture since Volta except sm_86/89 (48)
    let warps_per_sm = match gpu.compute_capability {
        (8, 6) | (8, 9) | (12, _) => 48.0,
        _ => max_warps,
    };
    let attrs = KernelAttrs {
        registers: get(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS),
        local_bytes: get(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
        static_shared_bytes: get(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
        max_threads: get(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        blocks_per_sm,
        occupancy: (blocks_per_sm as f64 * threads.div_ceil(32) as f64 / warps_per_sm).min(1.0),
    };
    jit::note_load_time(t0);
    let v = Variant {
        key,
        t,
        func,
        finish,
        attrs,
        bufs: Mutex::new(Buffers::default()),
        gpu: gpu.clone(),
    };
    if report {
        report_variant(&v);
    }
    Ok(v)
}

/// What `MINT_REPORT=1` prints of a loaded variant: the translator's report and the
/// driver's resource figures.
pub(crate) fn report_variant(v: &Variant) {
    if stats::report_enabled() {
        let (t, attrs) = (&v.t, &v.attrs);
        eprintln!(
            "mint report: {}  registers/thread {}, local (spill) bytes/thread {}, static shared {} B, dynamic shared {} B, {} block(s)/SM, theoretical occupancy {:.0}%",
            t.report.to_string().trim_end(),
            attrs.registers,
            attrs.local_bytes,
            attrs.static_shared_bytes,
            t.dynamic_shared_bytes,
            attrs.blocks_per_sm,
            attrs.occupancy * 100.0
        );
    }
}

pub(crate) fn variant(site: &KernelSite, gpu: &Arc<Gpu>, key: VariantKey) -> Result<Arc<Variant>> {
    let mut vs = site.variants.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = vs.iter().find(|v| v.key == key) {
        jit::note_memory_hit();
        return Ok(v.clone());
    }
    let v = Arc::new(build_variant(site, gpu, key)?);
    vs.push(v.clone());
    Ok(v)
}

/// The loaded variant's resource use for a launch with these arguments (compiling it if
/// needed): what `MINT_REPORT` prints, for programs and tests.
///
/// # Errors
/// As for a launch: translation, compilation or loading failures.
pub fn kernel_attrs(
    site: &KernelSite,
    gpu: &Arc<Gpu>,
    clauses: &[u32],
    idx64: bool,
) -> Result<(KernelAttrs, Translation)> {
    let v = variant(
        site,
        gpu,
        VariantKey {
            ordinal: gpu.ordinal,
            idx64,
            clauses: clauses.to_vec(),
            param_limit: param_limit(),
            types: site
                .last_types
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            owner: None,
            config: None,
        },
    )?;
    Ok((v.attrs, v.t.clone()))
}
