//! Prints a generated case's kernel as CUDA and its interpreter values (a probe for issue
//! #14's fuzzing): `probe SEED [INDEX]`; `probe SEED --rust` prints it as a regression test.
fn main() {
    let seed: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let c = mint_testing::generate::case(seed);
    if std::env::args().nth(2).as_deref() == Some("--rust") {
        // the case written out as a regression test (as tests/fuzz.rs does after shrinking)
        println!(
            "{}",
            mint_testing::shrink::regression_test(&c, &format!("fuzz_{seed}"))
        );
        return;
    }
    let mut k = c.kernel.clone();
    mint_translator::check(&mut k).unwrap();
    let t = mint_translator::translate(&k, &mint_translator::Target::default()).unwrap();
    println!("{}", t.source);
    println!("options {:?} clauses {:?}", k.options, k.clauses);
    println!(
        "shape {:?} bounds {:?} scalars {:?}",
        c.shape, c.bounds, c.scalars
    );
    if let Some(i) = std::env::args().nth(2).map(|s| s.parse::<usize>().unwrap()) {
        for (p, a) in k.arrays.iter().zip(&c.arrays) {
            let lo = i.saturating_sub(4);
            let v: Vec<f64> = a.data[lo..(i + 5).min(a.data.len())]
                .iter()
                .map(|v| v.as_f64())
                .collect();
            println!("{} [{lo}..]: {v:?}", p.name);
        }
        let mut arrays = c.arrays.clone();
        let r = mint_testing::interp::run(
            &k,
            mint_testing::interp::Launch {
                arrays: &mut arrays,
                scalars: &c.scalars,
                bounds: &c.bounds,
                reduction: c.reduction,
            },
        )
        .unwrap();
        for (p, a) in k.arrays.iter().zip(&arrays) {
            println!("after {}[{i}] = {:?}", p.name, a.data[i]);
        }
        println!("reduction {r:?}");
        let ai = k.arrays.iter().position(|a| a.name == "acc");
        if let Some(ai) = ai {
            let old = c.arrays[ai]
                .data
                .iter()
                .map(|v| v.as_f64())
                .fold(f64::MIN, f64::max);
            let new = arrays[ai]
                .data
                .iter()
                .map(|v| v.as_f64())
                .fold(f64::MIN, f64::max);
            println!("acc max old {old} new {new}");
        }
    }
}
#[allow(dead_code)]
fn unused() {}
