//! The one printer of the kernel IR: every kernel's CUDA C++ text is written here, with the
//! translator's conventions (four spaces per level, the body of a kernel one level in,
//! `} else {` and `} else if (…) {` on the closing brace's line).

pub mod helpers;

use super::{
    AsyncCopy, Decl, Function, If, LaunchBounds, Loop, Module, Shared, Stmt, Unroll, VLoad,
    VSource, VStore,
};

/// One level of indentation.
const INDENT: &str = "    ";

/// The text of a whole module: header comments, the index type, the helpers, then each
/// function, a blank line between two.
pub fn module(m: &Module) -> String {
    Printer::new(false).module(m)
}

/// The tree of a module as the passes see it (`MINT_DUMP_AFTER`): the printed text, with
/// the role of each skeleton loop (`// [loop: …]`) and the hooks no pass filled
/// (`// [hook: …]`) as comments, and the helpers' definitions left out.
pub fn dump(m: &Module) -> String {
    Printer::new(true).module(m)
}

/// The text of `stmts` at `indent` levels of indentation.
pub fn block(stmts: &[Stmt], indent: usize) -> String {
    let mut p = Printer::new(false);
    p.stmts(stmts, indent);
    p.out
}

/// The text written so far, and whether it is a [`dump`].
struct Printer {
    out: String,
    dump: bool,
}

impl Printer {
    fn new(dump: bool) -> Printer {
        Printer {
            out: String::new(),
            dump,
        }
    }

    fn module(mut self, m: &Module) -> String {
        for c in &m.comments {
            self.out.push_str(&format!("// {c}\n"));
        }
        let idx = if m.idx64 { "long long" } else { "int" };
        self.out.push_str(&format!("typedef {idx} idx_t;\n"));
        if self.dump {
            let n = m.helpers.lines().count();
            self.out.push_str(&format!("// [helpers: {n} lines]\n"));
        } else {
            self.out.push_str(&m.helpers);
        }
        for (i, f) in m.functions.iter().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            self.function(f);
        }
        self.out
    }

    /// `extern "C" __global__ void [__launch_bounds__(…)] entry(params) { body }`.
    fn function(&mut self, f: &Function) {
        let bounds = match f.bounds {
            None => String::new(),
            Some(LaunchBounds {
                threads,
                min_blocks: None,
            }) => format!("__launch_bounds__({threads}) "),
            Some(LaunchBounds {
                threads,
                min_blocks: Some(b),
            }) => format!("__launch_bounds__({threads}, {b}) "),
        };
        self.out.push_str(&format!(
            "extern \"C\" __global__ void {bounds}{}(\n",
            f.entry
        ));
        for (i, (ty, name)) in f.params.iter().enumerate() {
            let last = i + 1 == f.params.len();
            let sep = match (last, f.close_on_last) {
                (false, _) => ",",
                (true, true) => ")",
                (true, false) => "",
            };
            self.out.push_str(&format!("{INDENT}{ty} {name}{sep}\n"));
        }
        if !f.close_on_last {
            self.out.push_str(")\n");
        }
        self.out.push_str("{\n");
        self.stmts(&f.body, 1);
        self.out.push_str("}\n");
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str(INDENT);
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn stmts(&mut self, stmts: &[Stmt], indent: usize) {
        for s in stmts {
            self.stmt(s, indent);
        }
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) {
        match s {
            Stmt::Body(text) => {
                for l in text.strip_suffix('\n').unwrap_or(text).split('\n') {
                    self.line(indent, l);
                }
            }
            Stmt::Comment(c) => self.line(indent, &format!("// {c}")),
            Stmt::Hook(h) if self.dump => self.line(indent, &format!("// [hook: {h:?}]")),
            Stmt::Hook(_) => {}
            Stmt::Scope(v) => self.braced(indent, "{", v, "}"),
            Stmt::Once(v) => self.braced(indent, "do {", v, "} while (0);"),
            Stmt::If(i) if !i.inline => self.if_(i, indent),
            Stmt::If(If {
                cond,
                then,
                els: Some(e),
                inline: true,
            }) => {
                self.line(indent, &format!("if ({cond}) {}", one(then)));
                self.line(indent, &format!("else {}", one(e)));
            }
            Stmt::Loop(l) => self.loop_(l, indent),
            s => self.line(indent, &simple(s)),
        }
    }

    /// `head`, `v` one level in, `tail`.
    fn braced(&mut self, indent: usize, head: &str, v: &[Stmt], tail: &str) {
        self.line(indent, head);
        self.stmts(v, indent + 1);
        self.line(indent, tail);
    }

    fn if_(&mut self, i: &If, indent: usize) {
        self.line(indent, &format!("if ({}) {{", i.cond));
        self.stmts(&i.then, indent + 1);
        let mut els = i.els.as_deref();
        while let Some(e) = els {
            if let [Stmt::If(j)] = e
                && !j.inline
            {
                self.line(indent, &format!("}} else if ({}) {{", j.cond));
                self.stmts(&j.then, indent + 1);
                els = j.els.as_deref();
            } else {
                self.line(indent, "} else {");
                self.stmts(e, indent + 1);
                els = None;
            }
        }
        self.line(indent, "}");
    }

    fn loop_(&mut self, l: &Loop, indent: usize) {
        if self.dump
            && let Some(role) = l.role.describe()
        {
            self.line(indent, &format!("// [loop: {role}]"));
        }
        match l.unroll {
            Some(Unroll::Full) => self.line(indent, "#pragma unroll"),
            Some(Unroll::By(n)) => self.line(indent, &format!("#pragma unroll {n}")),
            None => {}
        }
        let head = format!("for ({}; {}; {})", l.init, l.cond, l.step);
        if l.inline {
            self.line(indent, &format!("{head} {}", one(&l.body)));
        } else {
            self.braced(indent, &format!("{head} {{"), &l.body, "}");
        }
    }
}

/// The one single-line statement of an inline branch or loop body.
fn one(v: &[Stmt]) -> String {
    match v {
        [s] => simple(s),
        _ => panic!("an inline branch holds one statement"),
    }
}

/// ` // note`, or nothing.
fn note(n: &Option<String>) -> String {
    n.as_ref().map(|n| format!(" // {n}")).unwrap_or_default()
}

/// The text of a statement that fits one line.
fn simple(s: &Stmt) -> String {
    match s {
        Stmt::Decl(d) => decl(d),
        Stmt::Assign { lhs, rhs } => format!("{lhs} = {rhs};"),
        Stmt::Expr(e) => format!("{e};"),
        Stmt::Break => "break;".into(),
        Stmt::Line(v) => {
            let parts: Vec<String> = v.iter().map(simple).collect();
            format!("{{ {} }}", parts.join(" "))
        }
        Stmt::If(If {
            cond,
            then,
            els: None,
            ..
        }) => format!("if ({cond}) {}", one(then)),
        Stmt::Barrier { note: n } => format!("__syncthreads();{}", note(n)),
        Stmt::Shared(sh) => shared(sh),
        Stmt::SharedView {
            ty,
            name,
            rows,
            cols,
            base,
            offset,
            slots,
        } => format!(
            "{ty} (*{name})[{rows}][{cols}] = reinterpret_cast<{ty} (*)[{rows}][{cols}]>({base} + {offset}); // {slots} slot(s)"
        ),
        Stmt::AsyncCopy(c) => async_copy(c),
        Stmt::AsyncCommit => "mint_cp_async_commit();".into(),
        Stmt::AsyncWait { pending, note: n } => {
            format!("mint_cp_async_wait<{pending}>();{}", note(n))
        }
        Stmt::VLoad(l) => vload(l),
        Stmt::VStore(s) => vstore(s),
        Stmt::VMove { dst, src } => format!("mint_vmove({dst}, {src});"),
        Stmt::Body(_)
        | Stmt::Comment(_)
        | Stmt::Hook(_)
        | Stmt::Scope(_)
        | Stmt::Once(_)
        | Stmt::If(_)
        | Stmt::Loop(_) => panic!("not a single-line statement: {s:?}"),
    }
}

fn decl(d: &Decl) -> String {
    let vars: Vec<String> = d
        .vars
        .iter()
        .map(|v| {
            let mut s = v.name.clone();
            if let Some(n) = v.len {
                s.push_str(&format!("[{n}]"));
            }
            if let Some(i) = &v.init {
                s.push_str(&format!(" = {i}"));
            }
            s
        })
        .collect();
    format!(
        "{}{} {};",
        if d.konst { "const " } else { "" },
        d.ty,
        vars.join(", ")
    )
}

fn shared(s: &Shared) -> String {
    let align = s
        .align
        .map(|a| format!("__align__({a}) "))
        .unwrap_or_default();
    if s.dims.is_empty() {
        format!("extern __shared__ {align}{} {}[];", s.ty, s.name)
    } else {
        let dims: String = s.dims.iter().map(|d| format!("[{d}]")).collect();
        format!("__shared__ {align}{} {}{dims};", s.ty, s.name)
    }
}

fn async_copy(c: &AsyncCopy) -> String {
    let helper = if c.chunk16 {
        "mint_cp_async16"
    } else {
        "mint_cp_async"
    };
    format!(
        "{helper}(&{}, {} ? &{}[{}] : {}, {});",
        c.dst, c.pred, c.array, c.offset, c.array, c.pred
    )
}

fn vload(l: &VLoad) -> String {
    match &l.src {
        VSource::Global { array, index, rw } => format!(
            "mint_vload{}({array}, {index}, {});",
            if *rw { "_rw" } else { "" },
            l.dst
        ),
        VSource::Shared(at) => format!("mint_vload_shared(&{at}, {});", l.dst),
    }
}

fn vstore(s: &VStore) -> String {
    match &s.count {
        None => format!("mint_vstore({}, {}, {});", s.array, s.index, s.src),
        Some(n) => format!(
            "mint_vstore_part({}, {}, {n}, {});",
            s.array, s.index, s.src
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kir::{Builder, LoopRole, Var};

    #[test]
    fn loops_ifs_and_one_line_statements_print_with_the_translator_s_layout() {
        let mut b = Builder::new();
        b.comment("z window");
        let l =
            Loop::new(LoopRole::ZWindow, "idx_t z = 0", "z < 4", "++z").unroll(Some(Unroll::By(1)));
        b.for_(l, |b| {
            b.push(Stmt::vars("double", vec![Var::array("q", 2)]));
            b.push(Stmt::if_line("z >= n", Stmt::Break));
            b.push(Stmt::Barrier {
                note: Some("planes loaded".into()),
            });
        });
        let inner = b.nest(|b| b.push(Stmt::AsyncCommit));
        b.push(Stmt::if_else(
            "a",
            vec![Stmt::assign("x", "1")],
            vec![Stmt::if_("b", inner)],
        ));
        let text = block(&b.finish(), 1);
        assert_eq!(
            text,
            "    // z window\n    #pragma unroll 1\n    for (idx_t z = 0; z < 4; ++z) {\n        double q[2];\n        if (z >= n) break;\n        __syncthreads(); // planes loaded\n    }\n    if (a) {\n        x = 1;\n    } else if (b) {\n        mint_cp_async_commit();\n    }\n"
        );
    }

    #[test]
    fn a_module_prints_its_header_helpers_and_functions() {
        let f = |close_on_last| Function {
            entry: "k".into(),
            bounds: Some(LaunchBounds {
                threads: 128,
                min_blocks: Some(2),
            }),
            params: vec![("int".into(), "a".into()), ("int".into(), "b".into())],
            close_on_last,
            body: vec![Stmt::Shared(Shared {
                ty: "float".into(),
                name: "s".into(),
                dims: vec![2, 8],
                align: Some(16),
            })],
        };
        let m = Module {
            comments: vec!["hello".into()],
            idx64: true,
            helpers: "// helpers\n".into(),
            functions: vec![f(false), f(true)],
        };
        assert_eq!(
            module(&m),
            "// hello\ntypedef long long idx_t;\n// helpers\nextern \"C\" __global__ void __launch_bounds__(128, 2) k(\n    int a,\n    int b\n)\n{\n    __shared__ __align__(16) float s[2][8];\n}\n\nextern \"C\" __global__ void __launch_bounds__(128, 2) k(\n    int a,\n    int b)\n{\n    __shared__ __align__(16) float s[2][8];\n}\n"
        );
    }
}
