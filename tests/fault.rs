//! A kernel that faults on the device is reported as a `mint::Error` naming it, and a
//! `copy!(.., from_device)` after it leaves the host array as it was. A device fault
//! poisons the CUDA context for the rest of the process, so this test has its own binary.

mod common;

use ndarray::Array1;

#[mint::parallel]
fn wild_write(a: &mut Array1<f64>, far: usize) -> mint::Result<()> {
    let n = a.len();
    mint::copy!(a, to_device);
    #[mint::r#for(nowait)]
    for i in 0..n {
        a[i + far] = 1.0;
    }
    mint::copy!(a, from_device);
    Ok(())
}

#[test]
fn a_faulting_kernel_is_an_error_and_the_host_array_is_untouched() {
    let Some(d) = common::gpu() else { return };
    // 64 MiB: large enough to go through the page-locked ring (mint_runtime::transfer)
    let mut a = Array1::from_elem(1 << 23, 7.0);
    let e = mint::with_device(d, || wild_write(&mut a, 2_000_000_000)).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, mint::Error::Launch { .. }), "{msg}");
    assert!(
        msg.contains("nowait") || msg.contains("wild_write"),
        "{msg}"
    );
    assert!(a.iter().all(|&v| v == 7.0), "host data untouched");
}

/// On one emulated device (`cpu:1`) the kernel runs on a copy: the fault is
/// `IndexOutOfBounds`, and the host array keeps every value (the plain CPU backend runs
/// on the host array itself; the guide's errors page says so).
#[test]
fn on_one_emulated_device_a_fault_leaves_the_host_array_untouched() {
    let n = 1000;
    let mut a = Array1::from_elem(n, 7.0);
    let e = mint::with_device(mint::Device::Cpus(1), || wild_write(&mut a, 10)).unwrap_err();
    assert!(
        matches!(&e, mint::Error::IndexOutOfBounds { array, .. } if array == "a"),
        "{e}"
    );
    assert!(a.iter().all(|&v| v == 7.0), "host data untouched on cpu:1");
}
