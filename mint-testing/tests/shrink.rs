//! The shrinker (`mint_testing::shrink`) against a predicate known in advance: "an
//! integer `min`/`max` has a negated operand", the shape of the ptxas bug that
//! `tests/fuzz.rs` found. Generated cases with that shape shrink to a kernel that still has
//! it, much smaller, and no smaller by a second pass (1-minimal).

use mint_testing::generate;
use mint_testing::shrink;
use mint_translator::ir::{ExprKind, MathFn, UnOp};

fn min_of_negation(c: &generate::Case) -> bool {
    let mut found = false;
    c.kernel.body.walk_exprs(&mut |e| {
        if let ExprKind::Call {
            func: MathFn::Min | MathFn::Max,
            args,
        } = &e.kind
        {
            found |= args
                .iter()
                .any(|a| matches!(a.kind, ExprKind::Unary { op: UnOp::Neg, .. }));
        }
    });
    found
}

#[test]
fn failing_cases_shrink_to_a_minimal_kernel_that_still_fails() {
    let seeds: Vec<u64> = (1..20_000)
        .filter(|&s| min_of_negation(&generate::case(s)))
        .take(6)
        .collect();
    assert!(
        seeds.len() >= 3,
        "generated cases with the shape: {seeds:?}"
    );
    for seed in seeds {
        let c = generate::case(seed);
        let mut calls = 0;
        let small = shrink::shrink(&c, 5000, &mut |d| {
            calls += 1;
            min_of_negation(d)
        });
        assert!(
            min_of_negation(&small),
            "seed {seed}: the shrunk case still fails"
        );
        let (before, after) = (shrink::size(&c), shrink::size(&small));
        assert!(
            after * 3 <= before && after <= 12,
            "seed {seed}: {before} -> {after} nodes ({calls} calls)\n{}",
            shrink::regression_test(&small, "shrunk")
        );
        let again = shrink::shrink(&small, 5000, &mut |d| min_of_negation(d));
        assert_eq!(shrink::size(&again), after, "seed {seed}: 1-minimal");
        // the written-out test carries the kernel: its min/max and the negation
        let text = shrink::regression_test(&small, &format!("fuzz_{seed}"));
        assert!(
            text.contains("#[mint::parallel")
                && text.contains("fn fuzz_")
                && (text.contains(".min(") || text.contains(".max("))
                && text.contains("(-"),
            "{text}"
        );
    }
}
