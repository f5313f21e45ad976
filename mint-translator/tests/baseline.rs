//! Baseline translation (thesis Ch. 4): snapshots of the generated CUDA and checks of
//! typing, configuration and argument packing.

use mint_testing::kernel;
use mint_translator::ir::*;
use mint_translator::{Target, translate};

const HEAT3D: &str = "
arrays: u f64 3, unew f64 3
scalars: c0 f64, c1 f64
nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
unew[z][y][x] = c0 * u[z][y][x] + c1 * (u[z][y][x-1] + u[z][y][x+1]
    + u[z][y-1][x] + u[z][y+1][x] + u[z-1][y][x] + u[z+1][y][x]);
";

const HEAT2D: &str = "
arrays: u f32 2, unew f32 2
scalars: c0 f32, c1 f32
nest: y 1..ny-1, x 1..nx-1
unew[y][x] = c0 * u[y][x] + c1 * (u[y][x-1] + u[y][x+1] + u[y-1][x] + u[y+1][x]);
";

#[test]
fn heat3d_baseline_snapshot() {
    let t = translate(&kernel("heat_0", HEAT3D), &Target::default()).unwrap();
    insta::assert_snapshot!(t.source);
    assert_eq!(t.config.block, [16, 16, 1]);
}

#[test]
fn heat2d_f32_baseline_snapshot() {
    let t = translate(&kernel("heat2d_0", HEAT2D), &Target::default()).unwrap();
    insta::assert_snapshot!(t.source);
    // An f32 kernel computes in f32 only: no double anywhere in the kernel.
    assert!(!t.source.contains("double"), "{}", t.source);
}

#[test]
fn f32_literals_take_the_kernels_precision() {
    let k = kernel(
        "lit_0",
        "arrays: a f32 1
         nest: i 0..n
         a[i] = sqrt(a[i] * 0.5 + 2.0) + 1e-3;",
    );
    let t = translate(&k, &Target::default()).unwrap();
    assert!(t.source.contains("sqrtf("), "{}", t.source);
    assert!(t.source.contains("0.5f"), "{}", t.source);
    assert!(t.source.contains("2.0f"), "{}", t.source);
    assert!(t.source.contains("1e-3f"), "{}", t.source);
    assert!(!t.source.contains("sqrt(a"), "{}", t.source);
}

#[test]
fn unannotated_float_locals_default_to_f64_like_rust() {
    let k = kernel(
        "lit_1",
        "arrays: a f64 1
         nest: i 0..n
         let h = 0.25;
         a[i] = a[i] * h;",
    );
    let t = translate(&k, &Target::default()).unwrap();
    assert!(t.source.contains("double h = 0.25;"), "{}", t.source);
}

#[test]
fn captured_scalar_types_are_inferred_from_use() {
    // `dt` has no declared type; multiplying it with an f32 element makes it f32.
    let k = kernel(
        "infer_0",
        "arrays: a f32 1
         scalars: dt
         nest: i 0..n
         a[i] = a[i] * dt;",
    );
    let t = translate(&k, &Target::default()).unwrap();
    assert!(t.source.contains("const float dt"), "{}", t.source);
    assert_eq!(t.ir.scalars[0].ty, Some(ScalarTy::F32));
}

#[test]
fn mixing_f32_and_f64_is_rejected() {
    let k = kernel(
        "mix_0",
        "arrays: a f32 1, b f64 1
         nest: i 0..n
         a[i] = a[i] + b[i];",
    );
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("mismatched types"), "{e:?}");
}

#[test]
fn untyped_unused_scalar_is_reported_with_the_fix() {
    let k = kernel(
        "untyped_0",
        "arrays: a f64 1
         scalars: s
         nest: i 0..n
         let t = s;
         a[i] = 1.0;",
    );
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(
        e.iter()
            .any(|d| d.message.contains("cannot infer the type of `s`")),
        "{e:?}"
    );
}

#[test]
fn chunking_in_z_and_y_makes_serial_chunk_loops() {
    let mut k = kernel("heat_1", HEAT3D);
    k.clauses.tile = Some([
        ClauseValue::Const(32),
        ClauseValue::Const(8),
        ClauseValue::Const(64),
    ]);
    k.clauses.chunk = Some([
        ClauseValue::Const(1),
        ClauseValue::Const(4),
        ClauseValue::Const(64),
    ]);
    let t = translate(&k, &Target::default()).unwrap();
    assert_eq!(t.config.block, [32, 2, 1]);
    insta::assert_snapshot!(t.source);
}

#[test]
fn chunking_in_x_strides_by_the_block_width() {
    let mut k = kernel("heat_2", HEAT3D);
    k.clauses.tile = Some([
        ClauseValue::Const(64),
        ClauseValue::Const(4),
        ClauseValue::Const(1),
    ]);
    k.clauses.chunk = Some([
        ClauseValue::Const(2),
        ClauseValue::Const(1),
        ClauseValue::Const(1),
    ]);
    let t = translate(&k, &Target::default()).unwrap();
    assert_eq!(t.config.block, [32, 4, 1]);
    assert!(t.source.contains("mint_x0 + mint_cx * 32"), "{}", t.source);
}

#[test]
fn clause_errors_name_the_fix() {
    let cases: &[([u32; 3], [u32; 3], &str)] = &[
        ([16, 16, 0], [1, 1, 1], "at least 1"),
        ([16, 16, 64], [1, 1, 7], "does not divide"),
        ([64, 64, 1], [1, 1, 1], "threads per block"),
    ];
    for (tile, chunk, msg) in cases {
        let mut k = kernel("heat_3", HEAT3D);
        k.clauses.tile = Some(tile.map(ClauseValue::Const));
        k.clauses.chunk = Some(chunk.map(ClauseValue::Const));
        let e = translate(&k, &Target::default()).unwrap_err();
        assert!(e[0].message.contains(msg), "{tile:?} {chunk:?}: {e:?}");
    }
    // a tile extent along an axis the nest does not parallelize
    let mut k = kernel("one_0", "arrays: a f64 1\nnest: i 0..n\na[i] = 1.0;");
    k.clauses.tile = Some([16, 16, 1].map(ClauseValue::Const));
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("parallelizes only 1"), "{e:?}");
}

#[test]
fn runtime_clause_values_are_resolved_from_the_target() {
    let mut k = kernel("heat_4", HEAT3D);
    k.clauses.tile = Some([
        ClauseValue::Runtime(0),
        ClauseValue::Runtime(1),
        ClauseValue::Const(1),
    ]);
    let target = Target {
        clause_values: vec![32, 4],
        ..Target::default()
    };
    let t = translate(&k, &target).unwrap();
    assert_eq!(t.config.block, [32, 4, 1]);
}

#[test]
fn parameters_past_the_limit_are_packed() {
    let k = kernel("heat_5", HEAT3D);
    let small = Target {
        param_limit: 32,
        ..Target::default()
    };
    let t = translate(&k, &small).unwrap();
    assert_eq!(t.params[0].name, "mint_args");
    // two 3-D arrays: pointer, pitch and plane stride each
    assert_eq!(t.packed.len(), 6);
    assert!(
        t.source.contains("(const double*)mint_args[3]")
            || t.source.contains("= (double*)mint_args[0]"),
        "{}",
        t.source
    );
    let unpacked = translate(&k, &Target::default()).unwrap();
    assert!(unpacked.packed.is_empty());
}

#[test]
fn index_width_follows_the_target() {
    let k = kernel("heat_6", HEAT3D);
    let t = translate(
        &k,
        &Target {
            idx64: true,
            ..Target::default()
        },
    )
    .unwrap();
    assert!(t.source.contains("typedef long long idx_t;"));
    let t = translate(&k, &Target::default()).unwrap();
    assert!(t.source.contains("typedef int idx_t;"));
}

#[test]
fn reductions_make_a_deterministic_tree_and_a_finish_kernel() {
    for (op, name, ident) in [
        ("+", "sum", "0.0"),
        ("*", "prod", "1.0"),
        ("min", "lo", "__longlong_as_double(0x7ff0000000000000LL)"),
        ("max", "hi", "__longlong_as_double(0xfff0000000000000LL)"),
    ] {
        let upd = match op {
            "+" => format!("{name} += a[i];"),
            "*" => format!("{name} *= a[i];"),
            "min" => format!("{name} = min({name}, a[i]);"),
            _ => format!("{name} = max({name}, a[i]);"),
        };
        let k = kernel(
            "red_0",
            &format!(
                "arrays: a f64 1\nscalars: {name} f64\nreduction: {op}: {name}\nnest: i 0..n\n{upd}"
            ),
        );
        let t = translate(&k, &Target::default()).unwrap();
        assert!(
            t.source.contains(&format!("double {name} = {ident};")),
            "{}",
            t.source
        );
        assert!(t.source.contains("mint_red_0_finish"), "{}", t.source);
        assert!(t.source.contains("mint_partials["), "{}", t.source);
        let plan = t.reduction.unwrap();
        assert_eq!(plan.ty, ScalarTy::F64);
        // the reduction variable is private: it is not a kernel parameter
        assert!(!t.params.iter().any(|p| p.name == name));
    }
}

#[test]
fn reduction_type_and_nowait_errors() {
    let k = kernel(
        "red_1",
        "arrays: a u8 1\nscalars: s u8\nreduction: +: s\nnest: i 0..n\ns += a[i];",
    );
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("not supported for `u8`"), "{e:?}");
    let k = kernel(
        "red_2",
        "arrays: a f64 1\nscalars: s f64\nreduction: +: s\nnowait\nnest: i 0..n\ns += a[i];",
    );
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("nowait"), "{e:?}");
}

#[test]
fn assigning_host_scalars_and_loop_indices_is_rejected() {
    let k = kernel(
        "bad_0",
        "arrays: a f64 1\nscalars: s f64\nnest: i 0..n\ns = a[i];",
    );
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("reduction(op: s)"), "{e:?}");
    let k = kernel("bad_1", "arrays: a f64 1\nnest: i 0..n\ni = 3;");
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("loop index"), "{e:?}");
    let k = kernel("bad_2", "arrays: a f64 1\nnest: i 0..n\nbreak;");
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(e[0].message.contains("continue"), "{e:?}");
}

#[test]
fn serial_loops_shadowing_and_narrow_ints() {
    let k = kernel(
        "misc_0",
        "arrays: a f64 2, b u8 1
         nest: i 0..n
         let mut s = 0.0;
         for k in 0..4 { s += a[i][k]; }
         let s = s * 2.0;
         b[i] = b[i] + 200u8;
         if s > 1.0 { a[i][0] = s; } else if s < 0.0 { a[i][0] = -s; } else { continue; }",
    );
    let t = translate(&k, &Target::default()).unwrap();
    let src = &t.source;
    assert!(src.contains("double s = 0.0;"), "{src}");
    assert!(src.contains("double s_1 = s * 2.0;"), "{src}");
    assert!(src.contains("(unsigned char)("), "{src}");
    assert!(
        src.contains("for (idx_t k = 0, k_end = 4; k < k_end; ++k)"),
        "{src}"
    );
    assert!(src.contains("} else if (s_1 < 0.0) {"), "{src}");
    assert!(
        src.contains("do {"),
        "continue needs the do-while guard: {src}"
    );
}

#[test]
fn single_blocks_are_one_thread() {
    let mut k = kernel("single_0", "arrays: a f64 1\na[0] = a[1] + 1.0;");
    k.nest.clear();
    let t = translate(&k, &Target::default()).unwrap();
    assert_eq!(t.config.threads(), 1);
    assert!(!t.source.contains("__launch_bounds__"), "{}", t.source);
    assert!(t.source.contains("a[0] = a[1] + 1.0;"), "{}", t.source);
}

#[test]
fn translation_round_trips_through_json() {
    // the front end embeds the IR as JSON; the runtime must read back the same kernel
    let k = kernel("heat_7", HEAT3D);
    let json = serde_json::to_string(&k).unwrap();
    let back: Kernel = serde_json::from_str(&json).unwrap();
    assert_eq!(back, k);
}

/// A floating-point sum or difference with a product is printed as an explicit fused
/// multiply-add (the right-hand product where both sides are products), so that neither
/// NVVM nor ptxas can fuse it or not depending on the surrounding code (which made the
/// variants of one kernel round differently); integer products are left to the compiler.
#[test]
fn a_sum_with_a_product_is_fused_explicitly() {
    let src = |body: &str, elem: &str| {
        let k = kernel(
            "fma_0",
            &format!(
                "arrays: a {elem} 1, b {elem} 1, c {elem} 1, d {elem} 1, v {elem} 1\nnest: x 0..n\n{body}"
            ),
        );
        translate(&k, &Target::default()).unwrap().source
    };
    let add = src("v[x] = a[x] * b[x] + c[x] * d[x];", "f64");
    assert!(add.contains("__fma_rn(c[x], d[x], a[x] * b[x])"), "{add}");
    let sub = src("v[x] = a[x] * b[x] - c[x] * d[x];", "f32");
    assert!(
        sub.contains("__fmaf_rn(-(c[x]), d[x], a[x] * b[x])"),
        "{sub}"
    );
    let left = src("v[x] = a[x] * b[x] + c[x];", "f64");
    assert!(left.contains("__fma_rn(a[x], b[x], c[x])"), "{left}");
    let right_sub = src("v[x] = c[x] - a[x] * b[x];", "f64");
    assert!(
        right_sub.contains("__fma_rn(-(a[x]), b[x], c[x])"),
        "{right_sub}"
    );
    let left_sub = src("v[x] = a[x] * b[x] - c[x];", "f32");
    assert!(
        left_sub.contains("__fmaf_rn(a[x], b[x], -(c[x]))"),
        "{left_sub}"
    );
    // a chain: each step fuses its product into the sum so far
    let chain = src("v[x] = a[x] + b[x] * c[x] - d[x] * a[x];", "f64");
    assert!(
        chain.contains("__fma_rn(-(d[x]), a[x], __fma_rn(b[x], c[x], a[x]))"),
        "{chain}"
    );
    let plain = src("v[x] = a[x] + b[x] - c[x];", "f64");
    assert!(!plain.contains("__fma"), "{plain}");
    let int = src("v[x] = a[x] * b[x] + c[x] * d[x];", "i32");
    assert!(!int.contains("__fma"), "{int}");
}
