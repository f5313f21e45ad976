//! The run's input: a TOML file (see `loh1.toml`), read with serde, and its checks.
//!
//! Coordinates are metres in the model's frame: x east, y north, z depth (down),
//! with the free surface at z = 0 and the domain spanning [0, Lx] × [0, Ly] × [0, Lz].

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What can be wrong with an input, each naming the file, the field and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the configuration file {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid configuration: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{field} = {value} is invalid: {why}")]
    Value {
        field: String,
        value: String,
        why: String,
    },
    #[error(
        "the time step violates the CFL condition: dt·Vp,max/h = {dt}·{vp_max:.1}/{h} = {number:.3} \
         (Vp,max the largest P velocity, with Q the unrelaxed one of the cells that relax \
         fastest) exceeds {limit:.3}, the stability limit of the 4th-order staggered scheme in 3-D; \
         use dt ≤ {dt_max:.5} s or a coarser spacing"
    )]
    Cfl {
        dt: f64,
        vp_max: f64,
        h: f64,
        number: f64,
        limit: f64,
        dt_max: f64,
    },
    #[error(
        "{what} `{name}` at ({x}, {y}, {z}) m lies outside the grid [0, {lx}] × [0, {ly}] × [0, {lz}] m"
    )]
    Outside {
        what: &'static str,
        name: String,
        x: f64,
        y: f64,
        z: f64,
        lx: f64,
        ly: f64,
        lz: f64,
    },
    #[error("cannot read the material file {path}: {why}")]
    MaterialFile { path: PathBuf, why: String },
    /// Under `mpirun`: another rank failed to build its planes of the model, or the ranks
    /// could not exchange.
    #[error("the model across MPI ranks: {why}")]
    Ranks { why: String },
}

/// The whole input file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A name for the run, printed and written into the outputs.
    #[serde(default)]
    pub title: String,
    pub grid: Grid,
    pub material: Material,
    #[serde(default)]
    pub sponge: Sponge,
    /// How the quality factors Qp, Qs of the material are realised; used only when the
    /// material gives them.
    #[serde(default)]
    pub attenuation: Attenuation,
    #[serde(rename = "source")]
    pub sources: Vec<Source>,
    #[serde(rename = "receiver", default)]
    pub receivers: Vec<Receiver>,
    #[serde(default)]
    pub output: Output,
}

/// Grid and time stepping.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// Domain size [Lx, Ly, Lz] in metres.
    pub extent: [f64; 3],
    /// Grid spacing h in metres (the same along x, y and z).
    pub spacing: f64,
    /// Time step in seconds.
    pub dt: f64,
    /// Simulated time in seconds.
    pub duration: f64,
    /// A coarser spacing and step used with `--resolution coarse` (and by default on the
    /// CPU backend).
    pub coarse: Option<Coarse>,
}

/// The coarse resolution of a configuration.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coarse {
    pub spacing: f64,
    pub dt: f64,
}

/// One material: P and S velocities (m/s), density (kg/m³) and, for an anelastic
/// material, the quality factors of P and S waves (dimensionless; absent = no
/// attenuation). With Q the velocities are phase velocities at
/// [`Attenuation::reference_frequency`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Elastic {
    pub vp: f64,
    pub vs: f64,
    pub rho: f64,
    pub qp: Option<f64>,
    pub qs: Option<f64>,
}

/// A layer of a layered model: `thickness` in metres; the last layer has none (the
/// half-space). `qp`, `qs` as in [`Elastic`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    pub thickness: Option<f64>,
    pub vp: f64,
    pub vs: f64,
    pub rho: f64,
    pub qp: Option<f64>,
    pub qs: Option<f64>,
}

/// The material model.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Material {
    Homogeneous {
        vp: f64,
        vs: f64,
        rho: f64,
        qp: Option<f64>,
        qs: Option<f64>,
    },
    /// Horizontal layers from the surface down; the last one extends to the bottom.
    Layered { layers: Vec<Layer> },
    /// A binary file of little-endian f32 triples (Vp, Vs, ρ) at every grid point, in
    /// [z, y, x] order (x fastest), for the grid of the resolution being run; `qp`, `qs`
    /// (optional) hold everywhere.
    File {
        path: PathBuf,
        qp: Option<f64>,
        qs: Option<f64>,
    },
}

/// The Cerjan sponge on the sides and the bottom.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sponge {
    /// Width in grid points.
    pub width: usize,
    /// Damping factor applied each step at the outermost point (Cerjan et al. 1985 use
    /// exp(−(0.015·20)²) ≈ 0.914 for 20 points).
    #[serde(default = "default_edge_factor")]
    pub edge_factor: f64,
}

fn default_edge_factor() -> f64 {
    (-(0.015f64 * 20.0).powi(2)).exp()
}

impl Default for Sponge {
    fn default() -> Self {
        Sponge {
            width: 20,
            edge_factor: default_edge_factor(),
        }
    }
}

/// The constant-Q model (Day & Bradley 2001, the coarse-grained memory variables of
/// AWP-ODC; thesis Table 7.1's r1..r6): eight relaxation times, log-spaced over `band`,
/// one per cell of each 2×2×2 block, with weights fitted so that Q is constant over the
/// band.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attenuation {
    /// [f_min, f_max] in Hz over which Q is held constant.
    #[serde(default = "default_band")]
    pub band: [f64; 2],
    /// The frequency (Hz) at which the given Vp and Vs are the phase velocities.
    #[serde(default = "default_reference")]
    pub reference_frequency: f64,
}

fn default_band() -> [f64; 2] {
    [0.05, 10.0]
}
fn default_reference() -> f64 {
    1.0
}

impl Default for Attenuation {
    fn default() -> Self {
        Attenuation {
            band: default_band(),
            reference_frequency: default_reference(),
        }
    }
}

/// The smallest quality factor accepted: the memory-variable weights are fitted for
/// Q⁻¹ ≪ 1, and the coarse-grained weights of one cell (8× the average) must leave the
/// relaxed modulus positive.
pub const Q_MIN: f64 = 5.0;

/// Moment-tensor components in N·m (the tensor is symmetric).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moment {
    #[serde(default)]
    pub xx: f64,
    #[serde(default)]
    pub yy: f64,
    #[serde(default)]
    pub zz: f64,
    #[serde(default)]
    pub xy: f64,
    #[serde(default)]
    pub xz: f64,
    #[serde(default)]
    pub yz: f64,
}

impl Moment {
    /// Components in the order xx, yy, zz, xy, xz, yz.
    pub fn components(&self) -> [f64; 6] {
        [self.xx, self.yy, self.zz, self.xy, self.xz, self.yz]
    }
}

/// Source-time function: the moment rate is the tensor times this normalized function
/// (its integral over time is 1).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Stf {
    /// Brune: t/T² · exp(−t/T) for t ≥ 0.
    Brune {
        #[serde(rename = "T")]
        t: f64,
    },
    /// Gaussian: exp(−(t − t0)²/(2σ²)) / (σ√(2π)).
    Gaussian { sigma: f64, t0: f64 },
}

impl Stf {
    /// The normalized moment rate at time `t` (1/s).
    pub fn rate(&self, t: f64) -> f64 {
        match *self {
            Stf::Brune { t: tt } => {
                if t < 0.0 {
                    0.0
                } else {
                    t / (tt * tt) * (-t / tt).exp()
                }
            }
            Stf::Gaussian { sigma, t0 } => {
                (-(t - t0).powi(2) / (2.0 * sigma * sigma)).exp()
                    / (sigma * (2.0 * std::f64::consts::PI).sqrt())
            }
        }
    }
}

/// A moment-tensor point source.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// [x, y, z] in metres.
    pub location: [f64; 3],
    pub moment: Moment,
    pub stf: Stf,
}

/// A receiver: velocity seismograms are recorded there every step.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receiver {
    pub name: String,
    /// [x, y, z] in metres.
    pub location: [f64; 3],
}

/// What to write.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Directory for seismograms and pictures (created).
    #[serde(default = "default_dir")]
    pub dir: PathBuf,
    /// Write `seismograms.png` and `pgv.png`.
    #[serde(default = "yes")]
    pub plots: bool,
}

fn default_dir() -> PathBuf {
    "seismic-out".into()
}
fn yes() -> bool {
    true
}

impl Default for Output {
    fn default() -> Self {
        Output {
            dir: default_dir(),
            plots: true,
        }
    }
}

/// The stability limit of dt·Vp/h for the 4th-order staggered scheme in 3-D:
/// 1/(√3·(|c1| + |c2|)) with c1 = 9/8, c2 = −1/24.
pub const CFL_LIMIT: f64 = 0.494_871_659_305_393_9;

impl Config {
    /// Reads and checks a configuration file.
    ///
    /// # Errors
    /// [`ConfigError`] when the file cannot be read or parsed, or a value is invalid.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
            path: path.into(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// Parses and checks configuration text (`path` names it in messages).
    ///
    /// # Errors
    /// [`ConfigError`] for a syntax error or an invalid value.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.into(),
            message: e.to_string(),
        })?;
        c.check()?;
        Ok(c)
    }

    /// The elastic materials the model uses (for the CFL check).
    fn materials(&self) -> Vec<Elastic> {
        match &self.material {
            Material::Homogeneous {
                vp,
                vs,
                rho,
                qp,
                qs,
            } => vec![Elastic {
                vp: *vp,
                vs: *vs,
                rho: *rho,
                qp: *qp,
                qs: *qs,
            }],
            Material::Layered { layers } => layers
                .iter()
                .map(|l| Elastic {
                    vp: l.vp,
                    vs: l.vs,
                    rho: l.rho,
                    qp: l.qp,
                    qs: l.qs,
                })
                .collect(),
            Material::File { .. } => Vec::new(),
        }
    }

    /// Whether any material has a quality factor, so that the run is anelastic.
    pub fn anelastic(&self) -> bool {
        match &self.material {
            Material::File { qp, qs, .. } => qp.is_some() || qs.is_some(),
            _ => self
                .materials()
                .iter()
                .any(|m| m.qp.is_some() || m.qs.is_some()),
        }
    }

    /// Checks every value that does not depend on the resolution.
    ///
    /// # Errors
    /// The first [`ConfigError`] found.
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |field: &str, value: f64, why: &str| ConfigError::Value {
            field: field.into(),
            value: value.to_string(),
            why: why.into(),
        };
        let g = &self.grid;
        for (i, &l) in g.extent.iter().enumerate() {
            if !positive(l) {
                return Err(bad(
                    &format!("grid.extent[{i}]"),
                    l,
                    "the domain size must be positive (metres)",
                ));
            }
        }
        check_step(g.spacing, g.dt, "grid")?;
        if let Some(c) = g.coarse {
            check_step(c.spacing, c.dt, "grid.coarse")?;
        }
        if !positive(g.duration) {
            return Err(bad(
                "grid.duration",
                g.duration,
                "the simulated time must be positive (seconds)",
            ));
        }
        for m in self.materials() {
            for (name, v) in [("vp", m.vp), ("vs", m.vs), ("rho", m.rho)] {
                if !positive(v) {
                    return Err(bad(
                        &format!("material.{name}"),
                        v,
                        "velocities and density must be positive",
                    ));
                }
            }
            if m.vp * m.vp <= 4.0 / 3.0 * m.vs * m.vs {
                return Err(bad(
                    "material.vp",
                    m.vp,
                    "Vp must exceed Vs·√(4/3) (a positive bulk modulus)",
                ));
            }
        }
        let qs: Vec<(Option<f64>, Option<f64>)> = match &self.material {
            Material::File { qp, qs, .. } => vec![(*qp, *qs)],
            _ => self.materials().iter().map(|m| (m.qp, m.qs)).collect(),
        };
        for (qp, qs) in qs {
            for (name, q) in [("qp", qp), ("qs", qs)] {
                if let Some(q) = q
                    && !(q >= Q_MIN && q.is_finite())
                {
                    return Err(bad(
                        &format!("material.{name}"),
                        q,
                        "a quality factor must be at least 5 (leave it out for no attenuation)",
                    ));
                }
            }
        }
        if self.anelastic() {
            let a = &self.attenuation;
            if !(positive(a.band[0]) && positive(a.band[1]) && a.band[1] >= 4.0 * a.band[0]) {
                return Err(ConfigError::Value {
                    field: "attenuation.band".into(),
                    value: format!("{:?}", a.band),
                    why: "give [f_min, f_max] in Hz with f_max ≥ 4·f_min > 0".into(),
                });
            }
            if !positive(a.reference_frequency) {
                return Err(bad(
                    "attenuation.reference_frequency",
                    a.reference_frequency,
                    "the reference frequency must be positive (Hz)",
                ));
            }
        }
        if let Material::Layered { layers } = &self.material {
            if layers.is_empty() {
                return Err(ConfigError::Value {
                    field: "material.layers".into(),
                    value: "[]".into(),
                    why: "give at least one layer".into(),
                });
            }
            for (i, l) in layers.iter().enumerate() {
                match l.thickness {
                    Some(t) if !positive(t) => {
                        return Err(bad(
                            &format!("material.layers[{i}].thickness"),
                            t,
                            "layer thickness must be positive",
                        ));
                    }
                    None if i + 1 < layers.len() => {
                        return Err(ConfigError::Value {
                            field: format!("material.layers[{i}].thickness"),
                            value: "missing".into(),
                            why: "only the last layer (the half-space) may omit its thickness"
                                .into(),
                        });
                    }
                    _ => {}
                }
            }
        }
        if self.sponge.width == 0
            || !(self.sponge.edge_factor > 0.0 && self.sponge.edge_factor < 1.0)
        {
            return Err(bad(
                "sponge.edge_factor",
                self.sponge.edge_factor,
                "the sponge needs a width ≥ 1 and an edge factor in (0, 1)",
            ));
        }
        if self.sources.is_empty() {
            return Err(ConfigError::Value {
                field: "source".into(),
                value: "none".into(),
                why: "give at least one [[source]]".into(),
            });
        }
        for s in &self.sources {
            match s.stf {
                Stf::Brune { t } if !positive(t) => {
                    return Err(bad(
                        "source.stf.T",
                        t,
                        "the Brune rise time must be positive",
                    ));
                }
                Stf::Gaussian { sigma, .. } if !positive(sigma) => {
                    return Err(bad("source.stf.sigma", sigma, "the width must be positive"));
                }
                _ => {}
            }
            self.inside("source", "", s.location)?;
        }
        for r in &self.receivers {
            self.inside("receiver", &r.name, r.location)?;
        }
        Ok(())
    }

    fn inside(&self, what: &'static str, name: &str, p: [f64; 3]) -> Result<(), ConfigError> {
        let e = self.grid.extent;
        if (0..3).all(|i| p[i] >= 0.0 && p[i] <= e[i]) {
            Ok(())
        } else {
            Err(ConfigError::Outside {
                what,
                name: name.into(),
                x: p[0],
                y: p[1],
                z: p[2],
                lx: e[0],
                ly: e[1],
                lz: e[2],
            })
        }
    }

    /// Checks the CFL number of spacing `h` and step `dt` against the fastest P velocity.
    ///
    /// # Errors
    /// [`ConfigError::Cfl`] when dt·Vp,max/h exceeds [`CFL_LIMIT`].
    pub fn check_cfl(h: f64, dt: f64, vp_max: f64) -> Result<(), ConfigError> {
        let number = dt * vp_max / h;
        if number > CFL_LIMIT {
            return Err(ConfigError::Cfl {
                dt,
                vp_max,
                h,
                number,
                limit: CFL_LIMIT,
                dt_max: CFL_LIMIT * h / vp_max,
            });
        }
        Ok(())
    }
}

/// Whether `v` is a positive finite number (NaN is not).
pub fn positive(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

fn check_step(h: f64, dt: f64, table: &str) -> Result<(), ConfigError> {
    if !positive(h) {
        return Err(ConfigError::Value {
            field: format!("{table}.spacing"),
            value: h.to_string(),
            why: "the grid spacing must be positive (metres)".into(),
        });
    }
    if !positive(dt) {
        return Err(ConfigError::Value {
            field: format!("{table}.dt"),
            value: dt.to_string(),
            why: "the time step must be positive (seconds)".into(),
        });
    }
    Ok(())
}
