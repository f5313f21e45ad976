//! Blocked time loops (`#[mint::time_loop(block = k)]`, issue #45): the state a region
//! keeps while the loop runs, and the configuration of a fused launch.
//!
//! The macro runs the loop's body once per launch: before it, [`TimeLoop::begin`] asks
//! for `k` steps (fewer near the end: the loop's last step always runs alone, so that
//! both ping-pong arrays end as the unblocked loop leaves them); the body's kernel launch
//! then runs `k` steps in one fused kernel when the step can be blocked
//! ([`mint_translator::optimizer::temporal`]) and one step otherwise; after the body's
//! swap, [`TimeLoop::end`] says how many steps ran. Whether a kernel is fused is decided
//! at the loop's first launch of it and kept; `MINT_REPORT=1` says then which it is and
//! why.

pub mod auto;
pub(crate) mod steps;

use crate::site::KernelSite;
use crate::stats;
use mint_translator::ir::Kernel;
use mint_translator::tune::Candidate;

/// The time loop a region is in, if any.
#[derive(Debug, Default)]
pub(crate) struct TimeLoop {
    /// Steps the current iteration asks for (0 or 1: one).
    request: usize,
    /// The slots each of the loop's swaps exchanges: the input and output of a fused
    /// launch, and the pairs it carries at its point.
    swaps: Vec<(usize, usize)>,
    /// Steps the iteration's launch ran.
    done: usize,
    /// Per kernel site and depth, decided at the loop's first launch of it.
    decided: Vec<Decided>,
    /// The steps left at the latest iteration, and the number of the loop's execution: a
    /// new one begins where the steps left do not fall.
    last_left: usize,
    execution: u64,
}

/// A step that can be blocked: the fused launch's configuration, and what
/// [`mint_translator::optimizer::temporal::check`] found (the kernel's array each step
/// writes, and the input's reach along x, y, z), kept with the decision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fused {
    pub c: Candidate,
    pub output: usize,
    pub reach: [u32; 3],
}

impl Fused {
    /// The kernel's array each step reads.
    pub(crate) fn input(&self) -> usize {
        usize::from(self.c.options.time_input)
    }

    /// The kernel's arrays that trade places at every step, `(read, written)`: the input
    /// and output first, then the pairs the step carries at its point.
    pub(crate) fn pairs(&self) -> Vec<(usize, usize)> {
        let mut p = vec![(self.input(), self.output)];
        p.extend(self.c.options.carried());
        p
    }
}

/// How a kernel site's loop runs at one depth.
#[derive(Debug)]
struct Decided {
    /// The site's address.
    site: usize,
    depth: usize,
    /// The fused launch's configuration, or `None`: step by step.
    fused: Option<Fused>,
    /// Whether `MINT_REPORT=1` has said so: at once for step by step, after the first
    /// fused launch for a fused one (whose kernel may still turn out not to translate).
    said: bool,
}

impl TimeLoop {
    /// Before an iteration with `left` steps to go: ask for `depth` steps, if more than
    /// `depth` remain (the last step runs alone).
    pub(crate) fn begin(&mut self, depth: usize, left: usize, swaps: &[(usize, usize)]) {
        if self.last_left == 0 || left >= self.last_left {
            self.execution += 1;
        }
        self.last_left = left;
        self.request = if depth > 1 && left > depth { depth } else { 1 };
        if self.swaps != swaps {
            self.swaps = swaps.to_vec();
        }
        self.done = 1;
    }

    /// After the iteration: the steps it ran (at least 1).
    pub(crate) fn end(&mut self) -> usize {
        let d = self.done.max(1);
        (self.request, self.done) = (0, 1);
        d
    }

    /// The number of the loop execution the region is in (1 for its first blocked loop's
    /// first execution; a new number each time a blocked loop starts over).
    pub(crate) fn execution(&self) -> u64 {
        self.execution
    }

    /// The depth asked for, when above one step.
    pub(crate) fn requested(&self) -> Option<usize> {
        (self.request > 1).then_some(self.request)
    }

    /// The launch of `site` ran `steps` fused steps (`on_cpu`: one after the other on
    /// emulated devices, between two halo exchanges); the first such launch of the loop
    /// says how it runs (`MINT_REPORT=1`).
    pub(crate) fn ran(&mut self, site: &KernelSite, steps: usize, on_cpu: bool) {
        self.done = steps;
        let (key, depth) = (site as *const KernelSite as usize, self.request);
        if let Some(d) = self
            .decided
            .iter_mut()
            .find(|d| d.site == key && d.depth == depth && !d.said)
            && let Some(Fused { c, .. }) = d.fused
        {
            d.said = true;
            if on_cpu {
                return say(
                    site,
                    &format!(
                        "{steps} steps between two halo exchanges on each emulated device, one after the other"
                    ),
                );
            }
            // a 2-D step's tile is one row, its planes the grid's rows
            let flat = site.kernel().is_ok_and(|k| k.nest.len() == 2);
            let (threads_y, rows, planes) = match flat {
                true => (1, 1, c.tile[1]),
                false => (c.tile[1] / c.chunk[1].max(1), c.chunk[1], c.tile[2]),
            };
            say(
                site,
                &format!(
                    "{} steps per launch, {}x{threads_y} threads per block, {rows} row(s) each, {planes} planes",
                    c.options.time_block, c.tile[0],
                ),
            );
        }
    }

    /// The configuration of a launch of `site` fusing the requested steps, where
    /// `slots` are the slots of the kernel's arrays; `Err(why)` where the step cannot be
    /// blocked. `shared_bytes`: the device's opt-in shared memory per block.
    pub(crate) fn config(
        &self,
        kernel: &Kernel,
        slots: &[usize],
        shared_bytes: u32,
    ) -> Result<Fused, String> {
        let depth = self.request;
        if depth.is_multiple_of(2) {
            return Err(format!("block = {depth} is even; the depth is odd"));
        }
        let pairs = self.pairs(kernel, slots)?;
        let b = mint_translator::optimizer::temporal::check_pairs(kernel, &pairs)?;
        let elem = kernel.arrays[b.input].elem.size_bytes();
        let block = tile(kernel.nest.len(), depth as u32, b.reach, elem, shared_bytes)?;
        let c =
            Candidate::time_blocked(kernel, b.input, depth as u32, block)?.carrying(&b.carried)?;
        Ok(Fused {
            c,
            output: b.output,
            reach: b.reach,
        })
    }

    /// The loop's swaps as the kernel's arrays, `(read, written)`, where `slots` are the
    /// slots of its arrays: each swap must exchange an array the kernel reads and only
    /// reads with one it writes.
    fn pairs(&self, kernel: &Kernel, slots: &[usize]) -> Result<Vec<(usize, usize)>, String> {
        let find = |slot: usize| (0..slots.len()).find(|&i| slots[i] == slot);
        let mut pairs = Vec::new();
        for &(a, b) in &self.swaps {
            let pair = match (find(a), find(b)) {
                (Some(i), Some(j)) => match (kernel.arrays[i].written, kernel.arrays[j].written) {
                    (false, true) => (i, j),
                    (true, false) => (j, i),
                    (w, _) => {
                        return Err(format!(
                            "the kernel {} both `{}` and `{}`, which the loop swaps: a blocked step reads one array of each swap and writes the other",
                            if w { "writes" } else { "only reads" },
                            kernel.arrays[i].name,
                            kernel.arrays[j].name
                        ));
                    }
                },
                (Some(i), None) | (None, Some(i)) => {
                    return Err(format!(
                        "the kernel uses `{}` but not the array the loop swaps it with",
                        kernel.arrays[i].name
                    ));
                }
                (None, None) => {
                    return Err("the kernel uses neither array of one of the loop's swaps".into());
                }
            };
            pairs.push(pair);
        }
        Ok(pairs)
    }

    /// What was decided for `site` at the requested depth, if it was.
    pub(crate) fn decision(&self, site: &KernelSite) -> Option<Option<Fused>> {
        let key = site as *const KernelSite as usize;
        self.decided
            .iter()
            .find(|d| d.site == key && d.depth == self.request)
            .map(|d| d.fused)
    }

    /// Records how `site`'s loop runs at the requested depth (`Err(why)`: step by step,
    /// said at once under `MINT_REPORT=1`; a fused one is said by [`Self::ran`]); returns
    /// the fused launch's configuration.
    pub(crate) fn decide(
        &mut self,
        site: &KernelSite,
        how: Result<Fused, String>,
    ) -> Option<Fused> {
        let key = site as *const KernelSite as usize;
        if let Err(why) = &how {
            say(site, &format!("runs step by step: {why}"));
        }
        let fused = how.ok();
        let depth = self.request;
        self.decided
            .retain(|d| !(d.site == key && d.depth == depth));
        self.decided.push(Decided {
            site: key,
            depth,
            fused,
            said: fused.is_none(),
        });
        fused
    }
}

/// `mint report: time loop of <kernel> at <file:line>: <what>` under `MINT_REPORT=1`,
/// once per process ([`stats::report_once`]): a region decides how its loops run at each
/// call.
pub(crate) fn say(site: &KernelSite, what: &str) {
    if stats::report_enabled() {
        let line = format!(
            "mint report: time loop of {} at {}: {what}",
            site.name,
            site.location()
        );
        if stats::report_once(line.clone()) {
            eprintln!("{line}");
        }
    }
}

/// The block of a fused launch: `x × y` threads, the output planes per block, and the
/// tile rows per thread (the tile with its ghost cells is `x × y·rows`);
/// `MINT_TIME_TILE=x,y,z[,rows]` sets it, and by default
/// `mint_translator::optimizer::temporal::default_tile` chooses it for the device's
/// shared memory. `Err(why)` for a malformed `MINT_TIME_TILE` (the loop then runs step by
/// step, and the report says why).
fn tile(
    dims: usize,
    depth: u32,
    reach: [u32; 3],
    elem_bytes: u32,
    shared_bytes: u32,
) -> Result<[u32; 4], String> {
    match std::env::var("MINT_TIME_TILE") {
        Ok(v) => parse_tile(&v),
        Err(_) => Ok(mint_translator::optimizer::temporal::default_tile(
            dims,
            depth,
            reach,
            elem_bytes,
            shared_bytes,
        )),
    }
}

/// `x,y,z` or `x,y,z,rows`, each a positive integer, as `[x, y, z, rows]`.
fn parse_tile(v: &str) -> Result<[u32; 4], String> {
    let bad = || format!("MINT_TIME_TILE={v:?} is not x,y,z or x,y,z,rows of positive integers");
    let n: Vec<u32> = v
        .split(',')
        .map(|s| s.trim().parse::<u32>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    match n[..] {
        [x, y, z] => Ok([x, y, z, 1]),
        [x, y, z, r] => Ok([x, y, z, r]),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_tile;

    #[test]
    fn time_tiles_parse_strictly() {
        assert_eq!(parse_tile("32,16,64"), Ok([32, 16, 64, 1]));
        assert_eq!(parse_tile(" 32, 16 ,64,2"), Ok([32, 16, 64, 2]));
        for bad in ["32,8,x,2", "32,8,64,0", "32,8", "32,8,64,2,1", ""] {
            let e = parse_tile(bad).unwrap_err();
            assert!(
                e.contains("MINT_TIME_TILE") && e.contains("positive integers"),
                "{bad}: {e}"
            );
        }
    }
}
