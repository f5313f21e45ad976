//! `copy!` of arrays large enough to go through the page-locked staging ring
//! (`mint_runtime::transfer`): pitched 3-D and 2-D rows that do not divide a staging
//! buffer, and a contiguous 1-D array cut by bytes, each through more pieces than the
//! ring has buffers. Each is copied in, changed by a kernel and copied out, and compared
//! with the same change made on the host; a second array makes the round trip alone.
//! On several slabs of one GPU (`cuda:0,0`, the scatter and gather) the results equal
//! one device's bit for bit. Arrays in page-locked memory (`mint::PinnedArray3`) skip the
//! ring and give the same results.

mod common;

use mint::PinnedArray3;
use ndarray::{Array1, Array2, Array3};

/// `u = 2u + (x + 3y + 5z)`; `w` makes the round trip alone. On `ndarray` arrays and
/// on page-locked ones.
macro_rules! bump3 {
    ($name:ident, $arr:ident) => {
        #[mint::parallel]
        fn $name(u: &mut $arr<f64>, w: &mut $arr<f64>) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(w, to_device);
            #[mint::r#for(nest(all))]
            for z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        u[[z, y, x]] = 2.0 * u[[z, y, x]] + (x + 3 * y + 5 * z) as f64;
                    }
                }
            }
            mint::copy!(u, from_device);
            mint::copy!(w, from_device);
            Ok(())
        }
    };
}
bump3!(bump3, Array3);
bump3!(bump3_pinned, PinnedArray3);

#[mint::parallel]
fn bump2(u: &mut Array2<f32>) -> mint::Result<()> {
    let (ny, nx) = u.dim();
    mint::copy!(u, to_device);
    #[mint::r#for(nest(all))]
    for y in 0..ny {
        for x in 0..nx {
            u[[y, x]] -= 1.0;
        }
    }
    mint::copy!(u, from_device);
    Ok(())
}

#[mint::parallel]
fn bump1(u: &mut Array1<f32>) -> mint::Result<()> {
    let n = u.len();
    mint::copy!(u, to_device);
    #[mint::r#for]
    for i in 0..n {
        u[i] += 1.0;
    }
    mint::copy!(u, from_device);
    Ok(())
}

fn field3() -> Array3<f64> {
    // rows of 257 f64 (2056 bytes, pitched to 2176 on the device): 68 MB, 5 ring pieces
    Array3::from_shape_fn((130, 257, 257), |(z, y, x)| {
        common::rnd((z * 257 + y) * 257 + x, 3)
    })
}

#[test]
fn large_pitched_3d_arrays_round_trip_through_the_ring() {
    let Some(d) = common::gpu() else { return };
    let u0 = field3();
    let want = Array3::from_shape_fn(u0.dim(), |(z, y, x)| {
        2.0 * u0[[z, y, x]] + (x + 3 * y + 5 * z) as f64
    });
    let mut one = None;
    for dev in std::iter::once(d).chain(common::gpu_splits()) {
        let (mut u, mut w) = (u0.clone(), u0.clone());
        mint::with_device(dev, || bump3(&mut u, &mut w)).unwrap();
        assert!(w == u0, "{dev:?}: the round trip alone changed the array");
        assert!(
            u == want,
            "{dev:?}: the kernel's result differs from the host's"
        );
        match &one {
            None => one = Some(u),
            Some(o) => assert!(u == *o, "{dev:?}: differs from one device"),
        }
    }
}

#[test]
fn large_pitched_2d_and_contiguous_1d_arrays_round_trip_through_the_ring() {
    let Some(d) = common::gpu() else { return };
    // rows of 1537 f32 (6148 bytes): 18 MB in 2 pieces
    let v0 = Array2::from_shape_fn((3001, 1537), |(y, x)| common::rnd(y * 1537 + x, 5) as f32);
    let mut v = v0.clone();
    mint::with_device(d, || bump2(&mut v)).unwrap();
    assert!(v == v0.mapv(|a| a - 1.0), "2-D");
    // 80 MB back to back: 5 pieces of 16 MiB, the last one partial
    let a0 = Array1::from_shape_fn(20_000_003, |i| (i % 1009) as f32);
    let mut a = a0.clone();
    let before = mint::transfer_stats();
    mint::with_device(d, || bump1(&mut a)).unwrap();
    assert!(a == a0.mapv(|x| x + 1.0), "1-D");
    // counted (other tests of this binary may add to the counts meanwhile, never take)
    let after = mint::transfer_stats();
    let bytes = 4.0 * a.len() as f64;
    assert!(after.to_device_bytes - before.to_device_bytes >= bytes);
    assert!(after.from_device_bytes - before.from_device_bytes >= bytes);
    assert!(after.to_device_seconds > before.to_device_seconds);
}

#[test]
fn page_locked_arrays_round_trip_directly_and_equal_ndarray_ones() {
    // 68 MB (the direct DMA of a whole array) and 28 kB (below the ring's threshold)
    for shape in [(130, 257, 257), (7, 9, 57)] {
        let u0 = Array3::from_shape_fn(shape, |(z, y, x)| {
            common::rnd((z * shape.1 + y) * shape.2 + x, 3)
        });
        let want = Array3::from_shape_fn(u0.dim(), |(z, y, x)| {
            2.0 * u0[[z, y, x]] + (x + 3 * y + 5 * z) as f64
        });
        let devices = std::iter::once(mint::Device::Cpu).chain(common::gpu());
        for dev in devices {
            let (u, w) = mint::with_device(dev, || {
                let mut u = PinnedArray3::from_array(&u0);
                let mut w = PinnedArray3::from_array(&u0);
                let gpu = dev != mint::Device::Cpu;
                assert_eq!(
                    u.is_page_locked(),
                    gpu,
                    "{dev:?}: page-locked only with a GPU"
                );
                bump3_pinned(&mut u, &mut w).map(|_| (u, w))
            })
            .unwrap();
            assert!(
                w.view() == u0.view(),
                "{dev:?} {shape:?}: the round trip alone changed it"
            );
            assert!(
                u.view() == want.view(),
                "{dev:?} {shape:?}: differs from the host's"
            );
        }
    }
}
