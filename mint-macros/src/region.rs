//! `#[mint::parallel]`: walks the region's host code in order, replacing `copy!`,
//! `barrier!`, annotated loop nests, `single` blocks and swaps of device arrays with
//! calls into the runtime, and checking what only the macro can see (thesis Sec. 4.2:
//! the memory manager's table of copied arrays, the outliner, the argument handler).

use crate::clauses::{self, Entry, ForClauses, Nest, Options};
use crate::directives::{
    CopyArgs, Directive, attr_name_span, is_mem_swap, macro_name, take_directive,
};
use crate::hostty::{Env, HostTy};
use crate::lower::{Capture, Lowerer, field_path, idents_in};
use mint_translator::Target;
use mint_translator::baseline::outline;
use mint_translator::ir::{self as ir, ClauseValue, Kernel, Origin, ParLoop, RedOp, ScalarTy};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, ExprForLoop, Ident, ItemFn, Stmt, parse_quote};

/// The arrays named by `copy!`s anywhere in the body: the slots of the region's
/// host-to-device table, in order of first appearance.
struct CopyNames(Vec<String>);

impl<'ast> Visit<'ast> for CopyNames {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if macro_name(m) == Some("copy")
            && let Ok(a) = m.parse_body::<CopyArgs>()
        {
            let n = a.name;
            if !self.0.contains(&n) {
                self.0.push(n);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Line and column of a span (1-based), and the file, where the compiler tells.
fn location(s: Span) -> (String, u32, u32) {
    if proc_macro::is_available() {
        let p = s.unwrap();
        (p.file(), p.line() as u32, p.column() as u32 + 1)
    } else {
        (String::new(), 0, 0)
    }
}

pub struct RegionGen {
    fn_name: String,
    options: Options,
    returns_result: bool,
    env: Env,
    slots: Vec<String>,
    align: Vec<Option<usize>>,
    copied: HashSet<String>,
    kernels: usize,
    errors: Vec<syn::Error>,
    /// The user's identifiers of the kernel being generated.
    idents: std::collections::HashMap<String, Ident>,
    /// The user's field paths used as arrays by the kernel being generated.
    paths: std::collections::HashMap<String, Expr>,
    /// The device functions the kernel being generated calls.
    calls: Vec<(String, syn::Path)>,
    /// The region's type parameters bounded by `mint::Real`, and the others (with spans).
    generics: Vec<String>,
    other_generics: Vec<(String, Span)>,
    /// The slots `std::mem::swap` exchanges in the region, for the decomposition.
    swaps: Vec<(usize, usize)>,
    /// Arrays `copy!(x, alloc)` left undefined that no kernel has written yet, in the
    /// order the region's statements are generated: a kernel reading one is a compile
    /// error.
    undefined: HashSet<String>,
    /// The depth of the `#[mint::time_loop]` whose body is being generated, as the call
    /// its kernel's site is given for the decomposition's ghost width:
    /// `.in_time_loop(k)`, `.in_time_loop(AUTO_DEEPEST)` for `block = auto`,
    /// `.in_default_time_loop(AUTO_DEEPEST)` without `block`, nothing outside a loop.
    time_block: TokenStream,
    /// In a time loop of several kernels per step: its number in the region (1 first) and
    /// the place of the next kernel in the step, which each kernel's site is given
    /// (`.in_time_group(g, i)`); the loops of several kernels numbered so far.
    time_group: Option<(u32, std::cell::Cell<u32>)>,
    time_groups: u32,
}

/// The type parameters of `g` bounded by `Real` (`T: mint::Real`, `T: Real`, or in a
/// `where` clause), and the others.
pub fn real_generics(g: &syn::Generics) -> (Vec<String>, Vec<(String, Span)>) {
    let is_real = |b: &syn::TypeParamBound| matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Real"));
    let mut real = Vec::new();
    let mut other = Vec::new();
    for p in g.type_params() {
        let n = p.ident.to_string();
        let in_where = g.where_clause.as_ref().is_some_and(|w| {
            w.predicates.iter().any(|pr| match pr {
                syn::WherePredicate::Type(t) => {
                    matches!(&t.bounded_ty, syn::Type::Path(tp) if tp.path.is_ident(&p.ident))
                        && t.bounds.iter().any(is_real)
                }
                _ => false,
            })
        });
        if p.bounds.iter().any(is_real) || in_where {
            real.push(n);
        } else {
            other.push((n, p.ident.span()));
        }
    }
    (real, other)
}

impl RegionGen {
    /// `expr?` or `mint::__rt::or_panic(expr)`, by the function's return type.
    fn try_(&self, e: TokenStream) -> TokenStream {
        if self.returns_result {
            quote!((#e)?)
        } else {
            quote!(__mint_crate::__rt::or_panic(#e))
        }
    }

    /// The user's identifier for a host variable of the current kernel.
    fn ident(&self, name: &str) -> Ident {
        self.idents
            .get(name)
            .cloned()
            .unwrap_or_else(|| format_ident!("{}", name))
    }

    fn slot(&self, name: &str) -> Option<usize> {
        self.slots.iter().position(|s| s == name)
    }

    fn err(&mut self, s: Span, m: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(s, m));
    }

    fn stmts(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Local(mut l) => {
                let mut names = Vec::new();
                crate::faces::pat_names(&l.pat, &mut names);
                for (n, sp) in &names {
                    if self.copied.contains(n) {
                        self.err(
                            *sp,
                            format!(
                                "`{n}` is on the device (copied with `copy!`), so it cannot be rebound in the region; use another name, or swap arrays with `std::mem::swap(&mut a, &mut b)`"
                            ),
                        );
                    }
                }
                if let Some(init) = &mut l.init {
                    self.expr(&mut init.expr);
                }
                let (ty, init) = match &l.pat {
                    syn::Pat::Type(pt) => (
                        Some((*pt.ty).clone()),
                        l.init.as_ref().map(|i| (*i.expr).clone()),
                    ),
                    _ => (None, l.init.as_ref().map(|i| (*i.expr).clone())),
                };
                self.env.bind_pat(&l.pat, ty.as_ref(), init.as_ref());
                out.push(Stmt::Local(l));
            }
            Stmt::Macro(m) if macro_name(&m.mac).is_some() => {
                let sp = m.mac.span();
                if let Some(st) = self.mint_macro(&m.mac, sp) {
                    out.push(st);
                }
            }
            Stmt::Expr(Expr::Macro(m), semi) if macro_name(&m.mac).is_some() => {
                let _ = semi;
                let sp = m.mac.span();
                if let Some(st) = self.mint_macro(&m.mac, sp) {
                    out.push(st);
                }
            }
            Stmt::Expr(Expr::ForLoop(mut f), semi) => match take_directive(&mut f.attrs) {
                Some((Directive::For, attr)) => {
                    let args = match &attr.meta {
                        syn::Meta::List(l) => l.tokens.clone(),
                        _ => TokenStream::new(),
                    };
                    match clauses::for_clauses(args, attr_name_span(&attr)) {
                        Ok(c) => {
                            if let Some(st) = self.kernel_for(f, c) {
                                out.push(st);
                            }
                        }
                        Err(e) => self.errors.push(e),
                    }
                }
                Some((Directive::TimeLoop, attr)) => {
                    if let Some(st) = self.time_loop(f, &attr) {
                        out.push(st);
                    }
                }
                Some((d, attr)) => self.misplaced(d, &attr),
                None => {
                    let mut e = Expr::ForLoop(f);
                    self.expr(&mut e);
                    out.push(Stmt::Expr(e, semi));
                }
            },
            Stmt::Expr(Expr::Block(mut b), semi) => match take_directive(&mut b.attrs) {
                Some((Directive::Single, attr)) => {
                    if let syn::Meta::List(l) = &attr.meta
                        && !l.tokens.is_empty()
                    {
                        self.err(l.tokens.span(), "`#[mint::single]` takes no arguments");
                    }
                    if let Some(st) = self.kernel_single(b.block, attr_name_span(&attr)) {
                        out.push(st);
                    }
                }
                Some((d, attr)) => self.misplaced(d, &attr),
                None => {
                    let mut e = Expr::Block(b);
                    self.expr(&mut e);
                    out.push(Stmt::Expr(e, semi));
                }
            },
            Stmt::Expr(mut e, semi) => {
                if let Some((d, attr)) = expr_attrs(&mut e).and_then(take_directive) {
                    self.misplaced(d, &attr);
                    return;
                }
                let swap = self.swap_of(&e);
                self.expr(&mut e);
                out.push(Stmt::Expr(e, semi));
                if let Some((a, b)) = swap {
                    if !self.swaps.contains(&(a, b)) {
                        self.swaps.push((a, b));
                    }
                    let (na, nb) = (self.slots[a].clone(), self.slots[b].clone());
                    let (ua, ub) = (self.undefined.remove(&na), self.undefined.remove(&nb));
                    if ua {
                        self.undefined.insert(nb);
                    }
                    if ub {
                        self.undefined.insert(na);
                    }
                    out.push(parse_quote!(__mint_region.swap(#a, #b);));
                }
            }
            other => out.push(other),
        }
    }

    fn misplaced(&mut self, d: Directive, attr: &syn::Attribute) {
        let sp = attr_name_span(attr);
        match d {
            Directive::For => self.err(sp, "`#[mint::r#for]` goes on a `for` loop statement"),
            Directive::Single => self.err(sp, "`#[mint::single]` goes on a block statement: `#[mint::single] { .. }`"),
            Directive::TimeLoop => self.err(sp, "`#[mint::time_loop(block = k)]` goes on a region's time loop: `for _ in 0..steps { #[mint::r#for(..)] ..; std::mem::swap(u, unew); }`"),
            Directive::Parallel => self.err(sp, "parallel regions cannot nest: `#[mint::parallel]` goes on a function, and this one is already inside a region"),
            Directive::Unknown(n) => self.err(
                sp,
                format!("unknown Mint directive `{n}`; the directives are `#[mint::parallel]` (on a fn), `#[mint::r#for(..)]` (on a loop), `#[mint::time_loop(block = k)]` (on a time loop), `#[mint::single]` (on a block), `copy!` and `mint::barrier!()`"),
            ),
        }
    }

    /// `#[mint::time_loop(block = k)]`: the loop's body once per launch, which runs `k`
    /// steps where the runtime can fuse them and one otherwise (`crate::timeloop`); with
    /// `block = auto`, a `static AutoDepth` per loop and the runtime's `_auto` calls,
    /// which choose `k` by timing; with no `block`, the same, timed only where the
    /// kernel is tuned (`AutoDepth::under_tune`). A body of several kernels goes to
    /// [`Self::time_loop_steps`].
    fn time_loop(&mut self, f: ExprForLoop, attr: &syn::Attribute) -> Option<Stmt> {
        use crate::timeloop::Depth;
        let k = match crate::timeloop::depth(attr) {
            Ok(k) => k,
            Err(e) => {
                self.errors.push(e);
                return None;
            }
        };
        let swaps: Vec<Expr> = match crate::timeloop::check(&f) {
            Ok(s) if s.kernels > 1 => return self.time_loop_steps(&f, k),
            Ok(s) => s.swaps.into_iter().cloned().collect(),
            Err(es) => {
                self.errors.extend(es);
                return None;
            }
        };
        if let Depth::Fixed(k, sp) = k
            && let Err(e) = crate::timeloop::check_odd(k, sp)
        {
            self.errors.push(e);
            return None;
        }
        let mut pairs = Vec::new();
        for swap in &swaps {
            let (a, b) = self.swap_of(swap)?;
            pairs.push(quote!((#a, #b)));
        }
        let swaps = quote!(&[#(#pairs),*]);
        self.time_block = match k {
            Depth::Fixed(k, _) => quote!(.in_time_loop(#k)),
            Depth::Auto => quote!(.in_time_loop(__mint_crate::__rt::AUTO_DEEPEST)),
            Depth::Default => quote!(.in_default_time_loop(__mint_crate::__rt::AUTO_DEEPEST)),
        };
        let body = self.stmts(f.body.stmts.clone());
        self.time_block = quote!();
        let range = &f.expr;
        let (begin, end, tuner) = match k {
            Depth::Fixed(k, _) => {
                let k = k as usize;
                (
                    quote!(__mint_region.time_step_begin(#k, __mint_tl_left, #swaps)),
                    quote!(__mint_region.time_step_end()),
                    quote!(),
                )
            }
            Depth::Auto | Depth::Default => (
                self.try_(quote!(__mint_region.time_step_begin_auto(&__MINT_TL_AUTO, __mint_tl_left, #swaps))),
                self.try_(quote!(__mint_region.time_step_end_auto(&__MINT_TL_AUTO))),
                if matches!(k, Depth::Auto) {
                    quote!(static __MINT_TL_AUTO: __mint_crate::__rt::AutoDepth = __mint_crate::__rt::AutoDepth::new();)
                } else {
                    quote!(static __MINT_TL_AUTO: __mint_crate::__rt::AutoDepth = __mint_crate::__rt::AutoDepth::under_tune();)
                },
            ),
        };
        Some(time_while(range, &begin, &body, &end, &tuner))
    }

    /// A `#[mint::time_loop]` whose step is several kernels: one step per iteration; on
    /// several devices `block = k` runs `k` steps between two halo exchanges (the sites
    /// carry `.in_time_loop(k).in_time_group(g, i)` for the slabs' ghost width). `auto` and
    /// no `block` run step by step: no depth is timed for such a loop.
    fn time_loop_steps(&mut self, f: &ExprForLoop, k: crate::timeloop::Depth) -> Option<Stmt> {
        let k = match k {
            crate::timeloop::Depth::Fixed(k, _) => k,
            _ => 1,
        };
        self.time_groups += 1;
        let g = self.time_groups;
        self.time_block = quote!(.in_time_loop(#k));
        self.time_group = Some((g, std::cell::Cell::new(0)));
        let body = self.stmts(f.body.stmts.clone());
        (self.time_block, self.time_group) = (quote!(), None);
        let k = k as usize;
        Some(time_while(
            &f.expr,
            &quote!(__mint_region.time_group_begin(#k, __mint_tl_left, #g)),
            &body,
            &quote!(__mint_region.time_group_end()),
            &quote!(),
        ))
    }

    /// `copy!` and `barrier!`.
    fn mint_macro(&mut self, m: &syn::Macro, sp: Span) -> Option<Stmt> {
        match macro_name(m)? {
            "barrier" => {
                if !m.tokens.is_empty() {
                    self.err(m.tokens.span(), "`mint::barrier!()` takes no arguments");
                }
                let call = self.try_(quote_spanned!(sp=> __mint_region.barrier()));
                Some(parse_quote!(#call;))
            }
            _ => {
                let a: CopyArgs = match m.parse_body() {
                    Ok(a) => a,
                    Err(e) => {
                        self.errors.push(e);
                        return None;
                    }
                };
                let name = a.name.clone();
                let slot = self.slot(&name).expect("pre-pass saw every copy!");
                let arr = &a.array;
                let is_ref = matches!(
                    self.env.get(&name),
                    Some(HostTy::Array { is_ref: true, .. })
                );
                if let Some(HostTy::Scalar(t)) = self.env.get(&name) {
                    self.err(
                        arr.span(),
                        format!("`{name}` is a scalar ({t}); scalars are passed to kernels by value, only arrays are copied"),
                    );
                }
                let shape = match &a.shape {
                    Some(s) => {
                        quote_spanned!(s.span()=> ::core::option::Option::Some(&__mint_crate::__rt::shape(#s)[..]))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let call = if a.to_device {
                    self.copied.insert(name.clone());
                    self.undefined.remove(&name);
                    quote_spanned!(sp=> __mint_region.copy_to_device(#slot, &#arr, #shape))
                } else if a.alloc {
                    self.copied.insert(name.clone());
                    self.undefined.insert(name.clone());
                    quote_spanned!(sp=> __mint_region.alloc_on_device(#slot, &#arr, #shape))
                } else if is_ref {
                    quote_spanned!(sp=> __mint_region.copy_from_device(#slot, &mut *#arr, #shape))
                } else {
                    quote_spanned!(sp=> __mint_region.copy_from_device(#slot, &mut #arr, #shape))
                };
                let call = self.try_(call);
                Some(parse_quote!(#call;))
            }
        }
    }

    /// `std::mem::swap(a, b)` of two device arrays: their slots.
    fn swap_of(&mut self, e: &Expr) -> Option<(usize, usize)> {
        let Expr::Call(c) = e else { return None };
        let Expr::Path(p) = &*c.func else { return None };
        if !is_mem_swap(&p.path) || c.args.len() != 2 {
            return None;
        }
        let names: Vec<Option<(String, Span)>> = c.args.iter().map(place_ident).collect();
        let (Some((a, sa)), Some((b, sb))) = (&names[0], &names[1]) else {
            return None;
        };
        match (self.slot(a), self.slot(b)) {
            (Some(i), Some(j)) => Some((i, j)),
            (Some(_), None) => {
                self.err(*sb, format!("`{a}` is on the device but `{b}` is not: copy `{b}` to the device too, or do not swap them in the region"));
                None
            }
            (None, Some(_)) => {
                self.err(*sa, format!("`{b}` is on the device but `{a}` is not: copy `{a}` to the device too, or do not swap them in the region"));
                None
            }
            _ => None,
        }
    }

    /// Host code inside expressions: recurse into nested blocks and check assignments.
    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Block(b) => self.block(&mut b.block),
            Expr::Unsafe(b) => self.block(&mut b.block),
            Expr::If(i) => {
                self.expr(&mut i.cond);
                self.block(&mut i.then_branch);
                if let Some((_, e)) = &mut i.else_branch {
                    self.expr(e);
                }
            }
            Expr::ForLoop(f) => {
                self.expr(&mut f.expr);
                self.env.push();
                self.env.bind_pat(&f.pat, None, None);
                f.body.stmts = self.stmts(std::mem::take(&mut f.body.stmts));
                self.env.pop();
            }
            Expr::While(w) => {
                self.expr(&mut w.cond);
                self.block(&mut w.body);
            }
            Expr::Loop(l) => self.block(&mut l.body),
            Expr::Match(m) => {
                self.expr(&mut m.expr);
                for arm in &mut m.arms {
                    self.expr(&mut arm.body);
                }
            }
            Expr::Paren(p) => self.expr(&mut p.expr),
            Expr::Group(g) => self.expr(&mut g.expr),
            Expr::Assign(a) => {
                if let Some((n, sp)) = place_ident(&a.left)
                    && self.copied.contains(&n)
                {
                    self.err(
                            sp,
                            format!("`{n}` is on the device (copied with `copy!`), so it cannot be reassigned in the region; to exchange two arrays use `std::mem::swap(&mut a, &mut b)`"),
                        );
                }
                self.expr(&mut a.right);
            }
            _ => {}
        }
    }

    fn block(&mut self, b: &mut syn::Block) {
        self.env.push();
        b.stmts = self.stmts(std::mem::take(&mut b.stmts));
        self.env.pop();
    }

    /// Lowers, checks and generates one `#[mint::r#for]` loop nest.
    fn kernel_for(&mut self, f: ExprForLoop, c: ForClauses) -> Option<Stmt> {
        // The perfectly nested chain of loops under the directive.
        let mut chain: Vec<&ExprForLoop> = vec![&f];
        loop {
            let last = chain[chain.len() - 1];
            match last.body.stmts.as_slice() {
                [Stmt::Expr(Expr::ForLoop(inner), _)]
                    if inner.attrs.is_empty() && inner.label.is_none() =>
                {
                    chain.push(inner)
                }
                _ => break,
            }
        }
        let depth = match c.nest {
            Nest::All => chain.len().min(3),
            Nest::Depth(d) => {
                if d > chain.len() {
                    self.err(
                        c.nest_span,
                        format!(
                            "nest({d}) but only {} loop(s) are perfectly nested here; use nest({}) or nest(all), or make the loops perfectly nested (no statements between them)",
                            chain.len(),
                            chain.len()
                        ),
                    );
                    return None;
                }
                d
            }
        };
        let loops = &chain[..depth];
        // Parallel loop indices and ranges.
        let mut vars: Vec<Ident> = Vec::new();
        let mut ranges: Vec<Expr> = Vec::new();
        let mut inclusive = Vec::new();
        for l in loops {
            if let Some(lab) = &l.label {
                self.err(lab.span(), "parallel loops cannot have labels");
                return None;
            }
            let v = match &*l.pat {
                syn::Pat::Ident(pi) if pi.subpat.is_none() => pi.ident.clone(),
                p => {
                    self.err(
                        p.span(),
                        "a parallel loop needs an index variable: `for z in lo..hi`",
                    );
                    return None;
                }
            };
            let mut r = &*l.expr;
            while let Expr::Paren(p) = r {
                r = &p.expr;
            }
            match r {
                Expr::Range(rg) if rg.start.is_some() && rg.end.is_some() => {
                    inclusive.push(matches!(rg.limits, syn::RangeLimits::Closed(_)));
                }
                _ => {
                    self.err(
                        l.expr.span(),
                        "a parallel loop runs over a range with both bounds: `lo..hi` or `lo..=hi` (no `.rev()`, `.step_by()` or iterators)",
                    );
                    return None;
                }
            }
            // Bounds may not depend on outer parallel indices.
            let outer: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
            if let Some((n, sp)) = idents_in(r, &outer).into_iter().next() {
                self.err(
                    sp,
                    format!(
                        "the bounds of this parallel loop depend on `{n}`, the index of an enclosing parallel loop; Mint parallelizes rectangular iteration spaces: use bounds that do not depend on `{n}` and skip points with an `if`, or parallelize fewer loops with nest(..)"
                    ),
                );
                return None;
            }
            vars.push(v);
            ranges.push(r.clone());
        }
        let body = &loops[depth - 1].body;
        let var_names: Vec<String> = vars.iter().map(|v| v.to_string()).collect();

        let mut spans: Vec<Span> = vec![c.span];
        let mut lw = Lowerer::new(&mut spans, &var_names);
        lw.generics = self.generics.clone();
        lw.indices = var_names.clone();
        lw.taken = crate::lower::idents_of(body.to_token_stream());
        let ir_body = lw.block(body);
        // Bounds, for typing only (None when not expressible in the kernel language).
        let mut nest = Vec::new();
        for (i, r) in ranges.iter().enumerate() {
            let Expr::Range(rg) = r else { unreachable!() };
            let mut quiet = Lowerer::new(lw.spans, &[]);
            let lo = quiet.expr(rg.start.as_ref().unwrap());
            let hi = quiet.expr(rg.end.as_ref().unwrap());
            let ok = quiet.errors.is_empty() && quiet.captures.is_empty();
            let span = quiet.span(vars[i].span());
            nest.push(ParLoop {
                var: var_names[i].clone(),
                ty: None,
                lo: if ok { lo } else { None },
                hi: if ok { hi } else { None },
                inclusive: inclusive[i],
                span,
            });
        }
        self.errors.append(&mut lw.errors);
        let captures = std::mem::take(&mut lw.captures);
        self.idents = std::mem::take(&mut lw.idents);
        self.paths = std::mem::take(&mut lw.paths);
        self.calls = std::mem::take(&mut lw.calls);
        if let Some((_, v, _)) = &c.reduction {
            self.idents.insert(v.to_string(), v.clone());
        }
        if !self.errors.is_empty() {
            return None;
        }
        let k = self.build_kernel(&ir_body, nest, &captures, Some(&c), &mut spans, f.span())?;

        // ----- code generation -----
        let site = self.site(&k, &spans);
        let nowait = c.nowait;
        let red = k.reduction.clone();
        let (arrays_gpu, views, shadows, elem_checks) = self.array_code(&k);
        let scalars = self.scalar_args(&k, &captures, &spans);
        let bounds: Vec<TokenStream> = ranges
            .iter()
            .map(|r| quote_spanned!(r.span()=> __mint_crate::__rt::bounds(#r)))
            .collect();
        let clause_vals: Vec<TokenStream> = runtime_entries(&c)
            .into_iter()
            .map(|e| quote_spanned!(e.span()=> __mint_crate::__rt::clause(#e)))
            .collect();
        let args = quote! {
            &__mint_crate::__rt::LaunchArgs {
                arrays: &[#(#arrays_gpu),*],
                scalars: &[#(#scalars),*],
                bounds: &[#(#bounds),*],
                clauses: &[#(#clause_vals),*],
            }
        };
        // CPU: the original loops, the outermost spread over threads, once on the host
        // arrays or once per emulated device (`cpu:N`) on its part of them; the rows the
        // kernel's reaches prove inside the arrays run on unchecked views (`cpu::Guard`).
        let fast_body = self.cpu_body(&k, body);
        let body = statement_marks(&fast_body);
        let innermost = match &red {
            None => quote!({ if __mint_owner { __mint_dev.point(); } #body }),
            Some(r) => {
                let var = self.ident(&r.var);
                quote!({
                    let __mint_saved = #var;
                    if __mint_owner { __mint_dev.point(); }
                    #body
                    if __mint_owner && !__mint_dev.counts() {
                        #var = __mint_saved;
                    }
                })
            }
        };
        let (fast_rows, fast_shadows) = self.fast_shadows(&k, &fast_body, &vars[..vars.len() - 1]);
        let locals: HashSet<String> = k
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| match self.paths.get(&a.name) {
                Some(_) => path_local(i).to_string(),
                None => self.ident(&a.name).to_string(),
            })
            .collect();
        let lifted = crate::faces::lift(&fast_body, &locals, &var_names);
        // the body as written runs the parts of a row its own subscripts keep inside the
        // arrays (a clamped face's ends) where the lifted one reads past them
        let as_written = (lifted.to_token_stream().to_string()
            != fast_body.to_token_stream().to_string())
        .then_some(&fast_body);
        let elem_bytes = if k.arrays.is_empty() {
            quote!(0)
        } else {
            quote!(__mint_view_0.elem_bytes())
        };
        let by_value = self.by_value(&k, &captures, vars.len() >= 2);
        // the rows of a kernel of two parallel loops run in chunks (`CpuDev::par_rows`)
        let chunked = vars.len() == 2 && red.is_none();
        let inner = wide_rows(
            vars.len(),
            elem_bytes,
            &by_value,
            cpu_rows(
                &vars,
                innermost,
                (&fast_rows, &fast_shadows),
                (&lifted, &by_value),
                as_written,
                chunked,
            ),
        );
        let (v0, r0) = (&vars[0], &ranges[0]);
        let views = {
            let n = k.arrays.len();
            let bounds = (0..n).map(|i| {
                let v = format_ident!("__mint_view_{}", i);
                quote!(#v.bounds())
            });
            let fasts = (0..n).map(|i| {
                let (v, f) = (
                    format_ident!("__mint_view_{}", i),
                    format_ident!("__mint_fast_{}", i),
                );
                quote!(#[allow(unused_variables)] let #f = #v.fast();)
            });
            let inner_ranges = ranges[1..].iter().enumerate().map(|(i, r)| {
                let id = format_ident!("__mint_range_{}", i + 1);
                quote!(#[allow(unused_variables)] let #id = #r;)
            });
            let span = (vars.len() == 1).then(|| {
                quote! {
                    #[allow(unused_variables)]
                    let __mint_span_0 = __mint_guard.span(__mint_crate::__rt::cpu::ClipRange::bounds(&(#r0)));
                }
            });
            let table = (vars.len() >= 2).then(|| {
                let (outer, rl) = (vars.len() - 1, format_ident!("__mint_range_{}", vars.len() - 1));
                let lifted = as_written.is_some();
                quote! {
                    #[allow(unused_variables)]
                    let __mint_table = __mint_guard.row_table(#outer, __mint_crate::__rt::cpu::ClipRange::bounds(&#rl), #lifted);
                }
            });
            quote! {
                #(#views)*
                #[allow(unused_variables)]
                let __mint_owner = __mint_dev.is_owner();
                #[allow(unused_variables)]
                let __mint_guard = __mint_dev.guard(&__MINT_KERNEL, &[#(#bounds),*], &[#(#scalars),*]);
                #(#fasts)*
                #(#inner_ranges)*
                #span
                #table
            }
        };
        let note = self.note_types(&k, &scalars);
        // the nest's size, where the body's work per point is bounded (no serial loop)
        let mut serial_loop = false;
        k.body.walk_stmts(&mut |s| {
            serial_loop |= matches!(
                s.kind,
                ir::StmtKind::For { .. } | ir::StmtKind::While { .. }
            )
        });
        let inner_bounds = (1..ranges.len()).map(|i| {
            let id = format_ident!("__mint_range_{}", i);
            quote!(__mint_crate::__rt::cpu::ClipRange::bounds(&#id))
        });
        let nest_spans = if serial_loop {
            quote!(::core::option::Option::None)
        } else {
            quote!(::core::option::Option::Some(&[#(#inner_bounds),*]))
        };
        let stmt: Stmt = match red {
            None => {
                let (outer_loop, v0) = match chunked {
                    true => (quote!(__mint_dev.par_rows), format_ident!("__mint_rows")),
                    false => (quote!(__mint_dev.par_for), v0.clone()),
                };
                let launch =
                    self.try_(quote!(__mint_region.launch(&__MINT_KERNEL, #args, #nowait)));
                let cpu = self.try_(quote! {
                    __mint_region.cpu_run(&__MINT_KERNEL, &[#(#arrays_gpu),*], |__mint_dev: &__mint_crate::__rt::cpu::CpuDev| {
                        #views
                        #outer_loop(#r0, #nest_spans, |#v0| {
                            #by_value
                            #(#shadows)*
                            #inner
                        });
                    })
                });
                parse_quote! {
                    {
                        #site
                        if __mint_region.is_cpu() {
                            #note
                            #cpu;
                        } else {
                            #(#elem_checks)*
                            #launch;
                        }
                    }
                }
            }
            Some(r) => {
                // a variable of a generic type (`let mut sum: T`): Rust infers it from
                // the variable, the runtime binds it at launch
                let ty = r.ty.map(ty_tokens).unwrap_or_else(|| quote!(_));
                let op = red_op_tokens(r.op);
                let var = self.ident(&r.var);
                let launch =
                    self.try_(quote!(__mint_region.launch_reduce::<#ty>(&__MINT_KERNEL, #args)));
                let cpu = self.try_(quote! {
                    __mint_region.cpu_reduce::<#ty>(&__MINT_KERNEL, &[#(#arrays_gpu),*], #op, |__mint_dev: &__mint_crate::__rt::cpu::CpuDev| {
                        let __mint_identity = __mint_crate::__rt::cpu::identity_like(&#var, #op);
                        #views
                        __mint_dev.par_reduce(#r0, #op, |#v0| {
                            #by_value
                            #(#shadows)*
                            #[allow(unused_mut)]
                            let mut #var: #ty = __mint_identity;
                            #inner
                            #var
                        })
                    })
                });
                parse_quote! {
                    {
                        #site
                        let __mint_value: #ty = if __mint_region.is_cpu() {
                            #note
                            #cpu
                        } else {
                            #(#elem_checks)*
                            #launch
                        };
                        #var = __mint_crate::__rt::cpu::combine::<#ty>(#op, #var, __mint_value);
                    }
                }
            }
        };
        Some(stmt)
    }

    /// `#[mint::single] { .. }`: one device thread runs the block.
    fn kernel_single(&mut self, block: syn::Block, span: Span) -> Option<Stmt> {
        let mut spans: Vec<Span> = vec![span];
        let mut lw = Lowerer::new(&mut spans, &[]);
        lw.generics = self.generics.clone();
        let ir_body = lw.block(&block);
        self.errors.append(&mut lw.errors);
        let captures = std::mem::take(&mut lw.captures);
        self.idents = std::mem::take(&mut lw.idents);
        self.paths = std::mem::take(&mut lw.paths);
        self.calls = std::mem::take(&mut lw.calls);
        if !self.errors.is_empty() {
            return None;
        }
        let k = self.build_kernel(&ir_body, Vec::new(), &captures, None, &mut spans, span)?;
        let site = self.site(&k, &spans);
        let (arrays_gpu, views, shadows, elem_checks) = self.array_code(&k);
        let scalars = self.scalar_args(&k, &captures, &spans);
        let note = self.note_types(&k, &scalars);
        // The CPU runs the block with the same views of its arrays as a loop body has, so
        // that it reads the same (`&u` passes a view to a device function either way).
        let cpu_block = statement_marks(&self.cpu_body(&k, &block));
        let cpu_stmts = &cpu_block.stmts;
        let launch = self.try_(quote! {
            __mint_region.launch(&__MINT_KERNEL, &__mint_crate::__rt::LaunchArgs {
                arrays: &[#(#arrays_gpu),*],
                scalars: &[#(#scalars),*],
                bounds: &[],
                clauses: &[],
            }, false)
        });
        let cpu = self.try_(quote! {
            __mint_region.cpu_run(&__MINT_KERNEL, &[#(#arrays_gpu),*], |__mint_dev: &__mint_crate::__rt::cpu::CpuDev| {
                #(#views)*
                #(#shadows)*
                #[allow(unused_variables)]
                let __mint_owner = __mint_dev.is_owner();
                __mint_dev.point();
                #(#cpu_stmts)*
            })
        });
        Some(parse_quote! {
            {
                #site
                if __mint_region.is_cpu() {
                    #note
                    #cpu;
                } else {
                    #(#elem_checks)*
                    #launch;
                }
            }
        })
    }

    /// Assembles the kernel IR from the lowered body and checks it with the translator.
    fn build_kernel(
        &mut self,
        body: &ir::Block,
        nest: Vec<ParLoop>,
        captures: &[Capture],
        c: Option<&ForClauses>,
        spans: &mut Vec<Span>,
        whole: Span,
    ) -> Option<Kernel> {
        let bound: Vec<&str> = nest.iter().map(|l| l.var.as_str()).collect();
        let (arrays, scalars) = outline::arguments(body, &bound);
        let mut errs = Vec::new();
        let mut ir_arrays = Vec::new();
        for a in &arrays {
            if let Some(p) = self.kernel_array(a, spans, &mut errs) {
                ir_arrays.push(p);
            }
        }
        let (ir_scalars, reduction) = self.kernel_scalars(&scalars, captures, c, spans, &mut errs);
        if !errs.is_empty() {
            self.errors.extend(errs);
            return None;
        }
        let (file, line, column) = location(whole);
        let (tile, chunk) = match c {
            Some(c) => (
                c.tile.as_ref().map(|(e, _)| clause_values(e, 0)),
                c.chunk.as_ref().map(|(e, _)| {
                    clause_values(e, c.tile.as_ref().map(|t| runtime_count(&t.0)).unwrap_or(0))
                }),
            ),
            None => (None, None),
        };
        let clause_span = match c.and_then(|c| c.tile.as_ref().or(c.chunk.as_ref())) {
            Some((_, sp)) => {
                spans.push(*sp);
                (spans.len() - 1) as u32
            }
            None => 0,
        };
        let mut k = Kernel {
            name: format!("{}_{}", self.fn_name, self.kernels),
            region: self.fn_name.clone(),
            origin: Origin { file, line, column },
            nest,
            body: body.clone(),
            arrays: ir_arrays,
            scalars: ir_scalars,
            reduction,
            clauses: ir::Clauses {
                tile,
                chunk,
                nowait: c.is_some_and(|c| c.nowait),
                span: clause_span,
            },
            options: c
                .map(|c| c.options.over(&self.options))
                .unwrap_or_else(|| Options::default().over(&self.options)),
        };
        self.kernels += 1;
        if let Some(c) = c {
            self.check_clause_literals(c);
        }
        if let Err(ds) = mint_translator::check(&mut k) {
            for d in ds {
                let sp = spans.get(d.span as usize).copied().unwrap_or(whole);
                self.err(sp, d.message);
            }
            return None;
        }
        // Translate now for the default device, so what cannot be translated is a compile
        // error; clause values given as expressions are checked at run time instead.
        let runtime_clauses = c.is_some_and(|c| !runtime_entries(c).is_empty());
        if !runtime_clauses
            && !k.types_at_launch()
            && self.errors.is_empty()
            && let Err(ds) = mint_translator::translate(&k, &Target::default())
        {
            for d in ds {
                let sp = spans.get(d.span as usize).copied().unwrap_or(whole);
                self.err(sp, d.message);
            }
            return None;
        }
        if !self.errors.is_empty() {
            return None;
        }
        // The first interior column of the x loop decides each array's row alignment.
        if let Some(x) = k.nest.last() {
            let lo =
                x.lo.as_ref()
                    .and_then(|e| e.as_int_lit())
                    .unwrap_or(0)
                    .max(0) as usize;
            for a in &k.arrays {
                if let Some(s) = self.slot(&a.name) {
                    self.align[s].get_or_insert(lo);
                }
            }
        }
        Some(k)
    }

    /// The kernel parameter of array `a`, or `None` with the errors pushed on `errs`: an
    /// array indexed with several index counts, a scalar indexed, an element type the
    /// region does not name (or a type parameter not bounded by `mint::Real`), a dimension
    /// count other than the declaration's, a write to an immutable array, an array never
    /// copied to the device, or a read of one `copy!(x, alloc)` left undefined.
    fn kernel_array(
        &mut self,
        a: &outline::ArrayUse,
        spans: &[Span],
        errs: &mut Vec<syn::Error>,
    ) -> Option<ir::ArrayParam> {
        let sp = spans[a.span as usize];
        let n = &a.name;
        if a.ndims.len() > 1 {
            errs.push(syn::Error::new(
                sp,
                format!("`{n}` is indexed with different numbers of indices in this kernel"),
            ));
            return None;
        }
        let (elem, ndim, writable, declared) = match self.env.get(n) {
            Some(HostTy::Array {
                elem,
                ndim,
                writable,
                ..
            }) => (*elem, *ndim, *writable, true),
            Some(HostTy::Scalar(t)) => {
                errs.push(syn::Error::new(
                    sp,
                    format!("`{n}` is a scalar ({t}) and cannot be indexed"),
                ));
                return None;
            }
            _ => (None, None, true, false),
        };
        // A field path, or a variable whose type the region does not spell out: the
        // runtime binds its element type at the first launch (rustc has checked the
        // CPU version of the same body, so the types agree).
        // So is an array of a type parameter `T: mint::Real`.
        let generic_elem = declared && elem.is_none() && !self.generics.is_empty();
        if declared && elem.is_none() && !self.other_generics.is_empty() && self.generics.is_empty()
        {
            let (g, gs) = self.other_generics[0].clone();
            errs.push(syn::Error::new(
                sp,
                format!("`{n}` holds elements of the type parameter `{g}`, which is not bounded by `mint::Real`: a region is generic over its precision as `fn f<{g}: mint::Real>(..)` (f32 or f64)"),
            ));
            errs.push(syn::Error::new(
                gs,
                format!("bound `{g}` by `mint::Real` here"),
            ));
            return None;
        }
        let elem_at_launch = !declared || generic_elem;
        let elem = if elem_at_launch {
            Some(ScalarTy::F64)
        } else {
            elem
        };
        let Some(elem) = elem else {
            errs.push(syn::Error::new(
                sp,
                format!(
                    "cannot tell the element type of array `{n}`; give it a concrete type where it is declared, e.g. `{n}: &mut Array3<f64>` in the signature or `let mut {n}: Array3<f32> = ..` (generic element types are not supported)"
                ),
            ));
            return None;
        };
        // Passed whole to device functions only: the number of dimensions is the
        // declaration's, or the device array's at launch.
        let andim = if a.ndim == 0 {
            ndim.map_or(0, usize::from)
        } else {
            a.ndim
        };
        if let Some(d) = ndim
            && a.ndim != 0
            && d as usize != a.ndim
        {
            errs.push(syn::Error::new(
                sp,
                format!(
                    "`{n}` has {d} dimension(s) but is indexed with {} index(es)",
                    a.ndim
                ),
            ));
            return None;
        }
        if a.written && !writable {
            errs.push(syn::Error::new(
                sp,
                format!("this kernel writes `{n}`, which is not mutable here; pass it as `&mut` or declare it `let mut {n}`"),
            ));
            return None;
        }
        if self.slot(n).is_none() {
            errs.push(syn::Error::new(
                sp,
                format!("array `{n}` is used in this kernel but never copied to the device; add `copy!({n}, to_device);` in the region before the loop"),
            ));
            return None;
        }
        if a.read && a.ndim != 0 && self.undefined.contains(n) {
            errs.push(syn::Error::new(
                sp,
                format!("this kernel reads `{n}`, which `copy!({n}, alloc)` left undefined and no kernel has written since; write it in an earlier kernel, or copy it with `copy!({n}, to_device)`"),
            ));
            return None;
        }
        if a.written {
            self.undefined.remove(n);
        }
        Some(ir::ArrayParam {
            name: n.clone(),
            elem,
            elem_at_launch,
            ndim: andim as u8,
            read: a.read,
            written: a.written,
            span: a.span,
        })
    }

    /// The kernel's scalar parameters (a capture's type is bound at launch) and its
    /// reduction, from the `reduction(op: var)` clause of `c`; an array used as a value or
    /// as the reduction variable is an error pushed on `errs`.
    fn kernel_scalars(
        &mut self,
        scalars: &[outline::ScalarUse],
        captures: &[Capture],
        c: Option<&ForClauses>,
        spans: &mut Vec<Span>,
        errs: &mut Vec<syn::Error>,
    ) -> (Vec<ir::ScalarParam>, Option<ir::Reduction>) {
        let mut ir_scalars = Vec::new();
        for s in scalars {
            let sp = spans[s.span as usize];
            let ty = if captures.iter().any(|c| c.name == s.name) {
                None
            } else {
                match self.env.get(&s.name) {
                    Some(HostTy::Scalar(t)) => Some(*t),
                    Some(HostTy::Array { .. }) => {
                        errs.push(syn::Error::new(
                            sp,
                            format!("array `{}` must be indexed in a kernel (`{}[[z, y, x]]`); whole arrays cannot be used as values", s.name, s.name),
                        ));
                        continue;
                    }
                    _ => None,
                }
            };
            ir_scalars.push(ir::ScalarParam {
                name: s.name.clone(),
                ty,
                span: s.span,
            });
        }
        let mut reduction = None;
        if let Some((op, var, sp)) = c.and_then(|c| c.reduction.clone()) {
            let n = var.to_string();
            let ty = match self.env.get(&n) {
                Some(HostTy::Array { .. }) => {
                    errs.push(syn::Error::new(
                        sp,
                        format!("the reduction variable `{n}` is an array; a reduction combines into a scalar variable (`let mut {n}_sum = 0.0;` and `reduction(+: {n}_sum)`)"),
                    ));
                    None
                }
                Some(HostTy::Scalar(t)) => Some(*t),
                _ => None,
            };
            if !ir_scalars.iter().any(|s| s.name == n) {
                let id = spans.len() as u32;
                spans.push(sp);
                ir_scalars.push(ir::ScalarParam {
                    name: n.clone(),
                    ty,
                    span: id,
                });
            }
            let id = spans.len() as u32;
            spans.push(sp);
            reduction = Some(ir::Reduction {
                op,
                var: n,
                ty,
                span: id,
            });
        }
        (ir_scalars, reduction)
    }

    /// Zero and non-dividing literal `tile`/`chunksize` entries, blamed on the entry.
    fn check_clause_literals(&mut self, c: &ForClauses) {
        let lit = |e: Option<&Entry>| match e {
            Some(Entry::Lit(v, s)) => Some((*v, *s)),
            Some(Entry::Expr(_)) => None,
            None => Some((1, Span::call_site())),
        };
        for (what, entries) in [("tile", &c.tile), ("chunksize", &c.chunk)] {
            if let Some((es, _)) = entries {
                for e in es {
                    if let Entry::Lit(0, s) = e {
                        self.err(*s, format!("`{what}` entries must be at least 1"));
                    }
                }
            }
        }
        if let (Some((t, _)), Some((ch, _))) = (&c.tile, &c.chunk) {
            for i in 0..3 {
                if let (Some((tv, _)), Some((cv, cs))) = (lit(t.get(i)), lit(ch.get(i)))
                    && cv != 0
                    && tv != 0
                    && tv % cv != 0
                {
                    self.err(
                            cs,
                            format!(
                                "chunksize {cv} does not divide tile {tv} along {}: a block has tile/chunksize threads per dimension; choose a chunksize that divides the tile",
                                ["x", "y", "z"][i]
                            ),
                        );
                }
            }
        }
    }

    /// The `static` kernel site.
    fn site(&self, k: &Kernel, spans: &[Span]) -> TokenStream {
        let json = serde_json::to_string(k).expect("IR serializes");
        let slots: Vec<usize> = k
            .arrays
            .iter()
            .map(|a| self.slot(&a.name).expect("checked"))
            .collect();
        let name = &k.name;
        let time_block = &self.time_block;
        let time_group = self.time_group.as_ref().map(|(g, next)| {
            let i = next.get();
            next.set(i + 1);
            quote!(.in_time_group(#g, #i))
        });
        let line = spans.first().map(|s| location(*s).1).unwrap_or(0);
        let calls = self.calls.iter().map(|(n, p)| {
            let dev = quote_spanned!(p.span()=> #p::__MINT_DEVICE_FN);
            quote!((#n, &#dev))
        });
        quote! {
            static __MINT_KERNEL: __mint_crate::__rt::KernelSite =
                __mint_crate::__rt::KernelSite::new(#name, ::core::module_path!(), ::core::file!(), #line, #json, &[#(#calls),*])
                    .in_region(&__MINT_REGION, &[#(#slots),*])
                    #time_block
                    #time_group;
            __mint_crate::__rt::inventory::submit! { __mint_crate::__rt::SiteRef(&__MINT_KERNEL) }
        }
    }

    /// Slots of the kernel's arrays; CPU views and shadows; element-type checks.
    fn array_code(
        &self,
        k: &Kernel,
    ) -> (
        Vec<TokenStream>,
        Vec<TokenStream>,
        Vec<TokenStream>,
        Vec<TokenStream>,
    ) {
        let mut slots = Vec::new();
        let mut views = Vec::new();
        let mut shadows = Vec::new();
        let mut checks = Vec::new();
        for (i, a) in k.arrays.iter().enumerate() {
            let slot = self.slot(&a.name).expect("checked");
            slots.push(quote!(#slot));
            let v = format_ident!("__mint_view_{}", i);
            let n = a.ndim as usize;
            let is_ref = matches!(
                self.env.get(&a.name),
                Some(HostTy::Array { is_ref: true, .. })
            );
            // The host array, and the name the CPU body uses for it: the user's variable,
            // or for a field path a local that `cpu_body` substitutes for the path.
            let (host, local) = match self.paths.get(&a.name) {
                Some(p) => (quote!(#p), path_local(i)),
                None => {
                    let id = self.ident(&a.name);
                    (quote!(#id), id)
                }
            };
            // The number of dimensions, where the macro knows it; otherwise the view's
            // type follows the host array's (`auto_view`).
            let (view, view_mut) = if n == 0 {
                (
                    quote!(__mint_crate::__rt::cpu::auto_view_on),
                    quote!(__mint_crate::__rt::cpu::auto_view_mut_on),
                )
            } else {
                (
                    quote!(__mint_crate::__rt::cpu::CpuDev::view::<#n, _>),
                    quote!(__mint_crate::__rt::cpu::CpuDev::view_mut::<#n, _>),
                )
            };
            if a.written {
                let borrow = if is_ref {
                    quote!(&mut *#host)
                } else {
                    quote!(&mut #host)
                };
                views.push(quote!(let #v = #view_mut(__mint_dev, #i, #borrow);));
                shadows.push(quote!(#[allow(unused_mut)] let mut #local = #v;));
            } else {
                views.push(quote!(let #v = #view(__mint_dev, #i, &#host);));
                shadows.push(quote!(let #local = #v;));
            }
            if !a.elem_at_launch {
                let t = ty_tokens(a.elem);
                checks.push(quote!(__mint_crate::__rt::assert_elem::<#t, _>(&#host);));
            }
        }
        (slots, views, shadows, checks)
    }

    /// The shadows of the kernel's arrays by their unchecked views (`__mint_fast_<i>`), as
    /// [`RegionGen::array_code`]'s by the checked ones, each addressed from the row of the
    /// enclosing loops `outer` that `body`'s subscripts follow ([`crate::rowbase`]).
    /// Returned in two halves: each view addressed from its row once (`__mint_row_<i>`,
    /// before a row's parts), and the shadows that rebind the arrays to those (in each
    /// unchecked part), so that a row of several parts computes its rows' addresses once.
    fn fast_shadows(
        &self,
        k: &Kernel,
        body: &syn::Block,
        outer: &[Ident],
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let names: Vec<String> = outer.iter().map(|v| v.to_string()).collect();
        k.arrays
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let f = format_ident!("__mint_fast_{}", i);
                let local = match self.paths.get(&a.name) {
                    Some(_) => path_local(i),
                    None => self.ident(&a.name),
                };
                let base = crate::rowbase::bases(body, &local.to_string(), a.ndim.into(), &names)
                    .into_iter()
                    .map(|v| match v {
                        Some(i) => {
                            let v = &outer[i];
                            quote!(#v as isize)
                        }
                        None => quote!(0isize),
                    });
                // an array whose number of dimensions the macro does not see (a field of a
                // type bound at launch) keeps the view addressed from its start
                let view = if a.ndim == 0 {
                    quote!(#f)
                } else {
                    quote!(#f.row([#(#base),*]))
                };
                let row = format_ident!("__mint_row_{}", i);
                let shadow = if a.written {
                    quote!(#[allow(unused_mut)] let mut #local = #row;)
                } else {
                    quote!(let #local = #row;)
                };
                (quote!(let #row = #view;), shadow)
            })
            .unzip()
    }

    /// `mint::__rt::scalar::<T>(x)` for each of the kernel's host scalars: rustc checks
    /// the inferred type.
    fn scalar_args(&self, k: &Kernel, captures: &[Capture], spans: &[Span]) -> Vec<TokenStream> {
        k.scalars
            .iter()
            .map(|s| {
                // A type left open (the kernel's types are bound at launch) is the host
                // value's own type, which rustc infers.
                let ty = match s.ty {
                    Some(t) => {
                        let t = ty_tokens(t);
                        quote!(::<#t>)
                    }
                    None => quote!(),
                };
                let sp = spans
                    .get(s.span as usize)
                    .copied()
                    .unwrap_or_else(Span::call_site);
                match captures.iter().find(|c| c.name == s.name) {
                    Some(c) => {
                        let e = &c.expr;
                        quote_spanned!(c.span=> __mint_crate::__rt::scalar #ty (#e))
                    }
                    None => {
                        let id = self
                            .idents
                            .get(&s.name)
                            .cloned()
                            .unwrap_or_else(|| Ident::new(&s.name, sp));
                        quote_spanned!(sp=> __mint_crate::__rt::scalar #ty (#id))
                    }
                }
            })
            .collect()
    }

    /// Copies into the closure each thread runs of what it reads through its captures:
    /// the kernel's scalars of a known type that are the function's variables (not a
    /// `const`, which a `let` would take for a pattern; not the reduction's variable; not
    /// those captured from an expression), the guard, the unchecked views and, for a kernel
    /// with rows (`rows`), the table of their parts. Read through
    /// the closure's references, the compiler cannot tell them from the arrays' elements,
    /// so it reloads them after each store and adds them to the vectorized rows' run-time
    /// overlap checks. Printed at the top of the per-index closure (for the baseline rows
    /// and kernels of one loop) and again in the wide rows' closure ([`wide_rows`]).
    fn by_value(&self, k: &Kernel, captures: &[Capture], rows: bool) -> TokenStream {
        let scalars = k
            .scalars
            .iter()
            .filter(|s| {
                s.ty.is_some()
                    && self.env.get(&s.name).is_some()
                    && k.reduction.as_ref().is_none_or(|r| r.var != s.name)
                    && !captures.iter().any(|c| c.name == s.name)
            })
            .map(|s| {
                self.idents
                    .get(&s.name)
                    .cloned()
                    .unwrap_or_else(|| Ident::new(&s.name, Span::call_site()))
            });
        let fasts = (0..k.arrays.len()).map(|i| format_ident!("__mint_fast_{}", i));
        let table =
            rows.then(|| quote!(#[allow(unused_variables)] let __mint_table = __mint_table;));
        quote! {
            #(#[allow(unused_variables)] let #scalars = #scalars;)*
            #(#[allow(unused_variables)] let #fasts = #fasts;)*
            #[allow(unused_variables)]
            let __mint_guard = __mint_guard;
            #table
        }
    }

    /// For a kernel whose types are bound at launch, the CPU backend records the types
    /// it ran with (`KernelSite::note_types`), so the kernel's CUDA can be shown without a
    /// GPU; nothing for other kernels.
    fn note_types(&self, k: &Kernel, scalars: &[TokenStream]) -> TokenStream {
        if !k.types_at_launch() {
            return quote!();
        }
        let elems = k.arrays.iter().map(|a| match self.paths.get(&a.name) {
            Some(p) => quote!(__mint_crate::__rt::elem_ndim(&#p)),
            None => {
                let id = self.ident(&a.name);
                quote!(__mint_crate::__rt::elem_ndim(&#id))
            }
        });
        quote!(__MINT_KERNEL.note_types(&[#(#elems),*], &[#(#scalars),*]);)
    }

    /// The loop body as the CPU backend runs it: each field path the kernel uses as an
    /// array replaced by the local that holds its CPU view.
    fn cpu_body(&self, k: &Kernel, body: &syn::Block) -> syn::Block {
        let mut map = std::collections::HashMap::new();
        for (i, a) in k.arrays.iter().enumerate() {
            if self.paths.contains_key(&a.name) {
                map.insert(a.name.clone(), path_local(i));
            }
        }
        let mut b = body.clone();
        if !map.is_empty() {
            syn::visit_mut::VisitMut::visit_block_mut(&mut PathsToLocals(map), &mut b);
        }
        b
    }
}

/// The loops inside the outermost parallel loop of a kernel's CPU version: with two or
/// three parallel loops, each row of the innermost runs in order as up to five parts:
/// checked (the `innermost` body on the checked views), the body as written on the
/// unchecked views (`as_written`, where lifting changed it: the part the guard's `rows`
/// bounds prove inside every array), the lifted body (`fast_body`, the part its `lifted`
/// bounds prove), the body as written, checked. The parts of each kind of row are the
/// local `__mint_table` (`cpu::Guard::row_table`, once per launch), and the row's kind
/// is `__mint_guard.row_kind` of its outer indices. The checked parts and the rows at an
/// outer face run in a closure of their own (`cpu::apart`). With one parallel
/// loop, the checked body. The inner ranges are the locals `__mint_range_1`,
/// `__mint_range_2`; `fast_shadows` bind the arrays to their unchecked views.
fn cpu_rows(
    vars: &[Ident],
    innermost: TokenStream,
    (fast_rows, fast_shadows): (&[TokenStream], &[TokenStream]),
    (fast_body, by_value): (&syn::Block, &TokenStream),
    as_written: Option<&syn::Block>,
    chunked: bool,
) -> TokenStream {
    let depth = vars.len();
    if depth == 1 {
        // one parallel loop: its points inside the span the reaches prove
        // (`cpu::Guard::span`) run the body as written on unchecked views, the others
        // checked (a ghost-cell mirror of four copies took 340 instructions a point)
        let v0 = &vars[0];
        let body = as_written.unwrap_or(fast_body);
        return quote! {
            if __mint_span_0.0 <= #v0 as i64 && (#v0 as i64) < __mint_span_0.1 {
                #(#fast_rows)*
                #(#fast_shadows)*
                #body
            } else {
                #[allow(clippy::single_element_loop)]
                for #v0 in ::core::iter::once(#v0) { #innermost }
            }
        };
    }
    let last = &vars[depth - 1];
    let rl = format_ident!("__mint_range_{}", depth - 1);
    let outer: Vec<&Ident> = vars[..depth - 1].iter().collect();
    let clip = quote!(__mint_crate::__rt::cpu::ClipRange);
    let part = quote!(#clip::clip(#rl.clone(), __mint_a, __mint_b));
    // the parts that run rarely, compiled apart from the row's vectorized middle: inlined,
    // their addresses would be computed (and spilled) for every row. The closure borrows
    // copies of the locals the middle uses (borrowed, the middle's would live in memory and
    // its row would not vectorize), and copies them again into its own locals (for its
    // own rows to vectorize)
    let rows = (0..fast_rows.len()).map(|i| format_ident!("__mint_row_{}", i));
    let copies = quote! {
        #by_value
        #(#[allow(unused_variables)] let #outer = #outer;)*
        #(#[allow(unused_variables)] let #rows = #rows;)*
        #[allow(unused_variables)]
        let (__mint_a, __mint_b) = (__mint_a, __mint_b);
        #[allow(unused_variables)]
        let #rl = #rl.clone();
    };
    let cold = |body: TokenStream| {
        quote!({
            #copies
            __mint_crate::__rt::cpu::apart(#[inline(never)] || { #copies #body })
        })
    };
    // the same for the rows at an outer face, which read the unchecked views: the
    // closure borrows its own copies of them
    let cold_fast = |body: TokenStream| cold(quote!(#(#fast_shadows)* #body));
    let checked = cold(quote!(for #last in #part #innermost));
    // a row whose faces (`x == 0`, `x == nx - 1`, ...) all lie outside its unchecked span
    // runs the body specialized away from them
    let outer_names: Vec<String> = outer.iter().map(|v| v.to_string()).collect();
    let fast_row = match crate::faces::row_faces(fast_body, &last.to_string(), &outer_names) {
        None => quote!(for #last in #part #fast_body),
        // a row at a face runs the body as written, where there is one: inside the span of
        // the lifted body it reads inside the arrays too
        Some((faces, away)) => {
            let other = cold_fast(at_outer_face(
                last,
                &part,
                as_written.unwrap_or(fast_body),
                &outer_names,
            ));
            quote! {
                if #(#faces)&&* {
                    for #last in #part #away
                } else {
                    #other
                }
            }
        }
    };
    let written_arm = match as_written {
        Some(b) => quote!(1 => { #(#fast_shadows)* for #last in #part #b }),
        None => quote!(),
    };
    // the row's parts in order (the table's, `row_table`, computed once per launch), each
    // body printed once (a body printed twice can cost a long stencil its vectorization:
    // the radius-4 star in f64 ran at 0.54x)
    let row = quote! {
        let __mint_parts = &__mint_table[__mint_guard.row_kind(&[#(#outer as i64),*])];
        #(#fast_rows)*
        for &(__mint_part, (__mint_a, __mint_b)) in __mint_parts.as_slice() {
            match __mint_part {
                0 => #checked,
                #written_arm
                _ => {
                    #[allow(unused_variables)]
                    let __mint_span = (__mint_a, __mint_b);
                    #(#fast_shadows)*
                    #fast_row
                }
            }
        }
    };
    if depth == 2 {
        // rows handed out in chunks (`CpuDev::par_rows`): the row's index through
        // `black_box`, as the 3-D kernels' below
        return match chunked {
            true => {
                let v0 = &vars[0];
                quote!(for #v0 in __mint_rows.clone() {
                    let #v0 = ::core::hint::black_box(#v0);
                    #row
                })
            }
            false => row,
        };
    }
    // the row's index through `black_box`: known across rows, it let LLVM keep every
    // part's addresses as induction variables from row to row, spilled to the stack
    let (v1, r1) = (&vars[1], format_ident!("__mint_range_1"));
    quote!(for #v1 in #r1.clone() { let #v1 = ::core::hint::black_box(#v1); #row })
}

/// The loop of the innermost index `last` over `part` (the points `__mint_a..__mint_b`)
/// with the body `b`, where a row at an outer face (a clamped stencil's first plane) runs
/// it. Where the innermost index has faces (`x == 0`, `x == nx - 1`), the points between
/// them run the body with those selects decided ([`crate::faces::x_faces`]), which
/// vectorizes (the outer faces' selects are the same along the row), and the points at
/// them the body as written. Each body is printed once.
fn at_outer_face(
    last: &Ident,
    part: &TokenStream,
    b: &syn::Block,
    outer: &[String],
) -> TokenStream {
    let Some((values, between)) = crate::faces::x_faces(b, &last.to_string(), outer) else {
        return quote!(for #last in #part #b);
    };
    quote! {
        let __mint_faces = [#(#values),*];
        let __mint_on = |__mint_x: i64| __mint_faces.contains(&__mint_x);
        // the part's points, less the faces at its ends
        let (mut __mint_c, mut __mint_d) = (__mint_a, __mint_b);
        while __mint_c < __mint_d && __mint_on(__mint_c) {
            __mint_c += 1;
        }
        while __mint_c < __mint_d && __mint_on(__mint_d - 1) {
            __mint_d -= 1;
        }
        if __mint_faces.iter().any(|&f| __mint_c <= f && f < __mint_d) {
            (__mint_c, __mint_d) = (__mint_b, __mint_b);
        }
        let (__mint_outer_a, __mint_outer_b) = (__mint_a, __mint_b);
        for (__mint_between, (__mint_a, __mint_b)) in [
            (false, (__mint_outer_a, __mint_c)),
            (true, (__mint_c, __mint_d)),
            (false, (__mint_d, __mint_outer_b)),
        ] {
            if __mint_a >= __mint_b {
                continue;
            }
            if __mint_between {
                for #last in #part #between
            } else {
                for #last in #part #b
            }
        }
    }
}

/// The rows of one outer index, chosen per plane by `cpu::run_wide`: compiled for
/// AVX-512 and for AVX2 (which of the two runs, each kernel times on its first planes),
/// and, printed again, for the target's baseline where the CPU has neither. The closure is
/// `#[inline(always)]`: inlined into each of `run_wide`'s two target-feature functions
/// only, it is compiled twice, with their target features (left a call, it would be
/// compiled for the baseline, and the wide copies would be the baseline's). One parallel
/// loop has no row to vectorize and runs `inner` once. `elem_bytes`: the first array's
/// element size, which keys the choice. `by_value` ([`RegionGen::by_value`]) starts the
/// closure: the target-feature functions are not inlined into their caller, so what the
/// closure reads through its captures would otherwise reach the rows through a pointer.
fn wide_rows(
    depth: usize,
    elem_bytes: TokenStream,
    by_value: &TokenStream,
    inner: TokenStream,
) -> TokenStream {
    if depth < 2 {
        return inner;
    }
    quote! {
        if __mint_crate::__rt::cpu::run_wide(&__MINT_KERNEL, #elem_bytes, #[inline(always)] || { #by_value #inner }).is_none() {
            #inner
        }
    }
}

/// The body with `__mint_dev.statement();` before each statement after the first that
/// uses no local an earlier statement binds or assigns: under owner-computes such a
/// statement starts unpoisoned (see `mint_runtime::decomp`), while one that uses an
/// earlier statement's value inherits its state. Names are compared as tokens, which can
/// only make a statement look dependent, never independent.
fn statement_marks(b: &syn::Block) -> syn::Block {
    struct Bound(HashSet<String>);
    impl<'ast> Visit<'ast> for Bound {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            self.target(&e.left);
            syn::visit::visit_expr_assign(self, e);
        }
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            use syn::BinOp::*;
            if matches!(
                e.op,
                AddAssign(_)
                    | SubAssign(_)
                    | MulAssign(_)
                    | DivAssign(_)
                    | RemAssign(_)
                    | BitXorAssign(_)
                    | BitAndAssign(_)
                    | BitOrAssign(_)
                    | ShlAssign(_)
                    | ShrAssign(_)
            ) {
                self.target(&e.left);
            }
            syn::visit::visit_expr_binary(self, e);
        }
    }
    impl Bound {
        fn target(&mut self, e: &Expr) {
            if let Expr::Path(p) = e
                && let Some(i) = p.path.get_ident()
            {
                self.0.insert(i.to_string());
            }
        }
    }
    fn uses(ts: TokenStream, names: &HashSet<String>) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => uses(g.stream(), names),
            _ => false,
        })
    }
    let mut bound = Bound(HashSet::new());
    let mut stmts = Vec::with_capacity(b.stmts.len() * 2);
    for (i, st) in b.stmts.iter().enumerate() {
        if i > 0 && !uses(st.to_token_stream(), &bound.0) {
            stmts.push(parse_quote!(if __mint_owner {
                __mint_dev.statement();
            }));
        }
        bound.visit_stmt(st);
        stmts.push(st.clone());
    }
    syn::Block {
        brace_token: b.brace_token,
        stmts,
    }
}

/// The local holding the CPU view of the kernel's `i`th array when it is a field path.
fn path_local(i: usize) -> Ident {
    format_ident!("__mint_array_{}", i)
}

/// Replaces field paths (`self.u`) by locals.
struct PathsToLocals(std::collections::HashMap<String, Ident>);

impl syn::visit_mut::VisitMut for PathsToLocals {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Field(_) = e
            && let Some(id) = field_path(e).and_then(|p| self.0.get(&p))
        {
            *e = parse_quote!(#id);
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

fn expr_attrs(e: &mut Expr) -> Option<&mut Vec<syn::Attribute>> {
    match e {
        Expr::ForLoop(f) => Some(&mut f.attrs),
        Expr::Block(b) => Some(&mut b.attrs),
        Expr::While(w) => Some(&mut w.attrs),
        Expr::Loop(l) => Some(&mut l.attrs),
        Expr::If(i) => Some(&mut i.attrs),
        Expr::Unsafe(u) => Some(&mut u.attrs),
        Expr::Call(c) => Some(&mut c.attrs),
        Expr::MethodCall(c) => Some(&mut c.attrs),
        Expr::Assign(a) => Some(&mut a.attrs),
        _ => None,
    }
}

/// The variable or field path an argument names: `a`, `&mut a`, `&mut *a`, `(a)`,
/// `&mut self.u`, `&mut w.vel.u1`.
fn place_ident(e: &Expr) -> Option<(String, Span)> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| (i.to_string(), i.span())),
        Expr::Field(_) => field_path(e).map(|n| (n, e.span())),
        Expr::Reference(r) => place_ident(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_ident(&u.expr),
        Expr::Paren(p) => place_ident(&p.expr),
        _ => None,
    }
}

fn runtime_count(es: &[Entry]) -> usize {
    es.iter().filter(|e| matches!(e, Entry::Expr(_))).count()
}

/// Clause entries as IR values; expressions number from `first`.
fn clause_values(es: &[Entry], first: usize) -> [ClauseValue; 3] {
    let mut out = [ClauseValue::Const(1); 3];
    let mut k = first;
    for (i, e) in es.iter().enumerate() {
        out[i] = match e {
            Entry::Lit(v, _) => ClauseValue::Const(*v),
            Entry::Expr(_) => {
                k += 1;
                ClauseValue::Runtime((k - 1) as u16)
            }
        };
    }
    out
}

/// The clause entries given as expressions, in the order `clause_values` numbers them.
fn runtime_entries(c: &ForClauses) -> Vec<&Expr> {
    let mut v = Vec::new();
    for (es, _) in [&c.tile, &c.chunk].into_iter().flatten() {
        for e in es {
            if let Entry::Expr(x) = e {
                v.push(x);
            }
        }
    }
    v
}

fn ty_tokens(t: ScalarTy) -> TokenStream {
    let i = format_ident!("{}", t.rust_name());
    quote!(#i)
}

fn red_op_tokens(op: RedOp) -> TokenStream {
    let v = format_ident!("{}", format!("{op:?}"));
    quote!(__mint_crate::__rt::RedOp::#v)
}

/// Expands `#[mint::parallel(options)]` on `item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match clauses::region_options(attr) {
        Ok(o) => o,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut f: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return unparsable(item, e),
    };
    if let Some(a) = &f.sig.asyncness {
        return syn::Error::new(a.span(), "a Mint region cannot be an `async fn`")
            .to_compile_error();
    }
    let returns_result = match &f.sig.output {
        syn::ReturnType::Type(_, t) => match &**t {
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Result"),
            _ => false,
        },
        syn::ReturnType::Default => false,
    };
    let mut env = Env::new();
    for arg in &f.sig.inputs {
        if let syn::FnArg::Typed(pt) = arg {
            env.bind_pat(&pt.pat, Some(&pt.ty), None);
        }
    }
    let (generics, other_generics) = real_generics(&f.sig.generics);
    let stream = options.stream.map(|(slabs, sp)| {
        let (errs, outputs) = crate::stream::check(&f.block.stmts, sp);
        (slabs, outputs, errs)
    });
    let mut names = CopyNames(Vec::new());
    names.visit_block(&f.block);
    let n = names.0.len();
    let mut g = RegionGen {
        fn_name: f.sig.ident.to_string(),
        options,
        returns_result,
        env,
        slots: names.0,
        align: vec![None; n],
        copied: HashSet::new(),
        kernels: 0,
        errors: Vec::new(),
        idents: Default::default(),
        paths: Default::default(),
        calls: Vec::new(),
        generics,
        other_generics,
        swaps: Vec::new(),
        undefined: HashSet::new(),
        time_block: quote!(),
        time_group: None,
        time_groups: 0,
    };
    let stream = stream.map(|(slabs, outputs, errs)| {
        g.errors.extend(errs);
        quote!(::core::option::Option::Some(__mint_crate::__rt::StreamSpec { slabs: #slabs, outputs: #outputs }))
    });
    let stream = stream.unwrap_or_else(|| quote!(::core::option::Option::None));
    let body = g.stmts(std::mem::take(&mut f.block.stmts));
    // A `copy!` or `barrier!` left inside an expression (a closure, a call) was not a
    // statement of the region.
    struct Leftover(Vec<Span>);
    impl<'ast> Visit<'ast> for Leftover {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if macro_name(m).is_some() {
                self.0.push(m.span());
            }
        }
    }
    let mut left = Leftover(Vec::new());
    for s in &body {
        left.visit_stmt(s);
    }
    for sp in left.0 {
        g.err(sp, "`copy!` and `barrier!` must be statements of the region (not inside a closure or an expression)");
    }
    if !g.errors.is_empty() {
        let errs = g.errors.iter().map(syn::Error::to_compile_error);
        let sig = &f.sig;
        let attrs = &f.attrs;
        let vis = &f.vis;
        return quote! {
            #(#errs)*
            #(#attrs)*
            #[allow(unused_variables, unreachable_code, clippy::all)]
            #vis #sig { ::core::unimplemented!("this Mint region did not compile") }
        };
    }
    let (_, line, _) = location(f.sig.ident.span());
    let fname = f.sig.ident.to_string();
    let arrays = g.slots.iter().zip(&g.align).map(|(n, a)| {
        let a = a.unwrap_or(0);
        quote!(__mint_crate::__rt::ArrayInfo { name: #n, align_x: #a })
    });
    let swaps = g.swaps.iter().map(|(a, b)| quote!((#a, #b)));
    let enter = g.try_(quote!(__mint_crate::__rt::Region::enter(&__MINT_REGION)));
    let krate = crate::krate();
    let prelude: Vec<Stmt> = vec![
        parse_quote! {
            #[allow(unused_imports)]
            use #krate as __mint_crate;
        },
        parse_quote! {
            static __MINT_REGION: __mint_crate::__rt::RegionInfo = __mint_crate::__rt::RegionInfo {
                name: #fname,
                file: ::core::file!(),
                line: #line,
                arrays: &[#(#arrays),*],
                swaps: &[#(#swaps),*],
                stream: #stream,
            };
        },
        parse_quote! {
            #[allow(unused_mut, unused_variables)]
            let mut __mint_region = #enter;
        },
    ];
    f.block.stmts = prelude.into_iter().chain(body).collect();
    f.into_token_stream()
}

/// A function whose signature parses but whose body does not.
struct FnShell {
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    sig: syn::Signature,
}

impl syn::parse::Parse for FnShell {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<FnShell> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let _body: proc_macro2::Group = input.parse()?;
        Ok(FnShell { attrs, vis, sig })
    }
}

/// The item did not parse: report why (with the fix for `#[mint::for]`) and keep the
/// function's signature so callers still type-check.
fn unparsable(item: TokenStream, e: syn::Error) -> TokenStream {
    fn find_for(ts: TokenStream) -> Option<Span> {
        let toks: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
        for (i, t) in toks.iter().enumerate() {
            if let proc_macro2::TokenTree::Group(g) = t
                && let Some(s) = find_for(g.stream())
            {
                return Some(s);
            }
            if let (
                proc_macro2::TokenTree::Ident(m),
                Some(proc_macro2::TokenTree::Punct(_)),
                Some(proc_macro2::TokenTree::Punct(_)),
                Some(proc_macro2::TokenTree::Ident(f)),
            ) = (t, toks.get(i + 1), toks.get(i + 2), toks.get(i + 3))
                && m == "mint"
                && f == "for"
            {
                return Some(f.span());
            }
        }
        None
    }
    let err = match find_for(item.clone()) {
        Some(sp) => syn::Error::new(
            sp,
            "`for` is a Rust keyword, so the loop directive is spelled `#[mint::r#for(..)]`",
        ),
        None => e,
    };
    let errs = err.to_compile_error();
    match syn::parse2::<FnShell>(item.clone()) {
        Ok(FnShell { attrs, vis, sig }) => quote! {
            #errs
            #(#attrs)*
            #[allow(unused_variables, unreachable_code, clippy::all)]
            #vis #sig { ::core::unimplemented!("this Mint region did not compile") }
        },
        Err(_) => {
            let mut out = syn::Error::new(
                Span::call_site(),
                "`#[mint::parallel]` goes on a function: its body is the accelerated region",
            )
            .to_compile_error();
            out.extend(item);
            out
        }
    }
}

/// The loop a `#[mint::time_loop]` becomes: the body once per iteration, which runs the
/// steps `end` returns, between `begin` and `end`.
fn time_while(
    range: &Expr,
    begin: &TokenStream,
    body: &[Stmt],
    end: &TokenStream,
    tuner: &TokenStream,
) -> Stmt {
    parse_quote! {
        {
            #tuner
            let __mint_tl_range = #range;
            let mut __mint_tl_left: usize = ::core::iter::ExactSizeIterator::len(&__mint_tl_range);
            while __mint_tl_left > 0 {
                #begin;
                #(#body)*
                __mint_tl_left -= #end;
            }
        }
    }
}
