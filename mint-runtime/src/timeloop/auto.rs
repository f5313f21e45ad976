//! `#[mint::time_loop(block = auto)]` (issue #45): the depth chosen by timing the loop's
//! own first blocks, as the autotuner (`tune`) times a kernel's variants.
//!
//! On a GPU the loop's first launches try each depth of [`DEPTHS`] in turn: one launch
//! untimed (it compiles the fused kernel), then [`TIMED`] launches, each timed by the
//! host between two waits for the device, halo exchanges included where the region is
//! split. A depth at which the step cannot be fused is passed over. The depth with the
//! least time per step is kept for the rest of the process: later executions of the
//! loop, in this region or another, run at it without timing. `MINT_REPORT=1` prints
//! the choice and each depth's time per step. A region split over MPI ranks runs the loop
//! step by step: each rank would time its own launches and could choose another depth
//! than its neighbours, whose exchanges must match its own (`block = k` blocks there).
//!
//! Every depth gives the same bits (a fused launch equals the steps one by one), so the
//! tuning runs on the user's arrays and the loop's result does not depend on it. On the
//! CPU backend (and `cpu:N`) the loop runs step by step: its steps run one after the
//! other whatever the depth.

use std::sync::Mutex;
use std::time::Instant;

/// The depths tried, in order (odd, as every depth must be: [`super::TimeLoop::config`]).
pub const DEPTHS: [usize; 3] = [1, 3, 5];

/// The deepest of [`DEPTHS`]: the ghost planes a split region gives the loop's kernel
/// (`KernelSite::in_time_loop`) are this many times its reach.
pub const DEEPEST: u32 = 5;

/// Timed launches per depth, after the untimed first one.
pub const TIMED: usize = 3;

/// The tuning state of one `block = auto` loop (a `static` the macro writes per loop), or
/// of a `#[mint::time_loop]` with no `block` ([`AutoDepth::under_tune`]).
#[derive(Debug)]
pub struct AutoDepth {
    state: Mutex<State>,
    /// Written without `block`: tuned only where the loop's kernel is.
    under_tune: bool,
}

#[derive(Debug, Default)]
struct State {
    /// The index in [`DEPTHS`] being timed.
    trying: usize,
    /// Launches at it so far (the first untimed), and the timed ones' seconds and steps.
    launches: usize,
    secs: f64,
    steps: usize,
    /// Per depth tried: its seconds per step, or `None` where the step was not fused.
    per_step: Vec<(usize, Option<f64>)>,
    chosen: Option<usize>,
}

impl Default for AutoDepth {
    fn default() -> Self {
        Self::new()
    }
}

impl AutoDepth {
    /// Nothing tried yet: `block = auto`.
    pub const fn new() -> AutoDepth {
        Self::with(false)
    }

    const fn with(under_tune: bool) -> AutoDepth {
        AutoDepth {
            state: Mutex::new(State {
                trying: 0,
                launches: 0,
                secs: 0.0,
                steps: 0,
                per_step: Vec::new(),
                chosen: None,
            }),
            under_tune,
        }
    }

    /// `#[mint::time_loop]` with no `block`: `block = auto` where the loop's kernel is
    /// tuned (its `tune` option, or `MINT_TUNE=1`; not with `MINT_TUNE=0`), one step per
    /// launch otherwise. Which, [`AutoDepth::settle`] decides after the first launch,
    /// which runs one step either way.
    pub const fn under_tune() -> AutoDepth {
        Self::with(true)
    }

    /// After a launch of the loop's kernel, `tuned` saying whether it is tuned (asked only
    /// while the depth is open): a loop written without `block` whose kernel is not is
    /// settled at one step per launch, and the report line saying so is returned (once).
    pub(crate) fn settle(&self, tuned: impl FnOnce() -> bool) -> Option<String> {
        if !self.under_tune {
            return None;
        }
        let mut s = self.state();
        if s.chosen.is_some() || tuned() {
            return None;
        }
        s.chosen = Some(1);
        Some(
            "no `block` given and the kernel is not tuned: one step per launch (`tune`, \
             `MINT_TUNE=1` or `block = auto` times the depths; `block = k` fixes one)"
                .to_string(),
        )
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The depth chosen, once it is.
    pub fn chosen(&self) -> Option<usize> {
        self.state().chosen
    }

    /// The depth of the next launch, and whether it is timed.
    pub(crate) fn next(&self) -> (usize, bool) {
        let s = self.state();
        match s.chosen {
            Some(d) => (d, false),
            None => (DEPTHS[s.trying], s.launches > 0),
        }
    }

    /// A launch asked for `depth` (what [`AutoDepth::next`] gave) and ran `steps` steps,
    /// in `secs` when it was timed. Returns the report line once the depth is chosen.
    pub(crate) fn record(&self, depth: usize, steps: usize, secs: Option<f64>) -> Option<String> {
        let mut s = self.state();
        if s.chosen.is_some() || DEPTHS[s.trying] != depth {
            return None;
        }
        if steps != depth {
            // the step is not fused at this depth
            s.per_step.push((depth, None));
            s.advance();
        } else {
            s.launches += 1;
            if let Some(t) = secs {
                s.secs += t;
                s.steps += steps;
            }
            if s.launches > TIMED {
                let per = s.secs / s.steps.max(1) as f64;
                s.per_step.push((depth, Some(per)));
                s.advance();
            }
        }
        let d = s.chosen?;
        let times: Vec<String> = s
            .per_step
            .iter()
            .map(|(k, t)| match t {
                Some(t) => format!("{k}: {:.3} ms", t * 1e3),
                None => format!("{k}: not fused"),
            })
            .collect();
        Some(format!(
            "block = auto chose {d} step(s) per launch (time per step at each depth, {})",
            times.join(", ")
        ))
    }
}

impl State {
    /// On to the next depth, or the choice after the last.
    fn advance(&mut self) {
        (self.launches, self.secs, self.steps) = (0, 0.0, 0);
        self.trying += 1;
        if self.trying == DEPTHS.len() {
            self.trying = 0;
            self.chosen = self
                .per_step
                .iter()
                .filter_map(|&(d, t)| t.map(|t| (d, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(d, _)| d)
                .or(Some(1));
        }
    }
}

/// A timed launch in flight: when it started.
#[derive(Debug)]
pub(crate) struct Pending {
    pub depth: usize,
    pub start: Option<Instant>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the tuner a time per step for each depth: it passes over a depth that is
    /// not fused, ignores the untimed launch, and keeps the least time per step.
    fn tune(per_step: &[(usize, Option<f64>)]) -> usize {
        let a = AutoDepth::new();
        while a.chosen().is_none() {
            let (d, timed) = a.next();
            let t = per_step.iter().find(|p| p.0 == d).expect("a depth fed").1;
            match t {
                None => {
                    a.record(d, 1, None);
                }
                // the untimed launch takes 100 times longer (a compilation)
                Some(t) => {
                    let secs = if timed { t * d as f64 } else { 100.0 * t };
                    a.record(d, d, timed.then_some(secs));
                }
            }
        }
        a.chosen().expect("chosen")
    }

    #[test]
    fn the_depth_with_the_least_time_per_step_is_kept() {
        assert_eq!(tune(&[(1, Some(1.0)), (3, Some(0.6)), (5, Some(0.7))]), 3);
        assert_eq!(tune(&[(1, Some(1.0)), (3, Some(1.2)), (5, Some(1.1))]), 1);
        assert_eq!(tune(&[(1, Some(1.0)), (3, None), (5, Some(0.9))]), 5);
        assert_eq!(tune(&[(1, Some(1.0)), (3, None), (5, None)]), 1);
    }

    #[test]
    fn no_block_is_auto_only_for_a_tuned_kernel() {
        // not tuned: settled at one step after the first launch, reported once
        let a = AutoDepth::under_tune();
        assert_eq!(a.next(), (1, false));
        assert!(a.settle(|| false).is_some());
        assert!(a.settle(|| false).is_none());
        assert_eq!((a.chosen(), a.next()), (Some(1), (1, false)));
        // tuned: the same timing as `block = auto`
        let a = AutoDepth::under_tune();
        assert!(a.settle(|| true).is_none());
        a.record(1, 1, None);
        assert_eq!((a.chosen(), a.next()), (None, (1, true)));
        // `block = auto` is never settled by the kernel's options
        let a = AutoDepth::new();
        assert!(a.settle(|| false).is_none());
        assert_eq!(a.chosen(), None);
    }

    #[test]
    fn a_launch_at_another_depth_is_not_counted() {
        let a = AutoDepth::new();
        // a record for depth 3 while depth 1 is tried is ignored: depth 1's first launch,
        // the untimed one, is still to come
        assert!(a.record(3, 3, Some(1.0)).is_none());
        assert_eq!(a.next(), (1, false));
        a.record(1, 1, None);
        assert_eq!(a.next(), (1, true));
    }
}
