#!/usr/bin/env python3
"""Frequency-wavenumber (FK) reference seismograms for the seismic example.

An independent solution of the layered problem the example solves: Zhu & Rivera's (2002)
FK method for a point source in a 1-D layered half-space with a free surface, through
`pyfk` (Xi, Zhu et al.; the Python version of Lupei Zhu's `fk`). It shares no code and no
discretization with the finite-difference solver.

    python fk.py ../loh1.toml out/loh1            # one CSV per receiver of the configuration
    python fk.py ../loh1.toml out/loh1 --extra r2000_0:2000,0

The environment is pinned in `requirements.txt` beside this file (pyfk 0.3.0 needs
Python 3.9, `numpy<2`, `cython<3` and scipy present at build time; see README.md).

Conventions of the files written (the same as the example's own seismograms):
- one CSV per receiver, `t,vx,vy,vz`: velocity in m/s, x east, y north, z up;
- t in seconds from the origin time of the source (the moment rate starts at t = 0);
- a header line with the model, the source and pyfk's parameters.

What is computed: pyfk's Green's functions convolved with the configuration's moment
rate (Brune t/T²·exp(−t/T), sampled at the output step and normalized to unit area) give
ground *velocity* in cm/s (pyfk's docstring says displacement; checked here: over 20 s
the time integral of the radial trace at 10 km from the LOH.1 source reaches pyfk's own
static displacement, 6.24 cm, and its static output has that unit). The three
components (up, radial, transverse) are rotated to (east, north, up) and converted to
m/s.

Q: for a material with Qp, Qs pyfk uses FK's constant-Q complex velocities
v·(1 + (ln(f/1 Hz)/π + i/2)/Q), whose phase velocity equals v at 1 Hz. The example's
velocities hold at `attenuation.reference_frequency`; this script converts them to
their 1 Hz values with the same constant-Q law, so that both solve the same problem.
A material without Q is given Q = 1e7 (elastic to 1e-7).
"""

import argparse
import math
import os
import sys

import numpy as np

try:
    import tomllib  # Python >= 3.11
except ImportError:  # the pinned environment is Python 3.9
    import tomli as tomllib

ELASTIC_Q = 1.0e7


def layers_of(cfg):
    """(thickness km, vs km/s, vp km/s, rho g/cm3, qs, qp) rows; the last is the half-space."""
    mat = cfg["material"]
    if mat["type"] == "homogeneous":
        layers = [dict(mat)]
    elif mat["type"] == "layered":
        layers = mat["layers"]
    else:
        sys.exit(f"fk.py: material type {mat['type']!r} has no 1-D FK model")
    fref = cfg.get("attenuation", {}).get("reference_frequency", 1.0)
    rows = []
    for i, l in enumerate(layers):
        last = i == len(layers) - 1
        th = 0.0 if last else l["thickness"] / 1000.0
        qs, qp = l.get("qs"), l.get("qp")
        vs, vp = l["vs"], l["vp"]
        if qs is not None and qp is not None:
            # FK's phase velocity at f is v·(1 + ln(f)/(π Q)): move the reference to 1 Hz
            vs = vs / (1.0 + math.log(fref) / (math.pi * qs))
            vp = vp / (1.0 + math.log(fref) / (math.pi * qp))
        else:
            qs, qp = ELASTIC_Q, ELASTIC_Q
        rows.append([th, vs / 1000.0, vp / 1000.0, l["rho"] / 1000.0, qs, qp])
    if len(rows) == 1:
        # a half-space with a free surface: a first layer of the same material
        rows.insert(0, [1.0] + rows[0][1:])
    return np.array(rows, dtype=float)


def brune_rate(t, T):
    return np.where(t >= 0.0, t / (T * T) * np.exp(-np.maximum(t, 0.0) / T), 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", help="the example's TOML configuration (loh1.toml, loh3.toml, ...)")
    ap.add_argument("out", help="output directory")
    ap.add_argument("--extra", action="append", default=[],
                    help="NAME:EAST,NORTH more surface receivers, offsets from the epicentre in m")
    ap.add_argument("--only", action="append", default=[], help="compute only these receivers")
    ap.add_argument("--dt", type=float, default=0.01, help="FK time step (s); output at dt/smth")
    ap.add_argument("--smth", type=int, default=10)
    ap.add_argument("--npt", type=int, default=2048, help="FK samples (npt·dt > duration + travel time)")
    ap.add_argument("--kmax", type=float, default=30.0, help="pyfk kmax in 1/source depth")
    ap.add_argument("--dk", type=float, default=0.05, help="pyfk wavenumber step in π/(largest distance)")
    ap.add_argument("--out-dt", type=float, default=0.002, help="time step of the files written (s)")
    ap.add_argument("--duration", type=float, default=None, help="seconds written (default: the configuration's)")
    args = ap.parse_args()

    from pyfk import Config, SeisModel, SourceModel, calculate_gf, calculate_sync
    from obspy import Trace
    import pyfk

    with open(args.config, "rb") as f:
        cfg = tomllib.load(f)
    if len(cfg["source"]) != 1:
        sys.exit("fk.py: exactly one source")
    src = cfg["source"][0]
    sx, sy, sdep = src["location"]
    stf = src["stf"]
    if stf["type"] != "brune":
        sys.exit("fk.py: only the Brune moment rate")
    mom = src["moment"]
    # our moment tensor: x east, y north, z down (N·m). FK's: x north, y east, z down
    # (dyne·cm), ordered M0, Mxx, Mxy, Mxz, Myy, Myz, Mzz
    m = {k: mom.get(k, 0.0) for k in ["xx", "yy", "zz", "xy", "xz", "yz"]}
    fk_m = {"NN": m["yy"], "NE": m["xy"], "ND": m["yz"], "EE": m["xx"], "ED": m["xz"], "DD": m["zz"]}
    m0 = max(abs(v) for v in fk_m.values())
    mech = [m0 * 1e7] + [fk_m[k] / m0 for k in ["NN", "NE", "ND", "EE", "ED", "DD"]]

    model_rows = layers_of(cfg)
    duration = args.duration or cfg["grid"]["duration"]
    receivers = []
    for r in cfg.get("receiver", []):
        if r["location"][2] != 0.0:
            continue  # FK is computed for surface receivers here
        receivers.append((r["name"], r["location"][0] - sx, r["location"][1] - sy))
    for e in args.extra:
        name, xy = e.split(":")
        de, dn = (float(v) for v in xy.split(","))
        receivers.append((name, de, dn))
    if args.only:
        receivers = [r for r in receivers if r[0] in args.only]
    dists = [math.hypot(de, dn) / 1000.0 for _, de, dn in receivers]

    model = SeisModel(model=model_rows.copy())
    source = SourceModel(sdep=sdep / 1000.0, srcType="dc", source_mechanism=mech)
    conf = Config(model=model, source=source, receiver_distance=dists, npt=args.npt,
                  dt=args.dt, smth=args.smth, kmax=args.kmax, dk=args.dk, taper=0.3)
    gf = calculate_gf(conf)
    dts = args.dt / args.smth
    ns = int(round(5 * stf["T"] * 10 / dts))  # 50 T of the rate: its tail is below 1e-20
    rate = brune_rate(np.arange(ns) * dts, stf["T"]) * dts
    stf_tr = Trace(data=rate)
    stf_tr.stats.delta = dts
    os.makedirs(args.out, exist_ok=True)
    for irec, (name, de, dn) in enumerate(receivers):
        az = math.degrees(math.atan2(de, dn)) % 360.0
        st = calculate_sync(gf[irec], conf, az, stf_tr)[0]
        b = st[0].stats.sac["b"]
        n = st[0].stats.npts
        t = b + np.arange(n) * dts
        up, rad, tra = (st[i].data * 0.01 for i in range(3))  # cm -> m
        a = math.radians(az)
        east = rad * math.sin(a) + tra * math.cos(a)
        north = rad * math.cos(a) - tra * math.sin(a)
        # zero before the first sample (the trace starts before the first arrival); linear
        # interpolation from pyfk's 1 ms samples (relative error (2πf·1 ms)²/8: 4e-5 at
        # 3 Hz, and what it does to the higher frequencies the comparison filters away)
        out_t = np.arange(0.0, duration + 1e-9, args.out_dt)
        cols = [np.interp(out_t, t, d, left=0.0, right=d[-1]) for d in (east, north, up)]
        path = os.path.join(args.out, f"{name}.csv")
        with open(path, "w") as f:
            f.write(
                f"# FK reference (pyfk {getattr(pyfk, '__version__', '0.3.0')}), {cfg.get('title', '')}: "
                f"receiver {name} at {de:g} m east, {dn:g} m north of the epicentre, surface; "
                f"source depth {sdep:g} m, moment {mom} N·m, Brune T = {stf['T']} s; "
                f"model rows (km, km/s, km/s, g/cm3, Qs, Qp) {model_rows.tolist()}; "
                f"dt {args.dt} smth {args.smth} npt {args.npt} kmax {args.kmax}; "
                f"velocities in m/s, x east, y north, z up, t from the origin time\n"
            )
            f.write("t,vx,vy,vz\n")
            for i in range(len(out_t)):
                f.write(f"{out_t[i]:.4f},{cols[0][i]:.6e},{cols[1][i]:.6e},{cols[2][i]:.6e}\n")
        print(f"fk.py: wrote {path} (distance {dists[irec]:.3f} km, azimuth {az:.2f}°)")


if __name__ == "__main__":
    main()
