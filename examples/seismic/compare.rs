//! Comparing seismograms with a reference solution, the way the SCEC/PEER LOH
//! comparisons do (Day et al. 2001): both traces low-passed by the same zero-phase
//! 4th-order Butterworth filter, rotated to radial, transverse and vertical, and measured
//! component by component: the correlation, the lag, the peak ratio and the relative L2
//! misfit.
//!
//! Files are the example's seismogram CSVs (`t,vx,vy,vz`: m/s, x east, y north, z up, t
//! in s from the origin time); a reference written by `reference/fk.py` has the same
//! form, on its own time step.

use plotters::prelude::*;
use std::path::Path;

/// A three-component velocity seismogram: times (s, evenly spaced) and velocities
/// (m/s), components east, north, up.
#[derive(Clone, Debug)]
pub struct Trace {
    pub t: Vec<f64>,
    pub v: [Vec<f64>; 3],
}

impl Trace {
    /// The time step (s).
    pub fn dt(&self) -> f64 {
        self.t[1] - self.t[0]
    }

    /// Reads a seismogram CSV (`#` comment lines, a `t,vx,vy,vz` header, then rows).
    ///
    /// # Errors
    /// The file cannot be read, a row does not hold four numbers, or there are fewer than
    /// 8 rows or uneven times; the message names the file and the line.
    pub fn read(path: &Path) -> Result<Trace, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut t = Vec::new();
        let mut v: [Vec<f64>; 3] = Default::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('t') {
                continue;
            }
            let f: Result<Vec<f64>, _> = line.split(',').map(|s| s.trim().parse()).collect();
            match f.as_deref() {
                Ok([a, b, c, d]) => {
                    t.push(*a);
                    v[0].push(*b);
                    v[1].push(*c);
                    v[2].push(*d);
                }
                _ => {
                    return Err(format!(
                        "{}:{}: expected four numbers t,vx,vy,vz, found `{line}`",
                        path.display(),
                        n + 1
                    ));
                }
            }
        }
        if t.len() < 8 {
            return Err(format!("{}: fewer than 8 samples", path.display()));
        }
        let dt = t[1] - t[0];
        if dt.is_nan()
            || dt <= 0.0
            || t.windows(2)
                .any(|w| ((w[1] - w[0]) - dt).abs() > 1e-6 * dt.max(1.0))
        {
            return Err(format!(
                "{}: the times are not evenly spaced",
                path.display()
            ));
        }
        Ok(Trace { t, v })
    }
}

/// The 4th-order Butterworth low-pass at `fc` Hz, applied forwards and backwards (zero
/// phase, as SciPy's `sosfiltfilt`), to samples `dt` s apart.
pub fn lowpass(x: &[f64], fc: f64, dt: f64) -> Vec<f64> {
    use sci_rs::signal::filter::design::{
        DigitalFilter, FilterBandType, FilterOutputType, butter_dyn,
    };
    use sci_rs::signal::filter::sosfiltfilt_dyn;
    let filter = butter_dyn(
        4,
        vec![fc],
        Some(FilterBandType::Lowpass),
        Some(false),
        Some(FilterOutputType::Sos),
        Some(1.0 / dt),
    );
    let DigitalFilter::Sos(sos) = filter else {
        unreachable!("asked for second-order sections")
    };
    sosfiltfilt_dyn(x.iter(), &sos.sos)
}

/// `x` (samples at t0 + i·dt) at time `t` by the Catmull–Rom cubic; 0 outside.
fn cubic(x: &[f64], t0: f64, dt: f64, t: f64) -> f64 {
    let s = (t - t0) / dt;
    if s < 0.0 || s > (x.len() - 1) as f64 {
        return 0.0;
    }
    let i = (s.floor() as usize).min(x.len() - 2);
    let u = s - i as f64;
    let at = |k: isize| x[(i as isize + k).clamp(0, x.len() as isize - 1) as usize];
    let (p0, p1, p2, p3) = (at(-1), at(0), at(1), at(2));
    p1 + 0.5
        * u
        * (p2 - p0 + u * (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3 + u * (3.0 * (p1 - p2) + p3 - p0)))
}

/// Radial (away from the epicentre), transverse (radial turned 90° clockwise seen from
/// above) and vertical (up) components of east, north, up velocities, for a receiver at
/// `azimuth` degrees clockwise from north as seen from the epicentre.
pub fn rotate(v: &[Vec<f64>; 3], azimuth: f64) -> [Vec<f64>; 3] {
    let (s, c) = azimuth.to_radians().sin_cos();
    let n = v[0].len();
    [
        (0..n).map(|i| v[0][i] * s + v[1][i] * c).collect(),
        (0..n).map(|i| v[0][i] * c - v[1][i] * s).collect(),
        v[2].clone(),
    ]
}

/// The measures of one component.
#[derive(Clone, Copy, Debug)]
pub struct Measures {
    /// The largest normalized cross-correlation within the lag window.
    pub correlation: f64,
    /// The time (s) by which ours lags the reference at that maximum (negative: ours is
    /// early), to a fraction of a sample by a parabola through the three best lags.
    pub lag: f64,
    /// max |ours| / max |reference|.
    pub peak_ratio: f64,
    /// ‖ours − reference‖₂ / ‖reference‖₂ at zero lag.
    pub misfit: f64,
}

/// The names of the three compared components.
pub const COMPONENTS: [&str; 3] = ["radial", "transverse", "vertical"];

/// Both traces filtered (each on its own step) and rotated, the reference resampled at
/// our times, over the times both cover.
pub struct Filtered {
    pub t: Vec<f64>,
    pub ours: [Vec<f64>; 3],
    pub reference: [Vec<f64>; 3],
}

/// Filters both traces at `fc` Hz, rotates them for `azimuth` (degrees) and resamples the
/// reference at our times.
pub fn filtered(ours: &Trace, reference: &Trace, azimuth: f64, fc: f64) -> Filtered {
    let f = |tr: &Trace| -> [Vec<f64>; 3] {
        let v = [0, 1, 2].map(|c| lowpass(&tr.v[c], fc, tr.dt()));
        rotate(&v, azimuth)
    };
    let (o, r) = (f(ours), f(reference));
    let end = reference.t[reference.t.len() - 1];
    let keep: Vec<usize> = (0..ours.t.len()).filter(|&i| ours.t[i] <= end).collect();
    let t: Vec<f64> = keep.iter().map(|&i| ours.t[i]).collect();
    let (t0, dr) = (reference.t[0], reference.dt());
    Filtered {
        ours: [0, 1, 2].map(|c| keep.iter().map(|&i| o[c][i]).collect()),
        reference: [0, 1, 2].map(|c| t.iter().map(|&s| cubic(&r[c], t0, dr, s)).collect()),
        t,
    }
}

/// The measures of one filtered component pair, the lag searched within ±`max_lag` s.
/// `None` where the reference is nodal: its peak under `nodal` times `scale` (the
/// largest peak of the receiver's reference components).
pub fn measure(
    ours: &[f64],
    reference: &[f64],
    dt: f64,
    max_lag: f64,
    scale: f64,
    nodal: f64,
) -> Option<Measures> {
    let peak = |x: &[f64]| x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let (po, pr) = (peak(ours), peak(reference));
    if pr < nodal * scale {
        return None;
    }
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let (no, nr) = (norm(ours), norm(reference));
    let n = ours.len() as isize;
    let cc = |k: isize| -> f64 {
        // Σ ours[i]·reference[i − k]: positive k when ours is late
        let mut s = 0.0;
        for i in k.max(0)..n.min(n + k) {
            s += ours[i as usize] * reference[(i - k) as usize];
        }
        s / (no * nr)
    };
    let m = (max_lag / dt).round() as isize;
    let (mut best, mut at) = (f64::NEG_INFINITY, 0isize);
    for k in -m..=m {
        let c = cc(k);
        if c > best {
            best = c;
            at = k;
        }
    }
    let (a, b) = (cc(at - 1), cc(at + 1));
    let d = a - 2.0 * best + b;
    let frac = if d < 0.0 { 0.5 * (a - b) / d } else { 0.0 };
    let diff: f64 = ours
        .iter()
        .zip(reference)
        .map(|(o, r)| (o - r) * (o - r))
        .sum::<f64>()
        .sqrt();
    Some(Measures {
        correlation: best,
        lag: (at as f64 + frac) * dt,
        peak_ratio: po / pr,
        misfit: diff / nr,
    })
}

/// The comparison of one receiver.
pub struct Comparison {
    pub filtered: Filtered,
    /// Per component (radial, transverse, vertical); `None` where the reference is nodal.
    pub measures: [Option<Measures>; 3],
}

/// A reference component whose peak is under this fraction of the receiver's largest is
/// nodal: its lag and ratios would measure noise.
pub const NODAL: f64 = 0.05;

/// Compares `ours` with `reference` for a receiver at `azimuth` degrees from the
/// epicentre, low-passed at `fc` Hz, lags searched within ±1/(2·fc) (half a period, so
/// that a neighbouring cycle is never picked).
pub fn compare(ours: &Trace, reference: &Trace, azimuth: f64, fc: f64) -> Comparison {
    let f = filtered(ours, reference, azimuth, fc);
    let dt = ours.dt();
    let scale = f
        .reference
        .iter()
        .flat_map(|c| c.iter())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let measures =
        [0, 1, 2].map(|c| measure(&f.ours[c], &f.reference[c], dt, 0.5 / fc, scale, NODAL));
    Comparison {
        filtered: f,
        measures,
    }
}

/// The azimuth (degrees clockwise from north) of `receiver` seen from `epicentre`
/// (x east, y north, m).
pub fn azimuth(epicentre: [f64; 2], receiver: [f64; 2]) -> f64 {
    (receiver[0] - epicentre[0])
        .atan2(receiver[1] - epicentre[1])
        .to_degrees()
        .rem_euclid(360.0)
}

/// Draws the filtered traces of `c` over each other, one panel per component, into
/// `path` (PNG).
///
/// # Errors
/// Drawing or writing errors.
pub fn overlay_png(
    path: &Path,
    title: &str,
    c: &Comparison,
    ours_label: &str,
    reference_label: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    crate::output::register_font();
    let root = BitMapBackend::new(path, (1000, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(40);
    top.titled(title, ("sans-serif", 20))?;
    let f = &c.filtered;
    let t_end = f.t.last().copied().unwrap_or(1.0);
    for (k, area) in body.split_evenly((3, 1)).iter().enumerate() {
        let peak = f.reference[k]
            .iter()
            .chain(&f.ours[k])
            .fold(1e-30f64, |m, v| m.max(v.abs()));
        let caption = match c.measures[k] {
            Some(m) => format!(
                "{}: correlation {:.3}, lag {:+.1} ms, peak ratio {:.3}, misfit {:.1}%",
                COMPONENTS[k],
                m.correlation,
                m.lag * 1e3,
                m.peak_ratio,
                100.0 * m.misfit
            ),
            None => format!("{}: nodal in the reference", COMPONENTS[k]),
        };
        let mut chart = ChartBuilder::on(area)
            .margin(8)
            .caption(caption, ("sans-serif", 15))
            .x_label_area_size(28)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_end, -1.1 * peak..1.1 * peak)?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc("m/s")
            .y_label_formatter(&|v| format!("{v:.2}"))
            .draw()?;
        let line = |ys: &[f64]| f.t.iter().copied().zip(ys.iter().copied()).collect();
        let series = [
            (line(&f.reference[k]), BLACK, 2, reference_label.to_string()),
            (
                line(&f.ours[k]),
                RGBColor(214, 39, 40),
                2,
                ours_label.to_string(),
            ),
        ];
        crate::output::lines(&mut chart, series)?;
    }
    root.present()?;
    Ok(())
}
