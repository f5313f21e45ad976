fn main() {
    let mut a = vec![0.0f64; 4];
    #[mint::r#for]
    for i in 0..4 {
        a[i] = 1.0;
    }
}
