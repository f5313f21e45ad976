//! What the autotuner tells a user while it searches: a kernel's first launch on a GPU
//! with `tune` runs its candidates for seconds, and a program that says nothing meanwhile
//! looks hung. On a terminal each kernel's search is a progress bar (`indicatif`) that
//! clears itself; in a log (standard error not a terminal) it is one line when the search
//! starts and one when it ends. `MINT_QUIET=1` silences both.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// One kernel's search.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    kernel: String,
    log: bool,
    t0: Instant,
}

impl Progress {
    /// The search of `kernel` over `extents` points with `candidates` candidates starts.
    pub(crate) fn start(kernel: &str, extents: &[i64], candidates: usize) -> Progress {
        let quiet = std::env::var_os("MINT_QUIET").is_some();
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let b = ProgressBar::new(candidates as u64);
            b.set_style(
                ProgressStyle::with_template(
                    "mint: tuning {msg} [{bar:30}] {pos}/{len} candidates, {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b.set_message(kernel.to_string());
            b
        });
        let log = !quiet && !terminal;
        if log {
            eprintln!(
                "mint: tuning `{kernel}` at {extents:?} points: {candidates} candidates (once per kernel, shape and GPU; the choice is stored for later runs)"
            );
        }
        Progress {
            bar,
            kernel: kernel.to_string(),
            log,
            t0: Instant::now(),
        }
    }

    /// One more candidate ran.
    pub(crate) fn tick(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// `more` candidates were added to the search (its second round).
    pub(crate) fn grow(&self, more: usize) {
        if let Some(b) = &self.bar {
            b.inc_length(more as u64);
        }
    }

    /// The search ended with `choice`, `speedup` times as fast as the kernel as written.
    pub(crate) fn finish(&self, choice: &str, speedup: f64) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if self.log {
            eprintln!(
                "mint: tuned `{}` in {:.1} s: `{choice}`, {speedup:.2}x the kernel as written",
                self.kernel,
                self.t0.elapsed().as_secs_f64()
            );
        }
    }
}
