use ndarray::Array3;

#[mint::parallel]
fn heat(u: &mut Array3<f32>, unew: &mut Array3<f32>, steps: usize) {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    #[mint::time_loop(block = 4)]
    for _ in 0..steps {
        #[mint::r#for(nest(all))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    unew[[z, y, x]] = 0.5 * (u[[z - 1, y, x]] + u[[z + 1, y, x]]) + 0.0 * u[[z, y - 1, x + 1]];
                }
            }
        }
        std::mem::swap(u, unew);
    }
    mint::copy!(u, from_device);
}

fn main() {}
