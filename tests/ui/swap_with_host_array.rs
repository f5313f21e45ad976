use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>, b: &mut Array1<f64>) -> mint::Result<()> {
    mint::copy!(a, to_device);
    std::mem::swap(a, b);
    mint::copy!(a, from_device);
    Ok(())
}

fn main() {}
