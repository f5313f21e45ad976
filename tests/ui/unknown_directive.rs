use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::parallel_for]
    for i in 0..n {
        a[i] = 1.0;
    }
    Ok(())
}

fn main() {}
