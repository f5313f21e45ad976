//! 3-D Poisson (Jacobi) 19-point stencil (thesis Table 6.3 "3D Poisson 19-point"):
//!
//! u' = c0·(b + c1·(6 face neighbours) + (12 edge neighbours))
//!
//! Its GFLOP/s use the thesis's 15 flops per point, the count after the common
//! subexpressions of the edge sums are shared between planes (Sec. 5.1.3).

/// Flops per point after common-subexpression elimination (Sec. 5.1.3, Table 6.3).
pub const FLOPS_PER_POINT: f64 = 15.0;
/// Read u and b, write u'.
pub const WORDS_PER_POINT: f64 = 3.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, b: &Array3<$t>, c0: $t, c1: $t, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(b, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = c0 * (b[[z, y, x]]
                                + c1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]] + u[[z + 1, y, x]])
                                + u[[z, y - 1, x - 1]] + u[[z, y - 1, x + 1]] + u[[z, y + 1, x - 1]] + u[[z, y + 1, x + 1]]
                                + u[[z - 1, y, x - 1]] + u[[z - 1, y, x + 1]] + u[[z + 1, y, x - 1]] + u[[z + 1, y, x + 1]]
                                + u[[z - 1, y - 1, x]] + u[[z - 1, y + 1, x]] + u[[z + 1, y - 1, x]] + u[[z + 1, y + 1, x]]);
                        }
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
            use ndarray::Array3;

            option_sets!(kernel, $t);

            /// Runs `steps` Jacobi steps on `u` with right-hand side `b`.
            ///
            /// # Errors
            /// [`mint::Error`] from the device.
            #[allow(clippy::too_many_arguments)]
            pub fn run(
                opts: crate::Opts,
                u: &mut Array3<$t>,
                unew: &mut Array3<$t>,
                b: &Array3<$t>,
                c0: $t,
                c1: $t,
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, b, c0, c1, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array3<$t>, b: &Array3<$t>, c0: $t, c1: $t, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 1..nz - 1 {
                        for y in 1..ny - 1 {
                            for x in 1..nx - 1 {
                                v[[z, y, x]] = c0
                                    * (b[[z, y, x]]
                                        + c1 * (u[[z, y, x - 1]]
                                            + u[[z, y, x + 1]]
                                            + u[[z, y - 1, x]]
                                            + u[[z, y + 1, x]]
                                            + u[[z - 1, y, x]]
                                            + u[[z + 1, y, x]])
                                        + u[[z, y - 1, x - 1]]
                                        + u[[z, y - 1, x + 1]]
                                        + u[[z, y + 1, x - 1]]
                                        + u[[z, y + 1, x + 1]]
                                        + u[[z - 1, y, x - 1]]
                                        + u[[z - 1, y, x + 1]]
                                        + u[[z + 1, y, x - 1]]
                                        + u[[z + 1, y, x + 1]]
                                        + u[[z - 1, y - 1, x]]
                                        + u[[z - 1, y + 1, x]]
                                        + u[[z + 1, y - 1, x]]
                                        + u[[z + 1, y + 1, x]]);
                            }
                        }
                    }
                    std::mem::swap(u, &mut v);
                }
            }

            instance! {
                $t, Array3, [usize; 3],
                arrays |fill| { u = fill(0.0, 1.0); unew = u.clone(); b = fill(-1.0, 1.0); }
                state u
                coefs { c0: 1.0 / 24.0, c1: 2.0 }
                run(u, unew, b, c0, c1)
                serial(u, b, c0, c1)
            }
        }
    };
}

precision!(f32);
precision!(f64);
