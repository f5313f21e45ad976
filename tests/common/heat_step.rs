//! One step of the 3-D heat equation (7-point stencil, `mint_kernels::heat3d`'s) from `u`
//! into `unew` (f64), copied in and back: a one-pass region, as written
//! ([`sequential`]) and streamed through the device in slabs ([`streamed`],
//! `#[mint::parallel(stream)]`, README "Streaming"). `tests/stream.rs` and
//! `benches/stream.rs` include this file by path and compare the two.

use ndarray::Array3;

macro_rules! one_step {
    ($name:ident, [$($o:tt)*]) => {
        /// `unew` = one step of `u` (shape `[nz, ny, nx]`; `unew`'s boundary planes,
        /// rows and columns keep their values). `tile`, `chunk`: the clauses, x, y, z.
        ///
        /// # Errors
        /// [`mint::Error`] from the device.
        #[mint::parallel($($o)*)]
        pub fn $name(
            u: &Array3<f64>,
            unew: &mut Array3<f64>,
            c0: f64,
            c1: f64,
            tile: [u32; 3],
            chunk: [u32; 3],
        ) -> mint::Result<()> {
            let (nz, ny, nx) = u.dim();
            mint::copy!(u, to_device);
            mint::copy!(unew, to_device);
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
            mint::copy!(unew, from_device);
            Ok(())
        }
    };
}

one_step!(sequential, []);
one_step!(streamed, [stream]);
