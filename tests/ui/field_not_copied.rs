use ndarray::Array2;

struct Grid {
    u: Array2<f64>,
    v: Array2<f64>,
}

impl Grid {
    #[mint::parallel]
    fn step(&mut self) -> mint::Result<()> {
        let (ny, nx) = self.u.dim();
        mint::copy!(self.u, to_device);
        #[mint::r#for(nest(all))]
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                self.u[[y, x]] = 0.5 * self.v[[y, x]];
            }
        }
        Ok(())
    }
}

fn main() {}
