//! A kernel: one annotated loop nest (or `single` block) outlined from a region.

use super::expr::{Expr, SpanId};
use super::stmt::Block;
use super::types::ScalarTy;
use serde::{Deserialize, Serialize};

/// Where a kernel came from in the user's Rust source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// One outlined kernel, as the front end lowered it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kernel {
    /// Unique within the program, a valid C identifier tail (e.g. `heat_0`).
    pub name: String,
    /// The region (function) that contains it.
    pub region: String,
    pub origin: Origin,
    /// The parallel loops, outermost first (1..=3 of them); empty for a `single` block.
    pub nest: Vec<ParLoop>,
    /// The statements one thread runs for one point of the iteration space (for a
    /// `single` block: the whole block).
    pub body: Block,
    /// Arrays the body references, in first-use order.
    pub arrays: Vec<ArrayParam>,
    /// Host scalars the body reads, in first-use order.
    pub scalars: Vec<ScalarParam>,
    pub reduction: Option<Reduction>,
    pub clauses: Clauses,
    pub options: OptOptions,
}

impl Kernel {
    pub fn is_single(&self) -> bool {
        self.nest.is_empty()
    }
    /// Whether some element or scalar type is bound at launch: the kernel is stored as
    /// the front end lowered it, untyped, and [`Kernel::bind_types`] completes it.
    ///
    /// That is the case when an array's element type or number of dimensions was not
    /// visible to the front end, or when the body calls device functions (their bodies are
    /// inlined at launch, see [`crate::inline()`]).
    pub fn types_at_launch(&self) -> bool {
        self.arrays.iter().any(|a| a.elem_at_launch || a.ndim == 0)
            || crate::inline::has_calls(&self.body)
    }
    /// Binds the types a launch supplies, wherever the front end left them open:
    /// `elems[i]` is array `i`'s element type and number of dimensions, `scalars[i]` is
    /// scalar `i`'s type. The result is ready for [`crate::translate`] (after
    /// [`crate::inline()`] if the body has calls), which type-checks it.
    pub fn bind_types(&self, elems: &[(ScalarTy, u8)], scalars: &[ScalarTy]) -> Kernel {
        let mut k = self.clone();
        for (a, &(t, n)) in k.arrays.iter_mut().zip(elems) {
            if a.elem_at_launch {
                a.elem = t;
                a.elem_at_launch = false;
            }
            if a.ndim == 0 {
                a.ndim = n;
            }
        }
        for (s, &t) in k.scalars.iter_mut().zip(scalars) {
            if s.ty.is_none() {
                s.ty = Some(t);
            }
        }
        // a reduction over a variable of a generic type (`let mut sum: T`) takes the
        // type its scalar was bound to
        if let Some(r) = k.reduction.as_mut().filter(|r| r.ty.is_none()) {
            r.ty = k
                .scalars
                .iter()
                .find(|s| s.name == r.var)
                .and_then(|s| s.ty);
        }
        k
    }
    pub fn array(&self, name: &str) -> Option<&ArrayParam> {
        self.arrays.iter().find(|a| a.name == name)
    }
    pub fn array_index(&self, name: &str) -> Option<usize> {
        self.arrays.iter().position(|a| a.name == name)
    }
    /// The parallel loop variable mapped to axis `axis` (0 = x, 1 = y, 2 = z).
    pub fn axis_var(&self, axis: usize) -> Option<&str> {
        let n = self.nest.len();
        (axis < n).then(|| self.nest[n - 1 - axis].var.as_str())
    }
    /// The axis (0 = x, 1 = y, 2 = z) a parallel loop variable is mapped to.
    pub fn var_axis(&self, var: &str) -> Option<usize> {
        let n = self.nest.len();
        self.nest
            .iter()
            .position(|l| l.var == var)
            .map(|i| n - 1 - i)
    }
}

/// A parallel loop `for var in lo..hi` of the nest. Its bounds are evaluated on the host
/// and passed to the kernel; `lo`/`hi` here are kept only for type inference and analysis
/// (`None` when the front end could not express them in the kernel language).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParLoop {
    pub var: String,
    pub ty: Option<ScalarTy>,
    pub lo: Option<Expr>,
    pub hi: Option<Expr>,
    pub inclusive: bool,
    #[serde(default)]
    pub span: SpanId,
}

/// An array the kernel references.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayParam {
    /// The host name: a variable (`u`) or a field path (`self.u`, `w.vel.u1`).
    pub name: String,
    /// The element type; a placeholder while [`ArrayParam::elem_at_launch`] is set.
    pub elem: ScalarTy,
    /// The front end could not see the element type (a struct field, an array whose type
    /// the region does not spell out), so the runtime binds it from the device array at
    /// the kernel's first launch ([`Kernel::bind_types`]) and type-checks the kernel then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elem_at_launch: bool,
    /// 1, 2 or 3. Indices are slowest-varying first: `[z, y, x]`, `[y, x]`, `[x]`.
    pub ndim: u8,
    pub read: bool,
    pub written: bool,
    #[serde(default)]
    pub span: SpanId,
}

/// A host scalar passed by value at launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScalarParam {
    pub name: String,
    /// Known from the host declaration, or `None` to be inferred from its uses.
    pub ty: Option<ScalarTy>,
    #[serde(default)]
    pub span: SpanId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RedOp {
    Add,
    Mul,
    Min,
    Max,
}

impl RedOp {
    pub fn symbol(self) -> &'static str {
        match self {
            RedOp::Add => "+",
            RedOp::Mul => "*",
            RedOp::Min => "min",
            RedOp::Max => "max",
        }
    }
    /// Element types the reduction supports (Mint had only `+`).
    pub fn supports(self, ty: ScalarTy) -> bool {
        matches!(
            ty,
            ScalarTy::F32 | ScalarTy::F64 | ScalarTy::I32 | ScalarTy::I64 | ScalarTy::U32
        )
    }
}

/// `reduction(op: var)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reduction {
    pub op: RedOp,
    pub var: String,
    pub ty: Option<ScalarTy>,
    #[serde(default)]
    pub span: SpanId,
}

/// A `tile`/`chunksize` entry: a literal, or a host expression evaluated at launch
/// (index into the launch's clause values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClauseValue {
    Const(u32),
    Runtime(u16),
}

/// The work-sharing clauses of `#[mint::r#for(...)]`, in x, y, z order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clauses {
    pub tile: Option<[ClauseValue; 3]>,
    pub chunk: Option<[ClauseValue; 3]>,
    pub nowait: bool,
    /// Span of the directive, for errors found when the clauses are resolved.
    #[serde(default)]
    pub span: SpanId,
}

/// Optimizer options (thesis Table 3.2 and Appendix B), region defaults merged with the
/// kernel's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OptOptions {
    /// Center-point references to registers (Sec. 5.6).
    pub register: bool,
    /// Shared-memory planes (slots) allowed, 0 = the shared-memory optimizer is off (Sec. 5.7).
    pub shared: u8,
    /// Prefer L1 over shared memory in the unified on-chip memory (Sec. 5.5).
    pub prefer_l1: bool,
    /// Unroll short serial loops and fold constants (Sec. 5.4).
    pub unroll: bool,
    /// One index variable for arrays of identical shape (Sec. 5.9).
    pub same_index: bool,
    /// Beyond the thesis: each thread computes 16 bytes' worth of consecutive x points
    /// (4 `f32`, 2 `f64`) with 16-byte loads and stores, the z column of each row in a
    /// register queue when `chunksize` in z is above 1 (`optimizer::vector`).
    #[serde(default)]
    pub vectorize: bool,
    /// Autotune this kernel at its first launches on a GPU: time the candidates of
    /// [`crate::tune::candidates`] and keep the fastest whose results equal the kernel's
    /// as written (`mint_runtime::tune`). Changes nothing in the translation itself.
    #[serde(default)]
    pub tune: bool,
    /// Beyond the thesis: in the sliding window, the shared-memory planes are copied from
    /// device memory asynchronously (`cp.async`, compute capability 8.0 and above) into a
    /// ring of slots [`crate::optimizer::PIPELINE_DEPTH`] planes ahead of the step that
    /// reads them, and the register queue takes its leading value from the ring
    /// (`optimizer::chunk`). Needs `shared` and `chunksize` z above 1; otherwise the
    /// report says why it was not applied.
    #[serde(default)]
    pub pipeline: bool,
    /// Beyond the thesis: the order in which a 3-D kernel's blocks run. Without it the
    /// hardware runs them x fastest, then y, then z, so a block's z neighbours run a whole
    /// plane of blocks later and their shared planes may have left L2. With it, the y
    /// tiles are cut into bands of about [`crate::target::SWIZZLE_BAND_BLOCKS`]
    /// blocks and each band is swept along z before the next, so the blocks that share a
    /// plane run close together (CUTLASS's threadblock swizzle; Triton's grouped
    /// ordering). Changes no result: each block computes the same points.
    #[serde(default)]
    pub swizzle: bool,
    /// Beyond the thesis: with `vectorize` and a `chunksize` in z above 1, the chunk's z
    /// steps run as a loop (`#pragma unroll 1`), the register queue moving one plane per
    /// step, instead of being unrolled completely. Unrolled, the compiler hoists later
    /// steps' loads and needs more registers: a kernel that reads many arrays (the
    /// seismic stress kernel) then spills under a cap that the rolled loop fits, and
    /// runs at a lower occupancy once the cap is raised. Changes no result: each point
    /// is computed by the same operations.
    #[serde(default)]
    pub roll_z: bool,
    /// Temporal blocking (issue #45): the depth of a fused launch, the number of time
    /// steps of a `#[mint::time_loop]` one launch computes (0 or 1: one step). Set by the
    /// runtime on the configuration of a blocked launch, never written by a user;
    /// `crate::optimizer::temporal`.
    #[serde(default)]
    pub time_block: u8,
    /// With `time_block`: the index (in the kernel's arrays) of the array the step reads,
    /// the ping-pong partner of the one it writes.
    #[serde(default)]
    pub time_input: u8,
    /// With `time_block`: the other ping-pong pairs of the time loop's swaps that the step
    /// carries at its point, `[input, output]` (indices in the kernel's arrays; `[0, 0]`
    /// ends the list): state the step reads and writes only at its point, as the cardiac
    /// model's recovery variable `R`.
    #[serde(default)]
    pub time_carried: [[u8; 2]; MAX_CARRIED],
}

/// The most pairs a blocked step carries at its point besides the one it reads at its
/// neighbours ([`OptOptions::time_carried`]).
pub const MAX_CARRIED: usize = 3;

impl OptOptions {
    /// The pairs of [`Self::time_carried`], `(input, output)`.
    pub fn carried(&self) -> Vec<(usize, usize)> {
        (self.time_carried.iter())
            .take_while(|p| p != &&[0, 0])
            .map(|p| (usize::from(p[0]), usize::from(p[1])))
            .collect()
    }
}

impl OptOptions {
    /// The options as a user writes them in `#[mint::parallel(..)]`: `shared` for 8
    /// planes, `shared = N` for fewer, then `register`, `prefer_l1`, `unroll`,
    /// `same_index`, `vectorize`, `pipeline` and `tune`, each when on.
    pub fn written(&self) -> Vec<String> {
        let mut v = Vec::new();
        match self.shared {
            0 => {}
            8 => v.push("shared".to_string()),
            n => v.push(format!("shared = {n}")),
        }
        for (on, n) in [
            (self.register, "register"),
            (self.prefer_l1, "prefer_l1"),
            (self.unroll, "unroll"),
            (self.same_index, "same_index"),
            (self.vectorize, "vectorize"),
            (self.pipeline, "pipeline"),
            (self.swizzle, "swizzle"),
            (self.roll_z, "roll_z"),
            (self.tune, "tune"),
        ] {
            if on {
                v.push(n.to_string());
            }
        }
        v
    }

    /// Whether any on-chip optimization is requested.
    pub fn any(&self) -> bool {
        self.register || self.shared > 0 || self.unroll || self.same_index || self.vectorize
    }
}
