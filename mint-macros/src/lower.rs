//! Lowering the Rust syntax of a loop body to the translator's kernel language.
//!
//! Supported: arithmetic, comparisons, logic, `as` casts, `let` (with or without a
//! type), assignment and compound assignment, `if`/`else` (as statements and as
//! values), serial `for` over ranges (with `.rev()` or `.step_by(s)`), `while`, `loop`,
//! `break`/`continue`, math methods (`x.sqrt()`, `f64::max(a, b)`, ...), `f64::consts::*`
//! and the numeric types' constants, calls of device functions (`dx4(&u, z, y, x)`,
//! lowered to `Apply` and inlined at launch), and `T::new(0.5)` for a `T: mint::Real`.
//! Arrays are variables or field paths (`u`, `self.u`, `w.vel.u1`). Struct fields and
//! paths of the host that are not indexed (`p.alpha`, `Self::C`) are read as scalars
//! passed at launch. Everything else is a compile error naming what is supported.

use mint_translator::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use std::collections::HashSet;
use syn::spanned::Spanned;

/// A host expression read by the kernel under a made-up scalar name (`p.alpha` becomes
/// `p_alpha`).
#[derive(Clone)]
pub struct Capture {
    pub name: String,
    pub expr: TokenStream,
    pub span: Span,
}

pub struct Lowerer<'a> {
    pub spans: &'a mut Vec<Span>,
    pub captures: Vec<Capture>,
    /// The first occurrence of each plain identifier, so generated code names host
    /// variables with the user's own tokens (and hygiene).
    pub idents: std::collections::HashMap<String, syn::Ident>,
    /// The first occurrence of each field path used as an array (`self.u`), keyed by its
    /// dotted name, so generated code refers to it with the user's own tokens.
    pub paths: std::collections::HashMap<String, syn::Expr>,
    /// The device functions called, by the path written (`ops::dx4`), with that path.
    pub calls: Vec<(String, syn::Path)>,
    /// In a device function: its array parameters (references already), passed on to
    /// other device functions by name (`dx4(a, z, y, x)`), with whether each is `&mut`.
    pub array_params: Vec<(String, bool)>,
    /// Type parameters bounded by `mint::Real` (`T` in `fn step<T: mint::Real>`): `T::new(0.5)`
    /// is a float literal of the kernel's precision and `T::max(a, b)` a math function.
    pub generics: Vec<String>,
    pub errors: Vec<syn::Error>,
    /// The kernel's parallel loop indices (`z`, `y`, `x`). A `let` or a serial `for` that
    /// binds one of these names again is given a fresh name in the IR ([`Self::bind`]), so
    /// that an index in a subscript is always the thread's own: the stencil analyzer reads
    /// `u[[z, y, x]]` as the point itself, whatever a shadowing `let x = x + 1;` made of
    /// `x` in Rust.
    pub indices: Vec<String>,
    /// Every identifier of the code being lowered, which a fresh name must not be.
    pub taken: HashSet<String>,
    locals: Vec<HashSet<String>>,
    /// Per scope, the indices bound again there and their fresh names.
    renames: Vec<std::collections::HashMap<String, String>>,
}

const SUPPORTED: &str = "kernels support arithmetic, comparisons, `as` casts, `let`, assignments, `if`/`else`, serial `for` loops over ranges, `while`, math methods (sqrt, abs, exp, ln, powi, powf, min, max, sin, cos, mul_add, ...), the f32/f64 constants, and calls of `#[mint::device]` functions";

impl<'a> Lowerer<'a> {
    pub fn new(spans: &'a mut Vec<Span>, bound: &[String]) -> Lowerer<'a> {
        Lowerer {
            spans,
            captures: Vec::new(),
            idents: Default::default(),
            paths: Default::default(),
            calls: Vec::new(),
            array_params: Vec::new(),
            generics: Vec::new(),
            errors: Vec::new(),
            indices: Vec::new(),
            taken: HashSet::new(),
            locals: vec![bound.iter().cloned().collect()],
            renames: vec![Default::default()],
        }
    }

    pub fn span(&mut self, s: Span) -> SpanId {
        self.spans.push(s);
        (self.spans.len() - 1) as SpanId
    }

    fn err(&mut self, s: Span, m: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(s, m));
    }

    fn is_local(&self, n: &str) -> bool {
        self.locals.iter().any(|s| s.contains(n))
    }

    /// A scope of locals (a block, a loop's body) begins: `names` are bound in it.
    fn enter(&mut self, names: HashSet<String>) {
        self.locals.push(names);
        self.renames.push(Default::default());
    }

    fn leave(&mut self) {
        self.locals.pop();
        self.renames.pop();
    }

    /// The IR name of a binding of `name` in the current scope: `name` itself, or, where
    /// it is a parallel loop index ([`Self::indices`]), the first of `name_1`, `name_2`,
    /// ... that no identifier of the kernel is.
    fn bind(&mut self, name: &str) -> String {
        if !self.indices.iter().any(|i| i == name) {
            return name.to_string();
        }
        let fresh = (1..)
            .map(|k| format!("{name}_{k}"))
            .find(|f| !self.taken.contains(f))
            .expect("a free name");
        self.taken.insert(fresh.clone());
        let scope = self.renames.last_mut().expect("a scope");
        scope.insert(name.to_string(), fresh.clone());
        fresh
    }

    /// The IR name that `name` refers to here: the fresh name of the innermost binding
    /// of an index bound again ([`Self::bind`]), else `name`.
    fn resolve(&self, name: &str) -> String {
        (self.renames.iter().rev())
            .find_map(|s| s.get(name).cloned())
            .unwrap_or_else(|| name.to_string())
    }

    fn mk(&mut self, kind: ExprKind, s: Span) -> Expr {
        let id = self.span(s);
        Expr::new(kind, id)
    }

    fn capture(&mut self, name: String, e: &syn::Expr) -> Expr {
        if !self.captures.iter().any(|c| c.name == name) {
            self.captures.push(Capture {
                name: name.clone(),
                expr: e.to_token_stream(),
                span: e.span(),
            });
        }
        self.mk(ExprKind::Var(name), e.span())
    }

    /// Lowers an expression; `None` after recording an error.
    pub fn expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let s = e.span();
        Some(match e {
            syn::Expr::Lit(l) => self.lit(&l.lit)?,
            syn::Expr::Paren(p) => self.expr(&p.expr)?,
            syn::Expr::Group(g) => self.expr(&g.expr)?,
            syn::Expr::Path(p) => {
                if p.qself.is_none()
                    && p.path.segments.len() == 1
                    && p.path.segments[0].arguments.is_none()
                {
                    let id = &p.path.segments[0].ident;
                    let n = id.to_string();
                    self.idents.entry(n.clone()).or_insert_with(|| id.clone());
                    let n = self.resolve(&n);
                    self.mk(ExprKind::Var(n), s)
                } else if let Some(lit) = std_const(&p.path) {
                    self.mk(lit, s)
                } else if p.qself.is_none() {
                    let name = p
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect::<Vec<_>>()
                        .join("_");
                    self.capture(name, e)
                } else {
                    self.err(s, format!("unsupported path in a kernel; {SUPPORTED}"));
                    return None;
                }
            }
            syn::Expr::Field(f) => {
                let mut base = &*f.base;
                let mut parts = vec![member(&f.member)];
                loop {
                    match base {
                        syn::Expr::Field(g) => {
                            parts.push(member(&g.member));
                            base = &g.base;
                        }
                        syn::Expr::Paren(p) => base = &p.expr,
                        _ => break,
                    }
                }
                match base {
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                        let root = p.path.get_ident().unwrap().to_string();
                        if self.is_local(&root) {
                            self.err(s, "kernel locals are numbers; fields of kernel locals are not supported");
                            return None;
                        }
                        parts.push(root);
                        parts.reverse();
                        self.capture(parts.join("_"), e)
                    }
                    syn::Expr::Path(p)
                        if p.path.segments.len() == 1 && p.path.segments[0].ident == "self" =>
                    {
                        parts.push("self".into());
                        parts.reverse();
                        self.capture(parts.join("_"), e)
                    }
                    _ => {
                        self.err(s, "only fields of host variables (`p.alpha`) can be read in a kernel; bind the value to a local first");
                        return None;
                    }
                }
            }
            syn::Expr::Index(ix) => {
                let (array, index) = self.elem(ix)?;
                self.mk(ExprKind::Elem { array, index }, s)
            }
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    let inner = self.expr(&u.expr)?;
                    self.mk(
                        ExprKind::Unary {
                            op: UnOp::Neg,
                            expr: Box::new(inner),
                        },
                        s,
                    )
                }
                syn::UnOp::Not(_) => {
                    let inner = self.expr(&u.expr)?;
                    self.mk(
                        ExprKind::Unary {
                            op: UnOp::Not,
                            expr: Box::new(inner),
                        },
                        s,
                    )
                }
                syn::UnOp::Deref(_) => self.expr(&u.expr)?,
                _ => {
                    self.err(s, format!("unsupported operator in a kernel; {SUPPORTED}"));
                    return None;
                }
            },
            syn::Expr::Binary(b) => {
                let Some(op) = binop(&b.op) else {
                    self.err(
                        b.op.span(),
                        "compound assignment (`+=`, ...) is a statement in a kernel, not a value",
                    );
                    return None;
                };
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                let (l, r) = (l?, r?);
                self.mk(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    s,
                )
            }
            syn::Expr::Cast(c) => {
                let Some(to) = scalar_type(&c.ty) else {
                    self.err(
                        c.ty.span(),
                        "kernels cast only between numeric types (`as f64`, `as usize`, ...)",
                    );
                    return None;
                };
                let inner = self.expr(&c.expr)?;
                self.mk(
                    ExprKind::Cast {
                        expr: Box::new(inner),
                        to,
                    },
                    s,
                )
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if (name == "clone" || name == "to_owned") && m.args.is_empty() {
                    return self.expr(&m.receiver);
                }
                if (name == "unwrap" || name == "expect")
                    && let syn::Expr::Call(c) = &*m.receiver
                    && let Some((t, f)) = self.generic_conversion(c)
                {
                    self.err(m.span(), new_not_from(&t, &f, c));
                    return None;
                }
                let wrapping = match name.as_str() {
                    "wrapping_add" => Some(BinOp::Add),
                    "wrapping_sub" => Some(BinOp::Sub),
                    "wrapping_mul" => Some(BinOp::Mul),
                    _ => None,
                };
                if let (Some(op), 1) = (wrapping, m.args.len()) {
                    let l = self.expr(&m.receiver);
                    let r = self.expr(&m.args[0]);
                    let (l, r) = (l?, r?);
                    return Some(self.mk(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(l),
                            rhs: Box::new(r),
                        },
                        s,
                    ));
                }
                let Some(func) = MathFn::from_rust(&name) else {
                    self.err(
                        m.method.span(),
                        format!("unsupported method `{name}` in a kernel; {SUPPORTED}"),
                    );
                    return None;
                };
                let mut args = vec![self.expr(&m.receiver)];
                args.extend(m.args.iter().map(|a| self.expr(a)));
                let args: Option<Vec<Expr>> = args.into_iter().collect();
                self.mk(ExprKind::Call { func, args: args? }, s)
            }
            syn::Expr::Call(c) => {
                let path = match &*c.func {
                    syn::Expr::Path(p) => Some(&p.path),
                    _ => None,
                };
                let segs: Vec<String> = path
                    .map(|p| p.segments.iter().map(|s| s.ident.to_string()).collect())
                    .unwrap_or_default();
                let ty = segs
                    .len()
                    .checked_sub(2)
                    .and_then(|i| ScalarTy::from_rust(&segs[i]));
                if segs.len() == 2 && self.generics.contains(&segs[0]) {
                    return self.generic_call(&segs[0], &segs[1], c);
                }
                match (ty, segs.last().map(String::as_str)) {
                    (Some(t), Some("from")) if c.args.len() == 1 => {
                        let inner = self.expr(&c.args[0])?;
                        self.mk(
                            ExprKind::Cast {
                                expr: Box::new(inner),
                                to: t,
                            },
                            s,
                        )
                    }
                    (Some(_), Some(f)) if MathFn::from_rust(f).is_some() => {
                        let func = MathFn::from_rust(f).unwrap();
                        let args: Option<Vec<Expr>> = c.args.iter().map(|a| self.expr(a)).collect();
                        self.mk(ExprKind::Call { func, args: args? }, s)
                    }
                    _ => match path {
                        // A device function: resolved by rustc through the module
                        // `#[mint::device]` puts next to it, inlined at launch.
                        Some(p)
                            if p.segments.iter().all(|s| s.arguments.is_none())
                                && p.leading_colon.is_none() =>
                        {
                            let name = segs.join("::");
                            if !self.calls.iter().any(|(n, _)| *n == name) {
                                self.calls.push((name.clone(), p.clone()));
                            }
                            let args: Option<Vec<Expr>> =
                                c.args.iter().map(|a| self.call_arg(a)).collect();
                            self.mk(
                                ExprKind::Apply {
                                    func: name,
                                    args: args?,
                                },
                                s,
                            )
                        }
                        _ => {
                            self.err(
                                c.func.span(),
                                format!(
                                    "kernels can call device functions by name (`dx4(&u, z, y, x)`, `ops::dx4(..)`, each marked `#[mint::device]`) and math functions (`f64::max(a, b)`), not `{}`; {SUPPORTED}",
                                    c.func.to_token_stream()
                                ),
                            );
                            return None;
                        }
                    },
                }
            }
            syn::Expr::If(i) => self.select(i)?,
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => self.expr(e)?,
                _ => {
                    self.err(
                        s,
                        "a block used as a value in a kernel must hold one expression",
                    );
                    return None;
                }
            },
            syn::Expr::Macro(m) => {
                self.err(
                    m.mac.path.span(),
                    format!(
                        "macros (`{}!`) cannot run inside a kernel",
                        m.mac.path.to_token_stream()
                    ),
                );
                return None;
            }
            syn::Expr::Closure(_) => {
                self.err(
                    s,
                    format!("closures are not supported in a kernel; {SUPPORTED}"),
                );
                return None;
            }
            syn::Expr::Reference(_) => {
                self.err(s, "kernels work on numbers, not references; remove the `&`");
                return None;
            }
            syn::Expr::Try(_) => {
                self.err(s, "`?` cannot be used inside a kernel");
                return None;
            }
            _ => {
                self.err(
                    s,
                    format!("unsupported expression in a kernel; {SUPPORTED}"),
                );
                return None;
            }
        })
    }

    fn lit(&mut self, l: &syn::Lit) -> Option<Expr> {
        let s = l.span();
        let kind = match l {
            syn::Lit::Int(i) => {
                let suffix = if i.suffix().is_empty() {
                    None
                } else {
                    match ScalarTy::from_rust(i.suffix()) {
                        Some(t) => Some(t),
                        None => {
                            self.err(s, format!("unsupported literal suffix `{}`", i.suffix()));
                            return None;
                        }
                    }
                };
                if suffix.is_some_and(|t| t.is_float()) {
                    ExprKind::Lit(Lit::Float {
                        text: format!("{}.0", i.base10_digits()),
                        suffix,
                    })
                } else {
                    let value: u128 = match i.base10_parse() {
                        Ok(v) => v,
                        Err(e) => {
                            self.err(s, e);
                            return None;
                        }
                    };
                    ExprKind::Lit(Lit::Int { value, suffix })
                }
            }
            syn::Lit::Float(f) => {
                let suffix = if f.suffix().is_empty() {
                    None
                } else {
                    ScalarTy::from_rust(f.suffix())
                };
                let mut text = f.base10_digits().to_string();
                if text.ends_with('.') {
                    text.push('0');
                }
                if !text.contains(['.', 'e', 'E']) {
                    text.push_str(".0");
                }
                ExprKind::Lit(Lit::Float { text, suffix })
            }
            syn::Lit::Bool(b) => ExprKind::Lit(Lit::Bool(b.value)),
            _ => {
                self.err(s, "kernels compute with numbers and booleans only");
                return None;
            }
        };
        Some(self.mk(kind, s))
    }

    fn select(&mut self, i: &syn::ExprIf) -> Option<Expr> {
        let s = i.span();
        let Some((_, els)) = &i.else_branch else {
            self.err(s, "an `if` used as a value needs an `else`");
            return None;
        };
        let cond = self.expr(&i.cond);
        let then = self.value_block(&i.then_branch, s);
        let els = self.expr(els);
        let (cond, then, els) = (cond?, then?, els?);
        Some(self.mk(
            ExprKind::Select {
                cond: Box::new(cond),
                then: Box::new(then),
                els: Box::new(els),
            },
            s,
        ))
    }

    fn value_block(&mut self, b: &syn::Block, s: Span) -> Option<Expr> {
        match b.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => self.expr(e),
            _ => {
                self.err(
                    s,
                    "each branch of an `if` used as a value must be a single expression",
                );
                None
            }
        }
    }

    /// `T::new(0.5)` and `T::max(a, b)` for a type parameter `T: mint::Real`.
    /// `T::from(x)` (or `from_f64`, `from_f32`) of a generic `T: mint::Real`: the
    /// num-traits way to write a constant, which kernels spell `T::new(x)`.
    fn generic_conversion(&self, c: &syn::ExprCall) -> Option<(String, String)> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match &segs[..] {
            [t, f]
                if self.generics.contains(t)
                    && ["from", "from_f64", "from_f32"].contains(&f.as_str()) =>
            {
                Some((t.clone(), f.clone()))
            }
            _ => None,
        }
    }

    fn generic_call(&mut self, t: &str, f: &str, c: &syn::ExprCall) -> Option<Expr> {
        let s = c.span();
        if f == "new" && c.args.len() == 1 {
            // a float literal, possibly negated, whose type the kernel infers
            let mut lit = &c.args[0];
            let mut neg = false;
            if let syn::Expr::Unary(u) = lit
                && matches!(u.op, syn::UnOp::Neg(_))
            {
                neg = true;
                lit = &u.expr;
            }
            let text = match lit {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Float(l),
                    ..
                }) => Some(l.base10_digits().to_string()),
                _ => None,
            };
            let Some(text) = text else {
                self.err(
                    c.args[0].span(),
                    format!("in a kernel `{t}::new` takes a float literal (`{t}::new(0.5)`), which becomes a constant of the kernel's precision; for a computed value use the arithmetic of `{t}` itself"),
                );
                return None;
            };
            let e = self.mk(ExprKind::Lit(Lit::Float { text, suffix: None }), lit.span());
            return Some(if neg {
                self.mk(
                    ExprKind::Unary {
                        op: UnOp::Neg,
                        expr: Box::new(e),
                    },
                    s,
                )
            } else {
                e
            });
        }
        if let Some(func) = MathFn::from_rust(f) {
            let args: Option<Vec<Expr>> = c.args.iter().map(|a| self.expr(a)).collect();
            return Some(self.mk(ExprKind::Call { func, args: args? }, s));
        }
        if let Some((t, f)) = self.generic_conversion(c) {
            self.err(c.span(), new_not_from(&t, &f, c));
            return None;
        }
        self.err(
            c.func.span(),
            format!("`{t}::{f}` is not available in kernels; a `{t}: mint::Real` offers `{t}::new(literal)` and the math functions (`{t}::max(a, b)`, `x.sqrt()`, ...)"),
        );
        None
    }

    /// An argument of a device function call: `&a` or `&mut a` passes array `a` whole
    /// (a variable or a field path); anything else is a value.
    fn call_arg(&mut self, a: &syn::Expr) -> Option<Expr> {
        if let syn::Expr::Path(p) = a
            && let Some(id) = p.path.get_ident()
            && let Some((_, m)) = self.array_params.iter().find(|(n, _)| id == n)
        {
            let mutable = *m;
            return Some(self.mk(
                ExprKind::ArrayRef {
                    array: id.to_string(),
                    mutable,
                },
                a.span(),
            ));
        }
        if let syn::Expr::Reference(r) = a {
            let Some(path) = field_path(&r.expr).filter(|p| p != "self") else {
                self.err(
                    a.span(),
                    "a device function takes an array as `&a` or `&mut a`, where `a` is a variable or a field path (`&u`, `&self.u`)",
                );
                return None;
            };
            let root = path.split('.').next().unwrap_or_default().to_string();
            if self.is_local(&root) {
                self.err(
                    a.span(),
                    "kernel locals are numbers: pass them by value, not by reference",
                );
                return None;
            }
            match &*r.expr {
                syn::Expr::Path(p) => {
                    if let Some(id) = p.path.get_ident() {
                        self.idents
                            .entry(path.clone())
                            .or_insert_with(|| id.clone());
                    }
                }
                e => {
                    self.paths.entry(path.clone()).or_insert_with(|| e.clone());
                }
            }
            return Some(self.mk(
                ExprKind::ArrayRef {
                    array: path,
                    mutable: r.mutability.is_some(),
                },
                a.span(),
            ));
        }
        self.expr(a)
    }

    /// `a[[z, y, x]]`, `a[(y, x)]` or `a[i]`.
    fn elem(&mut self, ix: &syn::ExprIndex) -> Option<(String, Vec<Expr>)> {
        let mut base = &*ix.expr;
        while let syn::Expr::Paren(p) = base {
            base = &p.expr;
        }
        let array = match base {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().unwrap();
                self.idents
                    .entry(id.to_string())
                    .or_insert_with(|| id.clone());
                id.to_string()
            }
            syn::Expr::Field(_) => match field_path(base) {
                Some(path) => {
                    let root = path.split('.').next().unwrap_or_default();
                    if self.is_local(root) {
                        self.err(
                            base.span(),
                            "kernel locals are numbers; an array in a kernel is a variable, a parameter or a field path of the host (`u`, `self.u`, `w.vel.u1`)",
                        );
                        return None;
                    }
                    self.paths
                        .entry(path.clone())
                        .or_insert_with(|| base.clone());
                    path
                }
                None => {
                    self.err(base.span(), "an array in a kernel is a variable, a parameter or a field path (`u`, `self.u`, `w.vel.u1`); this expression is none of these: bind the array to a local first");
                    return None;
                }
            },
            _ => {
                self.err(
                    ix.expr.span(),
                    "an array in a kernel is a variable, a parameter or a field path (`u[[z, y, x]]`, `self.u[[z, y, x]]`, `w.vel.u1[[z, y, x]]`); bind this one to a local first",
                );
                return None;
            }
        };
        let parts: Vec<&syn::Expr> = match &*ix.index {
            syn::Expr::Array(a) => a.elems.iter().collect(),
            syn::Expr::Tuple(t) => t.elems.iter().collect(),
            e => vec![e],
        };
        if parts.is_empty() || parts.len() > 3 {
            self.err(ix.index.span(), "Mint arrays have 1, 2 or 3 dimensions: index them `a[[z, y, x]]`, `a[[y, x]]` or `a[i]`");
            return None;
        }
        let idx: Option<Vec<Expr>> = parts.into_iter().map(|p| self.expr(p)).collect();
        Some((array, idx?))
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let id = p.path.get_ident().unwrap();
                self.idents
                    .entry(id.to_string())
                    .or_insert_with(|| id.clone());
                Some(Place::Var(self.resolve(&id.to_string())))
            }
            syn::Expr::Index(ix) => {
                let (array, index) = self.elem(ix)?;
                Some(Place::Elem { array, index })
            }
            syn::Expr::Paren(p) => self.place(&p.expr),
            _ => {
                self.err(e.span(), "a kernel can assign array elements (`u[[z, y, x]] = ..`) and its own `let mut` variables only");
                None
            }
        }
    }

    /// Lowers a block's statements in a new scope.
    pub fn block(&mut self, b: &syn::Block) -> Block {
        self.stmts(&b.stmts)
    }

    /// A function body: its statements and its final expression, in one scope; `None`
    /// (after recording an error) when it does not end in an expression.
    pub fn body_and_result(&mut self, b: &syn::Block) -> Option<(Block, Expr)> {
        let Some((syn::Stmt::Expr(last, None), rest)) = b.stmts.split_last() else {
            self.err(
                b.span(),
                "a device function ends with the expression it returns (no `return`, no `;` after it)",
            );
            return None;
        };
        self.enter(HashSet::new());
        let mut out = Vec::new();
        for st in rest {
            if let Some(s) = self.stmt(st) {
                out.push(s);
            }
        }
        let r = self.expr(last);
        self.leave();
        Some((Block { stmts: out }, r?))
    }

    pub fn stmts(&mut self, ss: &[syn::Stmt]) -> Block {
        self.enter(HashSet::new());
        let mut out = Vec::new();
        for st in ss {
            if let Some(s) = self.stmt(st) {
                out.push(s);
            }
        }
        self.leave();
        Block { stmts: out }
    }

    fn stmt(&mut self, st: &syn::Stmt) -> Option<Stmt> {
        let s = st.span();
        let kind = match st {
            syn::Stmt::Local(l) => {
                let (name, mutable, ty) = match &l.pat {
                    syn::Pat::Ident(pi) => (pi.ident.to_string(), pi.mutability.is_some(), None),
                    syn::Pat::Type(pt) => match &*pt.pat {
                        syn::Pat::Ident(pi) => {
                            let Some(t) = scalar_type(&pt.ty) else {
                                self.err(
                                    pt.ty.span(),
                                    "kernel locals are numbers or bools (`let x: f64 = ..`)",
                                );
                                return None;
                            };
                            (pi.ident.to_string(), pi.mutability.is_some(), Some(t))
                        }
                        p => {
                            self.err(p.span(), "kernel `let` binds one name");
                            return None;
                        }
                    },
                    syn::Pat::Wild(_) => return None,
                    p => {
                        self.err(
                            p.span(),
                            "kernel `let` binds one name (no tuples or patterns)",
                        );
                        return None;
                    }
                };
                if let Some(init) = &l.init
                    && let Some((_, d)) = &init.diverge
                {
                    self.err(d.span(), "`let .. else` is not supported in a kernel");
                }
                let init = match &l.init {
                    Some(i) => Some(self.expr(&i.expr)?),
                    None => None,
                };
                self.locals.last_mut().unwrap().insert(name.clone());
                let name = self.bind(&name);
                StmtKind::Let {
                    name,
                    mutable,
                    ty,
                    init,
                }
            }
            syn::Stmt::Expr(e, _) => return self.expr_stmt(e),
            syn::Stmt::Item(i) => {
                self.err(i.span(), "items (fn, struct, use, const) cannot appear inside a kernel loop; move them outside it");
                return None;
            }
            syn::Stmt::Macro(m) => {
                self.err(
                    m.mac.path.span(),
                    format!(
                        "macros (`{}!`) cannot run inside a kernel",
                        m.mac.path.to_token_stream()
                    ),
                );
                return None;
            }
        };
        let id = self.span(s);
        Some(Stmt { kind, span: id })
    }

    fn expr_stmt(&mut self, e: &syn::Expr) -> Option<Stmt> {
        let s = e.span();
        let kind = match e {
            syn::Expr::Assign(a) => {
                let place = self.place(&a.left);
                let value = self.expr(&a.right);
                StmtKind::Assign {
                    place: place?,
                    op: None,
                    value: value?,
                }
            }
            syn::Expr::Binary(b) if compound(&b.op).is_some() => {
                let place = self.place(&b.left);
                let value = self.expr(&b.right);
                StmtKind::Assign {
                    place: place?,
                    op: compound(&b.op),
                    value: value?,
                }
            }
            syn::Expr::If(i) => return self.if_stmt(i),
            syn::Expr::ForLoop(f) => {
                if let Some(l) = &f.label {
                    self.err(l.span(), "loop labels are not supported in a kernel");
                    return None;
                }
                let var = match &*f.pat {
                    syn::Pat::Ident(pi) => pi.ident.to_string(),
                    syn::Pat::Wild(_) => "_".to_string(),
                    p => {
                        self.err(p.span(), "a kernel `for` binds one index: `for k in a..b`");
                        return None;
                    }
                };
                let (lo, hi, inclusive, step, reverse) = self.range(&f.expr)?;
                self.enter(HashSet::from([var.clone()]));
                let var = self.bind(&var);
                let body = self.block(&f.body);
                self.leave();
                StmtKind::For {
                    var,
                    ty: None,
                    lo,
                    hi,
                    inclusive,
                    step,
                    reverse,
                    body,
                }
            }
            syn::Expr::While(w) => {
                if let syn::Expr::Let(l) = &*w.cond {
                    self.err(l.span(), "`while let` is not supported in a kernel");
                    return None;
                }
                let cond = self.expr(&w.cond)?;
                StmtKind::While {
                    cond,
                    body: self.block(&w.body),
                }
            }
            syn::Expr::Loop(l) => {
                let t = self.mk(ExprKind::Lit(Lit::Bool(true)), s);
                StmtKind::While {
                    cond: t,
                    body: self.block(&l.body),
                }
            }
            syn::Expr::Block(b) => StmtKind::Block(self.block(&b.block)),
            syn::Expr::Unsafe(b) => StmtKind::Block(self.block(&b.block)),
            syn::Expr::Paren(p) => return self.expr_stmt(&p.expr),
            syn::Expr::Group(g) => return self.expr_stmt(&g.expr),
            syn::Expr::Continue(c) if c.label.is_none() => StmtKind::Continue,
            syn::Expr::Break(b) if b.label.is_none() && b.expr.is_none() => StmtKind::Break,
            syn::Expr::Macro(m) => {
                self.err(
                    m.mac.path.span(),
                    format!(
                        "macros (`{}!`) cannot run inside a kernel",
                        m.mac.path.to_token_stream()
                    ),
                );
                return None;
            }
            syn::Expr::Return(_) => {
                self.err(
                    s,
                    "`return` cannot leave a kernel; use `continue` to skip a point",
                );
                return None;
            }
            syn::Expr::Tuple(t) if t.elems.is_empty() => return None,
            _ => {
                // Lower it anyway to report unsupported sub-expressions precisely.
                if self.expr(e).is_some() {
                    self.err(s, "this statement has no effect in a kernel: a kernel statement assigns, declares, branches or loops");
                }
                return None;
            }
        };
        let id = self.span(s);
        Some(Stmt { kind, span: id })
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Option<Stmt> {
        let s = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(l.span(), "`if let` is not supported in a kernel");
            return None;
        }
        let cond = self.expr(&i.cond);
        let then = self.block(&i.then_branch);
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => Some(self.block(&b.block)),
                syn::Expr::If(i2) => self.if_stmt(i2).map(|st| Block { stmts: vec![st] }),
                e => {
                    self.err(e.span(), "unexpected `else` branch");
                    None
                }
            },
        };
        let id = self.span(s);
        Some(Stmt {
            kind: StmtKind::If {
                cond: cond?,
                then,
                els,
            },
            span: id,
        })
    }

    /// `a..b`, `a..=b`, `(a..b).rev()`, `(a..b).step_by(s)`.
    #[allow(clippy::type_complexity)]
    fn range(&mut self, e: &syn::Expr) -> Option<(Expr, Expr, bool, Option<Expr>, bool)> {
        match e {
            syn::Expr::Paren(p) => self.range(&p.expr),
            syn::Expr::Range(r) => {
                let (Some(a), Some(b)) = (&r.start, &r.end) else {
                    self.err(
                        r.span(),
                        "a kernel `for` needs both bounds: `for k in a..b`",
                    );
                    return None;
                };
                let lo = self.expr(a);
                let hi = self.expr(b);
                Some((
                    lo?,
                    hi?,
                    matches!(r.limits, syn::RangeLimits::Closed(_)),
                    None,
                    false,
                ))
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let (lo, hi, inc, step, _) = self.range(&m.receiver)?;
                if step.is_some() {
                    self.err(m.span(), "combine `.rev()` and `.step_by()` outside the kernel; only one is supported");
                    return None;
                }
                Some((lo, hi, inc, None, true))
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let (lo, hi, inc, _, rev) = self.range(&m.receiver)?;
                if rev {
                    self.err(m.span(), "combine `.rev()` and `.step_by()` outside the kernel; only one is supported");
                    return None;
                }
                let st = self.expr(&m.args[0])?;
                Some((lo, hi, inc, Some(st), false))
            }
            _ => {
                self.err(e.span(), "a kernel `for` loops over a range: `a..b`, `a..=b`, `(a..b).rev()` or `(a..b).step_by(s)`");
                None
            }
        }
    }
}

/// The dotted name of a variable or field path: `u`, `self.u`, `w.vel.u1`, `(s).0`;
/// `None` for any other expression.
pub fn field_path(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => {
            if let Some(id) = p.path.get_ident() {
                Some(id.to_string())
            } else if p.path.segments.len() == 1 && p.path.segments[0].ident == "self" {
                Some("self".into())
            } else {
                None
            }
        }
        syn::Expr::Field(f) => Some(format!("{}.{}", field_path(&f.base)?, member(&f.member))),
        syn::Expr::Paren(p) => field_path(&p.expr),
        syn::Expr::Group(g) => field_path(&g.expr),
        _ => None,
    }
}

fn member(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// A scalar type written in Rust syntax.
pub fn scalar_type(t: &syn::Type) -> Option<ScalarTy> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .and_then(|i| ScalarTy::from_rust(&i.to_string())),
        syn::Type::Group(g) => scalar_type(&g.elem),
        syn::Type::Paren(p) => scalar_type(&p.elem),
        _ => None,
    }
}

fn binop(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        _ => return None,
    })
}

fn compound(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

/// `f64::consts::PI`, `std::f32::consts::E`, `f64::EPSILON`, `i32::MAX`, ... as literals
/// with exactly Rust's values.
fn std_const(p: &syn::Path) -> Option<ExprKind> {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let segs: Vec<&str> = segs
        .iter()
        .map(String::as_str)
        .skip_while(|s| *s == "std" || *s == "core")
        .collect();
    let (ty, name) = match segs.as_slice() {
        [t, "consts", n] => (*t, *n),
        [t, n] => (*t, *n),
        _ => return None,
    };
    let t = ScalarTy::from_rust(ty)?;
    let float = |v32: f32, v64: f64| -> ExprKind {
        let text = if t == ScalarTy::F32 {
            fmt_f32(v32)
        } else {
            fmt_f64(v64)
        };
        ExprKind::Lit(Lit::Float {
            text,
            suffix: Some(t),
        })
    };
    macro_rules! consts {
        ($($n:ident),*) => {
            match name {
                $(stringify!($n) => return Some(float(std::f32::consts::$n, std::f64::consts::$n)),)*
                _ => {}
            }
        };
    }
    if t.is_float() {
        consts!(
            PI,
            TAU,
            E,
            SQRT_2,
            LN_2,
            LN_10,
            LOG2_E,
            LOG10_E,
            LOG2_10,
            LOG10_2,
            FRAC_PI_2,
            FRAC_PI_3,
            FRAC_PI_4,
            FRAC_PI_6,
            FRAC_PI_8,
            FRAC_1_PI,
            FRAC_2_PI,
            FRAC_2_SQRT_PI,
            FRAC_1_SQRT_2
        );
        return Some(match name {
            "EPSILON" => float(f32::EPSILON, f64::EPSILON),
            "MAX" => float(f32::MAX, f64::MAX),
            "MIN" => float(f32::MIN, f64::MIN),
            "MIN_POSITIVE" => float(f32::MIN_POSITIVE, f64::MIN_POSITIVE),
            "INFINITY" => ExprKind::Lit(Lit::Float {
                text: "inf".into(),
                suffix: Some(t),
            }),
            "NEG_INFINITY" => ExprKind::Lit(Lit::Float {
                text: "-inf".into(),
                suffix: Some(t),
            }),
            "NAN" => ExprKind::Lit(Lit::Float {
                text: "nan".into(),
                suffix: Some(t),
            }),
            _ => return None,
        });
    }
    let (min, max): (i128, i128) = match t {
        ScalarTy::I8 => (i8::MIN as i128, i8::MAX as i128),
        ScalarTy::I16 => (i16::MIN as i128, i16::MAX as i128),
        ScalarTy::I32 => (i32::MIN as i128, i32::MAX as i128),
        ScalarTy::I64 | ScalarTy::Isize => (i64::MIN as i128, i64::MAX as i128),
        ScalarTy::U8 => (0, u8::MAX as i128),
        ScalarTy::U16 => (0, u16::MAX as i128),
        ScalarTy::U32 => (0, u32::MAX as i128),
        ScalarTy::U64 | ScalarTy::Usize => (0, u64::MAX as i128),
        _ => return None,
    };
    let lit = |v: u128| {
        Expr::new(
            ExprKind::Lit(Lit::Int {
                value: v,
                suffix: Some(t),
            }),
            0,
        )
    };
    match name {
        "MAX" => Some(ExprKind::Lit(Lit::Int {
            value: max as u128,
            suffix: Some(t),
        })),
        "MIN" if min == 0 => Some(ExprKind::Lit(Lit::Int {
            value: 0,
            suffix: Some(t),
        })),
        // -MAX - 1, so no literal is out of range in C
        "MIN" => Some(ExprKind::Binary {
            op: BinOp::Sub,
            lhs: Box::new(Expr::new(
                ExprKind::Unary {
                    op: UnOp::Neg,
                    expr: Box::new(lit(max as u128)),
                },
                0,
            )),
            rhs: Box::new(lit(1)),
        }),
        _ => None,
    }
}

/// Shortest decimal text that reads back as exactly `v` (Rust's `{:?}`), in C syntax.
fn fmt_f64(v: f64) -> String {
    let s = format!("{v:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn fmt_f32(v: f32) -> String {
    let s = format!("{v:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// Every identifier in `ts`, inside groups too: the names a kernel's code uses, which a
/// fresh name ([`Lowerer::bind`]) must avoid.
pub fn idents_of(ts: TokenStream) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![ts];
    while let Some(ts) = stack.pop() {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                proc_macro2::TokenTree::Group(g) => stack.push(g.stream()),
                _ => {}
            }
        }
    }
    out
}

/// Spans of identifiers in `e` that are among `names` (for dependent-bound errors).
pub fn idents_in(e: &syn::Expr, names: &[String]) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    fn go(ts: TokenStream, names: &[String], out: &mut Vec<(String, Span)>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    if names.contains(&s) {
                        out.push((s, i.span()));
                    }
                }
                proc_macro2::TokenTree::Group(g) => go(g.stream(), names, out),
                _ => {}
            }
        }
    }
    go(quote!(#e), names, &mut out);
    out
}

/// The message for `T::from(x).unwrap()` in a kernel: the constant is `T::new(x)`.
fn new_not_from(t: &str, f: &str, c: &syn::ExprCall) -> String {
    let arg = c
        .args
        .first()
        .map(|a| a.to_token_stream().to_string())
        .unwrap_or_else(|| "0.5".into());
    format!(
        "in a kernel a constant of the precision `{t}` is written `{t}::new({arg})`, not the num-traits `{t}::{f}({arg})`: it becomes a literal of the kernel's precision (`{t}: mint::Real` is f32 or f64)"
    )
}
