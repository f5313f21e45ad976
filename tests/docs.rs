//! The user guide (`docs/`, an mdBook) and the README against the code: every relative
//! link resolves, the book names every `MINT_*` variable the library, the tests, the
//! benchmarks and the examples read, every variant of `mint::Error` and every option and
//! clause the macros accept (`#[mint::time_loop(block = ..)]` included), every chapter is
//! in the book's summary, every chapter with Rust code is compiled by `cargo test --doc`
//! (`src/guide.rs`), the README stays a front door of at most 300 lines with no date but
//! on its one results table's caption, and the comments of the sources carry no dates and
//! no `bench-results/` paths (results live in the book, reasons in the comments).
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

/// The code (blocks and inline spans) of the whole book, chapter after chapter.
fn book_code() -> String {
    book_chapters()
        .iter()
        .map(|f| split_code(&read(f)).1)
        .collect()
}

/// The tokens inside the code (blocks and inline spans) of the whole book.
fn book_code_tokens() -> BTreeSet<String> {
    tokens(&book_code())
}

/// The dates (`YYYY-MM-DD` with a month 01–12 and a day 01–31, not part of a longer run
/// of digits) in `text`, in order.
fn dates(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let two = |s: &[u8]| (s[0] - b'0') * 10 + (s[1] - b'0');
    let mut out = Vec::new();
    for i in 0..b.len().saturating_sub(9) {
        let w = &b[i..i + 10];
        if digits(&w[0..4])
            && w[4] == b'-'
            && digits(&w[5..7])
            && w[7] == b'-'
            && digits(&w[8..10])
            && (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 10).is_none_or(|c| !c.is_ascii_digit())
            && (1..=12).contains(&two(&w[5..7]))
            && (1..=31).contains(&two(&w[8..10]))
        {
            out.push(String::from_utf8_lossy(w).into_owned());
        }
    }
    out
}

/// The numbers (1-based) of the lines of `md` that hold a date and are not a table's
/// caption, and how many captions hold one. A caption is a line whose next non-blank line
/// starts a markdown table (`|`).
fn dates_outside_captions(md: &str) -> (Vec<usize>, usize) {
    let lines: Vec<&str> = md.lines().collect();
    let (mut stray, mut captions) = (Vec::new(), 0);
    for (i, l) in lines.iter().enumerate() {
        if dates(l).is_empty() {
            continue;
        }
        let next = lines[i + 1..].iter().find(|n| !n.trim().is_empty());
        if next.is_some_and(|n| n.trim_start().starts_with('|')) {
            captions += 1;
        } else {
            stray.push(i + 1);
        }
    }
    (stray, captions)
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

/// The comments of Rust source `src` (`//`, `///` and `//!` to the end of the line; `/* */`,
/// nested), each with the number of the line it starts on. String, raw string and char
/// literals are skipped, so that a `//` inside a string is not taken for a comment.
fn comments(src: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let ident = |k: usize| c[k].is_alphanumeric() || c[k] == '_';
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        match c[i] {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if c.get(i + 1) == Some(&'/') => {
                let start = i;
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
                out.push((line, c[start..i].iter().collect()));
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                let (start, first, mut depth) = (i, line, 0usize);
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(c[i] == '\n');
                        i += 1;
                    }
                }
                out.push((first, c[start..i.min(c.len())].iter().collect()));
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    line += usize::from(c[i] == '\n');
                    if c[i] == '\\' && c.get(i + 1) == Some(&'\n') {
                        line += 1;
                    }
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            // a raw string: r"..", r#".."#, br#".."#, cr".." (not the end of an identifier)
            'r' | 'b' | 'c' if i == 0 || !ident(i - 1) => {
                let r = if c[i] == 'r' { i } else { i + 1 };
                if c.get(r) != Some(&'r') {
                    i += 1;
                    continue;
                }
                let hashes = c[r + 1..].iter().take_while(|&&h| h == '#').count();
                if c.get(r + 1 + hashes) != Some(&'"') {
                    // `r#for`, a raw identifier, or an identifier that starts with r
                    i += 1;
                    continue;
                }
                i = r + 2 + hashes;
                while i < c.len()
                    && !(c[i] == '"' && c[i + 1..].iter().take(hashes).all(|&h| h == '#'))
                {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
                i += 1 + hashes;
            }
            // a char literal ('a', '"', '\'', '\u{..}'); otherwise a lifetime or a label
            '\'' if c.get(i + 1) == Some(&'\\') => {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            '\'' if c.get(i + 2) == Some(&'\'') => i += 3,
            _ => i += 1,
        }
    }
    out
}

/// The names `#[mint::time_loop]` accepts: the `is_ident("..")` tests of
/// `mint-macros/src/timeloop.rs` (the option `block` and its value `auto`).
fn time_loop_names(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = src;
    while let Some(i) = rest.find("is_ident(\"") {
        rest = &rest[i + "is_ident(\"".len()..];
        if let Some(end) = rest.find('"') {
            out.insert(rest[..end].to_string());
        }
    }
    out
}

/// Whether `path` lies in a build directory (`target/`) of the repository, whose files are
/// not sources.
fn in_target(path: &Path) -> bool {
    path.strip_prefix(root())
        .unwrap_or(path)
        .components()
        .any(|c| c.as_os_str() == "target")
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
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

    assert_eq!(
        dates("on 2026-11-28, not 12026-11-288 nor 2026-13-01 nor 2026-11-2; (2026-12-06)."),
        ["2026-11-28", "2026-12-06"]
    );
    let md =
        "Caption, 2026-11-24.\n\n| a |\n| --- |\n| 1 |\n\nText, 2026-11-25.\nLast 2026-11-26\n";
    assert_eq!(dates_outside_captions(md), (vec![7, 8], 1));

    let rs = r##"let s = "// not a comment 2026-01-01"; // a comment
let r = r#"raw // "quoted" bench-results/x"#; let c = '"'; let l: &'static str = "\"//";
/// doc 2026-11-28
/* block /* nested */
   bench-results/y */ fn f() { let e = '\''; } //! inner
"##;
    let cs = comments(rs);
    assert_eq!(
        cs.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [1, 3, 4, 5],
        "{cs:?}"
    );
    assert_eq!(cs[0].1, "// a comment");
    assert!(cs[1].1.contains("2026-11-28") && cs[2].1.contains("bench-results/y"));
    assert_eq!(cs[3].1, "//! inner");

    assert_eq!(
        time_loop_names(r#"if !nv.path.is_ident("block") {} if p.path.is_ident("auto") {}"#)
            .into_iter()
            .collect::<Vec<_>>(),
        ["auto", "block"]
    );
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

/// Catches a `MINT_*` variable that the library, a test, a benchmark (its Rust, shell and
/// Python files) or an example reads and the book does not name.
#[test]
fn the_book_names_every_mint_variable() {
    let mut vars = BTreeSet::new();
    for dir in [
        "mint-runtime/src",
        "mint-translator/src",
        "mint-macros/src",
        "mint-testing/src",
        "kernels/src",
        "src",
        "tests",
        "benches",
        "examples",
    ] {
        for ext in [".rs", ".sh", ".py"] {
            for f in files(&root().join(dir), ext) {
                // not this file, whose names are examples and checks
                if !in_target(&f) && !f.ends_with("tests/docs.rs") {
                    vars.extend(mint_variables(&read(&f)));
                }
            }
        }
    }
    // from each kind of source: the library, a test (`tests/golden_kernels.rs`), a
    // benchmark script (`benches/run_all.sh`)
    for v in [
        "MINT_DEVICE",
        "MINT_TUNE",
        "MINT_CACHE_DIR",
        "MINT_REPORT",
        "MINT_BLESS",
        "MINT_BENCH_SIZE",
    ] {
        assert!(
            vars.contains(v),
            "the source scan did not find {v}: {vars:?}"
        );
    }
    let book = book_code_tokens();
    let missing: Vec<_> = vars.iter().filter(|v| !book.contains(*v)).collect();
    assert!(
        missing.is_empty(),
        "variables the sources read and the book does not name in code \
         (docs/src/guide/configuration.md): {missing:?}"
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

/// Catches a name `#[mint::time_loop]` accepts (the option `block`, its value `auto`) that
/// no code of the book shows in use: `time_loop(block = ..` or `= auto)`.
#[test]
fn the_book_shows_every_time_loop_option() {
    let names = time_loop_names(&read(&root().join("mint-macros/src/timeloop.rs")));
    assert!(
        names.contains("block") && names.contains("auto"),
        "the parser missed `block` or `auto`: {names:?}"
    );
    let code: String = book_code().split_whitespace().collect();
    let missing: Vec<_> = names
        .iter()
        .filter(|n| !code.contains(&format!("time_loop({n}=")) && !code.contains(&format!("={n})")))
        .collect();
    assert!(
        missing.is_empty(),
        "names `#[mint::time_loop]` accepts that no code of the book shows \
         (docs/src/guide/time-loops.md): {missing:?}"
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
    // Catches a dated note in the README: a date may stand only on the caption of its one
    // results table (the line right above the table, blank lines aside).
    let (stray, captions) = dates_outside_captions(&readme);
    assert!(
        stray.is_empty(),
        "README.md has dates outside its results table's caption, on lines {stray:?}: \
         dated results go to docs/src/performance/ (bench-results/render.py)"
    );
    assert!(
        captions <= 1,
        "README.md has {captions} dated tables; it keeps one current results table"
    );
}

/// Catches a date or a `bench-results/` path in a comment of the sources: a comment keeps
/// its reason, and the measurement behind it lives in the book and `bench-results/`.
#[test]
fn source_comments_carry_no_dates_nor_result_paths() {
    let mut found = Vec::new();
    let mut scanned = 0;
    for dir in [
        "mint-translator/src",
        "mint-runtime/src",
        "mint-macros/src",
        "mint-testing/src",
        "kernels/src",
        "src",
        "examples",
        "benches",
    ] {
        for f in files(&root().join(dir), ".rs") {
            if in_target(&f) {
                continue;
            }
            scanned += 1;
            for (line, text) in comments(&read(&f)) {
                let mut what = dates(&text);
                if text.contains("bench-results/") {
                    what.push("bench-results/".to_string());
                }
                if !what.is_empty() {
                    found.push(format!("{}:{line}: {}", rel(&f), what.join(", ")));
                }
            }
        }
    }
    assert!(scanned > 50, "only {scanned} Rust files found");
    assert!(
        found.is_empty(),
        "comments with dates or bench-results/ paths (keep the reason, drop the date and \
         the path):\n{}",
        found.join("\n")
    );
}
