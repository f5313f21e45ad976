//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod interp_store;

use mint::Device;
use ndarray::{ArrayBase, Data, Dimension};

/// The backends to run a test on: the CPU always, the CPU emulating 2, 3 and 4 devices
/// (the decomposition over several devices, bitwise equal to one device), CUDA device 0
/// when present. With `MINT_DEVICE=cuda` a missing device is a failure, not a skip.
pub fn backends() -> Vec<Device> {
    let mut v = vec![Device::Cpu];
    v.extend(SPLITS);
    if let Some(d) = gpu() {
        v.push(d)
    }
    v
}

/// The emulated multi-device backends the tests run: 2, 3 and 4 devices.
pub const SPLITS: [Device; 3] = [Device::Cpus(2), Device::Cpus(3), Device::Cpus(4)];

/// The GPU splits the tests run when a GPU is present: two and three slabs on GPU 0
/// (`cuda:0,0`, `cuda:0,0,0`, which run the whole multi-GPU path on one GPU) and, on a
/// machine with several GPUs, every GPU (`cuda:all`).
pub fn gpu_splits() -> Vec<Device> {
    let mut v = gpu_pair_splits();
    v.insert(1, Device::parse("cuda:0,0,0").unwrap());
    v
}

/// The GPU splits the longer tests run: two slabs on GPU 0 (`cuda:0,0`) and, on a
/// machine with several GPUs, every GPU (`cuda:all`).
pub fn gpu_pair_splits() -> Vec<Device> {
    let mut v = vec![Device::parse("cuda:0,0").unwrap()];
    if mint::cuda_device_count() > 1 {
        v.push(Device::CudaAll);
    }
    v
}

/// One device and the splits whose results must equal its own bit for bit: the CPU with
/// [`SPLITS`], and CUDA device 0 with [`gpu_splits`] when a GPU is present (after printing
/// why the GPU half is skipped otherwise).
pub fn split_families() -> Vec<(Device, Vec<Device>)> {
    let mut v = vec![(Device::Cpu, SPLITS.to_vec())];
    if let Some(g) = gpu() {
        v.push((g, gpu_splits()));
    }
    v
}

/// Whether `d` runs the CPU versions of the kernels (one device or several emulated), so
/// results equal the serial loops' bit for bit.
pub fn is_cpu(d: Device) -> bool {
    matches!(d, Device::Cpu | Device::Cpus(_))
}

/// CUDA device 0, or `None` after printing why the CUDA part is skipped.
pub fn gpu() -> Option<Device> {
    if mint::cuda_available() {
        Some(Device::Cuda(0))
    } else if mint::cuda_required() {
        panic!(
            "MINT_DEVICE=cuda but no usable CUDA device: {:?}",
            mint::backend().err()
        );
    } else {
        eprintln!("skipped: no CUDA device (the CUDA half of this test did not run)");
        None
    }
}

/// Largest |a - b| / max(|b|, tiny) over the arrays; NaN anywhere fails.
pub fn max_rel_err<S1, S2, D>(a: &ArrayBase<S1, D>, b: &ArrayBase<S2, D>) -> f64
where
    S1: Data,
    S2: Data,
    S1::Elem: Copy + Into<f64>,
    S2::Elem: Copy + Into<f64>,
    D: Dimension,
{
    assert_eq!(a.shape(), b.shape());
    let scale = b
        .iter()
        .map(|&v| v.into().abs())
        .fold(0.0f64, f64::max)
        .max(1e-300);
    let mut m = 0.0f64;
    for (&x, &y) in a.iter().zip(b.iter()) {
        let (x, y): (f64, f64) = (x.into(), y.into());
        if x.is_nan() || y.is_nan() {
            return f64::INFINITY;
        }
        m = m.max((x - y).abs() / scale);
    }
    m
}

/// Tolerance by element type: 1e-12 relative for f64, 1e-5 for f32.
pub fn tol<T: 'static>() -> f64 {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        1e-5
    } else {
        1e-12
    }
}

/// A deterministic pseudo-random value in [0, 1) for index `i` and `seed`: the kernel
/// suite's generator.
#[allow(unused_imports)]
pub use mint_kernels::suite::rnd;

/// The seismic example's source directory: relative to the working directory (the package root
/// under `cargo test`, the checkout's copy under .gpu/run-gpu.sh), else where it was built.
pub fn seismic_dir() -> std::path::PathBuf {
    let rel = std::path::Path::new("examples/seismic");
    if rel.join("loh1.toml").exists() {
        rel.to_path_buf()
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
    }
}

/// `b`, leaked: the `'static` names, IR and sites a test builds at run time.
pub fn leak<T: ?Sized>(b: Box<T>) -> &'static T {
    Box::leak(b)
}

/// The site of kernel `k` built at run time (its IR serialized, as the macros embed it),
/// named as reported from `module` at `file:line`.
pub fn site_of(
    k: &mint_translator::ir::Kernel,
    module: &'static str,
    file: &'static str,
    line: u32,
) -> mint::__rt::KernelSite {
    let json = serde_json::to_string(k).expect("IR serializes");
    mint::__rt::KernelSite::new(
        leak(k.name.clone().into_boxed_str()),
        module,
        file,
        line,
        leak(json.into_boxed_str()),
        &[],
    )
}

/// The launches of the kernel of `region` (its first `#[mint::r#for]`) while `run` runs.
/// The statistics are the process's, and the tests run in parallel: each region is
/// counted by difference, never by a reset that another test's count would see.
pub fn launches(region: &str, run: impl FnOnce()) -> u64 {
    let count = || mint::kernel_stat(&format!("{region}_0")).map_or(0, |s| s.launches);
    let before = count();
    run();
    count() - before
}

/// The launches of a blocked time loop of `steps` steps at depth `k` on one GPU: fused
/// while more than `k` steps are left (the loop's last step runs alone), then step by step.
pub fn fused_launches(steps: usize, k: usize) -> usize {
    (steps - 1) / k + (steps - 1) % k + 1
}

/// One launch of `kernel` in the IR interpreter (`mint_testing::interp`) over its parallel
/// loops, their bounds evaluated in `env` (the kernel's scalars by name), on `arrays` and
/// `scalars` in the kernel's parameter order. `what` names the kernel in a failure.
pub fn interpret_once(
    kernel: &mint_translator::ir::Kernel,
    arrays: &mut [mint_testing::interp::Array],
    scalars: &[mint_testing::interp::Value],
    env: &std::collections::HashMap<String, mint_testing::interp::Value>,
    what: &str,
) {
    use mint_testing::interp;
    let bounds: Vec<(i64, i64)> = kernel
        .nest
        .iter()
        .map(|l| {
            let b = |e: &Option<mint_translator::ir::Expr>| {
                interp::eval(e.as_ref().expect("a bound"), env)
                    .unwrap_or_else(|e| panic!("{what}: bound: {e}"))
                    .as_f64() as i64
            };
            (b(&l.lo), b(&l.hi) + l.inclusive as i64)
        })
        .collect();
    let launch = interp::Launch {
        arrays,
        scalars,
        bounds: &bounds,
        reduction: None,
    };
    interp::run(kernel, launch).unwrap_or_else(|e| panic!("{what}: {e}"));
}
