//! Kernel sites: what the macros emit for each annotated loop nest ([`KernelSite`]), each
//! device function ([`DeviceFnSite`]) and each region ([`RegionInfo`]), as `static`s in
//! the user's program, and what a site keeps while the program runs: its IR read once,
//! inlined and analysed ([`KernelSite::slab_refs`], [`KernelSite::fast_plan`]), its
//! translation, and its variants ([`Variant`]: the kernel compiled and loaded for one
//! device and configuration, made by `crate::variant`).

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::host::ScalarValue;
use cudarc::driver::CudaFunction;
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use mint_translator::analyzer::slabs::SlabRef;
use mint_translator::ir::{Kernel, ScalarTy};
use mint_translator::tune::Candidate;
use mint_translator::{Target, Translation};
use std::sync::{Arc, Mutex, OnceLock};

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
    pub(crate) variants: Mutex<Vec<Arc<Variant>>>,
    /// The device functions the kernel calls, by the path written at each call.
    calls: &'static [(&'static str, &'static DeviceFnSite)],
    /// For a kernel whose types are bound at launch: the types of its latest launch
    /// (see [`VariantKey::types`]), which [`KernelSite::translate`] uses.
    pub(crate) last_types: Mutex<Option<Bound>>,
    /// The region the kernel belongs to (a region split over several devices plans its
    /// slabs from all its kernels).
    pub region: Option<&'static RegionInfo>,
    /// The region slot of each of the kernel's arrays, in the kernel's order.
    pub slots: &'static [usize],
    /// The kernel with its device functions inlined, and its references' slowest
    /// subscripts ([`mint_translator::analyzer::slabs`]).
    inlined: OnceLock<std::result::Result<(Kernel, Vec<SlabRef>), String>>,
    /// The autotuner's choices in this process, by launch signature ([`crate::tune`]).
    pub(crate) tuned: Mutex<Vec<(Sig, Option<Candidate>)>>,
    /// [`KernelSite::fast_plan`], computed once.
    fast: OnceLock<Option<FastPlan>>,
    /// Which wide copy of the kernel's CPU rows runs ([`crate::cpu::run_wide`]), for
    /// elements of 4 bytes or less and of more.
    pub(crate) wide: [crate::wide::WideChoice; 2],
    /// The depth `k` of the `#[mint::time_loop(block = k)]` the kernel is in (1: none): a
    /// decomposition gives its slabs `k ×` the kernel's reach in ghost planes, so that
    /// `k` steps run between two halo exchanges ([`crate::split`]).
    pub time_block: u32,
    /// The loop was written without `block`: it runs `time_block` deep only where the
    /// kernel is tuned, one step per launch otherwise (`split::ghost_depth`).
    pub time_block_if_tuned: bool,
    /// The time loop of several kernels per step the kernel is in (0: none), numbered
    /// within its region, and the kernel's place in the step (0 first): a decomposition
    /// gives the slabs `k ×` the step's summed reaches, and runs `k` steps between two
    /// halo exchanges ([`crate::split`]'s `steps`).
    pub time_group: u32,
    pub time_order: u32,
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
    /// Any other subscript whose every case has bounds (a form of the kernel's scalars,
    /// `n + 1`): the absolute bounds of each case. Where they do not prove it inside the
    /// array for the launch's values, the whole launch runs checked.
    Inside { within: Vec<CaseForms> },
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
pub(crate) struct Bound {
    /// Element type and number of dimensions of each array, in the kernel's order.
    pub(crate) arrays: Vec<(ScalarTy, u8)>,
    /// Type of each scalar, in the kernel's order.
    pub(crate) scalars: Vec<ScalarTy>,
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
            wide: [
                crate::wide::WideChoice::new(),
                crate::wide::WideChoice::new(),
            ],
            time_block: 1,
            time_block_if_tuned: false,
            time_group: 0,
            time_order: 0,
        }
    }

    /// The same site, in a time loop blocked `depth` steps deep (the macros write
    /// `KernelSite::new(..).in_region(..).in_time_loop(k)`).
    pub const fn in_time_loop(mut self, depth: u32) -> KernelSite {
        self.time_block = depth;
        self
    }

    /// The same site, the kernel number `order` (0 first) of each step of the region's
    /// time loop `group` (1 first) of several kernels per step (the macros write
    /// `.in_time_loop(k).in_time_group(g, i)`).
    pub const fn in_time_group(mut self, group: u32, order: u32) -> KernelSite {
        self.time_group = group;
        self.time_order = order;
        self
    }

    /// The same site, in a `#[mint::time_loop]` written without `block`: up to `depth`
    /// steps deep where the kernel is tuned, one step per launch otherwise.
    pub const fn in_default_time_loop(mut self, depth: u32) -> KernelSite {
        self.time_block = depth;
        self.time_block_if_tuned = true;
        self
    }

    /// The same site, belonging to `region`, its arrays in region slots `slots` (the
    /// macros write `KernelSite::new(..).in_region(&__MINT_REGION, &[..])`).
    pub const fn in_region(
        mut self,
        region: &'static RegionInfo,
        slots: &'static [usize],
    ) -> KernelSite {
        self.region = Some(region);
        self.slots = slots;
        self
    }

    pub(crate) fn inlined_pair(&self) -> Result<&(Kernel, Vec<SlabRef>)> {
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
                // the cases' bounds as forms of the kernel's scalars
                let cases = |w: &mint_translator::analyzer::reach::Within| {
                    w.cases
                        .iter()
                        .map(|c| {
                            let forms = |v: &[_]| {
                                v.iter().map(|l| Form::of(l, k)).collect::<Option<Vec<_>>>()
                            };
                            Some(CaseForms {
                                lo: forms(&c.lo)?,
                                hi: forms(&c.hi)?,
                            })
                        })
                        .collect::<Option<Vec<_>>>()
                };
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
                                    within: w.as_ref().and_then(cases),
                                    single: w.as_ref().is_some_and(|w| w.cases.len() == 1),
                                }),
                                Reach::Abs { lo, hi } => Some(FastSub::Abs { lo: *lo, hi: *hi }),
                                // a subscript of the scalars (`n + 1`) or wrapped: inside
                                // where its cases' bounds are, for the launch's values
                                _ => Some(FastSub::Inside {
                                    within: w.as_ref().and_then(cases)?,
                                }),
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
    pub(crate) fn is_open(&self, kernel: &Kernel) -> bool {
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

    /// [`KernelSite::translate`] in the launch configuration `config` (a tuning candidate,
    /// or a blocked time loop's fused launch), as the runtime would launch it.
    ///
    /// # Errors
    /// As [`KernelSite::translate`].
    pub fn translate_as(&self, target: &Target, config: &Candidate) -> Result<Translation> {
        let types = self
            .last_types
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let k = config.apply(&*self.bound_kernel(types.as_ref())?);
        let target = Target {
            clause_values: clause_values(&k, config.tile, config.chunk),
            ..target.clone()
        };
        mint_translator::translate(&k, &target).map_err(|d| self.translate_err(d))
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

    pub(crate) fn translate_err(&self, d: Vec<mint_translator::Diag>) -> Error {
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
    pub(crate) fn bound_kernel(
        &self,
        types: Option<&Bound>,
    ) -> Result<std::borrow::Cow<'_, Kernel>> {
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
    pub(crate) fn library(&self) -> Result<(Calls, Vec<mint_translator::Callee>)> {
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
    pub(crate) fn translate_bound(
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
pub(crate) struct VariantKey {
    pub(crate) ordinal: usize,
    pub(crate) idx64: bool,
    pub(crate) clauses: Vec<u32>,
    pub(crate) param_limit: u32,
    /// For a kernel whose types are bound at launch, the types this launch binds.
    pub(crate) types: Option<Bound>,
    /// Lowered for owner-computes on one of several GPUs ([`mint_translator::owner`]), or
    /// (with `true`) checked ([`mint_translator::owner::lower_check`], `MINT_CHECK`):
    /// whether each of the kernel's arrays is distributed.
    pub(crate) owner: Option<(Vec<bool>, bool)>,
    /// A configuration the autotuner chose or is trying ([`crate::tune`]), in place of
    /// the kernel's own options and clauses.
    pub(crate) config: Option<Candidate>,
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

pub(crate) struct DevBuf {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) bytes: usize,
}

impl DevBuf {
    pub(crate) fn ensure(&mut self, gpu: &Gpu, bytes: usize) -> Result<sys::CUdeviceptr> {
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
pub(crate) struct Buffers {
    pub(crate) partials: Option<DevBuf>,
    pub(crate) out: Option<DevBuf>,
    pub(crate) packed: Option<DevBuf>,
    pub(crate) packed_words: Vec<u64>,
}

/// A kernel translated and loaded for one device and configuration.
pub(crate) struct Variant {
    pub(crate) key: VariantKey,
    pub(crate) t: Translation,
    pub(crate) func: CudaFunction,
    pub(crate) finish: Option<CudaFunction>,
    pub(crate) attrs: KernelAttrs,
    pub(crate) bufs: Mutex<Buffers>,
    pub(crate) gpu: Arc<Gpu>,
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

/// An array the region's `copy!`s name, as the macros describe it.
#[derive(Debug)]
pub struct ArrayInfo {
    pub name: &'static str,
    /// The x index that should start each row on a 128-byte boundary on the device (the
    /// first interior column the kernels write).
    pub align_x: usize,
}

/// A `#[mint::parallel]` function, as the macros describe it.
#[derive(Debug)]
pub struct RegionInfo {
    pub name: &'static str,
    pub file: &'static str,
    pub line: u32,
    /// One entry per slot of the host-to-device table.
    pub arrays: &'static [ArrayInfo],
    /// The pairs of slots `std::mem::swap` exchanges in the region: a decomposition stores
    /// both alike (the decomposition's `Layout`).
    pub swaps: &'static [(usize, usize)],
    /// `#[mint::parallel(stream)]` ([`crate::stream`]).
    pub stream: Option<StreamSpec>,
}

/// `#[mint::parallel(stream)]` as the macro describes it.
#[derive(Debug)]
pub struct StreamSpec {
    /// Slabs asked for with `stream = N`; 0 lets the model choose.
    pub slabs: u32,
    /// The region's `copy!(.., from_device)`s: the slabs run at the last one.
    pub outputs: u32,
}

/// The cheap signature of a launch that a site's choices are kept under in this process:
/// device, arrays' element types and layouts, loop bounds, clause values, scalar types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sig {
    pub(crate) ordinal: usize,
    pub(crate) arrays: Vec<(ScalarTy, [usize; 3], (usize, usize))>,
    pub(crate) bounds: Vec<(i64, i64)>,
    pub(crate) clauses: Vec<u32>,
    pub(crate) scalars: Vec<ScalarTy>,
}
