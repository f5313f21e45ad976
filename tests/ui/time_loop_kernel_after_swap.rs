use ndarray::Array3;

#[mint::parallel]
fn wave(u: &mut Array3<f32>, unew: &mut Array3<f32>, v: &mut Array3<f32>, steps: usize) {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(unew, to_device);
    mint::copy!(v, to_device);
    #[mint::time_loop(block = 2)]
    for _ in 0..steps {
        #[mint::r#for(nest(all))]
        for z in 1..nz - 1 {
            for y in 0..ny {
                for x in 0..nx {
                    unew[[z, y, x]] = 0.5 * (u[[z - 1, y, x]] + u[[z + 1, y, x]]);
                }
            }
        }
        std::mem::swap(u, unew);
        #[mint::r#for(nest(all))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    v[[z, y, x]] = u[[z, y, x]];
                }
            }
        }
    }
    mint::copy!(v, from_device);
}

fn main() {}
