fn square(v: f64) -> f64 {
    v * v
}

#[mint::device]
fn norm2(a: f64, b: f64) -> f64 {
    square(a) + square(b)
}

fn main() {}
