//! The model that picks a streamed run's slab count (Visschers Sec. 6.4): a pipeline of
//! stages timed on the first slab.

/// One stage of the pipeline: its seconds per owned plane of a slab, and per slab (the
/// ghost planes' copies).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stage {
    pub per_plane: f64,
    pub per_slab: f64,
}

/// What slabs cost, from the timed first slab: the model's input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Costs {
    /// The stages, each on its own engine (host cores, copy engines, multiprocessors).
    pub stages: Vec<Stage>,
    /// Seconds per slab the host spends enqueueing its copies and launches.
    pub overhead: f64,
}

/// The model: seconds for `planes` planes cut into `slabs` equal slabs. A pipeline: the
/// first slab passes every stage, each further one adds the slowest (Visschers Sec. 6.4,
/// with the stages overlapped as in his Fig. 6.3), plus the host's overhead per slab.
pub fn model_seconds(planes: usize, slabs: usize, c: &Costs) -> f64 {
    if planes == 0 || slabs == 0 {
        return 0.0;
    }
    let n = planes as f64 / slabs as f64;
    let t: Vec<f64> = c
        .stages
        .iter()
        .map(|s| n * s.per_plane + s.per_slab)
        .collect();
    let sum: f64 = t.iter().sum();
    let max = t.iter().cloned().fold(0.0, f64::max);
    sum + (slabs - 1) as f64 * max + slabs as f64 * c.overhead
}

/// The slab count in `lo..=hi` the model gives the least time.
pub fn best_slabs(planes: usize, lo: usize, hi: usize, c: &Costs) -> usize {
    (lo.max(1)..=hi.max(lo.max(1)))
        .min_by(|&a, &b| model_seconds(planes, a, c).total_cmp(&model_seconds(planes, b, c)))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages(p: &[f64]) -> Vec<Stage> {
        p.iter()
            .map(|&per_plane| Stage {
                per_plane,
                per_slab: 0.0,
            })
            .collect()
    }

    #[test]
    fn the_model_is_a_pipeline_of_four_stages() {
        let mut c = Costs {
            stages: stages(&[1.0, 2.0, 3.0, 1.0]),
            overhead: 0.0,
        };
        // one slab: the sum of the stages
        assert_eq!(model_seconds(10, 1, &c), 70.0);
        // ten slabs of one plane: 7 for the first, 3 (kernels) for each other
        assert_eq!(model_seconds(10, 10, &c), 7.0 + 9.0 * 3.0);
        // ghost planes cost copy-in on every slab, and make it the slowest stage
        c.stages[1].per_slab = 4.0;
        assert_eq!(model_seconds(10, 10, &c), 1.0 + 6.0 + 3.0 + 1.0 + 9.0 * 6.0);
    }

    #[test]
    fn the_model_trades_fill_time_against_overhead() {
        let mut c = Costs {
            stages: stages(&[1e-3, 1e-3, 1e-3]),
            overhead: 0.0,
        };
        // no overhead: as many slabs as allowed
        assert_eq!(best_slabs(100, 1, 50, &c), 50);
        // an overhead of a plane's time per slab: the optimum is near sqrt(2 * 100)
        c.overhead = 1e-3;
        let n = best_slabs(100, 1, 100, &c);
        assert!((10..=18).contains(&n), "{n}");
        // the lower bound (memory) wins when the optimum is below it
        assert_eq!(best_slabs(100, 40, 100, &c), 40);
        // ghosts cost a slab what five planes do: fewer slabs
        c.stages[0].per_slab = 5e-3;
        assert!(best_slabs(100, 1, 100, &c) < n);
    }
}
