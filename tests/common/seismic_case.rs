//! The seismic example's coarse set-up for decomposition tests (issues #12, #13),
//! included by path after the test crate declares `common`, `config` and `model`.

use crate::{common, config, model};
use std::path::Path;

/// The first plane of each device but the first when `extent` planes are split over
/// `devices` (the slab rule, written out independently of the runtime's).
pub fn boundaries(extent: usize, devices: usize) -> Vec<usize> {
    let mut lo = 0;
    let mut out = Vec::new();
    for d in 0..devices {
        if d > 0 {
            out.push(lo);
        }
        lo += extent / devices + usize::from(d < extent % devices);
    }
    out
}

/// `file` (loh1.toml or loh3.toml) at its coarse resolution (200 m; dt = 0.016 s for
/// LOH.1, 0.014 s for LOH.3) in a domain of 8 × 8 × 7 km for 0.8 s, with the LOH.1
/// source, a source on every slab boundary of 2, 3 and 4 devices and one plane above it,
/// and a column of receivers at every depth.
pub fn setup(file: &str) -> model::Setup {
    let (cfg, h, dt) = config(file);
    let setup = model::build(&cfg, h, dt).unwrap();
    assert_eq!(setup.shape().0, (7000.0 / h) as usize + 1 + 2 * model::HALO);
    setup
}

/// The configuration [`setup`] builds, with its spacing and step.
pub fn config(file: &str) -> (config::Config, f64, f64) {
    let text = std::fs::read_to_string(common::seismic_dir().join(file)).unwrap();
    let mut cfg = config::Config::parse(&text, Path::new(file)).unwrap();
    let c = cfg.grid.coarse.unwrap();
    let h = c.spacing;
    cfg.grid.extent = [8000.0, 8000.0, 7000.0];
    cfg.grid.duration = 0.8;
    cfg.sponge.width = 5;
    let nz = (7000.0 / h) as usize + 1 + 2 * model::HALO;
    let mut planes: Vec<usize> = (2..=4).flat_map(|d| boundaries(nz, d)).collect();
    planes.sort();
    planes.dedup();
    let depth = |p: usize| (p as f64 - model::HALO as f64) * h;
    let mut src = cfg.sources[0];
    src.location = [4000.0, 4000.0, 2000.0];
    cfg.sources = vec![src];
    // Sources at least two cells apart, so that no two share a node (their entries
    // would race in the parallel loop over entries, on one device as on several).
    let mut n = 0;
    for &p in &planes {
        for q in [p, p - 1] {
            let z = depth(q);
            if (200.0..=6000.0).contains(&z) {
                let mut s = src;
                s.location = [
                    2000.0 + 800.0 * (n % 5) as f64,
                    3000.0 + 1600.0 * (n / 5) as f64,
                    z + 37.0 * (q % 2) as f64,
                ];
                cfg.sources.push(s);
                n += 1;
            }
        }
    }
    assert!(n <= 10, "{n} sources");
    let mut rec = cfg.receivers[0].clone();
    cfg.receivers.clear();
    for p in model::HALO..nz - model::HALO {
        rec.name = format!("z{p}");
        rec.location = [4900.0, 4300.0, depth(p).min(7000.0) - 13.0 * (p % 3) as f64];
        rec.location[2] = rec.location[2].max(0.0);
        cfg.receivers.push(rec.clone());
    }
    (cfg, h, c.dt)
}
