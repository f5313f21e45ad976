#[mint::parallel(registers)]
fn f() {}

fn main() {}
