//! The on-chip optimizer (thesis Ch. 5): snapshots of the 7-point heat kernel at each
//! optimization level, and structural checks of what each pass emits.

use mint_testing::kernel;
use mint_translator::ir::*;
use mint_translator::{Target, Translation, translate};

const HEAT3D: &str = "
arrays: u f64 3, unew f64 3
scalars: c0 f64, c1 f64
nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
unew[z][y][x] = c0 * u[z][y][x] + c1 * (u[z][y][x-1] + u[z][y][x+1]
    + u[z][y-1][x] + u[z][y+1][x] + u[z-1][y][x] + u[z+1][y][x]);
";

fn heat(tile: [u32; 3], chunk: [u32; 3], shared: u8, register: bool) -> Translation {
    let mut k = kernel("heat_0", HEAT3D);
    k.clauses.tile = Some(tile.map(ClauseValue::Const));
    k.clauses.chunk = Some(chunk.map(ClauseValue::Const));
    k.options.shared = shared;
    k.options.register = register;
    translate(&k, &Target::default()).unwrap()
}

/// The levels of thesis Sec. 6.2.2 with its tiles: baseline and opt-1 with 16×16×1
/// tiles, opt-2 and opt-3 with 16×16×64 tiles of 64-point columns.
#[test]
fn heat_7pt_at_each_level() {
    insta::assert_snapshot!(
        "heat7_baseline",
        heat([16, 16, 1], [1, 1, 1], 0, false).source
    );
    insta::assert_snapshot!(
        "heat7_opt1_shared",
        heat([16, 16, 1], [1, 1, 1], 8, false).source
    );
    insta::assert_snapshot!(
        "heat7_opt2_shared_chunk",
        heat([16, 16, 64], [1, 1, 64], 8, false).source
    );
    insta::assert_snapshot!(
        "heat7_opt3_shared_chunk_register",
        heat([16, 16, 64], [1, 1, 64], 8, true).source
    );
}

#[test]
fn barriers_only_where_shared_memory_is_used() {
    let base = heat([32, 8, 1], [1, 1, 1], 0, true);
    assert!(
        !base.source.contains("__syncthreads"),
        "registers alone need no barrier"
    );
    let opt1 = heat([32, 8, 1], [1, 1, 1], 8, false);
    assert_eq!(
        opt1.source.matches("__syncthreads").count(),
        1,
        "{}",
        opt1.source
    );
    // the sliding window: one barrier per plane thanks to the spare slot
    let opt3 = heat([32, 8, 64], [1, 1, 64], 8, true);
    assert_eq!(
        opt3.source.matches("__syncthreads").count(),
        1,
        "{}",
        opt3.source
    );
    assert!(
        opt3.source.contains("mint_slot_u_1 = mint_t"),
        "slots rotate by index swapping"
    );
}

#[test]
fn register_queue_and_plane_sizes() {
    let t = heat([32, 8, 64], [1, 1, 64], 8, true);
    // the z column z-1..z+1 lives in registers rotated by moves
    assert!(t.source.contains("mint_u_zm1 = mint_u_z0;"));
    assert!(t.source.contains("mint_u_z0 = mint_u_zp1;"));
    // one plane (+1 spare) of (32 + 2) × (8 + 2) doubles
    assert_eq!(t.dynamic_shared_bytes, 2 * 34 * 10 * 8);
    // written before read: the output's register is not loaded; it is written back
    assert!(t.source.contains("double mint_unew;"));
    assert!(t.source.contains("= mint_unew;"));
}

#[test]
fn chunking_in_y_gives_each_thread_several_rows() {
    let t = heat([32, 16, 64], [1, 4, 64], 8, true);
    assert_eq!(t.config.block, [32, 4, 1]);
    for p in 0..4 {
        assert!(t.source.contains(&format!("mint_u_p{p}_zp1")), "point {p}");
    }
    assert!(t.source.contains("const int mint_ly3 = mint_ty * 4 + 3;"));
}

#[test]
fn nineteen_point_stencil_gets_three_planes_and_corners() {
    let mut k = kernel(
        "p19_0",
        "arrays: u f64 3, b f64 3, unew f64 3
         scalars: c0 f64, c1 f64
         nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
         tile: 32,8,64
         chunk: 1,1,64
         options: shared, register
         unew[z][y][x] = c0 * (b[z][y][x] + c1 * (u[z][y][x-1] + u[z][y][x+1] + u[z][y-1][x] + u[z][y+1][x]
             + u[z-1][y][x] + u[z+1][y][x]) + u[z][y-1][x-1] + u[z][y-1][x+1] + u[z][y+1][x-1] + u[z][y+1][x+1]
             + u[z-1][y][x-1] + u[z-1][y][x+1] + u[z+1][y][x-1] + u[z+1][y][x+1]
             + u[z-1][y-1][x] + u[z-1][y+1][x] + u[z+1][y-1][x] + u[z+1][y+1][x]);",
    );
    mint_translator::check(&mut k).unwrap();
    let t = translate(&k, &Target::default()).unwrap();
    let r = t.report.arrays.iter().find(|a| a.name == "u").unwrap();
    assert_eq!(r.shared_planes, 3, "{}", t.report);
    assert!(t.source.contains("corners"), "{}", t.source);
    // b is read at its center only: a register, never shared memory
    let b = t.report.arrays.iter().find(|a| a.name == "b").unwrap();
    assert_eq!(b.shared_planes, 0);
    assert!(b.register);
}

#[test]
fn asymmetric_stencils_load_only_the_halo_they_use() {
    let mut k = kernel(
        "asym_0",
        "arrays: u f32 2, v f32 2
         nest: y 2..ny-1, x 2..nx-3
         tile: 32,8
         options: shared
         v[y][x] = u[y][x-2] + u[y][x+3] + u[y-2][x] + u[y+1][x];",
    );
    mint_translator::check(&mut k).unwrap();
    let t = translate(&k, &Target::default()).unwrap();
    let u = t.report.arrays.iter().find(|a| a.name == "u").unwrap();
    assert_eq!(&u.halo[..4], &[2, 3, 2, 1]);
    assert!(t.source.contains("halo -x2 +x3 -y2 +y1"), "{}", t.source);
    assert!(!t.source.contains("corners"), "a star needs no corners");
}

#[test]
fn radius_four_star_uses_a_nine_register_queue() {
    let mut k = kernel(
        "star_0",
        "arrays: u f32 3, v f32 3
         nest: z 4..nz-4, y 4..ny-4, x 4..nx-4
         tile: 32,8,64
         chunk: 1,1,64
         options: shared, register, unroll
         let mut s = 0.0f32;
         for d in 1..5 {
             s += u[z][y][x - d] + u[z][y][x + d] + u[z][y - d][x] + u[z][y + d][x] + u[z - d][y][x] + u[z + d][y][x];
         }
         v[z][y][x] = s * 0.041666668 - u[z][y][x];",
    );
    mint_translator::check(&mut k).unwrap();
    let t = translate(&k, &Target::default()).unwrap();
    assert!(
        t.source.contains("mint_u_zm4") && t.source.contains("mint_u_zp4"),
        "{}",
        t.source
    );
    assert!(t.source.contains("halo -x4 +x4 -y4 +y4"), "{}", t.source);
    // no device-memory reads of u remain in the point's computation
    let body = t.source.split("__syncthreads();").nth(1).unwrap();
    assert!(!body.contains("__ldg(&u["), "{body}");
}

#[test]
fn non_window_kernels_with_threads_along_z_fall_back_to_baseline() {
    let t = heat([16, 8, 4], [1, 1, 1], 8, true);
    assert!(!t.source.contains("__shared__"));
    assert!(
        t.report
            .notes
            .iter()
            .any(|n| n.contains("one thread along z")),
        "{:?}",
        t.report.notes
    );
}

#[test]
fn same_index_shares_pitch_variables() {
    let mut k = kernel("heat_0", HEAT3D);
    k.options.same_index = true;
    k.options.register = true;
    let t = translate(&k, &Target::default()).unwrap();
    assert_eq!(t.same_index, vec![vec![0, 1]]);
    assert!(
        !t.source.contains("* mint_pitch_u +") || !t.source.contains("* mint_pitch_unew +"),
        "{}",
        t.source
    );
}

fn vectorized(src: &str, tile: [u32; 3], chunk: [u32; 3]) -> Translation {
    let mut k = kernel("vec_0", src);
    k.clauses.tile = Some(tile.map(ClauseValue::Const));
    k.clauses.chunk = Some(chunk.map(ClauseValue::Const));
    k.options.vectorize = true;
    k.options.unroll = true;
    translate(&k, &Target::default()).unwrap()
}

/// The 7-point heat kernel with `vectorize`, one plane per thread and with a z window.
#[test]
fn heat_7pt_vectorized() {
    let f32_src = HEAT3D.replace("f64", "f32");
    insta::assert_snapshot!(
        "heat7_vector_f32",
        vectorized(&f32_src, [128, 4, 1], [1, 1, 1]).source
    );
    insta::assert_snapshot!(
        "heat7_vector_window_f64",
        vectorized(HEAT3D, [64, 4, 8], [1, 1, 8]).source
    );
}

/// `roll_z` keeps a `vectorize` kernel's z steps a loop: the source differs from the
/// unrolled kernel's only in the step loop's pragma and the header naming the level;
/// where there is no window it is not applied and the report says so.
#[test]
fn roll_z_keeps_the_z_steps_a_loop_and_changes_nothing_else() {
    let with = |roll: bool, chunk_z: u32| {
        let mut k = kernel("vec_0", HEAT3D);
        k.clauses.tile = Some([64, 4, chunk_z].map(ClauseValue::Const));
        k.clauses.chunk = Some([1, 1, chunk_z].map(ClauseValue::Const));
        k.options.vectorize = true;
        k.options.roll_z = roll;
        translate(&k, &Target::default()).unwrap()
    };
    let (unrolled, rolled) = (with(false, 8), with(true, 8));
    let step = "for (idx_t mint_s = 0; mint_s < 8; ++mint_s) {";
    let before_step = |src: &str| -> String {
        let i = src.find(step).expect("the step loop");
        src[..i]
            .trim_end()
            .lines()
            .last()
            .unwrap()
            .trim()
            .to_string()
    };
    assert_eq!(before_step(&unrolled.source), "#pragma unroll");
    assert_eq!(before_step(&rolled.source), "#pragma unroll 1");
    let differ: Vec<(&str, &str)> = unrolled
        .source
        .lines()
        .zip(rolled.source.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        unrolled.source.lines().count(),
        rolled.source.lines().count()
    );
    assert_eq!(differ.len(), 2, "{differ:#?}");
    assert!(differ[0].1.contains("z steps rolled"), "{differ:#?}");
    assert!(rolled.report.level.contains("z steps rolled"));
    // one plane per thread: no window, nothing to roll
    let (a, b) = (with(false, 1), with(true, 1));
    assert_eq!(a.source, b.source);
    let not_applied = |t: &Translation| {
        t.report
            .notes
            .iter()
            .any(|n| n.starts_with("roll_z not applied"))
    };
    assert!(not_applied(&b), "{:?}", b.report.notes);
    assert!(!not_applied(&rolled), "{:?}", rolled.report.notes);
    // not vectorized (the register level, and the baseline of a kernel with no other
    // option): the same source, and the note
    for register in [true, false] {
        let plain = |roll: bool| {
            let mut k = kernel("vec_0", HEAT3D);
            k.options.register = register;
            k.options.roll_z = roll;
            translate(&k, &Target::default()).unwrap()
        };
        let (a, b) = (plain(false), plain(true));
        assert_eq!(a.source, b.source);
        assert!(not_applied(&b), "{:?}", b.report.notes);
        assert!(!not_applied(&a), "{:?}", a.report.notes);
    }
}

/// Each thread takes 16 bytes of x points: the block has tile x / V threads along x.
#[test]
fn vectorize_sets_the_x_chunk_to_the_vector_width() {
    let t = vectorized(&HEAT3D.replace("f64", "f32"), [128, 4, 1], [1, 1, 1]);
    assert_eq!(t.config.chunk, [4, 1, 1]);
    assert_eq!(t.config.block, [32, 4, 1]);
    let t = vectorized(HEAT3D, [128, 4, 1], [1, 1, 1]);
    assert_eq!(t.config.chunk, [2, 1, 1]);
    assert_eq!(t.config.block, [64, 4, 1]);
    assert!(
        t.report.level.starts_with("vectorize"),
        "{}",
        t.report.level
    );
    assert!(t.source.contains("mint_vstore"), "{}", t.source);
}

/// Loads per thread and step, counted by hand for the 7-point star with V = 4: the
/// thread's row needs its own vector and one on each side for x ± 1 (3), the rows y ± 1
/// and planes z ± 1 one each (4): 7. With the z window the center vectors of planes
/// z - 1, z, z + 1 come from the register queue, which loads one new plane per step: 5.
#[test]
fn vectorized_loads_per_step_follow_the_stencil() {
    let src = HEAT3D.replace("f64", "f32");
    let count = |t: &Translation| t.source.matches("mint_vload(").count();
    let plain = vectorized(&src, [128, 4, 1], [1, 1, 1]);
    // the helper's definition mentions mint_vload( once
    assert_eq!(count(&plain) - 1, 7, "{}", plain.source);
    let window = vectorized(&src, [128, 4, 8], [1, 1, 8]);
    // in the loop: 5 (the queue's one being the next step's plane, prefetched); before
    // it, the queue's planes z0 - 1, z0, z0 + 1: 3
    assert_eq!(count(&window) - 1, 5 + 3, "{}", window.source);
    assert!(
        window
            .report
            .notes
            .iter()
            .any(|n| n.contains("5 16-byte load(s)")),
        "{:?}",
        window.report.notes
    );
    // radius 4 in f32: x halo of 4 is one whole vector on each side
    let r4 = vectorized(
        "arrays: u f32 3, v f32 3
         nest: z 4..nz-4, y 4..ny-4, x 4..nx-4
         v[z][y][x] = u[z][y][x-4] + u[z][y][x+4] + u[z][y-4][x] + u[z][y+4][x] + u[z-4][y][x] + u[z+4][y][x];",
        [128, 4, 1],
        [1, 1, 1],
    );
    assert_eq!(count(&r4) - 1, 2 + 4, "{}", r4.source);
}

/// The 27-point box in precision `ty`: the sum of `u` over the 3 x 3 x 3 cube.
fn box27(ty: &str) -> String {
    let mut terms = Vec::new();
    for dz in ["-1", "", "+1"] {
        for dy in ["-1", "", "+1"] {
            for dx in ["-1", "", "+1"] {
                terms.push(format!("u[z{dz}][y{dy}][x{dx}]"));
            }
        }
    }
    format!(
        "arrays: u {ty} 3, v {ty} 3
         nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
         v[z][y][x] = {};",
        terms.join(" + ")
    )
}

/// The 27-point box: every vector it reads (rows y - 1, y, y + 1; the x halo vector on
/// each side and the thread's own) is read at planes z - 1, z and z + 1. Without the z
/// window each step loads all 9 rows x 3 vectors = 27; with it each of the 9 vectors
/// `(dy, h)` has a z queue and a step loads only its leading plane: 9, and the body
/// reads nothing but queue registers.
#[test]
fn vectorized_box_queues_every_vector_read_at_several_planes() {
    let src = box27("f32");
    let count = |t: &Translation| t.source.matches("mint_vload(").count() - 1;
    let plain = vectorized(&src, [128, 4, 1], [1, 1, 1]);
    assert_eq!(count(&plain), 27, "{}", plain.source);
    let window = vectorized(&src, [128, 4, 8], [1, 1, 8]);
    // before the loop: 9 queues x planes z0 - 1, z0, z0 + 1; in it, 9 leading planes
    assert_eq!(count(&window), 27 + 9, "{}", window.source);
    assert!(
        window
            .report
            .notes
            .iter()
            .any(|n| n.contains("9 16-byte load(s)")),
        "{:?}",
        window.report.notes
    );
    let fast = window.source.split_once("} else {").unwrap().0;
    let body = &fast[fast.find("for (idx_t mint_s").unwrap()..];
    let step_loads: Vec<&str> = body.lines().filter(|l| l.contains("mint_vload(")).collect();
    assert!(
        step_loads
            .iter()
            .all(|l| l.trim_start().starts_with("if (z + 1 < mint_z_end)") && l.contains("(z + 2)")),
        "{step_loads:#?}"
    );
    // lane 0 reads x - 1 from element 3 of the left halo vector of row y - 1, plane z - 1
    assert!(
        body.contains("mint_q_u_ym1_hm1_zm1[3]"),
        "{}",
        window.source
    );
    assert!(!body.contains("mint_v_u_"), "{}", window.source);
}

/// With `chunksize` y of 2 a thread computes two y rows of vectors, and the rows they
/// share are loaded once: the box then reads rows y - 1 .. y + 2, 4 rows x 3 vectors =
/// 12 queues, 12 loads per step for 8 points (two threads of one row each would load
/// 18); each row's body is printed with its own y, and the stores go to rows y and y + 1.
#[test]
fn vectorized_y_rows_share_their_row_vectors() {
    let src = box27("f32");
    let t = vectorized(&src, [128, 8, 2], [1, 2, 2]);
    assert_eq!(t.config.block, [32, 4, 1]);
    let count = t.source.matches("mint_vload(").count() - 1;
    assert_eq!(count, 12 * 3 + 12, "{}", t.source);
    assert!(
        t.report
            .notes
            .iter()
            .any(|n| n.contains("12 16-byte load(s) per thread and step for 8 points")),
        "{:?}",
        t.report.notes
    );
    let (fast, edge) = t.source.split_once("} else {").unwrap();
    assert!(fast.contains("&& mint_y0 + 2 <= mint_hi_y)"), "{fast}");
    assert!(fast.contains("const idx_t y = mint_y0;"), "{fast}");
    assert!(fast.contains("const idx_t y = mint_y0 + 1;"), "{fast}");
    // row y + 1's lane 0 reads x - 1 at y + 2 from the queue of row 2's left halo vector
    assert!(fast.contains("mint_q_u_yp2_hm1_zp1[3]"), "{fast}");
    // the helper's definition, then one store per row
    assert_eq!(fast.matches("mint_vstore(").count(), 1 + 2, "{fast}");
    assert!(fast.contains("(mint_y0 + 1) * mint_pitch_v"), "{fast}");
    // the edge path walks the thread's rows
    assert!(
        edge.contains("for (idx_t y = mint_y0, mint_y_end = min(mint_y0 + 2, mint_hi_y)"),
        "{edge}"
    );
    // in f64 the queues would hold 4 rows x 4 planes x (2 + 1 + 1) doubles = 128
    // registers with the prefetch (over QUEUE_REGISTERS): each step loads its own
    // leading plane z + 1 instead, and the preload stops at z0
    let f64 = vectorized(&box27("f64"), [64, 8, 4], [1, 2, 4]);
    let count = f64.source.matches("mint_vload(").count() - 1;
    assert_eq!(count, 12 * 2 + 12, "{}", f64.source);
    assert!(
        !f64.source.contains("if (z + 1 < mint_z_end)"),
        "{}",
        f64.source
    );
    assert!(
        f64.source
            .contains("mint_vload(u, (mint_y0 + 2) * mint_pitch_u + (z + 1) * mint_slice_u + mint_x0 + 2, mint_q_u_yp2_hp1_zp1);"),
        "{}",
        f64.source
    );
    assert!(!f64.source.contains("_zp2"), "{}", f64.source);
}

/// Vectorized kernels are held to `MAX_REGISTERS` registers per thread through the
/// minimum blocks per SM of `__launch_bounds__`: the most blocks of the kernel's size
/// whose share of the SM's 65536 registers is still at least the cap.
#[test]
fn vectorized_kernels_cap_registers_through_launch_bounds() {
    use mint_translator::optimizer::vector::MAX_REGISTERS;
    let f32_src = HEAT3D.replace("f64", "f32");
    for (src, tile) in [
        (f32_src.as_str(), [128, 4, 1]),
        (f32_src.as_str(), [128, 16, 1]),
        (HEAT3D, [64, 4, 1]),
        (HEAT3D, [128, 8, 1]),
        (HEAT3D, [256, 8, 1]),
    ] {
        let t = vectorized(src, tile, [1, 1, 1]);
        let threads = t.config.block.iter().product::<u32>();
        let bounds = t.source.split("__launch_bounds__(").nth(1).unwrap();
        let args: Vec<u32> = bounds[..bounds.find(')').unwrap()]
            .split(", ")
            .map(|a| a.parse().unwrap())
            .collect();
        assert_eq!(args[0], threads, "{bounds}");
        let blocks = args[1];
        assert!(
            blocks * threads * MAX_REGISTERS <= 65536,
            "{tile:?}: {blocks}"
        );
        assert!(
            (blocks + 1) * threads * MAX_REGISTERS > 65536,
            "{tile:?}: {blocks}"
        );
    }
}

/// The vector path has no bounds test per load: one test per thread decides between it
/// and the edge path, which runs the loop body per lane with the baseline's device-memory
/// references; the last thread of a row stores only its lanes inside the loop.
#[test]
fn vectorized_threads_take_one_branch_and_edge_threads_run_per_lane() {
    let t = vectorized(&HEAT3D.replace("f64", "f32"), [128, 4, 4], [1, 1, 4]);
    let (fast, edge) = t.source.split_once("} else {").unwrap();
    let fast = &fast[fast.find("if (mint_vec").expect("one fast test per thread")..];
    assert_eq!(fast.matches("if (mint_vec").count(), 1, "{}", t.source);
    // inside the vector path: no guard but the queue's prefetch and the partial store
    for line in fast.lines().skip(1) {
        let line = line.trim();
        if line.starts_with("if (") {
            assert!(
                line.starts_with("if (z + 1 < mint_z_end)")
                    || line.starts_with("if (z >= mint_z_end)")
                    || line.starts_with("if (mint_x0 + 4 <= mint_hi_x)"),
                "{line}"
            );
        }
    }
    assert!(fast.contains("mint_vstore_part("), "{fast}");
    // the edge path: four lanes, each guarded, each reading u straight from memory
    assert_eq!(edge.matches("if (x < mint_hi_x)").count(), 4, "{edge}");
    assert_eq!(edge.matches("__ldg(&u[").count(), 4 * 7, "{edge}");
}

/// A written array read off its center point is a neighbour exchange between threads;
/// `vectorize` leaves such kernels to the other options and the report says why.
#[test]
fn vectorize_declines_what_it_cannot_do_and_says_why() {
    let t = vectorized(
        "arrays: u f32 3
         nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
         u[z][y][x] = u[z][y][x-1] + u[z][y][x];",
        [128, 4, 1],
        [1, 1, 1],
    );
    assert!(!t.source.contains("mint_vload"), "{}", t.source);
    assert!(
        t.report
            .notes
            .iter()
            .any(|n| n.contains("vectorize not applied") && n.contains("`u`")),
        "{:?}",
        t.report.notes
    );
    // mixed element sizes: no vector width, the thread shape is the user's
    let mixed = vectorized(
        "arrays: u f32 3, v f64 3
         nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
         v[z][y][x] = u[z][y][x] as f64;",
        [32, 4, 1],
        [1, 1, 1],
    );
    assert_eq!(mixed.config.chunk, [1, 1, 1]);
    assert!(!mixed.source.contains("mint_vload"));
}

#[test]
fn vectorize_checks_tile_and_chunk() {
    let mut k = kernel("vec_0", &HEAT3D.replace("f64", "f32"));
    k.options.vectorize = true;
    k.clauses.tile = Some([
        ClauseValue::Const(30),
        ClauseValue::Const(4),
        ClauseValue::Const(1),
    ]);
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(format!("{e:?}").contains("multiple of 4"), "{e:?}");
    k.clauses.tile = Some([
        ClauseValue::Const(128),
        ClauseValue::Const(4),
        ClauseValue::Const(1),
    ]);
    k.clauses.chunk = Some([
        ClauseValue::Const(2),
        ClauseValue::Const(1),
        ClauseValue::Const(1),
    ]);
    let e = translate(&k, &Target::default()).unwrap_err();
    assert!(format!("{e:?}").contains("chunksize x at 1"), "{e:?}");
}

const STAR_R4: &str = "arrays: u f32 3, v f32 3
     nest: z 4..nz-4, y 4..ny-4, x 4..nx-4
     tile: 32,16,64
     chunk: 1,4,64
     options: shared, register, pipeline, unroll
     let mut s = 0.0f32;
     for d in 1..5 {
         s += u[z][y][x - d] + u[z][y][x + d] + u[z][y - d][x] + u[z][y + d][x] + u[z - d][y][x] + u[z + d][y][x];
     }
     v[z][y][x] = s * 0.041666668 - u[z][y][x];";

/// `pipeline`: the radius-4 star's plane goes into a ring of 4 + 1 + 2 slots (the planes
/// z..z+4 that feed the centre plane and the queue's leading register, and two in flight)
/// by `cp.async`, and neither the queue nor the ghost cells are prefetched through
/// registers any more.
#[test]
fn pipeline_copies_planes_into_a_ring_ahead_of_use() {
    let mut k = kernel("star_0", STAR_R4);
    mint_translator::check(&mut k).unwrap();
    let t = translate(&k, &Target::default()).unwrap();
    let src = &t.source;
    assert!(
        t.report.level.contains("pipeline (cp.async)"),
        "{}",
        t.report.level
    );
    // 7 slots of (16 + 8) x (32 + 8) f32
    assert_eq!(t.dynamic_shared_bytes, 7 * 24 * 40 * 4);
    assert!(src.contains("// 7 slot(s)"), "{src}");
    assert!(src.contains("mint_cp_async_wait<1>()"), "{src}");
    assert!(
        src.trim_end().ends_with("mint_cp_async_wait<0>();\n}"),
        "{src}"
    );
    // prologue: planes z0 .. z0+5 (the step's five and one more), one group each
    let prologue = src.split("for (idx_t z = mint_z0").next().unwrap();
    assert_eq!(
        prologue.matches("mint_cp_async_commit();").count(),
        6,
        "{prologue}"
    );
    for d in 0..6 {
        let z = if d == 0 {
            "mint_z0".to_string()
        } else {
            format!("mint_z0 + {d}")
        };
        assert!(
            prologue.contains(&format!("z = {z} into ring slot {d}:")),
            "{d}: {prologue}"
        );
    }
    let step = src.split("for (idx_t z = mint_z0").nth(1).unwrap();
    // each step copies plane z + 6 into the slot of z - 1
    assert!(
        step.contains("z = z + 6 into ring slot (int)((z - mint_z0 + 6) % 7)"),
        "{step}"
    );
    // the queue's leading register comes from the ring, for each of the 4 rows
    for p in 0..4 {
        assert!(
            step.contains(&format!(
                "mint_u_p{p}_zp4 = mint_sh_u[(int)((z - mint_z0 + 4) % 7)]"
            )),
            "{p}: {step}"
        );
    }
    // no register prefetch: no fifth queue register, no prefetched ghost cells, and no
    // device-memory read of `u` in the step but the asynchronous copy: 16-byte chunks
    // (10 per row of 40) where the rows are aligned, single elements where not
    assert!(!src.contains("zp5") && !src.contains("mint_pf_u"), "{src}");
    assert_eq!(step.matches("&u[").count(), 2, "{step}");
    assert!(
        step.contains("mint_cp_async16(")
            && step.contains("24 rows x 10 copies of 4 element(s) over 128 threads"),
        "{step}"
    );
    assert!(
        step.contains("mint_cp_async(")
            && step.contains("24 rows x 40 copies of 1 element(s) over 128 threads"),
        "{step}"
    );
}

/// A ring's rows are padded to whole 16-byte chunks on both sides: the 7-point heat
/// kernel in f64 (ghost width 1) has 2 ghost columns on each side in its ring, and its
/// references are shifted to match.
#[test]
fn pipeline_pads_ring_rows_to_whole_16_byte_chunks() {
    let mut k = kernel("heat_0", HEAT3D);
    k.clauses.tile = Some([32, 8, 64].map(ClauseValue::Const));
    k.clauses.chunk = Some([1, 1, 64].map(ClauseValue::Const));
    k.options.shared = 8;
    k.options.register = true;
    k.options.pipeline = true;
    let t = translate(&k, &Target::default()).unwrap();
    let src = &t.source;
    // ring: the centre plane and the queue's z + 1, plus 2 in flight; 10 x 36 doubles
    assert!(
        src.contains("double (*mint_sh_u)[10][36]") && src.contains("// 4 slot(s)"),
        "{src}"
    );
    assert_eq!(t.dynamic_shared_bytes, 4 * 10 * 36 * 8);
    assert!(src.contains("mint_x_tile - 2 + mint_lc"), "{src}");
    // u[z][y][x-1] is column 1 of the ring relative to the thread's column + 2
    assert!(src.contains("[mint_ly0 + 1][mint_lx0 + 1]"), "{src}");
    assert!(src.contains("[mint_ly0 + 1][mint_lx0 + 3]"), "{src}");
}

/// `pipeline` falls back to the register-staged planes, with the reason in the report,
/// where it cannot apply.
#[test]
fn pipeline_says_why_it_was_not_applied() {
    let why = |src: &str, target: &Target| {
        let mut k = kernel("star_0", src);
        mint_translator::check(&mut k).unwrap();
        let t = translate(&k, target).unwrap();
        assert!(!t.source.contains("cp_async"), "{}", t.source);
        t.report
            .notes
            .iter()
            .find(|n| n.starts_with("pipeline not applied"))
            .cloned()
            .unwrap_or_else(|| panic!("{:?}", t.report.notes))
    };
    let volta = Target {
        compute_capability: (7, 0),
        ..Target::default()
    };
    assert!(why(STAR_R4, &volta).contains("compute capability 8.0, the device has 7.0"));
    let no_window = STAR_R4
        .replace("chunk: 1,4,64", "chunk: 1,4,1")
        .replace("tile: 32,16,64", "tile: 32,16,1");
    assert!(why(&no_window, &Target::default()).contains("sliding window"));
    let no_shared = STAR_R4.replace("shared, ", "");
    assert!(why(&no_shared, &Target::default()).contains("no array is staged"));
    let small = Target {
        shared_bytes_optin: 16 * 1024,
        shared_bytes_per_block: 16 * 1024,
        ..Target::default()
    };
    assert!(why(STAR_R4, &small).contains("26880 bytes of shared memory, the device allows 16384"));
    // with `vectorize`, the ring path's own conditions (`vector::ring`)
    let vec = STAR_R4.replace("unroll", "unroll, vectorize");
    let vec = vec.replace("chunk: 1,4,64", "chunk: 1,1,16");
    assert!(
        why(&vec, &Target::default())
            .contains("one thread along z (`tile` z 64 = `chunksize` z 16)")
    );
    let vec = vec.replace("chunk: 1,1,16", "chunk: 1,1,64");
    assert!(why(&vec, &volta).contains("compute capability 8.0, the device has 7.0"));
    // 4 slots of (16 + 8) x (32 + 8) f32
    let tiny = Target {
        shared_bytes_per_block: 4 * 24 * 40 * 4 - 1,
        ..Target::default()
    };
    assert!(why(&vec, &tiny).contains("15360 bytes of shared memory"));
    let no_window = vec
        .replace("chunk: 1,1,64", "chunk: 1,1,1")
        .replace("tile: 32,16,64", "tile: 32,16,1");
    assert!(why(&no_window, &Target::default()).contains("sliding window"));
    // the box reads its y ± 1 rows at three planes: they have z queues of their own
    let box27 = "arrays: u f32 3, v f32 3
     nest: z 1..nz-1, y 1..ny-1, x 1..nx-1
     tile: 32,16,32
     chunk: 1,1,32
     options: vectorize, pipeline
     let mut s = 0.0f32;
     for dz in -1..2 { for dy in -1..2 { for dx in -1..2 { s += u[z + dz][y + dy][x + dx]; } } }
     v[z][y][x] = s;";
    assert!(
        why(
            &box27.replace(
                "options: vectorize, pipeline",
                "options: vectorize, pipeline, unroll"
            ),
            &Target::default()
        )
        .contains("has z queues of vectors other than the centers'")
    );
    // a kernel read at its z neighbours only: no x or y neighbours to stage
    let column = "arrays: u f32 3, v f32 3
     nest: z 1..nz-1, y 0..ny, x 0..nx
     tile: 32,16,32
     chunk: 1,1,32
     options: vectorize, pipeline
     v[z][y][x] = u[z - 1][y][x] + u[z + 1][y][x];";
    assert!(why(column, &Target::default()).contains("no array is read at x or y neighbours"));
}

const STAR_R8_VEC: &str = "arrays: u f32 3, v f32 3
     nest: z 8..nz-8, y 8..ny-8, x 8..nx-8
     tile: 32,16,32
     chunk: 1,1,32
     options: vectorize, pipeline, unroll
     let mut s = 0.0f32;
     for d in 1..9 {
         s += u[z][y][x - d] + u[z][y][x + d] + u[z][y - d][x] + u[z][y + d][x] + u[z - d][y][x] + u[z + d][y][x];
     }
     v[z][y][x] = s * 0.041666668 - u[z][y][x];";

/// `t` took the ring path with no reason against it, declaring the static shared array
/// `decl` (its bytes, as the report says too).
fn assert_ring_path(t: &Translation, decl: &str, bytes: usize) {
    assert!(
        t.report
            .level
            .contains("+ pipeline (x/y neighbours from shared-memory rings"),
        "{} {:?}",
        t.report.level,
        t.report.notes
    );
    assert!(
        !t.report.notes.iter().any(|n| n.contains("not applied")),
        "{:?}",
        t.report.notes
    );
    assert!(
        t.source
            .contains(&format!("__shared__ __align__(16) {decl};")),
        "{}",
        t.source
    );
    assert_eq!(t.static_shared_bytes as usize, bytes);
    assert_eq!(t.report.shared_bytes as usize, bytes);
}

/// The lanes' sums and stores of ring-path kernel `ring` (before its edge path), asserted
/// equal line by line to those of `vectorize` alone: `text` translated without
/// `pipeline`.
fn sums_match_vectorize(ring: &Translation, text: &str) -> Vec<String> {
    let mut k = kernel(
        "star_0",
        &text.replace(
            "options: vectorize, pipeline, unroll",
            "options: vectorize, unroll",
        ),
    );
    mint_translator::check(&mut k).unwrap();
    let plain = translate(&k, &Target::default()).unwrap();
    assert!(!plain.source.contains("mint_ring_u"));
    let sums = |s: &str, edge: &str| -> Vec<String> {
        s[..s.find(edge).unwrap()]
            .lines()
            .map(str::trim)
            .filter(|l| (l.starts_with('s') && l.contains(" += ")) || l.starts_with("mint_w"))
            .map(String::from)
            .collect()
    };
    let a = sums(&ring.source, "// edge block");
    assert_eq!(a, sums(&plain.source, "// edge thread"));
    a
}

/// `vectorize` with `pipeline`: the radius-8 star's steps read their 16 y neighbour
/// vectors and 4 x halo vectors from a shared-memory ring of the tile's plane with its 8
/// ghost rows and 2 ghost vectors on each side, which `cp.async` fills ahead (4 slots:
/// the step's plane and 3 in flight); only the z queue's leading plane still comes from
/// device memory, and the lanes' sums are the vector path's, term by term.
#[test]
fn pipeline_with_vectorize_reads_x_and_y_neighbours_from_a_ring() {
    let tr = |src: &str| {
        let mut k = kernel("star_0", src);
        mint_translator::check(&mut k).unwrap();
        translate(&k, &Target::default()).unwrap()
    };
    let t = tr(STAR_R8_VEC);
    let src = &t.source;
    // tile 32 x 16 with radius 8 on each side: 32 rows of 48 elements
    let (rows, cols) = (16 + 2 * 8, 32 + 2 * 8);
    assert_ring_path(
        &t,
        &format!("float mint_ring_u[4][{rows}][{cols}]"),
        4 * rows * cols * 4,
    );
    // per step: 16 y neighbour vectors and 4 x halo vectors from the ring ...
    let step = &src[src.find("for (idx_t mint_s = 0;").unwrap()..];
    assert_eq!(
        step.matches("mint_vload_shared(&mint_ring_u[mint_slot]")
            .count(),
        20,
        "{step}"
    );
    // ... filled 16 bytes at a time over the block's 8 x 16 threads, 3 planes ahead
    assert_eq!(step.matches("mint_cp_async16(&mint_ring_u[").count(), 1);
    assert!(
        step.contains("32 rows x 12 copies of 4 element(s) over 128 threads"),
        "{step}"
    );
    assert!(step.contains("(z + 3) * mint_slice_u"), "{step}");
    assert!(step.contains("mint_cp_async_wait<2>();"), "{step}");
    assert_eq!(step.matches("__syncthreads()").count(), 1);
    // ... and one device-memory load: the z queue's next leading plane
    let in_step_device_loads: Vec<&str> = step
        .lines()
        .filter(|l| l.contains("mint_vload(u,"))
        .collect();
    assert_eq!(in_step_device_loads.len(), 1, "{in_step_device_loads:?}");
    assert!(in_step_device_loads[0].contains("(z + 9) * mint_slice_u"));
    // loaded before the step waits for its plane, so the two latencies overlap
    assert!(in_step_device_loads[0].contains("if (mint_active && z + 1 < mint_z_end)"));
    assert!(
        step.find(in_step_device_loads[0]).unwrap()
            < step.find("mint_cp_async_wait<2>();").unwrap()
    );
    // every thread moves its queue, outside the condition of threads inside the loop
    let moves = step.find("mint_vmove(mint_u_zm8, mint_u_zm7);").unwrap();
    let active = step.find("if (mint_active) {").unwrap();
    let closed = active + step[active..].find("\n            }\n").unwrap();
    assert!(moves > closed, "{step}");
    // the prologue: the 17 planes of the queue, and the first 3 planes into the ring
    let prologue =
        &src[src.find("__shared__").unwrap()..src.find("for (idx_t mint_s = 0;").unwrap()];
    assert_eq!(prologue.matches("mint_vload(u,").count(), 17);
    assert_eq!(prologue.matches("mint_cp_async_commit()").count(), 3);
    // the same sums as the vector path's, line by line
    let a = sums_match_vectorize(&t, STAR_R8_VEC);
    assert_eq!(a.len(), 4 * 8 + 4, "{a:?}");
    // the ring path's edge path is a loop over the lanes, not unrolled (one lane's loads
    // in flight): the body once, with `x = mint_x0 + mint_l`
    let edge = &src[src.find("// edge block").unwrap()..];
    assert!(
        edge.contains("#pragma unroll 1") && edge.contains("const idx_t x = mint_x0 + mint_l;"),
        "{edge}"
    );
    assert_eq!(edge.matches(" += ").count(), 8, "{edge}");
    // `roll_z` keeps the steps a loop; otherwise they are unrolled by 4
    assert!(
        src.contains("#pragma unroll 4\n        for (idx_t mint_s = 0;"),
        "{src}"
    );
    let rolled = tr(&STAR_R8_VEC.replace("unroll", "unroll, roll_z"));
    assert!(
        rolled
            .source
            .contains("#pragma unroll 1\n        for (idx_t mint_s = 0;")
    );
}

/// `vectorize` with `pipeline` and two y rows per thread (`chunksize` y 2): the rows share
/// the ring's vectors, so a step of the radius-8 star in `f64` reads 16 y neighbour rows
/// (the 18 rows around the thread's two but those two, held in z queues) and the 8 x halo
/// vectors of each of its rows, 32 shared-memory loads for 4 points where one row per
/// thread reads 24 for 2; the ring has 5 slots, 4 planes in flight; blocks whose rows
/// leave the loop take the edge path, row by row; and the lanes' sums are those of
/// `vectorize` alone with the same rows per thread, line by line.
#[test]
fn pipeline_with_vectorize_shares_ring_vectors_between_two_rows() {
    let tr = |src: &str| {
        let mut k = kernel("star_0", src);
        mint_translator::check(&mut k).unwrap();
        translate(&k, &Target::default()).unwrap()
    };
    let r8 = STAR_R8_VEC
        .replace("f32", "f64")
        .replace("0.0f64", "0.0")
        .replace("tile: 32,16,32", "tile: 16,16,64")
        .replace("chunk: 1,1,32", "chunk: 1,2,64");
    let t = tr(&r8);
    let src = &t.source;
    // 16 + 2 x 8 rows of 16 + 2 x 8 doubles, 4 in flight and the step's
    let (rows, cols) = (16 + 2 * 8, 16 + 2 * 8);
    assert_ring_path(
        &t,
        &format!("double mint_ring_u[5][{rows}][{cols}]"),
        5 * rows * cols * 8,
    );
    assert!(src.contains("8x8x1 threads per block"), "{src}");
    let step =
        &src[src.find("for (idx_t mint_s = 0;").unwrap()..src.find("// edge block").unwrap()];
    let shared: Vec<&str> = step
        .lines()
        .filter(|l| l.contains("mint_vload_shared(&mint_ring_u[mint_slot]"))
        .collect();
    assert_eq!(shared.len(), 32, "{step}");
    // the y neighbour rows, each loaded once: ring rows 0..8 and 10..18 above the
    // thread's first row (ring row threadIdx.y * 2 + 8)
    for r in (0..8).chain(10..18) {
        let at = format!("[threadIdx.y * 2 + {r}][threadIdx.x * 2 + 8]");
        assert_eq!(
            shared.iter().filter(|l| l.contains(&at)).count(),
            1,
            "{r}: {step}"
        );
    }
    // the x halo vectors of both rows
    for r in [8, 9] {
        for c in [0, 2, 4, 6, 10, 12, 14, 16] {
            let at = format!("[threadIdx.y * 2 + {r}][threadIdx.x * 2 + {c}]");
            assert!(shared.iter().any(|l| l.contains(&at)), "{r} {c}: {step}");
        }
    }
    // each row's z queue: its leading plane from device memory, before the wait
    let device: Vec<&str> = step
        .lines()
        .filter(|l| l.contains("mint_vload(u,"))
        .collect();
    assert_eq!(device.len(), 2, "{device:?}");
    assert!(
        device
            .iter()
            .any(|l| l.contains("(mint_y0) * mint_pitch_u + (z + 9)"))
    );
    assert!(
        device
            .iter()
            .any(|l| l.contains("(mint_y0 + 1) * mint_pitch_u + (z + 9)"))
    );
    assert!(step.find(device[1]).unwrap() < step.find("mint_cp_async_wait<3>();").unwrap());
    assert!(step.contains("(int)((mint_s + 4) % 5)"), "{step}");
    assert!(
        step.contains("const int mint_slot = (int)(mint_s % 5);"),
        "{step}"
    );
    // the prologue: 4 planes, and the block's rows inside the loop
    let prologue =
        &src[src.find("__shared__").unwrap()..src.find("for (idx_t mint_s = 0;").unwrap()];
    assert_eq!(prologue.matches("mint_cp_async_commit()").count(), 4);
    assert!(
        prologue.contains("mint_y_tile + 16 <= mint_hi_y"),
        "{prologue}"
    );
    // the edge path runs the thread's rows one by one
    let edge = &src[src.find("// edge block").unwrap()..];
    assert!(
        edge.contains("for (idx_t y = mint_y0, mint_y_end = min(mint_y0 + 2, mint_hi_y);"),
        "{edge}"
    );
    // the same sums as `vectorize` with two rows per thread, line by line
    let a = sums_match_vectorize(&t, &r8);
    assert_eq!(a.len(), 2 * 2 * (8 + 1), "{a:?}");
    // one row per thread keeps 3 planes in flight and 4 slots
    let one = tr(&r8.replace("chunk: 1,2,64", "chunk: 1,1,64"));
    assert!(one.source.contains("double mint_ring_u[4][32][32];"));
    assert!(!one.source.contains("mint_y_tile + 16 <= mint_hi_y"));
}

/// `swizzle` at each emitter that places tiles (the baseline, shared + register with a z
/// window, `vectorize`): the block-order prelude it prints is the same, the tile origins
/// use its `mint_by`/`mint_bz`, and, compiled with the host's C compiler and run over
/// every block of several grids, it maps the grid onto itself one to one with the first
/// band of y tiles swept along every z plane before any other y tile runs. Without
/// `swizzle` no kernel mentions it, and a 2-D kernel reports it not applied.
#[test]
fn swizzle_orders_the_blocks_in_bands_of_y_tiles_along_z() {
    let with = |f: &dyn Fn(&mut Kernel)| {
        let mut k = kernel("heat_0", HEAT3D);
        f(&mut k);
        k.options.swizzle = true;
        translate(&k, &Target::default()).unwrap()
    };
    let base = with(&|_| {});
    let window = with(&|k| {
        k.clauses.tile = Some([32, 8, 16].map(ClauseValue::Const));
        k.clauses.chunk = Some([1, 1, 16].map(ClauseValue::Const));
        k.options.shared = 8;
        k.options.register = true;
    });
    let vector = with(&|k| {
        k.clauses.tile = Some([128, 4, 4].map(ClauseValue::Const));
        k.clauses.chunk = Some([1, 1, 4].map(ClauseValue::Const));
        k.options.vectorize = true;
    });
    let prelude = |t: &Translation| -> String {
        let s = &t.source;
        let from = s.find("// swizzle:").expect("the block-order prelude");
        let to = from + s[from..].find("mint_bz = ").unwrap();
        let end = to + s[to..].find('\n').unwrap();
        s[from..end]
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let p = prelude(&base);
    assert_eq!(prelude(&window), p);
    assert_eq!(prelude(&vector), p);
    for (t, origin) in [
        (&base, "(idx_t)mint_bz + (idx_t)threadIdx.z"),
        (&window, "(idx_t)mint_by * 8"),
        (&window, "(idx_t)mint_bz * 16"),
        (&vector, "(idx_t)mint_bz * 4"),
    ] {
        assert!(t.source.contains(origin), "{origin}:\n{}", t.source);
    }
    for t in [&base, &window, &vector] {
        assert!(!t.source.contains("blockIdx.y *"), "{}", t.source);
        assert!(
            t.report
                .notes
                .iter()
                .any(|n| n.starts_with("swizzle: blocks run in bands"))
        );
    }
    // without it, nothing of it
    assert!(
        !heat([16, 16, 1], [1, 1, 1], 0, false)
            .source
            .contains("mint_sw")
    );
    // a 2-D kernel has no z to sweep
    let mut k2 = kernel(
        "h2_0",
        "arrays: u f64 2, v f64 2\nnest: y 1..ny-1, x 1..nx-1\nv[y][x] = u[y][x-1] + u[y][x+1];",
    );
    k2.options.swizzle = true;
    let t2 = translate(&k2, &Target::default()).unwrap();
    assert!(!t2.source.contains("mint_sw"));
    assert!(
        t2.report
            .notes
            .iter()
            .any(|n| n.contains("swizzle not applied"))
    );

    // the prelude, run on the host over whole grids
    let program = format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
typedef struct {{ unsigned int x, y, z; }} dim3;
static unsigned int max(unsigned int a, unsigned int b) {{ return a > b ? a : b; }}
static unsigned int min(unsigned int a, unsigned int b) {{ return a < b ? a : b; }}
int main(void) {{
    const unsigned int grids[][3] = {{{{4, 128, 512}}, {{1, 1, 1}}, {{3, 7, 5}}, {{64, 3, 9}},
        {{2, 33, 17}}, {{100, 5, 4}}, {{1, 200, 3}}, {{16, 9, 1}}}};
    for (unsigned int g = 0; g < sizeof grids / sizeof grids[0]; ++g) {{
        const dim3 gridDim = {{grids[g][0], grids[g][1], grids[g][2]}};
        char* seen = calloc((size_t)gridDim.y * gridDim.z, 1);
        unsigned int band = 0;
        for (unsigned int l = 0; l < gridDim.y * gridDim.z; ++l) {{
            const dim3 blockIdx = {{0, l % gridDim.y, l / gridDim.y}};
            {p}
            band = mint_sw_band;
            if (mint_by >= gridDim.y || mint_bz >= gridDim.z || seen[mint_bz * gridDim.y + mint_by]) {{
                printf("grid %u %u %u: block %u -> (%u, %u) twice or outside\n", gridDim.x, gridDim.y, gridDim.z, l, mint_by, mint_bz);
                return 1;
            }}
            seen[mint_bz * gridDim.y + mint_by] = 1;
            if (l < band * gridDim.z && mint_by >= band) {{
                printf("grid %u %u %u: block %u -> y tile %u outside the first band of %u\n", gridDim.x, gridDim.y, gridDim.z, l, mint_by, band);
                return 1;
            }}
        }}
        free(seen);
        printf("grid %u %u %u: band %u ok\n", gridDim.x, gridDim.y, gridDim.z, band);
    }}
    return 0;
}}
"#,
        p = p.replace('\n', "\n            ")
    );
    let out = host_c("swizzle", &program);
    // 64 blocks per band: 16 y tiles of 4 x tiles, 64 of one, 3 (all) of 64
    assert!(out.contains("grid 4 128 512: band 16 ok"), "{out}");
    assert!(out.contains("grid 1 200 3: band 64 ok"), "{out}");
    assert!(out.contains("grid 64 3 9: band 1 ok"), "{out}");
}

/// Compiles `program` with the host's C compiler (`CC`, else `cc`) and runs it; returns
/// its standard output, after asserting that it built and exited with status 0.
fn host_c(name: &str, program: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (c, exe) = (dir.join(format!("{name}.c")), dir.join(name));
    std::fs::write(&c, program).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = std::process::Command::new(&cc)
        .args(["-std=c99", "-O1", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .unwrap_or_else(|e| panic!("the host C compiler `{cc}` (set CC) must run: {e}"));
    assert!(
        built.status.success(),
        "{}\n{program}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = std::process::Command::new(&exe).output().unwrap();
    let out = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(ran.status.success(), "{out}");
    out
}

/// The loops that copy a plane into shared memory with `cp.async` (`pipeline`, with and
/// without `vectorize`), cut out of the printed kernels and run on the host for every
/// thread of the block: each cell of the plane's rectangle (tile and ghost cells, the
/// geometry computed here from radius and tile) is copied exactly once, by a copy that
/// lies inside the rectangle and starts on a whole chunk. The cases cover both forms (a
/// loop over the cell index; known rounds, for two y rows per thread), copies that the
/// block's threads divide and not, blocks whose threads are a multiple of a row's copies
/// and not, and 16-byte and single-element copies.
#[test]
fn plane_copies_cover_each_cell_once() {
    let tr = |src: &str, f: &dyn Fn(&mut Kernel)| {
        let mut k = kernel("star_0", src);
        f(&mut k);
        mint_translator::check(&mut k).unwrap();
        translate(&k, &Target::default()).unwrap()
    };
    let tiled = |tile: [u32; 3], chunk: [u32; 3]| {
        move |k: &mut Kernel| {
            k.clauses.tile = Some(tile.map(ClauseValue::Const));
            k.clauses.chunk = Some(chunk.map(ClauseValue::Const));
        }
    };
    let r8_f64 = STAR_R8_VEC.replace("f32", "f64").replace("0.0f64", "0.0");
    let r8 = |ty: u32, cy: u32, rows: u32, threads: u32| {
        let t = tr(&r8_f64, &tiled([16, ty, 64], [1, cy, 64]));
        (t, rows, 32, 2, threads, 8)
    };
    // (kernel, rows, elements per row, elements per copy, block threads, threads in x)
    let cases: Vec<(Translation, u32, u32, u32, u32, u32)> = vec![
        // shared + register + pipeline, radius 4, tile 32 x 16 over 32 x 4 threads:
        // 240 16-byte copies and 960 single ones, neither a multiple of 128
        (tr(STAR_R4, &|_| {}), 24, 40, 4, 128, 32),
        (tr(STAR_R4, &|_| {}), 24, 40, 1, 128, 32),
        // vectorize + pipeline, radius 8, f32 tile 32 x 16: 12 copies a row, 3 per thread
        (tr(STAR_R8_VEC, &|_| {}), 32, 48, 4, 128, 8),
        // f64, tile 16 x `ty` with `cy` y rows per thread: 16 copies a row, 8 threads in x
        // tile 16 x 16: 128 threads, 4 copies each
        r8(16, 1, 32, 128),
        // tile 16 x 6: 48 threads, 3 rows at a time, 22 rows: 352 copies
        r8(6, 1, 22, 48),
        // two y rows per thread, copies in rounds: 16 x 16 over 8 x 8 threads, 512 copies
        // in 8 rounds, the column fixed per thread
        r8(16, 2, 32, 64),
        // 16 x 12 over 8 x 6 threads: 448 copies, a last partial round of 16
        r8(12, 2, 28, 48),
        // 16 x 6 over 8 x 3 threads, not a multiple of a row: 352 copies in 15 rounds
        r8(6, 2, 22, 24),
        // four y rows per thread: 16 x 16 over 8 x 4 threads, 512 copies in 16 rounds
        r8(16, 4, 32, 32),
    ];
    let mut program = String::from(
        r#"#include <stdio.h>
#include <stdbool.h>
typedef long idx_t;
static int hits[64][64];
static int bad;
static void mark(int r, int c, int n, int rows, int cols) {
    if (r < 0 || r >= rows || c < 0 || c + n > cols || c % n != 0) { bad = 1; return; }
    for (int i = 0; i < n; ++i) hits[r][c + i] += 1;
}
int main(void) {
    const idx_t mint_x_tile = 40, mint_y_tile = 24, mint_nx_u = 4096, mint_ny_u = 4096,
        mint_nz_u = 4096, mint_pitch_u = 4096, mint_slice_u = 4096 * 4096, mint_z0 = 8, z = 9,
        mint_s = 1;
"#,
    );
    for (i, (t, rows, cols, elems, threads, bx)) in cases.iter().enumerate() {
        let src = &t.source;
        let head = format!("copies of {elems} element(s)");
        let from = src
            .find(&head)
            .unwrap_or_else(|| panic!("case {i}: no copy of {elems} element(s):\n{src}"));
        let from = from + src[from..].find("for (int").unwrap();
        // the loop, to its closing brace
        let mut depth = 0;
        let mut end = from;
        for (j, ch) in src[from..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = from + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body: Vec<String> = src[from..end]
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("mint_cp_async") {
                    format!("mark(mint_lr, mint_lc, {elems}, {rows}, {cols}); (void)mint_in;")
                } else {
                    l.to_string()
                }
            })
            .collect();
        program += &format!(
            r#"    for (int r = 0; r < 64; ++r) for (int c = 0; c < 64; ++c) hits[r][c] = 0;
    for (unsigned int t = 0; t < {threads}u; ++t) {{
        const int mint_tid = (int)t, mint_tx = (int)(t % {bx}u), mint_ty = (int)(t / {bx}u);
        (void)mint_tid; (void)mint_tx; (void)mint_ty;
        {}
    }}
    for (int r = 0; r < {rows}; ++r) for (int c = 0; c < {cols}; ++c)
        if (hits[r][c] != 1) {{ printf("case {i}: cell (%d, %d) copied %d times\n", r, c, hits[r][c]); return 1; }}
    if (bad) {{ printf("case {i}: a copy outside the rectangle\n"); return 1; }}
    printf("case {i} ok\n");
"#,
            body.join("\n        ")
        );
    }
    program += "    return 0;\n}\n";
    let out = host_c("plane_copy", &program);
    for i in 0..cases.len() {
        assert!(out.contains(&format!("case {i} ok")), "{out}");
    }
}
