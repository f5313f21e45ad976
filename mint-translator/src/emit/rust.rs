//! The kernel IR printed back as Rust: a `#[mint::parallel]` region that a front end would
//! lower to the same kernel. Used to write a shrunk failing case of the fuzzer out as a
//! regression test (`mint_testing::shrink`, issue #14). Every operator is parenthesized.

use crate::ir::*;

/// The Rust text of `e` where an operator's operand goes: parenthesized unless an atom.
fn operand(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Unary { .. }
        | ExprKind::Binary { .. }
        | ExprKind::Cast { .. }
        | ExprKind::Select { .. } => format!("({})", expr(e)),
        _ => expr(e),
    }
}

/// The Rust text of `e` (operands of operators parenthesized unless atoms).
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(Lit::Int { value, suffix }) => match suffix {
            Some(t) => format!("{value}{}", t.rust_name()),
            None => value.to_string(),
        },
        ExprKind::Lit(Lit::Float { text, suffix }) => {
            let t = suffix.map(|t| t.rust_name()).unwrap_or("f64");
            match text.as_str() {
                "inf" => format!("{t}::INFINITY"),
                "-inf" => format!("{t}::NEG_INFINITY"),
                "nan" => format!("{t}::NAN"),
                _ => {
                    let s = if text.contains(['.', 'e', 'E']) {
                        text.clone()
                    } else {
                        format!("{text}.0")
                    };
                    match suffix {
                        Some(t) => format!("{s}_{}", t.rust_name()),
                        None => s,
                    }
                }
            }
        }
        ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
        ExprKind::Var(n) => n.clone(),
        ExprKind::Elem { array, index } => elem(array, index),
        ExprKind::Unary { op, expr: x } => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            format!("{o}{}", operand(x))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("{} {} {}", operand(lhs), op.c_op(), operand(rhs))
        }
        ExprKind::Cast { expr: x, to } => format!("{} as {}", operand(x), to.rust_name()),
        ExprKind::Call { func, args } => {
            let rest: Vec<String> = args[1..].iter().map(expr).collect();
            format!(
                "{}.{}({})",
                operand(&args[0]),
                func.rust_name(),
                rest.join(", ")
            )
        }
        ExprKind::Apply { func, args } => {
            let a: Vec<String> = args.iter().map(expr).collect();
            format!("{func}({})", a.join(", "))
        }
        ExprKind::ArrayRef { array, mutable } => {
            format!("&{}{array}", if *mutable { "mut " } else { "" })
        }
        ExprKind::Select { cond, then, els } => format!(
            "if {} {{ {} }} else {{ {} }}",
            expr(cond),
            expr(then),
            expr(els)
        ),
    }
}

fn elem(array: &str, index: &[Expr]) -> String {
    let ix: Vec<String> = index.iter().map(expr).collect();
    if ix.len() == 1 {
        format!("{array}[{}]", ix[0])
    } else {
        format!("{array}[[{}]]", ix.join(", "))
    }
}

/// The statements of `b`, one per line, indented by `pad` spaces.
pub fn block(b: &Block, pad: usize, out: &mut String) {
    let p = " ".repeat(pad);
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = ty
                    .map(|t| format!(": {}", t.rust_name()))
                    .unwrap_or_default();
                let i = init
                    .as_ref()
                    .map(|e| format!(" = {}", expr(e)))
                    .unwrap_or_default();
                out.push_str(&format!("{p}let {m}{name}{t}{i};\n"));
            }
            StmtKind::Assign { place, op, value } => {
                let lhs = match place {
                    Place::Var(n) => n.clone(),
                    Place::Elem { array, index } => elem(array, index),
                };
                let o = op.map(|o| o.c_op()).unwrap_or("");
                out.push_str(&format!("{p}{lhs} {o}= {};\n", expr(value)));
            }
            StmtKind::If { cond, then, els } => {
                out.push_str(&format!("{p}if {} {{\n", expr(cond)));
                block(then, pad + 4, out);
                if let Some(e) = els {
                    out.push_str(&format!("{p}}} else {{\n"));
                    block(e, pad + 4, out);
                }
                out.push_str(&format!("{p}}}\n"));
            }
            StmtKind::For {
                var,
                lo,
                hi,
                inclusive,
                step,
                reverse,
                body,
                ..
            } => {
                let r = format!(
                    "{}{}{}",
                    expr(lo),
                    if *inclusive { "..=" } else { ".." },
                    expr(hi)
                );
                let mut range = if step.is_some() || *reverse {
                    format!("({r})")
                } else {
                    r
                };
                if let Some(s) = step {
                    range = format!("{range}.step_by({})", expr(s));
                }
                if *reverse {
                    range = format!("{range}.rev()");
                }
                out.push_str(&format!("{p}for {var} in {range} {{\n"));
                block(body, pad + 4, out);
                out.push_str(&format!("{p}}}\n"));
            }
            StmtKind::While { cond, body } => {
                out.push_str(&format!("{p}while {} {{\n", expr(cond)));
                block(body, pad + 4, out);
                out.push_str(&format!("{p}}}\n"));
            }
            StmtKind::Block(b) => {
                out.push_str(&format!("{p}{{\n"));
                block(b, pad + 4, out);
                out.push_str(&format!("{p}}}\n"));
            }
            StmtKind::Break => out.push_str(&format!("{p}break;\n")),
            StmtKind::Continue => out.push_str(&format!("{p}continue;\n")),
        }
    }
}

fn array_ty(a: &ArrayParam) -> String {
    let t = a.elem.rust_name();
    match a.ndim {
        1 => format!("Array1<{t}>"),
        2 => format!("Array2<{t}>"),
        _ => format!("Array3<{t}>"),
    }
}

/// Whether `name` is the kernel's reduction variable (a host scalar in the IR; the region
/// declares it and returns it).
pub fn is_reduction_var(k: &Kernel, name: &str) -> bool {
    k.reduction.as_ref().is_some_and(|r| r.var == name)
}

/// The parameter list of [`region`] and [`serial`].
fn params(k: &Kernel) -> Vec<String> {
    let mut params: Vec<String> = k
        .arrays
        .iter()
        .map(|a| {
            let m = if a.written { "&mut " } else { "&" };
            format!("{}: {m}{}", a.name, array_ty(a))
        })
        .collect();
    params.extend(
        k.scalars
            .iter()
            .filter(|s| !is_reduction_var(k, &s.name))
            .map(|s| {
                format!(
                    "{}: {}",
                    s.name,
                    s.ty.map(|t| t.rust_name()).unwrap_or("f64")
                )
            }),
    );
    if let Some(r) = &k.reduction {
        params.push(format!(
            "{}_init: {}",
            r.var,
            r.ty.map(|t| t.rust_name()).unwrap_or("f64")
        ));
    }
    params
}

/// The nest of `k` over `bounds` with its body, indented by `pad`.
fn nest(k: &Kernel, bounds: &[(i64, i64)], pad: usize, s: &mut String) {
    let n = k.nest.len();
    for (d, l) in k.nest.iter().enumerate() {
        let (lo, hi) = bounds[d];
        s.push_str(&format!(
            "{}for {} in {lo}..{hi} {{\n",
            " ".repeat(pad + 4 * d),
            l.var
        ));
    }
    block(&k.body, pad + 4 * n, s);
    for d in (0..n).rev() {
        s.push_str(&format!("{}}}\n", " ".repeat(pad + 4 * d)));
    }
}

/// The same loops as [`region`] as a plain serial function named `name` (the reference a
/// regression test compares the region with).
pub fn serial(k: &Kernel, name: &str, bounds: &[(i64, i64)]) -> String {
    let ret = k
        .reduction
        .as_ref()
        .map(|r| format!(" -> {}", r.ty.map(|t| t.rust_name()).unwrap_or("f64")))
        .unwrap_or_default();
    let mut s = format!("fn {name}({}){ret} {{\n", params(k).join(", "));
    if let Some(r) = &k.reduction {
        s.push_str(&format!("    let mut {0} = {0}_init;\n", r.var));
    }
    nest(k, bounds, 4, &mut s);
    if let Some(r) = &k.reduction {
        s.push_str(&format!("    {}\n", r.var));
    }
    s.push_str("}\n");
    s
}

/// `k` as a `#[mint::parallel]` region named `name`: its arrays (`&` or `&mut` by role)
/// and scalars as parameters, every array copied to the device and the written ones back,
/// the nest over `bounds` (`[lo, hi)`, outermost first) with `tile` and `chunk` (x, y, z)
/// and the kernel's options and reduction. A region with a reduction returns its value.
pub fn region(
    k: &Kernel,
    name: &str,
    bounds: &[(i64, i64)],
    tile: [u32; 3],
    chunk: [u32; 3],
) -> String {
    let params = params(k);
    let red_ty = k
        .reduction
        .as_ref()
        .map(|r| r.ty.map(|t| t.rust_name()).unwrap_or("f64"));
    let opts = k.options.written();
    let attr = if opts.is_empty() {
        "#[mint::parallel]".to_string()
    } else {
        format!("#[mint::parallel({})]", opts.join(", "))
    };
    let ret = red_ty
        .map(|t| format!("mint::Result<{t}>"))
        .unwrap_or("mint::Result<()>".into());
    let mut s = format!("{attr}\nfn {name}({}) -> {ret} {{\n", params.join(", "));
    if let Some(r) = &k.reduction {
        s.push_str(&format!("    let mut {0} = {0}_init;\n", r.var));
    }
    for a in &k.arrays {
        s.push_str(&format!("    copy!({}, to_device);\n", a.name));
    }
    let n = k.nest.len();
    let mut clauses = vec![
        format!("nest({n})"),
        format!(
            "tile({})",
            tile[..n]
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "chunksize({})",
            chunk[..n]
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    if let Some(r) = &k.reduction {
        clauses.push(format!("reduction({}: {})", r.op.symbol(), r.var));
    }
    s.push_str(&format!("    #[mint::r#for({})]\n", clauses.join(", ")));
    nest(k, bounds, 4, &mut s);
    for a in k.arrays.iter().filter(|a| a.written) {
        s.push_str(&format!("    copy!({}, from_device);\n", a.name));
    }
    match &k.reduction {
        Some(r) => s.push_str(&format!("    Ok({})\n}}\n", r.var)),
        None => s.push_str("    Ok(())\n}\n"),
    }
    s
}
