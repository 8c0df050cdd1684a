#!/usr/bin/python3
"""Mound height and spread of finished runs (V9) side by side: `etdem analyze mound` measures
each run directory (mound.json, mound_profile.csv; definitions in docs/scenario.md), and this
script prints a Markdown table with each run's deviation from the first run and writes the
runs' radial profiles overlaid in one plot.

  tools/mound_table.py OUT.png RUN_DIR [RUN_DIR ...] [--bin 0.01] [--etdem build/release/bin/etdem]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys


def mound(etdem, run, bin_width):
    r = subprocess.run([etdem, "analyze", "mound", run, "--bin", str(bin_width)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"mound_table: {r.stderr.strip() or r.stdout.strip()}")
    with open(os.path.join(run, "mound.json")) as fh:
        m = json.load(fh)
    with open(os.path.join(run, "mound_profile.csv"), newline="") as fh:
        m["profile"] = [(0.5 * (float(p["r_inner"]) + float(p["r_outer"])), float(p["top"]))
                        for p in csv.DictReader(fh)]
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--bin", type=float, default=0.01)
    ap.add_argument("--etdem", default=os.environ.get("ETDEM", "build/release/bin/etdem"))
    a = ap.parse_args()
    results = [(run, mound(a.etdem, run, a.bin)) for run in a.runs]
    ref = results[0][1]
    print("| run | grains | height [m] | spread 95 % of the volume [m] | spread 95 % of the grains [m] "
          "| reach [m] | height vs first | spread vs first |")
    print("|---|---|---|---|---|---|---|---|")
    for run, m in results:
        print(f"| {os.path.basename(run.rstrip('/'))} | {m['grains']} | {m['height']:.4f} | "
              f"{m['spread']:.4f} | {m['spread_count']:.4f} | {m['reach']:.4f} | "
              f"{100 * (m['height'] / ref['height'] - 1):+.1f} % | "
              f"{100 * (m['spread'] / ref['spread'] - 1):+.1f} % |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("mound_table: matplotlib missing, no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    for run, m in results:
        points = [(r, h) for r, h in m["profile"] if not math.isnan(h)]
        ax.plot([r for r, _ in points], [h for _, h in points],
                label=os.path.basename(run.rstrip("/")))
    ax.set_xlabel("distance from the mound's axis [m]")
    ax.set_ylabel("highest surface node above the floor [m]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()
