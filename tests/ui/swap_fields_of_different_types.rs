use ndarray::Array3;

struct Fields {
    u: Array3<f32>,
    v: Array3<f64>,
}

#[mint::parallel]
fn step(f: &mut Fields) {
    mint::copy!(f.u, to_device);
    mint::copy!(f.v, to_device);
    std::mem::swap(&mut f.u, &mut f.v);
}

fn main() {}
