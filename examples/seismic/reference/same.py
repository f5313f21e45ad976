"""Two runs of the seismic example, trace by trace: the largest difference between their
seismograms relative to the trace's peak, and their correlation. Used to check that a
rewrite of the solver computes the same thing (issue #11: "equal to the old code's, to
f32 rounding"). Needs numpy only.

    python3 same.py RUN_DIR REFERENCE_DIR
"""
import glob
import os
import sys

import numpy as np


def load(path):
    return np.loadtxt(path, delimiter=",", comments="#", skiprows=2)


def main(run, ref):
    worst = 0.0
    worst_rcv = 0.0
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ref, "*.csv")))
    if not names:
        sys.exit(f"no traces in {ref}")
    print(
        f"{'receiver':>16} {'comp':>4} {'peak (m/s)':>11} {'max|diff|/peak':>15}"
        f" {'/receiver peak':>15} {'corr':>12}"
    )
    for n in names:
        a, b = load(os.path.join(run, n)), load(os.path.join(ref, n))
        if a.shape != b.shape:
            sys.exit(f"{n}: {a.shape} against {b.shape}")
        rpeak = np.abs(b[:, 1:4]).max()
        for c, comp in enumerate("xyz", start=1):
            peak = np.abs(b[:, c]).max()
            diff = np.abs(a[:, c] - b[:, c]).max()
            rel = diff / peak if peak > 0 else 0.0
            rrel = diff / rpeak if rpeak > 0 else 0.0
            corr = np.corrcoef(a[:, c], b[:, c])[0, 1] if peak > 0 else 1.0
            worst = max(worst, rel)
            worst_rcv = max(worst_rcv, rrel)
            print(
                f"{n[:-4]:>16} {'v' + comp:>4} {peak:11.4e} {rel:15.3e} {rrel:15.3e} {corr:12.9f}"
            )
    print(f"largest difference relative to the trace's peak: {worst:.3e}")
    print(f"largest difference relative to the receiver's peak (all components): {worst_rcv:.3e}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
