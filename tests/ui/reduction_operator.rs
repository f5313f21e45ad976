use ndarray::Array1;

#[mint::parallel]
fn total(a: &Array1<f64>) -> mint::Result<f64> {
    let n = a.len();
    let mut s = 0.0f64;
    mint::copy!(a, to_device);
    #[mint::r#for(reduction(-: s))]
    for i in 0..n {
        s -= a[i];
    }
    Ok(s)
}

fn main() {}
