use ndarray::Array1;

#[mint::parallel]
fn f(a: &Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = 0.0;
    }
    Ok(())
}

fn main() {}
