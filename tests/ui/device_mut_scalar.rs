#[mint::device]
fn bump(x: &mut f32) -> f32 {
    *x + 1.0
}

fn main() {}
