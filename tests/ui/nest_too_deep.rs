use ndarray::Array2;

#[mint::parallel]
fn f(a: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(3))]
    for y in 0..ny {
        for x in 0..nx {
            a[[y, x]] = 1.0;
        }
    }
    Ok(())
}

fn main() {}
