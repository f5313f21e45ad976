//! Writing the results: one CSV per receiver (t, vx, vy, vz in m/s; x east, y north,
//! z up), `seismograms.png` (the three components of every receiver) and `pgv.png`
//! (peak ground velocity at the surface, m/s).

use crate::model::{HALO, Setup};
use crate::solver::Output;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The font of the pictures, shipped with the example (DejaVu Sans, Bitstream Vera
/// licence: `examples/assets/DejaVuSans-LICENSE.txt`), so no system font is needed.
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The seismogram of receiver `r`: rows (t, vx, vy, vz) with z up, t = (n + ½)·dt.
pub fn trace(setup: &Setup, out: &Output, r: usize) -> Vec<[f64; 4]> {
    (0..setup.nsteps)
        .map(|n| {
            let s = |c: usize| out.seismograms[[n, r, c]] as f64;
            [(n as f64 + 0.5) * setup.dt, s(0), s(1), -s(2)]
        })
        .collect()
}

/// Which files a process writes: across MPI ranks, each rank writes the seismograms of the
/// receivers whose plane (that of their vx's lower interpolation corner) its devices own,
/// and the rank owning the free surface writes the pictures; one process writes
/// everything.
pub struct Share {
    /// Whether this process writes receiver `r`'s seismogram.
    pub receivers: Vec<bool>,
    /// Whether it writes `seismograms.png` and the PGV map (the surface's owner).
    pub surface: bool,
}

impl Share {
    /// This process's share of `setup`'s outputs, by the planes its devices own
    /// ([`mint::slab::owned_planes`]).
    pub fn of(setup: &Setup) -> Share {
        let owned = mint::slab::owned_planes(setup.shape().0);
        let receivers = (0..setup.receivers.names.len())
            .map(|r| owned.contains(&(setup.receivers.idx[[r, 0]] as usize)))
            .collect();
        Share {
            receivers,
            surface: owned.contains(&HALO),
        }
    }
}

/// Writes this process's `share` of everything into `dir` (created); returns the paths
/// written.
///
/// # Errors
/// I/O and drawing errors, naming the file.
pub fn write(
    dir: &Path,
    setup: &Setup,
    out: &Output,
    plots: bool,
    share: &Share,
) -> Res<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (r, name) in setup.receivers.names.iter().enumerate() {
        if !share.receivers[r] {
            continue;
        }
        let path = dir.join(format!("{name}.csv"));
        let loc = setup.receivers.locations[r];
        let mut s = format!(
            "# receiver {name} at x = {} m, y = {} m, z = {} m (depth); velocities in m/s, x east, y north, z up\nt,vx,vy,vz\n",
            loc[0], loc[1], loc[2]
        );
        for row in trace(setup, out, r) {
            s.push_str(&format!(
                "{:.5},{:.6e},{:.6e},{:.6e}\n",
                row[0], row[1], row[2], row[3]
            ));
        }
        std::fs::write(&path, s).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    if plots && share.surface {
        register_font();
        if !setup.receivers.names.is_empty() {
            let path = dir.join("seismograms.png");
            seismogram_plot(&path, setup, out)
                .map_err(|e| format!("drawing {}: {e}", path.display()))?;
            written.push(path);
        }
        let path = dir.join("pgv.png");
        pgv_map(&path, setup, out).map_err(|e| format!("drawing {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn seismogram_plot(path: &Path, setup: &Setup, out: &Output) -> Res<()> {
    let nr = setup.receivers.names.len();
    let root = BitMapBackend::new(path, (1000, 60 + 220 * nr as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(50);
    title.titled(
        &format!("{} — velocity seismograms (m/s)", setup.title),
        ("sans-serif", 24),
    )?;
    let colors = [
        RGBColor(31, 119, 180),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
    ];
    for (r, area) in body.split_evenly((nr, 1)).iter().enumerate() {
        let tr = trace(setup, out, r);
        let peak = tr
            .iter()
            .flat_map(|row| row[1..].iter().map(|v| v.abs()))
            .fold(1e-30f64, f64::max);
        let t_end = tr.last().map(|row| row[0]).unwrap_or(1.0);
        let mut chart = ChartBuilder::on(area)
            .margin(8)
            .caption(&setup.receivers.names[r], ("sans-serif", 16))
            .x_label_area_size(30)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..t_end, -1.1 * peak..1.1 * peak)?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_label_formatter(&|v| format!("{v:.1e}"))
            .draw()?;
        let series = ["vx (east)", "vy (north)", "vz (up)"]
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let points = tr.iter().map(|row| (row[0], row[c + 1])).collect();
                (points, colors[c], 1, name.to_string())
            });
        lines(&mut chart, series)?;
    }
    root.present()?;
    Ok(())
}

/// Draws `series` (points, colour, stroke width, label) as lines on `chart`, with a
/// legend box.
///
/// # Errors
/// Drawing errors.
pub fn lines<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    series: impl IntoIterator<Item = (Vec<(f64, f64)>, RGBColor, u32, String)>,
) -> Res<()>
where
    DB::ErrorType: 'static,
{
    for (points, col, width, label) in series {
        chart
            .draw_series(LineSeries::new(points, col.stroke_width(width)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], col));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn pgv_map(path: &Path, setup: &Setup, out: &Output) -> Res<()> {
    let [nx, ny, _] = setup.n;
    let h = setup.h;
    let peak = out.pgv.iter().fold(1e-30f32, |m, &v| m.max(v)) as f64;
    let root = BitMapBackend::new(path, (900, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let (map, bar) = root.split_horizontally(780);
    let (lx, ly) = ((nx - 1) as f64 * h * 1e-3, (ny - 1) as f64 * h * 1e-3);
    let mut chart = ChartBuilder::on(&map)
        .margin(10)
        .caption(
            format!(
                "{} — peak ground velocity (max {peak:.2e} m/s)",
                setup.title
            ),
            ("sans-serif", 20),
        )
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..lx, 0.0..ly)?;
    chart
        .configure_mesh()
        .x_desc("x, east (km)")
        .y_desc("y, north (km)")
        .disable_mesh()
        .draw()?;
    let cmap = ViridisRGB;
    // at most ~400 cells per side, each the maximum of the points it covers
    let stride = nx.max(ny).div_ceil(400).max(1);
    let mut cells = Vec::new();
    for j0 in (0..ny).step_by(stride) {
        for i0 in (0..nx).step_by(stride) {
            let mut v = 0.0f32;
            for j in j0..(j0 + stride).min(ny) {
                for i in i0..(i0 + stride).min(nx) {
                    v = v.max(out.pgv[[j + HALO, i + HALO]]);
                }
            }
            let x0 = i0 as f64 * h * 1e-3;
            let y0 = j0 as f64 * h * 1e-3;
            let d = stride as f64 * h * 1e-3;
            let c = cmap.get_color_normalized(v as f64, 0.0, peak);
            cells.push(Rectangle::new([(x0, y0), (x0 + d, y0 + d)], c.filled()));
        }
    }
    chart.draw_series(cells)?;
    for (r, loc) in setup.receivers.locations.iter().enumerate() {
        let p = (loc[0] * 1e-3, loc[1] * 1e-3);
        chart.draw_series([TriangleMarker::new(p, 6, WHITE.filled())])?;
        chart.draw_series([Text::new(
            setup.receivers.names[r].clone(),
            (p.0, p.1),
            ("sans-serif", 13).into_font().color(&WHITE),
        )])?;
    }
    // colour bar
    let mut cb = ChartBuilder::on(&bar)
        .margin_top(40)
        .margin_bottom(50)
        .margin_right(10)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..1.0, 0.0..peak)?;
    cb.configure_mesh()
        .disable_x_axis()
        .disable_mesh()
        .y_desc("m/s")
        .y_label_formatter(&|v| format!("{v:.1e}"))
        .draw()?;
    cb.draw_series((0..100).map(|q| {
        let (a, b) = (q as f64 / 100.0 * peak, (q + 1) as f64 / 100.0 * peak);
        Rectangle::new(
            [(0.0, a), (1.0, b)],
            cmap.get_color_normalized(a, 0.0, peak).filled(),
        )
    }))?;
    root.present()?;
    Ok(())
}
