//! Every kernel of the suite against its serial reference: on the CPU backend (identical
//! results: the same loops run), and on CUDA at every optimization level in f32 and f64
//! (1e-5 and 1e-12 relative), on grids that are not multiples of the tiles.

mod common;

use mint::Device;
use mint_kernels::suite::max_rel_err;
use mint_kernels::{Kernel, Level, Opts, Precision};

fn shape(k: Kernel) -> Vec<usize> {
    // 80 planes: two z chunks of 64 for opt-2/3, the second partial
    if k.dims() == 2 {
        vec![150, 133]
    } else {
        vec![80, 37, 70]
    }
}

#[test]
fn every_kernel_on_the_cpu_equals_its_serial_reference() {
    for k in Kernel::ALL {
        for p in [Precision::F32, Precision::F64] {
            let sh = if k.dims() == 2 {
                vec![40, 45]
            } else {
                vec![21, 19, 23]
            };
            let mut want = k.instance(p, &sh, 3);
            want.serial(2);
            for opts in [Opts::None, Opts::SharedRegister] {
                let mut got = k.instance(p, &sh, 3);
                let (tile, chunk) = Level::Opt3.config(k.dims());
                mint::with_device(Device::Cpu, || got.run(opts, tile, chunk, 2)).unwrap();
                assert_eq!(
                    got.output(),
                    want.output(),
                    "{} {} {opts:?}",
                    k.name(),
                    p.name()
                );
            }
        }
    }
}

#[test]
fn every_kernel_at_every_level_on_the_gpu() {
    let Some(d) = common::gpu() else { return };
    let steps = 3;
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in Kernel::ALL {
        for p in [Precision::F32, Precision::F64] {
            let sh = shape(k);
            let mut reference = k.instance(p, &sh, 7);
            reference.serial(steps);
            let want = reference.output();
            for level in Level::ALL {
                let (tile, chunk) = level.config(k.dims());
                let mut inst = k.instance(p, &sh, 7);
                runs += 1;
                match mint::with_device(d, || inst.run(level.opts(), tile, chunk, steps)) {
                    Ok(()) => {
                        let e = max_rel_err(&inst.output(), &want);
                        if e > p.tolerance() {
                            failures.push(format!(
                                "{} {} {}: relative error {e:.3e}",
                                k.name(),
                                p.name(),
                                level.name()
                            ));
                        }
                    }
                    Err(e) => {
                        failures.push(format!("{} {} {}: {e}", k.name(), p.name(), level.name()))
                    }
                }
            }
        }
    }
    eprintln!("{runs} runs on the GPU, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn y_chunks_and_x_chunks_with_shared_memory_and_vectorize_on_the_gpu() {
    let Some(d) = common::gpu() else { return };
    let configs: [([u32; 3], [u32; 3]); 4] = [
        ([64, 8, 16], [2, 2, 16]),
        ([32, 12, 8], [1, 3, 8]),
        ([16, 16, 1], [1, 1, 1]),
        ([128, 2, 32], [4, 1, 32]),
    ];
    let mut failures = Vec::new();
    for k in [
        Kernel::Heat3d,
        Kernel::Poisson19,
        Kernel::Star3d(4),
        Kernel::Box27,
        Kernel::Heat7Var,
    ] {
        for p in [Precision::F32, Precision::F64] {
            let sh = vec![45, 41, 77];
            let mut reference = k.instance(p, &sh, 9);
            reference.serial(2);
            let shared = configs
                .iter()
                .flat_map(|&(t, c)| [(Opts::Shared, t, c), (Opts::SharedRegister, t, c)]);
            // `vectorize`: z windows of several lengths, rows chunked along y, threads
            // along z (tile z above chunksize z), a tile of 16 points along x
            let vector = [
                ([128, 4, 2], [1, 1, 2]),
                ([64, 12, 8], [1, 3, 8]),
                ([16, 8, 16], [1, 1, 16]),
                ([128, 2, 4], [1, 1, 2]),
            ]
            .map(|(t, c)| (Opts::Vector, t, c));
            for (opts, tile, chunk) in shared.chain(vector) {
                {
                    let mut inst = k.instance(p, &sh, 9);
                    match mint::with_device(d, || inst.run(opts, tile, chunk, 2)) {
                        Ok(()) => {
                            let e = max_rel_err(&inst.output(), &reference.output());
                            if e > p.tolerance() {
                                failures.push(format!(
                                    "{} {} {opts:?} tile {tile:?} chunk {chunk:?}: {e:.3e}",
                                    k.name(),
                                    p.name()
                                ));
                            }
                        }
                        Err(e) => failures.push(format!(
                            "{} {} {opts:?} tile {tile:?} chunk {chunk:?}: {e}",
                            k.name(),
                            p.name()
                        )),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `vectorize` with `pipeline` (the x and y neighbours from shared-memory rings) against
/// `vectorize` alone at the same tiles: bit for bit, since only where each vector comes
/// from changes, on a grid of partial tiles and partial z chunks (the edge blocks take
/// the per-lane path), and against the serial reference. The stars of radius 1 to 8, the
/// variable-coefficient heat kernel and Poisson-19 (whose y ± 1 rows at z ± 1 keep it on
/// the vector path: `pipeline not applied`), with one and two y rows per thread.
#[test]
fn vector_pipeline_equals_vector_bit_for_bit_on_the_gpu() {
    let Some(d) = common::gpu() else { return };
    let configs: [([u32; 3], [u32; 3]); 6] = [
        ([32, 16, 32], [1, 1, 32]),
        ([64, 8, 32], [1, 1, 32]),
        ([16, 16, 64], [1, 1, 64]),
        ([16, 8, 16], [1, 1, 16]),
        // two y rows per thread: the block of the last, partial y tile takes the edge path
        ([16, 16, 64], [1, 2, 64]),
        ([32, 8, 32], [1, 2, 32]),
    ];
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in [
        Kernel::Star3d(1),
        Kernel::Star3d(2),
        Kernel::Star3d(4),
        Kernel::Star3d(8),
        Kernel::Heat7Var,
        Kernel::Poisson19,
    ] {
        for p in [Precision::F32, Precision::F64] {
            let sh = vec![83, 45, 71];
            let mut reference = k.instance(p, &sh, 11);
            reference.serial(2);
            for (tile, chunk) in configs {
                let what = format!("{} {} tile {tile:?} chunk {chunk:?}", k.name(), p.name());
                let mut out = Vec::new();
                for opts in [Opts::Vector, Opts::VectorPipeline] {
                    let mut inst = k.instance(p, &sh, 11);
                    runs += 1;
                    match mint::with_device(d, || inst.run(opts, tile, chunk, 2)) {
                        Ok(()) => out.push(inst.output()),
                        Err(e) => failures.push(format!("{what} {opts:?}: {e}")),
                    }
                }
                if let [vector, ring] = &out[..] {
                    let e = max_rel_err(ring, &reference.output());
                    if e > p.tolerance() {
                        failures.push(format!(
                            "{what}: relative error {e:.3e} against the serial reference"
                        ));
                    }
                    let differ = vector
                        .iter()
                        .zip(ring)
                        .filter(|(a, b)| a.to_bits() != b.to_bits())
                        .count();
                    if differ > 0 {
                        failures.push(format!(
                            "{what}: {differ} points differ from `vectorize` alone"
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{runs} runs on the GPU, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every suite kernel at every level and every autotuner candidate, in f32 and f64, on an
/// odd grid (2-D 45 × 67; 3-D 70 × 19 × 37: partial tiles everywhere and a partial second
/// z chunk of 64), two steps, each against the serial reference. Ignored in `cargo test`:
/// `tests/sanitize.sh` runs it under `compute-sanitizer` (memcheck, racecheck, synccheck,
/// initcheck) on a GPU machine. `MINT_SWEEP_PRECISION=f32` keeps one precision.
#[test]
#[ignore = "a GPU sweep for compute-sanitizer: tests/sanitize.sh runs it"]
fn sanitizer_sweep_every_level_and_candidate_at_an_odd_size() {
    let Some(d) = common::gpu() else { return };
    let steps = 2;
    let precisions: Vec<Precision> = match std::env::var("MINT_SWEEP_PRECISION").as_deref() {
        Ok("f32") => vec![Precision::F32],
        Ok("f64") => vec![Precision::F64],
        _ => vec![Precision::F32, Precision::F64],
    };
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in Kernel::ALL {
        let sh = if k.dims() == 2 {
            vec![45, 67]
        } else {
            vec![70, 19, 37]
        };
        let mut variants: Vec<(String, Opts, [u32; 3], [u32; 3])> = Level::ALL
            .iter()
            .map(|l| {
                let (t, c) = l.config(k.dims());
                (l.name().to_string(), l.opts(), t, c)
            })
            .collect();
        variants.extend(
            mint_kernels::harness::candidates(k.dims(), None)
                .into_iter()
                .map(|v| (v.name, v.opts, v.tile, v.chunk)),
        );
        for &p in &precisions {
            let mut reference = k.instance(p, &sh, 5);
            reference.serial(steps);
            let want = reference.output();
            for (name, opts, tile, chunk) in &variants {
                let mut inst = k.instance(p, &sh, 5);
                runs += 1;
                let r = mint::with_device(d, || inst.run(*opts, *tile, *chunk, steps));
                let what = format!("{} {} {name}", k.name(), p.name());
                match r {
                    Ok(()) => {
                        let e = max_rel_err(&inst.output(), &want);
                        if e > p.tolerance() {
                            failures.push(format!("{what}: relative error {e:.3e}"));
                        }
                    }
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    eprintln!("{runs} runs on the GPU, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
