//! 3-D heat equation with a variable coefficient and a source, 7-point stencil (thesis
//! Table 6.3 "3D Heat 7-point variable coefficient"):
//!
//! u' = u + b + c·[κ(x+½)(u[x+1] − u) − κ(x−½)(u − u[x−1]) + (same along y and z)]
//!
//! with the face coefficients κ(x±½) = K[x] + K[x±1] (the ½ folded into c), so the kernel
//! reads u at 7 points, b at 1 and K at 7: the thesis's 15 reads and 26 flops.

/// 7 multiplications, 19 additions (Table 6.3).
pub const FLOPS_PER_POINT: f64 = 26.0;
/// Read u, b and K, write u'.
pub const WORDS_PER_POINT: f64 = 4.0;

macro_rules! kernel {
    ($t:ident, $name:ident, [$($o:tt)*]) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, b: &Array3<$t>, kappa: &Array3<$t>, c: $t, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            mint::copy!(b, to_device);
            mint::copy!(kappa, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in 1..nz - 1 {
                    for y in 1..ny - 1 {
                        for x in 1..nx - 1 {
                            let uc = u[[z, y, x]];
                            let kc = kappa[[z, y, x]];
                            unew[[z, y, x]] = uc + b[[z, y, x]]
                                + c * ((kc + kappa[[z, y, x + 1]]) * (u[[z, y, x + 1]] - uc)
                                    - (kc + kappa[[z, y, x - 1]]) * (uc - u[[z, y, x - 1]])
                                    + (kc + kappa[[z, y + 1, x]]) * (u[[z, y + 1, x]] - uc)
                                    - (kc + kappa[[z, y - 1, x]]) * (uc - u[[z, y - 1, x]])
                                    + (kc + kappa[[z + 1, y, x]]) * (u[[z + 1, y, x]] - uc)
                                    - (kc + kappa[[z - 1, y, x]]) * (uc - u[[z - 1, y, x]]));
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

            /// Runs `steps` steps on `u` with source `b` and conductivity `kappa`.
            ///
            /// # Errors
            /// [`mint::Error`] from the device.
            #[allow(clippy::too_many_arguments)]
            pub fn run(opts: crate::Opts, u: &mut Array3<$t>, unew: &mut Array3<$t>, b: &Array3<$t>, kappa: &Array3<$t>, c: $t, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
                dispatch!(opts, u, unew, b, kappa, c, steps, tile, chunk)
            }

            /// The serial reference.
            pub fn serial(u: &mut Array3<$t>, b: &Array3<$t>, kappa: &Array3<$t>, c: $t, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 1..nz - 1 {
                        for y in 1..ny - 1 {
                            for x in 1..nx - 1 {
                                let uc = u[[z, y, x]];
                                let kc = kappa[[z, y, x]];
                                v[[z, y, x]] = uc + b[[z, y, x]]
                                    + c * ((kc + kappa[[z, y, x + 1]]) * (u[[z, y, x + 1]] - uc)
                                        - (kc + kappa[[z, y, x - 1]]) * (uc - u[[z, y, x - 1]])
                                        + (kc + kappa[[z, y + 1, x]]) * (u[[z, y + 1, x]] - uc)
                                        - (kc + kappa[[z, y - 1, x]]) * (uc - u[[z, y - 1, x]])
                                        + (kc + kappa[[z + 1, y, x]]) * (u[[z + 1, y, x]] - uc)
                                        - (kc + kappa[[z - 1, y, x]]) * (uc - u[[z - 1, y, x]]));
                            }
                        }
                    }
                    std::mem::swap(u, &mut v);
                }
            }

            instance! {
                $t, Array3, [usize; 3],
                arrays |fill| { u = fill(0.0, 1.0); unew = u.clone(); b = fill(-0.01, 0.01); kappa = fill(0.5, 1.5); }
                state u
                coefs { c: 0.04 }
                run(u, unew, b, kappa, c)
                serial(u, b, kappa, c)
            }
        }
    };
}

precision!(f32);
precision!(f64);
