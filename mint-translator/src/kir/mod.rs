//! The kernel IR ("KIR"): what a CUDA kernel skeleton is made of, below the loop IR.
//!
//! The lowerings (the baseline work partitioner in `emit::cuda`, the staged kernel of
//! shared planes and register queues in `optimizer::chunk`, the vector path in
//! `optimizer::vector` and its shared-memory rings in `optimizer::vector::ring`) build a
//! tree of [`Stmt`]s; [`mod@print`] writes it, and the whole module around it ([`Module`]), as
//! CUDA C++ text with the translator's indentation conventions. The stencil's loop body
//! itself is printed by the expression printer (`emit::cexpr::CPrinter` with the lowering's
//! `RefResolver`, which places each array reference in a register, a shared plane or
//! device memory) and held here as text ([`Stmt::Body`]).
//!
//! A new construct gets a node here and its spelling in [`mod@print`]; the CUDA keywords and
//! intrinsics of kernel skeletons (`__syncthreads`, `__shared__`, `#pragma unroll`,
//! `__launch_bounds__`, the `cp.async` helpers' calls) are written there and nowhere else.
//! The passes (`crate::passes`) change the tree after lowering; [`mod@visit`] walks it for
//! them, and a lowering leaves a [`Hook`] where a pass may put statements.

pub mod print;
pub mod visit;

use crate::emit::cexpr::CPrinter;

/// One statement of a kernel skeleton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Loop-body text printed by `CPrinter` at indentation 0: each of its lines is
    /// indented to the place of the node (the stencil's statements at one point).
    Body(String),
    /// `// text`: a comment line.
    Comment(String),
    /// A declaration of locals ([`Decl`]): indices, tile origins, register queues, slot
    /// indices, prefetch registers.
    Decl(Decl),
    /// `lhs = rhs;`: a register, a shared cell, a slot index or a device-memory element.
    Assign {
        /// The lvalue.
        lhs: String,
        /// The value.
        rhs: String,
    },
    /// `call;`: an expression statement (a call whose result is not used).
    Expr(String),
    /// `{ … }`: a scope of its own (one point of a thread's chunk, one lane, one y row).
    Scope(Vec<Stmt>),
    /// `{ s1 s2 … }` on one line: a scope of single-line statements (the rotation of a
    /// sliding window's slot indices).
    Line(Vec<Stmt>),
    /// `do { … } while (0);`: the point body of a kernel whose loop body has a
    /// `continue` outside any serial loop, which then skips the point.
    Once(Vec<Stmt>),
    /// `if` / `else` ([`If`]).
    If(If),
    /// A `for` loop with its role and `#pragma unroll` ([`Loop`]).
    Loop(Loop),
    /// `break;`
    Break,
    /// `__syncthreads();`: the block meets (the plane is loaded, or its slot is free);
    /// with a trailing comment saying why.
    Barrier {
        /// The trailing comment.
        note: Option<String>,
    },
    /// A `__shared__` array ([`Shared`]): the staged planes' dynamic allocation, a
    /// pipeline ring, the reduction's per-thread partials.
    Shared(Shared),
    /// A typed view of the slots of one array's planes carved from the dynamic shared
    /// allocation (thesis Sec. 5.7): `T (*name)[rows][cols] = …(base + offset);`.
    SharedView {
        /// The element type.
        ty: String,
        /// The view's name (`mint_sh_<array>`).
        name: String,
        /// A plane's rows and columns (the tile and its ghost cells).
        rows: u32,
        cols: u32,
        /// The dynamic allocation and the byte offset of this array's slots in it.
        base: String,
        offset: u32,
        /// Slots of the array (planes, the sliding window's spare, the ring's planes in
        /// flight), for the trailing comment.
        slots: u32,
    },
    /// One `cp.async` copy of a cell into a shared plane ([`AsyncCopy`]).
    AsyncCopy(AsyncCopy),
    /// `cp.async` commit: the copies issued since the last commit form one group.
    AsyncCommit,
    /// `cp.async` wait until at most `pending` groups are in flight; with a trailing
    /// comment.
    AsyncWait {
        /// Commit groups that may still be in flight.
        pending: i64,
        /// The trailing comment.
        note: Option<String>,
    },
    /// A 16-byte vector load into registers (`vectorize`, [`VLoad`]).
    VLoad(VLoad),
    /// A 16-byte vector store from registers (`vectorize`, [`VStore`]).
    VStore(VStore),
    /// `dst = src` for a vector of registers: a z queue's move down one plane.
    VMove {
        /// The queue's register array at a plane, and the one at the next plane.
        dst: String,
        src: String,
    },
    /// A place in the skeleton where a pass may put statements ([`Hook`]); printed as
    /// nothing (the passes replace the hooks they fill).
    Hook(Hook),
}

/// Where a lowering lets a pass put statements: the lowering knows where they go, the pass
/// knows what they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// Where the block's y and z indices are computed, before the first tile origin:
    /// `swizzle` computes its remapped indices here (`crate::passes::swizzle`).
    BlockIndices,
    /// Where the thread's reduction accumulator is declared, before its first point:
    /// `crate::passes::reduction` declares it here.
    Accumulator,
}

/// A declaration of one or more locals of one type: `[const ]ty a[len] = init, b, …;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    /// `const`: the local is not assigned again.
    pub konst: bool,
    /// The C type (`idx_t`, `int`, `double`, `const float* __restrict__`, …).
    pub ty: String,
    /// The locals declared, in order.
    pub vars: Vec<Var>,
}

/// One declarator of a [`Decl`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// The local's C name.
    pub name: String,
    /// Elements, for a local array (a vector's registers).
    pub len: Option<u32>,
    /// The initial value.
    pub init: Option<String>,
}

/// `if (cond) { then } else { els }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct If {
    /// The condition (C text).
    pub cond: String,
    /// The branch taken where `cond` holds.
    pub then: Vec<Stmt>,
    /// An `else` branch; one that holds only a block `if` prints as `} else if (…) {`.
    pub els: Option<Vec<Stmt>>,
    /// Printed on one line, `if (cond) s;` (and `else s;` on the next), for branches of
    /// one single-line statement each.
    pub inline: bool,
}

/// What a loop of the skeleton walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopRole {
    /// A chunk of points along one axis (the baseline's `chunksize`, thesis Sec. 4.2.8).
    Chunk,
    /// The z steps of a thread's chunk: the sliding window (thesis Sec. 5.8); `roll_z`
    /// rolls them (`crate::passes::roll_z`).
    ZWindow,
    /// The planes of a thread's z chunk walked one at a time without a window (the vector
    /// path's edge path).
    Planes,
    /// The y rows of a thread (`chunksize` y of the vector path's edge path).
    Rows,
    /// The lanes of a 16-byte vector (`vectorize`'s edge path).
    Lanes,
    /// Cells of a plane copied `t`, `t + n`, … by thread `t` of `n`: the rounds of a
    /// `cp.async` plane copy.
    Rounds,
    /// The steps of a block's tree reduction.
    Reduction,
    /// Any other loop.
    Plain,
}

impl LoopRole {
    /// What a loop of this role walks, in words (for [`print::dump`] and the `annotate`
    /// pass); `None` for [`LoopRole::Plain`].
    pub fn describe(self) -> Option<&'static str> {
        Some(match self {
            LoopRole::Chunk => "chunk: the thread's points along one axis (thesis Sec. 4.2.8)",
            LoopRole::ZWindow => {
                "z window: the steps of the thread's z chunk (sliding window, thesis Sec. 5.8)"
            }
            LoopRole::Planes => "planes: the thread's z chunk, one plane at a time",
            LoopRole::Rows => "rows: the thread's y rows",
            LoopRole::Lanes => "lanes: the lanes of a 16-byte vector, one at a time",
            LoopRole::Rounds => "rounds: the cells of a plane copy, t, t + n, ... by thread t of n",
            LoopRole::Reduction => "reduction: the steps of the block's tree reduction",
            LoopRole::Plain => return None,
        })
    }
}

/// `#pragma unroll` before a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unroll {
    /// `#pragma unroll`: completely.
    Full,
    /// `#pragma unroll n` (`1`: not at all).
    By(u32),
}

/// `for (init; cond; step) { body }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// What the loop walks (passes find the z window or the lanes by it).
    pub role: LoopRole,
    /// The `#pragma unroll` printed before the loop, if any.
    pub unroll: Option<Unroll>,
    /// The head's three parts: `for (init; cond; step)`.
    pub init: String,
    pub cond: String,
    pub step: String,
    /// The statements of one iteration.
    pub body: Vec<Stmt>,
    /// Printed on one line, `for (…) s;`, for a body of one single-line statement.
    pub inline: bool,
}

/// A `__shared__` array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    /// The element type.
    pub ty: String,
    /// The array's name.
    pub name: String,
    /// Extents, outermost first; none for the dynamic allocation (`extern`, sized at
    /// launch).
    pub dims: Vec<u32>,
    /// `__align__(bytes)`.
    pub align: Option<u32>,
}

/// One `cp.async` copy of thread's cell into shared memory: `&dst` gets `array[offset]`
/// where `pred` holds, zeros elsewhere (a ghost cell outside the array).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncCopy {
    /// A 16-byte chunk (`cp.async.cg`), or one 4- or 8-byte element.
    pub chunk16: bool,
    /// The shared destination (an lvalue).
    pub dst: String,
    /// The device array and the cell's element offset in it.
    pub array: String,
    pub offset: String,
    /// Whether the cell is inside the array.
    pub pred: String,
}

/// Where a [`VLoad`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VSource {
    /// Device memory `array[index ..]`, through the read-only path unless `rw` (an array
    /// the kernel writes).
    Global {
        /// The device array and the element index of the vector's first lane.
        array: String,
        index: String,
        /// Of an array the kernel writes: a plain load.
        rw: bool,
    },
    /// Shared memory at this lvalue (a pipeline ring's slot).
    Shared(String),
}

/// The `V = 16 / sizeof(T)` registers of `dst` loaded from `src` as one 16-byte vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VLoad {
    /// Where the vector comes from.
    pub src: VSource,
    /// The register array (`V` elements) it goes to.
    pub dst: String,
}

/// `array[index ..]` stored from the registers of `src`: a whole 16-byte vector, or with
/// `count` only that many elements (the last thread of a row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VStore {
    /// The device array and the element index of the vector's first lane.
    pub array: String,
    pub index: String,
    /// Elements stored, where fewer than `V` (C text).
    pub count: Option<String>,
    /// The register array stored.
    pub src: String,
}

/// The `__launch_bounds__` of a kernel: threads per block and, where the registers are
/// capped, the blocks per SM that hold each thread to the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    /// Threads per block.
    pub threads: u32,
    /// Blocks per SM to hold each thread's registers to the cap, where there is one.
    pub min_blocks: Option<u32>,
}

/// One `extern "C" __global__` function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The `extern "C"` entry point.
    pub entry: String,
    /// The launch bounds (none for a `single` kernel).
    pub bounds: Option<LaunchBounds>,
    /// `(C type, name)` of each parameter, in order.
    pub params: Vec<(String, String)>,
    /// The closing parenthesis follows the last parameter on its line (the finish
    /// kernel's style) rather than on a line of its own.
    pub close_on_last: bool,
    /// The function's statements.
    pub body: Vec<Stmt>,
}

/// A CUDA module: the header comments, the index type, the device helpers and the kernels
/// (a kernel, and the finish kernel of its reduction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The header comments, one line each (without `// `).
    pub comments: Vec<String>,
    /// `idx_t` is 64-bit.
    pub idx64: bool,
    /// The device helper functions' definitions (`emit::cexpr::helpers_source`).
    pub helpers: String,
    /// The kernel, then the finish kernel of its reduction if it has one.
    pub functions: Vec<Function>,
}

impl Stmt {
    /// `const ty name = init;`
    pub fn konst(ty: &str, name: impl Into<String>, init: impl Into<String>) -> Stmt {
        Stmt::Decl(Decl {
            konst: true,
            ty: ty.into(),
            vars: vec![Var::init(name, init)],
        })
    }

    /// `ty name = init;`
    pub fn var(ty: &str, name: impl Into<String>, init: impl Into<String>) -> Stmt {
        Stmt::Decl(Decl {
            konst: false,
            ty: ty.into(),
            vars: vec![Var::init(name, init)],
        })
    }

    /// `ty a, b, …;` with the declarators `vars`.
    pub fn vars(ty: &str, vars: Vec<Var>) -> Stmt {
        Stmt::Decl(Decl {
            konst: false,
            ty: ty.into(),
            vars,
        })
    }

    /// `lhs = rhs;`
    pub fn assign(lhs: impl Into<String>, rhs: impl Into<String>) -> Stmt {
        Stmt::Assign {
            lhs: lhs.into(),
            rhs: rhs.into(),
        }
    }

    /// `if (cond) { then }`.
    pub fn if_(cond: impl Into<String>, then: Vec<Stmt>) -> Stmt {
        Stmt::If(If {
            cond: cond.into(),
            then,
            els: None,
            inline: false,
        })
    }

    /// `if (cond) { then } else { els }`.
    pub fn if_else(cond: impl Into<String>, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
        Stmt::If(If {
            cond: cond.into(),
            then,
            els: Some(els),
            inline: false,
        })
    }

    /// `if (cond) s;` on one line.
    pub fn if_line(cond: impl Into<String>, s: Stmt) -> Stmt {
        Stmt::If(If {
            cond: cond.into(),
            then: vec![s],
            els: None,
            inline: true,
        })
    }
}

impl Var {
    /// `name = init`.
    pub fn init(name: impl Into<String>, init: impl Into<String>) -> Var {
        Var {
            name: name.into(),
            len: None,
            init: Some(init.into()),
        }
    }

    /// `name`, declared without a value.
    pub fn plain(name: impl Into<String>) -> Var {
        Var {
            name: name.into(),
            len: None,
            init: None,
        }
    }

    /// `name[len]`: a vector's registers.
    pub fn array(name: impl Into<String>, len: u32) -> Var {
        Var {
            name: name.into(),
            len: Some(len),
            init: None,
        }
    }
}

impl Loop {
    /// A loop of `role` with the head `for (init; cond; step)`.
    pub fn new(
        role: LoopRole,
        init: impl Into<String>,
        cond: impl Into<String>,
        step: impl Into<String>,
    ) -> Loop {
        Loop {
            role,
            unroll: None,
            init: init.into(),
            cond: cond.into(),
            step: step.into(),
            body: Vec::new(),
            inline: false,
        }
    }

    /// With `#pragma unroll` as `u` says.
    pub fn unroll(mut self, u: Option<Unroll>) -> Loop {
        self.unroll = u;
        self
    }
}

/// Collects the statements of a kernel skeleton in order.
#[derive(Debug)]
pub struct Builder {
    /// The open levels ([`Builder::nest`]): the outermost first, the one being filled
    /// last.
    stack: Vec<Vec<Stmt>>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Builder {
        Builder {
            stack: vec![Vec::new()],
        }
    }

    /// Appends `s`.
    pub fn push(&mut self, s: Stmt) {
        self.stack.last_mut().expect("an open level").push(s);
    }

    /// Appends `stmts`.
    pub fn extend(&mut self, stmts: impl IntoIterator<Item = Stmt>) {
        self.stack.last_mut().expect("an open level").extend(stmts);
    }

    /// Appends a comment line.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.push(Stmt::Comment(text.into()));
    }

    /// The statements `f` appends, for a node that holds them.
    pub fn nest(&mut self, f: impl FnOnce(&mut Builder)) -> Vec<Stmt> {
        self.stack.push(Vec::new());
        f(self);
        self.stack.pop().expect("an open level")
    }

    /// Appends `if (cond) { f }`.
    pub fn if_(&mut self, cond: impl Into<String>, f: impl FnOnce(&mut Builder)) {
        let then = self.nest(f);
        self.push(Stmt::If(If {
            cond: cond.into(),
            then,
            els: None,
            inline: false,
        }));
    }

    /// Appends `if (cond) { f }` where there is a condition, `f`'s statements where not.
    pub fn if_some(&mut self, cond: Option<&str>, f: impl FnOnce(&mut Builder)) {
        match cond {
            Some(c) => self.if_(c, f),
            None => f(self),
        }
    }

    /// Appends `l` with the body `f` appends.
    pub fn for_(&mut self, mut l: Loop, f: impl FnOnce(&mut Builder)) {
        l.body = self.nest(f);
        self.push(Stmt::Loop(l));
    }

    /// Appends `{ f }`.
    pub fn scope(&mut self, f: impl FnOnce(&mut Builder)) {
        let v = self.nest(f);
        self.push(Stmt::Scope(v));
    }

    /// Prints `f`'s loop-body statements through `p` and appends them as [`Stmt::Body`].
    pub fn body(&mut self, p: &mut CPrinter, f: impl FnOnce(&mut CPrinter)) {
        let (indent, before) = (p.indent, std::mem::take(&mut p.out));
        p.indent = 0;
        f(p);
        let text = std::mem::replace(&mut p.out, before);
        p.indent = indent;
        if !text.is_empty() {
            self.push(Stmt::Body(text));
        }
    }

    /// The statements built.
    pub fn finish(mut self) -> Vec<Stmt> {
        assert_eq!(self.stack.len(), 1, "a level left open");
        self.stack.pop().unwrap()
    }
}
