#!/usr/bin/python3
"""Plots DIR/net_NAME.csv of a run with a [[net]]: the rock mass held upstream of the net and
passed downstream, the force on the clamps, the largest sag and link strain against time.

    /usr/bin/python3 examples/avalanche/plot_net.py out/avalanche-net/net_barrier.csv net.png

Needs python3-matplotlib (Debian).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if None not in r.values() and "" not in r.values()]
    if not rows:
        sys.exit(f"{sys.argv[1]}: no rows")
    col = {k: [float(r[k]) for r in rows] for k in rows[0]}
    t = col["time"]
    fig, ax = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    ax[0][0].plot(t, col["mass_upstream"], label="upstream (held or on its way)")
    ax[0][0].plot(t, col["mass_downstream"], label="downstream (passed)")
    ax[0][0].set_ylabel("rock mass [kg]")
    ax[0][0].legend()
    ax[0][1].plot(t, col["clamp_force"], color="C3")
    ax[0][1].set_ylabel("force on the clamps |F| [N]")
    ax[1][0].plot(t, [100 * s for s in col["max_sag"]], color="C2")
    ax[1][0].set_ylabel("largest sag [cm]")
    ax[1][1].plot(t, [100 * s for s in col["max_strain"]], color="C4")
    ax[1][1].set_ylabel("largest link strain [%]")
    for a in ax[1]:
        a.set_xlabel("time [s]")
    for row in ax:
        for a in row:
            a.grid(alpha=0.3)
    # The file and its run directory, not the whole path (a figure may go into a report).
    path = os.path.normpath(sys.argv[1])
    fig.suptitle(os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path)))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)
    print(f"{sys.argv[2]}: peak clamp force {max(col['clamp_force']):.4g} N, largest sag "
          f"{max(col['max_sag']):.4g} m, largest strain {max(col['max_strain']):.4g}, "
          f"final mass upstream {col['mass_upstream'][-1]:.4g} kg, downstream "
          f"{col['mass_downstream'][-1]:.4g} kg")


if __name__ == "__main__":
    main()
