//! The shape a `#[mint::parallel(stream)]` region must have (issue #16, streaming).
//!
//! A streamed region is run slab by slab by the runtime: its copies to the device only
//! record the host arrays, its kernels are recorded, and at the last `copy!(..,
//! from_device)` every slab is copied in, computed and copied out, pipelined (Visschers
//! 2012, Ch. 6). So the function body must read, in order: host code and `copy!(..,
//! to_device)`s; the kernels (loop nests, possibly inside host loops, with host code
//! between them); the `copy!(.., from_device)`s, one after another; then host code that
//! touches no array on the device. This module checks that order on the body's
//! statements and counts the copies back, which the runtime waits for.

use crate::directives::{CopyArgs, Directive, directive, is_mem_swap, macro_name};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Stmt};

/// What one statement of a streamed region's body is.
enum Kind {
    To,
    From,
    Alloc,
    Kernel,
    Other,
}

/// Finds `copy!`s, `barrier!`s and `#[mint::single]` blocks nested in a statement, and
/// `reduction` clauses and swaps anywhere.
#[derive(Default)]
struct Nested {
    copies: Vec<Span>,
    kernels: Vec<Span>,
    reductions: Vec<Span>,
    swaps: Vec<Span>,
}

impl<'ast> Visit<'ast> for Nested {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if macro_name(m) == Some("copy") {
            self.copies.push(m.span());
        }
        syn::visit::visit_macro(self, m);
    }
    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        if matches!(directive(a), Some(Directive::For | Directive::Single)) {
            self.kernels.push(a.span());
            // the clauses as the loop directive parses them (its own errors are reported
            // where the region expands the loop)
            if let syn::Meta::List(l) = &a.meta
                && let Ok(c) = crate::clauses::for_clauses(l.tokens.clone(), a.span())
                && let Some((_, _, sp)) = c.reduction
            {
                self.reductions.push(sp);
            }
        }
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func
            && is_mem_swap(&p.path)
        {
            self.swaps.push(c.span());
        }
        syn::visit::visit_expr_call(self, c);
    }
}

fn kind(s: &Stmt) -> Kind {
    let mac = match s {
        Stmt::Macro(m) => Some(&m.mac),
        Stmt::Expr(Expr::Macro(m), _) => Some(&m.mac),
        _ => None,
    };
    if let Some(m) = mac
        && macro_name(m) == Some("copy")
    {
        return match m.parse_body::<CopyArgs>() {
            Ok(a) if a.to_device => Kind::To,
            Ok(a) if a.alloc => Kind::Alloc,
            Ok(_) => Kind::From,
            // the region reports the malformed copy itself
            Err(_) => Kind::Other,
        };
    }
    let mut n = Nested::default();
    n.visit_stmt(s);
    if n.kernels.is_empty() {
        Kind::Other
    } else {
        Kind::Kernel
    }
}

/// Checks the body of a region with `stream` (`span`: the option's). Returns the errors,
/// each with its span and the fix, and the number of `copy!(.., from_device)`s.
pub fn check(stmts: &[Stmt], span: Span) -> (Vec<syn::Error>, u32) {
    let mut errs = Vec::new();
    let mut err = |sp: Span, m: &str| errs.push(syn::Error::new(sp, m));
    // 0: before the first kernel, 1: among the kernels, 2: among the copies back, 3: after
    let mut phase = 0;
    let mut outputs = 0u32;
    let mut kernels = 0;
    for s in stmts {
        let mut nested = Nested::default();
        nested.visit_stmt(s);
        for sp in &nested.reductions {
            err(
                *sp,
                "a `stream` region cannot hold a `reduction`: its value would be needed before the slabs run; compute it in a region without `stream`",
            );
        }
        for sp in &nested.swaps {
            err(
                *sp,
                "a `stream` region runs its kernels once per slab and cannot swap arrays; write the kernels with distinct input and output arrays, or drop `stream`",
            );
        }
        let k = kind(s);
        if matches!(k, Kind::Kernel | Kind::Other) && !nested.copies.is_empty() {
            for sp in &nested.copies {
                err(
                    *sp,
                    "in a `stream` region, `copy!` must be a statement of the function body (not inside a loop, a block or a condition): the slabs are copied when the kernels run",
                );
            }
            continue;
        }
        match (k, phase) {
            (Kind::Alloc, _) => err(
                s.span(),
                "a `stream` region copies each slab in and out, so `copy!(.., alloc)` has no place in it: copy the array in with `copy!(x, to_device)`, or drop `stream`",
            ),
            (Kind::To, 0) | (Kind::Other, 0 | 1) => {}
            (Kind::Kernel, 0 | 1) => {
                phase = 1;
                kernels += 1;
            }
            (Kind::To, _) => err(
                s.span(),
                "in a `stream` region, every `copy!(.., to_device)` comes before the first kernel: each slab is copied in before its kernels run",
            ),
            (Kind::From, 0) => err(
                s.span(),
                "in a `stream` region, `copy!(.., from_device)` comes after the kernels: the slabs run at the last copy back",
            ),
            (Kind::From, 1 | 2) => {
                phase = 2;
                outputs += 1;
            }
            (Kind::Other, _) => phase = 3,
            (Kind::From, _) => err(
                s.span(),
                "in a `stream` region, the `copy!(.., from_device)`s follow one another with no code between them: the slabs run at the last one",
            ),
            (Kind::Kernel, _) => err(
                s.span(),
                "in a `stream` region, every kernel comes before the first `copy!(.., from_device)`",
            ),
        }
    }
    if kernels == 0 {
        err(
            span,
            "`stream` streams the region's kernels through the device, and this region has none",
        );
    } else if outputs == 0 {
        err(
            span,
            "a `stream` region must copy its results back with `copy!(x, from_device)`: the slabs run at the last copy back",
        );
    }
    (errs, outputs)
}
