//! 27-point box stencil: the center, 6 faces, 12 edges and 8 corners of the 3×3×3 box,
//! each group with its own weight:
//!
//! u' = c0·u + c1·Σfaces + c2·Σedges + c3·Σcorners

/// 4 multiplications, 26 additions.
pub const FLOPS_PER_POINT: f64 = 30.0;
/// Read u, write u'.
pub const WORDS_PER_POINT: f64 = 2.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, c: [$t; 4], steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            let (c0, c1, c2, c3) = (c[0], c[1], c[2], c[3]);
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            let faces = u[[z, y, x - 1]] + u[[z, y, x + 1]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]
                                + u[[z - 1, y, x]] + u[[z + 1, y, x]];
                            let edges = u[[z, y - 1, x - 1]] + u[[z, y - 1, x + 1]] + u[[z, y + 1, x - 1]] + u[[z, y + 1, x + 1]]
                                + u[[z - 1, y, x - 1]] + u[[z - 1, y, x + 1]] + u[[z + 1, y, x - 1]] + u[[z + 1, y, x + 1]]
                                + u[[z - 1, y - 1, x]] + u[[z - 1, y + 1, x]] + u[[z + 1, y - 1, x]] + u[[z + 1, y + 1, x]];
                            let corners = u[[z - 1, y - 1, x - 1]] + u[[z - 1, y - 1, x + 1]] + u[[z - 1, y + 1, x - 1]] + u[[z - 1, y + 1, x + 1]]
                                + u[[z + 1, y - 1, x - 1]] + u[[z + 1, y - 1, x + 1]] + u[[z + 1, y + 1, x - 1]] + u[[z + 1, y + 1, x + 1]];
                            unew[[z, y, x]] = c0 * u[[z, y, x]] + c1 * faces + c2 * edges + c3 * corners;
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

            /// Runs `steps` steps on `u` with weights `c` (center, faces, edges, corners).
            ///
            /// # Errors
            /// [`mint::Error`] from the device.
            #[allow(clippy::too_many_arguments)]
            pub fn run(
                opts: crate::Opts,
                u: &mut Array3<$t>,
                unew: &mut Array3<$t>,
                c: [$t; 4],
                steps: usize,
                tile: [u32; 3],
                chunk: [u32; 3],
            ) -> mint::Result<()> {
                dispatch!(opts, u, unew, c, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array3<$t>, c: [$t; 4], steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 1..nz - 1 {
                        for y in 1..ny - 1 {
                            for x in 1..nx - 1 {
                                let faces = u[[z, y, x - 1]]
                                    + u[[z, y, x + 1]]
                                    + u[[z, y - 1, x]]
                                    + u[[z, y + 1, x]]
                                    + u[[z - 1, y, x]]
                                    + u[[z + 1, y, x]];
                                let edges = u[[z, y - 1, x - 1]]
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
                                    + u[[z + 1, y + 1, x]];
                                let corners = u[[z - 1, y - 1, x - 1]]
                                    + u[[z - 1, y - 1, x + 1]]
                                    + u[[z - 1, y + 1, x - 1]]
                                    + u[[z - 1, y + 1, x + 1]]
                                    + u[[z + 1, y - 1, x - 1]]
                                    + u[[z + 1, y - 1, x + 1]]
                                    + u[[z + 1, y + 1, x - 1]]
                                    + u[[z + 1, y + 1, x + 1]];
                                v[[z, y, x]] = c[0] * u[[z, y, x]]
                                    + c[1] * faces
                                    + c[2] * edges
                                    + c[3] * corners;
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
                coefs { c0: 0.3, c1: 0.05, c2: 0.025, c3: 0.0125 }
                run(u, unew, [c0, c1, c2, c3])
                serial(u, [c0, c1, c2, c3])
            }
        }
    };
}

precision!(f32);
precision!(f64);
