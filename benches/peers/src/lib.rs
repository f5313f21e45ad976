//! # mint-peers
//!
//! The peers that `benches/cpu.rs` measures Mint's CPU backend against, for the heat 7-point,
//! Poisson 19-point, radius-4 star, clamped-face heat and cardiac (Aliev–Panfilov) kernels
//! and the seismic solver:
//!
//! - the C peers at the crate root ([`heat3d`], [`poisson19`], …): OpenMP loops in
//!   `c/kernels.inc`, compiled by `build.rs` with `gcc -O3 -march=native -fopenmp
//!   -ffp-contract=off`, libgomp linked statically;
//! - the hand-written Rust peers in [`rust`]: rayon over z planes (y rows in 2-D), each
//!   inner row read without bounds checks;
//! - both peers of the seismic example's elastic solver in [`seismic`].
//!
//! Every update has the Mint kernel's operands in Mint's order and no fused multiply-add,
//! so all three give bitwise equal results. Arrays are row-major, shapes `[z, y, x]` (x
//! fastest); each function runs `steps` steps with two buffers that swap after every step,
//! as the Mint kernels do, and leaves the solution in the first.
//!
//! Without gcc or OpenMP when the crate was built, the C functions return [`NotBuilt`].

pub mod rust;
pub mod seismic;

/// The commit of the checkout this crate was built in (`git rev-parse HEAD` at build
/// time), if it was built in one.
pub const BUILT_AT: Option<&str> = option_env!("MINT_PEERS_COMMIT");

use std::fmt;

/// Calls this precision's C function `$f` (without the C peers, only evaluates the
/// arguments: `available()` has returned before).
#[cfg(peers_c)]
macro_rules! call {
    ($f:ident($($a:expr),*)) => {
        unsafe { (T::c().$f)($($a),*) }
    };
}
#[cfg(not(peers_c))]
macro_rules! call {
    ($f:ident($($a:expr),*)) => {
        let _ = ($($a),*);
    };
}

/// The element types of the kernels: `f32` and `f64`.
pub trait Real:
    Copy
    + Send
    + Sync
    + PartialEq
    + fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + 'static
{
    /// Zero.
    const ZERO: Self;
    /// `v` rounded to this type (`v as f32` for `f32`).
    fn from_f64(v: f64) -> Self;
    /// `self` as `f64` (exact).
    fn to_f64(self) -> f64;
    /// The C functions of this precision.
    #[cfg(peers_c)]
    #[doc(hidden)]
    fn c() -> &'static ffi::Fns<Self>;
}

macro_rules! real {
    ($t:ident, $fns:ident) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            fn from_f64(v: f64) -> $t {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[cfg(peers_c)]
            fn c() -> &'static ffi::Fns<$t> {
                &ffi::$fns
            }
        }
    };
}
real!(f32, F32);
real!(f64, F64);

/// The cardiac model's coefficients in the run's precision (examples/cardiac/model.rs):
/// the diffusion factor α, the time step and the model parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CardiacParams<T> {
    /// δ·dt/dx².
    pub alpha: T,
    /// The time step.
    pub dt: T,
    /// k.
    pub kk: T,
    /// a.
    pub a: T,
    /// b.
    pub b: T,
    /// ε.
    pub epsilon: T,
    /// μ1.
    pub m1: T,
    /// μ2.
    pub m2: T,
}

/// The C peers were not compiled (no gcc or no OpenMP when the crate was built).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotBuilt(pub &'static str);

impl fmt::Display for NotBuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "C peer not built: {}", self.0)
    }
}

impl std::error::Error for NotBuilt {}

/// Whether the C peers were compiled: `Err` says why not.
///
/// # Errors
/// [`NotBuilt`] when `build.rs` found no gcc or no OpenMP.
pub fn available() -> Result<(), NotBuilt> {
    #[cfg(peers_c)]
    return Ok(());
    #[cfg(not(peers_c))]
    Err(NotBuilt(
        option_env!("MINT_PEERS_WHY").unwrap_or("unknown reason"),
    ))
}

/// `steps` steps of the 3-D heat 7-point kernel in C on `u` (shape `dims`, `[z, y, x]`),
/// `v` the second buffer (its boundary equal to `u`'s), coefficients `[c0, c1]`, on
/// `threads` OpenMP threads: `v = c0·u + c1·(x−1 + x+1 + y−1 + y+1 + z−1 + z+1)` on the
/// interior. The solution ends in `u`.
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If `u` or `v` does not have `dims`' size.
pub fn heat3d<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    dims: [usize; 3],
    [c0, c1]: [T; 2],
    steps: usize,
    threads: usize,
) -> Result<(), NotBuilt> {
    check(&[u.len(), v.len()], dims.iter().product());
    available()?;
    let (up, vp) = (u.as_mut_ptr(), v.as_mut_ptr());
    // SAFETY: both buffers hold nz·ny·nx elements (checked) and do not overlap.
    call!(heat3d(up, vp, dims.as_ptr(), c0, c1, steps, omp(threads)));
    finish(u, v, steps);
    Ok(())
}

/// `steps` Jacobi steps of the 3-D Poisson 19-point kernel in C: `v = c0·(b + c1·(6 face
/// neighbours) + 12 edge neighbours)` on the interior, right-hand side `b`, on `threads`
/// OpenMP threads. Shapes and buffers as [`heat3d`].
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If `u`, `v` or `b` does not have `dims`' size.
pub fn poisson19<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    b: &[T],
    dims: [usize; 3],
    [c0, c1]: [T; 2],
    steps: usize,
    threads: usize,
) -> Result<(), NotBuilt> {
    check(&[u.len(), v.len(), b.len()], dims.iter().product());
    available()?;
    let (up, vp) = (u.as_mut_ptr(), v.as_mut_ptr());
    // SAFETY: the three buffers hold nz·ny·nx elements (checked); u and v do not overlap.
    call!(poisson19(
        up,
        vp,
        b.as_ptr(),
        dims.as_ptr(),
        c0,
        c1,
        steps,
        omp(threads)
    ));
    finish(u, v, steps);
    Ok(())
}

/// `steps` steps of the radius-4 3-D star in C: `s = Σ_{d=1..4} (the six neighbours at
/// distance d)`, `v = s/24 − u`, on points at least 4 from the edge, on `threads` OpenMP
/// threads. Shapes and buffers as [`heat3d`].
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If `u` or `v` does not have `dims`' size.
pub fn star3d_r4<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    dims: [usize; 3],
    steps: usize,
    threads: usize,
) -> Result<(), NotBuilt> {
    check(&[u.len(), v.len()], dims.iter().product());
    available()?;
    let (up, vp) = (u.as_mut_ptr(), v.as_mut_ptr());
    // SAFETY: both buffers hold nz·ny·nx elements (checked) and do not overlap.
    call!(star3d_r4(up, vp, dims.as_ptr(), steps, omp(threads)));
    finish(u, v, steps);
    Ok(())
}

/// `steps` steps of the clamped-face heat kernel in C: the heat 7-point update on every
/// point, a neighbour beyond a face being the point itself, on `threads` OpenMP threads.
/// Shapes and buffers as [`heat3d`].
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If `u` or `v` does not have `dims`' size.
pub fn heat_clamped<T: Real>(
    u: &mut Vec<T>,
    v: &mut Vec<T>,
    dims: [usize; 3],
    [c0, c1]: [T; 2],
    steps: usize,
    threads: usize,
) -> Result<(), NotBuilt> {
    check(&[u.len(), v.len()], dims.iter().product());
    available()?;
    let (up, vp) = (u.as_mut_ptr(), v.as_mut_ptr());
    // SAFETY: both buffers hold nz·ny·nx elements (checked) and do not overlap.
    call!(heat_clamped(
        up,
        vp,
        dims.as_ptr(),
        c0,
        c1,
        steps,
        omp(threads)
    ));
    finish(u, v, steps);
    Ok(())
}

/// `steps` steps of the cardiac model in C on `n`×`n` interior points (arrays `[n + 2,
/// n + 2]`, `[j, i]`, i fastest): mirror the interior into the ghost ring of `e_prev`, then
/// the PDE and both ODEs fused (updating `r` in place) into `e`, then swap `e` and `e_prev`;
/// on `threads` OpenMP threads. The last E ends in `e_prev`.
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If an array does not have (n + 2)² elements.
pub fn cardiac<T: Real>(
    e_prev: &mut Vec<T>,
    e: &mut Vec<T>,
    r: &mut [T],
    n: usize,
    p: &CardiacParams<T>,
    steps: usize,
    threads: usize,
) -> Result<(), NotBuilt> {
    check(&[e_prev.len(), e.len(), r.len()], (n + 2) * (n + 2));
    available()?;
    let (ep, ec) = (e_prev.as_mut_ptr(), e.as_mut_ptr());
    // SAFETY: the three buffers hold (n + 2)² elements (checked) and do not overlap.
    call!(cardiac(ep, ec, r.as_mut_ptr(), n, p, steps, omp(threads)));
    finish(e_prev, e, steps);
    Ok(())
}

/// Panics unless every buffer length in `lens` is `len`.
fn check(lens: &[usize], len: usize) {
    for &l in lens {
        assert_eq!(l, len, "a buffer's length is not the grid's size");
    }
}

/// After an odd number of steps the C loop left the solution in the second buffer.
fn finish<T>(u: &mut Vec<T>, v: &mut Vec<T>, steps: usize) {
    if steps % 2 == 1 {
        std::mem::swap(u, v);
    }
}

/// A thread count as OpenMP takes it (at least 1).
fn omp(threads: usize) -> std::ffi::c_int {
    threads.clamp(1, std::ffi::c_int::MAX as usize) as std::ffi::c_int
}

/// The C functions (`c/kernels.inc`) and, per precision, a table of them.
#[cfg(peers_c)]
#[doc(hidden)]
pub mod ffi {
    use super::CardiacParams as Params;
    use std::ffi::c_int;

    /// One precision's C functions.
    pub struct Fns<T> {
        pub heat3d: unsafe extern "C" fn(*mut T, *mut T, *const usize, T, T, usize, c_int),
        pub poisson19:
            unsafe extern "C" fn(*mut T, *mut T, *const T, *const usize, T, T, usize, c_int),
        pub star3d_r4: unsafe extern "C" fn(*mut T, *mut T, *const usize, usize, c_int),
        pub heat_clamped: unsafe extern "C" fn(*mut T, *mut T, *const usize, T, T, usize, c_int),
        pub cardiac:
            unsafe extern "C" fn(*mut T, *mut T, *mut T, usize, *const Params<T>, usize, c_int),
    }

    macro_rules! fns {
        ($t:ident, $table:ident, $heat:ident, $poisson:ident, $star:ident, $clamped:ident, $cardiac:ident) => {
            unsafe extern "C" {
                fn $heat(
                    u: *mut $t,
                    v: *mut $t,
                    dims: *const usize,
                    c0: $t,
                    c1: $t,
                    steps: usize,
                    threads: c_int,
                );
                fn $poisson(
                    u: *mut $t,
                    v: *mut $t,
                    b: *const $t,
                    dims: *const usize,
                    c0: $t,
                    c1: $t,
                    steps: usize,
                    threads: c_int,
                );
                fn $star(u: *mut $t, v: *mut $t, dims: *const usize, steps: usize, threads: c_int);
                fn $clamped(
                    u: *mut $t,
                    v: *mut $t,
                    dims: *const usize,
                    c0: $t,
                    c1: $t,
                    steps: usize,
                    threads: c_int,
                );
                fn $cardiac(
                    ep: *mut $t,
                    e: *mut $t,
                    r: *mut $t,
                    n: usize,
                    p: *const Params<$t>,
                    steps: usize,
                    threads: c_int,
                );
            }
            /// The C functions of this precision.
            pub static $table: Fns<$t> = Fns {
                heat3d: $heat,
                poisson19: $poisson,
                star3d_r4: $star,
                heat_clamped: $clamped,
                cardiac: $cardiac,
            };
        };
    }
    fns!(
        f32,
        F32,
        mint_peer_heat3d_f32,
        mint_peer_poisson19_f32,
        mint_peer_star3d_r4_f32,
        mint_peer_heat_clamped_f32,
        mint_peer_cardiac_f32
    );
    fns!(
        f64,
        F64,
        mint_peer_heat3d_f64,
        mint_peer_poisson19_f64,
        mint_peer_star3d_r4_f64,
        mint_peer_heat_clamped_f64,
        mint_peer_cardiac_f64
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small grid of pseudo-random values in [0, 1).
    fn grid(len: usize) -> Vec<f64> {
        (0..len)
            .map(|i| ((i * 7919) % 1009) as f64 / 1009.0)
            .collect()
    }

    type Bufs = [Vec<f64>; 3];

    /// Runs `rust` and `c` (at 1 and 3 threads) from the same grids (u, v = u, b): the
    /// solutions are bitwise equal, or the C peer says it was not built.
    fn agree(rust: impl Fn(&mut Bufs), c: impl Fn(&mut Bufs, usize) -> Result<(), NotBuilt>) {
        let u = grid(9 * 10 * 11);
        let start = [u.clone(), u.clone(), u.iter().map(|v| v - 0.5).collect()];
        let mut want = start.clone();
        rust(&mut want);
        for threads in [1, 3] {
            let mut got = start.clone();
            match c(&mut got, threads) {
                Ok(()) => assert!(
                    got[0]
                        .iter()
                        .zip(&want[0])
                        .all(|(a, b)| a.to_bits() == b.to_bits())
                ),
                Err(e) => assert!(e.to_string().starts_with("C peer not built: ")),
            }
        }
    }

    #[test]
    fn c_and_rust_peers_agree_bitwise() {
        let (d, c) = ([9, 10, 11], [0.4, 0.1]);
        agree(
            |[u, v, _]| rust::heat3d(u, v, d, c, 3),
            |[u, v, _], t| heat3d(u, v, d, c, 3, t),
        );
        agree(
            |[u, v, b]| rust::poisson19(u, v, b, d, c, 3),
            |[u, v, b], t| poisson19(u, v, b, d, c, 3, t),
        );
        agree(
            |[u, v, _]| rust::star3d::<f64, 4>(u, v, d, 3),
            |[u, v, _], t| star3d_r4(u, v, d, 3, t),
        );
        agree(
            |[u, v, _]| rust::heat_clamped(u, v, d, c, 3),
            |[u, v, _], t| heat_clamped(u, v, d, c, 3, t),
        );
    }

    #[test]
    fn cardiac_peers_agree_bitwise() {
        let n = 30;
        let p = CardiacParams {
            alpha: 0.2,
            dt: 0.01,
            kk: 8.0,
            a: 0.1,
            b: 0.1,
            epsilon: 0.01,
            m1: 0.07,
            m2: 0.3,
        };
        let start = [
            grid((n + 2) * (n + 2)),
            grid((n + 2) * (n + 2)),
            vec![0.0; (n + 2) * (n + 2)],
        ];
        let [mut ep, mut e, mut r] = start.clone();
        rust::cardiac(&mut ep, &mut e, &mut r, n, &p, 5);
        let [mut cep, mut ce, mut cr] = start;
        match cardiac(&mut cep, &mut ce, &mut cr, n, &p, 5, 2) {
            Ok(()) => assert!(cep == ep && cr == r),
            Err(e) => assert!(e.to_string().starts_with("C peer not built: ")),
        }
    }
}
