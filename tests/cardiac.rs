//! The cardiac example (examples/cardiac): the Mint region against the plain serial loops
//! of the same steps, on the CPU (identical) and the GPU (to rounding), and its command
//! line's errors.

mod common;

#[allow(dead_code)]
#[path = "../examples/cardiac/model.rs"]
mod model;

use ndarray::Array2;

macro_rules! cpu_equals_serial {
    ($name:ident, $t:ident) => {
        #[test]
        fn $name() {
            // 96×96 for T = 30 (a few hundred steps): the fronts have moved and curled
            let n = 96;
            let (mut e_prev, mut r) = model::initial::<$t>(n);
            let mut e = e_prev.clone();
            let (mut want, mut r_want) = (e_prev.clone(), r.clone());
            let niter = mint::with_device(mint::Device::Cpu, || {
                model::simulate::<$t>(
                    &mut e,
                    &mut e_prev,
                    &mut r,
                    30.0,
                    [32, 8],
                    0,
                    &mut |_, _| {},
                )
            })
            .unwrap();
            let want_iter = model::serial::<$t>(&mut want, &mut r_want, 30.0);
            assert_eq!(niter, want_iter);
            assert!(niter > 100, "{niter} iterations");
            // the same operations in the same order: identical bits
            assert_eq!(e_prev, want, "E differs from the serial loops");
            assert_eq!(r, r_want, "R differs from the serial loops");
            let (mx, l2) = model::stats(&e_prev);
            assert!(
                mx > 0.5 && l2 > 0.1,
                "the excitation died out: Max {mx} L2 {l2}"
            );
        }
    };
}
cpu_equals_serial!(cpu_backend_equals_the_serial_loops_f64, f64);
cpu_equals_serial!(cpu_backend_equals_the_serial_loops_f32, f32);

#[test]
fn gpu_agrees_with_the_serial_loops() {
    let Some(gpu) = common::gpu() else { return };
    let n = 200;
    macro_rules! check {
        ($t:ident, $tol:expr) => {{
            let (mut e_prev, mut r) = model::initial::<$t>(n);
            let mut e = e_prev.clone();
            let (mut want, mut r_want) = (e_prev.clone(), r.clone());
            let mut frames = Vec::new();
            let niter = mint::with_device(gpu, || {
                model::simulate::<$t>(
                    &mut e,
                    &mut e_prev,
                    &mut r,
                    20.0,
                    [32, 8],
                    100,
                    &mut |it, ep: &Array2<$t>| frames.push((it, ep.clone())),
                )
            })
            .unwrap();
            assert_eq!(niter, model::serial::<$t>(&mut want, &mut r_want, 20.0));
            let e = common::max_rel_err(&e_prev, &want);
            let er = common::max_rel_err(&r, &r_want);
            assert!(
                e < $tol && er < $tol,
                "{}: E differs by {e:e}, R by {er:e}",
                stringify!($t)
            );
            // frames are copies of E at their iteration: the last equals the final state
            // when the count is a multiple of the interval
            assert_eq!(frames.len(), niter / 100);
            if niter % 100 == 0 {
                assert_eq!(frames.last().unwrap().1, e_prev);
            }
        }};
    }
    // the GPU contracts a*b + c into fused multiply-adds: rounding differs, and an
    // excitable medium amplifies it near the fronts
    check!(f64, 1e-9);
    check!(f32, 2e-3);
}

fn example() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("cardiac");
    assert!(
        p.exists(),
        "the cardiac example was not built at {}",
        p.display()
    );
    p
}

#[test]
fn the_command_line_runs_and_prints_the_thesis_statistics() {
    // the model as the thesis writes it, then written to be blocked over time: both the
    // serial loops' E to the bit, and the same statistics
    let mut stats = Vec::new();
    for blocked in [&[][..], &["--blocked"][..]] {
        let out = std::process::Command::new(example())
            .args([
                "-n",
                "64",
                "-t",
                "5",
                "--precision",
                "f32",
                "--verify",
                "--tile",
                "64,4",
            ])
            .args(blocked)
            .env("MINT_DEVICE", "cpu")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("largest difference of E 0.000e0"), "{text}");
        let line = text
            .lines()
            .find(|l| l.starts_with("Max: "))
            .map(String::from);
        assert!(
            line.as_ref().is_some_and(|l| l.contains(" L2norm: ")),
            "{text}"
        );
        stats.push(line);
    }
    assert_eq!(stats[0], stats[1], "blocked and step by step");
}

#[test]
fn bad_arguments_are_errors() {
    for (args, expect) in [
        (vec!["-n", "1"], "at least 3 interior points"),
        (vec!["-t", "0"], "must be a positive simulated time"),
        (vec!["--precision", "f16"], "invalid value 'f16'"),
        (vec!["--device", "gpu7"], "gpu7"),
        (vec!["--tile", "32,8,1"], "--tile takes two values"),
        (vec!["--blocked", "--plot", "5"], "drop --blocked"),
    ] {
        let out = std::process::Command::new(example())
            .args(&args)
            .env("MINT_DEVICE", "cpu")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            err.contains(expect),
            "{args:?}: stderr lacks `{expect}`:\n{err}"
        );
    }
}
