"""The ring path with the interior of each plane written from the z queue (prototype,
issue #15): Mint's ring path copies each xy plane of the tile, ghost cells and interior,
into the ring with cp.async 3 planes ahead; the interior of plane z + 3 is already in the
threads' registers (the queue's `zp3`), read from device memory 6 steps earlier as the
queue's leading plane. Here each thread stores its queue vector `zp3` into the ring and
cp.async copies only the ghost cells (rows above and below, vectors left and right): a
tile of 16 x 16 with radius 8 then reads 3 cells from L2 per point for its ring instead
of 4. The queue is loaded by every thread whose vector lies in the array (not only the
threads inside the loop's range), since the active threads read their neighbours'."""
import re, sys

def transform(src):
    m = re.search(r"nest\(3\) tile\((\d+), (\d+), (\d+)\) chunksize\((\d+), 1, (\d+)\): (\d+)x(\d+)x1 threads", src)
    bx, by = int(m.group(6)), int(m.group(7))
    V = int(m.group(4))
    T = "double" if "const double* __restrict__ u" in src else "float"
    G = 256 // (8 if T == "double" else 4)
    # the step's copy of plane z + 3
    i = src.index("            if (z + 3 < mint_z_end) {\n")
    j = src.index("            mint_cp_async_commit();\n", i)
    blk = src[i:j]
    cm = re.search(r"// (\d+) rows x (\d+) copies of (\d+) element\(s\): (\d+) round\(s\) of (\d+) threads", blk)
    rows, cv, threads = int(cm.group(1)), int(cm.group(2)), int(cm.group(5))
    assert threads == bx * by and int(cm.group(3)) == V
    r, h = (rows - by) // 2, (cv - bx) // 2
    top = r * cv
    n = rows * cv - by * bx
    rounds = (n + threads - 1) // threads
    slot = re.search(r"&mint_ring_u\[(.+?)\]\[mint_lr\]", blk).group(1)
    inside = re.search(r"const bool mint_in = (.*);", blk).group(1)
    off = re.search(r"mint_in \? &u\[(.*)\] : u, mint_in\);", blk).group(1)
    x0 = re.search(r"const idx_t mint_gx = (.*) \+ mint_lc;", blk).group(1)
    y0 = re.search(r"const idx_t mint_gy = (.*) \+ mint_lr;", blk).group(1)
    new = f"""            if (z + 3 < mint_z_end) {{
                // the interior of plane z + 3 from the queue, the ghost cells with cp.async
                mint_vstore(&mint_ring_u[{slot}][threadIdx.y + {r}][threadIdx.x * {V} + {h * V}], 0, mint_u_zp3);
                #pragma unroll
                for (int mint_le = 0; mint_le < {rounds}; ++mint_le) {{
                    const unsigned int mint_e = (unsigned int)mint_tid + {threads}u * (unsigned int)mint_le;
                    if (mint_le == {rounds - 1} && mint_e >= {n}u) break;
                    int mint_lr, mint_lv;
                    if (mint_e < {top}u) {{ mint_lr = (int)(mint_e / {cv}u); mint_lv = (int)(mint_e % {cv}u); }}
                    else if (mint_e < {2 * top}u) {{ mint_lr = {r + by} + (int)((mint_e - {top}u) / {cv}u); mint_lv = (int)((mint_e - {top}u) % {cv}u); }}
                    else {{ const unsigned int mint_f = mint_e - {2 * top}u; mint_lr = {r} + (int)(mint_f / {2 * h}u); const int mint_c = (int)(mint_f % {2 * h}u); mint_lv = mint_c < {h} ? mint_c : mint_c + {bx}; }}
                    const int mint_lc = mint_lv * {V};
                    const idx_t mint_gx = {x0} + mint_lc;
                    const idx_t mint_gy = {y0} + mint_lr;
                    const bool mint_in = {inside};
                    mint_cp_async16(&mint_ring_u[{slot}][mint_lr][mint_lc], mint_in ? &u[{off}] : u, mint_in);
                }}
            }}
"""
    src = src[:i] + new + src[j:]
    # the queue: every thread whose vector is in the array (what the ring's copy would read)
    qin = f"y >= 0 && y < mint_ny_u && mint_x0 >= -{G} && mint_x0 + {V} <= mint_nx_u + {G}"
    k = src.index("        if (mint_active) {\n            mint_vload(u, (y) * mint_pitch_u + (mint_z0 - 8)")
    src = src[:k] + f"        if ({qin}) {{\n" + src[k + len("        if (mint_active) {\n"):]
    a = "if (mint_active && z + 1 < mint_z_end) mint_vload(u,"
    assert a in src
    src = src.replace(a, f"if (({qin}) && z + 1 < mint_z_end) mint_vload(u,")
    return src

if __name__ == "__main__":
    sys.stdout.write(transform(open(sys.argv[1]).read()))
