"""CuPy peers: array slicing (what a NumPy user writes first) and an ElementwiseKernel
(one thread per point, CUDA C body). Usage: python3 cupy_peers.py --out cupy.json"""

import cupy as cp

import common

# One thread per array element; points within R of the edge are skipped.
ELEMENTWISE = {
    "heat3d-7pt": """
        const int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        if (x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1 && z >= 1 && z < nz - 1) {
            const ptrdiff_t sy = nx, sz = (ptrdiff_t)nx * ny;
            v[i] = c0 * u[i] + c1 * (u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz]);
        }""",
    "poisson3d-19pt": """
        const int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        if (x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1 && z >= 1 && z < nz - 1) {
            const ptrdiff_t sy = nx, sz = (ptrdiff_t)nx * ny;
            T faces = u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz];
            T edges = u[i - sy - 1] + u[i - sy + 1] + u[i + sy - 1] + u[i + sy + 1]
                    + u[i - sz - 1] + u[i - sz + 1] + u[i + sz - 1] + u[i + sz + 1]
                    + u[i - sz - sy] + u[i - sz + sy] + u[i + sz - sy] + u[i + sz + sy];
            v[i] = c0 * (b[i] + c1 * faces + edges);
        }""",
    "star3d-r4": """
        const int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        if (x >= 4 && x < nx - 4 && y >= 4 && y < ny - 4 && z >= 4 && z < nz - 4) {
            const ptrdiff_t sy = nx, sz = (ptrdiff_t)nx * ny;
            T s = 0;
            for (int k = 1; k <= 4; ++k)
                s += u[i - k] + u[i + k] + u[i - k * sy] + u[i + k * sy] + u[i - k * sz] + u[i + k * sz];
            v[i] = c0 * s - u[i];
        }""",
}

_kernels = {
    k: cp.ElementwiseKernel(
        "raw T u, raw T b, int32 nx, int32 ny, int32 nz, T c0, T c1", "raw T v", body,
        f"mint_peer_{k.replace('-', '_')}")
    for k, body in ELEMENTWISE.items()
}


class Base:
    def setup(self, u, v, b):
        bufs = [cp.asarray(u), cp.asarray(v)]
        return dict(bufs=bufs, b=cp.asarray(b) if b is not None else bufs[0])

    def result(self, st, i):
        return cp.asnumpy(st["bufs"][i])

    def sync(self):
        cp.cuda.get_current_stream().synchronize()

    def events(self):
        a, z = cp.cuda.Event(), cp.cuda.Event()
        return (a.record, z.record, lambda: cp.cuda.get_elapsed_time(a, z) * 1e-3)


class Slicing(Base):
    name = "cupy-slicing"

    def step(self, st, kernel, precision, src, dst):
        common.slicing_step(kernel, st["bufs"][src], st["bufs"][dst], st["b"])


class Elementwise(Base):
    name = "cupy-elementwise"

    def step(self, st, kernel, precision, src, dst):
        u, v = st["bufs"][src], st["bufs"][dst]
        nz, ny, nx = u.shape
        t = u.dtype.type
        c0, c1 = common.KERNELS[kernel]["coefs"]
        _kernels[kernel](u, st["b"], nx, ny, nz, t(c0), t(c1), v, size=u.size)


if __name__ == "__main__":
    common.main(lambda: [Slicing(), Elementwise()], __doc__)
