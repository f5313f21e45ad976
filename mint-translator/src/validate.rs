//! Checks that a kernel body means the same on a GPU as the annotated loops mean on a CPU.
//!
//! A parallel loop body runs once per point, concurrently, so it may not assign host
//! scalars (other than the reduction variable), assign loop indices, or `break` out of the
//! parallel loop. Reductions must use an operator the element type supports.

use crate::diag::{Diag, DiagResult};
use crate::ir::*;
use std::collections::HashSet;

/// Runs every structural check on a type-checked kernel.
///
/// # Errors
/// One [`Diag`] per violation, each naming the fix.
pub fn check(kernel: &Kernel) -> DiagResult<()> {
    let mut diags = Vec::new();
    let scalars: HashSet<&str> = kernel.scalars.iter().map(|s| s.name.as_str()).collect();
    let loop_vars: HashSet<&str> = kernel.nest.iter().map(|l| l.var.as_str()).collect();
    let red = kernel.reduction.as_ref().map(|r| r.var.as_str());

    if let Some(r) = &kernel.reduction {
        if kernel.is_single() {
            diags.push(Diag::new(
                r.span,
                "`reduction` belongs on `#[mint::r#for]`, not on a `single` block",
            ));
        }
        match r.ty {
            Some(t) if !r.op.supports(t) => diags.push(Diag::new(
                r.span,
                format!(
                    "reduction({}: {}) is not supported for `{t}`; reductions support f32, f64, \
                     i32, i64 and u32: accumulate into a variable of one of those types",
                    r.op.symbol(),
                    r.var
                ),
            )),
            _ => {}
        }
        if kernel.clauses.nowait {
            diags.push(Diag::new(
                r.span,
                "a reduction's result is needed on the host when the loop ends, so it cannot be \
                 `nowait`: remove `nowait` or the reduction",
            ));
        }
    }

    let mut locals: Vec<HashSet<String>> = vec![HashSet::new()];
    walk(
        &kernel.body,
        &mut locals,
        0,
        &Ctx {
            scalars: &scalars,
            loop_vars: &loop_vars,
            red,
            single: kernel.is_single(),
        },
        &mut diags,
    );
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

struct Ctx<'a> {
    scalars: &'a HashSet<&'a str>,
    loop_vars: &'a HashSet<&'a str>,
    red: Option<&'a str>,
    single: bool,
}

fn is_local(locals: &[HashSet<String>], name: &str) -> bool {
    locals.iter().any(|s| s.contains(name))
}

/// A `let` or serial `for` of the kernel's IR that binds a parallel loop index again. The
/// stencil analyzer reads an index in a subscript as the thread's own; the macro front end
/// gives such a Rust binding (`let x = x + 1;`) a fresh name, so only IR built another way
/// can hold one.
fn rebinds_index(name: &str, span: SpanId, cx: &Ctx, diags: &mut Vec<Diag>) {
    if cx.loop_vars.contains(name) {
        diags.push(Diag::new(
            span,
            format!(
                "this binds the loop index `{name}` again; a subscript's `{name}` must be the \
                 loop's index: name the local differently"
            ),
        ));
    }
}

fn walk(
    b: &Block,
    locals: &mut Vec<HashSet<String>>,
    serial_depth: usize,
    cx: &Ctx,
    diags: &mut Vec<Diag>,
) {
    locals.push(HashSet::new());
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { name, .. } => {
                rebinds_index(name, s.span, cx, diags);
                locals.last_mut().unwrap().insert(name.clone());
            }
            StmtKind::Assign {
                place: Place::Var(name),
                ..
            } => {
                if is_local(locals, name) {
                    // a kernel-local variable: fine
                } else if cx.loop_vars.contains(name.as_str()) {
                    diags.push(Diag::new(
                        s.span,
                        format!(
                            "the loop index `{name}` cannot be assigned inside the loop; copy \
                             it into a local (`let mut i = {name};`)"
                        ),
                    ));
                } else if Some(name.as_str()) == cx.red {
                    // the reduction variable is private to each thread
                } else if cx.scalars.contains(name.as_str()) || !cx.single {
                    diags.push(Diag::new(
                        s.span,
                        format!(
                            "a kernel cannot assign the host variable `{name}`: every thread \
                             would write it at once. Use `reduction(op: {name})` on the \
                             directive, or a local `let mut` inside the loop"
                        ),
                    ));
                } else {
                    diags.push(Diag::new(
                        s.span,
                        format!(
                            "a `single` block cannot assign the host variable `{name}`; write \
                             the value into an array element and copy it back"
                        ),
                    ));
                }
            }
            StmtKind::Assign { .. } => {}
            StmtKind::If { then, els, .. } => {
                walk(then, locals, serial_depth, cx, diags);
                if let Some(e) = els {
                    walk(e, locals, serial_depth, cx, diags);
                }
            }
            StmtKind::For { var, body, .. } => {
                rebinds_index(var, s.span, cx, diags);
                locals.push(HashSet::from([var.clone()]));
                walk(body, locals, serial_depth + 1, cx, diags);
                locals.pop();
            }
            StmtKind::While { body, .. } => walk(body, locals, serial_depth + 1, cx, diags),
            StmtKind::Block(b) => walk(b, locals, serial_depth, cx, diags),
            StmtKind::Break if serial_depth == 0 => diags.push(Diag::new(
                s.span,
                if cx.single {
                    "`break` outside a loop of the `single` block"
                } else {
                    "`break` would leave the parallel loop, whose iterations run concurrently; \
                     use `continue` to skip a point, or an `if`"
                },
            )),
            StmtKind::Continue if serial_depth == 0 && cx.single => diags.push(Diag::new(
                s.span,
                "`continue` outside a loop of the `single` block",
            )),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
    locals.pop();
}

#[cfg(test)]
mod tests {
    use crate::testing::kernel;

    #[test]
    fn a_binding_of_a_loop_index_is_refused() {
        for body in [
            "let x = x + 1; v[z][y][1] = u[z][y][x];",
            "let mut t = 0.0; for y in 0..2 { t = t + u[z][y][x]; } v[z][1][x] = t;",
        ] {
            let mut k = kernel(
                "k",
                &format!(
                    "arrays: u f32 3, v f32 3
                     nest: z 1..n-1, y 1..n-1, x 1..n-1
                     {body}"
                ),
            );
            let e = crate::check(&mut k).unwrap_err();
            assert!(
                e.iter().any(|d| d.message.contains("binds the loop index")),
                "{body}: {e:?}"
            );
        }
        // a local of another name is what a rebinding becomes
        let mut k = kernel(
            "k",
            "arrays: u f32 3, v f32 3
             nest: z 1..n-1, y 1..n-1, x 1..n-1
             let x_1 = x + 1; v[z][y][x] = u[z][y][x_1];",
        );
        crate::check(&mut k).unwrap();
    }
}
