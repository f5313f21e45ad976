//! A blocked time loop whose step is several kernels (issue #45): the blocks of steps a
//! region runs between two halo exchanges on several devices ([`crate::split`]'s
//! `steps`). On one device such a loop runs step by step: its kernels are not fused into
//! one launch.

use crate::site::{KernelSite, RegionInfo};
use crate::split::Split;
use crate::split::steps::group_sites;

/// The step's kernels of a loop, each as its site's address and its reach along the
/// slowest axis ([`crate::split::steps::Block::kernels`]).
type StepKernels = Vec<(usize, usize)>;

/// What a region keeps of its time loops of several kernels per step.
#[derive(Debug, Default)]
pub(crate) struct Steps {
    /// Steps left in the block in progress, the current one included (0: none).
    left: usize,
    /// Per loop (its group number): the step's kernels with their reaches where blocks
    /// run, `None` where the loop runs step by step; decided at the loop's first step.
    decided: Vec<(u32, Option<StepKernels>)>,
}

impl Steps {
    /// Before a step of loop `group` of `info`, blocked `depth` steps deep, with `left`
    /// steps to go: on several devices, starts a block of `depth` steps (fewer at the
    /// loop's end) where the loop allows one, or moves to the block's next step.
    pub(crate) fn begin(
        &mut self,
        info: &'static RegionInfo,
        split: Option<&mut Split>,
        (depth, left, group): (usize, usize, u32),
    ) {
        let sites = || group_sites(info, group);
        let Some(split) = split else {
            if !self.decided.iter().any(|d| d.0 == group) {
                self.decided.push((group, None));
                say(
                    &sites(),
                    "runs step by step on one device (the kernels of a step are not fused into one launch; on several devices a block of steps exchanges halos once)",
                );
            }
            return;
        };
        if self.left > 0 {
            split.next_step();
            return;
        }
        let kernels = match self.decided.iter().find(|d| d.0 == group) {
            Some(d) => d.1.clone(),
            None => {
                let s = sites();
                let how = if depth <= 1 {
                    Err("one step per block".to_string())
                } else {
                    split.step_kernels(&s, depth)
                };
                match &how {
                    Ok(k) => say(
                        &s,
                        &format!(
                            "{depth} steps of {} kernels between two halo exchanges on each device",
                            k.len()
                        ),
                    ),
                    Err(why) => say(&s, &format!("runs step by step: {why}")),
                }
                self.decided.push((group, how.clone().ok()));
                how.ok()
            }
        };
        match kernels {
            Some(k) => {
                let n = depth.min(left).max(1);
                self.left = n;
                split.set_block(Some((n, k)));
            }
            None => split.set_block(None),
        }
    }

    /// After a step: the block ends with its last step. Returns the steps run: 1.
    pub(crate) fn end(&mut self, split: Option<&mut Split>) -> usize {
        if self.left > 0 {
            self.left -= 1;
            if self.left == 0
                && let Some(s) = split
            {
                s.set_block(None);
            }
        }
        1
    }
}

/// The report line of a loop, under its first kernel's name and place.
fn say(sites: &[&'static KernelSite], what: &str) {
    if let Some(first) = sites.first() {
        let names: Vec<&str> = sites.iter().map(|s| s.name).collect();
        super::say(first, &format!("{} ({})", what, names.join(", ")));
    }
}
