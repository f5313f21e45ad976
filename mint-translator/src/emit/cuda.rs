//! The parts of a CUDA kernel, lowered to the kernel IR (`crate::kir`): header, parameter
//! list (packed into a device array when too large, thesis Sec. 4.2.9), the work
//! partitioner's thread mapping with chunk loops (Sec. 4.2.5, 4.2.8) and the body, with
//! hooks for the reduction's accumulator and the block indices. `kir::print` writes them;
//! the launch bounds, the reduction and `swizzle` are passes (`crate::passes`).
//!
//! The body skeleton for on-chip optimized kernels lives in `crate::optimizer`; this
//! module provides the pieces both share.

use super::cexpr::{CPrinter, RefResolver};
use super::names::{Names, c_ident};
use crate::baseline::config::LaunchConfig;
use crate::ir::*;
use crate::kir::{Builder, Hook, Loop, LoopRole, Stmt};
use serde::{Deserialize, Serialize};

/// What a kernel parameter holds; the runtime fills it at launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ParamKind {
    /// Device pointer to element `[0, 0, 0]` of array `i` of the kernel.
    ArrayPtr(usize),
    /// Row pitch of array `i`, in elements.
    ArrayPitch(usize),
    /// Plane (slice) stride of array `i`, in elements.
    ArraySlice(usize),
    /// Extent of array `i` along `axis` (0 = x, fastest varying).
    ArrayExtent(usize, u8),
    /// Host scalar `i` of the kernel.
    Scalar(usize),
    /// Lower bound of parallel loop `i` (outermost first).
    Lo(usize),
    /// Exclusive upper bound of parallel loop `i`.
    Hi(usize),
    /// Lower bound of parallel loop `i` as the region wrote it, before a decomposition
    /// clipped [`ParamKind::Lo`] to one device's planes (the same on one device). A
    /// temporally blocked kernel tells the loop's fixed boundary planes by it.
    WholeLo(usize),
    /// Exclusive upper bound of parallel loop `i` before the decomposition clipped it.
    WholeHi(usize),
    /// Device buffer of one partial reduction value per block.
    Partials,
    /// Device array of 8-byte words holding the packed parameters.
    Packed,
}

/// A kernel parameter: what it holds and its C name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub kind: ParamKind,
    pub name: String,
}

impl ParamKind {
    /// Size in bytes as a kernel parameter.
    pub fn bytes(self, k: &Kernel, idx64: bool) -> u32 {
        match self {
            ParamKind::ArrayPtr(_) | ParamKind::Partials | ParamKind::Packed => 8,
            ParamKind::Scalar(i) => k.scalars[i].ty.unwrap_or(ScalarTy::F64).param_bytes(idx64),
            _ => {
                if idx64 {
                    8
                } else {
                    4
                }
            }
        }
    }
}

/// C name of the pitch of array `a`.
pub fn pitch_name(a: &str) -> String {
    format!("mint_pitch_{}", c_ident(a))
}
/// C name of the plane stride of array `a`.
pub fn slice_name(a: &str) -> String {
    format!("mint_slice_{}", c_ident(a))
}
/// C name of the extent of array `a` along `axis`.
pub fn extent_name(a: &str, axis: u8) -> String {
    format!("mint_n{}_{}", ["x", "y", "z"][axis as usize], c_ident(a))
}
/// C names of the bounds of the parallel loop mapped to `axis`.
pub fn lo_name(axis: usize) -> String {
    format!("mint_lo_{}", ["x", "y", "z"][axis])
}
pub fn hi_name(axis: usize) -> String {
    format!("mint_hi_{}", ["x", "y", "z"][axis])
}
/// C names of the bounds of the parallel loop mapped to `axis` before a decomposition
/// clipped them ([`ParamKind::WholeLo`]).
pub fn whole_lo_name(axis: usize) -> String {
    format!("mint_whole_lo_{}", ["x", "y", "z"][axis])
}
pub fn whole_hi_name(axis: usize) -> String {
    format!("mint_whole_hi_{}", ["x", "y", "z"][axis])
}

/// The C entry-point name of kernel `k`.
pub fn entry_name(k: &Kernel) -> String {
    let clean: String = k
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("mint_{clean}")
}

/// Baseline array references: flattened device-memory addresses with the pitch
/// (thesis Sec. 4.2.5, array flattening).
pub struct GlobalRefs<'k> {
    pub kernel: &'k Kernel,
}

/// `base[x + y * pitch + z * slice]` for an index list (slowest first).
pub fn flat_ref(p: &CPrinter, base: &str, array: &str, index: &[Expr]) -> String {
    match index.len() {
        1 => format!("{base}[{}]", p.expr(&index[0])),
        2 => format!(
            "{base}[{} + {} * {}]",
            p.expr_at(&index[1], 12),
            p.expr_at(&index[0], 13),
            pitch_name(array)
        ),
        _ => format!(
            "{base}[{} + {} * {} + {} * {}]",
            p.expr_at(&index[2], 12),
            p.expr_at(&index[1], 13),
            pitch_name(array),
            p.expr_at(&index[0], 13),
            slice_name(array)
        ),
    }
}

impl RefResolver for GlobalRefs<'_> {
    fn kernel(&self) -> &Kernel {
        self.kernel
    }
    fn elem(&self, p: &CPrinter, array: &str, index: &[Expr]) -> String {
        flat_ref(p, &p.names.get(array), array, index)
    }
}

/// The parameter list of a kernel, before packing: arrays (pointer, pitch, plane stride,
/// and extents where `extents` asks for them), scalars, loop bounds, reduction buffer.
pub fn base_params(k: &Kernel, extents: &[bool]) -> Vec<Param> {
    let mut ps = Vec::new();
    for (i, a) in k.arrays.iter().enumerate() {
        ps.push(Param {
            kind: ParamKind::ArrayPtr(i),
            name: c_ident(&a.name),
        });
        if a.ndim >= 2 {
            ps.push(Param {
                kind: ParamKind::ArrayPitch(i),
                name: pitch_name(&a.name),
            });
        }
        if a.ndim >= 3 {
            ps.push(Param {
                kind: ParamKind::ArraySlice(i),
                name: slice_name(&a.name),
            });
        }
        if extents.get(i).copied().unwrap_or(false) {
            for axis in 0..a.ndim {
                ps.push(Param {
                    kind: ParamKind::ArrayExtent(i, axis),
                    name: extent_name(&a.name, axis),
                });
            }
        }
    }
    let red = k.reduction.as_ref().map(|r| r.var.as_str());
    for (i, s) in k.scalars.iter().enumerate() {
        if Some(s.name.as_str()) == red {
            continue;
        }
        ps.push(Param {
            kind: ParamKind::Scalar(i),
            name: c_ident(&s.name),
        });
    }
    let n = k.nest.len();
    for i in 0..n {
        let axis = n - 1 - i;
        ps.push(Param {
            kind: ParamKind::Lo(i),
            name: lo_name(axis),
        });
        ps.push(Param {
            kind: ParamKind::Hi(i),
            name: hi_name(axis),
        });
    }
    if k.reduction.is_some() {
        ps.push(Param {
            kind: ParamKind::Partials,
            name: "mint_partials".into(),
        });
    }
    ps
}

/// Splits `params` into (kernel parameters, packed words) when their total size exceeds
/// `limit` bytes: array parameters then travel in a device array of 8-byte words whose
/// pointer is the kernel's first parameter (thesis Sec. 4.2.9).
pub fn pack_params(
    k: &Kernel,
    params: Vec<Param>,
    idx64: bool,
    limit: u32,
) -> (Vec<Param>, Vec<Param>) {
    let total: u32 = params.iter().map(|p| p.kind.bytes(k, idx64).max(4)).sum();
    if total <= limit {
        return (params, Vec::new());
    }
    let (packed, mut kept): (Vec<Param>, Vec<Param>) = params.into_iter().partition(|p| {
        matches!(
            p.kind,
            ParamKind::ArrayPtr(_)
                | ParamKind::ArrayPitch(_)
                | ParamKind::ArraySlice(_)
                | ParamKind::ArrayExtent(..)
        )
    });
    kept.insert(
        0,
        Param {
            kind: ParamKind::Packed,
            name: "mint_args".into(),
        },
    );
    (kept, packed)
}

/// C type of a parameter.
pub fn param_ctype(k: &Kernel, p: &Param) -> String {
    match p.kind {
        ParamKind::ArrayPtr(i) => {
            let a = &k.arrays[i];
            if a.written {
                format!("{}* __restrict__", a.elem.cuda_name())
            } else {
                format!("const {}* __restrict__", a.elem.cuda_name())
            }
        }
        ParamKind::Scalar(i) => format!(
            "const {}",
            k.scalars[i].ty.unwrap_or(ScalarTy::F64).cuda_name()
        ),
        ParamKind::Partials => {
            let t = k
                .reduction
                .as_ref()
                .and_then(|r| r.ty)
                .unwrap_or(ScalarTy::F64);
            format!("{}* __restrict__", t.cuda_name())
        }
        ParamKind::Packed => "const unsigned long long* __restrict__".into(),
        _ => "const idx_t".into(),
    }
}

/// The header comments of a kernel's module: where the kernel comes from, its
/// configuration, and `notes` (the optimizations applied).
pub fn header(k: &Kernel, cfg: &LaunchConfig, notes: &[String]) -> Vec<String> {
    let mut h = vec![format!(
        "Mint for Rust: kernel `{}` of fn `{}` at {}:{}:{}",
        k.name, k.region, k.origin.file, k.origin.line, k.origin.column
    )];
    if k.is_single() {
        h.push("single: one thread runs the block".into());
    } else {
        h.push(format!(
            "nest({}) tile({}, {}, {}) chunksize({}, {}, {}): {}x{}x{} threads per block",
            cfg.nest,
            cfg.tile[0],
            cfg.tile[1],
            cfg.tile[2],
            cfg.chunk[0],
            cfg.chunk[1],
            cfg.chunk[2],
            cfg.block[0],
            cfg.block[1],
            cfg.block[2]
        ));
    }
    h.extend(notes.iter().cloned());
    h
}

/// The `(C type, name)` list of the kernel's parameters.
pub fn param_list(k: &Kernel, params: &[Param]) -> Vec<(String, String)> {
    params
        .iter()
        .map(|p| (param_ctype(k, p), p.name.clone()))
        .collect()
}

/// For packed parameters, the prologue that unpacks them from the device array of words
/// (thesis Sec. 4.2.9).
pub fn unpack(k: &Kernel, packed: &[Param]) -> Vec<Stmt> {
    let mut out = Vec::new();
    if packed.is_empty() {
        return out;
    }
    out.push(Stmt::Comment(format!(
        "parameters past the {}-word limit arrive packed (thesis Sec. 4.2.9)",
        packed.len()
    )));
    for (i, p) in packed.iter().enumerate() {
        let ty = param_ctype(k, p);
        let cast = ty.trim_start_matches("const ").replace(" __restrict__", "");
        out.push(Stmt::var(&ty, &p.name, format!("({cast})mint_args[{i}]")));
    }
    out
}

/// The names every kernel reserves, bound before the body is printed.
pub fn base_names(k: &Kernel, params: &[Param], packed: &[Param]) -> Names {
    let mut names = Names::new();
    for a in &k.arrays {
        names.fixed(&a.name);
    }
    for s in &k.scalars {
        names.fixed(&s.name);
    }
    for l in &k.nest {
        names.fixed(&l.var);
    }
    for p in params.iter().chain(packed) {
        names.reserve(&p.name);
    }
    names
}

/// Where a kernel with a reduction declares the thread's accumulator: a hook that
/// `crate::passes::reduction` fills.
pub fn accumulator(b: &mut Builder, k: &Kernel) {
    if k.reduction.is_some() {
        b.push(Stmt::Hook(Hook::Accumulator));
    }
}

/// The block indices along y and z that a kernel's tile origins use: `blockIdx.y` and
/// `blockIdx.z`, after a hook where a pass that orders the blocks otherwise computes its
/// own and renames these (`crate::passes::swizzle`).
pub fn block_yz(b: &mut Builder) -> [&'static str; 2] {
    b.push(Stmt::Hook(Hook::BlockIndices));
    ["blockIdx.y", "blockIdx.z"]
}

/// The entry point of the finish kernel of a reduction whose kernel's entry is `entry`.
pub fn finish_entry(entry: &str) -> String {
    format!("{entry}_finish")
}

/// Whether the body has a `continue` outside any serial loop (it then skips the point).
pub fn has_top_level_continue(b: &Block) -> bool {
    fn go(b: &Block) -> bool {
        b.stmts.iter().any(|s| match &s.kind {
            StmtKind::Continue => true,
            StmtKind::If { then, els, .. } => go(then) || els.as_ref().is_some_and(go),
            StmtKind::Block(b) => go(b),
            _ => false,
        })
    }
    go(b)
}

/// The point body (printed by `p`), guarded so `continue` skips the point.
pub fn point_body(p: &mut CPrinter, b: &mut Builder, body: &Block) {
    if has_top_level_continue(body) {
        let v = b.nest(|b| b.body(p, |p| p.block_body(body)));
        b.push(Stmt::Once(v));
    } else {
        b.body(p, |p| p.block_body(body));
    }
}

/// The baseline skeleton (thesis Table 4.3 with chunking, Sec. 4.2.8): each thread
/// computes its global indices; chunked axes become serial loops (contiguous chunks along
/// y and z, block-strided along x so loads stay coalesced); points outside the loop
/// ranges are skipped.
pub fn baseline_body(p: &mut CPrinter, b: &mut Builder, k: &Kernel, cfg: &LaunchConfig) {
    let n = k.nest.len();
    accumulator(b, k);
    let [by, bz] = block_yz(b);
    let blocks = ["blockIdx.x", by, bz];
    b.comment("this thread's points (work partitioner, thesis Sec. 4.2.5)");
    let dims = ["x", "y", "z"];
    let mut guards = Vec::new();
    // z, then y, then x: chunk loops nest outermost-first; each level holds the
    // statements before its loop
    let mut levels: Vec<(Vec<Stmt>, Loop)> = Vec::new();
    let mut cur = Builder::new();
    for axis in (0..n).rev() {
        let var = p.names.get(k.axis_var(axis).unwrap());
        let (t, c, bs) = (cfg.tile[axis], cfg.chunk[axis], cfg.block[axis]);
        let d = dims[axis];
        let lo = lo_name(axis);
        let hi = hi_name(axis);
        let bi = blocks[axis];
        let blk = if t == 1 {
            format!("(idx_t){bi}")
        } else {
            format!("(idx_t){bi} * {t}")
        };
        if c == 1 {
            cur.push(Stmt::konst(
                "idx_t",
                var.clone(),
                format!("{lo} + {blk} + (idx_t)threadIdx.{d}"),
            ));
            guards.push(format!("{var} < {hi}"));
        } else if axis == 0 {
            cur.push(Stmt::konst(
                "idx_t",
                format!("mint_{d}0"),
                format!("{lo} + {blk} + (idx_t)threadIdx.{d}"),
            ));
            let l = Loop::new(
                LoopRole::Chunk,
                format!("int mint_c{d} = 0"),
                format!("mint_c{d} < {c}"),
                format!("++mint_c{d}"),
            );
            levels.push((std::mem::take(&mut cur).finish(), l));
            cur.push(Stmt::konst(
                "idx_t",
                var.clone(),
                format!("mint_{d}0 + mint_c{d} * {bs}"),
            ));
            guards.push(format!("{var} < {hi}"));
        } else {
            cur.push(Stmt::konst(
                "idx_t",
                format!("mint_{d}0"),
                format!("{lo} + {blk} + (idx_t)threadIdx.{d} * {c}"),
            ));
            let l = Loop::new(
                LoopRole::Chunk,
                format!("idx_t {var} = mint_{d}0, mint_{d}_end = min(mint_{d}0 + {c}, {hi})"),
                format!("{var} < mint_{d}_end"),
                format!("++{var}"),
            );
            levels.push((std::mem::take(&mut cur).finish(), l));
        }
    }
    if guards.is_empty() {
        point_body(p, &mut cur, &k.body);
    } else {
        cur.if_(guards.join(" && "), |b| point_body(p, b, &k.body));
    }
    let mut inner = cur.finish();
    for (mut pre, mut l) in levels.into_iter().rev() {
        l.body = inner;
        pre.push(Stmt::Loop(l));
        inner = pre;
    }
    b.extend(inner);
}
