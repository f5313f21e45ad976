use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>) -> mint::Result<()> {
    mint::copy!(a, to_host);
    Ok(())
}

fn main() {}
