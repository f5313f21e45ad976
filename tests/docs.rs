//! The user guide (`docs/`, an mdBook) and the README against the code: every relative
//! link resolves, the book names every `MINT_*` variable the library reads, every variant
//! of `mint::Error` and every option and clause the macros accept, every chapter is in
//! the book's summary, every chapter with Rust code is compiled by `cargo test --doc`
//! (`src/guide.rs`), and the README stays a front door of at most 300 lines.
//!
//! The lists are parsed from the sources when the test runs, so a new variable, variant
//! or option that the book does not mention fails here. Each parser is also tested on a
//! small input, so that a parser that finds nothing cannot pass by accident.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn book_chapters() -> Vec<PathBuf> {
    files(&root().join("docs/src"), ".md")
}

// ------------------------------------------------------------------------- markdown

/// The markdown with fenced code blocks and inline code spans blanked out (so that
/// `a[[z, y, x]]` and the like are not taken for links), and the code apart.
fn split_code(md: &str) -> (String, String) {
    let mut prose = String::new();
    let mut code = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            prose.push('\n');
            continue;
        }
        if fenced {
            code.push_str(line);
            code.push('\n');
            prose.push('\n');
            continue;
        }
        let mut in_span = false;
        for c in line.chars() {
            if c == '`' {
                in_span = !in_span;
                prose.push_str(if in_span { "`code" } else { "`" });
                code.push(' ');
            } else if in_span {
                code.push(c);
            } else {
                prose.push(c);
            }
        }
        prose.push('\n');
        code.push('\n');
    }
    (prose, code)
}

/// The targets of the markdown links and images of `md` (`[text](target)`,
/// `![alt](target)`, `<img src="target">`, mdBook's `{{#include target}}`), outside code.
fn link_targets(md: &str) -> Vec<String> {
    let (prose, _) = split_code(md);
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        if !target.is_empty() {
            out.push(target.to_string());
        }
    }
    for (open, close) in [("src=\"", "\""), ("{{#include ", "}}")] {
        let mut rest = prose.as_str();
        while let Some(i) = rest.find(open) {
            rest = &rest[i + open.len()..];
            let end = rest.find(close).unwrap_or(rest.len());
            out.push(rest[..end].trim().to_string());
        }
    }
    out
}

/// The anchors mdBook (and GitHub) give the headings of `md`.
fn anchors(md: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let text = line.trim_start_matches('#').trim();
        let id: String = text
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_ascii_lowercase())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        out.insert(id);
    }
    out
}

/// The relative links of the markdown file `file` that do not resolve: to a file that does
/// not exist, or to a heading its target does not have.
fn broken_links(file: &Path, md: &str) -> Vec<String> {
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for t in link_targets(md) {
        if t.contains("://") || t.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match t.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (t.as_str(), None),
        };
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !target.exists() {
            broken.push(format!("{t}: no file {}", target.display()));
            continue;
        }
        if let Some(a) = anchor
            && target.extension().is_some_and(|e| e == "md")
            && !anchors(&read(&target)).contains(a)
        {
            broken.push(format!(
                "{t}: no heading with the anchor #{a} in {}",
                target.display()
            ));
        }
    }
    broken
}

/// Identifier-like tokens (`[A-Za-z0-9_]+`) of `text`.
fn tokens(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The tokens inside the code (blocks and inline spans) of the whole book.
fn book_code_tokens() -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for f in book_chapters() {
        all.extend(tokens(&split_code(&read(&f)).1));
    }
    all
}

/// Whether `md` has a code block rustdoc would compile: ```` ```rust ````, or an opening
/// fence with no language at all.
fn has_rust_block(md: &str) -> bool {
    let mut fenced = false;
    for l in md.lines() {
        let l = l.trim_start();
        if let Some(info) = l.strip_prefix("```") {
            if !fenced && (info.trim().is_empty() || info.trim().starts_with("rust")) {
                return true;
            }
            fenced = !fenced;
        }
    }
    false
}

// ------------------------------------------------------------------------- the sources

/// `MINT_*` names in Rust source: whole tokens of capitals, digits and underscores (not
/// `__MINT_KERNEL`, which the macros generate, nor `MINT_VEC_TYPES__device__`).
fn mint_variables(src: &str) -> BTreeSet<String> {
    tokens(src)
        .into_iter()
        .filter(|t| {
            t.starts_with("MINT_")
                && t.len() > 5
                && t.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .collect()
}

/// Rust source with string literals, char literals and comments removed.
fn strip_literals(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '/' if b.get(i + 1) == Some(&'/') => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            '\'' if b.get(i + 2) == Some(&'\'') => {
                i += 3;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The variant names of `pub enum Error` in `src`.
fn error_variants(src: &str) -> Vec<String> {
    let s = strip_literals(src);
    let start = s.find("pub enum Error").expect("no `pub enum Error`");
    let body = &s[start..];
    let open = body.find('{').unwrap();
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = body[open..].chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '#' && chars.get(i + 1) == Some(&'[') {
            let mut in_attr = 1usize;
            i += 2;
            while i < chars.len() && in_attr > 0 {
                match chars[i] {
                    '[' => in_attr += 1,
                    ']' => in_attr -= 1,
                    _ => {}
                }
                i += 1;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            if depth == 1 && word.chars().next().is_some_and(|w| w.is_ascii_uppercase()) {
                let next = chars[i..].iter().find(|c| !c.is_whitespace());
                if matches!(next, Some('{' | '(' | ',' | '}')) {
                    out.push(std::mem::take(&mut word));
                }
            }
            word.clear();
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// The option and clause names the macros accept: the string patterns of the match arms in
/// `mint-macros/src/clauses.rs` (`"register" =>`, `"prefer_l1" | "preferL1" =>`), except
/// arms whose value is itself a string (the "did you mean" hints).
fn accepted_options(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in src.lines() {
        let t = line.trim();
        let Some((pat, value)) = t.split_once("=>") else {
            continue;
        };
        let pat = pat.trim();
        if !pat.starts_with('"') || value.trim_start().starts_with('"') {
            continue;
        }
        let names: Vec<&str> = pat.split('|').map(|p| p.trim().trim_matches('"')).collect();
        if names
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            out.extend(names.into_iter().map(str::to_string));
        }
    }
    out
}

// ------------------------------------------------------------------------- the parsers

#[test]
fn the_parsers_find_what_they_should() {
    let md = "See [a](a.md), ![b](img/b.png), [web](https://x.org), [c](c.md#sec), `[x](not-a-link)`\n\
              ```rust\nlet v = a[[z, y, x]](1);\n```\n{{#include ../../ARCHITECTURE.md}}\n";
    assert_eq!(
        link_targets(md),
        [
            "a.md",
            "img/b.png",
            "https://x.org",
            "c.md#sec",
            "../../ARCHITECTURE.md"
        ]
    );
    let dir = std::env::temp_dir().join(format!("mint-docs-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("c.md"),
        "# Title\n\n## The kernel: `#[mint::r#for]`\n",
    )
    .unwrap();
    let page = dir.join("page.md");
    let broken = broken_links(
        &page,
        "[ok](c.md#the-kernel-mintrfor) [gone](missing.md) [bad](c.md#nowhere) [web](https://x.org)",
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].starts_with("missing.md") && broken[1].starts_with("c.md#nowhere"));

    let rs = r#"let a = std::env::var("MINT_TUNE"); static __MINT_KERNEL: u8 = 0;
                const H: &str = "MINT_VEC_TYPES__device__ x"; let b = flag("MINT_CHECK");"#;
    assert_eq!(
        mint_variables(rs).into_iter().collect::<Vec<_>>(),
        ["MINT_CHECK", "MINT_TUNE"]
    );

    let e = r#"
        pub enum Error {
            /// A doc with { braces }.
            #[error("x {a} y {{ z }}")]
            First { a: String, b: Vec<usize> },
            #[error("second")]
            Second(String),
            Third,
        }
        impl Error { fn Nope() {} }"#;
    assert_eq!(error_variants(e), ["First", "Second", "Third"]);

    let c = r#"
        match n.as_str() {
            "register" => opts.register = Some(true),
            "prefer_l1" | "preferL1" => opts.prefer_l1 = Some(true),
            "chunk" | "chunks" => " (did you mean `chunksize`?)",
            _ => {}
        }"#;
    assert_eq!(
        accepted_options(c).into_iter().collect::<Vec<_>>(),
        ["preferL1", "prefer_l1", "register"]
    );

    assert!(has_rust_block("text\n```rust,no_run\nfn f() {}\n```\n"));
    assert!(has_rust_block("```\nlet x = 1;\n```\n"));
    assert!(!has_rust_block("```text\nout\n```\n```sh\nls\n```\n"));
}

// ------------------------------------------------------------------------- the checks

#[test]
fn every_relative_link_resolves() {
    let mut pages = book_chapters();
    pages.push(root().join("README.md"));
    pages.push(root().join("CHANGELOG.md"));
    let mut broken = Vec::new();
    for p in &pages {
        for b in broken_links(p, &read(p)) {
            broken.push(format!(
                "{}: {b}",
                p.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(pages.len() > 20, "the book has only {} pages", pages.len());
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_book_names_every_mint_variable_of_the_library() {
    let mut vars = BTreeSet::new();
    for dir in [
        "mint-runtime/src",
        "mint-translator/src",
        "mint-macros/src",
        "src",
    ] {
        for f in files(&root().join(dir), ".rs") {
            vars.extend(mint_variables(&read(&f)));
        }
    }
    for v in ["MINT_DEVICE", "MINT_TUNE", "MINT_CACHE_DIR", "MINT_REPORT"] {
        assert!(
            vars.contains(v),
            "the source scan did not find {v}: {vars:?}"
        );
    }
    let book = book_code_tokens();
    let missing: Vec<_> = vars.iter().filter(|v| !book.contains(*v)).collect();
    assert!(
        missing.is_empty(),
        "variables the sources use and the book does not name (docs/src/guide/configuration.md): {missing:?}"
    );
}

#[test]
fn the_book_names_every_error_variant() {
    let variants = error_variants(&read(&root().join("mint-runtime/src/error.rs")));
    for v in ["NoDevice", "OutsideSlab", "Driver"] {
        assert!(
            variants.iter().any(|x| x == v),
            "the parser missed {v}: {variants:?}"
        );
    }
    let book = book_code_tokens();
    let missing: Vec<_> = variants.iter().filter(|v| !book.contains(*v)).collect();
    assert!(
        missing.is_empty(),
        "variants of mint::Error the book does not name (docs/src/guide/errors.md): {missing:?}"
    );
}

#[test]
fn the_book_names_every_option_and_clause() {
    let options = accepted_options(&read(&root().join("mint-macros/src/clauses.rs")));
    for o in [
        "register",
        "shared",
        "vectorize",
        "tune",
        "stream",
        "nest",
        "tile",
        "chunksize",
        "nowait",
    ] {
        assert!(options.contains(o), "the parser missed `{o}`: {options:?}");
    }
    let book = book_code_tokens();
    let missing: Vec<_> = options.iter().filter(|o| !book.contains(*o)).collect();
    assert!(
        missing.is_empty(),
        "options or clauses the macros accept and the book does not name in code \
         (docs/src/guide/options.md, directives.md): {missing:?}"
    );
}

#[test]
fn every_chapter_is_in_the_summary() {
    let src = root().join("docs/src");
    let summary = read(&src.join("SUMMARY.md"));
    let listed: BTreeSet<String> = link_targets(&summary).into_iter().collect();
    let mut missing = Vec::new();
    for f in book_chapters() {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel != "SUMMARY.md" && !listed.contains(&rel) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "chapters not in docs/src/SUMMARY.md: {missing:?}"
    );
    assert!(read(&root().join("docs/book.toml")).contains("[book]"));
}

#[test]
fn every_chapter_with_rust_code_is_compiled_by_the_doctests() {
    let guide = read(&root().join("src/guide.rs"));
    let mut pages = book_chapters();
    pages.push(root().join("README.md"));
    pages.push(root().join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for p in pages {
        let rust = has_rust_block(&read(&p));
        let rel = p
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rust && !guide.contains(&format!("include_str!(\"../{rel}\")")) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "pages with Rust blocks (or untagged blocks, which rustdoc compiles as Rust) that \
         src/guide.rs does not include: {missing:?}"
    );
    let lib: String = read(&root().join("src/lib.rs"))
        .split_whitespace()
        .collect();
    assert!(
        lib.contains("#[cfg(doctest)]modguide;"),
        "src/lib.rs must declare `#[cfg(doctest)] mod guide;`"
    );
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the limit is 300 (move the rest to docs/)"
    );
    for must in [
        "## Install",
        "mint-stencil",
        "ndarray = \"0.17\"",
        "cargo test --workspace",
        "examples/seismic/loh1.toml",
        "libnvrtc.so.13",
        "MINT_DEVICE",
    ] {
        assert!(readme.contains(must), "README.md does not mention {must}");
    }
}
