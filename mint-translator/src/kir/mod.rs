//! The kernel IR ("KIR"): what a CUDA kernel skeleton is made of, below the loop IR.
//!
//! The lowerings (the baseline work partitioner in `emit::cuda`, the staged kernel in
//! `optimizer::chunk`, the vector path in `optimizer::vector`) build a tree of [`Stmt`]s;
//! [`print`] writes it as CUDA C++ text with the translator's indentation conventions. The
//! loop body itself is printed by the expression printer (`emit::cexpr::CPrinter` and its
//! `RefResolver`) and held here as text ([`Stmt::Body`]).

pub mod print;

use crate::emit::cexpr::CPrinter;

/// One statement of a kernel skeleton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// One line of C text, printed as it is at the current indentation (the escape hatch
    /// for constructs that have no node of their own).
    Raw(String),
    /// Statements printed one level deeper than their surroundings.
    Nested(Vec<Stmt>),
    /// Loop-body text printed by `CPrinter` at indentation 0: each of its lines is
    /// indented to the place of the node.
    Body(String),
}

/// Collects the statements of a kernel skeleton in order.
#[derive(Debug, Default)]
pub struct Builder {
    /// The open levels: the outermost first, the one being filled last.
    stack: Vec<Vec<Stmt>>,
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Builder {
        Builder {
            stack: vec![Vec::new()],
        }
    }

    /// Appends `s`.
    pub fn push(&mut self, s: Stmt) {
        self.stack.last_mut().expect("an open level").push(s);
    }

    /// Appends one line of text ([`Stmt::Raw`]).
    pub fn raw(&mut self, line: impl Into<String>) {
        self.push(Stmt::Raw(line.into()));
    }

    /// Opens a level one deeper.
    pub fn indent(&mut self) {
        self.stack.push(Vec::new());
    }

    /// Closes the level [`Builder::indent`] opened.
    pub fn dedent(&mut self) {
        let inner = self.stack.pop().expect("an open level");
        assert!(!self.stack.is_empty(), "dedent without indent");
        self.push(Stmt::Nested(inner));
    }

    /// Prints `f`'s loop-body statements through `p` and appends them as [`Stmt::Body`].
    pub fn body(&mut self, p: &mut CPrinter, f: impl FnOnce(&mut CPrinter)) {
        let (indent, before) = (p.indent, std::mem::take(&mut p.out));
        p.indent = 0;
        f(p);
        let text = std::mem::replace(&mut p.out, before);
        p.indent = indent;
        if !text.is_empty() {
            self.push(Stmt::Body(text));
        }
    }

    /// The statements built.
    pub fn finish(mut self) -> Vec<Stmt> {
        assert_eq!(self.stack.len(), 1, "unbalanced indent");
        self.stack.pop().unwrap()
    }
}
