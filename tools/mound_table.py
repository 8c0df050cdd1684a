#!/usr/bin/python3
"""Mound height and spread of finished runs (V9): for each run directory, the final state
(state.csv) with each grain's surface nodes (shapes.json) placed by its pose gives
  height  - the highest surface point above the floor (z = 0),
  spread  - the radius about the grains' centroid (x, y) holding 95 % of the grain centres,
  reach   - the largest horizontal distance of a surface point from that centroid,
and a radial profile (the highest surface point per annulus of width BIN). Prints a Markdown
table with each run's deviation from the first run and writes an overlaid profile plot.

  tools/mound_table.py OUT.png RUN_DIR [RUN_DIR ...] [--bin 0.01]
"""
import argparse
import csv
import json
import math
import os
import sys


def quat_rotate(q, v):
    w, x, y, z = q
    # v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
    ux = (y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0])
    uux = (y * ux[2] - z * ux[1], z * ux[0] - x * ux[2], x * ux[1] - y * ux[0])
    return tuple(v[i] + 2 * w * ux[i] + 2 * uux[i] for i in range(3))


def mound(run, bin_width):
    shapes = json.load(open(os.path.join(run, "shapes.json")))["shapes"]
    rows = list(csv.DictReader(open(os.path.join(run, "state.csv"))))
    centres = [(float(r["x"]), float(r["y"])) for r in rows]
    cx = sum(c[0] for c in centres) / len(centres)
    cy = sum(c[1] for c in centres) / len(centres)
    radii = sorted(math.hypot(x - cx, y - cy) for x, y in centres)
    spread = radii[int(0.95 * (len(radii) - 1))]
    height, reach, profile = 0.0, 0.0, {}
    for r in rows:
        nodes = shapes[r["shape_name"]]["nodes"]
        q = (float(r["qw"]), float(r["qx"]), float(r["qy"]), float(r["qz"]))
        p = (float(r["x"]), float(r["y"]), float(r["z"]))
        for n in nodes:
            d = quat_rotate(q, n)
            x, y, z = p[0] + d[0], p[1] + d[1], p[2] + d[2]
            rad = math.hypot(x - cx, y - cy)
            height = max(height, z)
            reach = max(reach, rad)
            k = int(rad / bin_width)
            profile[k] = max(profile.get(k, 0.0), z)
    return {"height": height, "spread": spread, "reach": reach, "profile": profile,
            "grains": len(rows)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--bin", type=float, default=0.01)
    a = ap.parse_args()
    results = [(run, mound(run, a.bin)) for run in a.runs]
    ref = results[0][1]
    print("| run | grains | height [m] | spread 95 % [m] | reach [m] | height vs first | spread vs first |")
    print("|---|---|---|---|---|---|---|")
    for run, m in results:
        print(f"| {os.path.basename(run.rstrip('/'))} | {m['grains']} | {m['height']:.4f} | "
              f"{m['spread']:.4f} | {m['reach']:.4f} | {100 * (m['height'] / ref['height'] - 1):+.1f} % | "
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
        ks = sorted(m["profile"])
        ax.plot([(k + 0.5) * a.bin for k in ks], [m["profile"][k] for k in ks],
                label=os.path.basename(run.rstrip("/")))
    ax.set_xlabel("distance from the mound's centre [m]")
    ax.set_ylabel("highest surface point [m]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()
