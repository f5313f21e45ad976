//! 3-D heat equation, 7-point stencil with zero-flux (clamped) faces, written the way the
//! thermal benchmarks' C originals write their boundaries (issue #41): every point is
//! updated, and a neighbour beyond a face is the point itself.
//!
//! u'[z,y,x] = c0·u[z,y,x] + c1·(u[z,y,w] + u[z,y,e] + u[z,s,x] + u[z,n,x] + u[b,y,x] + u[t,y,x])
//!
//! with `b = if z == 0 { z } else { z - 1 }`, `t = if z == nz - 1 { z } else { z + 1 }` and
//! likewise in y and x, for 0 ≤ z < nz, 0 ≤ y < ny, 0 ≤ x < nx, then u and u' swap. On a
//! split region its reach (`mint_translator::analyzer::reach`) is one plane each side; the
//! optimizer stages it as the interior-only [`crate::heat3d`] (the face cases on the edge).

/// Floating-point operations per point: 2 multiplications, 6 additions.
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
                for z in 0..nz {
                    for y in 0..ny {
                        for x in 0..nx {
                            let b = if z == 0 { z } else { z - 1 };
                            let t = if z == nz - 1 { z } else { z + 1 };
                            let s = if y == 0 { y } else { y - 1 };
                            let n = if y == ny - 1 { y } else { y + 1 };
                            let w = if x == 0 { x } else { x - 1 };
                            let e = if x == nx - 1 { x } else { x + 1 };
                            unew[[z, y, x]] = c0 * u[[z, y, x]]
                                + c1 * (u[[z, y, w]] + u[[z, y, e]]
                                    + u[[z, s, x]] + u[[z, n, x]]
                                    + u[[b, y, x]] + u[[t, y, x]]);
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
            /// (same shape). `tile` and `chunk` are the `tile`/`chunksize` clauses in x, y,
            /// z order; `opts` picks the optimizer options.
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

            /// The serial reference: the same update in plain loops, the clamped indices
            /// computed as `max`/`min` (the kernel writes them as `if`/`else`).
            pub fn serial(u: &mut Array3<$t>, c0: $t, c1: $t, steps: usize) {
                let (nz, ny, nx) = u.dim();
                let mut v = u.clone();
                for _ in 0..steps {
                    for z in 0..nz {
                        for y in 0..ny {
                            for x in 0..nx {
                                let (b, t) = (z.max(1) - 1, (z + 1).min(nz - 1));
                                let (s, n) = (y.max(1) - 1, (y + 1).min(ny - 1));
                                let (w, e) = (x.max(1) - 1, (x + 1).min(nx - 1));
                                v[[z, y, x]] = c0 * u[[z, y, x]]
                                    + c1 * (u[[z, y, w]]
                                        + u[[z, y, e]]
                                        + u[[z, s, x]]
                                        + u[[z, n, x]]
                                        + u[[b, y, x]]
                                        + u[[t, y, x]]);
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
