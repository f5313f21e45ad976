use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>, idx: &[usize]) -> mint::Result<()> {
    mint::copy!(a, to_device);
    #[mint::r#for]
    for i in idx.iter() {
        a[*i] = 1.0;
    }
    Ok(())
}

fn main() {}
