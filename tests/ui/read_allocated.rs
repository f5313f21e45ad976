use ndarray::Array2;

#[mint::parallel]
fn f(a: &mut Array2<f64>, b: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    mint::copy!(b, alloc);
    #[mint::r#for(nest(all), tile(16, 16))]
    for y in 0..ny {
        for x in 0..nx {
            b[[y, x]] += a[[y, x]];
        }
    }
    mint::copy!(b, from_device);
    Ok(())
}

fn main() {}
