//! Streaming a region through the device in slabs (`#[mint::parallel(stream)]`, issue
//! #16): results equal to the same region unstreamed and to serial loops, with a
//! `MINT_DEVICE_MEMORY` cap smaller than the arrays; the slab counts the cap forces; and
//! the regions that cannot be streamed rejected with `mint::Error::Stream` before any
//! byte moves. On the CPU backend (CI) the slabs are emulated devices; on a GPU the
//! pipeline of copy-in, kernels and copy-out runs for real.

mod common;

#[allow(dead_code)]
#[path = "../examples/harris/detect.rs"]
mod detect;

#[path = "common/heat_step.rs"]
mod step;
use mint::PinnedArray3;
use ndarray::Array3;
use std::sync::Mutex;

/// The cap and slab overrides are process-wide: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// One explicit step of the 3-D heat equation, as written and streamed
/// (`mint_kernels::heat3d::step`): `v = (1 - 6c) u + c (sum of the six neighbours)`.
fn heat(u: &Array3<f64>, v: &mut Array3<f64>, c: f64) -> mint::Result<()> {
    step::sequential(u, v, 1.0 - 6.0 * c, c, [16, 8, 4], [1, 1, 4])
}
fn heat_streamed(u: &Array3<f64>, v: &mut Array3<f64>, c: f64) -> mint::Result<()> {
    step::streamed(u, v, 1.0 - 6.0 * c, c, [16, 8, 4], [1, 1, 4])
}

/// The heat step in plain loops.
fn serial_heat(u: &Array3<f64>, c: f64) -> Array3<f64> {
    let (nz, ny, nx) = u.dim();
    let mut v = Array3::<f64>::zeros(u.dim());
    for z in 1..nz - 1 {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                v[[z, y, x]] = (1.0 - 6.0 * c) * u[[z, y, x]]
                    + c * (u[[z, y, x - 1]]
                        + u[[z, y, x + 1]]
                        + u[[z, y - 1, x]]
                        + u[[z, y + 1, x]]
                        + u[[z - 1, y, x]]
                        + u[[z + 1, y, x]]);
            }
        }
    }
    v
}

/// Two kernels: a stencil of `u` into `t`, then `w` from `t` at the same point (no halo
/// of `t` needed), with a 1-D table read by both. Streams.
#[mint::parallel(stream)]
fn two_kernels(
    u: &Array3<f32>,
    t: &mut Array3<f32>,
    w: &mut Array3<f32>,
    table: &ndarray::Array1<f32>,
) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(t, to_device);
    mint::copy!(w, to_device);
    mint::copy!(table, to_device);
    #[mint::r#for(nest(all), tile(16, 4, 2))]
    for z in 2..nz - 2 {
        for y in 0..ny {
            for x in 0..nx {
                t[[z, y, x]] = u[[z - 2, y, x]] + u[[z + 2, y, x]] * table[x];
            }
        }
    }
    #[mint::r#for(nest(all), tile(16, 4, 2))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                w[[z, y, x]] = t[[z, y, x]] * 2.0 + table[y];
            }
        }
    }
    mint::copy!(w, from_device);
    mint::copy!(t, from_device);
    Ok(())
}

/// A second kernel that reads the first one's output a plane away: slabs would need
/// each other's results, so it cannot stream.
#[mint::parallel(stream)]
fn needs_halo(u: &Array3<f32>, t: &mut Array3<f32>, w: &mut Array3<f32>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(t, to_device);
    mint::copy!(w, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                t[[z, y, x]] = u[[z, y, x]] + 1.0;
            }
        }
    }
    #[mint::r#for(nest(all))]
    for z in 1..nz - 1 {
        for y in 0..ny {
            for x in 0..nx {
                w[[z, y, x]] = t[[z - 1, y, x]] + t[[z + 1, y, x]];
            }
        }
    }
    mint::copy!(w, from_device);
    Ok(())
}

fn field(n: [usize; 3], seed: u64) -> Array3<f64> {
    Array3::from_shape_fn((n[0], n[1], n[2]), |(z, y, x)| {
        common::rnd((z * n[1] + y) * n[2] + x, seed)
    })
}

/// Bytes of one array of `shape` f64s.
fn bytes(shape: [usize; 3]) -> usize {
    shape.iter().product::<usize>() * 8
}

fn devices() -> Vec<mint::Device> {
    let mut v = vec![mint::Device::Cpu];
    v.extend(common::gpu());
    v
}

#[test]
fn a_heat_step_streams_under_a_cap_smaller_than_its_arrays() {
    let _g = serial();
    // 121 planes: divides by nothing the slab counts pick
    let n = [121, 37, 45];
    let u = field(n, 1);
    let c = 0.1;
    let want = serial_heat(&u, c);
    for d in devices() {
        let mut plain = Array3::<f64>::zeros(u.dim());
        mint::memcap::set_cap(None);
        mint::with_device(d, || heat(&u, &mut plain, c)).unwrap();
        // a third of one array: both arrays need 6 times that
        mint::memcap::set_cap(Some(Some(bytes(n) / 3)));
        // on a GPU, both ways host memory meets the copy engines
        let paths: &[mint::stream::HostPath] = if common::is_cpu(d) {
            &[mint::stream::HostPath::Staged]
        } else {
            &[
                mint::stream::HostPath::Staged,
                mint::stream::HostPath::Registered,
            ]
        };
        for (slabs, &path) in [None, Some(5)]
            .into_iter()
            .flat_map(|s| paths.iter().map(move |p| (s, p)))
        {
            mint::stream::set_slabs(Some(slabs));
            mint::stream::set_host_path(Some(path));
            let mut v = Array3::<f64>::zeros(u.dim());
            mint::with_device(d, || heat_streamed(&u, &mut v, c)).unwrap();
            assert_eq!(
                v, plain,
                "{d:?}, slabs {slabs:?}, {path:?}: streamed differs from unstreamed"
            );
            if common::is_cpu(d) {
                assert_eq!(v, want, "{d:?}: the CPU's result is the serial loops'");
            } else {
                assert!(common::max_rel_err(&v, &want) < 1e-12, "{d:?}");
                let s = mint::stream::last_run().expect("a GPU run records its figures");
                assert!(s.slabs >= 2, "{s:?}");
                assert!(s.device_bytes <= bytes(n) / 3, "{s:?}");
                // the count asked for, or more when the cap needs more
                if let Some(k) = slabs {
                    assert!(s.slabs >= k, "{s:?}");
                }
            }
        }
        // unstreamed, the same cap is too small, with a clear error and `v` untouched
        if !common::is_cpu(d) {
            let mut v = Array3::<f64>::from_elem(u.dim(), 7.0);
            let e = mint::with_device(d, || heat(&u, &mut v, c)).unwrap_err();
            assert!(matches!(e, mint::Error::OverMemoryCap { .. }), "{e}");
            assert!(e.to_string().contains("MINT_DEVICE_MEMORY"), "{e}");
            assert!(v.iter().all(|&x| x == 7.0));
        }
        mint::stream::set_slabs(None);
        mint::stream::set_host_path(None);
        mint::memcap::set_cap(None);
    }
}

#[test]
fn the_emulated_devices_refuse_arrays_over_the_cap() {
    let _g = serial();
    let n = [20, 16, 16];
    let u = field(n, 2);
    let mut v = Array3::<f64>::zeros(u.dim());
    // cpu:2 holds half an array (plus a ghost plane) per device: a quarter does not fit
    mint::memcap::set_cap(Some(Some(bytes(n) / 4)));
    let e = mint::with_device(mint::Device::Cpus(2), || heat(&u, &mut v, 0.1)).unwrap_err();
    mint::memcap::set_cap(None);
    assert!(matches!(e, mint::Error::OverMemoryCap { .. }), "{e}");
    assert!(e.to_string().contains("`u"), "{e}");
}

#[test]
fn two_kernels_and_a_replicated_table_stream() {
    let _g = serial();
    let n = [29, 6, 40];
    let u = field(n, 3).mapv(|v| v as f32);
    let table = ndarray::Array1::from_shape_fn(40, |i| common::rnd(i, 4) as f32);
    // serial reference
    let mut t_ref = Array3::<f32>::zeros(u.dim());
    let mut w_ref = Array3::<f32>::zeros(u.dim());
    for z in 2..n[0] - 2 {
        for y in 0..n[1] {
            for x in 0..n[2] {
                t_ref[[z, y, x]] = u[[z - 2, y, x]] + u[[z + 2, y, x]] * table[x];
            }
        }
    }
    for z in 0..n[0] {
        for y in 0..n[1] {
            for x in 0..n[2] {
                w_ref[[z, y, x]] = t_ref[[z, y, x]] * 2.0 + table[y];
            }
        }
    }
    for d in devices() {
        for slabs in [Some(1), Some(3), Some(7), None] {
            mint::stream::set_slabs(Some(slabs));
            let mut t = Array3::<f32>::zeros(u.dim());
            let mut w = Array3::<f32>::zeros(u.dim());
            mint::with_device(d, || two_kernels(&u, &mut t, &mut w, &table)).unwrap();
            mint::stream::set_slabs(None);
            if common::is_cpu(d) {
                assert_eq!(t, t_ref, "{d:?} {slabs:?}");
                assert_eq!(w, w_ref, "{d:?} {slabs:?}");
            } else {
                assert!(common::max_rel_err(&t, &t_ref) < 1e-6, "{d:?} {slabs:?}");
                assert!(common::max_rel_err(&w, &w_ref) < 1e-6, "{d:?} {slabs:?}");
                // with no cap, the count asked for is the count run
                let s = mint::stream::last_run().expect("a GPU run records its figures");
                if let Some(k) = slabs {
                    assert_eq!(s.slabs, k, "{s:?}");
                }
            }
        }
    }
}

#[test]
fn a_kernel_reading_another_kernels_output_off_slab_is_refused() {
    let _g = serial();
    let n = [12, 4, 4];
    let u = Array3::<f32>::zeros((n[0], n[1], n[2]));
    for d in devices() {
        let mut t = Array3::<f32>::from_elem(u.dim(), 3.0);
        let mut w = Array3::<f32>::from_elem(u.dim(), 5.0);
        let e = mint::with_device(d, || needs_halo(&u, &mut t, &mut w)).unwrap_err();
        assert!(matches!(e, mint::Error::Stream { .. }), "{d:?}: {e}");
        let m = e.to_string();
        assert!(
            m.contains("needs_halo") && m.contains("`t`") && m.contains("halo"),
            "{m}"
        );
        assert!(w.iter().all(|&x| x == 5.0), "{d:?}: the output was touched");
    }
}

#[test]
fn harris_streams_under_a_cap_and_equals_the_unstreamed_run() {
    let _g = serial();
    mint::tune::set_mode(mint::tune::Mode::Off);
    let (data, corners) = detect::phantom(96);
    let want = detect::serial_scores(&data, 5);
    for d in devices() {
        let plain = mint::with_device(d, || {
            detect::scores_as(&data, 5, [32, 8, 1], false).map_err(|e| e.to_string())
        })
        .unwrap();
        // one volume's bytes: data and score need twice that (the slabs' ghost planes,
        // 3 each side, and three buffer sets on a GPU, leave room for no smaller cap)
        mint::memcap::set_cap(Some(Some(data.len() * 4)));
        let streamed = mint::with_device(d, || {
            detect::scores_as(&data, 5, [32, 8, 1], true).map_err(|e| e.to_string())
        });
        mint::memcap::set_cap(None);
        let streamed = streamed.unwrap();
        assert_eq!(streamed, plain, "{d:?}: streamed differs from unstreamed");
        let max = want.iter().fold(0f32, |m, v| m.max(v.abs()));
        let err = streamed
            .iter()
            .zip(want.iter())
            .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(err <= 1e-5 * max, "{d:?}: {err} of {max}");
        let points = detect::interest_points(&streamed, 0.01);
        assert_eq!(points.len(), corners.len(), "{d:?}");
    }
}

#[test]
fn arrays_of_several_page_locked_pieces_stream_on_a_gpu() {
    let _g = serial();
    let Some(d) = common::gpu() else { return };
    // 140 x 256 x 256 f64: 73 MB, more than one 64 MiB piece of page-locked memory, so
    // slabs' copies cross from one piece to the next
    let u = field([140, 256, 256], 5);
    let mut plain = Array3::<f64>::zeros(u.dim());
    mint::with_device(d, || heat(&u, &mut plain, 0.2)).unwrap();
    for path in [
        mint::stream::HostPath::Registered,
        mint::stream::HostPath::Staged,
    ] {
        for slabs in [Some(7), None] {
            mint::stream::set_host_path(Some(path));
            mint::stream::set_slabs(Some(slabs));
            let mut v = Array3::<f64>::zeros(u.dim());
            let r = mint::with_device(d, || heat_streamed(&u, &mut v, 0.2));
            mint::stream::set_slabs(None);
            mint::stream::set_host_path(None);
            r.unwrap();
            assert_eq!(v, plain, "{path:?}, slabs {slabs:?}");
        }
    }
}

#[test]
fn page_locked_arrays_stream_without_host_copies() {
    let _g = serial();
    mint::tune::set_mode(mint::tune::Mode::Off);
    let (data, _) = detect::phantom(96);
    let w = detect::weights(5);
    let (k, tile) = (detect::K, [32, 8, 1]);
    for d in devices() {
        let want = mint::with_device(d, || detect::scores_as(&data, 5, tile, false)).unwrap();
        for slabs in [Some(7), None] {
            let got = mint::with_device(d, || {
                let pinned = PinnedArray3::from_array(&data);
                let mut score = PinnedArray3::<f32>::zeros(data.dim());
                mint::stream::set_slabs(Some(slabs));
                let r = detect::scores5_streamed_pinned(&pinned, &w, &mut score, k, tile);
                mint::stream::set_slabs(None);
                r.map(|_| score)
            })
            .unwrap();
            assert!(got.view() == want.view(), "{d:?}, slabs {slabs:?}");
            if matches!(d, mint::Device::Cuda(_)) {
                let s = mint::stream::last_run().expect("a streamed run");
                assert_eq!(s.host_path, mint::stream::HostPath::PageLocked, "{d:?}");
                assert_eq!(s.registered_bytes, 0);
                if let Some(n) = slabs {
                    assert_eq!(s.slabs, n);
                }
            }
        }
        // and as written, unstreamed
        let got = mint::with_device(d, || {
            let pinned = PinnedArray3::from_array(&data);
            let mut score = PinnedArray3::<f32>::zeros(data.dim());
            detect::scores5_pinned(&pinned, &w, &mut score, k, tile).map(|_| score)
        })
        .unwrap();
        assert!(got.view() == want.view(), "{d:?}, unstreamed");
    }
}
