//! Kernel sites and launches.
//!
//! Each annotated loop nest becomes a [`KernelSite`]: a `static` in the user's program
//! holding the kernel's IR (as JSON) and, per device and launch configuration, the
//! translated, compiled and loaded variant. The first launch of a configuration
//! translates the IR for the device's limits, compiles it with NVRTC (or reads the
//! on-disk cache) and loads it; later launches only fill parameters and launch.

use crate::array::DeviceArray;
use crate::device::Gpu;
use crate::error::{Error, Result, describe};
use crate::host::ScalarValue;
use crate::jit;
use crate::stats;
use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr};
use cudarc::driver::{CudaFunction, result as drv};
use cudarc::nvrtc::Ptx;
use mint_translator::analyzer::slabs::SlabRef;
use mint_translator::emit::ParamKind;
use mint_translator::ir::{Kernel, ScalarTy};
use mint_translator::optimizer::vector::next_register_cap;
use mint_translator::passes::reduction::FINISH_THREADS;
use mint_translator::tune::{Candidate, Space};
use mint_translator::{Target, Translation};
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// One annotated loop nest (or `single` block) of the program. The macros emit one
/// `static` per site.
pub struct KernelSite {
    /// `<fn>_<index>`.
    pub name: &'static str,
    /// `module_path!()` of the region.
    pub module: &'static str,
    pub file: &'static str,
    pub line: u32,
    /// The typed kernel IR, as JSON.
    pub ir: &'static str,
    kernel: OnceLock<std::result::Result<Kernel, String>>,
    /// [`Kernel::types_at_launch`], computed once (it walks the body).
    open: OnceLock<bool>,
    /// [`KernelSite::qualified`], computed once.
    qualified: OnceLock<String>,
    variants: Mutex<Vec<Arc<Variant>>>,
    /// The device functions the kernel calls, by the path written at each call.
    calls: &'static [(&'static str, &'static DeviceFnSite)],
    /// For a kernel whose types are bound at launch: the types of its latest launch
    /// (see [`VariantKey::types`]), which [`KernelSite::translate`] uses.
    last_types: Mutex<Option<Bound>>,
    /// The region the kernel belongs to (a region split over several devices plans its
    /// slabs from all its kernels).
    pub region: Option<&'static crate::region::RegionInfo>,
    /// The region slot of each of the kernel's arrays, in the kernel's order.
    pub slots: &'static [usize],
    /// The kernel with its device functions inlined, and its references' slowest
    /// subscripts ([`mint_translator::analyzer::slabs`]).
    inlined: OnceLock<std::result::Result<(Kernel, Vec<SlabRef>), String>>,
    /// The autotuner's choices in this process, by launch signature ([`crate::tune`]).
    pub(crate) tuned: Mutex<Vec<(crate::tune::Sig, Option<Candidate>)>>,
    /// [`KernelSite::fast_plan`], computed once.
    fast: OnceLock<Option<FastPlan>>,
}

/// The reach of every reference of a kernel as the CPU backend's [`crate::cpu::Guard`]
/// uses it: per reference, its array and per subscript a parallel loop plus a constant
/// range, or a constant range.
#[derive(Clone, Debug)]
pub struct FastPlan {
    pub refs: Vec<FastRef>,
    /// The number of parallel loops (the innermost is `depth - 1`).
    pub depth: usize,
}

/// One reference of a [`FastPlan`].
#[derive(Clone, Debug)]
pub struct FastRef {
    /// The kernel's array.
    pub array: usize,
    /// Per subscript, slowest first.
    pub subs: Vec<FastSub>,
}

/// One subscript of a [`FastRef`].
#[derive(Clone, Debug)]
pub enum FastSub {
    /// The parallel loop `par` (outermost first) plus `lo..=hi`; with `within`, the
    /// absolute bounds of every case of the value
    /// ([`mint_translator::analyzer::reach::Within`]) and whether it has a single case.
    Rel {
        par: usize,
        lo: i64,
        hi: i64,
        within: Option<Vec<CaseForms>>,
        single: bool,
    },
    /// A constant in `lo..=hi`.
    Abs { lo: i64, hi: i64 },
}

/// The bounds of one case of a subscript, as forms of the kernel's scalars.
#[derive(Clone, Debug)]
pub struct CaseForms {
    pub lo: Vec<Form>,
    pub hi: Vec<Form>,
}

impl CaseForms {
    /// Whether every value of the case lies in `a..b` for the scalars' values (a case
    /// whose bounds cross never happens), or `None` where a scalar is not an integer.
    pub fn inside(&self, scalars: &[crate::host::ScalarValue], a: i64, b: i64) -> Option<bool> {
        let eval = |f: &Form| f.eval(scalars);
        let lo = self
            .lo
            .iter()
            .map(eval)
            .try_fold(i128::MIN, |m, v| Some(m.max(v?)))?;
        let hi = self
            .hi
            .iter()
            .map(eval)
            .try_fold(i128::MAX, |m, v| Some(m.min(v?)))?;
        Some(lo > hi || (lo >= a as i128 && hi < b as i128))
    }
}

/// `constant + Σ coeff · scalar` over the kernel's scalars (by index).
#[derive(Clone, Debug)]
pub struct Form {
    pub terms: Vec<(usize, i64)>,
    pub constant: i64,
}

impl Form {
    fn of(l: &mint_translator::analyzer::refs::Linear, k: &Kernel) -> Option<Form> {
        let terms = l
            .coeffs
            .iter()
            .map(|(n, &c)| Some((k.scalars.iter().position(|s| &s.name == n)?, c)))
            .collect::<Option<Vec<_>>>()?;
        Some(Form {
            terms,
            constant: l.constant,
        })
    }

    /// The value for the scalars `scalars` (in the kernel's order), if they are integers.
    fn eval(&self, scalars: &[crate::host::ScalarValue]) -> Option<i128> {
        let mut v = self.constant as i128;
        for &(i, c) in &self.terms {
            v = v.checked_add(scalars.get(i)?.as_i128()?.checked_mul(c as i128)?)?;
        }
        Some(v)
    }
}

/// The types a launch binds in a kernel whose types are bound at launch
/// ([`Kernel::types_at_launch`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Bound {
    /// Element type and number of dimensions of each array, in the kernel's order.
    arrays: Vec<(ScalarTy, u8)>,
    /// Type of each scalar, in the kernel's order.
    scalars: Vec<ScalarTy>,
}

/// How the calls of a kernel or device function resolve: the path written at each call,
/// and the index of the function in the library `inline` is given.
type Calls = Vec<(String, usize)>;

/// A device function (`#[mint::device]`): its IR and the device functions it calls. The
/// macro emits one `const` per function, in a module named like the function.
pub struct DeviceFnSite {
    /// The IR ([`mint_translator::ir::DeviceFn`]) as JSON.
    pub ir: &'static str,
    /// The device functions it calls, by the path written at each call.
    pub calls: &'static [(&'static str, &'static DeviceFnSite)],
}

impl DeviceFnSite {
    pub const fn new(
        ir: &'static str,
        calls: &'static [(&'static str, &'static DeviceFnSite)],
    ) -> DeviceFnSite {
        DeviceFnSite { ir, calls }
    }
}

impl KernelSite {
    pub const fn new(
        name: &'static str,
        module: &'static str,
        file: &'static str,
        line: u32,
        ir: &'static str,
        calls: &'static [(&'static str, &'static DeviceFnSite)],
    ) -> KernelSite {
        KernelSite {
            name,
            module,
            file,
            line,
            ir,
            kernel: OnceLock::new(),
            open: OnceLock::new(),
            qualified: OnceLock::new(),
            variants: Mutex::new(Vec::new()),
            calls,
            last_types: Mutex::new(None),
            region: None,
            slots: &[],
            inlined: OnceLock::new(),
            tuned: Mutex::new(Vec::new()),
            fast: OnceLock::new(),
        }
    }

    /// The same site, belonging to `region`, its arrays in region slots `slots` (the
    /// macros write `KernelSite::new(..).in_region(&__MINT_REGION, &[..])`).
    pub const fn in_region(
        mut self,
        region: &'static crate::region::RegionInfo,
        slots: &'static [usize],
    ) -> KernelSite {
        self.region = Some(region);
        self.slots = slots;
        self
    }

    fn inlined_pair(&self) -> Result<&(Kernel, Vec<SlabRef>)> {
        self.inlined
            .get_or_init(|| {
                let kernel = self.kernel().map_err(|e| e.to_string())?;
                let k = if mint_translator::inline::has_calls(&kernel.body) {
                    let (calls, lib) = self.library().map_err(|e| e.to_string())?;
                    mint_translator::inline(kernel, &calls, &lib).map_err(|d| {
                        d.iter()
                            .map(|d| d.message.clone())
                            .collect::<Vec<_>>()
                            .join("; ")
                    })?
                } else {
                    kernel.clone()
                };
                let refs = mint_translator::analyzer::slabs::slab_refs(&k);
                Ok((k, refs))
            })
            .as_ref()
            .map_err(|m| Error::Translate {
                kernel: self.name.into(),
                location: self.location(),
                message: m.clone(),
            })
    }

    /// [`Error::NotOnDevice`] for the kernel's array `i`, at its launch.
    pub(crate) fn not_on_device(&self, i: usize) -> Error {
        Error::NotOnDevice {
            array: self
                .kernel()
                .ok()
                .and_then(|k| k.arrays.get(i))
                .map(|a| a.name.clone())
                .unwrap_or_default(),
            when: format!("kernel `{}` at {} is launched", self.name, self.location()),
        }
    }

    /// The reaches of the kernel's references for the CPU backend's unchecked rows, or
    /// `None` when some reference's reach is not bounded (then every access is checked).
    pub fn fast_plan(&self) -> Option<&FastPlan> {
        self.fast
            .get_or_init(|| {
                use mint_translator::analyzer::reach::{Reach, reaches};
                let k = self.inlined().ok()?;
                if k.is_single() {
                    return None;
                }
                let refs = reaches(k)
                    .into_iter()
                    .map(|r| {
                        let subs = r
                            .reach
                            .iter()
                            .zip(&r.within)
                            .map(|(x, w)| match x {
                                Reach::Rel {
                                    var,
                                    lo,
                                    hi,
                                    wrap: None,
                                } => Some(FastSub::Rel {
                                    par: k.nest.iter().position(|l| &l.var == var)?,
                                    lo: *lo,
                                    hi: *hi,
                                    within: w.as_ref().and_then(|w| {
                                        w.cases
                                            .iter()
                                            .map(|c| {
                                                let forms = |v: &[_]| {
                                                    v.iter()
                                                        .map(|l| Form::of(l, k))
                                                        .collect::<Option<Vec<_>>>()
                                                };
                                                Some(CaseForms {
                                                    lo: forms(&c.lo)?,
                                                    hi: forms(&c.hi)?,
                                                })
                                            })
                                            .collect()
                                    }),
                                    single: w.as_ref().is_some_and(|w| w.cases.len() == 1),
                                }),
                                Reach::Abs { lo, hi } => Some(FastSub::Abs { lo: *lo, hi: *hi }),
                                _ => None,
                            })
                            .collect::<Option<Vec<_>>>()?;
                        Some(FastRef {
                            array: k.array_index(&r.array)?,
                            subs,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(FastPlan {
                    refs,
                    depth: k.nest.len(),
                })
            })
            .as_ref()
    }

    /// [`Error::Unsplittable`] for this kernel.
    pub(crate) fn unsplittable(&self, r: crate::decomp::Refusal) -> Error {
        Error::Unsplittable {
            kernel: self.name.into(),
            location: self.location(),
            array: r.array,
            why: format!("at `{}` along the slowest axis, and {}", r.subscript, r.why),
        }
    }

    /// The kernel with its device functions inlined (types not bound).
    ///
    /// # Errors
    /// [`Error::Translate`] when the IR cannot be read or a call cannot be inlined.
    pub fn inlined(&self) -> Result<&Kernel> {
        self.inlined_pair().map(|p| &p.0)
    }

    /// The slowest subscripts of the inlined kernel's references, for a decomposition.
    ///
    /// # Errors
    /// As [`KernelSite::inlined`].
    pub fn slab_refs(&self) -> Result<&Vec<SlabRef>> {
        self.inlined_pair().map(|p| &p.1)
    }

    /// Whether the kernel's types are bound at launch ([`Kernel::types_at_launch`]).
    fn is_open(&self, kernel: &Kernel) -> bool {
        *self.open.get_or_init(|| kernel.types_at_launch())
    }

    /// `module::name`, unique in the program: the key of statistics and `MINT_DUMP` files.
    /// Regions that are methods of different types in one module can share a name
    /// (`step` of two `impl`s); their kernels are then told apart by the line of the loop
    /// nest: `module::step_0@42`.
    pub fn qualified(&self) -> &str {
        self.qualified.get_or_init(|| {
            let base = format!("{}::{}", self.module, self.name);
            let same = kernel_sites()
                .filter(|s| s.module == self.module && s.name == self.name)
                .count();
            if same > 1 {
                format!("{base}@{}", self.line)
            } else {
                base
            }
        })
    }

    /// `file:line` of the loop nest.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// The kernel's IR.
    ///
    /// # Errors
    /// [`Error::Translate`] if the embedded IR cannot be read (a version mismatch between
    /// `mint-macros` and `mint-runtime`).
    pub fn kernel(&self) -> Result<&Kernel> {
        self.kernel
            .get_or_init(|| serde_json::from_str(self.ir).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Error::Translate {
                kernel: self.name.into(),
                location: self.location(),
                message: format!(
                    "the embedded kernel IR could not be read ({e}); mint-macros and mint-runtime must be the same version"
                ),
            })
    }

    /// Translates the kernel for `target` without compiling it (what `MINT_DUMP` and
    /// tests look at).
    ///
    /// # Errors
    /// [`Error::Translate`] when the translator rejects the kernel for this target.
    /// A kernel whose types are bound at launch (field paths, device-function calls, see
    /// [`Kernel::types_at_launch`]) is translated with the types of its latest launch.
    ///
    /// # Errors
    /// [`Error::Translate`] when the translator rejects the kernel for this target, or
    /// when its types are bound at launch and it has not been launched yet.
    pub fn translate(&self, target: &Target) -> Result<Translation> {
        let types = self
            .last_types
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        self.translate_bound(target, types.as_ref(), None, None)
    }

    /// Records the types a run on the CPU backend used, for a kernel whose types are bound
    /// at launch, so that [`KernelSite::translate`] (and `MINT_DUMP` through
    /// `mint::dump_kernels`) can show its CUDA on a machine without a GPU. `arrays[i]` is
    /// array `i`'s element type and number of dimensions.
    pub fn note_types(&self, arrays: &[(ScalarTy, usize)], scalars: &[ScalarValue]) {
        *self.last_types.lock().unwrap_or_else(|p| p.into_inner()) = Some(Bound {
            arrays: arrays.iter().map(|&(t, n)| (t, n as u8)).collect(),
            scalars: scalars.iter().map(|v| v.ty).collect(),
        });
    }

    fn translate_err(&self, d: Vec<mint_translator::Diag>) -> Error {
        Error::Translate {
            kernel: self.name.into(),
            location: self.location(),
            message: d
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
        }
    }

    /// The kernel with its device functions inlined and `types` bound, ready to translate
    /// (the kernel itself when nothing is bound at launch).
    fn bound_kernel(&self, types: Option<&Bound>) -> Result<std::borrow::Cow<'_, Kernel>> {
        let kernel = self.kernel()?;
        if !self.is_open(kernel) {
            return Ok(std::borrow::Cow::Borrowed(kernel));
        }
        let Some(b) = types.filter(|b| {
            b.arrays.len() == kernel.arrays.len() && b.scalars.len() == kernel.scalars.len()
        }) else {
            return Err(Error::Translate {
                kernel: self.name.into(),
                location: self.location(),
                message: "the types of this kernel's arrays are bound at its first launch, and it has not been launched yet".into(),
            });
        };
        let inlined;
        let k = if mint_translator::inline::has_calls(&kernel.body) {
            let (calls, lib) = self.library()?;
            inlined =
                mint_translator::inline(kernel, &calls, &lib).map_err(|d| self.translate_err(d))?;
            &inlined
        } else {
            kernel
        };
        Ok(std::borrow::Cow::Owned(k.bind_types(&b.arrays, &b.scalars)))
    }

    /// Every device function reachable from the kernel's calls, read from their IR, and how
    /// the kernel's own calls resolve into that list.
    fn library(&self) -> Result<(Calls, Vec<mint_translator::Callee>)> {
        let mut sites: Vec<&'static DeviceFnSite> = Vec::new();
        let index = |sites: &mut Vec<&'static DeviceFnSite>, f: &'static DeviceFnSite| match sites
            .iter()
            .position(|s| std::ptr::eq(*s, f))
        {
            Some(i) => i,
            None => {
                sites.push(f);
                sites.len() - 1
            }
        };
        let calls: Vec<(String, usize)> = self
            .calls
            .iter()
            .map(|(p, f)| (p.to_string(), index(&mut sites, f)))
            .collect();
        let mut lib = Vec::new();
        let mut i = 0;
        while i < sites.len() {
            let site = sites[i];
            let f: mint_translator::ir::DeviceFn =
                serde_json::from_str(site.ir).map_err(|e| Error::Translate {
                    kernel: self.name.into(),
                    location: self.location(),
                    message: format!(
                        "the embedded IR of a device function could not be read ({e}); mint-macros and mint-runtime must be the same version"
                    ),
                })?;
            let own: Vec<(String, usize)> = site
                .calls
                .iter()
                .map(|(p, g)| (p.to_string(), index(&mut sites, g)))
                .collect();
            lib.push(mint_translator::Callee { f, calls: own });
            i += 1;
        }
        Ok((calls, lib))
    }

    /// Translates the kernel with `types` bound (see [`Bound`]), in the autotuner's
    /// configuration `config` if one is given, lowered for owner-computes when `owner`
    /// gives the arrays that are distributed.
    fn translate_bound(
        &self,
        target: &Target,
        types: Option<&Bound>,
        owner: Option<&(Vec<bool>, bool)>,
        config: Option<&Candidate>,
    ) -> Result<Translation> {
        let k = self.bound_kernel(types)?;
        let k = match config {
            Some(c) => std::borrow::Cow::Owned(c.apply(&k)),
            None => k,
        };
        let k = match owner {
            Some((dist, false)) => std::borrow::Cow::Owned(mint_translator::owner::lower(&k, dist)),
            Some((dist, true)) => {
                std::borrow::Cow::Owned(mint_translator::owner::lower_check(&k, dist))
            }
            None => k,
        };
        mint_translator::translate(k.as_ref(), target).map_err(|d| self.translate_err(d))
    }
}

/// A kernel site registered in the program's inventory (the macros submit one per site).
pub struct SiteRef(pub &'static KernelSite);

inventory::collect!(SiteRef);

/// Kernel sites made while the program runs ([`register_site`]).
static REGISTERED: Mutex<Vec<&'static KernelSite>> = Mutex::new(Vec::new());

/// Adds a kernel site made at run time (a generated kernel of a fuzzer, with its region)
/// to [`kernel_sites`], so that a region split over several devices plans its slabs from
/// it as from the sites the macros register.
pub fn register_site(site: &'static KernelSite) {
    REGISTERED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(site);
}

/// Every kernel site of the program (all annotated loop nests and `single` blocks linked
/// into it, and those registered with [`register_site`]), whether or not it has run.
pub fn kernel_sites() -> impl Iterator<Item = &'static KernelSite> {
    let registered = REGISTERED.lock().unwrap_or_else(|p| p.into_inner()).clone();
    inventory::iter::<SiteRef>
        .into_iter()
        .map(|s| s.0)
        .chain(registered)
}

/// The `tile`/`chunksize` values (in the order the kernel numbers its expression entries)
/// that give `tile` and `chunk` for `kernel`.
pub fn clause_values(kernel: &Kernel, tile: [u32; 3], chunk: [u32; 3]) -> Vec<u32> {
    use mint_translator::ir::ClauseValue;
    let mut v = Vec::new();
    let entries = [(kernel.clauses.tile, tile), (kernel.clauses.chunk, chunk)];
    for (clause, want) in entries {
        if let Some(c) = clause {
            for (axis, e) in c.iter().enumerate() {
                if let ClauseValue::Runtime(i) = e {
                    let i = *i as usize;
                    if v.len() <= i {
                        v.resize(i + 1, 1);
                    }
                    v[i] = want[axis];
                }
            }
        }
    }
    v
}

/// Arguments of one launch, as the generated host code passes them.
pub struct LaunchArgs<'a> {
    /// Region slot of each of the kernel's arrays, in the kernel's order.
    pub arrays: &'a [usize],
    /// The kernel's host scalars, in the kernel's order.
    pub scalars: &'a [ScalarValue],
    /// `(lo, hi)` of each parallel loop (exclusive `hi`), outermost first.
    pub bounds: &'a [(i64, i64)],
    /// Values of `tile`/`chunksize` entries given as expressions.
    pub clauses: &'a [u32],
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct VariantKey {
    ordinal: usize,
    idx64: bool,
    clauses: Vec<u32>,
    param_limit: u32,
    /// For a kernel whose types are bound at launch, the types this launch binds.
    types: Option<Bound>,
    /// Lowered for owner-computes on one of several GPUs ([`mint_translator::owner`]), or
    /// (with `true`) checked ([`mint_translator::owner::lower_check`], `MINT_CHECK`):
    /// whether each of the kernel's arrays is distributed.
    owner: Option<(Vec<bool>, bool)>,
    /// A configuration the autotuner chose or is trying ([`crate::tune`]), in place of
    /// the kernel's own options and clauses.
    config: Option<Candidate>,
}

/// Resource use of a loaded kernel, read from the driver.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelAttrs {
    pub registers: u32,
    pub local_bytes: u32,
    pub static_shared_bytes: u32,
    pub max_threads: u32,
    /// Resident blocks per multiprocessor at this launch configuration.
    pub blocks_per_sm: u32,
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
}

struct DevBuf {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DevBuf {
    fn ensure(&mut self, gpu: &Gpu, bytes: usize) -> Result<sys::CUdeviceptr> {
        if self.bytes < bytes {
            if self.ptr != 0 {
                unsafe { drv::free_sync(self.ptr) }.map_err(|e| Error::driver("cuMemFree", e))?;
                self.ptr = 0;
                self.bytes = 0;
            }
            gpu.bind()?;
            self.ptr = unsafe { drv::malloc_sync(bytes.max(8)) }
                .map_err(|e| Error::driver("cuMemAlloc", e))?;
            self.bytes = bytes.max(8);
        }
        Ok(self.ptr)
    }
}

#[derive(Default)]
struct Buffers {
    partials: Option<DevBuf>,
    out: Option<DevBuf>,
    packed: Option<DevBuf>,
    packed_words: Vec<u64>,
}

/// A kernel translated and loaded for one device and configuration.
pub(crate) struct Variant {
    key: VariantKey,
    pub(crate) t: Translation,
    func: CudaFunction,
    finish: Option<CudaFunction>,
    pub(crate) attrs: KernelAttrs,
    bufs: Mutex<Buffers>,
    gpu: Arc<Gpu>,
}

impl Drop for Variant {
    fn drop(&mut self) {
        let b = self.bufs.get_mut().unwrap_or_else(|p| p.into_inner());
        let _ = self.gpu.bind();
        for d in [b.partials.take(), b.out.take(), b.packed.take()]
            .into_iter()
            .flatten()
        {
            if d.ptr != 0 {
                let _ = unsafe { drv::free_sync(d.ptr) };
            }
        }
    }
}

/// The register cap a vectorized kernel is first translated with, and whether it is fixed:
/// `MINT_MAX_REGISTERS=N` holds every such kernel to N registers per thread even where
/// it spills (for measuring what occupancy is worth); otherwise
/// [`mint_translator::optimizer::vector::MAX_REGISTERS`], raised by [`unspill`].
fn register_cap() -> (u32, bool) {
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

fn param_limit() -> u32 {
    static L: OnceLock<u32> = OnceLock::new();
    *L.get_or_init(|| {
        std::env::var("MINT_PARAM_LIMIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(Target::default().param_limit)
    })
}

fn launch_err(site: &KernelSite, what: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Launch {
        kernel: site.name.into(),
        location: site.location(),
        message: format!("{what}: {}", describe(e)),
    }
}

/// The target a variant is translated for.
fn target_of(gpu: &Gpu, key: &VariantKey, max_registers: u32) -> Target {
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
fn compile_variant(
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

fn build_variant(site: &KernelSite, gpu: &Arc<Gpu>, key: VariantKey) -> Result<Variant> {
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
fn unspill(site: &KernelSite, gpu: &Arc<Gpu>, mut v: Variant) -> Result<Variant> {
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
fn raised_cap(v: &Variant) -> Option<(u32, String)> {
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
fn load_variant(
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
fn report_variant(v: &Variant) {
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

fn variant(site: &KernelSite, gpu: &Arc<Gpu>, key: VariantKey) -> Result<Arc<Variant>> {
    let mut vs = site.variants.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = vs.iter().find(|v| v.key == key) {
        jit::note_memory_hit();
        return Ok(v.clone());
    }
    let v = Arc::new(build_variant(site, gpu, key)?);
    vs.push(v.clone());
    Ok(v)
}

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

/// Kernel parameters a launch packs on the stack; more take a heap buffer.
const STACK_PARAMS: usize = 64;

/// `cuLaunchKernel` of `func` with one 64-bit word per parameter, on `stream`; up to
/// [`STACK_PARAMS`] parameters without allocating. Every launch of a kernel goes
/// through here: generated kernels, replays of a batch ([`crate::graph`]) and
/// hand-written ones ([`crate::raw::RawKernel`]).
pub(crate) fn enqueue_words(
    func: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: sys::CUstream,
    words: &[u64],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let n = words.len();
    let (mut word_buf, mut word_vec) = ([0u64; STACK_PARAMS], Vec::new());
    let (mut ptr_buf, mut ptr_vec) = ([std::ptr::null_mut::<c_void>(); STACK_PARAMS], Vec::new());
    let (w, p): (&mut [u64], &mut [*mut c_void]) = if n <= STACK_PARAMS {
        (&mut word_buf[..n], &mut ptr_buf[..n])
    } else {
        word_vec.resize(n, 0);
        ptr_vec.resize(n, std::ptr::null_mut());
        (&mut word_vec, &mut ptr_vec)
    };
    w.copy_from_slice(words);
    for (p, w) in p.iter_mut().zip(w.iter_mut()) {
        *p = w as *mut u64 as *mut c_void;
    }
    // SAFETY: `func` is a loaded kernel whose parameters are these words (the callers'
    // translation or source says so); the driver copies them before returning.
    unsafe {
        drv::launch_kernel(
            func,
            (grid[0], grid[1], grid[2]),
            (block[0], block[1], block[2]),
            shared,
            stream,
            p,
        )
    }
}

fn fits_i32(v: i128) -> bool {
    v >= i32::MIN as i128 && v <= i32::MAX as i128
}

/// Launches `site` with `args`, in the configuration the autotuner chose when the
/// kernel is tuned ([`crate::tune`]). Returns the reduced value for a reduction.
pub(crate) fn launch(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
    nowait: bool,
) -> Result<Option<ScalarValue>> {
    let config = if cx.owner.is_none() {
        crate::tune::choose(cx, site, args)?
    } else {
        None
    };
    launch_as(cx, site, args, nowait, config, true)
}

/// Everything [`launch`] does before the launch itself: the autotuner's choice (which
/// may search) and the compiled, loaded variant; returns the choice. A streamed region
/// calls it before it times its first slab, so that compilation is not counted as the
/// kernels' time, and launches every slab in that choice ([`launch_as`]).
///
/// # Errors
/// As [`launch`].
pub(crate) fn prepare(
    cx: &mut LaunchCtx,
    site: &'static KernelSite,
    args: &LaunchArgs,
) -> Result<Option<Candidate>> {
    let config = if cx.owner.is_none() {
        crate::tune::choose(cx, site, args)?
    } else {
        None
    };
    let (_, mut key) = launch_key(cx, site, args)?;
    key.config = config;
    variant(site, cx.gpu, key)?;
    Ok(config)
}

/// The device arrays of a launch, in the kernel's order, and the key of its variant in
/// the kernel's own configuration.
fn launch_key<'a>(
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
    let n_user_scalars = args.scalars.len();
    let v = variant(site, &gpu, key)?;
    if let Some(o) = &cx.owner {
        arrays.push(o.fault);
    }
    let scalar = |i: usize| -> ScalarValue {
        match &cx.owner {
            Some(o) if i >= n_user_scalars => o.scalars[i - n_user_scalars],
            _ => args.scalars[i],
        }
    };
    let t = &v.t;
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
    let word = |k: ParamKind| -> Result<u64> {
        let idx = |v: i128| -> u64 {
            if idx64 {
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
                let s = scalar(i);
                match kernel.scalars[i].ty {
                    Some(ty) if ty.is_index() => idx(s.as_i128().unwrap_or(0)),
                    _ => s.bits,
                }
            }
            ParamKind::Lo(i) => idx(args.bounds[i].0 as i128),
            ParamKind::Hi(i) => idx(args.bounds[i].1 as i128),
            ParamKind::Partials => partials.unwrap_or(0),
            ParamKind::Packed => 0,
        })
    };
    // The parameter words, on the stack for the usual kernel (no allocation per launch).
    let mut word_buf = [0u64; STACK_PARAMS];
    let mut word_vec = Vec::new();
    let words: &mut [u64] = if t.params.len() <= STACK_PARAMS {
        &mut word_buf[..t.params.len()]
    } else {
        word_vec.resize(t.params.len(), 0);
        &mut word_vec
    };
    for (w, p) in words.iter_mut().zip(&t.params) {
        *w = word(p.kind)?;
    }
    if !t.packed.is_empty() {
        let packed: Vec<u64> = t
            .packed
            .iter()
            .map(|p| word(p.kind))
            .collect::<Result<_>>()?;
        let buf = bufs
            .packed
            .get_or_insert(DevBuf { ptr: 0, bytes: 0 })
            .ensure(&gpu, packed.len() * 8)?;
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
    let cfg = &t.config;
    let to_u32 = |g: u64| g as u32;
    if batched && let Some(b) = cx.batch.as_deref_mut() {
        b.push(crate::graph::Rec {
            site,
            func: v.func.cu_function(),
            _keep: v.clone(),
            grid: [to_u32(grid[0]), to_u32(grid[1]), to_u32(grid[2])],
            block: cfg.block,
            shared: t.dynamic_shared_bytes,
            words: words.to_vec(),
        })?;
        return Ok(None);
    }
    let ev = if timing {
        let (s, e) = (cx.event()?, cx.event()?);
        unsafe { drv::event::record(s, gpu.stream.cu_stream()) }
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        Some((s, e))
    } else {
        None
    };
    enqueue_words(
        v.func.cu_function(),
        [to_u32(grid[0]), to_u32(grid[1]), to_u32(grid[2])],
        cfg.block,
        t.dynamic_shared_bytes,
        gpu.stream.cu_stream(),
        words,
    )
    .map_err(|e| launch_err(site, "launch", e))?;

    if let Some((s, e)) = ev {
        unsafe { drv::event::record(e, gpu.stream.cu_stream()) }
            .map_err(|e| Error::driver("cuEventRecord", e))?;
        let points: f64 = extents.iter().map(|&e| e.max(0) as f64).product();
        let bytes: f64 = kernel
            .arrays
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
    let result = match (red, &v.finish) {
        (Some(r), Some(f)) => {
            let out = bufs
                .out
                .get_or_insert(DevBuf { ptr: 0, bytes: 0 })
                .ensure(&gpu, 8)?;
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
                    &mut host[..r.ty.size_bytes() as usize],
                    out,
                    gpu.stream.cu_stream(),
                )
            }
            .map_err(|e| launch_err(site, "reading the reduction result", e))?;
            gpu.synchronize().map_err(|e| match e {
                Error::Driver { message, .. } => Error::Launch {
                    kernel: site.name.into(),
                    location: site.location(),
                    message,
                },
                other => other,
            })?;
            Some(ScalarValue {
                ty: r.ty,
                bits: u64::from_le_bytes(host),
            })
        }
        _ => None,
    };
    if !nowait && result.is_none() {
        gpu.synchronize().map_err(|e| match e {
            Error::Driver { message, .. } => Error::Launch {
                kernel: site.name.into(),
                location: site.location(),
                message,
            },
            other => other,
        })?;
    }
    Ok(result)
}

/// The devices' reduced values combined in device order.
pub(crate) fn combine_values(op: mint_translator::ir::RedOp, vals: &[ScalarValue]) -> ScalarValue {
    use crate::cpu::combine;
    fn fold<T: crate::cpu::Reducible>(
        op: mint_translator::ir::RedOp,
        vals: &[ScalarValue],
    ) -> ScalarValue {
        let mut it = vals.iter().map(|v| T::from_bits64(v.bits));
        let first = it.next().unwrap_or_else(|| crate::cpu::identity::<T>(op));
        ScalarValue::of(it.fold(first, |a, b| combine(op, a, b)))
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
    use crate::cpu::identity;
    match ty {
        ScalarTy::F32 => ScalarValue::of(identity::<f32>(op)),
        ScalarTy::F64 => ScalarValue::of(identity::<f64>(op)),
        ScalarTy::I32 => ScalarValue::of(identity::<i32>(op)),
        ScalarTy::I64 => ScalarValue::of(identity::<i64>(op)),
        _ => ScalarValue::of(identity::<u32>(op)),
    }
}
