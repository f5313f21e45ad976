//! The benchmark harness runs end to end on whatever backend is present (the CPU in CI,
//! at a small size), so it cannot rot.

use mint_kernels::harness::{self, Config};
use mint_kernels::{Kernel, Level, Precision};

#[test]
fn the_harness_checks_and_times_every_kernel_at_a_small_size() {
    let c = Config {
        kernels: Kernel::ALL.to_vec(),
        precisions: vec![Precision::F64, Precision::F32],
        levels: vec![Level::Baseline, Level::Opt3],
        size3: 20,
        size2: 40,
        steps: 2,
        reps: 3,
        check_size: 20,
        verbose: false,
        tune: false,
    };
    let r = harness::run(&c).unwrap();
    let hand = r
        .rows
        .iter()
        .filter(|r| r.level.starts_with("hand-cuda"))
        .count();
    assert_eq!(r.rows.len() - hand, Kernel::ALL.len() * 2 * 2);
    // on a GPU the hand-written references are checked against the serial reference too
    // (status "ok" below); the CPU has none
    let want_hand: usize = Kernel::ALL
        .iter()
        .map(|&k| mint_kernels::hand::variants(k).len() * 2)
        .sum();
    let on_gpu = matches!(mint::backend().unwrap(), mint::Backend::Cuda(_));
    assert_eq!(hand, if on_gpu { want_hand } else { 0 });
    for row in &r.rows {
        assert_eq!(row.status, "ok", "{row:?}");
        assert!(row.gpts > 0.0 && row.seconds_per_step > 0.0, "{row:?}");
        // the median of the runs' times, each kept in the order they ran
        let mut reps = row.rep_seconds.clone();
        assert_eq!(reps.len(), c.reps, "{row:?}");
        reps.sort_by(f64::total_cmp);
        assert_eq!(row.seconds_per_step, reps[1], "{row:?}");
    }
    let md = r.markdown(&c.levels);
    assert!(
        md.contains("| heat3d-7pt | f64 |") && md.contains("| star2d-r8 | f32 |"),
        "{md}"
    );
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"gflops\""));
}
