//! The Hand-CUDA references (`cuda/hand.cu`): hand-tuned kernels for the Table 6.3 kernels
//! and the radius-4 star, run on Mint's device arrays through `mint-runtime` so both
//! sides pay the same host costs. Each kernel has several strategies; the harness checks
//! each against the serial reference and keeps the fastest correct one.

use crate::suite::{Kernel, Precision};
use mint::cuda::{Gpu, RawArg, RawArray, RawKernel, ScalarValue};
use std::sync::Arc;

/// The CUDA source of the references.
pub const SOURCE: &str = include_str!("../cuda/hand.cu");

/// The hand-written entry points of `k` (strategy name, entry), empty if it has none.
pub fn variants(k: Kernel) -> Vec<(&'static str, String)> {
    let base = match k {
        Kernel::Heat2d => "heat5",
        Kernel::Heat3d => "heat7",
        Kernel::Poisson7 => "poisson7",
        Kernel::Heat7Var => "var7",
        Kernel::Poisson19 => "p19",
        Kernel::Star3d(4) => "star_r4",
        _ => return Vec::new(),
    };
    let mut v = vec![("direct", format!("{base}_direct"))];
    if !matches!(k, Kernel::Poisson19) {
        v.push(("vec", format!("{base}_vec")));
    }
    if matches!(
        k,
        Kernel::Heat3d | Kernel::Poisson7 | Kernel::Star3d(4) | Kernel::Poisson19
    ) {
        v.push(("stream", format!("{base}_stream")));
    }
    v
}

/// Runs `steps` steps of `entry` from the arrays of an instance (see
/// [`crate::suite::Instance::arrays`]); returns the solution and, when `timed`, the
/// device time of each step.
///
/// # Errors
/// [`mint::Error`] compiling or launching the kernel.
#[allow(clippy::too_many_arguments)]
pub fn run(
    gpu: &Arc<Gpu>,
    k: Kernel,
    p: Precision,
    entry: &str,
    shape: &[usize],
    arrays: &[(&'static str, Vec<f64>)],
    coefs: &[f64],
    steps: usize,
    timed: bool,
) -> mint::Result<(Vec<f64>, Vec<f64>)> {
    match p {
        Precision::F32 => run_t::<f32>(gpu, k, entry, shape, arrays, coefs, steps, timed, "float"),
        Precision::F64 => run_t::<f64>(gpu, k, entry, shape, arrays, coefs, steps, timed, "double"),
    }
}

trait Real: mint::__rt::Element + Copy {
    fn of(v: f64) -> Self;
    fn to(self) -> f64;
}
impl Real for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn to(self) -> f64 {
        self as f64
    }
}
impl Real for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn to(self) -> f64 {
        self
    }
}

#[allow(clippy::too_many_arguments)]
fn run_t<T: Real>(
    gpu: &Arc<Gpu>,
    k: Kernel,
    entry: &str,
    shape: &[usize],
    arrays: &[(&'static str, Vec<f64>)],
    coefs: &[f64],
    steps: usize,
    timed: bool,
    cname: &str,
) -> mint::Result<(Vec<f64>, Vec<f64>)> {
    let r = k.radius();
    let source = format!("typedef {cname} real;\n{SOURCE}");
    let kernel = RawKernel::new(gpu, &format!("hand.{cname}.{entry}"), &source, entry)?;
    let host = |name: &str| -> Option<Vec<T>> {
        arrays
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.iter().map(|&x| T::of(x)).collect())
    };
    let (nz, ny, nx) = if shape.len() == 2 {
        (1, shape[0], shape[1])
    } else {
        (shape[0], shape[1], shape[2])
    };
    // as 3-D arrays (a 2-D grid is one plane), so the device layout is Mint's
    let to3 = |v: Vec<T>| ndarray::Array3::from_shape_vec((nz, ny, nx), v).expect("shape");
    let u0 = to3(host("u").expect("every kernel has u"));
    let bufs = [
        RawArray::upload(gpu, "u", &u0, r)?,
        RawArray::upload(gpu, "unew", &u0, r)?,
    ];
    let b = host("b")
        .map(|b| RawArray::upload(gpu, "b", &to3(b), r))
        .transpose()?;
    let kk = host("kappa")
        .map(|kk| RawArray::upload(gpu, "kappa", &to3(kk), r))
        .transpose()?;
    let (pitch, slice) = (bufs[0].pitch() as i32, bufs[0].slice() as i32);
    let sc = |v: f64| RawArg::Scalar(ScalarValue::of(T::of(v)));
    let (c0, c1) = match k {
        Kernel::Star3d(rr) => (sc(1.0 / (6.0 * rr as f64)), sc(0.0)),
        Kernel::Heat7Var => (sc(coefs[0]), sc(0.0)),
        _ => (sc(coefs[0]), sc(coefs[1])),
    };
    // 1.0 / (6.0 * R) computed in the kernel's precision, as the Mint kernel does
    let c0 = match (k, std::mem::size_of::<T>()) {
        (Kernel::Star3d(rr), 4) => RawArg::Scalar(ScalarValue::of(1.0f32 / (6.0f32 * rr as f32))),
        _ => c0,
    };
    let interior = [
        nx.saturating_sub(2 * r),
        ny.saturating_sub(2 * r),
        if shape.len() == 2 {
            1
        } else {
            nz.saturating_sub(2 * r)
        },
    ];
    let vw = 16 / std::mem::size_of::<T>();
    let block = [32u32, 8, 1];
    let gx = |n: usize| (n as u32).div_ceil(block[0]);
    let gy = (interior[1] as u32).div_ceil(block[1]);
    let grid = if entry.ends_with("_vec") {
        [gx(interior[0].div_ceil(vw)), gy, interior[2] as u32]
    } else if entry.ends_with("_stream") {
        [gx(interior[0]), gy, (interior[2] as u32).div_ceil(32)]
    } else {
        [gx(interior[0]), gy, interior[2] as u32]
    };
    let mut times = Vec::new();
    for s in 0..steps {
        let (src, dst) = (&bufs[s % 2], &bufs[(s + 1) % 2]);
        let mut args = vec![
            RawArg::Ptr(src.ptr()),
            RawArg::Ptr(dst.ptr()),
            RawArg::Ptr(b.as_ref().map(|x| x.ptr()).unwrap_or(0)),
        ];
        if let Some(kk) = &kk {
            args.push(RawArg::Ptr(kk.ptr()));
        }
        args.extend([
            RawArg::I32(pitch),
            RawArg::I32(slice),
            RawArg::I32(nx as i32),
            RawArg::I32(ny as i32),
            RawArg::I32(nz as i32),
            c0,
            c1,
        ]);
        times.push(kernel.launch(grid, block, 0, &args, timed)?);
    }
    let mut out = ndarray::Array3::<T>::from_elem((nz, ny, nx), T::of(0.0));
    bufs[steps % 2].download(&mut out)?;
    Ok((out.iter().map(|&x| x.to()).collect(), times))
}
