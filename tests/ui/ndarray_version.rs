// An array of another ndarray version than the one Mint is built against.
use ndarray016::Array2;

#[mint::parallel]
fn f(a: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all), tile(16, 16))]
    for y in 0..ny {
        for x in 0..nx {
            a[[y, x]] = 1.0;
        }
    }
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
