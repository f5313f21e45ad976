//! The CPU backend's unchecked rows (issue #42): a row runs without checks only where the
//! reach analysis proves every read inside its array, for the values the launch passes.
//! A clamped face (`if z == 0 { z } else { z - 1 }`) is inside the array on every row, so
//! its face rows and row ends run unchecked and give the serial loops' result bit for bit;
//! a kernel that runs one plane past the array (through a scalar whose value only the
//! launch knows) still faults, on every axis, as the checked views report it.
//! Runs on the CPU backend whatever the machine has.

use mint::ndarray::Array3;

const C0: f64 = 0.5;
const C1: f64 = 0.125;

fn field(nz: usize, ny: usize, nx: usize) -> Array3<f64> {
    Array3::from_shape_fn((nz, ny, nx), |(z, y, x)| {
        ((z * 7 + y * 3 + x) % 11) as f64 * 0.25 + (z as f64) * 1e-3
    })
}

/// One clamped-face step, serially; the neighbours' factor doubled at column `k`.
fn serial(u: &Array3<f64>, v: &mut Array3<f64>, k: Option<usize>) {
    let (nz, ny, nx) = u.dim();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let (b, t) = (z.max(1) - 1, (z + 1).min(nz - 1));
                let (s, n) = (y.max(1) - 1, (y + 1).min(ny - 1));
                let (w, e) = (x.max(1) - 1, (x + 1).min(nx - 1));
                let f = if k == Some(x) { C1 * 2.0 } else { C1 };
                v[[z, y, x]] = C0 * u[[z, y, x]]
                    + f * (u[[b, y, x]]
                        + u[[t, y, x]]
                        + u[[z, s, x]]
                        + u[[z, n, x]]
                        + u[[z, y, w]]
                        + u[[z, y, e]]);
            }
        }
    }
}

/// The clamped step over `0..m[0]`, `0..m[1]`, `0..m[2]`, with the upper faces at
/// `m - 1`: `m` is the extents for a correct kernel, one more along an axis to run one
/// plane past the array there. The reach analysis bounds every subscript either way; only
/// the launch's values tell the rows inside the array from those outside.
#[mint::parallel]
fn clamped(
    u: &mut Array3<f64>,
    v: &mut Array3<f64>,
    m: [usize; 3],
    steps: usize,
) -> mint::Result<()> {
    let (mz, my, mx) = (m[0], m[1], m[2]);
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    for _ in 0..steps {
        #[mint::r#for(nest(all), tile(8, 4, 2))]
        for z in 0..mz {
            for y in 0..my {
                for x in 0..mx {
                    let b = if z == 0 { z } else { z - 1 };
                    let t = if z == mz - 1 { z } else { z + 1 };
                    let s = y.saturating_sub(1);
                    let n = (y + 1).min(my - 1);
                    let w = x.max(1) - 1;
                    let e = (x + 1).min(mx - 1);
                    v[[z, y, x]] = C0 * u[[z, y, x]]
                        + C1 * (u[[b, y, x]]
                            + u[[t, y, x]]
                            + u[[z, s, x]]
                            + u[[z, n, x]]
                            + u[[z, y, w]]
                            + u[[z, y, e]]);
                }
            }
        }
        std::mem::swap(u, v);
    }
    mint::copy!(u, from_device);
    Ok(())
}

/// The clamped step with every face written as an `if`, as C codes write it, and a factor
/// that differs at one column `k` (a face of the row that need not be at its end): the rows
/// at the `z` and `y` faces run the body with the `x` faces decided between them, and as
/// written at them.
#[mint::parallel]
fn clamped_if(
    u: &mut Array3<f64>,
    v: &mut Array3<f64>,
    m: [usize; 3],
    k: usize,
) -> mint::Result<()> {
    let (mz, my, mx) = (m[0], m[1], m[2]);
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    #[mint::r#for(nest(all), tile(8, 4, 2))]
    for z in 0..mz {
        for y in 0..my {
            for x in 0..mx {
                let b = if z == 0 { z } else { z - 1 };
                let t = if z == mz - 1 { z } else { z + 1 };
                let s = if y == 0 { y } else { y - 1 };
                let n = if y == my - 1 { y } else { y + 1 };
                let w = if x == 0 { x } else { x - 1 };
                let e = if x == mx - 1 { x } else { x + 1 };
                let f = if x == k { C1 * 2.0 } else { C1 };
                v[[z, y, x]] = C0 * u[[z, y, x]]
                    + f * (u[[b, y, x]]
                        + u[[t, y, x]]
                        + u[[z, s, x]]
                        + u[[z, n, x]]
                        + u[[z, y, w]]
                        + u[[z, y, e]]);
            }
        }
    }
    mint::copy!(v, from_device);
    Ok(())
}

/// The index of `r`'s `IndexOutOfBounds` fault, which must name `array` of `shape`.
fn out_of_bounds(r: mint::Result<()>, array: &str, shape: &[usize]) -> Vec<usize> {
    match r {
        Err(mint::Error::IndexOutOfBounds {
            array: a,
            index,
            shape: s,
            ..
        }) => {
            assert_eq!((a.as_str(), s.as_slice()), (array, shape), "at {index:?}");
            index
        }
        other => panic!("expected IndexOutOfBounds in `{array}` {shape:?}, got {other:?}"),
    }
}

fn on_cpu() {
    // SAFETY: set before any region runs, and every test of this binary sets the same
    unsafe { std::env::set_var("MINT_DEVICE", "cpu") };
}

#[test]
fn clamped_faces_run_unchecked_and_match_the_serial_loops() {
    on_cpu();
    for (nz, ny, nx) in [(9, 7, 13), (2, 3, 1), (1, 1, 5), (5, 17, 2)] {
        let mut want = field(nz, ny, nx);
        let mut tmp = Array3::zeros(want.dim());
        for _ in 0..3 {
            serial(&want, &mut tmp, None);
            std::mem::swap(&mut want, &mut tmp);
        }
        let mut u = field(nz, ny, nx);
        let mut v = Array3::zeros(u.dim());
        clamped(&mut u, &mut v, [nz, ny, nx], 3).expect("a clamped kernel runs");
        let bits = |a: &Array3<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&u) == bits(&want), "{nz}x{ny}x{nx}");
    }
}

#[test]
fn rows_at_a_face_match_the_serial_loops() {
    on_cpu();
    for (nz, ny, nx) in [(9, 7, 13), (4, 5, 40), (3, 3, 2), (2, 1, 1), (5, 4, 3)] {
        let u0 = field(nz, ny, nx);
        let mut want = Array3::zeros(u0.dim());
        serial(&u0, &mut want, Some(nx / 2));
        let mut u = u0.clone();
        let mut v = Array3::zeros(u.dim());
        clamped_if(&mut u, &mut v, [nz, ny, nx], nx / 2).expect("a clamped kernel runs");
        let bits = |a: &Array3<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&v) == bits(&want), "{nz}x{ny}x{nx}");
    }
}

#[test]
fn one_plane_past_the_array_faults_on_every_axis() {
    on_cpu();
    let (nz, ny, nx) = (6, 5, 9);
    for axis in 0..3 {
        let mut m = [nz, ny, nx];
        m[axis] += 1;
        let mut u = field(nz, ny, nx);
        let before = u.clone();
        let mut v = Array3::zeros(u.dim());
        let index = out_of_bounds(clamped(&mut u, &mut v, m, 1), "u", &[nz, ny, nx]);
        assert_eq!(index[axis], [nz, ny, nx][axis], "axis {axis}: {index:?}");
        assert_eq!(u, before, "axis {axis}: the host array is untouched");
    }
}

/// No-flux faces as the cardiac model writes them: a loop over one index that copies the
/// interior's second row and column into the ghost ring of `e` (`[n + 2, n + 2]`), the far
/// ghosts at `far` (`n + 1`; `n + 2` is one past the array). Its subscripts are scalars
/// (`far`, `n - 1`) or follow `j`: where the launch's values keep them inside, the loop
/// runs on unchecked views.
#[mint::parallel]
fn mirror(e: &mut mint::ndarray::Array2<f64>, n: usize, far: usize) -> mint::Result<()> {
    mint::copy!(e, to_device);
    #[mint::r#for(nest(1))]
    for j in 1..n + 1 {
        e[[j, 0]] = e[[j, 2]];
        e[[j, far]] = e[[j, n - 1]];
        e[[0, j]] = e[[2, j]];
        e[[far, j]] = e[[n - 1, j]];
    }
    mint::copy!(e, from_device);
    Ok(())
}

fn ring(n: usize) -> mint::ndarray::Array2<f64> {
    mint::ndarray::Array2::from_shape_fn((n + 2, n + 2), |(j, i)| (j * 31 + i * 7) as f64 * 0.5)
}

#[test]
fn a_loop_over_one_index_matches_the_serial_loop() {
    on_cpu();
    // 5000: more points than the backend runs on the calling thread
    for n in [1, 2, 7, 5000] {
        let mut want = ring(n);
        for j in 1..=n {
            want[[j, 0]] = want[[j, 2]];
            want[[j, n + 1]] = want[[j, n - 1]];
            want[[0, j]] = want[[2, j]];
            want[[n + 1, j]] = want[[n - 1, j]];
        }
        let mut e = ring(n);
        mirror(&mut e, n, n + 1).expect("the mirror runs");
        let bits =
            |a: &mint::ndarray::Array2<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&e) == bits(&want), "n = {n}");
    }
}

#[test]
fn a_loop_over_one_index_past_the_array_faults() {
    on_cpu();
    for n in [7, 5000] {
        let mut e = ring(n);
        let index = out_of_bounds(mirror(&mut e, n, n + 2), "e", &[n + 2, n + 2]);
        assert!(index.contains(&(n + 2)), "n = {n}: {index:?}");
    }
}

/// A row kernel that binds its innermost index again, as Rust allows (a serial `for x`, a
/// `let x`): the face tests on the rebound `x` are tests of the new values, which the rows'
/// face specialization and lifting must not take for the loop's own index.
#[mint::parallel]
fn rebound(u: &mut Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 1..nx {
                let x = x - 1;
                v[[z, y, x + 1]] = if x == 0 { 1.0 } else { u[[z, y, x]] };
            }
        }
    }
    mint::copy!(v, from_device);
    Ok(())
}

/// The same with a serial `for x` first, whose clamped subscript names its own `x`.
#[mint::parallel]
fn rebound_for(u: &mut Array3<f64>, v: &mut Array3<f64>) -> mint::Result<()> {
    let (nz, ny, nx) = u.dim();
    mint::copy!(u, to_device);
    mint::copy!(v, to_device);
    #[mint::r#for(nest(all))]
    for z in 0..nz {
        for y in 0..ny {
            for x in 1..nx {
                let mut t = 0.0;
                for x in 0..2 {
                    t += u[[z, y, if x == 0 { x } else { x - 1 }]];
                }
                let x = x - 1;
                v[[z, y, x + 1]] = if x == 0 { 1.0 } else { u[[z, y, x]] } + t;
            }
        }
    }
    mint::copy!(v, from_device);
    Ok(())
}

#[test]
fn a_rebound_index_matches_the_serial_loops() {
    on_cpu();
    let bits = |a: &Array3<f64>| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (nz, ny, nx) in [(3, 5, 9), (2, 4, 40), (1, 2, 2)] {
        let u = field(nz, ny, nx);
        let (mut want, mut want_for) = (Array3::zeros(u.dim()), Array3::zeros(u.dim()));
        for z in 0..nz {
            for y in 0..ny {
                for x in 1..nx {
                    let c = if x == 1 { 1.0 } else { u[[z, y, x - 1]] };
                    want[[z, y, x]] = c;
                    want_for[[z, y, x]] = c + (u[[z, y, 0]] + u[[z, y, 0]]);
                }
            }
        }
        let (mut a, mut v) = (u.clone(), Array3::zeros(u.dim()));
        rebound(&mut a, &mut v).expect("the kernel runs");
        assert!(bits(&v) == bits(&want), "let x: {nz}x{ny}x{nx}");
        let (mut a, mut v) = (u.clone(), Array3::zeros(u.dim()));
        rebound_for(&mut a, &mut v).expect("the kernel runs");
        assert!(bits(&v) == bits(&want_for), "for x: {nz}x{ny}x{nx}");
    }
}
