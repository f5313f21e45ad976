//! Lazy waits and launch batching (CUDA graphs, `mint-runtime/src/graph.rs`): a loop run
//! with Mint's defaults gives, bit for bit, what the same loop gives with a `barrier!()`
//! after every step and batching off (every launch waited for and enqueued on its own),
//! and both agree with a serial reference; so does a run that waits after every `for`
//! (`MINT_SYNC=1`) while its `nowait` kernel is batched. On a GPU the default run must have replayed launches as
//! graphs when its launches repeat, and must not have when a scalar changes every step.

mod common;

use ndarray::Array2;

/// `steps` explicit heat steps on `u` (`[y, x]`), the ghost columns refreshed by a
/// one-dimensional kernel before each; every 25 steps a reduction sums the field and
/// `u` is copied back and forth (both submit the pending launches first). With `vary`
/// the diffusion coefficient changes every step (a scalar that differs per launch);
/// with `eager` the host waits after every step. Returns the sum of the sums.
#[mint::parallel]
fn heat(
    u: &mut Array2<f32>,
    v: &mut Array2<f32>,
    steps: usize,
    vary: bool,
    eager: bool,
) -> mint::Result<f32> {
    let (ny, nx) = u.dim();
    let mut sums = 0.0f32;
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    for s in 0..steps {
        let c = if vary { 0.05 + 0.0005 * s as f32 } else { 0.1 };
        // `nowait`: recorded into the batch even when every other `for` waits
        #[mint::r#for(nest(1), tile(64), nowait)]
        for y in 1..ny - 1 {
            u[[y, 0]] = u[[y, 1]];
            u[[y, nx - 1]] = u[[y, nx - 2]];
        }
        #[mint::r#for(nest(all), tile(32, 8))]
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                v[[y, x]] = u[[y, x]]
                    + c * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]
                        - 4.0 * u[[y, x]]);
            }
        }
        if eager {
            mint::barrier!();
        }
        std::mem::swap(u, v);
        if s % 25 == 24 {
            let mut total = 0.0f32;
            #[mint::r#for(nest(all), tile(32, 8), reduction(+: total))]
            for y in 0..ny {
                for x in 0..nx {
                    total += u[[y, x]];
                }
            }
            sums += total;
            mint::copy!(u, from_device);
            mint::copy!(u, to_device);
        }
    }
    mint::copy!(u, from_device);
    Ok(sums)
}

/// The same steps in plain loops (no reduction: the field only).
fn serial(u: &mut Array2<f32>, steps: usize, vary: bool) {
    let (ny, nx) = u.dim();
    let mut v = u.clone();
    for s in 0..steps {
        let c = if vary { 0.05 + 0.0005 * s as f32 } else { 0.1 };
        for y in 1..ny - 1 {
            u[[y, 0]] = u[[y, 1]];
            u[[y, nx - 1]] = u[[y, nx - 2]];
        }
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                v[[y, x]] = u[[y, x]]
                    + c * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]
                        - 4.0 * u[[y, x]]);
            }
        }
        std::mem::swap(u, &mut v);
    }
}

fn initial(ny: usize, nx: usize) -> Array2<f32> {
    Array2::from_shape_fn((ny, nx), |(y, x)| {
        ((y * 7 + x * 13) % 17) as f32 * 0.25 + if x > nx / 2 { 1.0 } else { 0.0 }
    })
}

fn run(d: mint::Device, steps: usize, vary: bool, eager: bool) -> (Array2<f32>, f32) {
    let mut u = initial(70, 90);
    let mut v = u.clone();
    // the eager run enqueues every launch on its own
    mint::graph::set_enabled(!eager);
    let sums = mint::with_device(d, || heat(&mut u, &mut v, steps, vary, eager)).unwrap();
    mint::graph::set_enabled(true);
    (u, sums)
}

/// With waits after every `for` (`MINT_SYNC=1`), graphs on: the `nowait` boundary
/// kernel is batched and the waited kernel after it must submit it first.
fn run_sync_each(d: mint::Device, steps: usize) -> Array2<f32> {
    let mut u = initial(70, 90);
    let mut v = u.clone();
    mint::set_sync_each_launch(true);
    let r = mint::with_device(d, || heat(&mut u, &mut v, steps, false, false));
    mint::set_sync_each_launch(false);
    r.unwrap();
    u
}

#[test]
fn lazy_waits_and_graphs_give_the_eager_result_bitwise() {
    let mut devices = vec![mint::Device::Cpu];
    devices.extend(common::gpu());
    let on_gpu = devices.len() > 1;
    // an odd step count: the swap leaves the batches in a different phase at the end
    let steps = 301;
    for vary in [false, true] {
        let mut want = initial(70, 90);
        serial(&mut want, steps, vary);
        for &d in &devices {
            let before = mint::graph::batch_counts();
            let (lazy, lazy_sums) = run(d, steps, vary, false);
            let after = mint::graph::batch_counts();
            let (eager, eager_sums) = run(d, steps, vary, true);
            assert!(
                lazy.iter()
                    .zip(&eager)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{d:?} vary={vary}: the default run differs from the eager one"
            );
            assert_eq!(
                lazy_sums.to_bits(),
                eager_sums.to_bits(),
                "{d:?} vary={vary}"
            );
            if !vary {
                let each = run_sync_each(d, steps);
                assert!(
                    each.iter()
                        .zip(&eager)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{d:?}: MINT_SYNC=1 with a nowait kernel batched differs from the eager run"
                );
            }
            let err = lazy
                .iter()
                .zip(&want)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
            assert!(
                err < 1e-4,
                "{d:?} vary={vary}: {err} from the serial reference"
            );
            if matches!(d, mint::Device::Cuda(_)) {
                let graphs = after.in_graphs - before.in_graphs;
                if vary {
                    assert_eq!(graphs, 0, "a scalar changing every step cannot repeat");
                    assert!(after.plain > before.plain);
                } else {
                    // 2 kernels per step: of 600 launches between reductions, all but
                    // the first batches of each stretch replay as graphs
                    assert!(
                        graphs as usize >= steps,
                        "only {graphs} of {} launches ran in graphs",
                        2 * steps
                    );
                }
            }
        }
    }
    if !on_gpu {
        println!("the GPU half skipped: no CUDA device");
    }
}
