//! The miniAMR 7-point average (Rogstadkjærnet 2018, Listing 4.2): the center and its six
//! face neighbours, summed and divided by 7.

/// 6 additions, 1 division.
pub const FLOPS_PER_POINT: f64 = 7.0;
/// Read u, write u'.
pub const WORDS_PER_POINT: f64 = 2.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            unew[[z, y, x]] = (u[[z, y, x]] + u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                + u[[z - 1, y, x]] + u[[z + 1, y, x]]) / 7.0;
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
            pub fn run(
                opts: crate::Opts,
                u: &mut Array3<$t>,
                unew: &mut Array3<$t>,
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array3<$t>, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 1..nz - 1 {
                        for y in 1..ny - 1 {
                            for x in 1..nx - 1 {
                                v[[z, y, x]] = (u[[z, y, x]]
                                    + u[[z, y, x - 1]]
                                    + u[[z, y, x + 1]]
                                    + u[[z, y - 1, x]]
                                    + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]]
                                    + u[[z + 1, y, x]])
                                    / 7.0;
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
                coefs { }
                run(u, unew)
                serial(u)
            }
        }
    };
}

precision!(f32);
precision!(f64);
