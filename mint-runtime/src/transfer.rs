//! Host↔device copies at the link's speed.
//!
//! A copy from or to pageable memory (what an `ndarray` holds) is slow in the driver:
//! measured on an H100, a pitched `cuMemcpy2D` from pageable memory moved
//! 8.5 GB/s host to device and 1.2 GB/s back, against 54 GB/s either way from page-locked
//! memory. So a large copy goes through a ring of page-locked staging buffers (the
//! [`Ring`]: [`Ring::DEFAULT`] unless [`set_ring`] changed it), owned by the device
//! (`Staging`), in whole rows:
//! - host to device: all cores copy rows into a free slot while the DMA engine drains
//!   the slot filled before it;
//! - device to host: the DMA engine fills every slot ahead while all cores
//!   copy the oldest one out into the host array.
//!
//! The staging buffers are allocated once per device, at its first large copy, with
//! `cuMemHostAlloc` and no flags: cached, not write-combined, since the host reads them
//! back. The user's memory is not registered (`cuMemHostRegister`): pinning gigabytes
//! for each copy costs more than the copy, and an allocation freed while registered
//! would poison its addresses for the process. Copies below [`DIRECT_BELOW`] bytes go
//! straight through one `cuMemcpy2D`, where the ring's start-up would cost more than it
//! saves. This is the staging CUDA does inside a pageable copy, done with all of the
//! process's cores and with the copy engine kept busy (Visschers, seed 001, measures
//! page-locked transfers the same way for his model's `pinnedHostToDevice` and
//! `deviceToPinnedHost` figures). Host arrays that are page-locked already, the user's
//! [`crate::pinned::PinnedArray`]s, skip the ring: one DMA at the link's speed.

use crate::device::Gpu;
use crate::staging::Staging;
pub use crate::staging::{Ring, ring, set_ring};
use cudarc::driver::{DriverError, result as drv, sys};
use rayon::prelude::*;

/// Copies smaller than this go straight to the driver, without staging.
pub const DIRECT_BELOW: usize = 4 << 20;

/// A copy between a standard-layout host buffer (rows of `row_bytes`, back to back) and
/// a device buffer whose rows are `pitch` bytes apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub host: *mut u8,
    pub dev: sys::CUdeviceptr,
    pub rows: usize,
    pub row_bytes: usize,
    /// Device row pitch in bytes (at least `row_bytes`).
    pub pitch: usize,
}

/// Which way a copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    ToDevice,
    ToHost,
}

/// One piece of a copy, small enough for a staging buffer: `rows` rows of `width`
/// bytes, starting `host_off` bytes into the host buffer and `dev_off` into the device's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    host_off: usize,
    dev_off: usize,
    rows: usize,
    width: usize,
}

/// Splits a copy into staging-sized pieces: byte ranges of at most a slot where the
/// bytes are back to back on both sides (one row, or `pitch == row_bytes`); otherwise
/// whole rows, or, for a row longer than a slot, byte ranges of each row.
fn pieces(r: &Rows, slot_bytes: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let bytes = |host_off: usize, dev_off: usize, len: usize, out: &mut Vec<Piece>| {
        let mut off = 0;
        while off < len {
            let width = slot_bytes.min(len - off);
            out.push(Piece {
                host_off: host_off + off,
                dev_off: dev_off + off,
                rows: 1,
                width,
            });
            off += width;
        }
    };
    if r.rows == 1 || r.pitch == r.row_bytes {
        bytes(0, 0, r.rows * r.row_bytes, &mut out);
    } else if r.row_bytes > slot_bytes {
        for row in 0..r.rows {
            bytes(row * r.row_bytes, row * r.pitch, r.row_bytes, &mut out);
        }
    } else {
        let per = slot_bytes / r.row_bytes;
        let mut row = 0;
        while row < r.rows {
            let rows = per.min(r.rows - row);
            out.push(Piece {
                host_off: row * r.row_bytes,
                dev_off: row * r.pitch,
                rows,
                width: r.row_bytes,
            });
            row += rows;
        }
    }
    out
}

/// Piece `p` of `r` as its own copy between staging buffer `buf` and the device.
fn piece_rows(r: &Rows, p: &Piece, buf: *mut u8) -> Rows {
    Rows {
        host: buf,
        dev: r.dev + p.dev_off as u64,
        rows: p.rows,
        row_bytes: p.width,
        pitch: dev_pitch(r, p),
    }
}

/// The device pitch of a piece's copy: a one-row piece may be wider than the array's
/// pitch (a byte range across rows that are back to back), and `cuMemcpy2D` wants a
/// pitch at least as wide as the row it copies.
fn dev_pitch(r: &Rows, p: &Piece) -> usize {
    if p.rows == 1 { p.width } else { r.pitch }
}

/// One `cuMemcpy2DAsync` of `r` (host rows back to back, `r.row_bytes` apart).
pub(crate) fn memcpy2d(dir: Direction, r: Rows, stream: sys::CUstream) -> Result<(), DriverError> {
    let (host, dev, width, rows) = (r.host, r.dev, r.row_bytes, r.rows);
    let (host_pitch, dev_pitch) = (r.row_bytes, r.pitch);
    let (host_t, dev_t) = (
        sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
    );
    let up = dir == Direction::ToDevice;
    let p = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: if up { host_t } else { dev_t },
        srcHost: if up {
            host as *const _
        } else {
            std::ptr::null()
        },
        srcDevice: if up { 0 } else { dev },
        srcArray: std::ptr::null_mut(),
        srcPitch: if up { host_pitch } else { dev_pitch },
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: if up { dev_t } else { host_t },
        dstHost: if up {
            std::ptr::null_mut()
        } else {
            host as *mut _
        },
        dstDevice: if up { dev } else { 0 },
        dstArray: std::ptr::null_mut(),
        dstPitch: if up { dev_pitch } else { host_pitch },
        WidthInBytes: width,
        Height: rows,
    };
    unsafe { sys::cuMemcpy2DAsync_v2(&p, stream) }.result()
}

/// `dst.copy_from_slice(src)` on all cores, `ring.piece_bytes` at a time.
fn par_copy(dst: &mut [u8], src: &[u8], ring: &Ring) {
    let stream = ring.stream_stores;
    dst.par_chunks_mut(ring.piece_bytes)
        .zip(src.par_chunks(ring.piece_bytes))
        .for_each(|(d, s)| {
            if stream {
                stream_copy(d, s)
            } else {
                d.copy_from_slice(s)
            }
        });
}

/// `dst.copy_from_slice(src)` with non-temporal stores of 64 bytes at a time once `dst`
/// is 16-byte aligned.
#[cfg(target_arch = "x86_64")]
fn stream_copy(dst: &mut [u8], src: &[u8]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    assert_eq!(dst.len(), src.len());
    let head = dst.as_ptr().align_offset(16).min(dst.len());
    dst[..head].copy_from_slice(&src[..head]);
    let body = (dst.len() - head) / 64 * 64;
    // SAFETY: SSE2 is part of x86-64; every 16-byte store lands inside `dst[head..head +
    // body]`, which is 16-byte aligned; the loads read `src` at the same offsets.
    unsafe {
        let (d, s) = (dst.as_mut_ptr().add(head), src.as_ptr().add(head));
        let mut i = 0;
        while i < body {
            let a = _mm_loadu_si128(s.add(i) as *const __m128i);
            let b = _mm_loadu_si128(s.add(i + 16) as *const __m128i);
            let c = _mm_loadu_si128(s.add(i + 32) as *const __m128i);
            let e = _mm_loadu_si128(s.add(i + 48) as *const __m128i);
            _mm_stream_si128(d.add(i) as *mut __m128i, a);
            _mm_stream_si128(d.add(i + 16) as *mut __m128i, b);
            _mm_stream_si128(d.add(i + 32) as *mut __m128i, c);
            _mm_stream_si128(d.add(i + 48) as *mut __m128i, e);
            i += 64;
        }
        _mm_sfence();
    }
    dst[head + body..].copy_from_slice(&src[head + body..]);
}

#[cfg(not(target_arch = "x86_64"))]
fn stream_copy(dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(src)
}

/// Copies `r` in direction `dir` on `gpu`'s stream and waits for it.
///
/// The stream is first waited for, so that a fault of earlier work is reported before
/// any byte moves. Host to device, the host buffer is only read. Device to host, only a
/// failure of the copy itself (a device lost in the middle of it) can leave the host
/// buffer partly written. A successful copy is counted in
/// [`crate::stats::transfer_stats`].
///
/// # Safety
/// `r.host` must be valid for `r.rows * r.row_bytes` bytes (read for
/// [`Direction::ToDevice`], written for [`Direction::ToHost`]) and not aliased by
/// anything else for the duration; `r.dev` must be a device allocation of `gpu` holding
/// `r.rows` rows of `r.pitch` bytes.
pub(crate) unsafe fn copy(gpu: &Gpu, dir: Direction, r: Rows) -> Result<(), DriverError> {
    let total = r.rows * r.row_bytes;
    if total == 0 {
        return Ok(());
    }
    gpu.ctx.bind_to_thread()?;
    let stream = gpu.stream.cu_stream();
    // the work queued before the copy first: its faults surface here, before any byte
    // moves, and the copy's time is its own
    unsafe { drv::stream::synchronize(stream) }?;
    let t = std::time::Instant::now();
    // small copies, and page-locked host memory (a `PinnedArray`), go to the copy engine
    // as they are
    let result = if total < DIRECT_BELOW || crate::pinned::is_page_locked(r.host, total) {
        memcpy2d(dir, r, stream)
    } else {
        unsafe { staged(gpu, dir, &r, stream) }
    };
    // on failure, no DMA may still be using a staging buffer or the host memory
    let done = unsafe { drv::stream::synchronize(stream) };
    let result = result.and(done);
    if result.is_ok() {
        crate::stats::record_transfer(dir == Direction::ToDevice, total, t.elapsed().as_secs_f64());
    }
    result
}

/// A large copy through the device's staging ring on `stream`. Host to device it returns
/// when the host has copied every piece into the ring (the last pieces' DMAs may still
/// run on `stream`); device to host, when every piece is in the host buffer. Each slot is
/// refilled only after its last DMA finished, whichever stream queued it.
///
/// # Safety
/// As [`copy`].
pub(crate) unsafe fn staged(
    gpu: &Gpu,
    dir: Direction,
    r: &Rows,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    let ring = ring();
    let pieces = pieces(r, ring.slot_bytes);
    let mut guard = gpu.staging.lock().unwrap_or_else(|p| p.into_inner());
    if guard.as_ref().is_none_or(|s| s.ring != ring) {
        *guard = None;
        *guard = Some(Staging::new(&gpu.ctx, ring)?);
    }
    let staging = guard.as_ref().expect("allocated");
    match dir {
        Direction::ToDevice => unsafe { pipeline_up(staging, r, &pieces, stream) },
        Direction::ToHost => unsafe { pipeline_down(staging, r, &pieces, stream) },
    }
}

/// Host to device: fill slot `i % slots` on all cores, then queue its DMA; a slot is
/// refilled only after its previous DMA finished.
unsafe fn pipeline_up(
    staging: &Staging,
    r: &Rows,
    pieces: &[Piece],
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    for (i, p) in pieces.iter().enumerate() {
        let (buf, ev) = staging.free_slot(i)?;
        let bytes = p.rows * p.width;
        // SAFETY: the caller's host range covers every piece; the slot holds a piece and
        // its last DMA has finished.
        let (dst, src) = unsafe {
            (
                std::slice::from_raw_parts_mut(buf, bytes),
                std::slice::from_raw_parts(r.host.add(p.host_off) as *const u8, bytes),
            )
        };
        par_copy(dst, src, &staging.ring);
        memcpy2d(Direction::ToDevice, piece_rows(r, p, buf), stream)?;
        unsafe { drv::event::record(ev, stream) }?;
    }
    Ok(())
}

/// Device to host: keep a DMA in flight into every slot; copy each finished slot out on all
/// cores and queue the next piece into it.
unsafe fn pipeline_down(
    staging: &Staging,
    r: &Rows,
    pieces: &[Piece],
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    let slots = staging.slots.len();
    let queue = |i: usize| -> Result<(), DriverError> {
        let (buf, ev) = staging.free_slot(i)?;
        let p = pieces[i];
        memcpy2d(Direction::ToHost, piece_rows(r, &p, buf), stream)?;
        unsafe { drv::event::record(ev, stream) }
    };
    for i in 0..pieces.len().min(slots) {
        queue(i)?;
    }
    for (i, p) in pieces.iter().enumerate() {
        let (buf, _) = staging.free_slot(i)?;
        let bytes = p.rows * p.width;
        // SAFETY: as in `pipeline_up`; the slot's DMA has finished.
        let (dst, src) = unsafe {
            (
                std::slice::from_raw_parts_mut(r.host.add(p.host_off), bytes),
                std::slice::from_raw_parts(buf as *const u8, bytes),
            )
        };
        par_copy(dst, src, &staging.ring);
        if i + slots < pieces.len() {
            queue(i + slots)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: usize, row_bytes: usize, pitch: usize) -> Rows {
        Rows {
            host: std::ptr::null_mut(),
            dev: 0,
            rows,
            row_bytes,
            pitch,
        }
    }

    /// Every byte of the host buffer lands in exactly one piece, at the device offset
    /// its row and column say, and no piece exceeds a slot.
    const SLOT_BYTES: usize = Ring::DEFAULT.slot_bytes;

    fn check(r: &Rows) {
        let ps = pieces(r, SLOT_BYTES);
        let mut seen = vec![false; r.rows * r.row_bytes];
        for p in &ps {
            assert!(p.rows * p.width <= SLOT_BYTES);
            for k in 0..p.rows {
                for b in 0..p.width {
                    let h = p.host_off + k * p.width + b;
                    let (row, col) = (h / r.row_bytes, h % r.row_bytes);
                    let d = p.dev_off + k * dev_pitch(r, p) + b;
                    assert_eq!(d, row * r.pitch + col, "piece {p:?}");
                    assert!(!seen[h], "byte {h} twice");
                    seen[h] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "a byte no piece copies");
    }

    #[test]
    fn pitched_rows_split_into_whole_rows() {
        // 513 f32 per row padded to 544: rows do not divide a slot evenly
        check(&rows(10_000, 513 * 4, 544 * 4));
        assert_eq!(pieces(&rows(10_000, 513 * 4, 544 * 4), SLOT_BYTES).len(), 2);
    }

    #[test]
    fn contiguous_rows_split_by_bytes() {
        check(&rows(3, 7 << 20, 7 << 20));
        assert_eq!(pieces(&rows(3, 7 << 20, 7 << 20), SLOT_BYTES).len(), 2);
    }

    #[test]
    fn streaming_copies_equal_plain_ones_at_every_alignment() {
        let src: Vec<u8> = (0..5000u32).map(|i| (i * 37 % 251) as u8).collect();
        for off in 0..17 {
            for len in [0, 1, 15, 16, 63, 64, 65, 200, 4000] {
                let mut dst = vec![0u8; len + off];
                stream_copy(&mut dst[off..], &src[3..3 + len]);
                assert_eq!(&dst[off..], &src[3..3 + len], "offset {off}, {len} bytes");
                assert!(dst[..off].iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn one_long_row_splits_by_bytes() {
        // a 1-D array: one row whose device pitch (guard bands) exceeds its bytes
        check(&rows(1, 40 << 20, (40 << 20) + 128));
        assert_eq!(
            pieces(&rows(1, 40 << 20, (40 << 20) + 128), SLOT_BYTES).len(),
            3
        );
    }

    #[test]
    fn pitched_rows_longer_than_a_slot_split_by_bytes_within_rows() {
        let r = rows(2, SLOT_BYTES + 4, SLOT_BYTES + 128);
        check(&r);
        assert_eq!(pieces(&r, SLOT_BYTES).len(), 4);
    }
}
