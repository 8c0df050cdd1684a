#!/usr/bin/python3
"""Angle-of-repose sweep (ETM 2014 §7.4, Figs. 13-15; validation case V5).

Runs examples/repose/{spheres,cubes,crosses}.toml for every friction coefficient (and every fill
seed given), measures each heap with `etdem analyze repose` (the paper's 8 x 16 grid through the
highest surface nodes), follows it in time with `analyze repose --series` (snapshots every
0.5 s, deleted afterwards), and writes to OUT (default out/repose-sweep):
  runs.csv       one row per run: shape, mu, seed, mean angle, min, max, spread (the paper's
                 error bar: half of max - min over the grid's rows), grains, grains still over the
                 floor, the fraction of them that left it during the last second, the change
                 of the angle over that second, their mean speed, wall time, simulated seconds
  results.csv    per shape and mu, over the seeds: mean angle, mean spread, the standard
                 deviation of the seeds' angles (0 with one seed), drained fraction (largest)
  results.md     angle +- spread per shape and mu as a Markdown table (a heap that never came to
                 rest is marked "flowing")
  repose.png     angle against mu per shape, the spread as error bars
With --check it asserts the findings of the paper that this engine reproduces, and exits 1 if
one fails:
  - mu = 0 holds no slope: the angle is below 12 deg or the heap is still flowing at the end
    (more than 3 % of the grains over the floor left it during the last second; a flowing heap
    holds no angle, counted as 0 below);
  - with friction (mu >= 0.2) every heap has stopped flowing (at most 3 % drained in the last
    second: spheres, without rolling resistance, keep losing 0.5-2 %/s at the toe while their
    angle stays put) and holds a slope of at least 12 deg;
  - the angle rises with mu, non-linearly: no step down larger than the two spreads, and the
    rise from 0 to 0.2 exceeds the rise from 0.2 to 0.6 (a concave, saturating curve).
The paper's third finding, crosses standing highest, is printed as a comparison, not asserted:
the crosses of examples/repose/crosses.toml stand lower than the cubes (docs/validation.md, V5).

  tools/repose_sweep.py [--etdem build/release/bin/etdem] [--shapes spheres cubes crosses]
                        [--mu 0 0.2 0.3 0.4 0.5 0.6] [--seeds 1] [--jobs 2] [--out DIR]
                        [--check] [--replot]   (--replot: only redraw from OUT/runs.csv)
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOT_SECONDS = 0.5
RUN_COLUMNS = ["shape", "mu", "seed", "mean_deg", "min_deg", "max_deg", "spread_deg", "grains",
               "over_floor", "drained_last_s", "angle_change_last_s", "mean_speed", "wall_s",
               "simulated_s"]
FLOWING = 0.03      # a heap losing more than 3 % of its grains per second is still flowing
RESULT_COLUMNS = ["shape", "mu", "seeds", "mean_deg", "spread_deg", "seed_sd_deg",
                  "drained_last_s", "angle_change_last_s", "over_floor"]


def run_one(etdem, shape, mu, seed, out):
    scenario = os.path.join(ROOT, "examples", "repose", f"{shape}.toml")
    run_dir = os.path.join(out, f"{shape}-mu{mu:g}-seed{seed}")
    cmd = [etdem, "run", scenario, "-o", run_dir, "--threads", "1",
           "--set", f"material[0].friction={mu!r}", "--set", f"fill[0].seed={seed}",
           # V5 is the 2014 paper's case, whose grains have no rolling resistance (the spheres
           # example sets 0.05 so that the demo's heap comes to rest).
           "--set", "material[0].rolling_friction=0", "--set", "output.every=0"]
    # Snapshots every SNAPSHOT_SECONDS: the scenario's dt decides the step count.
    with open(scenario, "rb") as f:
        dt = tomllib.load(f)["simulation"]["dt"]
    every = max(1, round(SNAPSHOT_SECONDS / dt))
    cmd += ["--set", f"output.state_every={every}"]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}")
    for args in (["analyze", "repose", run_dir, "--series"], ["analyze", "repose", run_dir]):
        res = subprocess.run([etdem] + args, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{res.stderr}")
    with open(os.path.join(run_dir, "repose.json")) as f:
        rep = json.load(f)
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(run_dir, "repose_series.csv")) as f:
        series = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    for path in glob.glob(os.path.join(run_dir, "state_*.csv")):
        os.remove(path)
    # Grains that left the floor during the last second, as a fraction of those there before.
    end = summary["simulated_time"]
    before = [r for r in series if r["time"] <= end - 1.0 + 1e-9]
    then = before[-1]["grains_over_floor"] if before else float("nan")
    now = rep["grains_over_floor"]
    drained = (then - now) / then if then > 0 else float("nan")
    change = abs(rep["mean_deg"] - before[-1]["mean_deg"]) if before else float("nan")
    return {"shape": shape, "mu": mu, "seed": seed, "mean_deg": rep["mean_deg"],
            "min_deg": rep["min_deg"], "max_deg": rep["max_deg"], "spread_deg": rep["spread_deg"],
            "grains": rep["grains"], "over_floor": now, "drained_last_s": drained,
            "angle_change_last_s": change,
            "mean_speed": rep["mean_speed_over_floor"], "wall_s": wall, "simulated_s": end}


def aggregate(runs):
    out = []
    keys = sorted({(r["shape"], r["mu"]) for r in runs}, key=lambda k: (k[0], k[1]))
    for shape, mu in keys:
        rs = [r for r in runs if r["shape"] == shape and r["mu"] == mu]
        angles = [r["mean_deg"] for r in rs]
        out.append({"shape": shape, "mu": mu, "seeds": len(rs),
                    "mean_deg": statistics.fmean(angles),
                    "spread_deg": statistics.fmean(r["spread_deg"] for r in rs),
                    "seed_sd_deg": statistics.stdev(angles) if len(rs) > 1 else 0.0,
                    "drained_last_s": max(r["drained_last_s"] for r in rs),
                    "angle_change_last_s": max(r["angle_change_last_s"] for r in rs),
                    "over_floor": statistics.fmean(r["over_floor"] for r in rs)})
    return out


def flowing(r):
    return r["drained_last_s"] > FLOWING


def held(r):
    """The angle a heap holds: none (0) while it is still flowing."""
    return 0.0 if flowing(r) else r["mean_deg"]


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
        # A heap still flowing at the end holds no angle: open marker, left off the line.
        steady = [r for r in rs if not flowing(r)]
        line = ax.errorbar([r["mu"] for r in steady], [r["mean_deg"] for r in steady],
                           yerr=[r["spread_deg"] for r in steady], marker=markers.get(shape, "o"),
                           capsize=3, label=shape)
        still = [r for r in rs if flowing(r)]
        if still:
            ax.plot([r["mu"] for r in still], [r["mean_deg"] for r in still], linestyle="none",
                    marker=markers.get(shape, "o"), markersize=9, markerfacecolor="white",
                    markeredgecolor=line[0].get_color())
    ax.set_xlabel("friction coefficient mu")
    ax.set_ylabel("angle of repose [deg]")
    ax.set_title("Angle of repose (8 x 16 grid), e = 0.3, dt = 1/600 s\n"
                 "open marker: heap still flowing at the end (no angle held)", fontsize=10)
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
        zero = by.get((shape, 0.0))
        if zero and held(zero) >= 12.0:
            failures.append(f"{shape}: mu = 0 holds a slope of {zero['mean_deg']:.1f} deg at rest "
                            f"({100 * zero['drained_last_s']:.1f} % drained in the last second)")
        for mu in mus:
            r = by[(shape, mu)]
            if mu >= 0.2 and flowing(r):
                failures.append(f"{shape} mu {mu}: the heap is still flowing at the end "
                                f"({100 * r['drained_last_s']:.1f} % drained in the last second)")
            elif mu >= 0.2 and r["mean_deg"] < 12.0:
                failures.append(f"{shape} mu {mu}: friction holds almost no slope "
                                f"({r['mean_deg']:.1f} deg)")
        a = [held(by[(shape, mu)]) for mu in mus]
        sp = [by[(shape, mu)]["spread_deg"] for mu in mus]
        for k in range(1, len(mus)):
            if a[k] < a[k - 1] - (sp[k] + sp[k - 1]):
                failures.append(f"{shape}: angle falls from {a[k-1]:.1f} (mu {mus[k-1]}) to "
                                f"{a[k]:.1f} deg (mu {mus[k]}) beyond the spreads")
        lo, mid, hi = (by.get((shape, m)) for m in (0.0, 0.2, 0.6))
        if lo and mid and hi and not held(mid) - held(lo) > held(hi) - held(mid):
            failures.append(f"{shape}: the rise is not concave: 0 -> 0.2 gains "
                            f"{held(mid) - held(lo):.1f} deg, 0.2 -> 0.6 gains "
                            f"{held(hi) - held(mid):.1f} deg")
    return failures


def compare_crosses(rows, shapes):
    """The paper's 'crosses highest': printed, not asserted (see the module docstring)."""
    if "crosses" not in shapes:
        return []
    by = {(r["shape"], r["mu"]): r for r in rows}
    lines = []
    for mu in sorted({mu for (_, mu) in by if mu >= 0.2}):
        c = by.get(("crosses", mu))
        others = {s: by[(s, mu)]["mean_deg"] for s in shapes if s != "crosses" and (s, mu) in by}
        if c and others:
            rank = 1 + sum(v > c["mean_deg"] for v in others.values())
            lines.append(f"mu {mu}: crosses {c['mean_deg']:.1f} deg, " +
                         ", ".join(f"{s} {v:.1f}" for s, v in others.items()) +
                         f" (crosses rank {rank} of {len(others) + 1}; the paper: 1)")
    return lines


def write_tables(runs, rows, shapes, mus, out):
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RUN_COLUMNS)
        w.writeheader()
        w.writerows(runs)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_COLUMNS)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("| mu | " + " | ".join(shapes) + " |\n")
        f.write("|---|" + "---|" * len(shapes) + "\n")
        for mu in mus:
            cells = []
            for s in shapes:
                r = next((r for r in rows if r["shape"] == s and r["mu"] == mu), None)
                if not r:
                    cells.append("")
                    continue
                cell = f"{r['mean_deg']:.1f} ± {r['spread_deg']:.1f}"
                if r["seeds"] > 1:
                    cell += f" (seeds sd {r['seed_sd_deg']:.1f})"
                if flowing(r):
                    cell += f", flowing ({100 * r['drained_last_s']:.0f} %/s)"
                cells.append(cell)
            f.write(f"| {mu:g} | " + " | ".join(cells) + " |\n")


def report(rows, shapes, do_check):
    for line in compare_crosses(rows, shapes):
        print("repose_sweep: " + line)
    if not do_check:
        return 0
    failures = check(rows, shapes)
    for msg in failures:
        print("repose_sweep: CHECK FAILED: " + msg, file=sys.stderr)
    if not failures:
        print("repose_sweep: the checked findings hold")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etdem", default=os.path.join(ROOT, "build", "release", "bin", "etdem"))
    ap.add_argument("--shapes", nargs="+", default=["spheres", "cubes", "crosses"])
    ap.add_argument("--mu", nargs="+", type=float, default=[0.0, 0.2, 0.3, 0.4, 0.5, 0.6])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "repose-sweep"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--replot", action="store_true")
    args = ap.parse_args()
    if args.replot:
        with open(os.path.join(args.out, "runs.csv")) as f:
            runs = [{k: (v if k == "shape" else float(v)) for k, v in r.items()}
                    for r in csv.DictReader(f)]
        rows = aggregate(runs)
        write_tables(runs, rows, args.shapes, sorted({r["mu"] for r in rows}), args.out)
        plot(rows, args.shapes, os.path.join(args.out, "repose.png"))
        print(f"repose_sweep: redrew {args.out}/results.md and repose.png")
        sys.exit(report(rows, args.shapes, args.check))
    if not os.access(args.etdem, os.X_OK):
        sys.exit(f"repose_sweep: {args.etdem} is not an executable (build it first)")
    for shape in args.shapes:
        if not os.path.exists(os.path.join(ROOT, "examples", "repose", f"{shape}.toml")):
            sys.exit(f"repose_sweep: no scenario examples/repose/{shape}.toml")
    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()
    runs = []
    # Longest runs first (crosses, then cubes), so the two workers finish together.
    order = sorted(args.shapes, key=lambda s: {"crosses": 0, "cubes": 1}.get(s, 2))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, args.etdem, s, mu, seed, args.out)
                   for s in order for mu in args.mu for seed in args.seeds]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            runs.append(r)
            print(f"{r['shape']:8s} mu {r['mu']:.1f} seed {r['seed']}: {r['mean_deg']:5.1f} +- "
                  f"{r['spread_deg']:4.1f} deg, {100 * r['drained_last_s']:4.1f} % drained in the "
                  f"last second ({r['grains']} grains, {r['wall_s']:.0f} s)", flush=True)
    runs.sort(key=lambda r: (args.shapes.index(r["shape"]), r["mu"], r["seed"]))
    rows = aggregate(runs)
    rows.sort(key=lambda r: (args.shapes.index(r["shape"]), r["mu"]))
    write_tables(runs, rows, args.shapes, args.mu, args.out)
    plot(rows, args.shapes, os.path.join(args.out, "repose.png"))
    print(f"repose_sweep: {len(runs)} runs in {time.monotonic() - t0:.0f} s; results in "
          f"{args.out}/runs.csv, results.csv, results.md, repose.png")
    sys.exit(report(rows, args.shapes, args.check))


if __name__ == "__main__":
    main()
