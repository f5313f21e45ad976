//! A user's own program: a 2-D Jacobi sweep with a convergence reduction, with Mint
//! renamed to `stencils` in Cargo.toml and ndarray taken from its re-export. The crate
//! forbids `unsafe` code: what the macros generate in it must not need any.
#![forbid(unsafe_code)]
use stencils::ndarray::Array2;

#[stencils::parallel]
fn jacobi(u: &mut Array2<f64>, v: &mut Array2<f64>, sweeps: usize) -> stencils::Result<f64> {
    let (ny, nx) = u.dim();
    let mut change = 0.0f64;
    stencils::copy!(u, to_device);
    stencils::copy!(v, to_device);
    for _ in 0..sweeps {
        change = 0.0;
        #[stencils::r#for(nest(all), tile(32, 4), reduction(max: change))]
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                v[[y, x]] = 0.25 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
                change = change.max((v[[y, x]] - u[[y, x]]).abs());
            }
        }
        std::mem::swap(u, v);
    }
    stencils::copy!(u, from_device);
    Ok(change)
}

fn main() -> Result<(), stencils::Error> {
    let n = 64;
    let mut u = Array2::<f64>::zeros((n, n));
    for x in 0..n {
        u[[0, x]] = 1.0;
    }
    let mut v = u.clone();
    let change = jacobi(&mut u, &mut v, 200)?;
    let mid = u[[n / 2, n / 2]];
    println!("user crate: last change {change:.3e}, u[mid] = {mid:.6}");
    assert!(change > 0.0 && change < 1e-2 && mid > 0.0 && mid < 0.5);
    Ok(())
}
