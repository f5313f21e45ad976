use ndarray::Array3;

#[mint::parallel(stream)]
fn f(a: &Array3<f64>, b: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                b[[z, y, x]] = a[[z, y, x]];
            }
        }
    }
    mint::copy!(b, to_device);
    mint::copy!(b, from_device);
    println!("between the copies back");
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
