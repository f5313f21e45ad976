//! Shrinking a failing generated case to a minimal kernel (issue #14), in the manner of
//! C-Reduce and of property-based testing's shrinking: greedily apply the first
//! simplification that type-checks and still fails, until none does. The result is
//! 1-minimal for the simplifications below, and [`regression_test`] writes it out as a
//! `#[mint::parallel]` region with a test that compares it with serial Rust.
//!
//! Simplifications, largest first: drop a statement; replace an `if` by one of its
//! branches; drop the reduction; turn off each optimizer option; replace an expression by
//! one of its operands, or by the literal 1 or 0; drop arrays and scalars nothing uses.

use crate::generate::Case;
use mint_translator::ir::*;

/// Statements of a block, pre-order, as (path of statement indices through nested blocks).
fn stmt_paths(b: &Block, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, s) in b.stmts.iter().enumerate() {
        prefix.push(i);
        out.push(prefix.clone());
        let sub = |blk: &Block, tag: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>| {
            prefix.push(tag);
            stmt_paths(blk, prefix, out);
            prefix.pop();
        };
        match &s.kind {
            StmtKind::If { then, els, .. } => {
                sub(then, 0, prefix, out);
                if let Some(e) = els {
                    sub(e, 1, prefix, out);
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => sub(body, 0, prefix, out),
            StmtKind::Block(blk) => sub(blk, 0, prefix, out),
            _ => {}
        }
        prefix.pop();
    }
}

/// The block holding the statement at `path` (every entry but the last), mutably.
fn block_at<'a>(b: &'a mut Block, path: &[usize]) -> Option<&'a mut Block> {
    let Some((&i, rest)) = path.split_first() else {
        return Some(b);
    };
    let Some((&tag, rest)) = rest.split_first() else {
        return Some(b);
    };
    let s = b.stmts.get_mut(i)?;
    let inner = match (&mut s.kind, tag) {
        (StmtKind::If { then, .. }, 0) => then,
        (StmtKind::If { els: Some(e), .. }, 1) => e,
        (StmtKind::For { body, .. } | StmtKind::While { body, .. }, 0) => body,
        (StmtKind::Block(blk), 0) => blk,
        _ => return None,
    };
    block_at(inner, rest)
}

/// Every one-step simplification of `c`, largest first.
fn candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let mut paths = Vec::new();
    stmt_paths(&c.kernel.body, &mut Vec::new(), &mut paths);
    // drop a statement; replace an `if` by a branch (its statements in its place)
    for p in &paths {
        let (last, parent) = p.split_last().expect("non-empty path");
        let mut d = c.clone();
        if let Some(b) = block_at(&mut d.kernel.body, parent) {
            b.stmts.remove(*last);
            out.push(d);
        }
        for branch in [0, 1] {
            let mut d = c.clone();
            if let Some(b) = block_at(&mut d.kernel.body, parent)
                && let StmtKind::If { then, els, .. } = b.stmts[*last].kind.clone()
            {
                let inner = if branch == 0 { Some(then) } else { els };
                if let Some(inner) = inner {
                    b.stmts.splice(*last..=*last, inner.stmts);
                    out.push(d);
                }
            }
        }
    }
    if c.kernel.reduction.is_some() {
        let mut d = c.clone();
        d.kernel.reduction = None;
        d.reduction = None;
        out.push(d);
    }
    let o = c.kernel.options;
    let off: [fn(&mut OptOptions); 9] = [
        |o| o.shared = 0,
        |o| o.register = false,
        |o| o.prefer_l1 = false,
        |o| o.unroll = false,
        |o| o.same_index = false,
        |o| o.vectorize = false,
        |o| o.pipeline = false,
        |o| o.swizzle = false,
        |o| o.roll_z = false,
    ];
    for f in off {
        let mut n = o;
        f(&mut n);
        if n != o {
            let mut d = c.clone();
            d.kernel.options = n;
            out.push(d);
        }
    }
    // expressions: each node (children first) by an operand, or by 1 or 0
    let mut count = 0;
    c.kernel.body.clone().walk_exprs_mut(&mut |_| count += 1);
    for j in 0..count {
        let mut node = None;
        let mut k = 0;
        c.kernel.body.clone().walk_exprs_mut(&mut |e| {
            if k == j {
                node = Some(e.clone());
            }
            k += 1;
        });
        let Some(node) = node else { continue };
        let mut repl: Vec<Expr> = match &node.kind {
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => vec![(**expr).clone()],
            ExprKind::Binary { lhs, rhs, .. } => vec![(**lhs).clone(), (**rhs).clone()],
            ExprKind::Call { args, .. } => args.clone(),
            ExprKind::Select { then, els, .. } => vec![(**then).clone(), (**els).clone()],
            _ => Vec::new(),
        };
        let lit = |kind| Expr::new(ExprKind::Lit(kind), node.span);
        if !matches!(node.kind, ExprKind::Lit(_)) {
            for v in [1u128, 0] {
                repl.push(lit(Lit::Int {
                    value: v,
                    suffix: None,
                }));
                repl.push(lit(Lit::Float {
                    text: format!("{v}.0"),
                    suffix: None,
                }));
            }
        }
        for r in repl {
            let mut d = c.clone();
            let mut k = 0;
            d.kernel.body.walk_exprs_mut(&mut |e| {
                if k == j {
                    *e = r.clone();
                }
                k += 1;
            });
            out.push(d);
        }
    }
    // arrays and scalars nothing refers to any more
    let used = |c: &Case, name: &str| {
        let mut found = false;
        c.kernel.body.walk_exprs(&mut |e| match &e.kind {
            ExprKind::Elem { array, .. } if array == name => found = true,
            ExprKind::Var(v) if v == name => found = true,
            _ => {}
        });
        c.kernel.body.walk_stmts(&mut |s| {
            if let StmtKind::Assign {
                place: Place::Elem { array, .. },
                ..
            } = &s.kind
            {
                found |= array == name;
            }
        });
        found
    };
    for i in (0..c.kernel.arrays.len()).rev() {
        if !used(c, &c.kernel.arrays[i].name) {
            let mut d = c.clone();
            d.kernel.arrays.remove(i);
            d.arrays.remove(i);
            out.push(d);
        }
    }
    for i in (0..c.kernel.scalars.len()).rev() {
        if !used(c, &c.kernel.scalars[i].name) {
            let mut d = c.clone();
            d.kernel.scalars.remove(i);
            d.scalars.remove(i);
            out.push(d);
        }
    }
    out
}

/// The number of IR nodes (statements and expressions) of a case's kernel: its size.
pub fn size(c: &Case) -> usize {
    let mut n = 0;
    c.kernel.body.walk_stmts(&mut |_| n += 1);
    c.kernel.body.walk_exprs(&mut |_| n += 1);
    n + c.kernel.arrays.len() + c.kernel.scalars.len()
}

/// Shrinks `c`, for which `fails` is true, to a case for which it is still true and no
/// single simplification keeps it true; at most `budget` calls of `fails`. The array
/// roles (read, written) are recomputed for each candidate by
/// [`mint_translator::check`], and a candidate that does not type-check is skipped
/// without calling `fails`.
pub fn shrink(c: &Case, budget: usize, fails: &mut dyn FnMut(&Case) -> bool) -> Case {
    let mut best = c.clone();
    let mut calls = 0;
    'outer: loop {
        for mut d in candidates(&best) {
            if size(&d) >= size(&best) && d.kernel.options == best.kernel.options {
                continue;
            }
            refresh_roles(&mut d.kernel);
            let mut k = d.kernel.clone();
            if mint_translator::check(&mut k).is_err() {
                continue;
            }
            if calls == budget {
                break 'outer;
            }
            calls += 1;
            if fails(&d) {
                best = d;
                continue 'outer;
            }
        }
        break;
    }
    best
}

/// Sets each array's `read` and `written` from the body (a simplification can take the
/// last write or read of an array away).
fn refresh_roles(k: &mut Kernel) {
    let mut read = std::collections::BTreeSet::new();
    let mut written = std::collections::BTreeSet::new();
    k.body.walk_exprs(&mut |e| {
        if let ExprKind::Elem { array, .. } = &e.kind {
            read.insert(array.clone());
        }
    });
    k.body.walk_stmts(&mut |s| {
        if let StmtKind::Assign {
            place: Place::Elem { array, .. },
            op,
            ..
        } = &s.kind
        {
            written.insert(array.clone());
            if op.is_some() {
                read.insert(array.clone());
            }
        }
    });
    for a in &mut k.arrays {
        a.read = read.contains(&a.name);
        a.written = written.contains(&a.name);
    }
}

/// A Rust literal for `v`.
fn value_lit(v: crate::interp::Value) -> String {
    use crate::interp::Value;
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i, t) => format!("{i}{}", t.rust_name()),
        Value::F32(x) => format!("{x:?}_f32"),
        Value::F64(x) => format!("{x:?}_f64"),
    }
}

/// The shrunk case `c` written out as a regression test for `tests/regressions.rs`: the
/// region (with the case's clauses and options), the same loops as serial Rust, and a test
/// that runs both on every backend from the same arrays (a fixed pattern of small values)
/// and compares them: integers exactly, floats to 1e-5 (f32) or 1e-12 (f64) relative.
pub fn regression_test(c: &Case, name: &str) -> String {
    let mut k = c.kernel.clone();
    refresh_roles(&mut k);
    let _ = mint_translator::check(&mut k);
    let region = mint_translator::emit::rust::region(&k, name, &c.bounds, c.tile, c.chunk);
    let serial = mint_translator::emit::rust::serial(&k, &format!("{name}_serial"), &c.bounds);
    let shape: Vec<String> = c.shape.iter().map(|n| n.to_string()).collect();
    let pat = match c.shape.len() {
        1 => "|i| i",
        2 => "|(y, x)| y * 31 + x",
        _ => "|(z, y, x)| (z * 31 + y) * 17 + x",
    };
    let mut t = format!(
        "// shrunk by mint_testing::shrink from generated case {} (tests/fuzz.rs)\n{region}\n{serial}\n#[test]\nfn {name}_matches_serial_rust() {{\n",
        c.seed
    );
    for a in &k.arrays {
        let ty = a.elem.rust_name();
        let conv = if a.elem.is_float() {
            format!("(((i * 7 + 3) % 17) as {ty} - 8.0) * 0.25")
        } else {
            format!("((i * 7 + 3) % 17) as {ty} - 8")
        };
        let nd = c.shape.len();
        t.push_str(&format!(
            "    let {0} = ndarray::Array{nd}::<{ty}>::from_shape_fn(({1}{2}), {{ let f = {pat}; move |p| {{ let i = f(p); {conv} }} }});\n",
            a.name,
            shape.join(", "),
            if nd == 1 { "," } else { "" },
        ));
    }
    let scalars: Vec<String> = k
        .scalars
        .iter()
        .zip(&c.scalars)
        .filter(|(p, _)| !mint_translator::emit::rust::is_reduction_var(&k, &p.name))
        .map(|(_, &v)| value_lit(v))
        .collect();
    let init = c.reduction.map(value_lit);
    let args = |suffix: &str| {
        let mut v: Vec<String> = k
            .arrays
            .iter()
            .map(|a| {
                if a.written {
                    format!("&mut {}{suffix}", a.name)
                } else {
                    format!("&{}", a.name)
                }
            })
            .collect();
        v.extend(scalars.iter().cloned());
        v.extend(init.iter().cloned());
        v.join(", ")
    };
    let written: Vec<&ArrayParam> = k.arrays.iter().filter(|a| a.written).collect();
    for a in &written {
        t.push_str(&format!("    let mut {0}_want = {0}.clone();\n", a.name));
    }
    t.push_str(&format!(
        "    let r_want = {name}_serial({});\n",
        args("_want")
    ));
    t.push_str("    for d in common::backends() {\n");
    for a in &written {
        t.push_str(&format!("        let mut {0}_got = {0}.clone();\n", a.name));
    }
    t.push_str(&format!(
        "        let r_got = mint::with_device(d, || {name}({})).unwrap();\n",
        args("_got")
    ));
    for a in &written {
        if a.elem.is_float() {
            let tol = if a.elem == ScalarTy::F32 {
                "1e-5"
            } else {
                "1e-12"
            };
            t.push_str(&format!(
                "        assert!(common::max_rel_err(&{0}_got, &{0}_want) <= {tol}, \"{{d:?}}: {0}\");\n",
                a.name
            ));
        } else {
            t.push_str(&format!(
                "        assert_eq!({0}_got, {0}_want, \"{{d:?}}: {0}\");\n",
                a.name
            ));
        }
    }
    t.push_str("        assert_eq!(format!(\"{r_got:?}\"), format!(\"{r_want:?}\"), \"{d:?}: reduction\");\n");
    t.push_str("    }\n}\n");
    t
}
