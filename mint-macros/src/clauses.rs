//! Parsing the directives' arguments: the optimizer options of `#[mint::parallel(..)]`
//! and the clauses of `#[mint::r#for(..)]` (thesis Table 3.3 and Table 3.2).

use mint_translator::ir::{OptOptions, RedOp};
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// One option as written, with the span to blame.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub register: Option<bool>,
    pub shared: Option<u8>,
    pub prefer_l1: Option<bool>,
    pub unroll: Option<bool>,
    pub same_index: Option<bool>,
    pub vectorize: Option<bool>,
    pub tune: Option<bool>,
    pub pipeline: Option<bool>,
    pub swizzle: Option<bool>,
    pub roll_z: Option<bool>,
    /// `stream` / `stream = N` (region only): stream the region's arrays through the
    /// device in slabs; `Some(0)` lets the runtime's model choose the slab count.
    pub stream: Option<(u32, Span)>,
}

impl Options {
    /// This kernel's options over the region's defaults.
    pub fn over(&self, region: &Options) -> OptOptions {
        OptOptions {
            register: self.register.or(region.register).unwrap_or(false),
            shared: self.shared.or(region.shared).unwrap_or(0),
            prefer_l1: self.prefer_l1.or(region.prefer_l1).unwrap_or(false),
            unroll: self.unroll.or(region.unroll).unwrap_or(false),
            same_index: self.same_index.or(region.same_index).unwrap_or(false),
            vectorize: self.vectorize.or(region.vectorize).unwrap_or(false),
            tune: self.tune.or(region.tune).unwrap_or(false),
            pipeline: self.pipeline.or(region.pipeline).unwrap_or(false),
            swizzle: self.swizzle.or(region.swizzle).unwrap_or(false),
            roll_z: self.roll_z.or(region.roll_z).unwrap_or(false),
            // set by the runtime on a blocked time loop's fused launches only
            time_block: 0,
            time_input: 0,
            time_carried: Default::default(),
        }
    }
}

const OPTION_HELP: &str = "the options are `register`, `shared`, `shared = N` (N in 1..=8, 0 turns it off), `prefer_l1`, `unroll`, `same_index`, `vectorize`, `pipeline`, `swizzle`, `roll_z` and `tune` (each also as `name = false`), and on `#[mint::parallel]` `stream` or `stream = N`";

/// A `name`, `name = value` or `name(args)` item.
struct Item {
    name: Ident,
    value: Option<Expr>,
    args: Option<(TokenStream, Span)>,
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Item> {
        let name: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        let mut value = None;
        let mut args = None;
        if input.peek(syn::token::Paren) {
            let content;
            let p = syn::parenthesized!(content in input);
            args = Some((content.parse::<TokenStream>()?, p.span.join()));
        } else if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            value = Some(input.parse()?);
        }
        Ok(Item { name, value, args })
    }
}

fn parse_items(tokens: TokenStream) -> syn::Result<Vec<Item>> {
    let p = Punctuated::<Item, Token![,]>::parse_terminated;
    Ok(syn::parse::Parser::parse2(p, tokens)?.into_iter().collect())
}

fn bool_value(it: &Item) -> syn::Result<bool> {
    match &it.value {
        None => Ok(true),
        Some(Expr::Lit(l)) => match &l.lit {
            syn::Lit::Bool(b) => Ok(b.value),
            _ => Err(syn::Error::new(
                l.span(),
                format!("`{}` takes `true` or `false`", it.name),
            )),
        },
        Some(e) => Err(syn::Error::new(
            e.span(),
            format!("`{}` takes `true` or `false`", it.name),
        )),
    }
}

/// Applies an optimizer option; `Ok(false)` if `it` is not one.
fn option(opts: &mut Options, it: &Item) -> syn::Result<bool> {
    let n = it.name.to_string();
    match n.as_str() {
        "register" => opts.register = Some(bool_value(it)?),
        "prefer_l1" | "preferL1" => opts.prefer_l1 = Some(bool_value(it)?),
        "unroll" => opts.unroll = Some(bool_value(it)?),
        "same_index" | "useSameIndex" => opts.same_index = Some(bool_value(it)?),
        "vectorize" => opts.vectorize = Some(bool_value(it)?),
        "tune" | "autotune" => opts.tune = Some(bool_value(it)?),
        "pipeline" => opts.pipeline = Some(bool_value(it)?),
        "swizzle" => opts.swizzle = Some(bool_value(it)?),
        "roll_z" => opts.roll_z = Some(bool_value(it)?),
        "stream" => {
            let n = match &it.value {
                None => 0,
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                })) => match i.base10_parse::<u32>() {
                    Ok(v) if v >= 1 => v,
                    _ => {
                        return Err(syn::Error::new(
                            i.span(),
                            "`stream = N` takes the number of slabs, an integer literal of at least 1; write `stream` to let the runtime choose",
                        ));
                    }
                },
                Some(e) => {
                    return Err(syn::Error::new(
                        e.span(),
                        "`stream = N` takes an integer literal (the number of slabs); write `stream` to let the runtime choose",
                    ));
                }
            };
            opts.stream = Some((n, it.name.span()));
        }
        "shared" => {
            opts.shared = Some(match &it.value {
                None => 8,
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                })) => {
                    let v: u8 = i.base10_parse().unwrap_or(255);
                    if v > 8 {
                        return Err(syn::Error::new(
                            i.span(),
                            "`shared = N` takes 1..=8 shared-memory planes (slots), or 0 to turn the shared-memory optimizer off",
                        ));
                    }
                    v
                }
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                })) => {
                    if b.value {
                        8
                    } else {
                        0
                    }
                }
                Some(e) => {
                    return Err(syn::Error::new(
                        e.span(),
                        "`shared = N` takes an integer literal 0..=8",
                    ));
                }
            })
        }
        _ => return Ok(false),
    }
    if it.args.is_some() {
        return Err(syn::Error::new(
            it.name.span(),
            format!("`{n}` takes no parentheses; write `{n}` or `{n} = value`"),
        ));
    }
    Ok(true)
}

/// Parses `#[mint::parallel(..)]`'s arguments.
pub fn region_options(tokens: TokenStream) -> syn::Result<Options> {
    let mut o = Options::default();
    for it in parse_items(tokens)? {
        if !option(&mut o, &it)? {
            return Err(syn::Error::new(
                it.name.span(),
                format!(
                    "unknown option `{}` for `#[mint::parallel]`; {OPTION_HELP}",
                    it.name
                ),
            ));
        }
    }
    Ok(o)
}

/// `nest(n)` or `nest(all)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nest {
    Depth(usize),
    All,
}

/// A `tile`/`chunksize` entry.
#[derive(Clone, Debug)]
pub enum Entry {
    Lit(u32, Span),
    Expr(Expr),
}

/// The clauses of one `#[mint::r#for(..)]`.
#[derive(Clone, Debug)]
pub struct ForClauses {
    pub span: Span,
    pub nest: Nest,
    pub nest_span: Span,
    pub tile: Option<(Vec<Entry>, Span)>,
    pub chunk: Option<(Vec<Entry>, Span)>,
    pub reduction: Option<(RedOp, Ident, Span)>,
    pub nowait: bool,
    pub options: Options,
}

fn entries(tokens: TokenStream, what: &str, span: Span) -> syn::Result<Vec<Entry>> {
    let es = syn::parse::Parser::parse2(Punctuated::<Expr, Token![,]>::parse_terminated, tokens)?;
    if es.is_empty() || es.len() > 3 {
        return Err(syn::Error::new(
            span,
            format!("`{what}` takes 1 to 3 values (x, y, z), found {}", es.len()),
        ));
    }
    es.into_iter()
        .map(|e| match &e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i
                .base10_parse::<u32>()
                .map(|v| Entry::Lit(v, i.span()))
                .map_err(|_| syn::Error::new(i.span(), format!("`{what}` values must fit in u32"))),
            _ => Ok(Entry::Expr(e)),
        })
        .collect()
}

fn reduction(tokens: TokenStream, span: Span) -> syn::Result<(RedOp, Ident, Span)> {
    let toks: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let help = "write `reduction(op: var)` with op one of `+`, `*`, `min`, `max`";
    let colon = toks
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ':'))
        .ok_or_else(|| syn::Error::new(span, help))?;
    let op_toks = &toks[..colon];
    let op = match op_toks {
        [TokenTree::Punct(p)] if p.as_char() == '+' => RedOp::Add,
        [TokenTree::Punct(p)] if p.as_char() == '*' => RedOp::Mul,
        [TokenTree::Ident(i)] if i == "min" => RedOp::Min,
        [TokenTree::Ident(i)] if i == "max" => RedOp::Max,
        [t, ..] => {
            return Err(syn::Error::new(
                t.span(),
                format!(
                    "unsupported reduction operator `{}`; {help}",
                    TokenStream::from_iter(op_toks.iter().cloned())
                ),
            ));
        }
        [] => return Err(syn::Error::new(span, help)),
    };
    let rest: TokenStream = toks[colon + 1..].iter().cloned().collect();
    let var: Ident = syn::parse2(rest.clone()).map_err(|_| {
        syn::Error::new(
            if rest.is_empty() { span } else { rest.span() },
            format!("the reduction variable must be a plain variable name; {help}"),
        )
    })?;
    Ok((op, var.clone(), var.span()))
}

/// Parses `#[mint::r#for(..)]`'s clauses.
pub fn for_clauses(tokens: TokenStream, span: Span) -> syn::Result<ForClauses> {
    let mut c = ForClauses {
        span,
        nest: Nest::Depth(1),
        nest_span: span,
        tile: None,
        chunk: None,
        reduction: None,
        nowait: false,
        options: Options::default(),
    };
    for it in parse_items(tokens)? {
        let n = it.name.to_string();
        let need_args = |it: &Item| {
            it.args.clone().ok_or_else(|| {
                syn::Error::new(it.name.span(), format!("`{n}` takes arguments: `{n}(..)`"))
            })
        };
        match n.as_str() {
            "nest" => {
                let (a, sp) = need_args(&it)?;
                let s = a.to_string();
                c.nest_span = sp;
                c.nest = if s.trim() == "all" {
                    Nest::All
                } else {
                    match s.trim().parse::<usize>() {
                        Ok(d) if (1..=3).contains(&d) => Nest::Depth(d),
                        Ok(d) => {
                            return Err(syn::Error::new(
                                sp,
                                format!(
                                    "nest({d}): Mint parallelizes 1 to 3 loops (x, y, z); use nest(1), nest(2), nest(3) or nest(all)"
                                ),
                            ));
                        }
                        Err(_) => {
                            return Err(syn::Error::new(
                                sp,
                                "write `nest(n)` with n in 1..=3, or `nest(all)`",
                            ));
                        }
                    }
                };
            }
            "tile" => {
                let (a, sp) = need_args(&it)?;
                c.tile = Some((entries(a, "tile", sp)?, sp));
            }
            "chunksize" => {
                let (a, sp) = need_args(&it)?;
                c.chunk = Some((entries(a, "chunksize", sp)?, sp));
            }
            "reduction" => {
                let (a, sp) = need_args(&it)?;
                c.reduction = Some(reduction(a, sp)?);
            }
            "nowait" => {
                if it.args.is_some() || it.value.is_some() {
                    return Err(syn::Error::new(
                        it.name.span(),
                        "`nowait` takes no arguments",
                    ));
                }
                c.nowait = true;
            }
            _ => {
                if !option(&mut c.options, &it)? {
                    let hint = match n.as_str() {
                        "chunk" | "chunk_size" | "chunks" => " (did you mean `chunksize`?)",
                        "tiles" | "tiling" => " (did you mean `tile`?)",
                        "nests" | "collapse" => " (did you mean `nest`?)",
                        "reduce" => " (did you mean `reduction`?)",
                        "no_wait" => " (did you mean `nowait`?)",
                        _ => "",
                    };
                    return Err(syn::Error::new(
                        it.name.span(),
                        format!(
                            "unknown clause `{n}`{hint}; `#[mint::r#for]` takes nest(n|all), tile(x, y, z), chunksize(x, y, z), reduction(op: var), nowait, and the options: {OPTION_HELP}"
                        ),
                    ));
                }
                if let Some((_, sp)) = c.options.stream {
                    return Err(syn::Error::new(
                        sp,
                        "`stream` is an option of the region: put it on `#[mint::parallel(stream)]`, which streams all of the region's kernels",
                    ));
                }
            }
        }
    }
    Ok(c)
}
