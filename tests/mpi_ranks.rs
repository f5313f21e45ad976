//! Regions across MPI ranks (issue #13): the same regions run under `mpirun -np 2` and
//! `-np 3` with one device per rank, and under `-np 2` with `MINT_DEVICE=cpu:2` per rank
//! (4 devices), must give every rank results bitwise equal to one device's: the kernel
//! suite in both precisions and at two optimization levels, the cardiac model, the
//! seismic solver at its coarse resolution (LOH.1 elastic and LOH.3 with attenuation,
//! with sources and receivers on the ranks' slab boundaries), and an owner-computes
//! kernel. Sums of `reduction`s combine the devices' partial values in device order, so
//! they must equal those of as many devices in one process (`cpu:N`) bit for bit.
//!
//! One test does it all. It runs `mpirun` on this same test binary with `MINT_MPI_OUT`
//! set; under that variable the test is a rank: it runs every case on the device
//! `MINT_DEVICE` names and writes each case's result to `MINT_MPI_OUT/<case>.<rank>`.
//! The parent then compares every rank's file with its own one-process run. Needs the
//! cargo feature `mpi` and `mpirun` on the `PATH` (`tests/mpi.rs` builds and runs this).
//! With a GPU, `-np 2` and `-np 3` with `MINT_DEVICE=cuda` also run: the ranks then all
//! drive GPU 0, and their halos go through the host and MPI.

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
#[path = "../examples/seismic/output.rs"]
mod output;
#[allow(dead_code)]
#[path = "../examples/seismic/solver.rs"]
mod solver;
#[allow(dead_code)]
#[path = "../examples/seismic/stencil.rs"]
mod stencil;

#[allow(dead_code)]
#[macro_use]
#[path = "../examples/cardiac/model.rs"]
mod cardiac;

use mint::Device;
use mint_kernels::{Kernel, Level, Opts, Precision};
use ndarray::Array3;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that makes this test a rank, naming the folder it writes to.
const OUT: &str = "MINT_MPI_OUT";

/// What a case's result must equal.
#[derive(Clone, Copy, Debug)]
enum Reference {
    /// One device of the same backend.
    OneDevice,
    /// As many devices in one process (`cpu:N`, or N slabs on GPU 0): a sum's partial
    /// values combine in device order, so only the device count fixes its last bits.
    SameDevices,
    /// Not a value: `[1, 1]` (the kernel's own fault, host data untouched) on the last
    /// rank and `[2, 1]` (another rank failed, host data untouched) on the others.
    LastRankFaults,
    /// `[lo, hi, the planes lo..hi]` of a [`mint::SlabArray3`]: each rank's owned planes
    /// of one device's result, the ranks' planes tiling the array in rank order.
    OwnedPlanes,
    /// `[peak resident bytes added, bytes of the global arrays]` on 3 or more ranks (where
    /// each holds at most a third): a rank must never have held the global arrays.
    Memory,
    /// `[1, 1]` on every rank: a clear error, the host arrays untouched.
    ErrorEverywhere,
    /// Flags (0 or 1) of what each rank takes on, which the ranks must share out: each
    /// position 1 on exactly one rank.
    Partition,
}

struct Case {
    name: &'static str,
    run: fn() -> Vec<u64>,
    reference: Reference,
}

const CASES: &[Case] = &[
    Case {
        name: "copy",
        run: copy_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "suite",
        run: suite,
        reference: Reference::OneDevice,
    },
    Case {
        name: "cardiac_f64",
        run: cardiac_case::<f64>,
        reference: Reference::OneDevice,
    },
    Case {
        name: "cardiac_f32",
        run: cardiac_case::<f32>,
        reference: Reference::OneDevice,
    },
    Case {
        name: "seismic_loh1",
        run: || seismic("loh1.toml"),
        reference: Reference::OneDevice,
    },
    Case {
        name: "seismic_loh3_q",
        run: || seismic("loh3.toml"),
        reference: Reference::OneDevice,
    },
    Case {
        name: "owner_computes",
        run: owner_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "periodic_ring",
        run: periodic_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "blocked_time_loop",
        run: blocked_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "auto_time_loop",
        run: auto_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "default_time_loop",
        run: default_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "leapfrog_time_loop",
        run: leapfrog_case,
        reference: Reference::OneDevice,
    },
    Case {
        name: "blocked_cardiac_f32",
        run: blocked_cardiac_case::<f32>,
        reference: Reference::OneDevice,
    },
    Case {
        name: "blocked_cardiac_f64",
        run: blocked_cardiac_case::<f64>,
        reference: Reference::OneDevice,
    },
    Case {
        name: "reductions",
        run: reductions,
        reference: Reference::SameDevices,
    },
    Case {
        name: "slab_arrays",
        run: slab_case,
        reference: Reference::OwnedPlanes,
    },
    Case {
        name: "slab_memory",
        run: slab_memory_case,
        reference: Reference::Memory,
    },
    Case {
        name: "slab_ghost_too_small",
        run: slab_ghost_case,
        reference: Reference::ErrorEverywhere,
    },
    Case {
        name: "seismic_model_slabs",
        run: seismic_model_slabs,
        reference: Reference::OwnedPlanes,
    },
    Case {
        name: "seismic_output_share",
        run: output_share,
        reference: Reference::Partition,
    },
    Case {
        name: "fault_on_one_rank",
        run: fault_case,
        reference: Reference::LastRankFaults,
    },
];

fn bits<T: Copy + Into<f64>>(v: impl IntoIterator<Item = T>) -> Vec<u64> {
    v.into_iter().map(|x| x.into().to_bits()).collect()
}

/// Every kernel of the suite, f32 and f64, as written and with `shared, register`, on a
/// grid that divides among no device count (23 planes).
fn suite() -> Vec<u64> {
    let mut out = Vec::new();
    for k in Kernel::ALL {
        for p in [Precision::F32, Precision::F64] {
            let sh = if k.dims() == 2 {
                vec![41, 29]
            } else {
                vec![23, 17, 19]
            };
            for opts in [Opts::None, Opts::SharedRegister] {
                let (tile, chunk) = Level::Opt3.config(k.dims());
                let mut one = k.instance(p, &sh, 5);
                one.run(opts, tile, chunk, 3).unwrap();
                out.extend(bits(one.output()));
            }
        }
    }
    out
}

/// 3-D heat, periodic in z and y (issue #41): the slabs form a ring, the first and last
/// ranks' devices exchanging ghost planes through the wrap.
#[mint::parallel]
fn periodic_heat(u: &mut Array3<f64>, v: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 4, 1))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 1..nx - 1 {
                    v[[z, y, x]] = 0.4 * u[[z, y, x]]
                        + 0.1
                            * (u[[(z + nz - 1) % nz, y, x]]
                                + u[[(z + 1) % nz, y, x]]
                                + u[[z, (y + ny - 1) % ny, x]]
                                + u[[z, (y + 1) % ny, x]]
                                + u[[z, y, x - 1]]
                                + u[[z, y, x + 1]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
    mint::copy!(u, from_device);
    Ok(())
}

fn periodic_case() -> Vec<u64> {
    let mut u = Array3::from_shape_fn((13, 7, 9), |(z, y, x)| {
        ((z * 63 + y * 9 + x) % 17) as f64 * 0.25
    });
    let mut v = Array3::zeros(u.dim());
    periodic_heat(&mut u, &mut v, 4).unwrap();
    bits(u.iter().copied())
}

/// 3-D heat in a time loop blocked `$depth` deep (issue #45), or written without `block`.
macro_rules! heat_loop {
    ($name:ident, $depth:tt) => {
        heat_loop!(@ $name, [(block = $depth)]);
    };
    ($name:ident) => {
        heat_loop!(@ $name, []);
    };
    (@ $name:ident, [$($args:tt)*]) => {
        #[mint::parallel]
        fn $name(u: &mut Array3<f64>, v: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(v, to_device);
            #[mint::time_loop $($args)*]
            for _ in 0..steps {
                #[mint::r#for(nest(all))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            v[[z, y, x]] = 0.4 * u[[z, y, x]]
                                + 0.1
                                    * (u[[z - 1, y, x]]
                                        + u[[z + 1, y, x]]
                                        + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]]
                                        + u[[z, y, x - 1]]
                                        + u[[z, y, x + 1]]);
                        }
                    }
                }
                std::mem::swap(u, v);
            }
            mint::copy!(u, from_device);
            mint::copy!(v, from_device);
            Ok(())
        }
    };
}

// The ranks' slabs carry 3 ghost planes and exchange them once per 3 steps; fused
// launches on GPUs.
heat_loop!(blocked_heat, 3);
// `block = auto`: across ranks it runs step by step (each rank's timings could choose
// another depth than its neighbours').
heat_loop!(auto_heat, auto);
// No `block`, and the kernel is not tuned: one step per launch, one step's ghost planes.
heat_loop!(default_heat);

type HeatLoop = fn(&mut Array3<f64>, &mut Array3<f64>, usize) -> mint::Result<()>;

/// `steps` steps of `run` from a field of `nz` planes; both arrays' bits.
fn heat_loop_case(run: HeatLoop, nz: usize, steps: usize) -> Vec<u64> {
    let mut u = Array3::from_shape_fn((nz, 9, 11), |(z, y, x)| {
        ((z * 63 + y * 9 + x) % 17) as f64 * 0.25
    });
    let mut v = u.mapv(|a| 1.0 - a);
    run(&mut u, &mut v, steps).unwrap();
    bits(u.iter().chain(v.iter()).copied())
}

fn blocked_case() -> Vec<u64> {
    heat_loop_case(blocked_heat, 23, 11)
}

/// 45 steps: enough, on one GPU, for `auto` to tune and run on.
fn auto_case() -> Vec<u64> {
    heat_loop_case(auto_heat, 41, 45)
}

/// Split over the ranks, the slabs of a loop without `block` whose kernel is not tuned
/// carry one step's ghost planes (heat's reach, 1), unless `MINT_TUNE=1` tunes it.
fn default_case() -> Vec<u64> {
    let out = heat_loop_case(default_heat, 23, 11);
    if let Ok(d) = mint::decomposition("default_heat")
        && !matches!(mint::tune::mode(), mint::tune::Mode::All)
    {
        assert_eq!(d.ghost, 1, "default_heat: ghost planes of an untuned loop");
    }
    out
}

/// A leapfrog of two kernels per step (velocity from pressure one plane above, pressure
/// from velocity one plane below) blocked 4 deep: the ranks' slabs carry 4 × (1 + 1)
/// ghost planes and exchange each array once per 4 steps.
#[mint::parallel]
fn leapfrog(v: &mut Array3<f64>, p: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = v.dim();
    mint::copy!(v, to_device);
    mint::copy!(p, to_device);
    #[mint::time_loop(block = 4)]
    for _ in 0..steps {
        #[mint::r#for(nest(all))]
        for z in 0..nz - 1 {
            for y in 0..ny {
                for x in 0..nx {
                    v[[z, y, x]] += 0.3 * (p[[z + 1, y, x]] - p[[z, y, x]]);
                }
            }
        }
        #[mint::r#for(nest(all))]
        for z in 1..nz {
            for y in 0..ny {
                for x in 0..nx {
                    p[[z, y, x]] += 0.3 * (v[[z, y, x]] - v[[z - 1, y, x]]);
                }
            }
        }
    }
    mint::copy!(v, from_device);
    mint::copy!(p, from_device);
    Ok(())
}

fn leapfrog_case() -> Vec<u64> {
    heat_loop_case(leapfrog, 29, 10)
}

/// The Aliev-Panfilov model on 63 × 63 points until t = 5: its iterations, E and R.
fn cardiac_case<T: mint::Real + From<f32> + Into<f64>>() -> Vec<u64> {
    let n = 61;
    let (mut e_prev, mut r) = cardiac::initial::<T>(n);
    let mut e = e_prev.clone();
    let niter =
        cardiac::simulate::<T>(&mut e, &mut e_prev, &mut r, 5.0, [32, 8], 0, &mut |_, _| {})
            .unwrap();
    let mut out = vec![niter as u64];
    out.extend(bits(e_prev.iter().copied()));
    out.extend(bits(r.iter().copied()));
    out
}

/// The cardiac model written to be blocked (`examples/cardiac/model.rs`), its loop 3 steps
/// deep: E read at neighbours and R carried at the point (a second swapped pair), split
/// over the ranks with 3 ghost rows exchanged once per 3 steps.
mod blocked_cardiac {
    use super::cardiac::*;
    use mint::Real;
    use ndarray::Array2;
    blocked_model!(depth3, [#[mint::time_loop(block = 3)]]);
}

/// 11 steps of [`blocked_cardiac::depth3`] on 61 × 61 points from the model's initial
/// state (three blocks of 3 steps and 2 left over): the bits of E, E's previous value, R
/// and R's next buffer.
fn blocked_cardiac_case<T: mint::Real + From<f32> + Into<f64>>() -> Vec<u64> {
    let (mut e_prev, mut r) = cardiac::initial::<T>(61);
    let mut e = e_prev.clone();
    let mut r_next = r.clone();
    blocked_cardiac::depth3::<T>(&mut e, &mut e_prev, &mut r, &mut r_next, 11).unwrap();
    // the slabs carry the block's 3 × 1 ghost rows, not one step's: the loop ran blocked
    let d = mint::decomposition("depth3").unwrap();
    assert_eq!(d.ghost, 3, "depth3: ghost rows of a loop blocked 3 deep");
    let all = [&e, &e_prev, &r, &r_next];
    bits(all.into_iter().flat_map(|a| a.iter().copied()))
}

/// The seismic solver on `file`'s coarse set-up ([`seismic_case::setup`]): seismograms
/// and the PGV map.
fn seismic(file: &str) -> Vec<u64> {
    let setup = seismic_case::setup(file);
    let got = solver::run(&setup, [32, 4, 1], &mut |_| {}).unwrap();
    assert!(
        got.seismograms.iter().any(|v| v.abs() > 0.0),
        "{file}: the waves reached no receiver (rank {}; PGV {})",
        mint::ranks::rank(),
        got.pgv.iter().fold(0f32, |a, &b| a.max(b))
    );
    let mut out = bits(got.seismograms.iter().copied());
    out.extend(bits(got.pgv.iter().copied()));
    out
}

/// The seismic model as each rank builds it, slab by slab: the layered LOH.3 with
/// attenuation, and a material file (read only in the rank's planes) of Vp, Vs and ρ
/// varying along every axis, with Q. Returns `[lo, hi]` of the rank's owned planes and,
/// plane by plane, every 3-D coefficient of both models there, which must equal one
/// device's (one process's, which builds every plane). Each rank must hold no more than
/// its owned planes and the ghost planes.
fn seismic_model_slabs() -> Vec<u64> {
    let layered = seismic_case::setup("loh3.toml");
    let (mut cfg, h, dt) = seismic_case::config("loh1.toml");
    let n = [0, 1, 2].map(|a| (cfg.grid.extent[a] / h).round() as usize + 1);
    let mut bytes = Vec::with_capacity(n.iter().product::<usize>() * 12);
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let w = ((7 * i + 3 * j + 5 * k) % 11) as f32;
                for v in [4000.0 + 40.0 * w, 2300.0 - 15.0 * w, 2500.0 + 9.0 * w] {
                    bytes.extend_from_slice(&f32::to_le_bytes(v));
                }
            }
        }
    }
    // one file per rank: the ranks write the same bytes at the same time
    let path = std::env::temp_dir().join(format!(
        "mint-mpi-material-{}-{}.bin",
        std::process::id(),
        mint::ranks::rank()
    ));
    std::fs::write(&path, &bytes).unwrap();
    cfg.material = config::Material::File {
        path: path.clone(),
        qp: Some(80.0),
        qs: Some(40.0),
    };
    let from_file = model::build(&cfg, h, dt).unwrap();
    let _ = std::fs::remove_file(&path);
    let arrays = |s: &model::Setup| {
        let m = &s.medium;
        let a = m.anelastic.as_ref().expect("both models have Q");
        [
            &m.d1, &m.d2, &m.d3, &m.lam, &m.l2m, &m.mxy, &m.mxz, &m.myz, &a.qn, &a.qsn, &a.qxy,
            &a.qxz, &a.qyz, &a.tau1, &a.tau2,
        ]
        .map(|x| x.clone())
    };
    let all: Vec<mint::SlabArray3<f32>> = arrays(&layered)
        .into_iter()
        .chain(arrays(&from_file))
        .collect();
    let o = all[0].owned();
    let nz = all[0].dim().0;
    for a in &all {
        let held = a.planes();
        assert!(
            held.start + model::HALO >= o.start
                && held.end <= o.end + model::HALO
                && (mint::ranks::size() == 1 || held.len() < nz),
            "rank {} holds planes {held:?} of {nz} for owned planes {o:?}",
            mint::ranks::rank()
        );
    }
    // λ/(λ + 2μ) at the free surface, which every rank builds from the surface's plane:
    // with every plane, so that every rank's is compared
    let surface: Vec<u64> = bits(
        layered
            .medium
            .fsr
            .iter()
            .chain(from_file.medium.fsr.iter())
            .copied(),
    );
    let mut out = vec![o.start as u64, o.end as u64];
    for k in o {
        for a in &all {
            let plane = a
                .local()
                .index_axis(ndarray::Axis(0), k - a.planes().start)
                .to_owned();
            out.extend(bits(plane.iter().copied()));
        }
        out.extend(&surface);
    }
    out
}

/// Which of the seismic example's files this rank writes ([`output::Share`]): the PGV map
/// and pictures, then each receiver of the coarse set-up's column (one at every depth).
fn output_share() -> Vec<u64> {
    let share = output::Share::of(&seismic_case::setup("loh1.toml"));
    std::iter::once(share.surface)
        .chain(share.receivers)
        .map(u64::from)
        .collect()
}

/// `v = u` plane by plane, so that both are distributed: the scatter and the gather.
#[mint::parallel]
fn copy_through(u: &Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                v[[z, y, x]] = u[[z, y, x]];
            }
        }
    }
    mint::copy!(v, from_device);
    Ok(())
}

fn copy_case() -> Vec<u64> {
    let u = Array3::from_shape_fn((11, 5, 6), |(z, y, x)| (z * 30 + y * 6 + x) as f64);
    let mut v = Array3::zeros(u.dim());
    copy_through(&u, &mut v).unwrap();
    bits(v.iter().copied())
}

/// Writes two distributed arrays at two offsets from `z`: not split (the clip would
/// differ per array), so it runs owner-computes on every device.
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
                v[[z - 1, y, x]] = u[[z, y, x]] + 1.0;
                w[[z + 1, y, x]] = u[[z - 1, y, x]] * 2.0;
            }
        }
    }
    mint::copy!(v, from_device);
    mint::copy!(w, from_device);
    Ok(())
}

fn owner_case() -> Vec<u64> {
    let u = Array3::from_shape_fn((17, 5, 6), |(z, y, x)| (z * 31 + y * 7 + x) as f64);
    let mut v = Array3::zeros(u.dim());
    let mut w = Array3::zeros(u.dim());
    two_offsets(&u, &mut v, &mut w).unwrap();
    let mut out = bits(v.iter().copied());
    out.extend(bits(w.iter().copied()));
    out
}

/// A sum and a maximum over a distributed array.
#[mint::parallel]
fn sum_and_max(a: &Array3<f64>) -> mint::Result<(f64, f64)> {
    let (nz, ny, nx) = a.dim();
    let mut s = 0.0;
    let mut m = f64::NEG_INFINITY;
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), reduction(+: s))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                s += a[[z, y, x]];
            }
        }
    }
    #[mint::r#for(nest(all), reduction(max: m))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                m = m.max(a[[z, y, x]]);
            }
        }
    }
    Ok((s, m))
}

fn reductions() -> Vec<u64> {
    let a = Array3::<f64>::from_shape_fn((13, 7, 9), |(z, y, x)| {
        common::rnd((z * 7 + y) * 9 + x, 11) - 0.5
    });
    let exact: f64 = a.iter().sum();
    let (s, m) = sum_and_max(&a).unwrap();
    assert!(
        (s - exact).abs() <= 1e-12 * a.len() as f64,
        "{s} vs {exact}"
    );
    vec![s.to_bits(), m.to_bits()]
}

/// Doubles `u` (split along z, so `u` is distributed), then a running sum down the top 8
/// of its 13 planes (owner-computes): on 2, 3 or 4 devices the last rank's first plane
/// needs the plane below as this kernel leaves it, which another device computes (the
/// fault of owner-computes); the first rank's devices own no plane the sum crosses into.
#[mint::parallel]
fn reach_down(u: &mut Array3<f64>) -> mint::Result<()> {
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
            for z in nz - 8..nz {
                u[[z, y, x]] += u[[z - 1, y, x]];
            }
        }
    }
    mint::copy!(u, from_device);
    Ok(())
}

/// `[what failed, whether the host array is untouched]`: 1 for the kernel's own
/// [`mint::Error::OutsideSlab`], 2 for [`mint::Error::Ranks`] (another rank failed), 0
/// for no error. Every rank must return, none may wait forever.
fn fault_case() -> Vec<u64> {
    let init = Array3::<f64>::from_shape_fn((13, 3, 4), |(z, y, x)| (z * 12 + y * 4 + x) as f64);
    let mut u = init.clone();
    let code = match reach_down(&mut u) {
        Ok(()) => 0,
        Err(mint::Error::OutsideSlab { array, .. }) if array == "u" => 1,
        Err(mint::Error::Ranks { .. }) => 2,
        Err(e) => panic!("rank {}: {e}", mint::ranks::rank()),
    };
    vec![code, u64::from(u == init)]
}

/// The cases to run: all, or those `MINT_MPI_CASES=a,b` names (to look at some by hand).
fn cases() -> Vec<&'static Case> {
    let only = std::env::var("MINT_MPI_CASES").ok();
    CASES
        .iter()
        .filter(|c| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|n| n == c.name))
        })
        .collect()
}

/// Heat steps on arrays of which each rank holds only its planes: it fills only those,
/// and gets back only those it owns.
#[mint::parallel]
fn heat_slabs(
    u: &mut mint::SlabArray3<f64>,
    v: &mut mint::SlabArray3<f64>,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    v[[z, y, x]] = u[[z, y, x]]
                        + 0.1
                            * (u[[z - 1, y, x]]
                                + u[[z + 1, y, x]]
                                + u[[z, y - 1, x]]
                                + u[[z, y + 1, x]]
                                + u[[z, y, x - 1]]
                                + u[[z, y, x + 1]]
                                - 6.0 * u[[z, y, x]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
    mint::copy!(u, from_device);
    Ok(())
}

fn slab_init((z, y, x): (usize, usize, usize)) -> f64 {
    common::rnd((z * 1000 + y) * 1000 + x, 7)
}

fn slab_case() -> Vec<u64> {
    let n = (29, 7, 9);
    let mut u = mint::SlabArray3::from_fn(n, 1, slab_init);
    let mut v = mint::SlabArray3::from_fn(n, 1, slab_init);
    heat_slabs(&mut u, &mut v, 4).unwrap();
    let o = u.owned();
    let mut out = vec![o.start as u64, o.end as u64];
    out.extend(bits(u.owned_view().iter().copied()));
    out
}

/// [`mint::SlabArray3`]s without the ghost plane the region's stencil needs: `copy!`
/// must fail on every rank with an error naming the ghost width, before any kernel.
fn slab_ghost_case() -> Vec<u64> {
    let n = (29, 7, 9);
    let mut u = mint::SlabArray3::from_fn(n, 0, slab_init);
    let mut v = mint::SlabArray3::from_fn(n, 0, slab_init);
    let (u0, v0) = (u.clone(), v.clone());
    let ok = match heat_slabs(&mut u, &mut v, 1) {
        Err(mint::Error::ShapeMismatch { array, what, .. }) => {
            array == "u" && what.contains("ghost width of at least 1")
        }
        Err(e) => panic!("rank {}: {e}", mint::ranks::rank()),
        Ok(()) => false,
    };
    let same = u.local() == u0.local() && v.local() == v0.local();
    vec![u64::from(ok), u64::from(same)]
}

/// This process's resident and peak resident bytes (`/proc/self/status`).
fn resident() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb = |key: &str| -> u64 {
        s.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{key} in /proc/self/status"))
            * 1024
    };
    (kb("VmRSS:"), kb("VmHWM:"))
}

/// Two global arrays of 256³ f64 (256 MiB) on 3 or more ranks: the peak resident memory a
/// rank adds while filling its slabs and running must stay below them (its slabs, its
/// devices' parts and one copy back come to about 5/6 of them on 3 ranks).
fn slab_memory_case() -> Vec<u64> {
    if mint::ranks::size() < 3 {
        return vec![0, 0];
    }
    // Reset the peak to the present (Linux: "5" to clear_refs).
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let base = resident().0;
    let n = (256, 256, 256);
    let global = 2 * 256 * 256 * 256 * 8;
    let mut u = mint::SlabArray3::from_fn(n, 1, |(z, y, x)| (z + y + x) as f64);
    let mut v = mint::SlabArray3::zeros(n, 1);
    heat_slabs(&mut u, &mut v, 2).unwrap();
    let peak = resident().1;
    vec![peak.saturating_sub(base), global]
}

/// The rank's side: every case, each result written to `dir/<case>.<rank>`.
fn rank(dir: &Path) {
    let r = mint::ranks::rank();
    assert!(
        mint::ranks::size() > 1,
        "started with {OUT} but not as one of several MPI ranks"
    );
    for c in cases() {
        let t = std::time::Instant::now();
        // A case that panics must take the job down at once: the other ranks would wait
        // for this one in their next collective until mpirun's timeout (25 minutes).
        // (Panics the runtime catches itself, as the CPU backend's emulated faults, never
        // reach here.)
        let Ok(v) = std::panic::catch_unwind(c.run) else {
            eprintln!("rank {r}: case {} panicked; aborting the job", c.name);
            std::process::abort();
        };
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(dir.join(format!("{}.{r}", c.name)), bytes).unwrap();
        eprintln!(
            "rank {r} of {}: {} in {:.1} s",
            mint::ranks::size(),
            c.name,
            t.elapsed().as_secs_f64()
        );
    }
}

/// `mpirun` on the `PATH`, or why not.
fn mpirun() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|p| p.join("mpirun"))
        .find(|p| p.is_file())
        .ok_or_else(|| "no `mpirun` on the PATH".to_string())
}

/// Runs this test as `np` ranks with `MINT_DEVICE=device` (`cuda+nccl`: `cuda`, with
/// `MINT_NCCL=1`); returns each case's result on each rank.
fn under_mpi(mpirun: &Path, np: usize, device: &str) -> Vec<Vec<Vec<u64>>> {
    let (device, nccl) = match device.strip_suffix("+nccl") {
        Some(d) => (d, "1"),
        None => (device, "0"),
    };
    let dir = std::env::temp_dir().join(format!(
        "mint-mpi-{}-{np}-{}",
        std::process::id(),
        device.replace(':', "_")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let t = std::time::Instant::now();
    let out = Command::new(mpirun)
        .args(["--oversubscribe", "--bind-to", "none", "--timeout", "1500"])
        .args(["-np", &np.to_string()])
        .arg(&exe)
        .args([
            "--exact",
            "regions_across_ranks_equal_one_rank",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(OUT, &dir)
        .env("MINT_DEVICE", device)
        .env("MINT_NCCL", nccl)
        .env("MINT_QUIET", "1")
        // Open MPI refuses root without these; CI runs as root.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Containers often forbid the cross-process memory copy of the shared-memory
        // transport; plain copies through shared memory work everywhere.
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .output()
        .expect("mpirun starts");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "mpirun -np {np} with MINT_DEVICE={device} failed ({}):\n{log}",
        out.status
    );
    eprintln!(
        "mpirun -np {np}, MINT_DEVICE={device}: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let got = cases()
        .into_iter()
        .map(|c| {
            (0..np)
                .map(|r| {
                    let b = std::fs::read(dir.join(format!("{}.{r}", c.name)))
                        .unwrap_or_else(|e| panic!("rank {r} wrote no {}: {e}\n{log}", c.name));
                    b.chunks_exact(8)
                        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                        .collect()
                })
                .collect()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    got
}

#[test]
fn regions_across_ranks_equal_one_rank() {
    if let Some(dir) = std::env::var_os(OUT) {
        return rank(Path::new(&dir));
    }
    let mpirun = match mpirun() {
        Ok(p) => p,
        Err(why) => {
            assert!(
                std::env::var_os("MINT_REQUIRE_MPI").is_none(),
                "MINT_REQUIRE_MPI is set but {why}"
            );
            eprintln!("skipped: {why}");
            return;
        }
    };
    // (ranks, MINT_DEVICE of each rank, devices per rank, one device, `n` devices in one
    // process)
    type Layout = (usize, &'static str, usize, Device, fn(usize) -> Device);
    let mut layouts: Vec<Layout> = vec![
        (2, "cpu", 1, Device::Cpu, Device::Cpus),
        (3, "cpu", 1, Device::Cpu, Device::Cpus),
        (2, "cpu:2", 2, Device::Cpu, Device::Cpus),
    ];
    if let Some(g) = common::gpu() {
        for np in [2, 3] {
            layouts.push((np, "cuda", 1, g, |n| {
                Device::CudaList(mint::GpuList::new(&vec![0; n]).unwrap())
            }));
        }
        // With NCCL asked for: on two GPUs the ranks' halos go through it; on one, NCCL
        // refuses two ranks on one GPU, and every rank falls back to staging alike.
        if mint::nccl::available() {
            layouts.push((2, "cuda+nccl", 1, g, |n| {
                Device::CudaList(mint::GpuList::new(&vec![0; n]).unwrap())
            }));
        } else {
            eprintln!("skipped: MPI ranks with NCCL halos need libnccl");
        }
    }
    // One process runs it whole: nothing to fault.
    assert_eq!(mint::with_device(Device::Cpu, fault_case), [0, 0]);
    for (np, device, per_rank, one, same) in layouts {
        let got = under_mpi(&mpirun, np, device);
        for (c, ranks) in cases().into_iter().zip(got) {
            let reference = match c.reference {
                Reference::OneDevice => one,
                Reference::SameDevices => same(np * per_rank),
                Reference::OwnedPlanes => {
                    let want = mint::with_device(one, c.run);
                    let plane = (want.len() - 2) / want[1] as usize;
                    let mut next = 0;
                    for (r, v) in ranks.iter().enumerate() {
                        let (lo, hi) = (v[0] as usize, v[1] as usize);
                        assert_eq!(lo, next, "{}: rank {r} of -np {np}: planes", c.name);
                        next = hi;
                        assert!(
                            v[2..] == want[2 + lo * plane..2 + hi * plane],
                            "{}: rank {r} of mpirun -np {np} with MINT_DEVICE={device}: planes {lo}..{hi} differ from one device's",
                            c.name
                        );
                    }
                    assert_eq!(next, want[1] as usize, "{}: the ranks' planes", c.name);
                    continue;
                }
                Reference::Memory => {
                    for (r, v) in ranks.iter().enumerate() {
                        if np >= 3 {
                            assert!(
                                v[0] < v[1],
                                "{}: rank {r} of -np {np} added {} resident bytes at its peak, more than the {} bytes of the global arrays",
                                c.name,
                                v[0],
                                v[1]
                            );
                            eprintln!(
                                "rank {r} of {np}: peak {:.0} MiB added for {:.0} MiB of global arrays",
                                v[0] as f64 / 1048576.0,
                                v[1] as f64 / 1048576.0
                            );
                        }
                    }
                    continue;
                }
                Reference::ErrorEverywhere => {
                    for (r, v) in ranks.iter().enumerate() {
                        assert_eq!(v[..], [1, 1], "{}: rank {r} of -np {np}", c.name);
                    }
                    continue;
                }
                Reference::Partition => {
                    let n = ranks[0].len();
                    for p in 0..n {
                        let takers: Vec<usize> = ranks
                            .iter()
                            .enumerate()
                            .filter(|(_, v)| v[p] == 1)
                            .map(|(r, _)| r)
                            .collect();
                        assert_eq!(
                            takers.len(),
                            1,
                            "{}: item {p} of {n} taken by ranks {takers:?} of -np {np} with MINT_DEVICE={device}",
                            c.name
                        );
                    }
                    // one process takes everything
                    assert!(mint::with_device(one, c.run).iter().all(|&v| v == 1));
                    continue;
                }
                Reference::LastRankFaults => {
                    for (r, v) in ranks.iter().enumerate() {
                        let want = [if r + 1 == np { 1 } else { 2 }, 1];
                        assert_eq!(
                            v[..],
                            want,
                            "{}: rank {r} of mpirun -np {np} with MINT_DEVICE={device}",
                            c.name
                        );
                    }
                    continue;
                }
            };
            let want = mint::with_device(reference, c.run);
            for (r, v) in ranks.iter().enumerate() {
                let first = v.iter().zip(&want).position(|(a, b)| a != b);
                let differ = v.iter().zip(&want).filter(|(a, b)| a != b).count();
                assert!(
                    v.len() == want.len() && first.is_none(),
                    "{}: rank {r} of mpirun -np {np} with MINT_DEVICE={device} differs from {reference:?} ({:?}): {} values against {}, {differ} differ, the first at {first:?} ({:?} against {:?}, as f64 bits)",
                    c.name,
                    c.reference,
                    v.len(),
                    want.len(),
                    first.map(|i| f64::from_bits(v[i])),
                    first.map(|i| f64::from_bits(want[i])),
                );
            }
        }
    }
}
