use ndarray::Array3;

#[mint::parallel]
fn heat(
    u: &mut Array3<f64>,
    unew: &mut Array3<f64>,
    c0: f64,
    c1: f64,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 16, 4), chunksize(1, 1, 4))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    unew[[z, y, x]] = c0 * u[[z, y, x]]
                        + c1 * (u[[z, y, x - 1]]
                            + u[[z, y, x + 1]]
                            + u[[z, y - 1, x]]
                            + u[[z, y + 1, x]]
                            + u[[z - 1, y, x]]
                            + u[[z + 1, y, x]]);
                }
            }
        }
        std::mem::swap(u, unew);
    }
    mint::copy!(u, from_device);
    Ok(())
}

#[test]
fn heat_cpu() {
    let n = 12;
    let mut u = Array3::from_shape_fn((n, n, n), |(z, y, x)| ((z * 7 + y * 3 + x) % 5) as f64);
    let mut unew = u.clone();
    let mut r = u.clone();
    let mut rn = u.clone();
    for _ in 0..3 {
        for z in 1..n - 1 {
            for y in 1..n - 1 {
                for x in 1..n - 1 {
                    rn[[z, y, x]] = 0.4 * r[[z, y, x]]
                        + 0.1
                            * (r[[z, y, x - 1]]
                                + r[[z, y, x + 1]]
                                + r[[z, y - 1, x]]
                                + r[[z, y + 1, x]]
                                + r[[z - 1, y, x]]
                                + r[[z + 1, y, x]]);
                }
            }
        }
        std::mem::swap(&mut r, &mut rn);
    }
    mint::with_device(mint::Device::Cpu, || heat(&mut u, &mut unew, 0.4, 0.1, 3)).unwrap();
    assert_eq!(u, r);
}
