use ndarray::Array1;

#[mint::parallel]
fn scale<T: mint::Real>(a: &mut Array1<T>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for(tile(64))]
    for i in 0..n {
        a[i] = a[i] * T::from(0.25).unwrap();
    }
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
