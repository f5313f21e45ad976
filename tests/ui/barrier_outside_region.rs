fn f() {
    mint::barrier!();
}

fn main() {}
