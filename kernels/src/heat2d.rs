//! 2-D heat equation, 5-point stencil (thesis Table 6.3 "2D Heat 5-point"):
//!
//! u'[y,x] = c0·u[y,x] + c1·(u[y,x±1] + u[y±1,x])
//!
//! for 1 ≤ y < ny−1, 1 ≤ x < nx−1, then u and u' swap.

/// Floating-point operations per point: 2 multiplications, 4 additions (Table 6.3).
pub const FLOPS_PER_POINT: f64 = 6.0;
/// Compulsory words moved per point per step: read u, write u'.
pub const WORDS_PER_POINT: f64 = 2.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        pub fn $name(u: &mut Array2<$t>, unew: &mut Array2<$t>, c0: $t, c1: $t, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1]), chunksize(chunk[0], chunk[1]))]
                for y in 1..ny - 1 {
                    for x in 1..nx - 1 {
                        unew[[y, x]] = c0 * u[[y, x]] + c1 * (u[[y, x - 1]] + u[[y, x + 1]] + u[[y - 1, x]] + u[[y + 1, x]]);
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

macro_rules! precision {
    ($t:ident) => {
        /// The kernel in this precision.
        pub mod $t {
            use ndarray::Array2;

            option_sets!(kernel, $t);

            /// Runs `steps` steps on `u` (shape `[ny, nx]`); `unew` is the second buffer.
            ///
            /// # Errors
            /// [`mint::Error`] from the device.
            #[allow(clippy::too_many_arguments)]
            pub fn run(
                opts: crate::Opts,
                u: &mut Array2<$t>,
                unew: &mut Array2<$t>,
                c0: $t,
                c1: $t,
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, c0, c1, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array2<$t>, c0: $t, c1: $t, steps: usize) {
                let (ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            v[[y, x]] = c0 * u[[y, x]]
                                + c1 * (u[[y, x - 1]]
                                    + u[[y, x + 1]]
                                    + u[[y - 1, x]]
                                    + u[[y + 1, x]]);
                        }
                    }
                    std::mem::swap(u, &mut v);
                }
            }

            instance! {
                $t, Array2, [usize; 2],
                arrays |fill| { u = fill(0.0, 1.0); unew = u.clone(); }
                state u
                coefs { c0: 0.6, c1: 0.1 }
                run(u, unew, c0, c1)
                serial(u, c0, c1)
            }
        }
    };
}

precision!(f32);
precision!(f64);
