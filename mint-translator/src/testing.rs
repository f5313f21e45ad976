//! A compact text notation for kernels, for tests and examples of the translator.
//!
//! The notation is the thesis's C-like loop body (Tables 4.1, 7.2, 7.6) with Rust's
//! `let` and `for .. in`:
//!
//! ```text
//! arrays: u f64 3, unew f64 3
//! scalars: c0 f64, c1 f64
//! nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
//! unew[z][y][x] = c0 * u[z][y][x] + c1 * (u[z][y][x-1] + u[z][y][x+1]);
//! ```
//!
//! Header lines (`arrays:`, `scalars:`, `nest:`, `tile:`, `chunk:`, `options:`,
//! `reduction:`) come first; every other line is body text. Math calls are written as
//! functions: `sqrt(x)`, `min(a, b)`, `powi(x, 2)`.

use crate::ir::*;

/// Parses a kernel written in the test notation.
///
/// # Panics
/// On any syntax error (this is test support).
pub fn kernel(name: &str, text: &str) -> Kernel {
    let mut arrays = Vec::new();
    let mut scalars = Vec::new();
    let mut nest = Vec::new();
    let mut clauses = Clauses::default();
    let mut options = OptOptions::default();
    let mut reduction = None;
    let mut body_src = String::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("arrays:") {
            for a in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let f: Vec<&str> = a.split_whitespace().collect();
                arrays.push(ArrayParam {
                    name: f[0].into(),
                    elem: ScalarTy::from_rust(f[1]).expect("element type"),
                    ndim: f[2].parse().expect("ndim"),
                    read: false,
                    written: false,
                    span: 0,
                    elem_at_launch: false,
                });
            }
        } else if let Some(rest) = l.strip_prefix("scalars:") {
            for a in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let f: Vec<&str> = a.split_whitespace().collect();
                scalars.push(ScalarParam {
                    name: f[0].into(),
                    ty: f.get(1).and_then(|t| ScalarTy::from_rust(t)),
                    span: 0,
                });
            }
        } else if let Some(rest) = l.strip_prefix("nest:") {
            for a in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (var, range) = a.split_once(' ').expect("`var lo..hi`");
                let (lo, hi) = range.trim().split_once("..").expect("range");
                nest.push(ParLoop {
                    var: var.into(),
                    ty: Some(ScalarTy::Usize),
                    lo: Some(parse_expr(lo)),
                    hi: Some(parse_expr(hi)),
                    inclusive: false,
                    span: 0,
                });
            }
        } else if let Some(rest) = l.strip_prefix("tile:") {
            clauses.tile = Some(triple(rest));
        } else if let Some(rest) = l.strip_prefix("chunk:") {
            clauses.chunk = Some(triple(rest));
        } else if let Some(rest) = l.strip_prefix("options:") {
            for o in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match o.split_once('=') {
                    Some(("shared", n)) => options.shared = n.trim().parse().unwrap(),
                    None if o == "shared" => options.shared = 8,
                    None if o == "register" => options.register = true,
                    None if o == "prefer_l1" => options.prefer_l1 = true,
                    None if o == "unroll" => options.unroll = true,
                    None if o == "same_index" => options.same_index = true,
                    None if o == "vectorize" => options.vectorize = true,
                    None if o == "pipeline" => options.pipeline = true,
                    None if o == "swizzle" => options.swizzle = true,
                    None if o == "roll_z" => options.roll_z = true,
                    _ => panic!("unknown option {o}"),
                }
            }
        } else if let Some(rest) = l.strip_prefix("reduction:") {
            let (op, var) = rest.split_once(':').expect("op: var");
            let op = match op.trim() {
                "+" => RedOp::Add,
                "*" => RedOp::Mul,
                "min" => RedOp::Min,
                "max" => RedOp::Max,
                o => panic!("unknown reduction {o}"),
            };
            reduction = Some(Reduction {
                op,
                var: var.trim().into(),
                ty: None,
                span: 0,
            });
        } else if l == "nowait" {
            clauses.nowait = true;
        } else {
            body_src.push_str(line);
            body_src.push('\n');
        }
    }
    let body = parse_block(&body_src);
    // read/written flags from the argument handler
    let vars: Vec<&str> = nest.iter().map(|l: &ParLoop| l.var.as_str()).collect();
    let (uses, _) = crate::baseline::outline::arguments(&body, &vars);
    for a in &mut arrays {
        if let Some(u) = uses.iter().find(|u| u.name == a.name) {
            a.read = u.read;
            a.written = u.written;
        }
    }
    arrays.retain(|a| a.read || a.written);
    Kernel {
        name: name.into(),
        region: name.split('_').next().unwrap_or(name).into(),
        origin: Origin {
            file: "test.rs".into(),
            line: 1,
            column: 1,
        },
        nest,
        body,
        arrays,
        scalars,
        reduction,
        clauses,
        options,
    }
}

fn triple(s: &str) -> [ClauseValue; 3] {
    let v: Vec<u32> = s.split(',').map(|x| x.trim().parse().unwrap()).collect();
    [
        ClauseValue::Const(v[0]),
        ClauseValue::Const(*v.get(1).unwrap_or(&1)),
        ClauseValue::Const(*v.get(2).unwrap_or(&1)),
    ]
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(u128, Option<ScalarTy>),
    Float(String, Option<ScalarTy>),
    Punct(&'static str),
}

const PUNCTS: &[&str] = &[
    "..=", "<<=", ">>=", "..", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
    "<<", ">>", "+", "-", "*", "/", "%", "<", ">", "=", "!", "(", ")", "[", "]", "{", "}", ";",
    ",", ":", "&", "|", "^", "?",
];

fn lex(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
            continue;
        }
        if c.is_ascii_digit() {
            let st = i;
            let mut float = false;
            while i < b.len() {
                let d = b[i] as char;
                if d.is_ascii_digit() || d == '_' {
                    i += 1;
                } else if d == '.' && b.get(i + 1).is_some_and(|n| n.is_ascii_digit()) && !float {
                    float = true;
                    i += 1;
                } else if (d == 'e' || d == 'E')
                    && b.get(i + 1)
                        .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+')
                {
                    float = true;
                    i += 2;
                } else {
                    break;
                }
            }
            let text = s[st..i].replace('_', "");
            let mut suffix = None;
            for t in ["f32", "f64", "i32", "i64", "u32", "u64", "usize", "u8"] {
                if s[i..].starts_with(t) {
                    suffix = ScalarTy::from_rust(t);
                    i += t.len();
                    break;
                }
            }
            if float || suffix.is_some_and(|t| t.is_float()) {
                let text = if text.contains('.') || text.contains('e') || text.contains('E') {
                    text
                } else {
                    format!("{text}.0")
                };
                out.push(Tok::Float(text, suffix));
            } else {
                out.push(Tok::Int(text.parse().unwrap(), suffix));
            }
            continue;
        }
        let p = PUNCTS
            .iter()
            .find(|p| s[i..].starts_with(**p))
            .unwrap_or_else(|| panic!("unexpected character {c:?}"));
        out.push(Tok::Punct(p));
        i += p.len();
    }
    out
}

struct P {
    t: Vec<Tok>,
    i: usize,
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == k)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) || self.is_kw(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) {
        assert!(self.eat(p), "expected `{p}` at token {:?}", self.peek());
    }
    fn ident(&mut self) -> String {
        match self.t.get(self.i).cloned() {
            Some(Tok::Ident(s)) => {
                self.i += 1;
                s
            }
            t => panic!("expected identifier, found {t:?}"),
        }
    }

    fn block_until_end(&mut self) -> Block {
        let mut stmts = Vec::new();
        while self.peek().is_some() && !self.is("}") {
            stmts.push(self.stmt());
        }
        Block { stmts }
    }

    fn braced(&mut self) -> Block {
        self.expect("{");
        let b = self.block_until_end();
        self.expect("}");
        b
    }

    fn stmt(&mut self) -> Stmt {
        let kind = if self.eat("let") {
            let mutable = self.eat("mut");
            let name = self.ident();
            let ty = if self.eat(":") {
                Some(ScalarTy::from_rust(&self.ident()).unwrap())
            } else {
                None
            };
            let init = if self.eat("=") {
                Some(self.expr(0))
            } else {
                None
            };
            self.expect(";");
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            }
        } else if self.eat("for") {
            let var = self.ident();
            self.expect("in");
            let lo = self.expr(0);
            let inclusive = if self.eat("..=") {
                true
            } else {
                self.expect("..");
                false
            };
            let hi = self.expr(0);
            let body = self.braced();
            StmtKind::For {
                var,
                ty: None,
                lo,
                hi,
                inclusive,
                step: None,
                reverse: false,
                body,
            }
        } else if self.is_kw("if") {
            return self.if_stmt();
        } else if self.is("{") {
            StmtKind::Block(self.braced())
        } else if self.eat("continue") {
            self.expect(";");
            StmtKind::Continue
        } else if self.eat("break") {
            self.expect(";");
            StmtKind::Break
        } else {
            let name = self.ident();
            let place = if self.is("[") {
                Place::Elem {
                    array: name,
                    index: self.indices(),
                }
            } else {
                Place::Var(name)
            };
            let op = [
                ("=", None),
                ("+=", Some(BinOp::Add)),
                ("-=", Some(BinOp::Sub)),
                ("*=", Some(BinOp::Mul)),
                ("/=", Some(BinOp::Div)),
                ("%=", Some(BinOp::Rem)),
            ]
            .into_iter()
            .find(|(p, _)| self.eat(p))
            .map(|(_, o)| o)
            .expect("assignment operator");
            let value = self.expr(0);
            self.expect(";");
            StmtKind::Assign { place, op, value }
        };
        Stmt { kind, span: 0 }
    }

    fn if_stmt(&mut self) -> Stmt {
        self.expect("if");
        let cond = self.expr(0);
        let then = self.braced();
        let els = if self.eat("else") {
            if self.is_kw("if") {
                Some(Block {
                    stmts: vec![self.if_stmt()],
                })
            } else {
                Some(self.braced())
            }
        } else {
            None
        };
        Stmt {
            kind: StmtKind::If { cond, then, els },
            span: 0,
        }
    }

    fn indices(&mut self) -> Vec<Expr> {
        let mut idx = Vec::new();
        while self.eat("[") {
            idx.push(self.expr(0));
            self.expect("]");
        }
        idx
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Some(Tok::Punct(p)) = self.peek() else {
            return None;
        };
        let op = match *p {
            "||" => BinOp::Or,
            "&&" => BinOp::And,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "|" => BinOp::BitOr,
            "^" => BinOp::BitXor,
            "&" => BinOp::BitAnd,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            _ => return None,
        };
        Some((op, op.c_prec()))
    }

    fn expr(&mut self, min: u8) -> Expr {
        let mut lhs = self.unary();
        loop {
            if self.is_kw("as") {
                self.i += 1;
                let to = ScalarTy::from_rust(&self.ident()).unwrap();
                lhs = Expr::new(
                    ExprKind::Cast {
                        expr: Box::new(lhs),
                        to,
                    },
                    0,
                );
                continue;
            }
            let Some((op, p)) = self.binop() else { break };
            if p < min {
                break;
            }
            self.i += 1;
            let rhs = self.expr(p + 1);
            lhs = Expr::new(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                0,
            );
        }
        lhs
    }

    fn unary(&mut self) -> Expr {
        if self.eat("-") {
            let e = self.unary();
            return Expr::new(
                ExprKind::Unary {
                    op: UnOp::Neg,
                    expr: Box::new(e),
                },
                0,
            );
        }
        if self.eat("!") {
            let e = self.unary();
            return Expr::new(
                ExprKind::Unary {
                    op: UnOp::Not,
                    expr: Box::new(e),
                },
                0,
            );
        }
        self.primary()
    }

    fn primary(&mut self) -> Expr {
        match self.t.get(self.i).cloned() {
            Some(Tok::Int(v, s)) => {
                self.i += 1;
                Expr::new(
                    ExprKind::Lit(Lit::Int {
                        value: v,
                        suffix: s,
                    }),
                    0,
                )
            }
            Some(Tok::Float(t, s)) => {
                self.i += 1;
                Expr::new(ExprKind::Lit(Lit::Float { text: t, suffix: s }), 0)
            }
            Some(Tok::Punct("(")) => {
                self.i += 1;
                let e = self.expr(0);
                self.expect(")");
                e
            }
            Some(Tok::Ident(n)) if n == "if" => {
                // `if c { a } else { b }` as a value
                self.i += 1;
                let cond = self.expr(0);
                self.expect("{");
                let then = self.expr(0);
                self.expect("}");
                self.expect("else");
                self.expect("{");
                let els = self.expr(0);
                self.expect("}");
                Expr::new(
                    ExprKind::Select {
                        cond: Box::new(cond),
                        then: Box::new(then),
                        els: Box::new(els),
                    },
                    0,
                )
            }
            Some(Tok::Ident(n)) if n == "true" || n == "false" => {
                self.i += 1;
                Expr::new(ExprKind::Lit(Lit::Bool(n == "true")), 0)
            }
            Some(Tok::Ident(n)) => {
                self.i += 1;
                if self.is("[") {
                    let index = self.indices();
                    Expr::new(ExprKind::Elem { array: n, index }, 0)
                } else if self.eat("(") {
                    let func = MathFn::from_rust(&n).unwrap_or_else(|| panic!("unknown fn {n}"));
                    let mut args = Vec::new();
                    while !self.eat(")") {
                        args.push(self.expr(0));
                        self.eat(",");
                    }
                    Expr::new(ExprKind::Call { func, args }, 0)
                } else {
                    Expr::new(ExprKind::Var(n), 0)
                }
            }
            t => panic!("unexpected token {t:?}"),
        }
    }
}

/// Parses an expression of the notation.
pub fn parse_expr(s: &str) -> Expr {
    let mut p = P { t: lex(s), i: 0 };
    let e = p.expr(0);
    assert!(p.peek().is_none(), "trailing tokens in {s:?}");
    e
}

/// Parses a sequence of statements of the notation.
pub fn parse_block(s: &str) -> Block {
    let mut p = P { t: lex(s), i: 0 };
    let b = p.block_until_end();
    assert!(p.peek().is_none(), "trailing tokens");
    b
}
