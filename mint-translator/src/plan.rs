//! The plan of a kernel's translation: the kind of kernel it becomes (baseline, staged or
//! vector) and every option decision, applied or not and why, recorded once
//! ([`Decision`]). The report's notes on the options are derived from that record
//! ([`KernelPlan::report`]), the passes (`crate::passes`) read it, and `MINT_DUMP_AFTER`
//! shows it ([`KernelPlan::describe`]).
//!
//! Each option is decided here by one rule. Where an option shapes the lowering itself
//! (`pipeline`'s rings are sized before the ring path is built, `vectorize` and the
//! staging are the lowerings), the rule asks the optimizer for the facts it needs and
//! the lowering follows the plan; the options that change a lowered tree (`roll_z`,
//! `swizzle`) are passes that run where the record says they apply.

use crate::analyzer::{self, NearLimit};
use crate::baseline::config::LaunchConfig;
use crate::ir::Kernel;
use crate::optimizer::{self, unroll, vector};
use crate::report::Report;
use crate::target::{PIPELINE_MIN_CC, SWIZZLE_BAND_BLOCKS, Target};

/// An option whose decision the plan records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    /// Clamped, mirrored and wrapped subscripts split into their stencil points
    /// (`optimizer::faces`, on the loop IR before type checking).
    Faces,
    /// `unroll`: short serial loops unrolled, subscripts folded (thesis Sec. 5.4).
    Unroll,
    /// `vectorize`: the vector path (`optimizer::vector`).
    Vectorize,
    /// `pipeline`: shared-memory planes or rings filled by `cp.async`.
    Pipeline,
    /// `roll_z`: the vector path's z steps as a loop (`crate::passes::roll_z`).
    RollZ,
    /// `shared` and `register`: the staged kernel of shared planes and registers (thesis
    /// Sec. 5.6-5.8, `optimizer::chunk`).
    Staging,
    /// `same_index`: arrays of one shape share index variables (thesis Sec. 5.9).
    SameIndex,
    /// `swizzle`: the order the blocks run in (`crate::passes::swizzle`).
    Swizzle,
}

impl Opt {
    /// The option's name as the report writes it.
    pub fn name(self) -> &'static str {
        match self {
            Opt::Faces => "faces",
            Opt::Unroll => "unroll",
            Opt::Vectorize => "vectorize",
            Opt::Pipeline => "pipeline",
            Opt::RollZ => "roll_z",
            Opt::Staging => "shared/register",
            Opt::SameIndex => "same_index",
            Opt::Swizzle => "swizzle",
        }
    }
}

/// One option decision of a kernel's translation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The option decided.
    pub option: Opt,
    /// Whether it applies.
    pub applied: bool,
    /// What it does, or why it does not apply and what the kernel does instead.
    pub why: String,
    /// Whether the report has a note for it. An applied `pipeline` or `roll_z` is named
    /// by the report's level instead, and `same_index` without groups says nothing.
    pub noted: bool,
}

impl Decision {
    fn new(option: Opt, applied: bool, why: impl Into<String>, noted: bool) -> Decision {
        Decision {
            option,
            applied,
            why: why.into(),
            noted,
        }
    }

    /// `option applied: why` or `option not applied: why`.
    pub fn said(&self) -> String {
        let status = if self.applied {
            "applied"
        } else {
            "not applied"
        };
        format!("{} {status}: {}", self.option.name(), self.why)
    }

    /// The report's note for this decision, if it has one: `option: what it did`,
    /// `option not applied: why`; the staging's reason as it is.
    pub fn note(&self) -> Option<String> {
        self.noted.then(|| match (self.option, self.applied) {
            (Opt::Staging, _) => self.why.clone(),
            (_, true) => format!("{}: {}", self.option.name(), self.why),
            (_, false) => self.said(),
        })
    }
}

/// What kind of kernel a translation makes: the lowering that builds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every reference in device memory (thesis Ch. 4; `crate::baseline`).
    Baseline,
    /// Shared-memory planes, registers and the sliding window (thesis Ch. 5;
    /// `optimizer::chunk`).
    Staged(optimizer::Plan),
    /// 16-byte vectors along x (`optimizer::vector`).
    Vector(vector::VectorPlan),
    /// Several time steps per launch (`optimizer::temporal`, issue #45).
    Temporal(optimizer::temporal::TemporalPlan),
}

/// The plan of one kernel's translation: the kernel to lower, its kind and the record of
/// its option decisions.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// The kernel to lower: checked, its faces split and its short loops unrolled.
    pub kernel: Kernel,
    /// The lowering that builds it, with that lowering's plan.
    pub kind: Kind,
    /// Every option decision, in the order the report gives them.
    pub decisions: Vec<Decision>,
    /// The report without its notes on the options: the configuration, each array's
    /// sharing and why, the level, the analysis's note.
    report: Report,
}

impl KernelPlan {
    /// Whether `option` was decided and applies.
    pub fn applied(&self, option: Opt) -> bool {
        self.decisions
            .iter()
            .any(|d| d.option == option && d.applied)
    }

    /// The registers per thread the kernel is held to ([`Target::max_registers`] for the
    /// vector path and a temporally blocked walk of interior groups,
    /// [`crate::optimizer::temporal::Interior::Groups`], through its launch bounds), if
    /// it is.
    pub fn max_registers(&self, target: &Target) -> Option<u32> {
        let held = match &self.kind {
            Kind::Vector(_) => true,
            Kind::Temporal(t) => t.interior == crate::optimizer::temporal::Interior::Groups,
            _ => false,
        };
        held.then_some(target.max_registers)
    }

    /// The report's level: what the kernel's kind stages and how.
    pub fn level(&self) -> &str {
        &self.report.level
    }

    /// The translator's report of the kernel: its facts, then a note per decision that
    /// has one, in the record's order.
    pub fn report(&self) -> Report {
        let mut r = self.report.clone();
        r.notes
            .extend(self.decisions.iter().filter_map(Decision::note));
        r
    }

    /// The plan in words, one comment line per decision (`MINT_DUMP_AFTER`).
    pub fn describe(&self) -> String {
        let kind = match self.kind {
            Kind::Baseline => "baseline",
            Kind::Staged(_) => "staged",
            Kind::Vector(_) => "vector",
            Kind::Temporal(_) => "temporal",
        };
        let mut s = format!(
            "// plan of `{}`: {kind} ({})\n",
            self.kernel.name, self.report.level
        );
        for d in &self.decisions {
            s.push_str(&format!("//   {}\n", d.said()));
        }
        s
    }
}

/// The plan of the checked kernel `k` for `cfg` on `target`: whether the optimizer runs
/// (any on-chip option, not a `single` block), then each option's decision in the
/// report's order. `faces`: the references the faces lift split, where it ran.
pub fn plan(
    mut k: Kernel,
    faces: Option<usize>,
    cfg: &LaunchConfig,
    target: &Target,
    blocked: Option<optimizer::temporal::TemporalPlan>,
) -> KernelPlan {
    let mut d = Vec::new();
    let (kind, report) = if let Some(t) = blocked {
        let mut r = Report::baseline(&k, cfg);
        r.level = format!("temporal blocking, {} steps per launch", t.depth);
        r.tile = t.launch(cfg).tile;
        for (i, a) in r.arrays.iter_mut().enumerate() {
            a.why = if i == t.input {
                format!(
                    "{} shared rings of {} planes, one per fused step",
                    t.depth,
                    t.ring()
                )
            } else if i == t.output {
                "written by the last fused step".into()
            } else {
                "device memory".into()
            };
        }
        (Kind::Temporal(t), r)
    } else if k.options.any() && !k.is_single() {
        optimized(&mut k, cfg, target, &mut d)
    } else {
        roll_z(&mut d, &k, false);
        (Kind::Baseline, Report::baseline(&k, cfg))
    };
    if let Some(n) = faces {
        d.push(Decision::new(
            Opt::Faces,
            true,
            format!("{n} reference(s) with clamped, mirrored or wrapped subscripts split into their stencil points"),
            true,
        ));
    }
    if k.options.swizzle {
        d.push(if k.nest.len() == 3 && !k.is_single() {
            Decision::new(
                Opt::Swizzle,
                true,
                format!("blocks run in bands of about {SWIZZLE_BAND_BLOCKS} blocks of y tiles, each band swept along z"),
                true,
            )
        } else {
            Decision::new(
                Opt::Swizzle,
                false,
                "it orders the blocks of three parallel loops",
                true,
            )
        });
    }
    KernelPlan {
        kernel: k,
        kind,
        decisions: d,
        report,
    }
}

/// The optimizer's part of the plan: `unroll`, the analysis (thesis Sec. 5.3), then the
/// vector path where `vectorize` applies, else `roll_z` and the staged kernel, or the
/// baseline where nothing can be staged.
fn optimized(
    k: &mut Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    d: &mut Vec<Decision>,
) -> (Kind, Report) {
    if k.options.unroll {
        let n = unroll::unroll(k);
        let why = format!("{n} short loop(s) unrolled, subscripts folded");
        d.push(Decision::new(Opt::Unroll, true, why, true));
    }
    let a = analyzer::analyze(k, cfg, target, NearLimit::default());
    let mut report = optimizer::report(k, cfg, &a);
    if k.options.vectorize
        && let Some(kind) = vectorize(k, cfg, target, &mut report, d)
    {
        return (kind, report);
    }
    roll_z(d, k, false);
    if k.nest.len() < 2 || cfg.block[2] != 1 {
        report.level = "baseline".into();
        let why = if k.nest.len() < 2 {
            "registers and shared memory need two or three parallel loops; translated at baseline"
                .into()
        } else {
            format!(
                "registers and shared memory need one thread along z (tile z = chunksize z, here {} and {}); translated at baseline",
                cfg.tile[2], cfg.chunk[2]
            )
        };
        d.push(Decision::new(Opt::Staging, false, why, true));
        return (Kind::Baseline, report);
    }
    let plan = staged(k, cfg, target, &a, &mut report, d);
    (Kind::Staged(plan), report)
}

/// The vector path's part of the plan: `vectorize`, `pipeline`'s rings, `roll_z`, and
/// `shared` and `register` (which it replaces). `None` where `k` cannot be vectorized.
fn vectorize(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    report: &mut Report,
    d: &mut Vec<Decision>,
) -> Option<Kind> {
    let mut vp = match vector::plan(k, cfg) {
        Ok(vp) => vp,
        Err(why) => {
            let with = if cfg.chunk[0] > 1 {
                format!(" with {} x points per thread", cfg.chunk[0])
            } else {
                String::new()
            };
            let why = format!("{why}; the other options apply{with}");
            d.push(Decision::new(Opt::Vectorize, false, why, true));
            return None;
        }
    };
    if k.options.pipeline {
        let stages = || vector::ring_stages(cfg);
        d.push(
            match pipeline(vp.window(), target, stages, || vp.ring_fit(k, cfg, target)) {
                Ok(rings) => {
                    vp.set_rings(rings);
                    let why = "the steps read their x and y neighbours from shared-memory rings that `cp.async` fills";
                    Decision::new(Opt::Pipeline, true, why, false)
                }
                Err(why) => {
                    let why = format!("{why}; the vector path reads device memory");
                    Decision::new(Opt::Pipeline, false, why, true)
                }
            },
        );
    }
    vector::report(report, k, &vp);
    let why = format!(
        "{} 16-byte load(s) per thread and step for {} points",
        vp.loads(),
        vp.points(cfg)
    );
    d.push(Decision::new(Opt::Vectorize, true, why, true));
    let rolled = roll_z(d, k, vp.window());
    if k.options.shared > 0 || k.options.register {
        let why =
            "vectorize replaces `shared` and `register`: rows live in registers as 16-byte vectors";
        d.push(Decision::new(Opt::Staging, false, why, true));
    }
    report.level = vector::level(k, &vp, rolled);
    Some(Kind::Vector(vp))
}

/// The staged kernel's part of the plan: each array's planes and registers
/// ([`optimizer::stage`]), `same_index`, and `pipeline`.
fn staged(
    k: &Kernel,
    cfg: &LaunchConfig,
    target: &Target,
    a: &analyzer::Analysis,
    report: &mut Report,
    d: &mut Vec<Decision>,
) -> optimizer::Plan {
    let mut plan = optimizer::stage(k, cfg, a, report);
    if k.options.same_index {
        let n = plan.same_index.len();
        d.push(if n > 0 {
            let why = format!("{n} group(s) of arrays share pitch and plane-stride variables");
            Decision::new(Opt::SameIndex, true, why, true)
        } else {
            let why = "no two arrays of two or more dimensions share rank and element size";
            Decision::new(Opt::SameIndex, false, why, false)
        });
    }
    if k.options.pipeline {
        // the rings are sized with `pipeline` on
        plan.pipeline = true;
        let stages = || optimizer::pipeline_stages(k, &plan);
        let fits = || optimizer::pipeline_fits(k, cfg, target, &plan);
        let decided = pipeline(plan.window, target, stages, fits);
        plan.pipeline = decided.is_ok();
        d.push(match decided {
            Ok(()) => {
                let why = "the shared planes are copied with `cp.async` into rings of slots";
                Decision::new(Opt::Pipeline, true, why, false)
            }
            Err(why) => {
                let why = format!("{why}; planes are staged through registers");
                Decision::new(Opt::Pipeline, false, why, true)
            }
        });
    }
    report.level = optimizer::level(k, &plan);
    d.push(Decision::new(
        Opt::Staging,
        true,
        report.level.clone(),
        false,
    ));
    plan
}

/// `pipeline`'s one rule, for the staged kernel and the vector path alike: a sliding window
/// along z; what the kind needs to stage its planes (`stages`); `cp.async` on the target
/// (compute capability [`PIPELINE_MIN_CC`]); what the kind's rings take (`fits`, which
/// sizes them). The first that fails says why `pipeline` does not apply.
fn pipeline<T>(
    window: bool,
    target: &Target,
    stages: impl FnOnce() -> Result<(), String>,
    fits: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    if !window {
        return Err("it needs the sliding window (3-D, `chunksize` z above 1)".into());
    }
    stages()?;
    if target.compute_capability < PIPELINE_MIN_CC {
        return Err(format!(
            "`cp.async` needs compute capability 8.0, the device has {}.{}",
            target.compute_capability.0, target.compute_capability.1
        ));
    }
    fits()
}

/// `roll_z`, where the kernel asks for it: it applies to the z steps of a vector kernel's
/// sliding window (`window`). Returns whether it applies.
fn roll_z(d: &mut Vec<Decision>, k: &Kernel, window: bool) -> bool {
    if !k.options.roll_z {
        return false;
    }
    d.push(if window {
        let why = "the sliding window's z steps run as a loop (`#pragma unroll 1`)";
        Decision::new(Opt::RollZ, true, why, false)
    } else {
        let why = "it rolls the z steps of a `vectorize` kernel's sliding window (three parallel loops, chunksize z above 1)";
        Decision::new(Opt::RollZ, false, why, true)
    });
    window
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::config;
    use crate::ir::ClauseValue;
    use crate::testing::kernel;

    const HEAT2D: &str = "
arrays: u f64 2, unew f64 2
nest: y 1..ny-1, x 1..nx-1
unew[y][x] = u[y][x-1] + u[y][x+1] + u[y-1][x] + u[y+1][x];
";

    /// A 2-D kernel with `vectorize`, `pipeline`, `roll_z` and `swizzle`: the vector path
    /// applies, the others need three parallel loops. Each option is decided once, and the
    /// report's notes after the analysis's are the record's, in its order.
    #[test]
    fn each_option_is_decided_once_and_the_notes_come_from_the_record() {
        let mut k = kernel("heat_0", HEAT2D);
        k.clauses.tile = Some([64, 4, 1].map(ClauseValue::Const));
        k.clauses.chunk = Some([1, 1, 1].map(ClauseValue::Const));
        k.options.vectorize = true;
        k.options.pipeline = true;
        k.options.roll_z = true;
        k.options.swizzle = true;
        crate::typeck::check(&mut k).unwrap();
        crate::validate::check(&k).unwrap();
        let target = Target::default();
        let cfg = config::resolve(&k, &target).unwrap();
        let p = plan(k, None, &cfg, &target, None);
        assert!(matches!(p.kind, Kind::Vector(_)));
        let decided: Vec<(Opt, bool)> = p.decisions.iter().map(|d| (d.option, d.applied)).collect();
        assert_eq!(
            decided,
            [
                (Opt::Pipeline, false),
                (Opt::Vectorize, true),
                (Opt::RollZ, false),
                (Opt::Swizzle, false)
            ]
        );
        let notes = p.report().notes;
        let from_record: Vec<String> = p.decisions.iter().filter_map(Decision::note).collect();
        assert_eq!(notes[1..], from_record[..]);
        assert_eq!(
            notes[1],
            "pipeline not applied: it needs the sliding window (3-D, `chunksize` z above 1); the vector path reads device memory"
        );
        assert!(p.applied(Opt::Vectorize) && !p.applied(Opt::RollZ));
        assert_eq!(p.max_registers(&target), Some(target.max_registers));
    }
}
