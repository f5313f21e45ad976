"""Merges the Rust harness's stencils.json with the peers' JSON files into one report:
all.json, report.md (Mint levels, best, Hand-CUDA, peers, ratios) and two PNG charts in
the style of the thesis: Fig. 6.2 (GFLOP/s per kernel and implementation) and Fig. 6.4
(speedup of each optimization level over the baseline).

Usage: python3 report.py DIR   (DIR holds stencils*.json and peers-*.json)
"""

import glob
import json
import os
import sys

LEVELS = ["baseline", "opt-1", "opt-2", "opt-3", "vector", "vector+z"]
PEER_ORDER = ["cupy-slicing", "cupy-elementwise", "torch-slicing", "numba-cuda.jit"]


def load(d):
    # one stencils*.json per run of the Rust harness (run_all.sh runs it kernel by kernel)
    files = sorted(glob.glob(os.path.join(d, "stencils*.json")))
    if not files:
        sys.exit(f"no stencils*.json in {d}: run the Rust harness first")
    rust = json.load(open(files[0]))
    for f in files[1:]:
        rust["rows"] += json.load(open(f))["rows"]
    peers = []
    for f in sorted(glob.glob(os.path.join(d, "peers-*.json"))):
        peers += json.load(open(f))["rows"]
    # rates of the peers from the Rust rows of the same kernel: flops and compulsory
    # bytes per point are the suite's (kernels/src), not repeated here
    per_point = {}
    for r in rust["rows"]:
        if r["status"] == "ok" and r["gpts"] > 0:
            per_point[(r["kernel"], r["precision"])] = (r["gflops"] / r["gpts"], r["gbs"] / r["gpts"])
    for p in peers:
        fl, by = per_point.get((p["kernel"], p["precision"]), (float("nan"), float("nan")))
        if p["status"] == "ok":
            p["gflops"] = p["gpts"] * fl
            p["gbs"] = p["gpts"] * by
            p["copy_fraction"] = p["gbs"] * 1e9 / rust["copy_bandwidth"] if rust["copy_bandwidth"] else 0.0
        else:
            p.update(gpts=0.0, gflops=0.0, gbs=0.0, copy_fraction=0.0)
    return rust, peers


def best(rows, pred):
    ok = [r for r in rows if r["status"] == "ok" and pred(r["level"])]
    return max(ok, key=lambda r: r["gpts"]) if ok else None


def is_mint(level):
    return not level.startswith("hand-cuda")


def summary(rust, peers):
    keys = []
    for r in rust["rows"]:
        if (r["kernel"], r["precision"]) not in keys:
            keys.append((r["kernel"], r["precision"]))
    out = []
    for k, p in keys:
        rows = [r for r in rust["rows"] if r["kernel"] == k and r["precision"] == p]
        prow = {r["level"]: r for r in peers if r["kernel"] == k and r["precision"] == p}
        out.append(dict(kernel=k, precision=p, rows=rows, peers=prow,
                        mint=best(rows, is_mint), hand=best(rows, lambda l: not is_mint(l)),
                        levels={l: next((r for r in rows if r["level"] == l), None) for l in LEVELS}))
    return out


def cell(r):
    if r is None:
        return "–"
    return f"{r['gpts']:.1f}" if r["status"] == "ok" else r["status"]


def markdown(rust, peers, summ):
    s = [f"Backend: {rust['backend']}; {rust['date']}; median of {rust['reps']} runs of "
         f"{rust['steps']} steps; device-to-device copy {rust['copy_bandwidth'] * 1e-9:.0f} GB/s "
         "(bytes read + written).", ""]
    s.append("GPts/s (10⁹ updated points per second). *best* is the fastest correct Mint "
             "variant of all levels and autotuner candidates; Hand-CUDA the fastest correct "
             "hand-written strategy; % of copy is the best variant's effective bandwidth "
             "over the copy bandwidth.")
    s.append("")
    peer_cols = [c for c in PEER_ORDER if any(c in x["peers"] for x in summ)]
    head = (["kernel", "prec"] + LEVELS + ["Mint best", "GFLOP/s", "% of copy", "Hand-CUDA", "Mint/Hand"]
            + peer_cols + (["Mint/best peer"] if peer_cols else []))
    s.append("| " + " | ".join(head) + " |")
    s.append("|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for x in summ:
        m, h = x["mint"], x["hand"]
        line = [x["kernel"], x["precision"]] + [cell(x["levels"][l]) for l in LEVELS]
        line += [f"{m['gpts']:.1f} ({m['level']})" if m else "–",
                 f"{m['gflops']:.0f}" if m else "–",
                 f"{100 * m['copy_fraction']:.1f}%" if m else "–",
                 f"{h['gpts']:.1f} ({h['level'].replace('hand-cuda ', '')})" if h else "–",
                 f"{100 * m['gpts'] / h['gpts']:.0f}%" if m and h else "–"]
        line += [cell(x["peers"].get(c)) for c in peer_cols]
        if peer_cols:
            ok = [r for r in x["peers"].values() if r["status"] == "ok"]
            bp = max(ok, key=lambda r: r["gpts"]) if ok else None
            line.append(f"{m['gpts'] / bp['gpts']:.2f}× ({bp['level']})" if m and bp else "–")
        s.append("| " + " | ".join(line) + " |")
    s.append("")
    odd = [r for r in rust["rows"] + peers if r["status"] != "ok"]
    if odd:
        s.append("Not timed:")
        s += [f"- {r['kernel']} {r['precision']} {r['level']}: {r['status']} — {r['detail']}" for r in odd]
        s.append("")
    setup = [r for r in peers if r["status"] == "ok"]
    if setup:
        s.append("Peers' excluded costs (seconds): allocation + host-to-device copy, and the "
                 "warm-up step (JIT):")
        s.append("")
        s.append("| kernel | prec | peer | setup | warm-up |")
        s.append("|---|---|---|---:|---:|")
        s += [f"| {r['kernel']} | {r['precision']} | {r['level']} | {r['setup_seconds']:.3f} | "
              f"{r['warmup_seconds']:.3f} |" for r in setup]
        s.append("")
    return "\n".join(s)


def charts(summ, d):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    # Fig. 6.2 style: GFLOP/s per kernel, one bar per implementation
    for prec in ("f64", "f32"):
        xs = [x for x in summ if x["precision"] == prec]
        if not xs:
            continue
        impls = [("Mint baseline", lambda x: x["levels"]["baseline"]),
                 ("Mint best", lambda x: x["mint"]),
                 ("Hand-CUDA", lambda x: x["hand"])]
        impls += [(c, (lambda c: lambda x: x["peers"].get(c))(c)) for c in PEER_ORDER
                  if any(c in x["peers"] for x in xs)]
        fig, ax = plt.subplots(figsize=(min(16, max(8, 1.4 * len(xs))), 5))
        w = 0.8 / len(impls)
        for i, (name, get) in enumerate(impls):
            vals = [(get(x) or {}).get("gflops", 0.0) if (get(x) or {}).get("status") == "ok" else 0.0
                    for x in xs]
            ax.bar(np.arange(len(xs)) + i * w, vals, w, label=name)
        ax.set_xticks(np.arange(len(xs)) + 0.4 - w / 2)
        ax.set_xticklabels([x["kernel"] for x in xs], rotation=30, ha="right")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"Stencil performance per implementation ({prec}), cf. thesis Fig. 6.2")
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(d, f"fig6.2-{prec}.png"), dpi=120)
        plt.close(fig)
    # Fig. 6.4 style: speedup of each level over the baseline
    xs = [x for x in summ if x["levels"]["baseline"] and x["levels"]["baseline"]["status"] == "ok"]
    fig, ax = plt.subplots(figsize=(max(8, 0.5 * len(xs)), 4.5))
    names = LEVELS[1:] + ["best"]
    w = 0.8 / len(names)
    for i, l in enumerate(names):
        vals = []
        for x in xs:
            r = x["mint"] if l == "best" else x["levels"][l]
            ok = r is not None and r["status"] == "ok"
            vals.append(r["gpts"] / x["levels"]["baseline"]["gpts"] if ok else 0.0)
        ax.bar(np.arange(len(xs)) + i * w, vals, w, label=l)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(xs)) + 0.4 - w / 2)
    ax.set_xticklabels([f"{x['kernel']} {x['precision']}" for x in xs], rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("speedup over the baseline")
    ax.set_title("Optimization levels over the baseline, cf. thesis Fig. 6.4")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "fig6.4.png"), dpi=120)
    plt.close(fig)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "target/bench"
    rust, peers = load(d)
    summ = summary(rust, peers)
    md = markdown(rust, peers, summ)
    open(os.path.join(d, "report.md"), "w").write(md + "\n")
    json.dump(dict(rust, peers=peers), open(os.path.join(d, "all.json"), "w"), indent=1)
    print(md)
    try:
        charts(summ, d)
        print(f"wrote {d}/report.md, all.json, fig6.2-f64.png, fig6.2-f32.png, fig6.4.png")
    except ImportError as e:
        print(f"charts skipped ({e}); pip install matplotlib")


if __name__ == "__main__":
    main()
