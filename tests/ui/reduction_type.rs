use ndarray::Array1;

#[mint::parallel]
fn count(a: &Array1<u8>) -> mint::Result<u8> {
    let n = a.len();
    let mut hits: u8 = 0;
    mint::copy!(a, to_device);
    #[mint::r#for(reduction(+: hits))]
    for i in 0..n {
        hits += a[i];
    }
    Ok(hits)
}

fn main() {}
