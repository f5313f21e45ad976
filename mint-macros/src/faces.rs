//! The CPU backend's counterpart of the translator's faces pass
//! (`mint_translator::optimizer::faces`): in the body that the CPU runs on its unchecked
//! rows (`mint_runtime::cpu::Guard`), an array read whose subscript selects between stencil
//! points becomes a select of reads whose subscripts are the loop index plus a constant.
//!
//! `t_in[[b, y, x]]` with `let b = if z == 0 { z } else { z - 1 };` becomes
//! `(if z == 0 { t_in[[z, y, x]] } else { t_in[[z - 1, y, x]] })`: both arms are rows of
//! consecutive elements, so the compiler vectorizes the row, where a subscript computed
//! per point would make every load a gather. The rewrite is exact for integer subscripts
//! (the same cases as the translator's pass) and copies the user's own expressions, so the
//! body computes what it did.

use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, parse_quote};

/// The most cases one read is split into.
const MAX_CASES: usize = 8;

/// `body` with the reads of `arrays` whose subscripts along the innermost parallel loop
/// (`vars`' last) have several cases split into them; the other subscripts stay as written
/// (their value is the same along the row, so the compiler computes it once per row). An
/// arm whose subscripts of the innermost index are that index plus a constant (or a
/// constant) is read before the select, unconditionally, since the unchecked rows are
/// those whose every such read is inside the array (the lifted part of a row,
/// `Guard::row_table`); the select is then between values, which the compiler turns into
/// a blend of vectors.
pub(crate) fn lift(body: &syn::Block, arrays: &HashSet<String>, vars: &[String]) -> syn::Block {
    let mut counts = Bindings::default();
    counts.visit_block(body);
    // a body that binds a loop index again (`let x = x - 1;`) is left as written: the
    // lifting reads an index's name as the loop's own
    if counts.binds_any(vars.iter().map(String::as_str)) {
        return body.clone();
    }
    let mut l = Lifter {
        arrays,
        vars,
        bindings: counts.0,
        scopes: vec![HashMap::new()],
    };
    let mut b = body.clone();
    l.visit_block_mut(&mut b);
    b
}

/// How often the body binds each name (`let`, a `for` pattern, an assignment counted
/// twice), and whether a `for` does.
#[derive(Default)]
struct Bindings(HashMap<String, (usize, bool)>);

impl Bindings {
    /// Whether the body binds any of `names` (a loop index bound again: `let x = x - 1;`).
    fn binds_any<'n>(&self, mut names: impl Iterator<Item = &'n str>) -> bool {
        names.any(|n| self.0.contains_key(n))
    }
}

impl<'ast> Visit<'ast> for Bindings {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let mut names = Vec::new();
        pat_names(&l.pat, &mut names);
        for (n, _) in names {
            self.0.entry(n).or_default().0 += 1;
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        let mut names = Vec::new();
        pat_names(&f.pat, &mut names);
        for (n, _) in names {
            let b = self.0.entry(n).or_default();
            b.0 += 1;
            b.1 = true;
        }
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(n) = ident_of(&a.left) {
            self.0.entry(n).or_default().0 += 2;
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_compound(&b.op)
            && let Some(n) = ident_of(&b.left)
        {
            self.0.entry(n).or_default().0 += 2;
        }
        syn::visit::visit_expr_binary(self, b);
    }
}

/// The names a pattern binds, with their spans (`a`, `(a, b)`, `a: T`, `&a`).
pub(crate) fn pat_names(p: &syn::Pat, out: &mut Vec<(String, proc_macro2::Span)>) {
    match p {
        syn::Pat::Ident(i) => out.push((i.ident.to_string(), i.ident.span())),
        syn::Pat::Type(t) => pat_names(&t.pat, out),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_names(e, out)),
        syn::Pat::Reference(r) => pat_names(&r.pat, out),
        _ => {}
    }
}

fn ident_of(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
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
    )
}

struct Lifter<'a> {
    arrays: &'a HashSet<String>,
    vars: &'a [String],
    bindings: HashMap<String, (usize, bool)>,
    /// The inlinable index locals in scope: their definitions, parenthesized.
    scopes: Vec<HashMap<String, Expr>>,
}

/// A case of a subscript: the conditions under which it takes the value.
type Case = (Vec<Expr>, Expr);

impl Lifter<'_> {
    fn local(&self, n: &str) -> Option<&Expr> {
        self.scopes.iter().rev().find_map(|s| s.get(n))
    }

    /// Whether `n`'s value cannot change where a definition using it is substituted.
    fn stable(&self, n: &str) -> bool {
        match self.bindings.get(n) {
            None => true,
            Some(&(1, true)) => true,
            Some(&(1, false)) => self.local(n).is_some(),
            _ => false,
        }
    }

    /// Whether `e` is an integer index expression of stable names only.
    fn indexy(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.stable(&i.to_string())),
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
            Expr::Paren(p) => self.indexy(&p.expr),
            Expr::Group(g) => self.indexy(&g.expr),
            Expr::Cast(c) => self.indexy(&c.expr),
            Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && self.indexy(&u.expr),
            Expr::Binary(b) => !is_compound(&b.op) && self.indexy(&b.left) && self.indexy(&b.right),
            Expr::If(i) => {
                self.indexy(&i.cond)
                    && single(&i.then_branch).is_some_and(|t| self.indexy(t))
                    && i.else_branch.as_ref().is_some_and(|(_, e)| self.indexy(e))
            }
            Expr::Block(b) => single(&b.block).is_some_and(|t| self.indexy(t)),
            Expr::MethodCall(m) => {
                ["min", "max", "saturating_sub", "clamp"].contains(&m.method.to_string().as_str())
                    && m.turbofish.is_none()
                    && self.indexy(&m.receiver)
                    && m.args.iter().all(|a| self.indexy(a))
            }
            _ => false,
        }
    }

    /// `e` with the inlinable locals in scope replaced by their definitions.
    fn substitute(&self, e: &Expr) -> Expr {
        struct Sub<'b>(&'b Lifter<'b>);
        impl VisitMut for Sub<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Expr::Path(p) = e
                    && let Some(i) = p.path.get_ident()
                    && let Some(d) = self.0.local(&i.to_string())
                {
                    *e = d.clone();
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut e = e.clone();
        Sub(self).visit_expr_mut(&mut e);
        e
    }

    /// The select over the cases of `array[[index]]`, when it has more than one.
    fn split(&self, ix: &syn::ExprIndex) -> Option<Expr> {
        let name = ident_of(&ix.expr)?;
        if !self.arrays.contains(&name) {
            return None;
        }
        let subs: Vec<Expr> = match &*ix.index {
            Expr::Array(a) => a.elems.iter().cloned().collect(),
            other => vec![other.clone()],
        };
        if !subs.iter().all(|s| self.indexy(s)) {
            return None;
        }
        let mut combos: Vec<(Vec<Expr>, Vec<Expr>)> = vec![(Vec::new(), Vec::new())];
        // per subscript: whether it follows the innermost loop (then split into its cases)
        let mut along = Vec::with_capacity(subs.len());
        for s in &subs {
            let sub = self.substitute(s);
            along.push(self.along_row(&sub));
            let cases = if self.along_row(&sub) {
                cases(&sub)?
            } else {
                vec![(Vec::new(), s.clone())]
            };
            let mut next = Vec::new();
            for (conds, idx) in &combos {
                for (c, v) in &cases {
                    let mut conds = conds.clone();
                    conds.extend(c.iter().cloned());
                    let mut idx = idx.clone();
                    idx.push(v.clone());
                    next.push((conds, idx));
                }
            }
            if next.len() > MAX_CASES {
                return None;
            }
            combos = next;
        }
        if combos.len() < 2 {
            return None;
        }
        let array = &ix.expr;
        let single = !matches!(&*ix.index, Expr::Array(_));
        let read = |idx: Vec<Expr>| -> Expr {
            if single {
                let i = &idx[0];
                parse_quote!(#array[#i])
            } else {
                parse_quote!(#array[[#(#idx),*]])
            }
        };
        // the arms the guard proves inside, read first; the others in their branch
        let mut lets: Vec<syn::Stmt> = Vec::new();
        let mut arm = |i: usize, idx: Vec<Expr>| -> Expr {
            // a case of a subscript along the row is read unconditionally only where it is
            // the loop index plus a constant (the guard bounds those); `mx - 1` of a
            // `min` is read in its branch
            if idx.iter().zip(&along).all(|(x, &a)| !a || self.textbook(x)) {
                let v = quote::format_ident!("__mint_arm_{}", i);
                let r = read(idx);
                lets.push(parse_quote!(let #v = #r;));
                parse_quote!(#v)
            } else {
                read(idx)
            }
        };
        let n = combos.len();
        let mut arms: Vec<(Vec<Expr>, Expr)> = combos
            .into_iter()
            .enumerate()
            .map(|(i, (c, idx))| (c, arm(i, idx)))
            .collect();
        let (_, last) = arms.pop().expect("two cases");
        let mut out = last;
        for (conds, then) in arms.into_iter().rev() {
            let c = conds
                .into_iter()
                .reduce(|a, b| parse_quote!((#a) && (#b)))
                .unwrap_or_else(|| parse_quote!(true));
            out = parse_quote!(if #c { #then } else { #out });
        }
        debug_assert!(lets.len() <= n);
        Some(parse_quote!({ #(#lets)* #out }))
    }

    /// Whether `e` names the innermost parallel index (after substitution of locals).
    fn along_row(&self, e: &Expr) -> bool {
        fn names(ts: proc_macro2::TokenStream, x: &str) -> bool {
            ts.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == x,
                proc_macro2::TokenTree::Group(g) => names(g.stream(), x),
                _ => false,
            })
        }
        self.vars
            .last()
            .is_some_and(|x| names(quote::ToTokens::to_token_stream(e), x))
    }

    /// Whether `e` is a parallel loop's index plus or minus an integer literal, or a
    /// literal: a subscript whose every value the reach analysis bounds.
    fn textbook(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.textbook(&p.expr),
            Expr::Group(g) => self.textbook(&g.expr),
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.vars.contains(&i.to_string())),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_)) => {
                self.textbook(&b.left) && matches!(strip(&b.right), Expr::Lit(_))
            }
            _ => false,
        }
    }
}

/// The single expression of a block `{ e }`.
fn single(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

/// The cases of an integer subscript, in order: each case's conditions hold only where
/// no earlier case's all do; the last holds wherever the others do not. As in the
/// translator's `faces::cases`.
fn cases(e: &Expr) -> Option<Vec<Case>> {
    let one = |v: Expr| vec![(Vec::new(), v)];
    let out: Vec<Case> = match e {
        Expr::Paren(p) => return cases(&p.expr),
        Expr::Group(g) => return cases(&g.expr),
        Expr::Block(b) => return cases(single(&b.block)?),
        Expr::If(i) => {
            let cond = &*i.cond;
            let then = single(&i.then_branch)?;
            let els = &*i.else_branch.as_ref()?.1;
            let mut out = guarded(cases(then)?, parse_quote!(#cond));
            out.extend(guarded(cases(els)?, parse_quote!(!(#cond))));
            out
        }
        Expr::MethodCall(m) => {
            let r = &*m.receiver;
            let args: Vec<&Expr> = m.args.iter().collect();
            match (m.method.to_string().as_str(), args.as_slice()) {
                (f @ ("min" | "max"), [b]) => {
                    let first: Expr = if f == "min" {
                        parse_quote!((#r) <= (#b))
                    } else {
                        parse_quote!((#r) >= (#b))
                    };
                    let mut out = guarded(cases(r)?, first.clone());
                    out.extend(guarded(cases(b)?, parse_quote!(!(#first))));
                    out
                }
                ("clamp", [lo, hi]) => {
                    let max: Expr = parse_quote!((#r).max(#lo));
                    return cases(&parse_quote!((#max).min(#hi)));
                }
                ("saturating_sub", [b]) => {
                    let ge: Expr = parse_quote!((#r) >= (#b));
                    let mut out = guarded(cases(&parse_quote!((#r) - (#b)))?, ge.clone());
                    out.push((vec![parse_quote!(!(#ge))], e.clone()));
                    out
                }
                _ => one(e.clone()),
            }
        }
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Rem(_)) => {
            let (l, r) = (&*b.left, &*b.right);
            if !matches!(r, Expr::Path(_) | Expr::Lit(_)) {
                return Some(one(e.clone()));
            }
            let below: Expr = parse_quote!((#l) < (#r));
            let twice: Expr = parse_quote!((#l) < (#r) + (#r));
            let mut out = guarded(cases(l)?, below.clone());
            out.push((
                vec![parse_quote!(!(#below)), twice.clone()],
                parse_quote!((#l) - (#r)),
            ));
            out.push((
                vec![parse_quote!(!(#below)), parse_quote!(!(#twice))],
                e.clone(),
            ));
            out
        }
        Expr::Binary(b)
            if matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)
            ) =>
        {
            let (a, c) = (cases(&b.left)?, cases(&b.right)?);
            if a.len() == 1 && c.len() == 1 {
                return Some(one(e.clone()));
            }
            let op = &b.op;
            let mut out = Vec::new();
            for (ca, va) in &a {
                for (cc, vc) in &c {
                    let mut conds = ca.clone();
                    conds.extend(cc.iter().cloned());
                    out.push((conds, parse_quote!((#va) #op (#vc))));
                }
            }
            out
        }
        Expr::Cast(c) => {
            let ty = &c.ty;
            cases(&c.expr)?
                .into_iter()
                .map(|(cs, v)| (cs, parse_quote!((#v) as #ty)))
                .collect()
        }
        _ => one(e.clone()),
    };
    (out.len() <= MAX_CASES).then_some(out)
}

fn guarded(cases: Vec<Case>, cond: Expr) -> Vec<Case> {
    cases
        .into_iter()
        .map(|(mut c, v)| {
            c.insert(0, cond.clone());
            (c, v)
        })
        .collect()
}

impl VisitMut for Lifter<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(HashMap::new());
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
            if let syn::Stmt::Local(l) = s
                && let Some(name) = self.inlinable(l)
            {
                let init = &l.init.as_ref().expect("checked").expr;
                let def = self.substitute(init);
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name, parse_quote!((#def)));
                // its reads may all have been split: the local may be left unused here
                l.attrs.push(parse_quote!(#[allow(unused_variables)]));
            }
        }
        self.scopes.pop();
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.expr(e);
    }
}

impl Lifter<'_> {
    /// The name of a `let` whose value can be substituted into subscripts.
    fn inlinable(&self, l: &syn::Local) -> Option<String> {
        if let syn::Pat::Ident(p) = strip_type(&l.pat)
            && p.by_ref.is_none()
            && p.subpat.is_none()
            && let Some(init) = &l.init
            && init.diverge.is_none()
            && self.bindings.get(&p.ident.to_string()) == Some(&(1, false))
            && self.indexy(&init.expr)
        {
            return Some(p.ident.to_string());
        }
        None
    }
}

impl Lifter<'_> {
    /// The reads of `e` split ([`VisitMut::visit_expr_mut`]).
    fn expr(&mut self, e: &mut Expr) {
        match e {
            // the place written stays as it is; its subscripts and the value are reads
            Expr::Assign(a) => {
                self.visit_place(&mut a.left);
                self.visit_expr_mut(&mut a.right);
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                self.visit_place(&mut b.left);
                self.visit_expr_mut(&mut b.right);
            }
            Expr::Index(ix) => {
                syn::visit_mut::visit_expr_index_mut(self, ix);
                if let Some(sel) = self.split(ix) {
                    *e = sel;
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

impl Lifter<'_> {
    fn visit_place(&mut self, e: &mut Expr) {
        if let Expr::Index(ix) = e {
            self.visit_expr_mut(&mut ix.index);
        } else {
            self.visit_expr_mut(e);
        }
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn strip_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => &t.pat,
        other => other,
    }
}

/// Row specialization of the fast rows: the conditions `v == e` and `v != e` (either way
/// round) of `body`, `v` a parallel loop index and `e` invariant along the row (integer
/// literals and names the body does not bind, with `+`, `-`, `*`, casts and fields), are
/// the row's faces. Returns, per face, an expression true when the row is away from it
/// (for the innermost index `x`: `e` outside the row's span `__mint_span`; for an outer
/// index: `v != e`), and `body` with those conditions replaced by their value away from
/// the faces (`==` false, `!=` true); `None` when the body has no such condition. A row
/// away from all its faces runs the specialized body: a face test on every point is what
/// kept the compiler from vectorizing a clamped stencil's row.
pub(crate) fn row_faces(
    body: &syn::Block,
    x: &str,
    outer: &[String],
) -> Option<(Vec<Expr>, syn::Block)> {
    let (s, b) = specialize(body, x, outer, false);
    (!s.faces.is_empty()).then_some((s.faces, b))
}

/// As [`row_faces`], for the innermost index `x` only: the values `e` (as `i64`
/// expressions) of its faces `x == e`, and `body` with those conditions replaced by their
/// value at any other `x`; the conditions on outer indices stay, and being the same along
/// the row they no longer keep the compiler from vectorizing it. `None` when `x` has no
/// face. A row at an outer face (a clamped stencil's first plane) runs the specialized
/// body between its `x` faces.
pub(crate) fn x_faces(
    body: &syn::Block,
    x: &str,
    outer: &[String],
) -> Option<(Vec<Expr>, syn::Block)> {
    let (s, b) = specialize(body, x, outer, true);
    (!s.values.is_empty()).then_some((s.values, b))
}

/// `body` with its face conditions replaced (those on `x` only, where `only_x`), and
/// what was found.
fn specialize<'a>(
    body: &syn::Block,
    x: &'a str,
    outer: &'a [String],
    only_x: bool,
) -> (Found, syn::Block) {
    let mut bound = Bindings::default();
    bound.visit_block(body);
    // nothing is specialized in a body that binds a loop index again (`let x = x - 1;`):
    // a face test names the new value there, not the loop's index
    if bound.binds_any(std::iter::once(x).chain(outer.iter().map(String::as_str))) {
        return (Found::default(), body.clone());
    }
    let mut s = RowFaces {
        x,
        outer,
        bound: &bound.0,
        only_x,
        found: Found::default(),
        keys: HashSet::new(),
    };
    let mut b = body.clone();
    s.visit_block_mut(&mut b);
    (s.found, b)
}

/// The faces [`specialize`] found: the tests that a row is away from each, and the values
/// of the innermost index's.
#[derive(Default)]
struct Found {
    faces: Vec<Expr>,
    values: Vec<Expr>,
}

struct RowFaces<'a> {
    x: &'a str,
    outer: &'a [String],
    bound: &'a HashMap<String, (usize, bool)>,
    /// Replace only the conditions on `x`.
    only_x: bool,
    found: Found,
    keys: HashSet<String>,
}

impl RowFaces<'_> {
    /// `e` as an `i64` expression when it is invariant along the row.
    fn invariant(&self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_)) => Some(parse_quote!((#l as i64))),
            Expr::Path(p) => {
                let i = p.path.get_ident()?.to_string();
                (i != self.x && !self.bound.contains_key(&i)).then(|| parse_quote!((#p as i64)))
            }
            Expr::Field(f) => {
                let mut base = &*f.base;
                while let Expr::Field(g) = base {
                    base = &g.base;
                }
                let i = ident_of(base)?;
                (i != self.x && !self.bound.contains_key(&i)).then(|| parse_quote!((#f as i64)))
            }
            Expr::Paren(p) => self.invariant(&p.expr),
            Expr::Group(g) => self.invariant(&g.expr),
            Expr::Cast(c) => self.invariant(&c.expr),
            Expr::Binary(b) => {
                let (l, r) = (self.invariant(&b.left)?, self.invariant(&b.right)?);
                match b.op {
                    syn::BinOp::Add(_) => Some(parse_quote!((#l + #r))),
                    syn::BinOp::Sub(_) => Some(parse_quote!((#l - #r))),
                    syn::BinOp::Mul(_) => Some(parse_quote!((#l * #r))),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The loop index `e` is, if any: the innermost (`Some(None)`) or an outer one.
    fn index(&self, e: &Expr) -> Option<Option<syn::Ident>> {
        let Expr::Path(p) = strip(e) else { return None };
        let i = p.path.get_ident()?;
        let n = i.to_string();
        if n == self.x {
            Some(None)
        } else if self.outer.contains(&n) && !self.bound.contains_key(&n) {
            Some(Some(i.clone()))
        } else {
            None
        }
    }

    /// The test that a row is away from the face `v == e`.
    fn away(&self, v: Option<syn::Ident>, e: Expr) -> Expr {
        match v {
            None => parse_quote!((#e < __mint_span.0 || #e >= __mint_span.1)),
            Some(v) => parse_quote!(((#v as i64) != #e)),
        }
    }
}

impl VisitMut for RowFaces<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Binary(b) = e
            && matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_))
        {
            let face = match (self.index(&b.left), self.index(&b.right)) {
                (Some(v), _) => self.invariant(&b.right).map(|e| (v, e)),
                (None, Some(v)) => self.invariant(&b.left).map(|e| (v, e)),
                (None, None) => None,
            };
            if let Some((v, face)) = face
                && (v.is_none() || !self.only_x)
            {
                if v.is_none() {
                    let key = quote::ToTokens::to_token_stream(&face).to_string();
                    if self.keys.insert(format!("value {key}")) {
                        self.found.values.push(face.clone());
                    }
                }
                let test = self.away(v, face);
                let key = quote::ToTokens::to_token_stream(&test).to_string();
                if self.keys.insert(key) {
                    self.found.faces.push(test);
                }
                let away = matches!(b.op, syn::BinOp::Ne(_));
                *e = parse_quote!(#away);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
