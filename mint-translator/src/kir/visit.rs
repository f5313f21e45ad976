//! Walking the kernel IR, for the passes (`crate::passes`): every statement of a tree, the
//! C text of one statement's expressions, and the [`Hook`]s a lowering left.

use super::{Hook, If, Stmt, VSource};

/// The statement lists `s` holds: a scope's, a branch's, a loop's body.
fn children_mut(s: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match s {
        Stmt::Scope(v) | Stmt::Line(v) | Stmt::Once(v) => vec![v],
        Stmt::If(If { then, els, .. }) => {
            let mut out = vec![then];
            out.extend(els.as_mut());
            out
        }
        Stmt::Loop(l) => vec![&mut l.body],
        _ => Vec::new(),
    }
}

/// Calls `f` on every statement of `stmts` and of the statements they hold, each before
/// those it holds.
pub fn each_mut(stmts: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for s in stmts {
        f(s);
        for v in children_mut(s) {
            each_mut(v, f);
        }
    }
}

/// Calls `f` on every statement list of the tree (`stmts` itself first), for passes that
/// insert or remove statements.
pub fn lists_mut(stmts: &mut Vec<Stmt>, f: &mut impl FnMut(&mut Vec<Stmt>)) {
    f(stmts);
    for s in stmts.iter_mut() {
        for v in children_mut(s) {
            lists_mut(v, f);
        }
    }
}

/// Calls `f` on the C text of each expression of `s` itself (not of the statements it
/// holds): initial values, both sides of an assignment, conditions, loop heads, the
/// operands of copies, vector loads and stores. Not on the loop body's text
/// ([`Stmt::Body`], the stencil's statements as the expression printer wrote them), nor on
/// comments, types and declared names.
pub fn exprs_mut(s: &mut Stmt, f: &mut impl FnMut(&mut String)) {
    match s {
        Stmt::Expr(e) => f(e),
        Stmt::Decl(d) => d
            .vars
            .iter_mut()
            .filter_map(|v| v.init.as_mut())
            .for_each(f),
        Stmt::Assign { lhs, rhs } => [lhs, rhs].into_iter().for_each(f),
        Stmt::If(i) => f(&mut i.cond),
        Stmt::Loop(l) => [&mut l.init, &mut l.cond, &mut l.step]
            .into_iter()
            .for_each(f),
        Stmt::AsyncCopy(c) => [&mut c.dst, &mut c.array, &mut c.offset, &mut c.pred]
            .into_iter()
            .for_each(f),
        Stmt::VLoad(l) => {
            match &mut l.src {
                VSource::Global { array, index, .. } => {
                    [array, index].into_iter().for_each(&mut *f)
                }
                VSource::Shared(at) => f(at),
            }
            f(&mut l.dst)
        }
        Stmt::VStore(v) => {
            [&mut v.array, &mut v.index, &mut v.src]
                .into_iter()
                .for_each(&mut *f);
            v.count.iter_mut().for_each(f)
        }
        Stmt::VMove { dst, src } => [dst, src].into_iter().for_each(f),
        Stmt::Body(_)
        | Stmt::Comment(_)
        | Stmt::Scope(_)
        | Stmt::Line(_)
        | Stmt::Once(_)
        | Stmt::Break
        | Stmt::Barrier { .. }
        | Stmt::Shared(_)
        | Stmt::SharedView { .. }
        | Stmt::AsyncCommit
        | Stmt::AsyncWait { .. }
        | Stmt::Hook(_) => {}
    }
}

/// Replaces the first `hook` of the tree by `with`; returns whether the tree had one.
pub fn fill_hook(stmts: &mut Vec<Stmt>, hook: Hook, with: Vec<Stmt>) -> bool {
    let mut with = Some(with);
    lists_mut(stmts, &mut |v| {
        if let Some(i) = v.iter().position(|s| *s == Stmt::Hook(hook))
            && let Some(w) = with.take()
        {
            v.splice(i..=i, w);
        }
    });
    with.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kir::{Loop, LoopRole};

    #[test]
    fn a_hook_is_filled_where_the_lowering_left_it_and_expressions_are_rewritten() {
        let mut l = Loop::new(LoopRole::Plain, "int i = 0", "i < blockIdx.y", "++i");
        l.body = vec![
            Stmt::Hook(Hook::BlockIndices),
            Stmt::Body("a = b;\n".into()),
        ];
        let mut tree = vec![Stmt::Loop(l), Stmt::assign("x", "blockIdx.y")];
        assert!(fill_hook(
            &mut tree,
            Hook::BlockIndices,
            vec![Stmt::Comment("here".into())]
        ));
        assert!(!fill_hook(&mut tree, Hook::Accumulator, Vec::new()));
        each_mut(&mut tree, &mut |s| {
            exprs_mut(s, &mut |e| *e = e.replace("blockIdx.y", "by"))
        });
        let Stmt::Loop(l) = &tree[0] else {
            panic!("a loop")
        };
        assert_eq!(l.cond, "i < by");
        assert_eq!(
            l.body,
            vec![Stmt::Comment("here".into()), Stmt::Body("a = b;\n".into())]
        );
        assert_eq!(tree[1], Stmt::assign("x", "by"));
    }
}
