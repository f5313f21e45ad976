//! 13-point 4th-order star (radius 2): the center and the points at distance 1 and 2
//! along each axis:
//!
//! u' = c0·u + c1·Σ(distance 1) + c2·Σ(distance 2)
//!
//! for 2 ≤ z < nz−2 and likewise in y and x.

/// 3 multiplications, 12 additions.
pub const FLOPS_PER_POINT: f64 = 15.0;
/// Read u, write u'.
pub const WORDS_PER_POINT: f64 = 2.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, c0: $t, c1: $t, c2: $t, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 2..nz - 2 {
                    for y in 2..ny - 2 {
                        for x in 2..nx - 2 {
                            unew[[z, y, x]] = c0 * u[[z, y, x]]
                                + c1 * (u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]] + u[[z - 1, y, x]] + u[[z + 1, y, x]])
                                + c2 * (u[[z, y, x - 2]] + u[[z, y, x + 2]] + u[[z, y - 2, x]] + u[[z, y + 2, x]] + u[[z - 2, y, x]] + u[[z + 2, y, x]]);
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

            /// Runs `steps` steps on `u`.
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
                c2: $t,
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, c0, c1, c2, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array3<$t>, c0: $t, c1: $t, c2: $t, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 2..nz - 2 {
                        for y in 2..ny - 2 {
                            for x in 2..nx - 2 {
                                v[[z, y, x]] = c0 * u[[z, y, x]]
                                    + c1 * (u[[z, y, x - 1]]
                                        + u[[z, y, x + 1]]
                                        + u[[z, y - 1, x]]
                                        + u[[z, y + 1, x]]
                                        + u[[z - 1, y, x]]
                                        + u[[z + 1, y, x]])
                                    + c2 * (u[[z, y, x - 2]]
                                        + u[[z, y, x + 2]]
                                        + u[[z, y - 2, x]]
                                        + u[[z, y + 2, x]]
                                        + u[[z - 2, y, x]]
                                        + u[[z + 2, y, x]]);
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
                coefs { c0: 0.5, c1: 0.0625, c2: 1.0 / 48.0 }
                run(u, unew, c0, c1, c2)
                serial(u, c0, c1, c2)
            }
        }
    };
}

precision!(f32);
precision!(f64);
