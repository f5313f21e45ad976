use ndarray::Array1;

fn f(a: &mut Array1<f64>) {
    mint::copy!(a, to_device);
}

fn main() {}
