//! Farstad's star stencils of radius R in 2-D and 3-D (Farstad 2021, Sec. 3–4): the sum of
//! the neighbours at distance 1..=R along each axis, scaled by 1/(2·D·R), minus the
//! center:
//!
//! out = (1/(2·D·R))·Σ neighbours − in
//!
//! Points within R of the edge are not written. The neighbour sums are serial loops over
//! the distance, which the `unroll` option unrolls (thesis Sec. 5.4) so the analyzer sees
//! the stencil.

use crate::suite::{Instance, Precision};
use ndarray::{Array2, Array3};
use num_traits::Float;

/// The serial reference in 2-D: the same sums, in the same order, as the kernel.
pub fn serial2<T: Float>(u: &mut Array2<T>, r: usize, steps: usize) {
    let (ny, nx) = u.dim();
    let coef = T::one() / T::from(4 * r).unwrap();
    let mut v = u.clone();
    for _ in 0..steps {
        for y in r..ny - r {
            for x in r..nx - r {
                let mut s = T::zero();
                for d in 1..r + 1 {
                    s = s + (u[[y, x - d]] + u[[y, x + d]] + u[[y - d, x]] + u[[y + d, x]]);
                }
                v[[y, x]] = coef * s - u[[y, x]];
            }
        }
        std::mem::swap(u, &mut v);
    }
}

/// The serial reference in 3-D.
pub fn serial3<T: Float>(u: &mut Array3<T>, r: usize, steps: usize) {
    let (nz, ny, nx) = u.dim();
    let coef = T::one() / T::from(6 * r).unwrap();
    let mut v = u.clone();
    for _ in 0..steps {
        for z in r..nz - r {
            for y in r..ny - r {
                for x in r..nx - r {
                    let mut s = T::zero();
                    for d in 1..r + 1 {
                        s = s
                            + (u[[z, y, x - d]]
                                + u[[z, y, x + d]]
                                + u[[z, y - d, x]]
                                + u[[z, y + d, x]]
                                + u[[z - d, y, x]]
                                + u[[z + d, y, x]]);
                    }
                    v[[z, y, x]] = coef * s - u[[z, y, x]];
                }
            }
        }
        std::mem::swap(u, &mut v);
    }
}

/// 2·D·R additions (one per neighbour), the scaling and the subtraction: 2·D·R + 1.
pub fn flops_per_point(dims: u32, r: u32) -> f64 {
    (2 * dims * r + 1) as f64
}

macro_rules! star3 {
    ($t:ident, $name:ident, [$($o:tt)*], $r:literal) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        pub fn $name(u: &mut Array3<$t>, unew: &mut Array3<$t>, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            let coef = 1.0 / (6.0 * $r as $t);
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1], tile[2]), chunksize(chunk[0], chunk[1], chunk[2]))]
                for z in $r..nz - $r {
                    for y in $r..ny - $r {
                        for x in $r..nx - $r {
                            let mut s = 0.0;
                            for d in 1..$r + 1 {
                                s += u[[z, y, x - d]] + u[[z, y, x + d]] + u[[z, y - d, x]] + u[[z, y + d, x]] + u[[z - d, y, x]] + u[[z + d, y, x]];
                            }
                            unew[[z, y, x]] = coef * s - u[[z, y, x]];
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

macro_rules! star2 {
    ($t:ident, $name:ident, [$($o:tt)*], $r:literal) => {
        /// The kernel compiled with these optimizer options.
        #[mint::parallel($($o)*)]
        pub fn $name(u: &mut Array2<$t>, unew: &mut Array2<$t>, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
            let (ny, nx) = u.dim();
            let coef = 1.0 / (4.0 * $r as $t);
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
            for _ in 0..steps {
                #[mint::r#for(nest(all), tile(tile[0], tile[1]), chunksize(chunk[0], chunk[1]))]
                for y in $r..ny - $r {
                    for x in $r..nx - $r {
                        let mut s = 0.0;
                        for d in 1..$r + 1 {
                            s += u[[y, x - d]] + u[[y, x + d]] + u[[y - d, x]] + u[[y + d, x]];
                        }
                        unew[[y, x]] = coef * s - u[[y, x]];
                    }
                }
                std::mem::swap(u, unew);
            }
            mint::copy!(u, from_device);
            Ok(())
        }
    };
}

macro_rules! radius {
    ($modname:ident, $kmac:ident, $serial:ident, $arr:ident, $shape:ty, $r:literal, $($t:ident),*) => {
        /// The stencil of this radius.
        pub mod $modname {
            $(
                /// In this precision.
                pub mod $t {
                    use ndarray::$arr;
                    option_sets!($kmac, $t, $r);

                    /// Runs `steps` steps on `u`; `unew` is the second buffer.
                    ///
                    /// # Errors
                    /// [`mint::Error`] from the device.
                    pub fn run(opts: crate::Opts, u: &mut $arr<$t>, unew: &mut $arr<$t>, steps: usize, tile: [u32; 3], chunk: [u32; 3]) -> mint::Result<()> {
                        dispatch!(opts, u, unew, steps, tile, chunk)
                    }

                    /// The serial reference.
                    pub fn serial(u: &mut $arr<$t>, steps: usize) {
                        crate::star::$serial(u, $r, steps)
                    }

                    instance! {
                        $t, $arr, $shape,
                        arrays |fill| { u = fill(0.0, 1.0); unew = u.clone(); }
                        state u
                        coefs { }
                        run(u, unew)
                        serial(u)
                    }
                }
            )*
        }
    };
}

radius!(r1_2d, star2, serial2, Array2, [usize; 2], 1, f32, f64);
radius!(r2_2d, star2, serial2, Array2, [usize; 2], 2, f32, f64);
radius!(r4_2d, star2, serial2, Array2, [usize; 2], 4, f32, f64);
radius!(r8_2d, star2, serial2, Array2, [usize; 2], 8, f32, f64);
radius!(r1_3d, star3, serial3, Array3, [usize; 3], 1, f32, f64);
radius!(r2_3d, star3, serial3, Array3, [usize; 3], 2, f32, f64);
radius!(r4_3d, star3, serial3, Array3, [usize; 3], 4, f32, f64);
radius!(r8_3d, star3, serial3, Array3, [usize; 3], 8, f32, f64);

/// A 2-D star instance of radius `r`.
pub fn instance2(r: u32, p: Precision, shape: [usize; 2], seed: u64) -> Box<dyn Instance> {
    match (r, p) {
        (1, Precision::F32) => Box::new(r1_2d::f32::Inst::new(shape, seed)),
        (1, Precision::F64) => Box::new(r1_2d::f64::Inst::new(shape, seed)),
        (2, Precision::F32) => Box::new(r2_2d::f32::Inst::new(shape, seed)),
        (2, Precision::F64) => Box::new(r2_2d::f64::Inst::new(shape, seed)),
        (4, Precision::F32) => Box::new(r4_2d::f32::Inst::new(shape, seed)),
        (4, Precision::F64) => Box::new(r4_2d::f64::Inst::new(shape, seed)),
        (8, Precision::F32) => Box::new(r8_2d::f32::Inst::new(shape, seed)),
        (8, Precision::F64) => Box::new(r8_2d::f64::Inst::new(shape, seed)),
        _ => panic!("star stencils come in radius 1, 2, 4 and 8"),
    }
}

/// A 3-D star instance of radius `r`.
pub fn instance3(r: u32, p: Precision, shape: [usize; 3], seed: u64) -> Box<dyn Instance> {
    match (r, p) {
        (1, Precision::F32) => Box::new(r1_3d::f32::Inst::new(shape, seed)),
        (1, Precision::F64) => Box::new(r1_3d::f64::Inst::new(shape, seed)),
        (2, Precision::F32) => Box::new(r2_3d::f32::Inst::new(shape, seed)),
        (2, Precision::F64) => Box::new(r2_3d::f64::Inst::new(shape, seed)),
        (4, Precision::F32) => Box::new(r4_3d::f32::Inst::new(shape, seed)),
        (4, Precision::F64) => Box::new(r4_3d::f64::Inst::new(shape, seed)),
        (8, Precision::F32) => Box::new(r8_3d::f32::Inst::new(shape, seed)),
        (8, Precision::F64) => Box::new(r8_3d::f64::Inst::new(shape, seed)),
        _ => panic!("star stencils come in radius 1, 2, 4 and 8"),
    }
}
