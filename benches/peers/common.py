"""Shared parts of the peer benchmarks: the kernels' definitions, an independent
point-by-point reference, the check, the timing rules and the JSON output.

The kernels are the ones of the Rust suite (kernels/src), with the same names,
coefficients and boundary rule (points within R of the edge are not written):

  heat3d-7pt      v = c0*u + c1*(6 face neighbours)               c0 = 0.4, c1 = 0.1
  poisson3d-19pt  v = c0*(b + c1*(6 faces) + (12 edges))          c0 = 1/24, c1 = 2
  star3d-r4       v = (1/(6R))*(sum over distance 1..R on each axis) - u,  R = 4

Timing rules (the same as the Rust harness, issue 4): one warm-up step first (JIT,
allocation and transfers stay out of the numbers and are reported separately as
`warmup_seconds` and `setup_seconds`); then `reps` runs of `steps` steps, each run
between two CUDA events; the median over runs of the time per step.
"""

import json
import math
import time

import numpy as np

KERNELS = {
    "heat3d-7pt": dict(radius=1, coefs=(0.4, 0.1), has_b=False),
    "poisson3d-19pt": dict(radius=1, coefs=(1.0 / 24.0, 2.0), has_b=True),
    "star3d-r4": dict(radius=4, coefs=(1.0 / 24.0, 0.0), has_b=False),
}

# relative tolerances of the check, as in the Rust suite
TOLERANCE = {"f32": 1e-5, "f64": 1e-12}

FACES = [(0, 0, -1), (0, 0, 1), (0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0)]
EDGES = [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
         if abs(dz) + abs(dy) + abs(dx) == 2]


def dtype_of(precision):
    return np.float32 if precision == "f32" else np.float64


def initial(kernel, shape, precision, seed=1):
    """u (and b) with values in [0, 1), and the second buffer v = u (its boundary is u's)."""
    rng = np.random.default_rng(seed)
    t = dtype_of(precision)
    u = rng.random(shape).astype(t)
    b = rng.random(shape).astype(t) if KERNELS[kernel]["has_b"] else None
    return u, u.copy(), b


def reference(kernel, u, b, steps):
    """Point-by-point reference in float64 (plain loops over the stencil's offsets, not
    the slicing formulas the peers use)."""
    spec = KERNELS[kernel]
    r = spec["radius"]
    c0, c1 = spec["coefs"]
    u = u.astype(np.float64)
    b = None if b is None else b.astype(np.float64)
    nz, ny, nx = u.shape
    for _ in range(steps):
        v = u.copy()
        for z in range(r, nz - r):
            for y in range(r, ny - r):
                for x in range(r, nx - r):
                    if kernel == "heat3d-7pt":
                        s = sum(u[z + a, y + c, x + d] for a, c, d in FACES)
                        v[z, y, x] = c0 * u[z, y, x] + c1 * s
                    elif kernel == "poisson3d-19pt":
                        f = sum(u[z + a, y + c, x + d] for a, c, d in FACES)
                        e = sum(u[z + a, y + c, x + d] for a, c, d in EDGES)
                        v[z, y, x] = c0 * (b[z, y, x] + c1 * f + e)
                    else:
                        s = 0.0
                        for k in range(1, r + 1):
                            s += (u[z, y, x - k] + u[z, y, x + k] + u[z, y - k, x]
                                  + u[z, y + k, x] + u[z - k, y, x] + u[z + k, y, x])
                        v[z, y, x] = s / (6.0 * r) - u[z, y, x]
        u = v
    return u


def rel_err(a, ref):
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        return math.inf
    return float(np.max(np.abs(a - ref)) / max(np.max(np.abs(ref)), 1e-300))


def points(kernel, shape):
    r = KERNELS[kernel]["radius"]
    return float(np.prod([n - 2 * r for n in shape]))


def measure(impl, kernel, precision, shape, steps, reps, check_shape=(21, 19, 23)):
    """Checks `impl` (see the framework modules) on a small grid, then times it.

    `impl` has `name`, `setup(u, v, b)` -> state (device arrays), `step(state, kernel,
    precision, src, dst)` running one step from buffer `src` to `dst`, `result(state, i)`
    -> numpy array of buffer i, `sync()`, and `events()` -> (start, stop, elapsed) helpers.
    Returns a row (dict) like the Rust harness's.
    """
    row = dict(kernel=kernel, precision=precision, level=impl.name, shape=list(shape),
               status="ok", check_error=0.0, detail="", seconds_per_step=float("nan"),
               setup_seconds=float("nan"), warmup_seconds=float("nan"))
    try:
        cs = tuple(max(n, 4 * KERNELS[kernel]["radius"] + 6) for n in check_shape)
        u, v, b = initial(kernel, cs, precision, seed=5)
        want = reference(kernel, u, b, 2)
        st = impl.setup(u, v, b)
        impl.step(st, kernel, precision, 0, 1)
        impl.step(st, kernel, precision, 1, 0)
        impl.sync()
        row["check_error"] = rel_err(impl.result(st, 0), want)
        if not row["check_error"] <= TOLERANCE[precision]:
            row["status"] = "wrong"
            row["detail"] = (f"relative error {row['check_error']:.3e} against the reference; "
                             "not timed")
            return row
        del st
        u, v, b = initial(kernel, shape, precision, seed=1)
        t0 = time.perf_counter()
        st = impl.setup(u, v, b)
        impl.sync()
        row["setup_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        impl.step(st, kernel, precision, 0, 1)
        impl.sync()
        row["warmup_seconds"] = time.perf_counter() - t0
        per_rep = []
        s = 1
        for _ in range(reps):
            start, stop, elapsed = impl.events()
            start()
            for _ in range(steps):
                impl.step(st, kernel, precision, s % 2, (s + 1) % 2)
                s += 1
            stop()
            impl.sync()
            per_rep.append(elapsed() / steps)
        row["seconds_per_step"] = float(np.median(per_rep))
        row["gpts"] = points(kernel, shape) / row["seconds_per_step"] * 1e-9
        del st
    except Exception as e:  # a peer that fails is a row, not a crash
        row["status"] = "error"
        row["detail"] = f"{type(e).__name__}: {e}"
    return row


def main(impls, description):
    """Command line shared by the framework scripts."""
    import argparse

    p = argparse.ArgumentParser(description=description)
    p.add_argument("--size", type=int, default=512, help="points per dimension (grid size^3)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--kernels", default=",".join(KERNELS))
    p.add_argument("--precisions", default="f64,f32")
    p.add_argument("--out", required=True, help="JSON file to write")
    a = p.parse_args()
    rows = []
    for impl in impls():
        for k in a.kernels.split(","):
            for prec in a.precisions.split(","):
                row = measure(impl, k, prec, (a.size,) * 3, a.steps, a.reps)
                rows.append(row)
                print(f"  {k:<16} {prec} {row['level']:<24} "
                      f"{row['seconds_per_step'] * 1e3:8.3f} ms/step "
                      f"{row.get('gpts', 0.0):8.2f} GPts/s {row['status']} {row['detail']}",
                      flush=True)
    with open(a.out, "w") as f:
        json.dump(dict(steps=a.steps, reps=a.reps, rows=rows), f, indent=1)


def slicing_step(kernel, u, v, b):
    """One step written the way a NumPy user writes it: shifted slices of the whole
    interior. Works unchanged on CuPy arrays and PyTorch tensors (Python scalars keep the
    arrays' precision)."""
    spec = KERNELS[kernel]
    r = spec["radius"]
    c0, c1 = spec["coefs"]
    nz, ny, nx = u.shape

    def at(dz, dy, dx):
        return u[r + dz:nz - r + dz, r + dy:ny - r + dy, r + dx:nx - r + dx]

    inner = (slice(r, nz - r), slice(r, ny - r), slice(r, nx - r))
    if kernel == "heat3d-7pt":
        v[inner] = c0 * at(0, 0, 0) + c1 * (at(0, 0, -1) + at(0, 0, 1) + at(0, -1, 0)
                                            + at(0, 1, 0) + at(-1, 0, 0) + at(1, 0, 0))
    elif kernel == "poisson3d-19pt":
        faces = (at(0, 0, -1) + at(0, 0, 1) + at(0, -1, 0) + at(0, 1, 0) + at(-1, 0, 0)
                 + at(1, 0, 0))
        edges = (at(0, -1, -1) + at(0, -1, 1) + at(0, 1, -1) + at(0, 1, 1)
                 + at(-1, 0, -1) + at(-1, 0, 1) + at(1, 0, -1) + at(1, 0, 1)
                 + at(-1, -1, 0) + at(-1, 1, 0) + at(1, -1, 0) + at(1, 1, 0))
        v[inner] = c0 * (b[inner] + c1 * faces + edges)
    else:
        s = at(0, 0, -1) + at(0, 0, 1)
        for k in range(1, r + 1):
            if k > 1:
                s = s + at(0, 0, -k) + at(0, 0, k)
            s = s + at(0, -k, 0) + at(0, k, 0) + at(-k, 0, 0) + at(k, 0, 0)
        v[inner] = s * (1.0 / (6.0 * r)) - at(0, 0, 0)
