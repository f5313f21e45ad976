//! Per-kernel launch counts and times (CUDA events on one GPU, the host over several), and
//! `MINT_REPORT`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// What one kernel did in this process so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelStats {
    /// The kernel's name, `module::<fn>_<index>`.
    pub kernel: String,
    /// `file:line` of its loop nest.
    pub location: String,
    pub launches: u64,
    /// Launches timed while timing is on: every launch on one GPU (CUDA events); over
    /// several GPUs, every launch that waits for them (not `nowait`), timed on the host.
    pub timed_launches: u64,
    /// Time of the timed launches, in seconds: device time on one GPU; over several GPUs
    /// the host's, from before the launch's halo exchange to the end of its slowest GPU
    /// (a first launch's compilation and tuning included).
    pub device_seconds: f64,
    /// Points (loop iterations) of the timed launches.
    pub points: f64,
    /// Compulsory bytes of the timed launches: each array read once and written once.
    pub bytes: f64,
    /// Time of each timed launch, in seconds, in launch order (at most
    /// `MAX_SAMPLES` are kept).
    pub samples: Vec<f64>,
}

/// Per-kernel launch times kept in [`KernelStats::samples`].
pub const MAX_SAMPLES: usize = 100_000;

impl KernelStats {
    /// Mean time per timed launch, in seconds ([`KernelStats::device_seconds`]).
    pub fn seconds_per_launch(&self) -> f64 {
        self.device_seconds / self.timed_launches.max(1) as f64
    }
    /// Effective bandwidth of the timed launches, in bytes per second.
    pub fn effective_bandwidth(&self) -> f64 {
        if self.device_seconds > 0.0 {
            self.bytes / self.device_seconds
        } else {
            0.0
        }
    }
}

static STATS: Mutex<BTreeMap<String, KernelStats>> = Mutex::new(BTreeMap::new());
static TIMING: AtomicBool = AtomicBool::new(false);
/// 0 = not read yet, 1 = off, 2 = on.
static REPORT: AtomicU8 = AtomicU8::new(0);

/// Whether `MINT_REPORT` is set (to anything but `0`).
pub fn report_enabled() -> bool {
    match REPORT.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var("MINT_REPORT").is_ok_and(|v| !v.is_empty() && v != "0");
            REPORT.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
        v => v == 2,
    }
}

/// Whether `key` is new to this process: a report line keyed by it is printed once per
/// process, not at every call of the region that decides it again.
pub(crate) fn report_once(key: String) -> bool {
    static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    SEEN.lock().unwrap_or_else(|p| p.into_inner()).insert(key)
}

/// Times every CUDA launch from now on (`on = true`) or stops: on one GPU with CUDA events
/// (two event records per launch), over several GPUs on the host, each launch that waits
/// for its GPUs (see [`KernelStats::device_seconds`]). `MINT_REPORT=1` turns it on.
pub fn set_timing(on: bool) {
    TIMING.store(on, Ordering::Relaxed);
}

/// Whether launches are being timed.
pub fn timing_enabled() -> bool {
    TIMING.load(Ordering::Relaxed) || report_enabled()
}

/// The statistics of every kernel launched so far, by name.
pub fn kernel_stats() -> Vec<KernelStats> {
    STATS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .values()
        .cloned()
        .collect()
}

/// The statistics of one kernel, by its name (`<fn>_<index>`, or the qualified
/// `module::<fn>_<index>`; the first match in name order when several modules have it).
pub fn kernel_stat(kernel: &str) -> Option<KernelStats> {
    let m = STATS.lock().unwrap_or_else(|p| p.into_inner());
    m.get(kernel).cloned().or_else(|| {
        m.values()
            .find(|s| s.kernel.rsplit("::").next() == Some(kernel))
            .cloned()
    })
}

/// Forgets all statistics: the kernels' and the transfers' ([`transfer_stats`]).
pub fn reset_kernel_stats() {
    STATS.lock().unwrap_or_else(|p| p.into_inner()).clear();
    *TRANSFERS.lock().unwrap_or_else(|p| p.into_inner()) = TransferStats::default();
}

/// Host↔device copies so far: `copy!` (with the scatters and gathers of several
/// devices) and the arrays of hand-written kernels. Seconds are host wall time from the
/// moment the device has finished the work queued before the copy to the copy's end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TransferStats {
    pub to_device_copies: u64,
    pub to_device_bytes: f64,
    pub to_device_seconds: f64,
    pub from_device_copies: u64,
    pub from_device_bytes: f64,
    pub from_device_seconds: f64,
}

impl TransferStats {
    /// Bytes per second host to device (0 before the first copy).
    pub fn to_device_rate(&self) -> f64 {
        if self.to_device_seconds > 0.0 {
            self.to_device_bytes / self.to_device_seconds
        } else {
            0.0
        }
    }
    /// Bytes per second device to host (0 before the first copy).
    pub fn from_device_rate(&self) -> f64 {
        if self.from_device_seconds > 0.0 {
            self.from_device_bytes / self.from_device_seconds
        } else {
            0.0
        }
    }
}

static TRANSFERS: Mutex<TransferStats> = Mutex::new(TransferStats {
    to_device_copies: 0,
    to_device_bytes: 0.0,
    to_device_seconds: 0.0,
    from_device_copies: 0,
    from_device_bytes: 0.0,
    from_device_seconds: 0.0,
});

/// The host↔device copies since the start or the last [`reset_kernel_stats`].
pub fn transfer_stats() -> TransferStats {
    *TRANSFERS.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn record_transfer(to_device: bool, bytes: usize, seconds: f64) {
    let mut t = TRANSFERS.lock().unwrap_or_else(|p| p.into_inner());
    if to_device {
        t.to_device_copies += 1;
        t.to_device_bytes += bytes as f64;
        t.to_device_seconds += seconds;
    } else {
        t.from_device_copies += 1;
        t.from_device_bytes += bytes as f64;
        t.from_device_seconds += seconds;
    }
}

/// Halo exchanges per region name.
static HALOS: Mutex<BTreeMap<&'static str, u64>> = Mutex::new(BTreeMap::new());

/// How many halo exchanges the arrays of the regions named `region` (their function's
/// name; regions of one name in several modules count together) made since the program
/// started: one per array each time its ghost planes are refreshed
/// from their owners, on every device at once (several devices only). A blocked time
/// loop of depth `k` on several devices makes one every `k` steps where step by step
/// makes one every step (`#[mint::time_loop(block = k)]`).
pub fn halo_exchanges(region: &str) -> u64 {
    HALOS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(region)
        .copied()
        .unwrap_or(0)
}

pub(crate) fn record_halo_exchange(region: &'static str) {
    *HALOS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(region)
        .or_insert(0) += 1;
}

/// Counts a launch of `kernel` (its `file:line` from `location`, asked for only on the
/// kernel's first launch: a launch allocates nothing here).
pub(crate) fn record_launch(kernel: &str, location: impl FnOnce() -> String) {
    let mut m = STATS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = m.get_mut(kernel) {
        e.launches += 1;
        return;
    }
    m.insert(
        kernel.to_string(),
        KernelStats {
            kernel: kernel.to_string(),
            location: location(),
            launches: 1,
            ..Default::default()
        },
    );
}

pub(crate) fn record_time(kernel: &str, seconds: f64, points: f64, bytes: f64) {
    let mut m = STATS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = m.get_mut(kernel) {
        e.timed_launches += 1;
        e.device_seconds += seconds;
        e.points += points;
        e.bytes += bytes;
        if e.samples.len() < MAX_SAMPLES {
            e.samples.push(seconds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::report_once;

    #[test]
    fn a_report_key_is_new_once() {
        let key = "stats::tests::a_report_key_is_new_once".to_string();
        assert!(report_once(key.clone()));
        assert!(!report_once(key.clone()));
        assert!(report_once(key + " other"));
    }
}
