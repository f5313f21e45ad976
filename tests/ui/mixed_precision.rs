use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f32>, b: &Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    mint::copy!(b, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = a[i] * b[i];
    }
    Ok(())
}

fn main() {}
