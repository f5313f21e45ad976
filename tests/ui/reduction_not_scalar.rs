use ndarray::Array1;

#[mint::parallel]
fn f(a: &mut Array1<f64>, b: &mut Array1<f64>) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    mint::copy!(b, to_device);
    #[mint::r#for(reduction(+: b))]
    for i in 0..n {
        b[0] += a[i];
    }
    Ok(())
}

fn main() {}
