use ndarray::Array3;

#[mint::parallel]
fn f(a: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(4))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                a[[z, y, x]] = 1.0;
            }
        }
    }
    Ok(())
}

fn main() {}
