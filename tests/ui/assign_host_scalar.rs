use ndarray::Array1;

#[mint::parallel]
fn last(a: &Array1<f64>) -> mint::Result<f64> {
    let n = a.len();
    let mut v = 0.0f64;
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        v = a[i];
    }
    Ok(v)
}

fn main() {}
