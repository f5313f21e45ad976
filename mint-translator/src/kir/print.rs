//! The one printer of the kernel IR: every kernel skeleton's CUDA C++ text is written here.

use super::Stmt;

/// One level of indentation.
const INDENT: &str = "    ";

/// The text of `stmts` at `indent` levels of indentation.
pub fn block(stmts: &[Stmt], indent: usize) -> String {
    let mut out = String::new();
    stmts_to(&mut out, stmts, indent);
    out
}

fn line(out: &mut String, indent: usize, s: &str) {
    for _ in 0..indent {
        out.push_str(INDENT);
    }
    out.push_str(s);
    out.push('\n');
}

fn stmts_to(out: &mut String, stmts: &[Stmt], indent: usize) {
    for s in stmts {
        stmt_to(out, s, indent);
    }
}

fn stmt_to(out: &mut String, s: &Stmt, indent: usize) {
    match s {
        Stmt::Raw(l) => line(out, indent, l),
        Stmt::Nested(v) => stmts_to(out, v, indent + 1),
        Stmt::Body(text) => {
            for l in text.strip_suffix('\n').unwrap_or(text).split('\n') {
                line(out, indent, l);
            }
        }
    }
}
