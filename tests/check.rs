//! A decomposition that holds too few planes is caught, never silently wrong (issue #41):
//! with the ghost width forced below what the kernel reaches, the CPU backend's views
//! (`cpu:2`, always) and `MINT_CHECK` on a GPU (`cuda:0,0`) report the first read outside
//! the planes a device holds as [`mint::Error::OutsideSlab`]. A binary of its own: the
//! forced width is process-wide. And no fault the CPU backend catches prints panic text:
//! the faults run in a child process whose stderr is read.

mod common;

use mint::Device;
use ndarray::{Array1, Array3};

#[mint::parallel]
fn heat(u: &mut Array3<f64>, v: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    copy!(u, to_device);
    copy!(v, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 4, 1))]
        for z in 0..nz {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let b = if z == 0 { z } else { z - 1 };
                    let t = (z + 1).min(nz - 1);
                    v[[z, y, x]] = 0.5 * u[[z, y, x]]
                        + 0.125
                            * (u[[b, y, x]] + u[[t, y, x]] + u[[z, y - 1, x]] + u[[z, y + 1, x]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
    copy!(u, from_device);
    Ok(())
}

fn run(d: Device) -> mint::Result<Array3<f64>> {
    let mut u = Array3::from_shape_fn((11, 6, 7), |(z, y, x)| common::rnd(z * 42 + y * 7 + x, 5));
    let mut v = Array3::zeros(u.dim());
    mint::with_device(d, || heat(&mut u, &mut v, 3))?;
    Ok(u)
}

#[test]
fn an_undersized_ghost_width_is_caught_on_the_cpu_and_by_mint_check_on_the_gpu() {
    assert_eq!(mint::decomposition("heat").unwrap().ghost, 1);
    let want = run(Device::Cpu).unwrap();
    mint::__rt::override_ghost_planes(Some(0));
    let expect_outside = |r: mint::Result<Array3<f64>>, what: &str| match r {
        Err(mint::Error::OutsideSlab { array, message, .. }) => {
            assert_eq!(array, "u", "{what}");
            message
        }
        other => panic!("{what}: expected OutsideSlab, got {:?}", other.map(|_| ())),
    };
    expect_outside(run(Device::Cpus(2)), "cpu:2");
    if let Some(_gpu) = common::gpu() {
        let split = Device::parse("cuda:0,0").unwrap();
        mint::set_check_reads(Some(true));
        let m = expect_outside(run(split), "cuda:0,0 with MINT_CHECK");
        assert!(m.contains("MINT_CHECK"), "{m}");
        mint::set_check_reads(None);
    }
    mint::__rt::override_ghost_planes(None);
    // the right width again: equal to one device, on the GPU with the checks on too
    assert_eq!(run(Device::Cpus(2)).unwrap(), want);
    if let Some(gpu) = common::gpu() {
        let one = run(gpu).unwrap();
        mint::set_check_reads(Some(true));
        let split = run(Device::parse("cuda:0,0").unwrap()).unwrap();
        mint::set_check_reads(None);
        assert!(
            one.iter()
                .zip(&split)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "cuda:0,0 with MINT_CHECK differs from cuda"
        );
    }
}

/// Writes `far` elements past each point: out of the array's bounds for the last ones.
#[mint::parallel]
fn wild_write(a: &mut Array1<f64>, far: usize) -> mint::Result<()> {
    let n = a.len();
    copy!(a, to_device);
    #[mint::r#for(nowait)]
    for i in 0..n {
        a[i + far] = 1.0;
    }
    copy!(a, from_device);
    Ok(())
}

/// The faults the CPU backends catch, each a `mint::Error`: an index out of bounds on
/// `cpu`, `cpu:1` and `cpu:2`, and a read outside the slab on `cpu:2` with no ghost planes.
/// Run as a child by `caught_faults_print_no_panic_text`.
#[test]
#[ignore = "run as a child process by caught_faults_print_no_panic_text"]
fn child_faults_on_the_cpu_backends() {
    if std::env::var_os("CHECK_FAULTS_CHILD").is_none() {
        return;
    }
    for d in [Device::Cpu, Device::Cpus(1), Device::Cpus(2)] {
        let mut a = Array1::from_elem(100, 7.0);
        match mint::with_device(d, || wild_write(&mut a, 10)) {
            Err(mint::Error::IndexOutOfBounds { .. } | mint::Error::OutsideSlab { .. }) => {}
            other => panic!("{d:?}: expected a fault, got {:?}", other.map(|_| ())),
        }
    }
    mint::__rt::override_ghost_planes(Some(0));
    let r = run(Device::Cpus(2));
    assert!(
        matches!(r, Err(mint::Error::OutsideSlab { .. })),
        "{:?}",
        r.map(|_| ())
    );
    mint::__rt::override_ghost_planes(None);
    eprintln!("child: every fault was an error");
}

/// A fault the CPU backend catches is a `mint::Error` and nothing else: no `panicked at`
/// line from the library's threads reaches stderr (issue #41, item 5).
#[test]
fn caught_faults_print_no_panic_text() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_faults_on_the_cpu_backends",
            "--ignored",
            "--nocapture",
        ])
        .env("CHECK_FAULTS_CHILD", "1")
        .env_remove("MINT_DEVICE")
        .output()
        .expect("the child process");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the child failed:\n{stderr}");
    assert!(
        stderr.contains("child: every fault was an error"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "panic text on stderr:\n{stderr}"
    );
}
