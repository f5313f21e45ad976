//! The peers of the seismic example's elastic solver (`examples/seismic/solver.rs`): the
//! staggered-grid velocity–stress scheme, 4th order in space (c1 = 9/8, c2 = −1/24,
//! `examples/seismic/stencil.rs`), with the Cerjan sponge, the free surface at plane `k0`
//! and point sources, recording the receivers' seismograms and the peak ground velocity.
//! Single precision, as the example.
//!
//! [`rust`] is the hand-written Rust peer (rayon over k planes for the volume nests and
//! over j rows for the surface nests, rows read without bounds checks); [`c`] calls the C
//! peer (`c/seismic.c`, OpenMP). Both run the solver's nests in its order with its
//! operands in its order and no fused multiply-add, so their fields, seismograms and peak
//! ground velocity are bitwise equal to Mint's CPU backend. The attenuating (anelastic)
//! stress nest has no peer: [`Model::new`] refuses a model with attenuation.

use crate::NotBuilt;
use rayon::prelude::*;

/// What the steps read and never write. Every 3-D array is `[nz, ny, nx]` with the halo,
/// row-major (x fastest); every field is `f32`.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// `[nz, ny, nx]`, the halo included.
    pub n: [usize; 3],
    /// The free-surface plane (the example's `HALO`, 2).
    pub k0: usize,
    /// Steps a run takes.
    pub nsteps: usize,
    /// d1, d2, d3 (dt/(h·ρ) at the velocity nodes), λ, λ + 2μ, μxy, μxz, μyz (dt/h
    /// times the moduli at the stress nodes), each `[nz, ny, nx]`.
    pub medium: [Vec<f32>; 8],
    /// The sponge's 1-D damping factors x, xs (length nx), y, ys (ny), z, zs (nz): the
    /// plain ones at integer nodes, the `s` ones at half nodes.
    pub sponge: [Vec<f32>; 6],
    /// −λ/(λ + 2μ) at the free surface, `[ny, nx]`.
    pub fsr: Vec<f32>,
    /// C13 − C12 and C33 − C11 of a layered model's interface nodes, per plane (`[nz]`).
    pub dlam: Vec<f32>,
    pub dl2m: Vec<f32>,
    /// Point sources: stress component (0..5: xx, yy, zz, xy, xz, yz), `[k, j, i]` (`[ne,
    /// 3]`), amplitude, and the column of `stf` each one follows.
    pub src_comp: Vec<i32>,
    pub src_idx: Vec<i32>,
    pub src_amp: Vec<f32>,
    pub src_src: Vec<i32>,
    /// Source time functions, `[nsteps, nstf]`.
    pub stf: Vec<f32>,
    pub nstf: usize,
    /// Receivers: for each velocity component c, the lowest corner `[k, j, i]` of the cell
    /// holding the receiver at `idx[r, 3c..3c + 3]` and its fractions at `frac[r, 3c..3c +
    /// 3]` (`[nrec, 9]` each).
    pub rcv_idx: Vec<i32>,
    pub rcv_frac: Vec<f32>,
}

/// What the steps advance and record.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// u1, v1, w1, xx, yy, zz, xy, xz, yz, each `[nz, ny, nx]`.
    pub fields: [Vec<f32>; 9],
    /// Seismograms `[nsteps, max(nrec, 1), 3]`.
    pub seis: Vec<f32>,
    /// Peak ground velocity `[ny, nx]`.
    pub pgv: Vec<f32>,
}

impl Model {
    /// The number of receivers.
    pub fn nrec(&self) -> usize {
        self.rcv_idx.len() / 9
    }

    /// The state at rest: every field, seismogram and peak zero, each written by the
    /// current rayon pool's threads (a first touch in the timed steps would count the
    /// page faults).
    pub fn at_rest(&self) -> State {
        let zeros = |len: usize| (0..len).into_par_iter().map(|_| 0.0).collect();
        let len: usize = self.n.iter().product();
        State {
            fields: std::array::from_fn(|_| zeros(len)),
            seis: zeros(self.nsteps * self.nrec().max(1) * 3),
            pgv: zeros(self.n[1] * self.n[2]),
        }
    }

    /// Checks every length against `n`, `nsteps` and the source and receiver counts, and
    /// every source and receiver index against the grid; the first mismatch, in words.
    ///
    /// # Errors
    /// A description of the first array whose length or index does not fit.
    pub fn check(&self, s: &State) -> Result<(), String> {
        let [nz, ny, nx] = self.n;
        let len = nz * ny * nx;
        let ne = self.src_comp.len();
        let lens = [
            (
                "a field",
                s.fields.iter().map(Vec::len).collect::<Vec<_>>(),
                len,
            ),
            (
                "a medium array",
                self.medium.iter().map(Vec::len).collect(),
                len,
            ),
            (
                "sponge x, xs",
                vec![self.sponge[0].len(), self.sponge[1].len()],
                nx,
            ),
            (
                "sponge y, ys",
                vec![self.sponge[2].len(), self.sponge[3].len()],
                ny,
            ),
            (
                "sponge z, zs",
                vec![self.sponge[4].len(), self.sponge[5].len()],
                nz,
            ),
            ("fsr, pgv", vec![self.fsr.len(), s.pgv.len()], ny * nx),
            ("dlam, dl2m", vec![self.dlam.len(), self.dl2m.len()], nz),
            ("source idx", vec![self.src_idx.len()], 3 * ne),
            (
                "source amp, src",
                vec![self.src_amp.len(), self.src_src.len()],
                ne,
            ),
            ("stf", vec![self.stf.len()], self.nsteps * self.nstf),
            (
                "receiver frac",
                vec![self.rcv_frac.len()],
                self.rcv_idx.len(),
            ),
            (
                "seis",
                vec![s.seis.len()],
                self.nsteps * self.nrec().max(1) * 3,
            ),
        ];
        for (what, got, want) in lens {
            if got.iter().any(|&g| g != want) {
                return Err(format!("{what}: lengths {got:?}, expected {want}"));
            }
        }
        if nz < 5 || ny < 5 || nx < 5 || self.k0 < 2 || self.k0 + 2 >= nz {
            return Err(format!(
                "grid {:?} with the free surface at {}",
                self.n, self.k0
            ));
        }
        let inside = |k: i32, j: i32, i: i32, far: usize| {
            let ok = |v: i32, n: usize| v >= 0 && (v as usize) + far < n;
            ok(k, nz) && ok(j, ny) && ok(i, nx)
        };
        for e in 0..ne {
            let [k, j, i] = [0, 1, 2].map(|c| self.src_idx[3 * e + c]);
            let col = self.src_src[e];
            if !inside(k, j, i, 0) || col < 0 || col as usize >= self.nstf {
                return Err(format!("source {e} at [{k}, {j}, {i}], column {col}"));
            }
        }
        for (r, ix) in self.rcv_idx.chunks(3).enumerate() {
            if !inside(ix[0], ix[1], ix[2], 1) {
                return Err(format!("receiver {} at {ix:?}", r / 3));
            }
        }
        Ok(())
    }
}

/// The C peer: `model.nsteps` steps of the solver on `state` (from the state it holds),
/// on `threads` OpenMP threads.
///
/// # Errors
/// [`NotBuilt`] without the C peers.
///
/// # Panics
/// If [`Model::check`] fails.
pub fn c(model: &Model, state: &mut State, threads: usize) -> Result<(), NotBuilt> {
    model.check(state).expect("the seismic peer's arrays");
    crate::available()?;
    #[cfg(peers_c)]
    {
        let raw = ffi::Raw::new(model, state);
        // SAFETY: `check` proved every length and index; `raw` borrows `model` and
        // `state` for the call, and the fields do not overlap one another.
        unsafe { ffi::mint_peer_seismic_f32(&raw, crate::omp(threads)) };
    }
    #[cfg(not(peers_c))]
    let _ = threads;
    Ok(())
}

#[cfg(peers_c)]
mod ffi {
    use super::{Model, State};
    use std::ffi::c_int;

    /// The layout of `mint_peer_seismic` in `c/seismic.c`.
    #[repr(C)]
    pub struct Raw {
        medium: [*const f32; 8],
        sponge: [*const f32; 6],
        fsr: *const f32,
        dlam: *const f32,
        dl2m: *const f32,
        src_comp: *const i32,
        src_idx: *const i32,
        src_amp: *const f32,
        src_src: *const i32,
        stf: *const f32,
        rcv_idx: *const i32,
        rcv_frac: *const f32,
        fields: [*mut f32; 9],
        seis: *mut f32,
        pgv: *mut f32,
        n: [usize; 3],
        k0: usize,
        nsteps: usize,
        ne: usize,
        nstf: usize,
        nrec: usize,
    }

    impl Raw {
        pub fn new(m: &Model, s: &mut State) -> Raw {
            Raw {
                medium: std::array::from_fn(|i| m.medium[i].as_ptr()),
                sponge: std::array::from_fn(|i| m.sponge[i].as_ptr()),
                fsr: m.fsr.as_ptr(),
                dlam: m.dlam.as_ptr(),
                dl2m: m.dl2m.as_ptr(),
                src_comp: m.src_comp.as_ptr(),
                src_idx: m.src_idx.as_ptr(),
                src_amp: m.src_amp.as_ptr(),
                src_src: m.src_src.as_ptr(),
                stf: m.stf.as_ptr(),
                rcv_idx: m.rcv_idx.as_ptr(),
                rcv_frac: m.rcv_frac.as_ptr(),
                fields: s.fields.each_mut().map(|f| f.as_mut_ptr()),
                seis: s.seis.as_mut_ptr(),
                pgv: s.pgv.as_mut_ptr(),
                n: m.n,
                k0: m.k0,
                nsteps: m.nsteps,
                ne: m.src_comp.len(),
                nstf: m.nstf,
                nrec: m.nrec(),
            }
        }
    }

    unsafe extern "C" {
        pub fn mint_peer_seismic_f32(m: *const Raw, threads: c_int);
    }
}

/// c1 and c2 of the 4th-order staggered differences.
const C1: f32 = 1.125;
const C2: f32 = -1.0 / 24.0;

/// `a[i]` without a bounds check.
///
/// # Safety
/// `i < a.len()`.
#[inline(always)]
unsafe fn at(a: &[f32], i: usize) -> f32 {
    // SAFETY: the caller's.
    unsafe { *a.get_unchecked(i) }
}

/// The forward difference at `a[i]` with stride `s`: c1·(a[+1] − a[0]) + c2·(a[+2] − a[−1]).
///
/// # Safety
/// `s ≤ i` and `i + 2s < a.len()`.
#[inline(always)]
unsafe fn dp(a: &[f32], i: usize, s: usize) -> f32 {
    // SAFETY: the caller's.
    unsafe { C1 * (at(a, i + s) - at(a, i)) + C2 * (at(a, i + 2 * s) - at(a, i - s)) }
}

/// The backward difference: c1·(a[0] − a[−1]) + c2·(a[+1] − a[−2]).
///
/// # Safety
/// `2s ≤ i` and `i + s < a.len()`.
#[inline(always)]
unsafe fn dm(a: &[f32], i: usize, s: usize) -> f32 {
    // SAFETY: the caller's.
    unsafe { C1 * (at(a, i) - at(a, i - s)) + C2 * (at(a, i + s) - at(a, i - 2 * s)) }
}

/// The hand-written Rust peer: `model.nsteps` steps of the solver on `state`, in the
/// current rayon pool.
///
/// # Panics
/// If [`Model::check`] fails.
pub fn rust(model: &Model, state: &mut State) {
    model.check(state).expect("the seismic peer's arrays");
    for step in 0..model.nsteps {
        velocity(model, state);
        surface_velocity(model, state);
        record(model, state, step);
        stress(model, state);
        surface_stress(model, state, step);
    }
}

/// Planes `2..nz − 2` of `v` as chunks of one plane each.
fn planes(v: &mut [f32], [nz, ny, nx]: [usize; 3]) -> rayon::slice::ChunksMut<'_, f32> {
    v[2 * ny * nx..(nz - 2) * ny * nx].par_chunks_mut(ny * nx)
}

fn velocity(m: &Model, s: &mut State) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    let [u1, v1, w1, xx, yy, zz, xy, xz, yz] = &mut s.fields;
    let (xx, yy, zz, xy, xz, yz) = (&*xx, &*yy, &*zz, &*xy, &*xz, &*yz);
    let [d1, d2, d3, ..] = &m.medium;
    let [sx, sxs, sy, sys, sz, szs] = &m.sponge;
    planes(u1, m.n)
        .zip(planes(v1, m.n))
        .zip(planes(w1, m.n))
        .enumerate()
        .for_each(|(kk, ((u, v), w))| {
            let k = kk + 2;
            for j in 2..ny - 2 {
                for i in 2..nx - 2 {
                    let (o, a) = (j * nx + i, k * p + j * nx + i);
                    // SAFETY: 2 ≤ k, j, i < n − 2 (check: n ≥ 5), so every point read is
                    // inside the grid and `o` inside the plane.
                    unsafe {
                        *u.get_unchecked_mut(o) = (at(u, o)
                            + at(d1, a) * (dm(xx, a, 1) + dm(xy, a, nx) + dm(xz, a, p)))
                            * (at(sxs, i) * at(sy, j) * at(sz, k));
                        *v.get_unchecked_mut(o) = (at(v, o)
                            + at(d2, a) * (dp(xy, a, 1) + dp(yy, a, nx) + dm(yz, a, p)))
                            * (at(sx, i) * at(sys, j) * at(sz, k));
                        *w.get_unchecked_mut(o) = (at(w, o)
                            + at(d3, a) * (dp(xz, a, 1) + dm(yz, a, nx) + dp(zz, a, p)))
                            * (at(sx, i) * at(sy, j) * at(szs, k));
                    }
                }
            }
        });
}

/// The velocities above the free surface (zero traction): w, then u and v.
fn surface_velocity(m: &Model, s: &mut State) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    let k0 = m.k0;
    let [u1, v1, w1, ..] = &mut s.fields;
    // w1 from u1, v1 and w1 at k0
    let (u, v) = (&u1[k0 * p..][..p], &v1[k0 * p..][..p]);
    above_surface(w1, m, |w, a| {
        // SAFETY: `above_surface`'s `a`, and the rows of u and v have nx elements.
        let inc = unsafe { at(&m.fsr, a) * (at(u, a + 1) - at(u, a) + at(v, a) - at(v, a - nx)) };
        (w[a] + inc, w[a] + 2.0 * inc)
    });
    // u1, v1 from their values at k0 and w1 at k0 − 1
    let w = &w1[(k0 - 1) * p..][..p];
    above_surface(u1, m, |u, a| {
        // SAFETY: as above.
        let x = unsafe { at(u, a) + at(w, a) - at(w, a - 1) };
        (x, x)
    });
    above_surface(v1, m, |v, a| {
        // SAFETY: as above.
        let x = unsafe { at(v, a) + at(w, a + nx) - at(w, a) };
        (x, x)
    });
}

/// Planes `k0 − 1` and `k0 − 2` of `field` (`[nz, ny, nx]`) at the points `a = j·nx + i`
/// (of a plane) with 2 ≤ j, i < n − 2: `(field[k0 − 1][a], field[k0 − 2][a]) = f(below,
/// a)`, where `below` is the field from plane `k0` on; rows in parallel.
fn above_surface(field: &mut [f32], m: &Model, f: impl Fn(&[f32], usize) -> (f32, f32) + Sync) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    let (above, below) = field[(m.k0 - 2) * p..].split_at_mut(2 * p);
    let (a2, a1) = above.split_at_mut(p);
    let below = &*below;
    rows(a2, nx)
        .zip(rows(a1, nx))
        .enumerate()
        .for_each(|(jj, (o2, o1))| {
            let j = jj + 2;
            for i in 2..nx - 2 {
                (o1[i], o2[i]) = f(below, j * nx + i);
            }
        });
}

/// Rows `2..ny − 2` of one plane (`[ny, nx]`), as chunks of one row each.
fn rows(plane: &mut [f32], nx: usize) -> rayon::slice::ChunksMut<'_, f32> {
    let len = plane.len();
    plane[2 * nx..len - 2 * nx].par_chunks_mut(nx)
}

/// Step `step`'s seismograms (trilinear interpolation of each velocity component on its
/// own staggered grid) and the peak ground velocity at the surface.
fn record(m: &Model, s: &mut State, step: usize) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    let nr = m.nrec().max(1);
    let [u1, v1, w1, ..] = &s.fields;
    for r in 0..m.nrec() {
        for (c, a) in [u1, v1, w1].into_iter().enumerate() {
            let ix = &m.rcv_idx[9 * r + 3 * c..][..3];
            let f = &m.rcv_frac[9 * r + 3 * c..][..3];
            let o = (ix[0] as usize * ny + ix[1] as usize) * nx + ix[2] as usize;
            let (fz, fy, fx) = (f[0], f[1], f[2]);
            s.seis[(step * nr + r) * 3 + c] = (1.0 - fz)
                * ((1.0 - fy) * ((1.0 - fx) * a[o] + fx * a[o + 1])
                    + fy * ((1.0 - fx) * a[o + nx] + fx * a[o + nx + 1]))
                + fz * ((1.0 - fy) * ((1.0 - fx) * a[o + p] + fx * a[o + p + 1])
                    + fy * ((1.0 - fx) * a[o + p + nx] + fx * a[o + p + nx + 1]));
        }
    }
    let k0 = m.k0;
    let (u, v) = (&u1[k0 * p..][..p], &v1[k0 * p..][..p]);
    let (wa, wk) = (&w1[(k0 - 1) * p..][..p], &w1[k0 * p..][..p]);
    rows(&mut s.pgv, nx).enumerate().for_each(|(jj, out)| {
        let j = jj + 2;
        for i in 2..nx - 2 {
            let a = j * nx + i;
            // SAFETY: 2 ≤ j, i < n − 2.
            unsafe {
                let vx = 0.5 * (at(u, a) + at(u, a + 1));
                let vy = 0.5 * (at(v, a - nx) + at(v, a));
                let vz = 0.5 * (at(wa, a) + at(wk, a));
                let val = (vx * vx + vy * vy + vz * vz).sqrt();
                if val > at(out, i) {
                    *out.get_unchecked_mut(i) = val;
                }
            }
        }
    });
}

fn stress(m: &Model, s: &mut State) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    let [u1, v1, w1, xx, yy, zz, xy, xz, yz] = &mut s.fields;
    let (u1, v1, w1) = (&*u1, &*v1, &*w1);
    let [_, _, _, lam, l2m, mxy, mxz, myz] = &m.medium;
    let [sx, sxs, sy, sys, sz, szs] = &m.sponge;
    let (dlam, dl2m) = (&m.dlam, &m.dl2m);
    planes(xx, m.n)
        .zip(planes(yy, m.n))
        .zip(planes(zz, m.n))
        .zip(planes(xy, m.n))
        .zip(planes(xz, m.n))
        .zip(planes(yz, m.n))
        .enumerate()
        .for_each(|(kk, (((((oxx, oyy), ozz), oxy), oxz), oyz))| {
            let k = kk + 2;
            for j in 2..ny - 2 {
                for i in 2..nx - 2 {
                    let (o, a) = (j * nx + i, k * p + j * nx + i);
                    // SAFETY: 2 ≤ k, j, i < n − 2 (check: n ≥ 5), so every point read is
                    // inside the grid and `o` inside the plane.
                    unsafe {
                        let vxx = dp(u1, a, 1);
                        let vyy = dm(v1, a, nx);
                        let vzz = dm(w1, a, p);
                        let (l, l2) = (at(lam, a), at(l2m, a));
                        let lz = l + at(dlam, k);
                        let dc = at(sx, i) * at(sy, j) * at(sz, k);
                        *oxx.get_unchecked_mut(o) =
                            (at(oxx, o) + l2 * vxx + l * vyy + lz * vzz) * dc;
                        *oyy.get_unchecked_mut(o) =
                            (at(oyy, o) + l2 * vyy + l * vxx + lz * vzz) * dc;
                        *ozz.get_unchecked_mut(o) =
                            (at(ozz, o) + (l2 + at(dl2m, k)) * vzz + lz * (vxx + vyy)) * dc;
                        *oxy.get_unchecked_mut(o) = (at(oxy, o)
                            + at(mxy, a) * (dp(u1, a, nx) + dm(v1, a, 1)))
                            * (at(sxs, i) * at(sys, j) * at(sz, k));
                        *oxz.get_unchecked_mut(o) = (at(oxz, o)
                            + at(mxz, a) * (dp(u1, a, p) + dm(w1, a, 1)))
                            * (at(sxs, i) * at(sy, j) * at(szs, k));
                        *oyz.get_unchecked_mut(o) = (at(oyz, o)
                            + at(myz, a) * (dp(v1, a, p) + dp(w1, a, nx)))
                            * (at(sx, i) * at(sys, j) * at(szs, k));
                    }
                }
            }
        });
}

/// Step `step`'s point sources, then the stress imaging about the free surface: σzz zero
/// on it, σzz, σxz and σyz odd about it.
fn surface_stress(m: &Model, s: &mut State, step: usize) {
    let [_, ny, nx] = m.n;
    let p = ny * nx;
    for e in 0..m.src_comp.len() {
        let ix = &m.src_idx[3 * e..][..3];
        let o = (ix[0] as usize * ny + ix[1] as usize) * nx + ix[2] as usize;
        let a = m.src_amp[e] * m.stf[step * m.nstf + m.src_src[e] as usize];
        let c = m.src_comp[e];
        s.fields[3 + if (0..5).contains(&c) { c as usize } else { 5 }][o] += a;
    }
    // SAFETY (the reads of `below`): planes k0 .. k0 + 2 are in the grid (`Model::check`).
    let k0 = m.k0;
    let [.., zz, _, xz, yz] = &mut s.fields;
    rows(&mut zz[k0 * p..][..p], nx).for_each(|row| row[2..nx - 2].fill(0.0));
    above_surface(zz, m, |b, a| unsafe { (-at(b, a + p), -at(b, a + 2 * p)) });
    above_surface(xz, m, |b, a| unsafe { (-at(b, a), -at(b, a + p)) });
    above_surface(yz, m, |b, a| unsafe { (-at(b, a), -at(b, a + p)) });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` pseudo-random values in `lo..hi`.
    fn values(len: usize, seed: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..len)
            .map(|i| lo + (hi - lo) * (((i + seed) * 7919 % 1009) as f32 / 1009.0))
            .collect()
    }

    /// A small grid with every field and coefficient non-zero, two sources and two
    /// receivers, so that every nest changes the state.
    fn model() -> (Model, State) {
        let n = [11, 9, 13];
        let len = n.iter().product();
        let nsteps = 5;
        let m = Model {
            n,
            k0: 2,
            nsteps,
            medium: std::array::from_fn(|a| values(len, a, 0.05, 0.4)),
            sponge: std::array::from_fn(|a| values(n[2 - a / 2], 10 + a, 0.9, 1.0)),
            fsr: values(n[1] * n[2], 20, -0.4, -0.2),
            dlam: values(n[0], 21, 0.0, 0.1),
            dl2m: values(n[0], 22, 0.0, 0.1),
            src_comp: vec![3, 2],
            src_idx: vec![5, 4, 6, 2, 3, 3],
            src_amp: vec![0.5, -0.25],
            src_src: vec![0, 1],
            stf: values(nsteps * 2, 23, -1.0, 1.0),
            nstf: 2,
            rcv_idx: vec![2, 3, 4, 2, 3, 4, 1, 3, 4, 4, 5, 6, 4, 5, 7, 3, 5, 6],
            rcv_frac: values(18, 24, 0.0, 1.0),
        };
        let mut s = m.at_rest();
        for (f, v) in s.fields.iter_mut().enumerate() {
            *v = values(len, 30 + f, -1.0, 1.0);
        }
        (m, s)
    }

    #[test]
    fn c_and_rust_seismic_peers_agree_bitwise() {
        let (m, start) = model();
        let mut want = start.clone();
        rust(&m, &mut want);
        assert!(want.fields.iter().zip(&start.fields).all(|(a, b)| a != b));
        assert!(want.seis.iter().all(|&v| v != 0.0));
        assert!(want.pgv.iter().any(|&v| v > 0.0));
        for threads in [1, 3] {
            let mut got = start.clone();
            match c(&m, &mut got, threads) {
                Ok(()) => assert!(got == want, "{threads} thread(s)"),
                Err(e) => assert!(e.to_string().starts_with("C peer not built: ")),
            }
        }
    }

    #[test]
    fn lengths_and_indices_are_checked() {
        let (mut m, s) = model();
        m.src_idx[0] = 11;
        assert!(m.check(&s).unwrap_err().starts_with("source 0"));
        let (mut m, s) = model();
        m.rcv_idx[12] = 12;
        assert!(m.check(&s).unwrap_err().starts_with("receiver 1"));
        let (mut m, s) = model();
        m.sponge[3].pop();
        assert!(m.check(&s).unwrap_err().starts_with("sponge y, ys"));
    }
}
