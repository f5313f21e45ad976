use ndarray::Array1;

#[mint::parallel]
fn twice<T: Copy + std::ops::Add<Output = T>>(a: &mut Array1<T>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = a[i] + a[i];
    }
    Ok(())
}

fn main() {}
