//! A decomposition that holds too few planes is caught, never silently wrong (issue #41):
//! with the ghost width forced below what the kernel reaches, the CPU backend's views
//! (`cpu:2`, always) and `MINT_CHECK` on a GPU (`cuda:0,0`) report the first read outside
//! the planes a device holds as [`mint::Error::OutsideSlab`]. A binary of its own: the
//! forced width is process-wide.

mod common;

use mint::Device;
use ndarray::Array3;

#[mint::parallel]
fn heat(u: &mut Array3<f64>, v: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    copy!(u, to_device);
    copy!(v, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 4, 1))]
        for z in 0..nz {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let b = if z == 0 { z } else { z - 1 };
                    let t = (z + 1).min(nz - 1);
                    v[[z, y, x]] = 0.5 * u[[z, y, x]]
                        + 0.125
                            * (u[[b, y, x]] + u[[t, y, x]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
    copy!(u, from_device);
    Ok(())
}

fn run(d: Device) -> mint::Result<Array3<f64>> {
    let mut u = Array3::from_shape_fn((11, 6, 7), |(z, y, x)| common::rnd(z * 42 + y * 7 + x, 5));
    let mut v = Array3::zeros(u.dim());
    mint::with_device(d, || heat(&mut u, &mut v, 3))?;
    Ok(u)
}

#[test]
fn an_undersized_ghost_width_is_caught_on_the_cpu_and_by_mint_check_on_the_gpu() {
    assert_eq!(mint::decomposition("heat").unwrap().ghost, 1);
    let want = run(Device::Cpu).unwrap();
    mint::__rt::override_ghost_planes(Some(0));
    let expect_outside = |r: mint::Result<Array3<f64>>, what: &str| match r {
        Err(mint::Error::OutsideSlab { array, message, .. }) => {
            assert_eq!(array, "u", "{what}");
            message
        }
        other => panic!("{what}: expected OutsideSlab, got {:?}", other.map(|_| ())),
    };
    expect_outside(run(Device::Cpus(2)), "cpu:2");
    if let Some(_gpu) = common::gpu() {
        let split = Device::parse("cuda:0,0").unwrap();
        mint::set_check_reads(Some(true));
        let m = expect_outside(run(split), "cuda:0,0 with MINT_CHECK");
        assert!(m.contains("MINT_CHECK"), "{m}");
        mint::set_check_reads(None);
    }
    mint::__rt::override_ghost_planes(None);
    // the right width again: equal to one device, on the GPU with the checks on too
    assert_eq!(run(Device::Cpus(2)).unwrap(), want);
    if let Some(gpu) = common::gpu() {
        let one = run(gpu).unwrap();
        mint::set_check_reads(Some(true));
        let split = run(Device::parse("cuda:0,0").unwrap()).unwrap();
        mint::set_check_reads(None);
        assert!(
            one.iter()
                .zip(&split)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "cuda:0,0 with MINT_CHECK differs from cuda"
        );
    }
}
