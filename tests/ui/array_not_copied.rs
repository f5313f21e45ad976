use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>, b: &Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = 2.0 * b[i];
    }
    Ok(())
}

fn main() {}
