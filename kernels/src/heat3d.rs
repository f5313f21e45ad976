//! 3-D heat equation, 7-point stencil (thesis Table 3.1; Table 6.3 "3D Heat 7-point"):
//!
//! u'[z,y,x] = c0·u[z,y,x] + c1·(u[z,y,x±1] + u[z,y±1,x] + u[z±1,y,x])
//!
//! for 1 ≤ z < nz−1, 1 ≤ y < ny−1, 1 ≤ x < nx−1, then u and u' swap.

/// Floating-point operations per point: 2 multiplications, 6 additions (Table 6.3).
pub const FLOPS_PER_POINT: f64 = 8.0;
/// Compulsory words moved per point per step: read u, write u'.
pub const WORDS_PER_POINT: f64 = 2.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        pub fn $name(
            u: &mut Array3<$t>,
            unew: &mut Array3<$t>,
            c0: $t,
            c1: $t,
            steps: usize,
            tile: [u32; 3],
            chunk: [u32; 3],
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = c0 * u[[z, y, x]]
                                + c1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]]
                                    + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]] + u[[z + 1, y, x]]);
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

            /// Runs `steps` steps on `u` (shape `[nz, ny, nx]`); `unew` is the second buffer
            /// (same shape; its boundary must equal `u`'s). `tile` and `chunk` are the
            /// `tile`/`chunksize` clauses in x, y, z order; `opts` picks the optimizer options.
            ///
            /// # Errors
            /// [`mint::Error`] from the device.
            #[allow(clippy::too_many_arguments)]
            pub fn run(
                opts: crate::Opts,
                u: &mut Array3<$t>,
                unew: &mut Array3<$t>,
                c0: $t,
                c1: $t,
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, c0, c1, steps, tile, chunk)
            }

            /// The serial reference: the same update in plain loops.
            pub fn serial(u: &mut Array3<$t>, c0: $t, c1: $t, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 1..nz - 1 {
                        for y in 1..ny - 1 {
                            for x in 1..nx - 1 {
                                v[[z, y, x]] = c0 * u[[z, y, x]]
                                    + c1 * (u[[z, y, x - 1]]
                                        + u[[z, y, x + 1]]
                                        + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]]
                                        + u[[z - 1, y, x]]
                                        + u[[z + 1, y, x]]);
                            }
                        }
                    }
                    std::mem::swap(u, &mut v);
                }
            }

            instance! {
                $t, Array3, [usize; 3],
                arrays |fill| { u = fill(0.0, 1.0); unew = u.clone(); }
                state u
                coefs { c0: 0.4, c1: 0.1 }
                run(u, unew, c0, c1)
                serial(u, c0, c1)
            }
        }
    };
}

precision!(f32);
precision!(f64);
