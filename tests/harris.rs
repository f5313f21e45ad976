//! The Harris example (examples/harris, thesis Sec. 7.2): the Mint kernel against plain
//! serial loops written independently from Eq. 7.15–7.16, the phantom's corners found
//! exactly, and a NIfTI round trip that keeps the axes (x fastest in the file).

mod common;

#[allow(dead_code)]
#[path = "../examples/harris/detect.rs"]
mod detect;
#[allow(dead_code)]
#[path = "../examples/harris/volume.rs"]
mod volume;

use ndarray::Array3;

/// Every interest point lies within 2 voxels of a distinct corner of the phantom, and
/// every corner has one.
fn assert_finds_exactly(points: &[(usize, usize, usize, f32)], corners: &[[usize; 3]]) {
    assert_eq!(points.len(), corners.len(), "{points:?}");
    let mut used = vec![false; corners.len()];
    for p in points {
        let i = corners
            .iter()
            .enumerate()
            .position(|(i, c)| {
                !used[i]
                    && c[0].abs_diff(p.0) <= 2
                    && c[1].abs_diff(p.1) <= 2
                    && c[2].abs_diff(p.2) <= 2
            })
            .unwrap_or_else(|| panic!("{p:?} is no corner of the phantom"));
        used[i] = true;
    }
}

/// The CPU and the GPU when present. The kernels run as written (their `tile` clause,
/// unrolled), not tuned: a search compiles dozens of fully unrolled 7×7×7 windows, which
/// is the example's business (`examples/harris/gpu.sh`), and tuning cannot change a
/// result (`tests/tune.rs`).
fn devices() -> Vec<mint::Device> {
    mint::tune::set_mode(mint::tune::Mode::Off);
    let mut v = vec![mint::Device::Cpu];
    v.extend(common::gpu());
    v
}

#[test]
fn the_phantom_gives_exactly_its_corners() {
    let (data, corners) = detect::phantom(48);
    assert_eq!(corners.len(), 16);
    for d in devices() {
        let score = mint::with_device(d, || {
            detect::scores(&data, 5, [32, 8, 1]).map_err(|e| e.to_string())
        })
        .unwrap();
        let points = detect::interest_points(&score, 0.01);
        assert_finds_exactly(&points, &corners);
    }
}

#[test]
fn the_kernel_equals_the_serial_loops_for_every_window() {
    // an irregular volume: every voxel's window sees different gradients
    let data = Array3::from_shape_fn((21, 19, 26), |(z, y, x)| {
        let h = (z * 7919 + y * 104_729 + x * 1299) % 1009;
        h as f32 / 1009.0
    });
    for d in devices() {
        for w in detect::WINDOWS {
            let got = mint::with_device(d, || {
                detect::scores(&data, w, [32, 4, 1]).map_err(|e| e.to_string())
            })
            .unwrap();
            let want = detect::serial_scores(&data, w);
            let scale = want.iter().fold(0.0f32, |m, &v| m.max(v.abs()));
            assert!(scale > 0.0);
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (a - b).abs() <= 2e-5 * scale,
                    "{d:?} window {w}: element {i}: {a} against {b} (scale {scale})"
                );
            }
            // the faces the window cannot reach stay 0
            let h = w / 2 + 1;
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| (*a == 0.0) == (*b == 0.0))
            );
            assert_eq!(got[[h - 1, 10, 10]], 0.0);
        }
    }
}

#[test]
fn a_window_without_a_kernel_is_an_error() {
    let data = Array3::<f32>::zeros((16, 16, 16));
    let e = detect::scores(&data, 4, [32, 8, 1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("3, 5 and 7"), "{e}");
}

#[test]
fn a_nifti_round_trip_keeps_the_axes() {
    let (data, corners) = detect::phantom(40);
    let dir = std::env::temp_dir().join(format!("mint-harris-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("phantom.nii.gz");
    // NIfTI's first axis is x: write the [x, y, z] view
    nifti::writer::WriterOptions::new(&path)
        .write_nifti(&data.view().reversed_axes())
        .unwrap();
    let back = volume::read_nifti(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(back.dim(), data.dim());
    // read_nifti scales to [0, 1]; the phantom's range is [0, max]
    let max = data.iter().fold(0.0f32, |m, &v| m.max(v));
    for (a, b) in back.iter().zip(&data) {
        assert!((a - b / max).abs() < 1e-6);
    }
    let score = mint::with_device(mint::Device::Cpu, || {
        detect::scores(&back, 5, [32, 8, 1]).map_err(|e| e.to_string())
    })
    .unwrap();
    assert_finds_exactly(&detect::interest_points(&score, 0.01), &corners);
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let path = std::env::temp_dir().join(format!("mint-harris-bad-{}.nii", std::process::id()));
    std::fs::write(&path, b"not a volume").unwrap();
    let e = volume::read_nifti(&path).unwrap_err().to_string();
    std::fs::remove_file(&path).ok();
    assert!(e.contains("mint-harris-bad"), "{e}");
}

#[test]
fn the_kernels_compile_for_sm_90_with_nvrtc() {
    if !mint::__rt::nvrtc_available() {
        if std::env::var("MINT_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("MINT_REQUIRE_NVRTC=1 but libnvrtc was not found");
        }
        eprintln!("skipped: NVRTC not found");
        return;
    }
    // bind the kernels' types (f32) by running them once on the CPU
    let data = Array3::<f32>::zeros((12, 12, 12));
    for w in detect::WINDOWS {
        for streamed in [false, true] {
            mint::with_device(mint::Device::Cpu, || {
                detect::scores_as(&data, w, [32, 8, 1], streamed).map_err(|e| e.to_string())
            })
            .unwrap();
        }
    }
    mint::with_device(mint::Device::Cpu, || {
        let data = mint::PinnedArray3::<f32>::zeros((12, 12, 12));
        let mut s = mint::PinnedArray3::<f32>::zeros((12, 12, 12));
        let w = detect::weights(5);
        detect::scores5_pinned(&data, &w, &mut s, detect::K, [32, 8, 1])?;
        detect::scores5_streamed_pinned(&data, &w, &mut s, detect::K, [32, 8, 1])
    })
    .unwrap();
    // each window's region, as written and streamed
    let sites: Vec<_> = mint::kernel_sites()
        .filter(|s| s.module.ends_with("detect") && s.name.starts_with("scores"))
        .collect();
    // and the 5³ window on page-locked arrays, as written and streamed
    assert_eq!(sites.len(), 2 * detect::WINDOWS.len() + 2);
    for site in sites {
        let k = site.kernel().unwrap();
        let target = mint::Target {
            clause_values: mint::__rt::clause_values(k, [32, 8, 1], [1, 1, 1]),
            ..mint::Target::default()
        };
        let t = site.translate(&target).unwrap();
        assert!(
            !t.source.contains("double"),
            "an f32 kernel computes in f32"
        );
        let bytes = mint::__rt::compile_only((9, 0), site.qualified(), &t.source)
            .unwrap_or_else(|e| panic!("{}: {e}", site.qualified()));
        assert!(bytes > 0);
    }
}
