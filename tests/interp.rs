//! The IR interpreter (`mint_testing::interp`) against the CPU backend: every kernel of
//! the suite, at both precisions, one step at an odd size. The CPU backend runs the
//! loop body rustc compiled; the interpreter runs the kernel's IR as the macro embedded
//! it. Both use Rust's arithmetic in the same order, so the results must be identical
//! to the bit. This is what makes the interpreter a trustworthy reference for generated
//! kernels (issue #14).

mod common;

use mint_kernels::{Kernel, Opts, Precision};
use mint_testing::interp::{Array, Value};
use mint_translator::ir::ScalarTy;
use std::collections::HashMap;

fn value(v: f64, t: ScalarTy) -> Value {
    Value::from_f64(v, t)
}

#[test]
fn the_interpreter_equals_the_cpu_backend_on_every_suite_kernel() {
    let mut checked = 0;
    for k in Kernel::ALL {
        for p in [Precision::F32, Precision::F64] {
            let shape: Vec<usize> = if k.dims() == 2 {
                vec![37, 29]
            } else {
                vec![19, 17, 23]
            };
            let mut inst = k.instance(p, &shape, 7);
            let before = inst.arrays();
            let mut coefs: HashMap<&str, f64> =
                inst.coef_names().into_iter().zip(inst.coefs()).collect();
            // the star regions compute their coefficient from the radius on the host
            let star = match k {
                Kernel::Star2d(r) => Some((r as usize, 4 * r)),
                Kernel::Star3d(r) => Some((r as usize, 6 * r)),
                _ => None,
            };
            if let Some((r, den)) = star {
                coefs.insert("r", r as f64);
                coefs.insert(
                    "coef",
                    match p {
                        Precision::F32 => (1.0f32 / den as f32) as f64,
                        Precision::F64 => 1.0 / den as f64,
                    },
                );
            }
            let site_name = format!("{}::k_none_0", inst.module());
            let site = mint::kernel_sites()
                .find(|s| s.qualified() == site_name)
                .unwrap_or_else(|| panic!("no kernel site {site_name}"));
            let kernel = site.kernel().unwrap();
            // the CPU backend, one step
            mint::with_device(mint::Device::Cpu, || {
                inst.run(Opts::None, [8, 4, 1], [1, 1, 1], 1)
            })
            .unwrap();
            let want = inst.output();
            // the interpreter, one launch of the same kernel on the same inputs
            let mut arrays: Vec<Array> = kernel
                .arrays
                .iter()
                .map(|a| {
                    let data = &before
                        .iter()
                        .find(|(n, _)| *n == a.name)
                        .unwrap_or_else(|| panic!("{site_name}: no array `{}`", a.name))
                        .1;
                    Array {
                        elem: a.elem,
                        shape: shape.clone(),
                        data: data.iter().map(|&v| value(v, a.elem)).collect(),
                    }
                })
                .collect();
            // the parallel loops' bounds, from the array's extents named as the suite
            // names them (the clamped kernel also reads them in its body)
            let names: &[&str] = if k.dims() == 2 {
                &["ny", "nx"]
            } else {
                &["nz", "ny", "nx"]
            };
            for (n, &e) in names.iter().zip(&shape) {
                coefs.entry(n).or_insert(e as f64);
            }
            let scalars: Vec<Value> = kernel
                .scalars
                .iter()
                .map(|s| {
                    let v = coefs
                        .get(s.name.as_str())
                        .unwrap_or_else(|| panic!("{site_name}: no coefficient `{}`", s.name));
                    value(*v, s.ty.expect("typed"))
                })
                .collect();
            let mut env: HashMap<String, Value> = names
                .iter()
                .zip(&shape)
                .map(|(n, &e)| (n.to_string(), Value::Int(e as i128, ScalarTy::Usize)))
                .collect();
            for (n, v) in kernel.scalars.iter().zip(&scalars) {
                env.insert(n.name.clone(), *v);
            }
            common::interpret_once(kernel, &mut arrays, &scalars, &env, &site_name);
            let written: Vec<&Array> = kernel
                .arrays
                .iter()
                .zip(&arrays)
                .filter(|(a, _)| a.written)
                .map(|(_, x)| x)
                .collect();
            assert_eq!(written.len(), 1, "{site_name}: one written array");
            let got: Vec<f64> = written[0].data.iter().map(|v| v.as_f64()).collect();
            let diff = got
                .iter()
                .zip(&want)
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count();
            assert_eq!(
                diff,
                0,
                "{site_name}: {diff} of {} points differ between the interpreter and the CPU backend",
                want.len()
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        Kernel::ALL.len() * 2,
        "every suite kernel in f32 and f64"
    );
}
