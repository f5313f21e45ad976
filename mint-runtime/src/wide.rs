//! The vector width of the CPU backend's rows (issue #42). The generated code holds each
//! kernel's rows three times: compiled for the target's baseline (SSE2 on x86-64), for
//! AVX2 and FMA, and for AVX-512 (F, VL, BW, DQ). [`level`] says which this CPU runs.
//! Where it runs both wide copies, neither wins everywhere: measured on a 2-core AMD EPYC
//! (f32, 2 threads), AVX-512 ran the cardiac model 1.6× faster and the
//! radius-4 star 1.2× slower than AVX2. So each kernel times both on its first planes
//! ([`WideChoice`]) and keeps the faster. Results are the same bits whichever copy runs:
//! Rust neither contracts `a * b + c` into a fused multiply-add nor reassociates, whatever
//! the instruction set; only the vector width differs.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// The widest copy of a kernel's rows this CPU runs, detected once per process: 0 the
/// baseline, 1 AVX2 and FMA, 2 AVX-512 too, chosen per kernel by [`WideChoice`], 3 AVX-512
/// for every kernel. `MINT_CPU_WIDE=0` keeps the baseline, `MINT_CPU_WIDE=256` stops at
/// AVX2, `MINT_CPU_WIDE=512` asks for AVX-512 on every kernel (without timing), each
/// where the CPU has it; unset (or anything else), the widest the CPU has, AVX-512
/// chosen per kernel.
pub fn level() -> u8 {
    static LEVEL: OnceLock<u8> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let asked = std::env::var("MINT_CPU_WIDE").unwrap_or_default();
        match (detect(), asked.trim()) {
            (_, "0") => 0,
            (d, "256") => d.min(1),
            (2, "512") => 3,
            (d, _) => d,
        }
    })
}

#[cfg(target_arch = "x86_64")]
fn detect() -> u8 {
    use std::arch::is_x86_feature_detected as has;
    if !(has!("avx2") && has!("fma")) {
        0
    } else if has!("avx512f") && has!("avx512vl") && has!("avx512bw") && has!("avx512dq") {
        2
    } else {
        1
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> u8 {
    0
}

/// Calls of a kernel's rows timed per wide copy before it keeps one.
const SAMPLES: usize = 24;
/// The timed calls run in blocks of this many consecutive calls of one copy, of which
/// only the second half is timed: the first calls after a switch run while the core
/// changes its AVX-512 frequency license, which made the AVX-512 copy look slower per
/// call than it runs in a row (the cardiac model in `f32`: AVX2 kept, and 1.2× slower).
const BLOCK: u64 = 8;
/// The first calls, which run untimed (cold caches, the first touch of the arrays).
const WARMUP: u64 = 16;

/// Per kernel and element size (in each `KernelSite`): which wide copy of its rows runs
/// where the CPU has both. After 16 calls untimed (one call: a plane of a 3-D kernel, a
/// chunk of rows of a 2-D one), its next `4 × 24` calls alternate the AVX2 and the
/// AVX-512 copy in blocks of 8, the last 4 of each block timed; then it keeps the copy
/// whose median call was faster, for the rest of the process. The median, not the sum,
/// since another process on the cores slows some calls.
#[derive(Debug)]
pub struct WideChoice {
    /// Calls handed out so far, while timing.
    calls: AtomicU64,
    /// The timed calls' nanoseconds, per copy (AVX2, AVX-512).
    ns: Mutex<[Vec<u64>; 2]>,
    /// 0 while timing, then 1 + the copy kept.
    kept: AtomicU8,
}

impl Default for WideChoice {
    fn default() -> Self {
        Self::new()
    }
}

impl WideChoice {
    /// Nothing timed yet.
    pub const fn new() -> WideChoice {
        WideChoice {
            calls: AtomicU64::new(0),
            ns: Mutex::new([Vec::new(), Vec::new()]),
            kept: AtomicU8::new(0),
        }
    }

    /// The copy the next call runs (0 AVX2, 1 AVX-512) and whether to time it
    /// ([`Self::record`]). The warm-up calls, and further calls while the last timed ones
    /// are still running, run the AVX2 copy untimed.
    pub fn pick(&self) -> (usize, bool) {
        match self.kept.load(Relaxed) {
            0 => {}
            k => return (usize::from(k - 1), false),
        }
        let c = self.calls.fetch_add(1, Relaxed);
        match c.checked_sub(WARMUP) {
            Some(t) if t < 4 * SAMPLES as u64 => ((t / BLOCK % 2) as usize, t % BLOCK >= BLOCK / 2),
            _ => (0, false),
        }
    }

    /// A timed call of `copy` took `ns` nanoseconds; the last of the timed calls keeps
    /// the copy with the faster median and returns it with the medians (AVX2, AVX-512).
    pub fn record(&self, copy: usize, ns: u64) -> Option<(usize, [u64; 2])> {
        let mut all = self.ns.lock().unwrap_or_else(|p| p.into_inner());
        all[copy].push(ns);
        if all[0].len() + all[1].len() != 2 * SAMPLES {
            return None;
        }
        let median = |v: &mut Vec<u64>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        let m = [median(&mut all[0]), median(&mut all[1])];
        let faster = usize::from(m[1] < m[0]);
        self.kept.store(1 + faster as u8, Relaxed);
        Some((faster, m))
    }

    /// The copy kept (0 AVX2, 1 AVX-512), once the timing is over.
    #[cfg(test)]
    pub fn kept(&self) -> Option<usize> {
        match self.kept.load(Relaxed) {
            0 => None,
            k => Some(usize::from(k - 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After the warm-up, the choice alternates the copies in blocks of 8 calls, times
    /// the last 4 of each block (24 calls of each copy), and keeps the one whose median
    /// call was faster, whichever it is.
    #[test]
    fn the_faster_copy_is_kept() {
        for (avx2_ns, avx512_ns, want) in [(100, 60, 1), (60, 100, 0), (80, 80, 0)] {
            let w = WideChoice::new();
            for _ in 0..WARMUP {
                assert_eq!(w.pick(), (0, false));
            }
            let mut seen = [0; 2];
            for t in 0..4 * SAMPLES as u64 {
                assert_eq!(w.kept(), None);
                let (copy, timed) = w.pick();
                assert_eq!(copy as u64, t / BLOCK % 2, "call {t}");
                assert_eq!(timed, t % BLOCK >= BLOCK / 2, "call {t}");
                if !timed {
                    continue;
                }
                seen[copy] += 1;
                // a few slow calls of the faster copy change nothing
                let slow = if seen[copy] % 8 == 3 { 1000 } else { 0 };
                w.record(copy, slow + if copy == 0 { avx2_ns } else { avx512_ns });
            }
            assert_eq!(seen, [SAMPLES; 2]);
            assert_eq!(w.kept(), Some(want));
            assert_eq!(w.pick(), (want, false));
        }
    }

    /// Calls handed out after the timed ones, before those finish, run AVX2 untimed.
    #[test]
    fn calls_while_the_timing_finishes_run_avx2() {
        let w = WideChoice::new();
        for _ in 0..WARMUP {
            w.pick();
        }
        let picks: Vec<_> = (0..4 * SAMPLES as u64).map(|_| w.pick()).collect();
        assert_eq!(w.pick(), (0, false));
        for (copy, timed) in picks {
            if timed {
                w.record(copy, if copy == 1 { 1 } else { 2 });
            }
        }
        assert_eq!(w.pick(), (1, false));
    }
}
