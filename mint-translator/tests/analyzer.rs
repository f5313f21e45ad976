//! The stencil analyzer on the thesis's worked examples (Sec. 5.3, 7.1.8, 7.2.8).

use mint_testing::kernel;
use mint_translator::analyzer::{NearLimit, analyze};
use mint_translator::baseline::config;
use mint_translator::ir::Kernel;
use mint_translator::{Target, translate};

/// AWP-ODC velocity kernel (thesis Table 7.2), with v1 and w1 written by symmetry.
const VELOCITY: &str = "
arrays: u1 f32 3, v1 f32 3, w1 f32 3, xx f32 3, yy f32 3, zz f32 3, xy f32 3, xz f32 3, yz f32 3, d1 f32 3, d2 f32 3, d3 f32 3
scalars: c1 f32, c2 f32
nest: k 2..nz-2, j 2..ny-2, i 2..nx-2
tile: 32,4,1
u1[k][j][i] += d1[k][j][i] * (c1 * (xx[k][j][i] - xx[k][j][i-1]) + c2 * (xx[k][j][i+1] - xx[k][j][i-2])
    + c1 * (xy[k][j][i] - xy[k][j-1][i]) + c2 * (xy[k][j+1][i] - xy[k][j-2][i])
    + c1 * (xz[k][j][i] - xz[k-1][j][i]) + c2 * (xz[k+1][j][i] - xz[k-2][j][i]));
v1[k][j][i] += d2[k][j][i] * (c1 * (xy[k][j][i+1] - xy[k][j][i]) + c2 * (xy[k][j][i+2] - xy[k][j][i-1])
    + c1 * (yy[k][j+1][i] - yy[k][j][i]) + c2 * (yy[k][j+2][i] - yy[k][j-1][i])
    + c1 * (yz[k][j][i] - yz[k-1][j][i]) + c2 * (yz[k+1][j][i] - yz[k-2][j][i]));
w1[k][j][i] += d3[k][j][i] * (c1 * (xz[k][j][i+1] - xz[k][j][i]) + c2 * (xz[k][j][i+2] - xz[k][j][i-1])
    + c1 * (yz[k][j][i] - yz[k][j-1][i]) + c2 * (yz[k][j+1][i] - yz[k][j-2][i])
    + c1 * (zz[k+1][j][i] - zz[k][j][i]) + c2 * (zz[k+2][j][i] - zz[k-1][j][i]));
";

/// AWP-ODC stress kernel (thesis Table 7.2): xx, yy, zz with the anelastic r1..r3 and
/// xy, xz, yz with r4..r6, written by symmetry.
const STRESS: &str = "
arrays: u1 f32 3, v1 f32 3, w1 f32 3, xx f32 3, yy f32 3, zz f32 3, xy f32 3, xz f32 3, yz f32 3, r1 f32 3, r2 f32 3, r3 f32 3, r4 f32 3, r5 f32 3, r6 f32 3, x1 f32 3, xm f32 3, qpa f32 3, h f32 3, vx1 f32 3, vx2 f32 3, dcrj f32 3, xmu1 f32 3, xmu2 f32 3, xmu3 f32 3, h1 f32 3, h2 f32 3, h3 f32 3
scalars: c1 f32, c2 f32, dth f32, dt f32
nest: k 2..nz-2, j 2..ny-2, i 2..nx-2
tile: 32,4,1
let vxx = c1 * (u1[k][j][i+1] - u1[k][j][i]) + c2 * (u1[k][j][i+2] - u1[k][j][i-1]);
let vyy = c1 * (v1[k][j][i] - v1[k][j-1][i]) + c2 * (v1[k][j+1][i] - v1[k][j-2][i]);
let vzz = c1 * (w1[k][j][i] - w1[k-1][j][i]) + c2 * (w1[k+1][j][i] - w1[k-2][j][i]);
let vxy = c1 * (u1[k][j+1][i] - u1[k][j][i]) + c2 * (u1[k][j+2][i] - u1[k][j-1][i]);
let vyx = c1 * (v1[k][j][i] - v1[k][j][i-1]) + c2 * (v1[k][j][i+1] - v1[k][j][i-2]);
let vxz = c1 * (u1[k+1][j][i] - u1[k][j][i]) + c2 * (u1[k+2][j][i] - u1[k-1][j][i]);
let vzx = c1 * (w1[k][j][i] - w1[k][j][i-1]) + c2 * (w1[k][j][i+1] - w1[k][j][i-2]);
let vyz = c1 * (v1[k+1][j][i] - v1[k][j][i]) + c2 * (v1[k+2][j][i] - v1[k-1][j][i]);
let vzy = c1 * (w1[k][j][i] - w1[k][j-1][i]) + c2 * (w1[k][j+1][i] - w1[k][j-2][i]);
let tmp = x1[k][j][i] * (vxx + vyy + vzz);
let a1 = qpa[k][j][i] * (vxx + vyy + vzz);
xx[k][j][i] = xx[k][j][i] + dth * (tmp - xm[k][j][i] * (vyy + vzz)) + dt * r1[k][j][i];
r1[k][j][i] = (vx2[k][j][i] * r1[k][j][i] - h[k][j][i] * (vyy + vzz) + a1) * vx1[k][j][i];
xx[k][j][i] = (xx[k][j][i] + dt * r1[k][j][i]) * dcrj[k][j][i];
yy[k][j][i] = yy[k][j][i] + dth * (tmp - xm[k][j][i] * (vxx + vzz)) + dt * r2[k][j][i];
r2[k][j][i] = (vx2[k][j][i] * r2[k][j][i] - h[k][j][i] * (vxx + vzz) + a1) * vx1[k][j][i];
yy[k][j][i] = (yy[k][j][i] + dt * r2[k][j][i]) * dcrj[k][j][i];
zz[k][j][i] = zz[k][j][i] + dth * (tmp - xm[k][j][i] * (vxx + vyy)) + dt * r3[k][j][i];
r3[k][j][i] = (vx2[k][j][i] * r3[k][j][i] - h[k][j][i] * (vxx + vyy) + a1) * vx1[k][j][i];
zz[k][j][i] = (zz[k][j][i] + dt * r3[k][j][i]) * dcrj[k][j][i];
xy[k][j][i] = (xy[k][j][i] + xmu1[k][j][i] * (vxy + vyx) + dt * r4[k][j][i]) * dcrj[k][j][i];
r4[k][j][i] = (vx2[k][j][i] * r4[k][j][i] + h1[k][j][i] * (vxy + vyx)) * vx1[k][j][i];
xy[k][j][i] = (xy[k][j][i] + dt * r4[k][j][i]) * dcrj[k][j][i];
xz[k][j][i] = (xz[k][j][i] + xmu2[k][j][i] * (vxz + vzx) + dt * r5[k][j][i]) * dcrj[k][j][i];
r5[k][j][i] = (vx2[k][j][i] * r5[k][j][i] + h2[k][j][i] * (vxz + vzx)) * vx1[k][j][i];
xz[k][j][i] = (xz[k][j][i] + dt * r5[k][j][i]) * dcrj[k][j][i];
yz[k][j][i] = (yz[k][j][i] + xmu3[k][j][i] * (vyz + vzy) + dt * r6[k][j][i]) * dcrj[k][j][i];
r6[k][j][i] = (vx2[k][j][i] * r6[k][j][i] + h3[k][j][i] * (vyz + vzy)) * vx1[k][j][i];
yz[k][j][i] = (yz[k][j][i] + dt * r6[k][j][i]) * dcrj[k][j][i];
";

fn with_shared(src: &str, n: u8) -> Kernel {
    let mut k = kernel("awp_0", src);
    k.options.shared = n;
    mint_translator::check(&mut k).unwrap();
    k
}

fn selected(src: &str, n: u8) -> Vec<(String, u32)> {
    let k = with_shared(src, n);
    let cfg = config::resolve(&k, &Target::default()).unwrap();
    analyze(&k, &cfg, &Target::default(), NearLimit::default()).selected
}

fn names(sel: &[(String, u32)]) -> Vec<&str> {
    sel.iter()
        .map(|(n, p)| {
            assert_eq!(*p, 1, "AWP-ODC arrays get one plane each");
            n.as_str()
        })
        .collect()
}

/// Fig. 7.7 and Sec. 7.1.8: the velocity kernel's candidates are xy (8 one-plane
/// references), xz and yz (5 each: their z references are not shared by a 2-D block), xx
/// and yy (4); zz has no off-center reference; no array has more than two up-down
/// references, so the three-plane list is empty.
#[test]
fn awp_odc_velocity_kernel_selection() {
    let k = with_shared(VELOCITY, 8);
    let cfg = config::resolve(&k, &Target::default()).unwrap();
    let a = analyze(&k, &cfg, &Target::default(), NearLimit::default());
    let lists: Vec<(&str, u32)> = a
        .freq
        .one_plane
        .iter()
        .map(|(n, c)| (n.as_str(), *c))
        .collect();
    assert_eq!(
        lists,
        vec![("xy", 8), ("xz", 5), ("yz", 5), ("xx", 4), ("yy", 4)]
    );
    assert!(a.freq.three_planes.is_empty());
    // xy's 8 references include 2 to the center point (registers when `register` is on)
    assert_eq!(a.array("xy").unwrap().counts.center, 2);
    assert_eq!(names(&selected(VELOCITY, 1)), vec!["xy"]);
    assert_eq!(names(&selected(VELOCITY, 2)), vec!["xy", "xz"]);
    assert_eq!(names(&selected(VELOCITY, 3)), vec!["xy", "xz", "yz"]);
    assert_eq!(names(&selected(VELOCITY, 4)), vec!["xy", "xz", "yz", "xx"]);
    for n in 5..=8 {
        assert_eq!(
            names(&selected(VELOCITY, n)),
            vec!["xy", "xz", "yz", "xx", "yy"],
            "shared = {n}"
        );
    }
}

/// Sec. 7.1.8: in the stress kernel u1, v1 and w1 are each referenced 12 times with the
/// center 3 times; each gets one plane at shared = 3, and their three-plane lists are
/// empty (two up-down references each; the third lies two planes away).
#[test]
fn awp_odc_stress_kernel_selection() {
    let k = with_shared(STRESS, 8);
    let cfg = config::resolve(&k, &Target::default()).unwrap();
    let a = analyze(&k, &cfg, &Target::default(), NearLimit::default());
    for v in ["u1", "v1", "w1"] {
        let c = a.array(v).unwrap().counts;
        assert_eq!(c.total(), 12, "{v}");
        assert_eq!(c.center, 3, "{v}");
        assert_eq!(c.up_down, 2, "{v}");
    }
    assert!(a.freq.three_planes.is_empty());
    assert_eq!(names(&selected(STRESS, 1)), vec!["u1"]);
    assert_eq!(names(&selected(STRESS, 3)), vec!["u1", "v1", "w1"]);
}

fn source(src: &str, n: u8) -> String {
    let mut k = kernel("awp_0", src);
    k.options.shared = n;
    k.options.register = true;
    translate(&k, &Target::default()).unwrap().source
}

/// Sec. 7.1.8: "shared = 3-8 has the same effect on the stress kernel"; "Mint generates
/// the same CUDA code for the values from 5 through 8".
#[test]
fn awp_odc_identical_code_across_slot_limits() {
    let s3 = source(STRESS, 3);
    for n in 4..=8 {
        assert_eq!(source(STRESS, n), s3, "stress kernel, shared = {n}");
    }
    assert_ne!(source(STRESS, 2), s3);
    let v5 = source(VELOCITY, 5);
    for n in 6..=8 {
        assert_eq!(source(VELOCITY, n), v5, "velocity kernel, shared = {n}");
    }
    assert_ne!(source(VELOCITY, 4), v5);
}

/// 3-D Harris (Table 7.6) with `unroll`, a 5×5×5 window and a 16×16×1 tile: after
/// unrolling, each thread makes 750 references to `data`, 450 of them shareable (those
/// within one plane of the center), at 135 distinct stencil points: 45 in each of the
/// three planes (Sec. 7.2.8).
#[test]
fn harris_after_unrolling() {
    let src = "
arrays: data f32 3, w f32 3, harris f32 3
scalars: sensitivity f32
nest: i 3..depth-3, j 3..height-3, k 3..width-3
tile: 16,16,1
options: shared, register, unroll
let mut lx = 0.0f32;
let mut ly = 0.0f32;
let mut lz = 0.0f32;
let mut lxly = 0.0f32;
let mut lylz = 0.0f32;
let mut lzlx = 0.0f32;
for l in i - 2..=i + 2 {
    for m in j - 2..=j + 2 {
        for n in k - 2..=k + 2 {
            let dx = data[l][m][n + 1] - data[l][m][n - 1];
            let dy = data[l][m + 1][n] - data[l][m - 1][n];
            let dz = data[l + 1][m][n] - data[l - 1][m][n];
            let weight = w[l - i + 2][m - j + 2][n - k + 2];
            lx += weight * dx * dx;
            ly += weight * dy * dy;
            lz += weight * dz * dz;
            lxly += weight * dx * dy;
            lylz += weight * dy * dz;
            lzlx += weight * dz * dx;
        }
    }
}
harris[i][j][k] = lx * ly * lz + lxly * lylz * lzlx + lxly * lylz * lzlx - lzlx * lzlx * ly - lxly * lxly * lz - lylz * lylz * lx
    - sensitivity * (lx + ly + lz) * (lx + ly + lz) * (lx + ly + lz);
";
    let mut k = kernel("harris_0", src);
    mint_translator::check(&mut k).unwrap();
    // before unrolling the analyzer sees no stencil
    let cfg = config::resolve(&k, &Target::default()).unwrap();
    let before = analyze(&k, &cfg, &Target::default(), NearLimit::default());
    assert_eq!(before.array("data").unwrap().counts.shareable(), 0);
    mint_translator::optimizer::unroll::unroll(&mut k);
    let a = analyze(&k, &cfg, &Target::default(), NearLimit::default());
    let data = a.array("data").unwrap();
    assert_eq!(data.counts.total(), 750);
    assert_eq!(data.counts.shareable(), 450);
    assert_eq!(data.shareable_points, 135);
    assert_eq!(
        (
            data.halo.x_lo,
            data.halo.x_hi,
            data.halo.y_lo,
            data.halo.y_hi,
            data.halo.z_lo,
            data.halo.z_hi
        ),
        (3, 3, 3, 3, 1, 1)
    );
    // the weights are read at constant subscripts: not a stencil
    assert_eq!(a.array("w").unwrap().counts.non_stencil, 125);
    // and the whole kernel translates, with data staged in shared memory
    let t = translate(&kernel("harris_0", src), &Target::default()).unwrap();
    assert!(t.source.contains("mint_sh_data"), "{}", t.report);
    assert!(t.dynamic_shared_bytes > 0);
}
