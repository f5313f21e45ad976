//! The macro never panics (issue #14, item 4): mutated versions of every
//! `#[mint::parallel]` region and `#[mint::device]` function in the project's tests and
//! examples go through the expansion functions as a library (`proc_macro2`, no rustc per
//! case). Each outcome must be expanded code or a `compile_error!`, never a panic.
//!
//! Mutations, one to three per case, on the attribute's arguments (one case in five) or on
//! the item, at a random depth of its token tree: delete, swap or duplicate tokens; delete
//! or duplicate a comma-separated clause; put in odd literals (huge, negative, empty,
//! suffixed, string, char); replace identifiers with keywords and Mint's clause names; wrap
//! a token in up to 200 nested groups; make a tile huge. `MINT_MUTATIONS` sets the count
//! (default 2,000 in `cargo test`; `.ci/run` runs 20,000, issue #14's count per CI run) and
//! `MINT_MUTATION_SEED` the first seed.

use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::ToTokens;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The generator's SplitMix64, seeded per case so that a failing case can be rerun alone.
struct Rng(mint_testing::generate::Rng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

/// Which macro a corpus entry goes through.
#[derive(Clone, Copy, Debug)]
enum Macro {
    Parallel,
    Device,
}

/// One valid input: the attribute's arguments and the item without that attribute.
#[derive(Clone)]
struct Entry {
    origin: String,
    mac: Macro,
    attr: TokenStream,
    item: TokenStream,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        // the compile-fail cases are invalid on purpose
        if p.ends_with("ui") || p.ends_with("target") {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn which(attrs: &[syn::Attribute]) -> Option<(usize, Macro, TokenStream)> {
    attrs.iter().enumerate().find_map(|(i, a)| {
        let last = a.path().segments.last()?.ident.to_string();
        let mac = match last.as_str() {
            "parallel" => Macro::Parallel,
            "device" => Macro::Device,
            _ => return None,
        };
        let args = match &a.meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => TokenStream::new(),
        };
        Some((i, mac, args))
    })
}

fn collect_items(items: &[syn::Item], origin: &str, out: &mut Vec<Entry>) {
    for it in items {
        match it {
            syn::Item::Fn(f) => {
                if let Some((i, mac, attr)) = which(&f.attrs) {
                    let mut f = f.clone();
                    f.attrs.remove(i);
                    out.push(Entry {
                        origin: format!("{origin}: fn {}", f.sig.ident),
                        mac,
                        attr,
                        item: f.into_token_stream(),
                    });
                }
            }
            syn::Item::Impl(im) => {
                for ii in &im.items {
                    if let syn::ImplItem::Fn(f) = ii
                        && let Some((i, mac, attr)) = which(&f.attrs)
                    {
                        let mut f = f.clone();
                        f.attrs.remove(i);
                        out.push(Entry {
                            origin: format!("{origin}: method {}", f.sig.ident),
                            mac,
                            attr,
                            item: f.into_token_stream(),
                        });
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_items(items, origin, out);
                }
            }
            _ => {}
        }
    }
}

/// Every region and device function written out in the project's tests and examples.
fn corpus() -> Vec<Entry> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for d in ["tests", "examples", "benches"] {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        let origin = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
        collect_items(&file.items, &origin, &mut out);
    }
    out
}

fn expand(mac: Macro, attr: TokenStream, item: TokenStream) -> TokenStream {
    match mac {
        Macro::Parallel => crate::region::expand(attr, item),
        Macro::Device => crate::device::expand(attr, item),
    }
}

/// The groups of a token stream, as paths of indices from the root (the root is `[]`).
fn group_paths(ts: &TokenStream, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    out.push(path.clone());
    for (i, t) in ts.clone().into_iter().enumerate() {
        if let TokenTree::Group(g) = t {
            path.push(i);
            group_paths(&g.stream(), path, out);
            path.pop();
        }
    }
}

/// Applies `f` to the stream of the group at `path`.
fn at_path(
    ts: TokenStream,
    path: &[usize],
    f: &mut dyn FnMut(Vec<TokenTree>) -> Vec<TokenTree>,
) -> TokenStream {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let Some((&first, rest)) = path.split_first() else {
        return f(toks).into_iter().collect();
    };
    toks.into_iter()
        .enumerate()
        .map(|(i, t)| match t {
            TokenTree::Group(g) if i == first => {
                let mut ng = Group::new(g.delimiter(), at_path(g.stream(), rest, f));
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            t => t,
        })
        .collect()
}

const ODD_LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "4294967296",
    "18446744073709551615",
    "340282366920938463463374607431768211455",
    "1e308",
    "1e-320",
    "0.0",
    "1_000_000_000",
    "0x7fff_ffff",
    "3usize",
    "7i8",
    "2.5f32",
    "9u128",
    "\"\"",
    "\"x\"",
    "'c'",
    "b'x'",
    "true",
];

const IDENTS: &[&str] = &[
    "self",
    "Self",
    "mut",
    "for",
    "in",
    "if",
    "else",
    "let",
    "loop",
    "while",
    "return",
    "fn",
    "nest",
    "all",
    "tile",
    "chunksize",
    "reduction",
    "nowait",
    "shared",
    "register",
    "unroll",
    "vectorize",
    "pipeline",
    "swizzle",
    "roll_z",
    "prefer_l1",
    "same_index",
    "copy",
    "to_device",
    "from_device",
    "mint",
    "r#for",
    "single",
    "x",
    "y",
    "z",
    "u",
    "f32",
    "f64",
    "usize",
    "i32",
    "T",
    "Array3",
    "max",
    "min",
];

fn odd_token(rng: &mut Rng) -> TokenTree {
    let s = ODD_LITERALS[rng.below(ODD_LITERALS.len())];
    s.parse::<TokenStream>()
        .ok()
        .and_then(|ts| ts.into_iter().last())
        .unwrap_or_else(|| TokenTree::Literal(Literal::u8_unsuffixed(0)))
}

fn ident_token(rng: &mut Rng) -> TokenTree {
    let s = IDENTS[rng.below(IDENTS.len())];
    match s.strip_prefix("r#") {
        Some(raw) => TokenTree::Ident(Ident::new_raw(raw, Span::call_site())),
        None => TokenTree::Ident(Ident::new(s, Span::call_site())),
    }
}

/// Top-level comma-separated runs of `toks`, as index ranges.
fn clauses(toks: &[TokenTree]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if matches!(t, TokenTree::Punct(p) if p.as_char() == ',' ) {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < toks.len() {
        out.push((start, toks.len()));
    }
    out
}

/// One mutation of `toks` (the stream of one group).
fn mutate_stream(mut toks: Vec<TokenTree>, rng: &mut Rng) -> Vec<TokenTree> {
    let n = toks.len();
    match rng.below(10) {
        0 if n > 0 => {
            toks.remove(rng.below(n));
        }
        1 if n > 1 => {
            let i = rng.below(n - 1);
            toks.swap(i, i + 1);
        }
        2 if n > 0 => {
            let i = rng.below(n);
            let t = toks[i].clone();
            toks.insert(i, t);
        }
        3 => {
            // an odd literal in place of a literal if there is one, else anywhere
            let lits: Vec<usize> = (0..n)
                .filter(|&i| matches!(toks[i], TokenTree::Literal(_)))
                .collect();
            let t = odd_token(rng);
            if lits.is_empty() {
                toks.insert(rng.below(n + 1), t);
            } else {
                toks[lits[rng.below(lits.len())]] = t;
            }
        }
        4 => {
            let ids: Vec<usize> = (0..n)
                .filter(|&i| matches!(toks[i], TokenTree::Ident(_)))
                .collect();
            let t = ident_token(rng);
            if ids.is_empty() {
                toks.insert(rng.below(n + 1), t);
            } else {
                toks[ids[rng.below(ids.len())]] = t;
            }
        }
        5 | 6 => {
            let cl = clauses(&toks);
            if !cl.is_empty() {
                let (a, b) = cl[rng.below(cl.len())];
                if rng.below(2) == 0 {
                    toks.drain(a..b);
                } else {
                    let dup: Vec<TokenTree> = toks[a..b].to_vec();
                    let at = cl[rng.below(cl.len())].1;
                    toks.splice(at..at, dup);
                }
            }
        }
        7 if n > 0 => {
            // deep nesting around one token
            let i = rng.below(n);
            let depth = 1 + rng.below(200);
            let delim =
                [Delimiter::Parenthesis, Delimiter::Bracket, Delimiter::Brace][rng.below(3)];
            let mut t = toks[i].clone();
            for _ in 0..depth {
                t = TokenTree::Group(Group::new(delim, t.into()));
            }
            toks[i] = t;
        }
        8 => {
            // a huge tile or chunk: every integer literal of this group becomes large
            let big = ["1048576", "4294967295", "65536", "0"][rng.below(4)];
            for t in toks.iter_mut() {
                if let TokenTree::Literal(l) = t
                    && l.to_string().chars().all(|c| c.is_ascii_digit())
                {
                    *t = TokenTree::Literal(big.parse().expect("integer literal"));
                }
            }
        }
        _ => {
            // a token from elsewhere in the stream, inserted at random
            if n > 0 {
                let t = toks[rng.below(n)].clone();
                toks.insert(rng.below(n + 1), t);
            }
        }
    }
    toks
}

fn mutate(ts: TokenStream, rng: &mut Rng) -> TokenStream {
    let mut paths = Vec::new();
    group_paths(&ts, &mut Vec::new(), &mut paths);
    let p = paths[rng.below(paths.len())].clone();
    at_path(ts, &p, &mut |toks| mutate_stream(toks, rng))
}

/// The mutated attribute and item of case `seed`.
fn case(corpus: &[Entry], seed: u64) -> (Entry, TokenStream, TokenStream) {
    let mut rng = Rng(mint_testing::generate::Rng(seed));
    let e = corpus[rng.below(corpus.len())].clone();
    let (mut attr, mut item) = (e.attr.clone(), e.item.clone());
    for _ in 0..1 + rng.below(3) {
        if rng.below(5) == 0 {
            attr = mutate(attr, &mut rng);
        } else {
            item = mutate(item, &mut rng);
        }
    }
    (e, attr, item)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn the_corpus_expands_without_errors() {
    let corpus = corpus();
    assert!(corpus.len() >= 40, "only {} regions found", corpus.len());
    for e in &corpus {
        let out = expand(e.mac, e.attr.clone(), e.item.clone()).to_string();
        assert!(!out.contains("compile_error"), "{}: {out}", e.origin);
    }
}

#[test]
fn mutated_regions_expand_or_give_a_compile_error_and_never_panic() {
    let n = env_u64("MINT_MUTATIONS", 2_000);
    let first = env_u64("MINT_MUTATION_SEED", 1);
    // deep nesting recurses in syn: give the expansion the stack rustc gives macros
    let failures = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let corpus = corpus();
            let (mut errors, mut expanded) = (0u64, 0u64);
            let mut failures = Vec::new();
            for seed in first..first + n {
                let (e, attr, item) = case(&corpus, seed);
                match catch_unwind(AssertUnwindSafe(|| expand(e.mac, attr.clone(), item.clone()))) {
                    Ok(out) => {
                        let s = out.to_string();
                        assert!(!s.is_empty(), "seed {seed}: empty expansion");
                        if s.contains("compile_error") {
                            errors += 1;
                        } else {
                            expanded += 1;
                        }
                    }
                    Err(p) => {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.push(format!(
                            "seed {seed} ({}): panicked: {msg}\n  attr: {attr}\n  item: {item}",
                            e.origin
                        ));
                    }
                }
            }
            eprintln!(
                "{n} mutations of {} regions: {errors} compile errors, {expanded} expansions, {} panics",
                corpus.len(),
                failures.len()
            );
            failures
        })
        .expect("thread")
        .join()
        .expect("fuzz thread");
    assert!(
        failures.is_empty(),
        "{} of {n} mutated regions panicked (rerun one with MINT_MUTATION_SEED=s MINT_MUTATIONS=1):\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Seeds 5705 and 18559: a tile of 1048576 × 1048576 overflowed the thread count's `u32`
/// product in `baseline::config::resolve` (a panic in the macro), and seed 18211's three
/// entries of 2^32 - 1 a `u64` one; now a compile error.
#[test]
fn a_huge_tile_is_a_compile_error() {
    let item: TokenStream = quote::quote! {
        fn f(a: &mut Array2<f32>) {
            let (ny, nx) = a.dim();
            copy!(a, to_device);
            #[mint::r#for(nest(all), tile(1048576, 1048576))]
            for y in 0..ny {
                for x in 0..nx {
                    a[[y, x]] = 1.0;
                }
            }
            #[mint::r#for(nest(all), tile(4294967295, 4294967295, 4294967295))]
            for z in 0..1 {
                for y in 0..ny {
                    for x in 0..nx {
                        a[[y, x]] = 2.0;
                    }
                }
            }
            copy!(a, from_device);
        }
    };
    let out = crate::region::expand(TokenStream::new(), item).to_string();
    assert!(
        out.contains("compile_error") && out.contains("threads per block"),
        "{out}"
    );
}
