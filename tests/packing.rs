//! Kernel parameters past the limit are packed into a device array (thesis Sec. 4.2.9).
//! `MINT_PARAM_LIMIT` lowers the limit (4 KB by default) so a small kernel exercises it;
//! it is read once per process, so this test has its own binary.

mod common;

use common::{backends, max_rel_err, rnd};
use ndarray::Array3;

#[mint::parallel]
fn blend(
    a: &Array3<f64>,
    b: &Array3<f64>,
    c: &Array3<f64>,
    out: &mut Array3<f64>,
    wa: f64,
    wb: f64,
    wc: f64,
) -> mint::Result<()> {
    let (nz, ny, nx) = a.dim();
    mint::copy!(a, to_device);
    mint::copy!(b, to_device);
    mint::copy!(c, to_device);
    mint::copy!(out, to_device);
    #[mint::r#for(nest(all), tile(16, 4, 2))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 1..nx {
                out[[z, y, x]] = wa * a[[z, y, x]] + wb * b[[z, y, x - 1]] + wc * c[[z, y, x]];
            }
        }
    }
    mint::copy!(out, from_device);
    Ok(())
}

#[test]
fn packed_parameters_give_the_same_results() {
    let dump = std::env::temp_dir().join(format!("mint-packing-{}", std::process::id()));
    // SAFETY: set before any other thread of this binary reads the environment.
    unsafe {
        std::env::set_var("MINT_PARAM_LIMIT", "64");
        std::env::set_var("MINT_DUMP", &dump);
    }
    let (nz, ny, nx) = (5, 9, 33);
    let f = |s: u64| Array3::from_shape_fn((nz, ny, nx), |(z, y, x)| rnd((z * ny + y) * nx + x, s));
    let (a, b, c) = (f(1), f(2), f(3));
    let mut want = Array3::zeros((nz, ny, nx));
    for z in 0..nz {
        for y in 0..ny {
            for x in 1..nx {
                want[[z, y, x]] = 0.5 * a[[z, y, x]] + 0.25 * b[[z, y, x - 1]] + 2.0 * c[[z, y, x]];
            }
        }
    }
    for d in backends() {
        let mut out = Array3::zeros((nz, ny, nx));
        mint::with_device(d, || blend(&a, &b, &c, &mut out, 0.5, 0.25, 2.0)).unwrap();
        assert!(max_rel_err(&out, &want) <= 1e-15, "{d:?}");
        if !common::is_cpu(d) {
            let src = std::fs::read_to_string(dump.join("packing.blend_0.cu"))
                .expect("MINT_DUMP wrote the kernel");
            assert!(
                src.contains("mint_args["),
                "the kernel's arrays arrive packed:\n{src}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dump);
}
