use ndarray::Array2;

#[mint::parallel]
fn lower_triangle(a: &mut Array2<f64>) -> mint::Result<()> {
    let (ny, _) = a.dim();
    mint::copy!(a, to_device);
    #[mint::r#for(nest(all))]
    for y in 0..ny {
        for x in 0..y {
            a[[y, x]] = 1.0;
        }
    }
    Ok(())
}

fn main() {}
