//! Register caps that follow the kernel (issue #15): a vectorized kernel is held to 64
//! registers per thread (`mint_translator::optimizer::vector::MAX_REGISTERS`), and the
//! radius-8 star's z queue of 17 vectors spills under that cap (200–600 bytes per thread
//! with ptxas 13.0 on sm_90). The runtime translates such a kernel again with the cap
//! raised one occupancy step (96, 128, 168, 255) until it does not spill. On a GPU: the
//! loaded kernel spills nothing, its cap was raised to one of those steps, and its result
//! equals the serial reference.

mod common;

use ndarray::Array3;

#[mint::parallel(vectorize, unroll)]
fn star8(u: &mut Array3<f64>, unew: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    let coef = 1.0 / 48.0;
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(64, 4, 4), chunksize(1, 1, 4))]
        for z in 8..nz - 8 {
            for y in 8..ny - 8 {
                for x in 8..nx - 8 {
                    let mut s = 0.0;
                    for d in 1..9 {
                        s += u[[z, y, x - d]]
                            + u[[z, y, x + d]]
                            + u[[z, y - d, x]]
                            + u[[z, y + d, x]]
                            + u[[z - d, y, x]]
                            + u[[z + d, y, x]];
                    }
                    unew[[z, y, x]] = coef * s - u[[z, y, x]];
                }
            }
        }
        std::mem::swap(u, unew);
    }
    mint::copy!(u, from_device);
    Ok(())
}

#[test]
fn a_kernel_that_spills_under_the_cap_gets_a_higher_one() {
    let Some(d) = common::gpu() else {
        return;
    };
    let n = 48;
    let mut u = Array3::from_shape_fn((n, n + 3, n + 5), |(z, y, x)| {
        ((z * 31 + y * 17 + x * 7) % 23) as f64 * 0.125
    });
    let mut want = u.clone();
    mint_kernels::star::serial3(&mut want, 8, 3);
    let mut unew = u.clone();
    mint::with_device(d, || star8(&mut u, &mut unew, 3)).unwrap();
    let err = u
        .iter()
        .zip(&want)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(err < 1e-12, "{err} from the serial reference");

    let site = mint::kernel_sites()
        .find(|s| s.name == "star8_0")
        .expect("the kernel's site");
    let gpu = mint_runtime::Gpu::get(0).unwrap();
    let (attrs, t) = mint_runtime::launch::kernel_attrs(site, &gpu, &[], false).unwrap();
    assert_eq!(attrs.local_bytes, 0, "the kernel as loaded still spills");
    let cap = t
        .max_registers
        .expect("a vectorized kernel has a register cap");
    assert!(
        cap > mint_translator::optimizer::vector::MAX_REGISTERS,
        "the cap stayed at {cap}: the kernel no longer spills under the default (then this test needs a larger radius)"
    );
    assert!(
        mint_translator::optimizer::vector::REGISTER_STEPS.contains(&cap),
        "the cap {cap} is not one of the occupancy steps"
    );
    assert!(
        t.report
            .notes
            .iter()
            .any(|n| n.starts_with("registers: the cap")),
        "{:?}",
        t.report.notes
    );
}
