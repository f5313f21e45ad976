//! Boundaries written inside the kernel (issue #41): clamped (zero-flux), mirrored and
//! periodic faces, as real codes write them, split over 2, 3 and 4 emulated devices
//! (`cpu:N`) and, with a GPU, over 2 and 3 slabs of GPU 0 (`cuda:0,0`, `cuda:0,0,0`):
//! every result bitwise equal to one device's, on grids that do not divide among the
//! devices, with the ghost widths the analysis gives; and a subscript no ghost width
//! bounds refused with an error, never split.

mod common;

use common::split_families;
use mint::Device;
use ndarray::{Array2, Array3};

const CC: f64 = 0.4;
const CN: f64 = 0.1;

fn field(nz: usize, ny: usize, nx: usize, seed: u64) -> Array3<f64> {
    Array3::from_shape_fn((nz, ny, nx), |(z, y, x)| {
        common::rnd((z * ny + y) * nx + x, seed) + 300.0
    })
}

fn bits(a: &Array3<f64>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits()).collect()
}

/// One zero-flux heat step on the host, the C original's way: the clamped neighbour's
/// index, then the update in the kernels' order of operations.
fn serial_clamped(t_in: &Array3<f64>, t_out: &mut Array3<f64>) {
    let (nz, ny, nx) = t_in.dim();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let (b, t) = (z.max(1) - 1, (z + 1).min(nz - 1));
                let (s, n) = (y.max(1) - 1, (y + 1).min(ny - 1));
                let (w, e) = (x.max(1) - 1, (x + 1).min(nx - 1));
                t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                    + CN * (t_in[[b, y, x]]
                        + t_in[[t, y, x]]
                        + t_in[[z, s, x]]
                        + t_in[[z, n, x]]
                        + t_in[[z, y, w]]
                        + t_in[[z, y, e]]);
            }
        }
    }
}

/// Zero-flux faces as `if`/`else` on the index (the thermal benchmark's C original).
#[mint::parallel]
fn clamped_if(t_in: &mut Array3<f64>, t_out: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let b = if z == 0 { z } else { z - 1 };
                    let t = if z == nz - 1 { z } else { z + 1 };
                    let s = if y == 0 { y } else { y - 1 };
                    let n = if y == ny - 1 { y } else { y + 1 };
                    let w = if x == 0 { x } else { x - 1 };
                    let e = if x == nx - 1 { x } else { x + 1 };
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[b, y, x]]
                            + t_in[[t, y, x]]
                            + t_in[[z, s, x]]
                            + t_in[[z, n, x]]
                            + t_in[[z, y, w]]
                            + t_in[[z, y, e]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// Zero-flux faces as `max`/`min`.
#[mint::parallel]
fn clamped_minmax(
    t_in: &mut Array3<f64>,
    t_out: &mut Array3<f64>,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[z.max(1) - 1, y, x]]
                            + t_in[[(z + 1).min(nz - 1), y, x]]
                            + t_in[[z, y.max(1) - 1, x]]
                            + t_in[[z, (y + 1).min(ny - 1), x]]
                            + t_in[[z, y, x.max(1) - 1]]
                            + t_in[[z, y, (x + 1).min(nx - 1)]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// Zero-flux faces as `clamp` on signed indices.
#[mint::parallel]
fn clamped_clamp(
    t_in: &mut Array3<f64>,
    t_out: &mut Array3<f64>,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let zi = z as i64;
                    let yi = y as i64;
                    let xi = x as i64;
                    let b = (zi - 1).clamp(0, nz as i64 - 1) as usize;
                    let t = (zi + 1).clamp(0, nz as i64 - 1) as usize;
                    let s = (yi - 1).clamp(0, ny as i64 - 1) as usize;
                    let n = (yi + 1).clamp(0, ny as i64 - 1) as usize;
                    let w = (xi - 1).clamp(0, nx as i64 - 1) as usize;
                    let e = (xi + 1).clamp(0, nx as i64 - 1) as usize;
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[b, y, x]]
                            + t_in[[t, y, x]]
                            + t_in[[z, s, x]]
                            + t_in[[z, n, x]]
                            + t_in[[z, y, w]]
                            + t_in[[z, y, e]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// The clamped index below, as a device function.
#[mint::device]
fn below(i: usize) -> usize {
    i.saturating_sub(1)
}

/// Zero-flux faces as `saturating_sub` (through a device function) and `min`.
#[mint::parallel]
fn clamped_saturating(
    t_in: &mut Array3<f64>,
    t_out: &mut Array3<f64>,
    steps: usize,
) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let b = below(z);
                    let t = (z + 1).min(nz - 1);
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[b, y, x]]
                            + t_in[[t, y, x]]
                            + t_in[[z, y.saturating_sub(1), x]]
                            + t_in[[z, (y + 1).min(ny - 1), x]]
                            + t_in[[z, y, x.saturating_sub(1)]]
                            + t_in[[z, y, (x + 1).min(nx - 1)]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// Mirrored faces along z (the plane beyond a face is the one inside it), interior in y
/// and x.
#[mint::parallel]
fn mirrored(t_in: &mut Array3<f64>, t_out: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let b = if z == 0 { 1 } else { z - 1 };
                    let t = if z == nz - 1 { nz - 2 } else { z + 1 };
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[b, y, x]]
                            + t_in[[t, y, x]]
                            + t_in[[z, y - 1, x]]
                            + t_in[[z, y + 1, x]]
                            + t_in[[z, y, x - 1]]
                            + t_in[[z, y, x + 1]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// Periodic in z and y, interior in x.
#[mint::parallel]
fn periodic(t_in: &mut Array3<f64>, t_out: &mut Array3<f64>, steps: usize) -> mint::Result<()> {
    let (nz, ny, nx) = t_in.dim();
    copy!(t_in, to_device);
    copy!(t_out, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(16, 8, 4))]
        for z in 0..nz {
            for y in 0..ny {
                for x in 1..nx - 1 {
                    t_out[[z, y, x]] = CC * t_in[[z, y, x]]
                        + CN * (t_in[[(z + nz - 1) % nz, y, x]]
                            + t_in[[(z + 1) % nz, y, x]]
                            + t_in[[z, (y + ny - 1) % ny, x]]
                            + t_in[[z, (y + 1) % ny, x]]
                            + t_in[[z, y, x - 1]]
                            + t_in[[z, y, x + 1]]);
                }
            }
        }
        std::mem::swap(t_in, t_out);
    }
    copy!(t_in, from_device);
    Ok(())
}

/// A 9-point smoothing filter of an image with clamped edges (2-D: the slabs split y).
#[mint::parallel]
fn image_filter(img: &mut Array2<f64>, out: &mut Array2<f64>, passes: usize) -> mint::Result<()> {
    let (ny, nx) = img.dim();
    copy!(img, to_device);
    copy!(out, to_device);
    for _ in 0..passes {
        #[mint::r#for(nest(all), tile(32, 8))]
        for y in 0..ny {
            for x in 0..nx {
                let ym = if y == 0 { 0 } else { y - 1 };
                let yp = (y + 1).min(ny - 1);
                let xm = if x > 0 { x - 1 } else { 0 };
                let xp = if x + 1 < nx { x + 1 } else { nx - 1 };
                out[[y, x]] = 0.25 * img[[y, x]]
                    + 0.125 * (img[[ym, x]] + img[[yp, x]] + img[[y, xm]] + img[[y, xp]])
                    + 0.0625 * (img[[ym, xm]] + img[[ym, xp]] + img[[yp, xm]] + img[[yp, xp]]);
            }
        }
        std::mem::swap(img, out);
    }
    copy!(img, from_device);
    Ok(())
}

/// Reads `u` upside down (`nz - 1 - z`) while another kernel writes it: no ghost width
/// bounds that, so a split must be refused.
#[mint::parallel]
fn flipped(u: &mut Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    copy!(u, to_device);
    copy!(v, to_device);
    #[mint::r#for(nest(all), tile(16, 8, 4))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                v[[z, y, x]] = u[[nz - 1 - z, y, x]];
            }
        }
    }
    #[mint::r#for(nest(all), tile(16, 8, 4))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                u[[z, y, x]] = 0.5 * v[[z, y, x]];
            }
        }
    }
    copy!(u, from_device);
    copy!(v, from_device);
    Ok(())
}

type Region3 = fn(&mut Array3<f64>, &mut Array3<f64>, usize) -> mint::Result<()>;

/// `region` on one device and split, bitwise equal; `ghost` the decomposition's planes.
fn split_equal(name: &str, region: Region3, ghost: usize, ring: bool) -> Array3<f64> {
    let (nz, ny, nx) = (23, 13, 18);
    let d = mint::decomposition(name).unwrap();
    assert_eq!(d.ghost, ghost, "{name}: ghost planes");
    assert!(
        d.arrays.iter().all(|a| a.1 == ring && a.2.is_none()),
        "{name}: {:?}",
        d.arrays
    );
    let mut cpu_result = None;
    for (single, splits) in split_families() {
        let run = |dev: Device| {
            let mut a = field(nz, ny, nx, 7);
            let mut b = Array3::zeros((nz, ny, nx));
            mint::with_device(dev, || region(&mut a, &mut b, 5))
                .unwrap_or_else(|e| panic!("{name} on {dev:?}: {e}"));
            a
        };
        let want = run(single);
        for d in splits {
            assert!(
                bits(&run(d)) == bits(&want),
                "{name} on {d:?} differs from {single:?}"
            );
        }
        if single == Device::Cpu {
            cpu_result = Some(want);
        } else {
            let cpu = cpu_result.as_ref().expect("the CPU family runs first");
            let err = common::max_rel_err(&want, cpu);
            assert!(err < 1e-13, "{name}: GPU against CPU {err:e}");
        }
    }
    cpu_result.expect("the CPU family")
}

#[test]
fn zero_flux_faces_four_ways_split_bitwise_and_match_the_serial_loops() {
    let mut want = field(23, 13, 18, 7);
    let mut tmp = Array3::zeros(want.dim());
    for _ in 0..5 {
        serial_clamped(&want, &mut tmp);
        std::mem::swap(&mut want, &mut tmp);
    }
    for (name, region) in [
        ("clamped_if", clamped_if as Region3),
        ("clamped_minmax", clamped_minmax),
        ("clamped_clamp", clamped_clamp),
        ("clamped_saturating", clamped_saturating),
    ] {
        let got = split_equal(name, region, 1, false);
        assert!(bits(&got) == bits(&want), "{name} against the serial loops");
    }
}

#[test]
fn mirrored_faces_split_bitwise() {
    split_equal("mirrored", mirrored, 1, false);
}

#[test]
fn periodic_faces_split_as_a_ring_bitwise() {
    let got = split_equal("periodic", periodic, 1, true);
    // the serial loops, wrapping
    let (nz, ny, nx) = (23, 13, 18);
    let mut a = field(nz, ny, nx, 7);
    let mut b = Array3::zeros((nz, ny, nx));
    for _ in 0..5 {
        for z in 0..nz {
            for y in 0..ny {
                for x in 1..nx - 1 {
                    b[[z, y, x]] = CC * a[[z, y, x]]
                        + CN * (a[[(z + nz - 1) % nz, y, x]]
                            + a[[(z + 1) % nz, y, x]]
                            + a[[z, (y + ny - 1) % ny, x]]
                            + a[[z, (y + 1) % ny, x]]
                            + a[[z, y, x - 1]]
                            + a[[z, y, x + 1]]);
                }
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    assert!(bits(&got) == bits(&a), "against the serial loops");
}

#[test]
fn a_clamped_image_filter_splits_along_y_bitwise() {
    let d = mint::decomposition("image_filter").unwrap();
    assert_eq!((d.rank, d.ghost), (2, 1));
    let (ny, nx) = (37, 29);
    let img0 = Array2::from_shape_fn((ny, nx), |(y, x)| common::rnd(y * nx + x, 3));
    for (single, splits) in split_families() {
        let run = |dev: Device| {
            let mut a = img0.clone();
            let mut b = Array2::zeros((ny, nx));
            mint::with_device(dev, || image_filter(&mut a, &mut b, 4)).unwrap();
            a.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
        };
        let want = run(single);
        for d in splits {
            assert!(
                run(d) == want,
                "image filter on {d:?} differs from {single:?}"
            );
        }
    }
}

#[test]
fn a_subscript_no_ghost_width_bounds_is_refused_not_split() {
    let (nz, ny, nx) = (9, 4, 5);
    let run = |dev: Device| {
        let mut u = field(nz, ny, nx, 1);
        let mut v = Array3::zeros((nz, ny, nx));
        let r = mint::with_device(dev, || flipped(&mut u, &mut v));
        (r, u)
    };
    let (one, want) = run(Device::Cpu);
    one.unwrap();
    let mut devices = common::SPLITS.to_vec();
    if common::gpu().is_some() {
        devices.extend(common::gpu_splits());
    }
    for d in devices {
        let (r, u) = run(d);
        match r {
            Err(mint::Error::Unsplittable {
                kernel,
                location,
                array,
                why,
            }) => {
                assert_eq!(array, "u", "{d:?}");
                assert!(
                    why.starts_with("at `(nz - 1) - z` along the slowest axis"),
                    "{why}"
                );
                assert!(kernel.starts_with("flipped"), "{kernel}");
                assert!(location.contains("boundaries.rs:"), "{location}");
                assert!(why.contains("no ghost width bounds"), "{why}");
            }
            other => panic!("{d:?}: expected a refusal, got {other:?}"),
        }
        assert!(
            bits(&u) == bits(&field(nz, ny, nx, 1)),
            "{d:?}: the host array changed although the region failed"
        );
        let _ = &want;
    }
}

/// One launch of the kernel of region `name` in the interpreter (`mint_testing::interp`),
/// device functions inlined, on `inputs` (every array of the kernel, by name, `[z, y, x]`
/// or `[y, x]` order as `shape`); the extents `nz`, `ny`, `nx` and the constants `CC`, `CN`
/// are the kernel's scalars.
/// Returns the written array.
fn interpret(name: &str, inputs: &[(&str, Vec<f64>)], shape: &[usize]) -> Vec<u64> {
    use mint_testing::interp::{Array, Value};
    use mint_translator::ir::ScalarTy;
    let site = mint::kernel_sites()
        .find(|s| s.name == format!("{name}_0"))
        .unwrap_or_else(|| panic!("no kernel site of {name}"));
    let kernel = site.inlined().unwrap_or_else(|e| panic!("{name}: {e}"));
    let extents = ["nz", "ny", "nx"][3 - shape.len()..].iter().zip(shape);
    let mut env: std::collections::HashMap<String, Value> = extents
        .map(|(n, &e)| (n.to_string(), Value::Int(e as i128, ScalarTy::Usize)))
        .collect();
    // the constants the 3-D steps capture
    env.insert("CC".into(), Value::from_f64(CC, ScalarTy::F64));
    env.insert("CN".into(), Value::from_f64(CN, ScalarTy::F64));
    let scalars: Vec<Value> = kernel
        .scalars
        .iter()
        .map(|s| {
            *env.get(&s.name)
                .unwrap_or_else(|| panic!("{name}: scalar `{}`", s.name))
        })
        .collect();
    let mut arrays: Vec<Array> = kernel
        .arrays
        .iter()
        .map(|a| {
            let (_, data) = inputs
                .iter()
                .find(|(n, _)| *n == a.name)
                .unwrap_or_else(|| panic!("{name}: no input `{}`", a.name));
            Array {
                elem: a.elem,
                shape: shape.to_vec(),
                data: data.iter().map(|&v| Value::from_f64(v, a.elem)).collect(),
            }
        })
        .collect();
    common::interpret_once(kernel, &mut arrays, &scalars, &env, name);
    let (i, _) = kernel
        .arrays
        .iter()
        .enumerate()
        .find(|(_, a)| a.written)
        .expect("a written array");
    arrays[i]
        .data
        .iter()
        .map(|v| v.as_f64().to_bits())
        .collect()
}

/// The interpreter against the CPU backend on every boundary spelling (the clamps,
/// `saturating_sub` through a device function, mirrored, periodic, the 2-D filter): one
/// step of each region on `cpu` and one launch of its kernel's IR in the interpreter, on
/// the same inputs, bitwise equal. Both run Rust's arithmetic in the same order, so any
/// difference is a subscript one of them reads wrong.
#[test]
fn the_interpreter_equals_the_cpu_backend_on_every_boundary_spelling() {
    let (nz, ny, nx) = (11, 7, 9);
    let regions: [(&str, Region3); 6] = [
        ("clamped_if", clamped_if),
        ("clamped_minmax", clamped_minmax),
        ("clamped_clamp", clamped_clamp),
        ("clamped_saturating", clamped_saturating),
        ("mirrored", mirrored),
        ("periodic", periodic),
    ];
    for (name, region) in regions {
        let t_in = field(nz, ny, nx, 5);
        let t_out = field(nz, ny, nx, 6);
        let (mut a, mut b) = (t_in.clone(), t_out.clone());
        mint::with_device(Device::Cpu, || region(&mut a, &mut b, 1)).unwrap();
        // after the step's swap, `a` holds what the kernel wrote
        let inputs = [
            ("t_in", t_in.iter().copied().collect()),
            ("t_out", t_out.iter().copied().collect()),
        ];
        let got = interpret(name, &inputs, &[nz, ny, nx]);
        assert!(
            got == bits(&a),
            "{name}: the interpreter and the CPU backend differ"
        );
    }
    let img = Array2::from_shape_fn((13, 10), |(y, x)| common::rnd(y * 10 + x, 8));
    let out = Array2::from_shape_fn((13, 10), |(y, x)| common::rnd(y * 10 + x, 9));
    let (mut a, mut b) = (img.clone(), out.clone());
    mint::with_device(Device::Cpu, || image_filter(&mut a, &mut b, 1)).unwrap();
    let inputs = [
        ("img", img.iter().copied().collect()),
        ("out", out.iter().copied().collect()),
    ];
    let got = interpret("image_filter", &inputs, &[13, 10]);
    let want: Vec<u64> = a.iter().map(|v| v.to_bits()).collect();
    assert!(
        got == want,
        "image_filter: the interpreter and the CPU backend differ"
    );
}
