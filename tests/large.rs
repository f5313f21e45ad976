//! A 512³ run on the GPU against the serial reference (f64 to 1e-12, f32 to 1e-5).

mod common;

use mint_kernels::heat3d;
use ndarray::Array3;

fn init<T: From<f32> + Copy>(n: usize) -> Array3<T> {
    Array3::from_shape_fn((n, n, n), |(z, y, x)| {
        T::from(common::rnd((z * n + y) * n + x, 11) as f32)
    })
}

#[test]
fn heat_512_cubed_f64_and_f32_on_the_gpu() {
    let Some(d) = common::gpu() else { return };
    let n = 512;
    let steps = 3;
    {
        let u0 = init::<f64>(n);
        let mut want = u0.clone();
        heat3d::f64::serial(&mut want, 0.4, 0.1, steps);
        let (mut u, mut v) = (u0.clone(), u0);
        mint::with_device(d, || {
            heat3d::f64::run(
                mint_kernels::Opts::None,
                &mut u,
                &mut v,
                0.4,
                0.1,
                steps,
                [32, 8, 1],
                [1, 1, 1],
            )
        })
        .unwrap();
        let e = common::max_rel_err(&u, &want);
        assert!(e <= 1e-12, "f64 512^3: {e}");
    }
    {
        let u0 = init::<f32>(n);
        let mut want = u0.clone();
        heat3d::f32::serial(&mut want, 0.4, 0.1, steps);
        let (mut u, mut v) = (u0.clone(), u0);
        mint::with_device(d, || {
            heat3d::f32::run(
                mint_kernels::Opts::SharedRegister,
                &mut u,
                &mut v,
                0.4,
                0.1,
                steps,
                [32, 4, 64],
                [1, 1, 64],
            )
        })
        .unwrap();
        let e = common::max_rel_err(&u, &want);
        assert!(e <= 1e-5, "f32 512^3: {e}");
    }
}
