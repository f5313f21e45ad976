//! A seeded generator of random kernels over the IR, for differential testing of the
//! translator (issue #14, in the manner of Csmith and YARPGen): every case is a
//! well-typed kernel with its inputs, iteration space, clauses and optimizer options,
//! whose result the interpreter ([`crate::interp`]) defines.
//!
//! What a case may hold:
//! - a 1-, 2- or 3-D nest over arrays of one shape, extents 9..=40 that are mostly not
//!   multiples of the tile, and a halo of 4 so that offsets up to ±4 stay inside;
//! - one element type per case, `f32`, `f64` or `i32`;
//! - up to four read-only arrays read at random offsets (asymmetric ones included), one
//!   array written at the centre, and sometimes one read and written at the centre;
//! - host scalars, literals, the loop indices cast to the element type;
//! - `let`s, `if`/`else` statements, `if` expressions, inner serial `for` loops, math
//!   methods (`min`, `max`, `abs`, and for floats `sqrt`, `floor`, `mul_add`, `sin`,
//!   `cos`), bit operations and small shifts for integers;
//! - a `+` or `max` reduction;
//! - random `tile`/`chunksize` (chunks in y and z too) and any combination of `shared =
//!   0..8`, `register`, `unroll`, `prefer_l1`, `same_index`, `vectorize` and `pipeline`; `swizzle` in one case of four.
//!
//! Values stay small (inputs in [−1, 1] or [−50, 50], shallow expressions, divisions only
//! by `|e| + 1`), so integers do not overflow and floats stay far from overflow; branch
//! conditions compare inputs directly, so rounding differences cannot flip them.

use crate::interp::{Array, Value};
use mint_translator::ir::*;

/// SplitMix64: a small, fast, seedable generator (also the mutation fuzz's, in
/// `mint-macros`).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() <= p
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// One generated test case.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    /// The kernel as a front end would lower it (untyped: run [`mint_translator::check`]).
    pub kernel: Kernel,
    /// The shape of every array, slowest axis first.
    pub shape: Vec<usize>,
    /// `[lo, hi)` of each parallel loop, outermost first.
    pub bounds: Vec<(i64, i64)>,
    /// The initial contents of each array, in the kernel's order.
    pub arrays: Vec<Array>,
    /// The host scalars, in the kernel's order.
    pub scalars: Vec<Value>,
    /// The reduction variable's initial value.
    pub reduction: Option<Value>,
    /// `tile` and `chunksize` (x, y, z).
    pub tile: [u32; 3],
    pub chunk: [u32; 3],
    /// A [`boundary_case`] with a read of `a0` whose slowest subscript no ghost width
    /// bounds: a region that also writes `a0` (it swaps it with `out`) must refuse to split.
    pub unbounded_slowest: bool,
    /// The reads of a [`boundary_case`] (of any array) whose slowest subscript no ghost
    /// width bounds.
    pub unbounded_reads: usize,
}

const HALO: i64 = 4;
const AXES: [&str; 3] = ["z", "y", "x"];

struct Gen {
    rng: Rng,
    ty: ScalarTy,
    dims: usize,
    reads: Vec<String>,
    scalars: Vec<String>,
    locals: Vec<String>,
    /// Serial loop indices in scope.
    serial: Vec<String>,
    uses_rw: bool,
}

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, 0)
}

fn int_lit(v: i64) -> Expr {
    let k = e(ExprKind::Lit(Lit::Int {
        value: v.unsigned_abs() as u128,
        suffix: None,
    }));
    if v < 0 {
        e(ExprKind::Unary {
            op: UnOp::Neg,
            expr: Box::new(k),
        })
    } else {
        k
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    e(ExprKind::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    })
}

fn call(func: MathFn, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call { func, args })
}

fn var(n: &str) -> Expr {
    e(ExprKind::Var(n.into()))
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, span: 0 }
}

impl Gen {
    fn lit(&mut self) -> Expr {
        if self.ty.is_float() {
            let choices = ["0.5", "0.25", "1.5", "2.0", "0.125", "3.0", "0.75", "1.0"];
            let t = self.rng.pick(&choices).to_string();
            let l = e(ExprKind::Lit(Lit::Float {
                text: t,
                suffix: None,
            }));
            if self.rng.chance(0.3) {
                e(ExprKind::Unary {
                    op: UnOp::Neg,
                    expr: Box::new(l),
                })
            } else {
                l
            }
        } else {
            int_lit(self.rng.range(-7, 9))
        }
    }

    /// The index of a parallel loop plus an offset in −4..=4.
    fn index(&mut self, axis: usize, off: i64) -> Expr {
        let v = var(AXES[3 - self.dims + axis]);
        match off {
            0 => v,
            o if o > 0 => bin(BinOp::Add, v, int_lit(o)),
            o => bin(BinOp::Sub, v, int_lit(-o)),
        }
    }

    fn center(&mut self) -> Vec<Expr> {
        (0..self.dims).map(|a| self.index(a, 0)).collect()
    }

    /// A read of a read-only array at a random offset (mostly small, sometimes the
    /// halo's full width on one side only).
    fn read(&mut self) -> Expr {
        let a = self.rng.pick(&self.reads.clone()).clone();
        let axis = self.rng.below(self.dims as u64) as usize;
        let mut index = Vec::new();
        for d in 0..self.dims {
            let off = if d == axis || self.rng.chance(0.25) {
                if self.rng.chance(0.2) {
                    self.rng.range(-HALO, HALO)
                } else {
                    self.rng.range(-2, 2)
                }
            } else {
                0
            };
            index.push(self.index(d, off));
        }
        e(ExprKind::Elem { array: a, index })
    }

    fn leaf(&mut self) -> Expr {
        match self.rng.below(10) {
            0..=4 => self.read(),
            5 if !self.scalars.is_empty() => var(&self.rng.pick(&self.scalars.clone()).clone()),
            6 if !self.locals.is_empty() => var(&self.rng.pick(&self.locals.clone()).clone()),
            7 => {
                // a loop index (parallel or serial) as a number of the element type
                let mut idx: Vec<String> = AXES[3 - self.dims..]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                idx.extend(self.serial.iter().cloned());
                let v = self.rng.pick(&idx).clone();
                e(ExprKind::Cast {
                    expr: Box::new(var(&v)),
                    to: self.ty,
                })
            }
            8 if self.uses_rw => e(ExprKind::Elem {
                array: "acc".into(),
                index: self.center(),
            }),
            _ => self.lit(),
        }
    }

    /// A condition that compares inputs directly (rounding cannot flip it).
    fn cond(&mut self) -> Expr {
        let op = *self
            .rng
            .pick(&[BinOp::Lt, BinOp::Gt, BinOp::Le, BinOp::Ge, BinOp::Ne]);
        let a = self.read();
        let b = if self.rng.chance(0.5) && !self.scalars.is_empty() {
            var(&self.rng.pick(&self.scalars.clone()).clone())
        } else {
            self.read()
        };
        bin(op, a, b)
    }

    fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf();
        }
        let d = depth - 1;
        let float = self.ty.is_float();
        match self.rng.below(if float { 12 } else { 11 }) {
            0..=2 => {
                let op = *self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Add]);
                let (a, b) = (self.expr(d), self.expr(d));
                bin(op, a, b)
            }
            3 | 4 => {
                // products of shallow operands only, so integers cannot overflow
                let (a, b) = (self.expr(d.min(1)), self.expr(d.min(1)));
                bin(BinOp::Mul, a, b)
            }
            5 => {
                let a = self.expr(d);
                e(ExprKind::Unary {
                    op: UnOp::Neg,
                    expr: Box::new(a),
                })
            }
            6 => {
                let f = *self.rng.pick(&[MathFn::Min, MathFn::Max]);
                let (a, b) = (self.expr(d), self.expr(d));
                call(f, vec![a, b])
            }
            7 => {
                let a = self.expr(d);
                call(MathFn::Abs, vec![a])
            }
            8 => {
                let c = self.cond();
                let (a, b) = (self.expr(d), self.expr(d));
                e(ExprKind::Select {
                    cond: Box::new(c),
                    then: Box::new(a),
                    els: Box::new(b),
                })
            }
            9 if float => {
                // a division by a denominator at least 1
                let a = self.expr(d);
                let b = self.expr(d.min(1));
                let one = e(ExprKind::Lit(Lit::Float {
                    text: "1.0".into(),
                    suffix: None,
                }));
                bin(
                    BinOp::Div,
                    a,
                    bin(BinOp::Add, call(MathFn::Abs, vec![b]), one),
                )
            }
            9 => {
                let op = *self.rng.pick(&[BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor]);
                let (a, b) = (self.expr(d), self.expr(d));
                bin(op, a, b)
            }
            10 if float => {
                let a = self.expr(d);
                match self.rng.below(5) {
                    0 => call(MathFn::Sqrt, vec![call(MathFn::Abs, vec![a])]),
                    1 => call(MathFn::Floor, vec![a]),
                    2 => call(MathFn::Sin, vec![a]),
                    3 => call(MathFn::Cos, vec![a]),
                    _ => {
                        let (b, c) = (self.expr(d.min(1)), self.expr(d.min(1)));
                        call(MathFn::MulAdd, vec![a, b, c])
                    }
                }
            }
            10 => {
                let a = self.expr(d.min(1));
                let op = *self.rng.pick(&[BinOp::Shl, BinOp::Shr]);
                bin(op, a, int_lit(self.rng.range(1, 3)))
            }
            _ => self.leaf(),
        }
    }
}

/// The case of `seed`.
pub fn case(seed: u64) -> Case {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x5151);
    let dims = 1 + rng.below(3) as usize;
    let ty = *rng.pick(&[ScalarTy::F32, ScalarTy::F64, ScalarTy::I32]);
    let shape: Vec<usize> = (0..dims)
        .map(|d| {
            let n = if d + 1 == dims {
                rng.range(9, 40)
            } else {
                rng.range(9, 24)
            };
            n as usize
        })
        .collect();
    let nreads = 1 + rng.below(4) as usize;
    let nscalars = rng.below(3) as usize;
    let uses_rw = rng.chance(0.35);
    let mut g = Gen {
        rng,
        ty,
        dims,
        reads: (0..nreads).map(|i| format!("a{i}")).collect(),
        scalars: (0..nscalars).map(|i| format!("s{i}")).collect(),
        locals: Vec::new(),
        serial: Vec::new(),
        uses_rw,
    };
    let mut body = Vec::new();
    for i in 0..g.rng.below(3) {
        let init = g.expr(2);
        let name = format!("t{i}");
        body.push(stmt(StmtKind::Let {
            name: name.clone(),
            mutable: false,
            ty: None,
            init: Some(init),
        }));
        g.locals.push(name);
    }
    let center = g.center();
    let out = |value: Expr, center: &Vec<Expr>| {
        stmt(StmtKind::Assign {
            place: Place::Elem {
                array: "out".into(),
                index: center.clone(),
            },
            op: None,
            value,
        })
    };
    if g.rng.chance(0.3) {
        // an inner serial loop accumulating into a local
        let k = g.rng.range(2, 4);
        body.push(stmt(StmtKind::Let {
            name: "s".into(),
            mutable: true,
            ty: None,
            init: Some(g.lit()),
        }));
        g.serial.push("k".into());
        let inc = g.expr(2);
        g.serial.pop();
        body.push(stmt(StmtKind::For {
            var: "k".into(),
            ty: None,
            lo: int_lit(0),
            hi: int_lit(k),
            inclusive: false,
            step: None,
            reverse: g.rng.chance(0.3),
            body: Block {
                stmts: vec![stmt(StmtKind::Assign {
                    place: Place::Var("s".into()),
                    op: Some(BinOp::Add),
                    value: inc,
                })],
            },
        }));
        g.locals.push("s".into());
    }
    if g.rng.chance(0.3) {
        let c = g.cond();
        let (a, b) = (g.expr(3), g.expr(3));
        body.push(stmt(StmtKind::If {
            cond: c,
            then: Block {
                stmts: vec![out(a, &center)],
            },
            els: Some(Block {
                stmts: vec![out(b, &center)],
            }),
        }));
    } else {
        let v = g.expr(3);
        body.push(out(v, &center));
    }
    if uses_rw {
        let v = g.expr(2);
        body.push(stmt(StmtKind::Assign {
            place: Place::Elem {
                array: "acc".into(),
                index: center.clone(),
            },
            op: Some(BinOp::Add),
            value: v,
        }));
    }
    let reduction = if g.rng.chance(0.2) {
        let op = *g.rng.pick(&[RedOp::Add, RedOp::Max]);
        let v = g.expr(2);
        body.push(match op {
            RedOp::Add => stmt(StmtKind::Assign {
                place: Place::Var("total".into()),
                op: Some(BinOp::Add),
                value: v,
            }),
            _ => stmt(StmtKind::Assign {
                place: Place::Var("total".into()),
                op: None,
                value: call(MathFn::Max, vec![var("total"), v]),
            }),
        });
        Some(op)
    } else {
        None
    };

    // arrays in first-use order: the translator's outliner decides the order; give them
    // in a fixed order here and let `arguments` below reorder
    let bound: Vec<&str> = AXES[3 - dims..].to_vec();
    let block = Block { stmts: body };
    let (uses, scalar_uses) = mint_translator::baseline::outline::arguments(&block, &bound);
    let mut arrays = Vec::new();
    let mut params = Vec::new();
    for u in &uses {
        params.push(ArrayParam {
            name: u.name.clone(),
            elem: ty,
            elem_at_launch: false,
            ndim: dims as u8,
            read: u.read,
            written: u.written,
            span: 0,
        });
        let n: usize = shape.iter().product();
        let data = (0..n)
            .map(|_| {
                if ty.is_float() {
                    Value::from_f64(2.0 * g.rng.unit() - 1.0, ty)
                } else {
                    Value::Int(g.rng.range(-50, 50) as i128, ty)
                }
            })
            .collect();
        arrays.push(Array {
            elem: ty,
            shape: shape.clone(),
            data,
        });
    }
    let mut scalars = Vec::new();
    let mut scalar_params = Vec::new();
    for s in scalar_uses.iter().filter(|s| s.name != "total") {
        scalar_params.push(ScalarParam {
            name: s.name.clone(),
            ty: Some(ty),
            span: 0,
        });
        scalars.push(if ty.is_float() {
            Value::from_f64(2.0 * g.rng.unit() - 1.0, ty)
        } else {
            Value::Int(g.rng.range(-20, 20) as i128, ty)
        });
    }
    let red = reduction.map(|op| {
        scalar_params.push(ScalarParam {
            name: "total".into(),
            ty: Some(ty),
            span: 0,
        });
        scalars.push(Value::zero(ty));
        Reduction {
            op,
            var: "total".into(),
            ty: Some(ty),
            span: 0,
        }
    });
    let bounds: Vec<(i64, i64)> = shape.iter().map(|&n| (HALO, n as i64 - HALO)).collect();
    let nest = (0..dims)
        .map(|d| ParLoop {
            var: AXES[3 - dims + d].into(),
            ty: None,
            lo: Some(int_lit(bounds[d].0)),
            hi: Some(int_lit(bounds[d].1)),
            inclusive: false,
            span: 0,
        })
        .collect();
    // clauses and options
    let tx = *g.rng.pick(&[8u32, 16, 32, 64, 128]);
    let ty_ = if dims >= 2 {
        *g.rng.pick(&[1u32, 2, 4, 8])
    } else {
        1
    };
    let tz = if dims == 3 {
        *g.rng.pick(&[1u32, 2, 4, 8])
    } else {
        1
    };
    let cy = if ty_ > 1 && g.rng.chance(0.3) {
        *g.rng.pick(&[1u32, 2])
    } else {
        1
    };
    let cz = if tz > 1 && g.rng.chance(0.5) { tz } else { 1 };
    // at most 1024 threads per block
    let (mut ty_, mut tz, mut cz) = (ty_, tz, cz);
    while tx * ty_ * tz / (cy * cz) > 1024 {
        if tz > cz {
            tz /= 2;
        } else if ty_ > cy {
            ty_ /= 2;
        } else {
            tz = 1;
            cz = 1;
        }
        cz = cz.min(tz);
    }
    let tile = [tx, ty_, tz];
    let chunk = [1, cy.min(ty_), cz];
    let options = OptOptions {
        register: g.rng.chance(0.5),
        shared: if g.rng.chance(0.5) {
            g.rng.range(1, 8) as u8
        } else {
            0
        },
        prefer_l1: g.rng.chance(0.2),
        unroll: g.rng.chance(0.3),
        same_index: g.rng.chance(0.3),
        vectorize: g.rng.chance(0.25),
        tune: false,
        pipeline: g.rng.chance(0.3),
        // from the seed, not the generator, so that adding it changed no other draw
        swizzle: seed % 4 == 1,
        // likewise from the seed
        roll_z: seed % 3 == 1,
        time_block: 0,
        time_input: 0,
        time_carried: Default::default(),
    };
    let c = |v: [u32; 3]| v.map(ClauseValue::Const);
    let kernel = Kernel {
        name: format!("fuzz_{seed}"),
        region: "fuzz".into(),
        origin: Origin::default(),
        nest,
        body: block,
        arrays: params,
        scalars: scalar_params,
        reduction: red,
        clauses: Clauses {
            tile: Some(c(tile)),
            chunk: Some(c(chunk)),
            nowait: false,
            span: 0,
        },
        options,
    };
    Case {
        seed,
        kernel,
        shape,
        bounds,
        arrays,
        scalars,
        reduction: reduction.map(|_| Value::zero(ty)),
        tile,
        chunk,
        unbounded_slowest: false,
        unbounded_reads: 0,
    }
}

/// A subscript along one axis of a boundary case, and whether the analysis can bound it
/// relative to that axis's loop index.
struct Subscript {
    expr: Expr,
    bounded: bool,
}

/// The extent scalar of axis `a` of a `dims`-D case (`nz`, `ny`, `nx`).
fn extent_var(dims: usize, a: usize) -> Expr {
    var(&format!("n{}", AXES[3 - dims + a]))
}

impl Gen {
    /// A subscript along axis `a` as real codes write boundaries: the index, the index
    /// plus a constant (interior loops only), clamped, mirrored and periodic faces in
    /// their usual spellings, and now and then one no ghost width bounds.
    fn boundary_subscript(&mut self, a: usize, interior: bool) -> Subscript {
        let v = var(AXES[3 - self.dims + a]);
        let n = extent_var(self.dims, a);
        let one = || int_lit(1);
        let sub = |x: Expr, y: Expr| bin(BinOp::Sub, x, y);
        let add = |x: Expr, y: Expr| bin(BinOp::Add, x, y);
        let eq = |x: Expr, y: Expr| bin(BinOp::Eq, x, y);
        let select = |c: Expr, t: Expr, f: Expr| {
            e(ExprKind::Select {
                cond: Box::new(c),
                then: Box::new(t),
                els: Box::new(f),
            })
        };
        let as_i64 = |x: Expr| {
            e(ExprKind::Cast {
                expr: Box::new(x),
                to: ScalarTy::I64,
            })
        };
        let as_usize = |x: Expr| {
            e(ExprKind::Cast {
                expr: Box::new(x),
                to: ScalarTy::Usize,
            })
        };
        let bounded = |expr| Subscript {
            expr,
            bounded: true,
        };
        match self.rng.below(17) {
            0..=2 => bounded(v),
            3 if interior => bounded(add(v, one())),
            4 if interior => bounded(sub(v, one())),
            // clamped below: the thermal benchmark's spellings
            3 | 5 => bounded(select(eq(v.clone(), int_lit(0)), v.clone(), sub(v, one()))),
            6 => bounded(sub(call(MathFn::Max, vec![v, one()]), one())),
            7 => bounded(call(MathFn::SaturatingSub, vec![v, one()])),
            8 => {
                let c = self.rng.range(1, 2);
                bounded(as_usize(call(
                    MathFn::Clamp,
                    vec![
                        sub(as_i64(v), int_lit(c)),
                        int_lit(0),
                        sub(as_i64(n), int_lit(1)),
                    ],
                )))
            }
            // clamped above
            4 | 9 => bounded(select(
                eq(v.clone(), sub(n.clone(), one())),
                v.clone(),
                add(v, one()),
            )),
            10 => bounded(call(MathFn::Min, vec![add(v, one()), sub(n, one())])),
            // mirrored faces
            11 => bounded(select(eq(v.clone(), int_lit(0)), one(), sub(v, one()))),
            12 => bounded(select(
                eq(v.clone(), sub(n.clone(), one())),
                sub(n, int_lit(2)),
                add(v, one()),
            )),
            // periodic
            13 => {
                let c = self.rng.range(1, 2);
                bounded(bin(BinOp::Rem, add(v, int_lit(c)), n))
            }
            14 => {
                let c = self.rng.range(1, 2);
                bounded(bin(BinOp::Rem, sub(add(v, n.clone()), int_lit(c)), n))
            }
            // reflected across the whole axis, and a fixed plane: no ghost width bounds
            // them relative to the index
            15 => Subscript {
                expr: sub(sub(n, one()), v),
                bounded: false,
            },
            _ => Subscript {
                expr: int_lit(0),
                bounded: false,
            },
        }
    }
}

/// A case for the decomposition fuzz (issue #41): a 2- or 3-D kernel whose reads have
/// the subscripts of [`Gen::boundary_subscript`] along every axis, some through `let`-bound
/// index locals, over loops that cover the whole extent (or all but its faces, where the
/// index plus a constant stays inside). The arrays `a0` (read) and `out` (written at the
/// centre) have one shape, so that a region can swap them and run the kernel again. The
/// host scalars `nz`, `ny`, `nx` hold the extents. [`Case::unbounded_slowest`] says
/// whether some read's slowest subscript is one no ghost width bounds.
pub fn boundary_case(seed: u64) -> Case {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xB0_0DA5);
    let dims = 2 + rng.below(2) as usize;
    let ty = *rng.pick(&[ScalarTy::F64, ScalarTy::F64, ScalarTy::F32, ScalarTy::I32]);
    let shape: Vec<usize> = (0..dims)
        .map(|d| {
            if d == 0 {
                rng.range(5, 17) as usize
            } else {
                rng.range(3, 8) as usize
            }
        })
        .collect();
    let nreads = 1 + rng.below(3) as usize;
    let mut g = Gen {
        rng,
        ty,
        dims,
        reads: (0..nreads).map(|i| format!("a{i}")).collect(),
        scalars: Vec::new(),
        locals: Vec::new(),
        serial: Vec::new(),
        uses_rw: false,
    };
    let interior: Vec<bool> = (0..dims).map(|_| g.rng.chance(0.3)).collect();
    let mut body = Vec::new();
    let mut terms = Vec::new();
    let mut unbounded_slowest = false;
    let mut unbounded_reads = 0;
    let nterms = 1 + g.rng.below(4) as usize;
    let mut locals = 0;
    for _ in 0..nterms {
        let array = g.rng.pick(&g.reads.clone()).clone();
        let mut index = Vec::new();
        for (a, &inner) in interior.iter().enumerate() {
            let s = g.boundary_subscript(a, inner);
            if a == 0 && !s.bounded {
                unbounded_slowest |= array == "a0";
                unbounded_reads += 1;
            }
            if g.rng.chance(0.35) {
                let name = format!("i{locals}");
                locals += 1;
                body.push(stmt(StmtKind::Let {
                    name: name.clone(),
                    mutable: false,
                    ty: None,
                    init: Some(s.expr),
                }));
                index.push(var(&name));
            } else {
                index.push(s.expr);
            }
        }
        let coef = g.lit();
        terms.push(bin(BinOp::Mul, coef, e(ExprKind::Elem { array, index })));
    }
    let value = terms
        .into_iter()
        .reduce(|a, b| bin(BinOp::Add, a, b))
        .expect("a term");
    let center = g.center();
    let out = |value: Expr| {
        stmt(StmtKind::Assign {
            place: Place::Elem {
                array: "out".into(),
                index: center.clone(),
            },
            op: None,
            value,
        })
    };
    if g.rng.chance(0.25) {
        // a statement on the face: the first plane of the slowest axis
        let c = bin(BinOp::Eq, var(AXES[3 - dims]), int_lit(0));
        let other = g.lit();
        body.push(stmt(StmtKind::If {
            cond: c,
            then: Block {
                stmts: vec![out(other)],
            },
            els: Some(Block {
                stmts: vec![out(value)],
            }),
        }));
    } else {
        body.push(out(value));
    }
    let bound: Vec<&str> = AXES[3 - dims..].to_vec();
    let block = Block { stmts: body };
    let (uses, _) = mint_translator::baseline::outline::arguments(&block, &bound);
    // `a0` and `out` always (a region swaps them), the other reads as used
    let mut names: Vec<String> = vec!["a0".into()];
    names.extend(
        uses.iter()
            .map(|u| u.name.clone())
            .filter(|n| n != "a0" && n != "out"),
    );
    names.push("out".into());
    let mut params = Vec::new();
    let mut arrays = Vec::new();
    let n: usize = shape.iter().product();
    for name in &names {
        params.push(ArrayParam {
            name: name.clone(),
            elem: ty,
            elem_at_launch: false,
            ndim: dims as u8,
            read: name != "out",
            written: name == "out",
            span: 0,
        });
        let data = (0..n)
            .map(|_| {
                if ty.is_float() {
                    Value::from_f64(2.0 * g.rng.unit() - 1.0, ty)
                } else {
                    Value::Int(g.rng.range(-50, 50) as i128, ty)
                }
            })
            .collect();
        arrays.push(Array {
            elem: ty,
            shape: shape.clone(),
            data,
        });
    }
    let scalar_params: Vec<ScalarParam> = (0..dims)
        .map(|a| ScalarParam {
            name: format!("n{}", AXES[3 - dims + a]),
            ty: Some(ScalarTy::Usize),
            span: 0,
        })
        .collect();
    let scalars: Vec<Value> = shape
        .iter()
        .map(|&n| Value::Int(n as i128, ScalarTy::Usize))
        .collect();
    let bounds: Vec<(i64, i64)> = shape
        .iter()
        .zip(&interior)
        .map(|(&n, &i)| if i { (1, n as i64 - 1) } else { (0, n as i64) })
        .collect();
    let nest = (0..dims)
        .map(|d| {
            let (lo, hi) = if interior[d] {
                (int_lit(1), bin(BinOp::Sub, extent_var(dims, d), int_lit(1)))
            } else {
                (int_lit(0), extent_var(dims, d))
            };
            ParLoop {
                var: AXES[3 - dims + d].into(),
                ty: Some(ScalarTy::Usize),
                lo: Some(lo),
                hi: Some(hi),
                inclusive: false,
                span: 0,
            }
        })
        .collect();
    let tx = *g.rng.pick(&[8u32, 16, 32]);
    let ty_ = *g.rng.pick(&[1u32, 2, 4]);
    let tz = if dims == 3 {
        *g.rng.pick(&[1u32, 2, 4])
    } else {
        1
    };
    let tile = [tx, ty_, tz];
    let chunk = [1, 1, 1];
    let options = OptOptions {
        register: g.rng.chance(0.5),
        shared: if g.rng.chance(0.5) {
            g.rng.range(1, 8) as u8
        } else {
            0
        },
        prefer_l1: false,
        unroll: false,
        same_index: g.rng.chance(0.3),
        vectorize: g.rng.chance(0.2),
        tune: false,
        pipeline: g.rng.chance(0.2),
        swizzle: false,
        roll_z: false,
        time_block: 0,
        time_input: 0,
        time_carried: Default::default(),
    };
    let c = |v: [u32; 3]| v.map(ClauseValue::Const);
    let kernel = Kernel {
        name: format!("bcase_{seed}"),
        region: "bcase".into(),
        origin: Origin::default(),
        nest,
        body: block,
        arrays: params,
        scalars: scalar_params,
        reduction: None,
        clauses: Clauses {
            tile: Some(c(tile)),
            chunk: Some(c(chunk)),
            nowait: false,
            span: 0,
        },
        options,
    };
    Case {
        seed,
        kernel,
        shape,
        bounds,
        arrays,
        scalars,
        reduction: None,
        tile,
        chunk,
        unbounded_slowest,
        unbounded_reads,
    }
}
