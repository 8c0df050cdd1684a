#!/usr/bin/python3
"""Angle-of-repose sweep (ETM 2014 §7.4, Figs. 13-15; validation case V5).

Runs examples/repose/{spheres,cubes,crosses}.toml for every friction coefficient, measures each
heap with `etdem analyze repose` (the paper's 8 x 16 grid), and writes to OUT (default
out/repose-sweep):
  results.csv    shape, mu, mean angle, min, max, spread (half of max - min, the paper's error
                 bar), grains, wall time of the run, simulated seconds
  results.md     the same as a Markdown table (angle +- spread per shape and mu)
  repose.png     angle against mu per shape, the spread as error bars
With --check it also asserts the paper's findings and exits 1 if one fails:
  the angle rises with mu (each shape: angle(0.6) > angle(0.2) > angle(0) and no step down
  larger than the two spreads), mu = 0 leaves almost no slope (< 12 deg), and crosses stand
  highest for mu >= 0.2 (when crosses are part of the sweep).

  tools/repose_sweep.py [--etdem build/release/bin/etdem] [--shapes spheres cubes crosses]
                        [--mu 0 0.2 0.3 0.4 0.5 0.6] [--jobs 2] [--out DIR] [--check]
                        [--replot]   (only redraw table and plot from OUT/results.csv)
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_one(etdem, shape, mu, out):
    scenario = os.path.join(ROOT, "examples", "repose", f"{shape}.toml")
    run_dir = os.path.join(out, f"{shape}-mu{mu:g}")
    cmd = [etdem, "run", scenario, "-o", run_dir, "--threads", "1",
           "--set", f"material[0].friction={mu!r}", "--set", "output.every=0"]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}")
    res = subprocess.run([etdem, "analyze", "repose", run_dir], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"analyze repose {run_dir} failed:\n{res.stderr}")
    with open(os.path.join(run_dir, "repose.json")) as f:
        rep = json.load(f)
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    simulated = summary.get("simulated_time", float("nan"))
    return {"shape": shape, "mu": mu, "mean_deg": rep["mean_deg"], "min_deg": rep["min_deg"],
            "max_deg": rep["max_deg"], "spread_deg": rep["spread_deg"], "grains": rep["grains"],
            "wall_s": wall, "simulated_s": simulated}


def plot(rows, shapes, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.5))
    markers = {"spheres": "o", "cubes": "s", "crosses": "^"}
    for shape in shapes:
        rs = sorted((r for r in rows if r["shape"] == shape), key=lambda r: r["mu"])
        if not rs:
            continue
        ax.errorbar([r["mu"] for r in rs], [r["mean_deg"] for r in rs],
                    yerr=[r["spread_deg"] for r in rs], marker=markers.get(shape, "o"),
                    capsize=3, label=shape)
    ax.set_xlabel("friction coefficient mu")
    ax.set_ylabel("angle of repose [deg]")
    ax.set_title("Angle of repose (8 x 16 grid), e = 0.3, dt = 1/600 s")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def check(rows, shapes):
    failures = []
    by = {(r["shape"], r["mu"]): r for r in rows}
    for shape in shapes:
        mus = sorted(mu for (s, mu) in by if s == shape)
        if not mus:
            continue
        a = [by[(shape, mu)]["mean_deg"] for mu in mus]
        sp = [by[(shape, mu)]["spread_deg"] for mu in mus]
        if 0.0 in mus and by[(shape, 0.0)]["mean_deg"] >= 12.0:
            failures.append(f"{shape}: mu = 0 leaves a slope of {by[(shape, 0.0)]['mean_deg']:.1f} deg")
        for k in range(1, len(mus)):
            if a[k] < a[k - 1] - (sp[k] + sp[k - 1]):
                failures.append(f"{shape}: angle falls from {a[k-1]:.1f} (mu {mus[k-1]}) to "
                                f"{a[k]:.1f} deg (mu {mus[k]}) beyond the spreads")
        lo, mid, hi = (by.get((shape, m)) for m in (0.0, 0.2, 0.6))
        if lo and mid and hi and not (hi["mean_deg"] > mid["mean_deg"] > lo["mean_deg"]):
            failures.append(f"{shape}: angle does not rise 0 -> 0.2 -> 0.6 "
                            f"({lo['mean_deg']:.1f}, {mid['mean_deg']:.1f}, {hi['mean_deg']:.1f})")
    if "crosses" in shapes:
        for mu in sorted({mu for (_, mu) in by if mu >= 0.2}):
            c = by.get(("crosses", mu))
            others = [by[(s, mu)]["mean_deg"] for s in shapes if s != "crosses" and (s, mu) in by]
            if c and others and c["mean_deg"] <= max(others):
                failures.append(f"mu {mu}: crosses ({c['mean_deg']:.1f} deg) not the highest "
                                f"({max(others):.1f} deg)")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etdem", default=os.path.join(ROOT, "build", "release", "bin", "etdem"))
    ap.add_argument("--shapes", nargs="+", default=["spheres", "cubes", "crosses"])
    ap.add_argument("--mu", nargs="+", type=float, default=[0.0, 0.2, 0.3, 0.4, 0.5, 0.6])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "repose-sweep"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--replot", action="store_true")
    args = ap.parse_args()
    if args.replot:
        with open(os.path.join(args.out, "results.csv")) as f:
            rows = [{k: (v if k == "shape" else float(v)) for k, v in r.items()}
                    for r in csv.DictReader(f)]
        plot(rows, args.shapes, os.path.join(args.out, "repose.png"))
        print(f"repose_sweep: redrew {args.out}/repose.png")
        if args.check:
            failures = check(rows, args.shapes)
            for msg in failures:
                print("repose_sweep: CHECK FAILED: " + msg, file=sys.stderr)
            sys.exit(1 if failures else 0)
        return
    if not os.access(args.etdem, os.X_OK):
        sys.exit(f"repose_sweep: {args.etdem} is not an executable (build it first)")
    for shape in args.shapes:
        if not os.path.exists(os.path.join(ROOT, "examples", "repose", f"{shape}.toml")):
            sys.exit(f"repose_sweep: no scenario examples/repose/{shape}.toml")
    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, args.etdem, s, mu, args.out)
                   for s in args.shapes for mu in args.mu]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            rows.append(r)
            print(f"{r['shape']:8s} mu {r['mu']:.1f}: {r['mean_deg']:5.1f} +- {r['spread_deg']:4.1f} deg"
                  f"  ({r['grains']} grains, {r['wall_s']:.0f} s)", flush=True)
    rows.sort(key=lambda r: (args.shapes.index(r["shape"]), r["mu"]))
    cols = ["shape", "mu", "mean_deg", "min_deg", "max_deg", "spread_deg", "grains", "wall_s",
            "simulated_s"]
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("| mu | " + " | ".join(args.shapes) + " |\n")
        f.write("|---|" + "---|" * len(args.shapes) + "\n")
        for mu in args.mu:
            cells = []
            for s in args.shapes:
                r = next((r for r in rows if r["shape"] == s and r["mu"] == mu), None)
                cells.append(f"{r['mean_deg']:.1f} ± {r['spread_deg']:.1f}" if r else "")
            f.write(f"| {mu:g} | " + " | ".join(cells) + " |\n")
    plot(rows, args.shapes, os.path.join(args.out, "repose.png"))
    print(f"repose_sweep: {len(rows)} runs in {time.monotonic() - t0:.0f} s; results in "
          f"{args.out}/results.csv, results.md, repose.png")
    if args.check:
        failures = check(rows, args.shapes)
        for msg in failures:
            print("repose_sweep: CHECK FAILED: " + msg, file=sys.stderr)
        if failures:
            sys.exit(1)
        print("repose_sweep: the paper's findings hold")


if __name__ == "__main__":
    main()
