//! `#[mint::time_loop(block = k)]` on a region's time loop (issue #45): the attribute's
//! depth and the checks of the loop's shape, each misuse a compile error on its span.
//!
//! A blocked loop runs over a range and holds one kernel (`#[mint::r#for]`, no
//! reduction) and the `std::mem::swap`s of its arrays, or several kernels followed by
//! any swaps; nothing else: host code or a `copy!` between steps would see only every
//! k-th step. The runtime fuses one kernel's steps where the kernel allows it, runs the
//! steps of several kernels between two halo exchanges on several devices, and says why
//! not otherwise (`mint_runtime`'s `timeloop`).

use crate::directives::{Directive, directive, is_mem_swap};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, ExprForLoop, Stmt};

const USAGE: &str = "`#[mint::time_loop(block = k)]` takes the number of steps per block (`block = 3`; odd for a loop of one kernel, whose block is one fused launch), or `block = auto`; `#[mint::time_loop]` alone is `block = auto` for a tuned kernel (`tune`) and step by step otherwise";

/// The depth a `#[mint::time_loop]` asks for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Depth {
    /// `block = k`, and the span of `k`.
    Fixed(u32, Span),
    /// `block = auto`: the runtime times the depths and keeps the fastest.
    Auto,
    /// No `block` given: `Auto` where the loop's kernel is tuned (`tune`, or
    /// `MINT_TUNE=1`), one step per launch otherwise; the runtime decides at the first
    /// launch, as the autotuner does.
    Default,
}

/// The depth of `#[mint::time_loop(block = k)]` (or of `#[mint::time_loop]` alone).
///
/// # Errors
/// Other arguments, or a depth outside 1 to 15 (an even one is checked by
/// [`check_odd`], for a loop of one kernel only).
pub(crate) fn depth(attr: &syn::Attribute) -> syn::Result<Depth> {
    let l = match &attr.meta {
        syn::Meta::Path(_) => return Ok(Depth::Default),
        syn::Meta::List(l) if l.tokens.is_empty() => return Ok(Depth::Default),
        syn::Meta::List(l) => l,
        syn::Meta::NameValue(_) => return Err(syn::Error::new(attr.span(), USAGE)),
    };
    let nv: syn::MetaNameValue =
        syn::parse2(l.tokens.clone()).map_err(|_| syn::Error::new(l.tokens.span(), USAGE))?;
    if !nv.path.is_ident("block") {
        return Err(syn::Error::new(nv.path.span(), USAGE));
    }
    let v = &nv.value;
    if let Expr::Path(p) = v
        && p.path.is_ident("auto")
    {
        return Ok(Depth::Auto);
    }
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(i),
        ..
    }) = v
    else {
        return Err(syn::Error::new(v.span(), USAGE));
    };
    let k: u32 = i
        .base10_parse()
        .map_err(|_| syn::Error::new(i.span(), USAGE))?;
    if k == 0 || k > 15 {
        return Err(syn::Error::new(
            i.span(),
            "the depth is the number of steps per block (per fused launch for a loop of one kernel): 1 to 15",
        ));
    }
    Ok(Depth::Fixed(k, i.span()))
}

/// A loop of one kernel and a swap fuses its steps: its depth must be odd.
///
/// # Errors
/// An even depth, on its span.
pub(crate) fn check_odd(k: u32, span: Span) -> syn::Result<()> {
    if k.is_multiple_of(2) {
        return Err(syn::Error::new(
            span,
            format!(
                "block = {k}: the depth must be odd (use {} or {}): a fused launch reads one array of the swap and writes the other, and only an odd number of steps leaves each array's boundary values where the step-by-step loop leaves them",
                k - 1,
                k + 1
            ),
        ));
    }
    Ok(())
}

/// The body of a blocked loop: its kernels, in order, and the swaps after them.
pub(crate) struct Shape<'a> {
    pub kernels: usize,
    pub swaps: Vec<&'a Expr>,
}

/// Checks the loop's shape: a range, an index the body does not use, and a body of
/// `#[mint::r#for]` kernels followed by swaps of arrays: one kernel and its swaps (whose
/// steps a GPU fuses: the array it reads at its neighbours, and the pairs it carries at
/// its point), or several kernels and any number of swaps (whose steps run between two
/// halo exchanges on several devices).
///
/// # Errors
/// One error per misuse, on its span.
pub(crate) fn check(f: &ExprForLoop) -> Result<Shape<'_>, Vec<syn::Error>> {
    let mut errs = Vec::new();
    let mut r = &*f.expr;
    while let Expr::Paren(p) = r {
        r = &p.expr;
    }
    if !matches!(r, Expr::Range(rg) if rg.start.is_some() && rg.end.is_some()) {
        errs.push(syn::Error::new(
            f.expr.span(),
            "a blocked time loop runs over a range `a..b`: its number of steps must be known when it starts",
        ));
    }
    if let syn::Pat::Ident(pi) = &*f.pat
        && uses(f.body.to_token_stream(), &pi.ident.to_string())
    {
        errs.push(syn::Error::new(
            pi.ident.span(),
            format!("the body uses the step index `{}`, but a blocked loop runs several steps per launch: write `for _ in ..`, or drop `time_loop`", pi.ident),
        ));
    }
    let mut shape = Shape {
        kernels: 0,
        swaps: Vec::new(),
    };
    for s in &f.body.stmts {
        match s {
            Stmt::Expr(Expr::ForLoop(l), _)
                if l.attrs.iter().any(|a| directive(a) == Some(Directive::For)) =>
            {
                shape.kernels += 1;
                if let Some(sp) = l.attrs.iter().find_map(reduction_clause) {
                    errs.push(syn::Error::new(sp, "a reduction combines the values of every step, so a loop with one cannot run several steps per launch; drop `time_loop`, or reduce after the loop"));
                }
                if !shape.swaps.is_empty() {
                    errs.push(syn::Error::new(l.for_token.span, "a blocked time loop's kernels come before its swaps; move the swap after the last kernel, or drop `time_loop`"));
                }
            }
            Stmt::Expr(e @ Expr::Call(c), _) if is_swap(c) => shape.swaps.push(e),
            other => errs.push(syn::Error::new(
                span_of(other),
                "only the kernels and the swaps of their arrays can run between blocked steps: host code or `copy!` here would see only every k-th step; move it out of the loop or drop `time_loop`",
            )),
        }
    }
    if shape.kernels == 0 || (shape.kernels == 1 && shape.swaps.is_empty()) {
        errs.push(syn::Error::new(
            f.for_token.span,
            "a blocked time loop's body is one `#[mint::r#for]` kernel and `std::mem::swap(a, b)` of the array it reads and the one it writes (and of any other pair it carries at its point), or several kernels followed by any swaps",
        ));
    }
    if errs.is_empty() {
        Ok(shape)
    } else {
        Err(errs)
    }
}

/// The span of the `reduction(..)` clause of a `#[mint::r#for]` attribute, if it has one
/// (clauses that do not parse are the kernel's own error, reported where it is built).
fn reduction_clause(a: &syn::Attribute) -> Option<Span> {
    if directive(a) != Some(Directive::For) {
        return None;
    }
    let syn::Meta::List(l) = &a.meta else {
        return None;
    };
    let c = crate::clauses::for_clauses(l.tokens.clone(), a.span()).ok()?;
    c.reduction.map(|(_, _, sp)| sp)
}

fn is_swap(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if is_mem_swap(&p.path)) && c.args.len() == 2
}

fn span_of(s: &Stmt) -> Span {
    s.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

fn uses(ts: TokenStream, name: &str) -> bool {
    ts.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => uses(g.stream(), name),
        _ => false,
    })
}
