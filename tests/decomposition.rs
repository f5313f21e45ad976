//! Regions split over several devices (issue #12), on the CPU backend emulating 2, 3 and
//! 4 devices (`MINT_DEVICE=cpu:N`) and, where a GPU is present, on 2 and 3 slabs of GPU 0
//! (`cuda:0,0`, `cuda:0,0,0`) and on every GPU: every result bitwise equal to one
//! device's of the same backend, on grids
//! that do not divide among the devices, with the sources and receivers of the seismic
//! example on and next to slab boundaries; and the errors of kernels that cannot be split.

mod common;
#[path = "common/seismic_case.rs"]
mod seismic_case;

#[allow(dead_code)]
#[path = "../examples/seismic/config.rs"]
mod config;
#[allow(dead_code)]
#[path = "../examples/seismic/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../examples/seismic/solver.rs"]
mod solver;
#[allow(dead_code)]
#[path = "../examples/seismic/stencil.rs"]
mod stencil;

#[allow(dead_code)]
#[path = "../examples/cardiac/model.rs"]
mod cardiac;

use common::split_families;
use mint::Device;
use mint_kernels::{Kernel, Level, Opts, Precision};
use ndarray::{Array2, Array3};

/// Bit patterns, so that equality is bitwise (and NaN equals itself).
fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_suite_kernel_split_equals_one_device() {
    for k in Kernel::ALL {
        for p in [Precision::F32, Precision::F64] {
            // Odd sizes: 23 planes split 12/11, 8/8/7, 6/6/6/5; the radius-8 star's
            // slabs are then thinner than its 8 ghost planes.
            let sh = if k.dims() == 2 {
                vec![41, 29]
            } else {
                vec![23, 17, 19]
            };
            for ((single, splits), opts) in split_families()
                .into_iter()
                .flat_map(|f| [(f.clone(), Opts::None), (f, Opts::SharedRegister)])
            {
                let (tile, chunk) = Level::Opt3.config(k.dims());
                let mut one = k.instance(p, &sh, 5);
                mint::with_device(single, || one.run(opts, tile, chunk, 3)).unwrap();
                let want = bits(&one.output());
                for d in splits {
                    let mut got = k.instance(p, &sh, 5);
                    mint::with_device(d, || got.run(opts, tile, chunk, 3)).unwrap();
                    assert!(
                        bits(&got.output()) == want,
                        "{} {} {opts:?} on {d:?} differs from one device",
                        k.name(),
                        p.name()
                    );
                }
            }
        }
    }
}

macro_rules! cardiac_split {
    ($name:ident, $t:ident) => {
        #[test]
        fn $name() {
            // 61 interior rows plus 2 boundary rows: 63 rows split 32/31, 21/21/21, 16/16/16/15
            let n = 61;
            let run = |d: Device| {
                let (mut e_prev, mut r) = cardiac::initial::<$t>(n);
                let mut e = e_prev.clone();
                let niter = mint::with_device(d, || {
                    cardiac::simulate::<$t>(
                        &mut e,
                        &mut e_prev,
                        &mut r,
                        5.0,
                        [32, 8],
                        0,
                        &mut |_, _| {},
                    )
                })
                .unwrap();
                (niter, e_prev, r)
            };
            for (single, splits) in split_families() {
                let (n1, e1, r1) = run(single);
                assert!(n1 > 20, "{n1} iterations");
                for d in splits {
                    let (nd, ed, rd) = run(d);
                    assert_eq!(nd, n1, "{d:?}: iterations");
                    assert!(
                        ed.iter().zip(&e1).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{d:?}: E differs from one device"
                    );
                    assert!(
                        rd.iter().zip(&r1).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{d:?}: R differs from one device"
                    );
                }
            }
        }
    };
}
cardiac_split!(cardiac_split_equals_one_device_f64, f64);
cardiac_split!(cardiac_split_equals_one_device_f32, f32);

/// `file`'s coarse set-up ([`seismic_case::setup`]): seismograms and the PGV map on one
/// device and on each split.
/// Overlapped exchanges are process-wide switches: one test at a time changes them.
static OVERLAP: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn overlapped_halo_exchanges_equal_waited_ones() {
    let _g = OVERLAP.lock().unwrap_or_else(|p| p.into_inner());
    // 6 steps of stars of radius 1 and 4 (the latter's slabs thinner than twice its
    // ghost width on 4 devices: all boundary, no interior)
    for k in [Kernel::Heat3d, Kernel::Star3d(4)] {
        let sh = vec![37, 21, 23];
        for (single, splits) in split_families() {
            let (tile, chunk) = Level::Opt3.config(3);
            let run = |d: Device, overlap: bool| {
                mint::overlap::set_overlap(Some(overlap));
                let mut one = k.instance(Precision::F64, &sh, 7);
                let r = mint::with_device(d, || one.run(Opts::SharedRegister, tile, chunk, 6));
                mint::overlap::set_overlap(None);
                r.unwrap();
                bits(&one.output())
            };
            let want = run(single, false);
            for d in splits {
                let before = mint::overlap::overlapped_exchanges();
                let on = run(d, true);
                assert!(
                    mint::overlap::overlapped_exchanges() > before,
                    "{k:?} {d:?}: no exchange went out after its kernel"
                );
                assert!(
                    on == want,
                    "{k:?} {d:?}: overlapped differs from one device"
                );
                assert!(run(d, false) == want, "{k:?} {d:?}: waited differs");
            }
        }
    }
}

#[test]
fn nccl_halos_equal_one_gpu() {
    let _g = OVERLAP.lock().unwrap_or_else(|p| p.into_inner());
    let Some(one) = common::gpu() else { return };
    if !mint::nccl::available() {
        assert!(
            std::env::var_os("MINT_REQUIRE_NCCL").is_none(),
            "MINT_REQUIRE_NCCL is set but libnccl.so.2 was not found"
        );
        eprintln!("skipped: libnccl.so.2 not found (the NCCL half of this test did not run)");
        return;
    }
    for k in [Kernel::Heat3d, Kernel::Star3d(4)] {
        let sh = vec![37, 21, 23];
        let (tile, chunk) = Level::Opt3.config(3);
        let run = |d: Device| {
            let mut a = k.instance(Precision::F64, &sh, 7);
            mint::with_device(d, || a.run(Opts::SharedRegister, tile, chunk, 6)).unwrap();
            bits(&a.output())
        };
        let want = run(one);
        for d in common::gpu_splits() {
            for overlap in [false, true] {
                mint::overlap::set_overlap(Some(overlap));
                mint::nccl::set_nccl(Some(true));
                let before = mint::nccl::nccl_exchanges();
                let got = run(d);
                let through = mint::nccl::nccl_exchanges() - before;
                mint::nccl::set_nccl(None);
                mint::overlap::set_overlap(None);
                assert!(
                    through > 0,
                    "{k:?} {d:?}: no exchange went through NCCL ({})",
                    mint::nccl::not_used_because()
                        .unwrap_or_else(|| "every communicator was made".into())
                );
                assert!(
                    got == want,
                    "{k:?} {d:?} overlap {overlap}: NCCL halos differ from one GPU"
                );
            }
        }
    }
}

fn seismic_split(file: &str) {
    let setup = seismic_case::setup(file);
    for (single, splits) in split_families() {
        let one =
            mint::with_device(single, || solver::run(&setup, [32, 4, 1], &mut |_| {})).unwrap();
        assert!(
            one.seismograms.iter().any(|v| v.abs() > 0.0),
            "the waves reached no receiver"
        );
        for d in splits {
            let got =
                mint::with_device(d, || solver::run(&setup, [32, 4, 1], &mut |_| {})).unwrap();
            let same = |a: &Array3<f32>, b: &Array3<f32>| {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            };
            let same2 = |a: &Array2<f32>, b: &Array2<f32>| {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            };
            if !same(&got.seismograms, &one.seismograms) {
                let first = got
                    .seismograms
                    .indexed_iter()
                    .find(|(i, v)| v.to_bits() != one.seismograms[*i].to_bits())
                    .map(|(i, v)| (i, *v, one.seismograms[i]));
                panic!(
                    "{file} on {d:?}: seismograms differ from one device, first at (step, receiver, component) {first:?}"
                );
            }
            assert!(
                same2(&got.pgv, &one.pgv),
                "{file} on {d:?}: the PGV map differs from one device"
            );
        }
    }
}

#[test]
fn seismic_loh1_coarse_split_equals_one_device() {
    seismic_split("loh1.toml");
}

#[test]
fn seismic_loh3_coarse_with_q_split_equals_one_device() {
    seismic_split("loh3.toml");
}

// ---------------------------------------------------------------- what cannot be split

/// Writes two distributed arrays at two offsets from `z`: not split (the clip would
/// differ per array), so it runs owner-computes.
#[mint::parallel]
fn two_offsets(u: &Array3<f64>, v: &mut Array3<f64>, w: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    mint::copy!(w, to_device);
    #[mint::r#for(nest(all))]
    for z in 1..nz - 1 {
        for y in 0..ny {
            for x in 0..nx {
                v[[z + 1, y, x]] = u[[z, y, x]] + u[[z - 1, y, x]];
                w[[z, y, x]] = 2.0 * u[[z + 1, y, x]];
            }
        }
    }
    mint::copy!(v, from_device);
    mint::copy!(w, from_device);
    Ok(())
}

#[test]
fn writes_at_two_offsets_run_owner_computes_and_equal_one_device() {
    let u = Array3::<f64>::from_shape_fn((9, 4, 5), |(z, y, x)| (z * 20 + y * 5 + x) as f64);
    for (single, splits) in split_families() {
        let (mut v1, mut w1) = (Array3::zeros((9, 4, 5)), Array3::zeros((9, 4, 5)));
        mint::with_device(single, || two_offsets(&u, &mut v1, &mut w1)).unwrap();
        assert_eq!(v1[[8, 0, 0]], u[[7, 0, 0]] + u[[6, 0, 0]]);
        for d in splits {
            let (mut v, mut w) = (Array3::zeros((9, 4, 5)), Array3::zeros((9, 4, 5)));
            mint::with_device(d, || two_offsets(&u, &mut v, &mut w)).unwrap();
            assert_eq!((&v, &w), (&v1, &w1), "{d:?}");
        }
    }
}

/// A cumulative sum along z of an array the same kernel writes: each column needs every
/// plane, which no slab holds. (The first nest makes `u` distributed.)
#[mint::parallel]
fn running_sum(u: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                u[[z, y, x]] *= 2.0;
            }
        }
    }
    #[mint::r#for(nest(2))]
    for y in 0..ny {
        for x in 0..nx {
            for z in 1..nz {
                u[[z, y, x]] += u[[z - 1, y, x]];
            }
        }
    }
    mint::copy!(u, from_device);
    Ok(())
}

#[test]
fn reading_beyond_the_held_planes_is_an_error_naming_array_index_and_device() {
    let init = Array3::<f64>::from_shape_fn((10, 3, 4), |(z, y, x)| (z + y + x) as f64);
    for d in split_families().into_iter().flat_map(|f| f.1) {
        let mut u = init.clone();
        let r = mint::with_device(d, || running_sum(&mut u));
        match r {
            Err(mint::Error::OutsideSlab {
                array,
                index,
                device,
                message,
                ..
            }) => {
                assert_eq!(array, "u");
                assert_eq!(index.len(), 3);
                assert!(device < mint::Device::count(d), "{d:?}: device {device}");
                assert!(message.contains("holds"), "{message}");
            }
            other => panic!("{d:?}: {other:?}"),
        }
        assert_eq!(u, init, "host data untouched");
    }
}

/// A read-only array read along z by a serial loop is replicated, so the kernel runs.
#[mint::parallel]
fn column_means(a: &Array3<f64>, m: &mut Array2<f64>) -> mint::Result<f64> {
    let (nz, ny, nx) = a.dim();
    let mut total = 0.0;
    mint::copy!(a, to_device);
    mint::copy!(m, to_device);
    #[mint::r#for(nest(2), reduction(+: total))]
    for y in 0..ny {
        for x in 0..nx {
            let mut s = 0.0;
            for z in 0..nz {
                s += a[[z, y, x]];
            }
            m[[y, x]] = s / nz as f64;
            total += s;
        }
    }
    mint::copy!(m, from_device);
    Ok(total)
}

#[test]
fn read_only_arrays_read_along_the_split_axis_are_replicated() {
    let a =
        Array3::<f64>::from_shape_fn((11, 5, 6), |(z, y, x)| common::rnd((z * 5 + y) * 6 + x, 9));
    for (single, splits) in split_families() {
        let mut m1 = Array2::zeros((5, 6));
        let t1 = mint::with_device(single, || column_means(&a, &mut m1)).unwrap();
        for d in splits {
            let mut m = Array2::zeros((5, 6));
            let t = mint::with_device(d, || column_means(&a, &mut m)).unwrap();
            assert_eq!(m, m1, "{d:?}");
            // The kernel touches no distributed array: every device runs it whole and the
            // reduction is device 0's, the same bits as one device.
            assert_eq!(t.to_bits(), t1.to_bits(), "{d:?}");
        }
    }
}

/// A sum over a distributed array: the devices' partial sums are combined in device
/// order, so the result does not vary between runs (it may differ from one device's in
/// the last bits).
#[mint::parallel]
fn total(a: &Array3<f64>) -> mint::Result<f64> {
    let (nz, ny, nx) = a.dim();
    let mut s = 0.0;
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), reduction(+: s))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                s += a[[z, y, x]];
            }
        }
    }
    Ok(s)
}

#[test]
fn reductions_combine_devices_in_a_fixed_order() {
    let a = Array3::<f64>::from_shape_fn((13, 7, 9), |(z, y, x)| {
        common::rnd((z * 7 + y) * 9 + x, 11) - 0.5
    });
    let exact: f64 = a.iter().sum();
    for d in split_families().into_iter().flat_map(|f| f.1) {
        let first = mint::with_device(d, || total(&a)).unwrap();
        assert!(
            (first - exact).abs() <= 1e-12 * a.len() as f64,
            "{d:?}: {first} vs {exact}"
        );
        for _ in 0..5 {
            let again = mint::with_device(d, || total(&a)).unwrap();
            assert_eq!(
                again.to_bits(),
                first.to_bits(),
                "{d:?}: varies between runs"
            );
        }
    }
}
