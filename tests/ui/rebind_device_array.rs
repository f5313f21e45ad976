use ndarray::Array1;

#[mint::parallel]
fn f(n: usize) -> mint::Result<()> {
    let mut a: Array1<f64> = Array1::zeros(n);
    mint::copy!(a, to_device);
    a = Array1::ones(n);
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
