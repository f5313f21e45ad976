use ndarray::Array1;

#[mint::parallel]
fn scale<T: mint::Real>(a: &mut Array1<T>, c: T) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = c * a[i];
    }
    Ok(())
}

fn main() {
    let mut a = Array1::<i32>::zeros(4);
    let _ = scale(&mut a, 2);
}
