//! What splitting a region into slabs along its slowest axis needs to know about one
//! kernel (issue #12): for every element reference, how many subscripts it has and how
//! its slowest subscript (`z` of `a[[z, y, x]]`, `y` of `a[[y, x]]`) relates to the
//! kernel's outermost parallel index.
//!
//! The reach of each slowest subscript is [`super::reach`]'s (clamped, mirrored and
//! periodic faces included). A subscript that does not follow the outermost parallel
//! index is kept as its base's text and a constant (`e + c`, `e` a source position read
//! from a table, `sz[i]`), so that two references `a[[k, ..]]` and `a[[k + 1, ..]]` are
//! known to be one plane apart. The runtime (`mint-runtime`'s `decomp`) turns these facts
//! into ghost widths, loop clipping and halo exchanges once it knows which arrays are
//! distributed, and refuses a split that they cannot justify.

use super::reach::{Reach, reaches};
use super::refs::linear;
use crate::ir::*;

/// The slowest subscript of one reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slow {
    /// `v + c` with `lo <= c <= hi`, `v` the kernel's outermost parallel index: the
    /// reference moves with the parallel loop that a slab decomposition clips. `lo < hi`
    /// when the subscript also has serial loop indices of constant bounds
    /// (`u[[z - d, ..]]` for `d` in `1..=4` reaches `z - 4 ..= z - 1`) or a clamped face
    /// (`if z == 0 { z } else { z - 1 }` reaches `z - 1 ..= z`).
    Outer { lo: i64, hi: i64 },
    /// `(v + c) % modulus` with `lo <= c <= hi`: a periodic wrap, the plane `v + c` taken
    /// cyclically where the scalar `modulus` is the array's slowest extent.
    Wrap { lo: i64, hi: i64, modulus: String },
    /// `base + c` for any other base (a constant plane has the base `""`): the reference
    /// does not move with the outermost parallel loop.
    Other { base: String, offset: i64 },
}

/// One element reference, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlabRef {
    pub array: String,
    /// Number of subscripts (the array's rank as the kernel indexes it).
    pub subscripts: u8,
    pub write: bool,
    pub slow: Slow,
    /// The slowest subscript uses a variable that changes during one iteration (a serial
    /// loop's index or a reassigned local): no constant ghost width bounds what it reaches.
    pub varying: bool,
    /// The slowest subscript as written, and its reach ([`super::reach`]), for reports and
    /// errors.
    pub text: String,
    pub reach: Reach,
}

/// Every element reference of `k` with its slowest subscript classified, in the order the
/// thread evaluates them (a compound assignment reads its place before writing it).
pub fn slab_refs(k: &Kernel) -> Vec<SlabRef> {
    let outer = k.nest.first().map(|l| l.var.as_str());
    let mut varying = std::collections::BTreeSet::new();
    let mut bounded = Bounded::new();
    let mut assigned = std::collections::BTreeSet::new();
    k.body.walk_stmts(&mut |s| {
        if let StmtKind::Assign {
            place: Place::Var(v),
            ..
        } = &s.kind
        {
            assigned.insert(v.clone());
        }
    });
    k.body.walk_stmts(&mut |s| match &s.kind {
        StmtKind::For {
            var,
            lo,
            hi,
            inclusive,
            ..
        } => {
            varying.insert(var.clone());
            let c = |e: &Expr| linear(e).and_then(|l| l.as_const());
            if let (Some(a), Some(b)) = (c(lo), c(hi))
                && !assigned.contains(var)
            {
                let b = if *inclusive { b } else { b - 1 };
                if a <= b {
                    bounded.insert(var.clone(), (a, b));
                }
            }
        }
        StmtKind::Assign {
            place: Place::Var(v),
            ..
        } => {
            varying.insert(v.clone());
        }
        _ => {}
    });
    let mut reach = reaches(k).into_iter();
    let mut out = Vec::new();
    visit_elems(&k.body, &mut |array, index, write| {
        let r = reach.next().expect("one reach per element reference");
        debug_assert!(r.array == array && r.write == write);
        let Some(first) = index.first() else { return };
        let mut uses = false;
        first.walk(&mut |e| {
            if let ExprKind::Var(v) = &e.kind {
                uses |= varying.contains(v);
            }
        });
        let slow = match (&r.reach[0], outer) {
            (Reach::Rel { var, lo, hi, wrap }, Some(o)) if var == o => match wrap {
                None => Slow::Outer { lo: *lo, hi: *hi },
                Some(m) => Slow::Wrap {
                    lo: *lo,
                    hi: *hi,
                    modulus: m.clone(),
                },
            },
            _ => classify(outer, &bounded, first),
        };
        out.push(SlabRef {
            array: array.to_string(),
            subscripts: index.len() as u8,
            write,
            slow,
            varying: uses,
            text: r.text[0].clone(),
            reach: r.reach[0].clone(),
        });
    });
    out
}

/// The largest number of subscripts of any reference: the rank of the arrays a region's
/// slabs split (0 when `refs` is empty).
pub fn rank(refs: &[SlabRef]) -> u8 {
    refs.iter().map(|r| r.subscripts).max().unwrap_or(0)
}

/// `[lo, hi]` of each serial loop index whose bounds are constants.
type Bounded = std::collections::BTreeMap<String, (i64, i64)>;

fn classify(outer: Option<&str>, bounded: &Bounded, e: &Expr) -> Slow {
    if let (Some(v), Some(l)) = (outer, linear(e))
        && l.coeffs.get(v) == Some(&1)
    {
        let (mut lo, mut hi) = (l.constant, l.constant);
        let mut ok = true;
        for (var, &c) in &l.coeffs {
            if var == v {
                continue;
            }
            match bounded.get(var) {
                Some(&(a, b)) => {
                    lo += (c * a).min(c * b);
                    hi += (c * a).max(c * b);
                }
                None => ok = false,
            }
        }
        if ok {
            return Slow::Outer { lo, hi };
        }
    }
    if let Some(l) = linear(e)
        && let Some(c) = l.as_const()
    {
        return Slow::Other {
            base: String::new(),
            offset: c,
        };
    }
    let (base, offset) = split_constant(e);
    Slow::Other {
        base: canonical(base),
        offset,
    }
}

/// `e` as `base + c` with `c` an integer constant, looking through casts.
fn split_constant(e: &Expr) -> (&Expr, i64) {
    match &e.kind {
        ExprKind::Cast { expr, to } if to.is_int() => split_constant(expr),
        ExprKind::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        } => {
            if let Some(c) = rhs.as_int_lit().and_then(|c| i64::try_from(c).ok()) {
                let (b, d) = split_constant(lhs);
                let c = if *op == BinOp::Add { c } else { -c };
                (b, d + c)
            } else if *op == BinOp::Add
                && let Some(c) = lhs.as_int_lit().and_then(|c| i64::try_from(c).ok())
            {
                let (b, d) = split_constant(rhs);
                (b, d + c)
            } else {
                (e, 0)
            }
        }
        _ => (e, 0),
    }
}

/// The expression's structure without types or spans, so that two copies of one
/// subscript (a device function's argument substituted twice) compare equal.
fn canonical(e: &Expr) -> String {
    let mut e = e.clone();
    e.walk_mut(&mut |x| {
        x.span = 0;
        x.ty = None;
        if let ExprKind::Cast { expr, to } = &x.kind
            && to.is_int()
        {
            *x = (**expr).clone();
        }
    });
    format!("{:?}", e.kind)
}

/// Calls `f(array, subscripts, write)` for every element reference, in the order a
/// thread evaluates them (a compound assignment reads its place before writing it).
fn visit_elems(b: &Block, f: &mut dyn FnMut(&str, &[Expr], bool)) {
    fn ex(e: &Expr, f: &mut dyn FnMut(&str, &[Expr], bool)) {
        match &e.kind {
            ExprKind::Elem { array, index } => {
                index.iter().for_each(|i| ex(i, f));
                f(array, index, false);
            }
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::ArrayRef { .. } => {}
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => ex(expr, f),
            ExprKind::Binary { lhs, rhs, .. } => {
                ex(lhs, f);
                ex(rhs, f);
            }
            ExprKind::Call { args, .. } | ExprKind::Apply { args, .. } => {
                args.iter().for_each(|a| ex(a, f))
            }
            ExprKind::Select { cond, then, els } => {
                ex(cond, f);
                ex(then, f);
                ex(els, f);
            }
        }
    }
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    ex(e, f);
                }
            }
            StmtKind::Assign { place, op, value } => {
                if let Place::Elem { array, index } = place {
                    index.iter().for_each(|i| ex(i, f));
                    if op.is_some() {
                        f(array, index, false);
                    }
                    ex(value, f);
                    f(array, index, true);
                } else {
                    ex(value, f);
                }
            }
            StmtKind::If { cond, then, els } => {
                ex(cond, f);
                visit_elems(then, f);
                if let Some(e) = els {
                    visit_elems(e, f);
                }
            }
            StmtKind::For {
                lo, hi, step, body, ..
            } => {
                ex(lo, f);
                ex(hi, f);
                if let Some(st) = step {
                    ex(st, f);
                }
                visit_elems(body, f);
            }
            StmtKind::While { cond, body } => {
                ex(cond, f);
                visit_elems(body, f);
            }
            StmtKind::Block(b) => visit_elems(b, f),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::kernel;

    #[test]
    fn slowest_subscripts_relative_to_the_outer_loop() {
        let k = kernel(
            "r_0",
            "arrays: u f64 3, v f64 3, t f64 1
             nest: z 1..n, y 1..n, x 1..n
             v[z][y][x] += u[z+1][y][x] + u[z-2][y][x] + u[3][y][x] + t[x];",
        );
        let r = slab_refs(&k);
        assert!(r.iter().all(|r| !r.varying));
        let got: Vec<(&str, bool, Slow, u8)> = r
            .iter()
            .map(|r| (r.array.as_str(), r.write, r.slow.clone(), r.subscripts))
            .collect();
        let other = |c| Slow::Other {
            base: String::new(),
            offset: c,
        };
        assert_eq!(
            got,
            vec![
                ("v", false, Slow::Outer { lo: 0, hi: 0 }, 3),
                ("u", false, Slow::Outer { lo: 1, hi: 1 }, 3),
                ("u", false, Slow::Outer { lo: -2, hi: -2 }, 3),
                ("u", false, other(3), 3),
                (
                    "t",
                    false,
                    Slow::Other {
                        base: canonical(&crate::testing::parse_expr("x")),
                        offset: 0
                    },
                    1
                ),
                ("v", true, Slow::Outer { lo: 0, hi: 0 }, 3),
            ]
        );
        assert_eq!(rank(&r), 3);
    }

    #[test]
    fn indirect_subscripts_keep_their_base_and_constant() {
        let k = kernel(
            "r_0",
            "arrays: u f64 3, s i64 1, out f64 1
             nest: i 0..n
             out[i] = u[s[i] + 1][0][0] - u[s[i]][0][0] + u[2 + s[i]][0][0];",
        );
        let r = slab_refs(&k);
        let us: Vec<&Slow> = r
            .iter()
            .filter(|r| r.array == "u")
            .map(|r| &r.slow)
            .collect();
        let Slow::Other { base, offset: 1 } = us[0] else {
            panic!("{us:?}")
        };
        assert_eq!(
            us[1],
            &Slow::Other {
                base: base.clone(),
                offset: 0
            }
        );
        assert_eq!(
            us[2],
            &Slow::Other {
                base: base.clone(),
                offset: 2
            }
        );
        assert!(r.iter().all(|r| !r.varying));
        // `s[i]` is indexed by the outer loop itself.
        assert_eq!(r[0].array, "s");
        assert_eq!(r[0].slow, Slow::Outer { lo: 0, hi: 0 });
    }

    #[test]
    fn subscripts_of_serial_loops_vary_within_an_iteration() {
        let k = kernel(
            "c_0",
            "arrays: a f64 3, s f64 2
             nest: y 0..n, x 0..n
             let mut acc = 0.0;
             for z in 0..n { acc += a[z][y][x]; }
             let mut k = 0;
             k = k + 1;
             s[y][x] = acc + a[k][y][x] + a[2][y][x];",
        );
        let r = slab_refs(&k);
        let v: Vec<(&str, bool)> = r.iter().map(|r| (r.array.as_str(), r.varying)).collect();
        assert_eq!(
            v,
            vec![("a", true), ("a", true), ("a", false), ("s", false)]
        );
    }

    #[test]
    fn serial_loops_of_constant_bounds_give_a_range_of_offsets() {
        let k = kernel(
            "s_0",
            "arrays: u f64 2, v f64 2
             nest: y 4..n, x 4..n
             let mut s = 0.0;
             for d in 1..5 { s += u[y - d][x] + u[y + 2 * d][x]; }
             for e in 0..m { s += u[y + e][x]; }
             v[y][x] = s;",
        );
        let r = slab_refs(&k);
        let slow: Vec<&Slow> = r.iter().map(|r| &r.slow).collect();
        assert_eq!(slow[0], &Slow::Outer { lo: -4, hi: -1 });
        assert_eq!(slow[1], &Slow::Outer { lo: 2, hi: 8 });
        assert!(
            matches!(slow[2], Slow::Other { .. }),
            "a loop bound that is not a constant"
        );
        assert!(r[2].varying);
        assert_eq!(slow[3], &Slow::Outer { lo: 0, hi: 0 });
    }
}
