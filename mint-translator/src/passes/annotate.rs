//! `MINT_ANNOTATE=1`: a comment before each loop of the kernel skeleton saying what it
//! walks (its `LoopRole`: a chunk, the z window, rows, lanes, the rounds of a plane
//! copy, the block's reduction), for reading generated kernels (`MINT_DUMP`). Off by
//! default; it changes no result.

use super::{Context, kernel_fn};
use crate::kir::visit::lists_mut;
use crate::kir::{Function, Module, Stmt};

/// Annotates the kernel's loops where `MINT_ANNOTATE` is `1`.
pub fn run(m: &mut Module, _cx: &Context) {
    if std::env::var("MINT_ANNOTATE").is_ok_and(|v| v == "1") {
        annotate(kernel_fn(m));
    }
}

/// Puts a comment with `LoopRole::describe` before each loop of `f` that has a role.
pub fn annotate(f: &mut Function) {
    lists_mut(&mut f.body, &mut |v| {
        let mut i = 0;
        while i < v.len() {
            if let Stmt::Loop(l) = &v[i]
                && let Some(role) = l.role.describe()
            {
                v.insert(i, Stmt::Comment(role.into()));
                i += 1;
            }
            i += 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kir::{Loop, LoopRole, print};

    #[test]
    fn each_loop_with_a_role_gets_a_comment_and_plain_loops_none() {
        let mut window = Loop::new(LoopRole::ZWindow, "idx_t z = z0", "z < z1", "++z");
        window.body = vec![Stmt::Loop(Loop::new(
            LoopRole::Plain,
            "int i = 0",
            "i < 2",
            "++i",
        ))];
        let mut f = Function {
            entry: "k".into(),
            bounds: None,
            params: Vec::new(),
            close_on_last: false,
            body: vec![Stmt::if_("go", vec![Stmt::Loop(window)])],
        };
        annotate(&mut f);
        assert_eq!(
            print::block(&f.body, 0),
            format!(
                "if (go) {{\n    // {}\n    for (idx_t z = z0; z < z1; ++z) {{\n        for (int i = 0; i < 2; ++i) {{\n        }}\n    }}\n}}\n",
                LoopRole::ZWindow.describe().unwrap()
            )
        );
    }
}
