use ndarray::Array3;

#[mint::parallel(stream)]
fn f(a: &Array3<f64>) -> mint::Result<f64> {
    let (nz, ny, nx) = a.dim();
    let mut s = 0.0;
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), reduction(+: s))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                s += a[[z, y, x]];
            }
        }
    }
    mint::copy!(a, from_device);
    Ok(s)
}

#[mint::parallel]
fn g(a: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), stream)]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                a[[z, y, x]] = 1.0;
            }
        }
    }
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
