use ndarray::Array1;

fn square(v: f64) -> f64 {
    v * v
}

#[mint::parallel]
fn f(a: &mut Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in 0..n {
        a[i] = square(a[i]);
    }
    Ok(())
}

fn main() {}
