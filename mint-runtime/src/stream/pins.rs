//! Host memory page-locked piece by piece for a streamed run ([`super::HostPath::Registered`]):
//! `cuMemHostRegister` of 64 MiB pieces of the user's arrays ahead of the slabs, released
//! behind them, and copies cut where they would cross from one piece to the next.

use super::HostRef;
use crate::transfer::Rows;
use cudarc::driver::sys;
use std::time::Instant;

/// Host memory is page-locked in pieces of this many bytes (a multiple of the page).
const CHUNK_BYTES: usize = 64 << 20;

/// Page-locking the host arrays piece by piece ahead of the slabs, and releasing the
/// pieces behind them.
pub(super) struct HostPins {
    /// Per distinct host array: its start, bytes, bytes per plane, and the pieces
    /// (`[start, end)` addresses; whether this run registered it).
    pub(super) arrays: Vec<HostArrayPins>,
    /// Bytes page-locked and the seconds it took; bytes released and the seconds.
    pub(super) bytes: usize,
    pub(super) seconds: f64,
    pub(super) released_bytes: usize,
    pub(super) released_s: f64,
    pub(super) warned: bool,
}

pub(super) struct HostArrayPins {
    pub(super) start: usize,
    pub(super) plane_bytes: usize,
    pub(super) pieces: Vec<(usize, usize)>,
    pub(super) ours: Vec<bool>,
    /// Pieces `[0, next)` are registered (or tried); `[0, freed)` released.
    pub(super) next: usize,
    pub(super) freed: usize,
}

impl HostPins {
    pub(super) fn new(arrays: &[HostRef]) -> HostPins {
        let mut out: Vec<HostArrayPins> = Vec::new();
        for h in arrays {
            let start = h.raw.ptr as usize;
            if out.iter().any(|a| a.start == start) {
                continue;
            }
            let end = start + h.bytes();
            let page = 4096;
            let mut pieces = Vec::new();
            let mut lo = start;
            let mut hi = (start.div_ceil(page) * page + CHUNK_BYTES).min(end);
            while lo < end {
                pieces.push((lo, hi));
                lo = hi;
                hi = (hi + CHUNK_BYTES).min(end);
            }
            out.push(HostArrayPins {
                start,
                plane_bytes: h.plane_bytes(),
                ours: vec![false; pieces.len()],
                pieces,
                next: 0,
                freed: 0,
            });
        }
        HostPins {
            arrays: out,
            bytes: 0,
            seconds: 0.0,
            released_bytes: 0,
            released_s: 0.0,
            warned: false,
        }
    }

    /// Registers every piece that holds a byte of planes `..hi`.
    pub(super) fn ensure(&mut self, hi: usize) {
        let t = Instant::now();
        for a in &mut self.arrays {
            let end = a.start + hi * a.plane_bytes;
            while a.next < a.pieces.len() && a.pieces[a.next].0 < end {
                let (lo, hi) = a.pieces[a.next];
                let r = unsafe {
                    sys::cuMemHostRegister_v2(lo as *mut _, hi - lo, 0 /* not portable */)
                };
                a.ours[a.next] = r == sys::CUresult::CUDA_SUCCESS;
                if a.ours[a.next] {
                    self.bytes += hi - lo;
                } else if r != sys::CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                    && !self.warned
                    && crate::stats::report_enabled()
                {
                    self.warned = true;
                    eprintln!(
                        "mint report: stream: host memory could not be page-locked ({r:?}); its copies run from pageable memory"
                    );
                }
                a.next += 1;
            }
        }
        self.seconds += t.elapsed().as_secs_f64();
    }

    /// Releases every piece that holds no byte of planes `lo..`.
    pub(super) fn release_below(&mut self, lo: usize) {
        let t = Instant::now();
        for a in &mut self.arrays {
            let start = a.start + lo * a.plane_bytes;
            while a.freed < a.next && a.pieces[a.freed].1 <= start {
                if a.ours[a.freed] {
                    let (lo, hi) = a.pieces[a.freed];
                    unsafe { sys::cuMemHostUnregister(lo as *mut _) };
                    a.ours[a.freed] = false;
                    self.released_bytes += hi - lo;
                }
                a.freed += 1;
            }
        }
        let dt = t.elapsed().as_secs_f64();
        self.seconds += dt;
        self.released_s += dt;
    }
}

impl HostPins {
    /// The addresses where a new piece of the host array at `start` begins (its first
    /// piece's start left out): a copy must not cross one, since a DMA from page-locked
    /// memory stays within one registration.
    pub(super) fn cuts(&self, start: *mut u8) -> &[(usize, usize)] {
        self.arrays
            .iter()
            .find(|a| a.start == start as usize)
            .map_or(&[], |a| &a.pieces[..])
    }

    pub(super) fn release_all(&mut self) {
        let t = Instant::now();
        for a in &mut self.arrays {
            for (p, ours) in a.pieces.iter().zip(a.ours.iter_mut()) {
                if *ours {
                    unsafe { sys::cuMemHostUnregister(p.0 as *mut _) };
                    *ours = false;
                }
            }
            a.freed = a.next;
        }
        self.seconds += t.elapsed().as_secs_f64();
    }
}

impl Drop for HostPins {
    fn drop(&mut self) {
        self.release_all();
    }
}

/// `r` cut where its host bytes cross the start of one of `pieces` (`[start, end)`
/// addresses): runs of whole rows stay one 2-D copy each; a row a boundary crosses becomes
/// one-row copies of its parts.
pub(super) fn cut_rows(r: Rows, pieces: &[(usize, usize)]) -> Vec<Rows> {
    let h0 = r.host as usize;
    let rb = r.row_bytes;
    let end = h0 + r.rows * rb;
    let cuts: Vec<usize> = pieces
        .iter()
        .map(|p| p.0)
        .filter(|&c| c > h0 && c < end)
        .collect();
    if cuts.is_empty() || rb == 0 {
        return vec![r];
    }
    let mut out = Vec::new();
    let rows = |first: usize, n: usize, out: &mut Vec<Rows>| {
        if n > 0 {
            out.push(Rows {
                host: r.host.wrapping_add(first * rb),
                dev: r.dev + (first * r.pitch) as u64,
                rows: n,
                row_bytes: rb,
                pitch: r.pitch,
            });
        }
    };
    let mut next = 0; // first row not yet emitted
    let mut k = 0;
    while k < cuts.len() {
        let row = (cuts[k] - h0) / rb;
        rows(next, row - next, &mut out);
        // this row's cuts, if any fall inside it
        let mut offs = vec![0];
        while k < cuts.len() && (cuts[k] - h0) / rb == row {
            let o = (cuts[k] - h0) % rb;
            if o > 0 {
                offs.push(o);
            }
            k += 1;
        }
        if offs.len() == 1 {
            next = row;
            continue;
        }
        offs.push(rb);
        for w in offs.windows(2) {
            out.push(Rows {
                host: r.host.wrapping_add(row * rb + w[0]),
                dev: r.dev + (row * r.pitch + w[0]) as u64,
                rows: 1,
                row_bytes: w[1] - w[0],
                pitch: w[1] - w[0],
            });
        }
        next = row + 1;
    }
    rows(next, r.rows - next, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes each copy moves, as (host offset, device offset, len) runs.
    fn runs(parts: &[Rows], base: &Rows) -> Vec<(usize, u64, usize)> {
        let mut v = Vec::new();
        for p in parts {
            for row in 0..p.rows {
                let h = p.host as usize - base.host as usize + row * p.row_bytes;
                let d = p.dev - base.dev + (row * p.pitch) as u64;
                v.push((h, d, p.row_bytes));
            }
        }
        v
    }

    #[test]
    fn copies_are_cut_at_the_pieces_and_move_the_same_bytes() {
        let r = Rows {
            host: 1000 as *mut u8,
            dev: 1 << 20,
            rows: 10,
            row_bytes: 100,
            pitch: 128,
        };
        // the same bytes as the uncut copy, row by row
        let whole: Vec<(usize, u64, usize)> =
            (0..10).map(|i| (i * 100, i as u64 * 128, 100)).collect();
        for cuts in [
            vec![],
            vec![1300],
            vec![1350],
            vec![1000, 2000],
            vec![1350, 1370, 1900],
        ] {
            let pieces: Vec<(usize, usize)> = cuts.iter().map(|&c| (c, c + 1)).collect();
            let parts = cut_rows(r, &pieces);
            let mut got = runs(&parts, &r);
            // split rows come back as parts: join them to compare bytes
            let mut joined: Vec<(usize, u64, usize)> = Vec::new();
            got.sort();
            for (h, d, n) in got {
                match joined.last_mut() {
                    Some(l) if l.0 + l.2 == h && l.1 + l.2 as u64 == d && h % 100 != 0 => l.2 += n,
                    _ => joined.push((h, d, n)),
                }
            }
            assert_eq!(joined, whole, "cuts {cuts:?}");
            // no copy crosses a cut
            for p in &parts {
                let (a, b) = (p.host as usize, p.host as usize + p.rows * p.row_bytes);
                assert!(
                    cuts.iter().all(|&c| c <= a || c >= b),
                    "cuts {cuts:?}: {p:?}"
                );
            }
        }
    }
}
