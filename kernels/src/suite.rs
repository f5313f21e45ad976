//! One interface over every kernel of the suite, for tests and benchmarks.

use crate::Opts;

/// Element precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    F32,
    F64,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }
    /// The relative tolerance against a serial reference: 1e-5 (f32), 1e-12 (f64).
    pub fn tolerance(self) -> f64 {
        match self {
            Precision::F32 => 1e-5,
            Precision::F64 => 1e-12,
        }
    }
    pub fn parse(s: &str) -> Option<Precision> {
        match s {
            "f32" => Some(Precision::F32),
            "f64" => Some(Precision::F64),
            _ => None,
        }
    }
}

/// A kernel of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// 2-D heat 5-point (Table 6.3).
    Heat2d,
    /// 3-D heat 7-point (Table 6.3, Table 3.1).
    Heat3d,
    /// 3-D Poisson 7-point (Table 6.3).
    Poisson7,
    /// 3-D heat 7-point, variable coefficient (Table 6.3).
    Heat7Var,
    /// 3-D Poisson 19-point (Table 6.3).
    Poisson19,
    /// 27-point box.
    Box27,
    /// 13-point 4th-order star (radius 2).
    Star13,
    /// Farstad's star of radius R in 2-D.
    Star2d(u32),
    /// Farstad's star of radius R in 3-D.
    Star3d(u32),
    /// miniAMR 7-point average.
    MiniAmr,
    /// 3-D heat 7-point with zero-flux faces written as `if`/`else` on the index (a
    /// thermal benchmark's boundaries, issue #41): every point is updated.
    HeatClamped,
}

/// A problem instance: arrays, coefficients, and how to run it.
pub trait Instance {
    /// `steps` steps with the Mint kernel compiled with `opts`, at `tile`/`chunk`.
    ///
    /// # Errors
    /// As the kernel's region.
    fn run(
        &mut self,
        opts: Opts,
        tile: [u32; 3],
        chunk: [u32; 3],
        steps: usize,
    ) -> mint::Result<()>;
    /// `steps` steps of the serial reference.
    fn serial(&mut self, steps: usize);
    /// The current solution, as `f64`, in row-major order.
    fn output(&self) -> Vec<f64>;
    /// Every array by name (solution first), as `f64`, row-major.
    fn arrays(&self) -> Vec<(&'static str, Vec<f64>)>;
    /// The coefficients, in declaration order.
    fn coefs(&self) -> Vec<f64>;
    /// The coefficients' names, in declaration order (the kernel's scalar names).
    fn coef_names(&self) -> Vec<&'static str>;
    /// The module holding this precision's kernels (`mint_kernels::heat3d::f64`), whose
    /// kernel sites are `<module>::k_<options>_0`.
    fn module(&self) -> &'static str;
}

impl Kernel {
    /// Every kernel of the suite.
    pub const ALL: [Kernel; 17] = [
        Kernel::Heat2d,
        Kernel::Heat3d,
        Kernel::Poisson7,
        Kernel::Heat7Var,
        Kernel::Poisson19,
        Kernel::Box27,
        Kernel::Star13,
        Kernel::Star2d(1),
        Kernel::Star2d(2),
        Kernel::Star2d(4),
        Kernel::Star2d(8),
        Kernel::Star3d(1),
        Kernel::Star3d(2),
        Kernel::Star3d(4),
        Kernel::Star3d(8),
        Kernel::MiniAmr,
        Kernel::HeatClamped,
    ];

    pub fn name(self) -> String {
        match self {
            Kernel::Heat2d => "heat2d-5pt".into(),
            Kernel::Heat3d => "heat3d-7pt".into(),
            Kernel::Poisson7 => "poisson3d-7pt".into(),
            Kernel::Heat7Var => "heat3d-7pt-var".into(),
            Kernel::Poisson19 => "poisson3d-19pt".into(),
            Kernel::Box27 => "box3d-27pt".into(),
            Kernel::Star13 => "star3d-13pt".into(),
            Kernel::Star2d(r) => format!("star2d-r{r}"),
            Kernel::Star3d(r) => format!("star3d-r{r}"),
            Kernel::MiniAmr => "miniamr-7pt".into(),
            Kernel::HeatClamped => "heat3d-7pt-clamped".into(),
        }
    }

    pub fn parse(s: &str) -> Option<Kernel> {
        Kernel::ALL.iter().copied().find(|k| k.name() == s)
    }

    pub fn dims(self) -> usize {
        match self {
            Kernel::Heat2d | Kernel::Star2d(_) => 2,
            _ => 3,
        }
    }

    /// Points within this distance of the edge are not updated.
    pub fn radius(self) -> usize {
        match self {
            Kernel::Star13 => 2,
            Kernel::Star2d(r) | Kernel::Star3d(r) => r as usize,
            Kernel::HeatClamped => 0,
            _ => 1,
        }
    }

    /// Floating-point operations per point (the thesis's counts for Table 6.3; the
    /// 19-point kernel uses its 15 after common-subexpression elimination, Sec. 5.1.3).
    pub fn flops_per_point(self) -> f64 {
        match self {
            Kernel::Heat2d => crate::heat2d::FLOPS_PER_POINT,
            Kernel::Heat3d => crate::heat3d::FLOPS_PER_POINT,
            Kernel::Poisson7 => crate::poisson7::FLOPS_PER_POINT,
            Kernel::Heat7Var => crate::heat7var::FLOPS_PER_POINT,
            Kernel::Poisson19 => crate::poisson19::FLOPS_PER_POINT,
            Kernel::Box27 => crate::box27::FLOPS_PER_POINT,
            Kernel::Star13 => crate::star13::FLOPS_PER_POINT,
            Kernel::Star2d(r) => crate::star::flops_per_point(2, r),
            Kernel::Star3d(r) => crate::star::flops_per_point(3, r),
            Kernel::MiniAmr => crate::miniamr::FLOPS_PER_POINT,
            Kernel::HeatClamped => crate::heatclamped::FLOPS_PER_POINT,
        }
    }

    /// Compulsory words moved per point per step: each input read once, the output
    /// written once.
    pub fn words_per_point(self) -> f64 {
        match self {
            Kernel::Poisson7 | Kernel::Poisson19 => 3.0,
            Kernel::Heat7Var => 4.0,
            _ => 2.0,
        }
    }

    /// Updated points per step on a grid of `shape`.
    pub fn points(self, shape: &[usize]) -> f64 {
        let r = self.radius();
        shape
            .iter()
            .map(|&n| n.saturating_sub(2 * r) as f64)
            .product()
    }

    /// A problem of `shape` (`[ny, nx]` or `[nz, ny, nx]`) with deterministic pseudo-random
    /// data from `seed`.
    pub fn instance(self, precision: Precision, shape: &[usize], seed: u64) -> Box<dyn Instance> {
        let s3 = || [shape[0], shape[1], shape[2]];
        let s2 = || [shape[0], shape[1]];
        match (self, precision) {
            (Kernel::Heat2d, Precision::F32) => Box::new(crate::heat2d::f32::Inst::new(s2(), seed)),
            (Kernel::Heat2d, Precision::F64) => Box::new(crate::heat2d::f64::Inst::new(s2(), seed)),
            (Kernel::Heat3d, Precision::F32) => Box::new(crate::heat3d::f32::Inst::new(s3(), seed)),
            (Kernel::Heat3d, Precision::F64) => Box::new(crate::heat3d::f64::Inst::new(s3(), seed)),
            (Kernel::Poisson7, Precision::F32) => {
                Box::new(crate::poisson7::f32::Inst::new(s3(), seed))
            }
            (Kernel::Poisson7, Precision::F64) => {
                Box::new(crate::poisson7::f64::Inst::new(s3(), seed))
            }
            (Kernel::Heat7Var, Precision::F32) => {
                Box::new(crate::heat7var::f32::Inst::new(s3(), seed))
            }
            (Kernel::Heat7Var, Precision::F64) => {
                Box::new(crate::heat7var::f64::Inst::new(s3(), seed))
            }
            (Kernel::Poisson19, Precision::F32) => {
                Box::new(crate::poisson19::f32::Inst::new(s3(), seed))
            }
            (Kernel::Poisson19, Precision::F64) => {
                Box::new(crate::poisson19::f64::Inst::new(s3(), seed))
            }
            (Kernel::Box27, Precision::F32) => Box::new(crate::box27::f32::Inst::new(s3(), seed)),
            (Kernel::Box27, Precision::F64) => Box::new(crate::box27::f64::Inst::new(s3(), seed)),
            (Kernel::Star13, Precision::F32) => Box::new(crate::star13::f32::Inst::new(s3(), seed)),
            (Kernel::Star13, Precision::F64) => Box::new(crate::star13::f64::Inst::new(s3(), seed)),
            (Kernel::Star2d(r), p) => crate::star::instance2(r, p, s2(), seed),
            (Kernel::Star3d(r), p) => crate::star::instance3(r, p, s3(), seed),
            (Kernel::MiniAmr, Precision::F32) => {
                Box::new(crate::miniamr::f32::Inst::new(s3(), seed))
            }
            (Kernel::MiniAmr, Precision::F64) => {
                Box::new(crate::miniamr::f64::Inst::new(s3(), seed))
            }
            (Kernel::HeatClamped, Precision::F32) => {
                Box::new(crate::heatclamped::f32::Inst::new(s3(), seed))
            }
            (Kernel::HeatClamped, Precision::F64) => {
                Box::new(crate::heatclamped::f64::Inst::new(s3(), seed))
            }
        }
    }
}

/// A deterministic pseudo-random value in [0, 1) for index `i` and `seed` (SplitMix64).
pub fn rnd(i: usize, seed: u64) -> f64 {
    let mut x = (i as u64).wrapping_mul(0x9E3779B97F4A7C15) ^ seed.wrapping_mul(0xD1B54A32D192ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58476D1CE4E5B9);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// Largest |a − b| over max |b|: the relative error the tests hold to tolerance.
pub fn max_rel_err(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let mut m = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        if x.is_nan() || y.is_nan() {
            return f64::INFINITY;
        }
        m = m.max((x - y).abs() / scale);
    }
    m
}

/// Builds the per-precision `Inst` type of a kernel module: its arrays are `fields`
/// (each initialized from `rnd` with its own seed offset and affine map), `aux` scalars,
/// and `run`/`serial` calls.
macro_rules! instance {
    (
        $t:ident, $arr:ident, $shape:ty,
        arrays |$gen:ident| { $($f:ident = $init:expr;)* }
        state $s:ident
        coefs { $($c:ident : $cv:expr),* }
        run($($ra:tt)*)
        serial($($sa:tt)*)
    ) => {
        /// A problem instance in this precision.
        pub struct Inst {
            $(pub $f: ndarray::$arr<$t>,)*
            $(pub $c: $t,)*
        }
        impl Inst {
            /// Deterministic pseudo-random arrays of `shape`, from `seed`.
            pub fn new(shape: $shape, seed: u64) -> Inst {
                let mut k = 0u64;
                let mut $gen = |lo: f64, hi: f64| -> ndarray::$arr<$t> {
                    use ndarray::{Dimension, IntoDimension};
                    use rayon::prelude::*;
                    k += 1;
                    let s = seed.wrapping_add(k * 1000);
                    // element i (1-based, row-major) is rnd(i, s); filled in parallel,
                    // since a 512³ instance has 134M points per array
                    let len = shape.into_dimension().size();
                    let v: Vec<$t> = (1..=len)
                        .into_par_iter()
                        .map(|i| (lo + (hi - lo) * $crate::suite::rnd(i, s)) as $t)
                        .collect();
                    ndarray::$arr::<$t>::from_shape_vec(shape, v).expect("the shape's size")
                };
                $(let $f = $init;)*
                let _ = &mut $gen;
                Inst { $($f,)* $($c: $cv,)* }
            }
        }
        impl $crate::suite::Instance for Inst {
            fn run(&mut self, opts: $crate::Opts, tile: [u32; 3], chunk: [u32; 3], steps: usize) -> mint::Result<()> {
                let Inst { $($f,)* $($c,)* } = self;
                $(let $c = *$c;)*
                run(opts, $($ra)*, steps, tile, chunk)
            }
            fn serial(&mut self, steps: usize) {
                #[allow(unused_variables)]
                let Inst { $($f,)* $($c,)* } = self;
                $(let $c = *$c;)*
                serial($($sa)*, steps)
            }
            fn output(&self) -> Vec<f64> {
                self.$s.iter().map(|&v| v as f64).collect()
            }
            fn arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
                vec![$((stringify!($f), self.$f.iter().map(|&v| v as f64).collect())),*]
            }
            fn coefs(&self) -> Vec<f64> {
                vec![$(self.$c as f64),*]
            }
            fn coef_names(&self) -> Vec<&'static str> {
                vec![$(stringify!($c)),*]
            }
            fn module(&self) -> &'static str {
                module_path!()
            }
        }
    };
}
