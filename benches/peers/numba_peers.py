"""Numba peer: @cuda.jit kernels, one thread per point, blocks of 32x8.
Usage: python3 numba_peers.py --out numba.json"""

import math

import numpy as np

# Numba's CUDA target still refers to np.row_stack, an alias of np.vstack that NumPy 2.4
# removed ("module 'numpy' has no attribute 'row_stack'" on the GPU machine's NumPy 2.5).
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

import common


@cuda.jit
def heat7(u, v, b, c0, c1):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x + 1
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y + 1
    z = cuda.blockIdx.z + 1
    nz, ny, nx = u.shape
    if x < nx - 1 and y < ny - 1 and z < nz - 1:
        v[z, y, x] = c0 * u[z, y, x] + c1 * (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x]
                                             + u[z, y + 1, x] + u[z - 1, y, x] + u[z + 1, y, x])


@cuda.jit
def poisson19(u, v, b, c0, c1):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x + 1
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y + 1
    z = cuda.blockIdx.z + 1
    nz, ny, nx = u.shape
    if x < nx - 1 and y < ny - 1 and z < nz - 1:
        faces = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
                 + u[z - 1, y, x] + u[z + 1, y, x])
        edges = (u[z, y - 1, x - 1] + u[z, y - 1, x + 1] + u[z, y + 1, x - 1] + u[z, y + 1, x + 1]
                 + u[z - 1, y, x - 1] + u[z - 1, y, x + 1] + u[z + 1, y, x - 1] + u[z + 1, y, x + 1]
                 + u[z - 1, y - 1, x] + u[z - 1, y + 1, x] + u[z + 1, y - 1, x] + u[z + 1, y + 1, x])
        v[z, y, x] = c0 * (b[z, y, x] + c1 * faces + edges)


@cuda.jit
def star_r4(u, v, b, c0, c1):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x + 4
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y + 4
    z = cuda.blockIdx.z + 4
    nz, ny, nx = u.shape
    if x < nx - 4 and y < ny - 4 and z < nz - 4:
        s = u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x] + u[z - 1, y, x] + u[z + 1, y, x]
        s += u[z, y, x - 2] + u[z, y, x + 2] + u[z, y - 2, x] + u[z, y + 2, x] + u[z - 2, y, x] + u[z + 2, y, x]
        s += u[z, y, x - 3] + u[z, y, x + 3] + u[z, y - 3, x] + u[z, y + 3, x] + u[z - 3, y, x] + u[z + 3, y, x]
        s += u[z, y, x - 4] + u[z, y, x + 4] + u[z, y - 4, x] + u[z, y + 4, x] + u[z - 4, y, x] + u[z + 4, y, x]
        v[z, y, x] = c0 * s - u[z, y, x]


KERNELS = {"heat3d-7pt": heat7, "poisson3d-19pt": poisson19, "star3d-r4": star_r4}
BLOCK = (32, 8, 1)


class Jit:
    name = "numba-cuda.jit"

    def setup(self, u, v, b):
        bufs = [cuda.to_device(u), cuda.to_device(v)]
        return dict(bufs=bufs, b=cuda.to_device(b) if b is not None else bufs[0])

    def step(self, st, kernel, precision, src, dst):
        u, v = st["bufs"][src], st["bufs"][dst]
        r = common.KERNELS[kernel]["radius"]
        nz, ny, nx = u.shape
        grid = (math.ceil((nx - 2 * r) / BLOCK[0]), math.ceil((ny - 2 * r) / BLOCK[1]), nz - 2 * r)
        t = u.dtype.type  # scalars in the arrays' precision, so f32 stays f32
        c0, c1 = common.KERNELS[kernel]["coefs"]
        KERNELS[kernel][grid, BLOCK](u, v, st["b"], t(c0), t(c1))

    def result(self, st, i):
        return st["bufs"][i].copy_to_host()

    def sync(self):
        cuda.synchronize()

    def events(self):
        a, z = cuda.event(timing=True), cuda.event(timing=True)
        return (a.record, z.record, lambda: cuda.event_elapsed_time(a, z) * 1e-3)


if __name__ == "__main__":
    common.main(lambda: [Jit()], __doc__)
