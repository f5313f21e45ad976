use ndarray::Array3;

#[mint::parallel]
fn heat(u: &mut Array3<f32>, unew: &mut Array3<f32>, steps: usize) -> f32 {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    let mut total = 0.0f32;
    #[mint::time_loop(block = 3)]
    for _ in 0..steps {
        #[mint::r#for(nest(all), reduction(+: total))]
        for z in 1..nz - 1 {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    unew[[z, y, x]] = 0.5 * (u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                    total += unew[[z, y, x]];
                }
            }
        }
        std::mem::swap(u, unew);
    }
    mint::copy!(u, from_device);
    total
}

fn main() {}
