//! Statements of the kernel language.

use super::expr::{BinOp, Expr, SpanId};
use super::types::ScalarTy;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    #[serde(default)]
    pub span: SpanId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `let [mut] name [: ty] [= init];`
    Let {
        name: String,
        mutable: bool,
        ty: Option<ScalarTy>,
        init: Option<Expr>,
    },
    /// `place = value` or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    /// A serial loop `for var in lo..hi` (`..=` when `inclusive`), optionally
    /// `.step_by(step)` and/or `.rev()`; runs inside one thread.
    For {
        var: String,
        ty: Option<ScalarTy>,
        lo: Expr,
        hi: Expr,
        inclusive: bool,
        step: Option<Expr>,
        reverse: bool,
        body: Block,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Block(Block),
    Break,
    Continue,
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Place {
    Var(String),
    Elem { array: String, index: Vec<Expr> },
}

impl Block {
    /// Visits every statement (pre-order), descending into nested blocks.
    pub fn walk_stmts<'a>(&'a self, f: &mut dyn FnMut(&'a Stmt)) {
        for s in &self.stmts {
            f(s);
            match &s.kind {
                StmtKind::If { then, els, .. } => {
                    then.walk_stmts(f);
                    if let Some(e) = els {
                        e.walk_stmts(f);
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => body.walk_stmts(f),
                StmtKind::Block(b) => b.walk_stmts(f),
                _ => {}
            }
        }
    }

    /// Visits every expression of every statement, including places' index expressions.
    pub fn walk_exprs<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        self.walk_stmts(&mut |s| s.for_each_own_expr(&mut |e| e.walk(f)));
    }

    /// Mutable visit of every expression (children first within each expression).
    pub fn walk_exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        for s in &mut self.stmts {
            match &mut s.kind {
                StmtKind::Let { init, .. } => {
                    if let Some(e) = init {
                        e.walk_mut(f)
                    }
                }
                StmtKind::Assign { place, value, .. } => {
                    if let Place::Elem { index, .. } = place {
                        index.iter_mut().for_each(|e| e.walk_mut(f));
                    }
                    value.walk_mut(f);
                }
                StmtKind::If { cond, then, els } => {
                    cond.walk_mut(f);
                    then.walk_exprs_mut(f);
                    if let Some(e) = els {
                        e.walk_exprs_mut(f);
                    }
                }
                StmtKind::For {
                    lo, hi, step, body, ..
                } => {
                    lo.walk_mut(f);
                    hi.walk_mut(f);
                    if let Some(s) = step {
                        s.walk_mut(f);
                    }
                    body.walk_exprs_mut(f);
                }
                StmtKind::While { cond, body } => {
                    cond.walk_mut(f);
                    body.walk_exprs_mut(f);
                }
                StmtKind::Block(b) => b.walk_exprs_mut(f),
                StmtKind::Break | StmtKind::Continue => {}
            }
        }
    }
}

impl Stmt {
    /// Calls `f` on the expressions that belong to this statement itself (not to nested
    /// blocks): initializers, values, conditions, loop bounds, and places' indices.
    pub fn for_each_own_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match &self.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    f(e)
                }
            }
            StmtKind::Assign { place, value, .. } => {
                if let Place::Elem { index, .. } = place {
                    index.iter().for_each(&mut *f);
                }
                f(value);
            }
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => f(cond),
            StmtKind::For { lo, hi, step, .. } => {
                f(lo);
                f(hi);
                if let Some(s) = step {
                    f(s)
                }
            }
            StmtKind::Block(_) | StmtKind::Break | StmtKind::Continue => {}
        }
    }
}
