#!/usr/bin/python3
"""Draws the plots of `etdem plot` from the files of a run directory (the CLI runs the analysis
first, so the JSON and CSV files it reads exist):

  energy  energy.csv                        the ledger over time, stacked by mechanism
  repose  repose.json                       the heap's 8 rows of cell heights with fitted lines
  mound   mound.json, mound_profile.csv     the radial profile with height, spread and reach
  runout  runout.json, runout_map.csv       the deposit map with apex, direction, front and fan

  etdem_plot.py KIND DIR OUT.png

Exit codes: 0 written; 2 bad input (one line on stderr); 3 matplotlib missing. It draws only:
every number comes from etdem's files.
"""
import csv
import json
import math
import os
import sys

EXIT_BAD_INPUT, EXIT_NO_MATPLOTLIB = 2, 3


class BadInput(Exception):
    pass


def read_csv(path):
    try:
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as e:
        raise BadInput(f"{path}: cannot be read ({e.strerror})")
    if not rows:
        raise BadInput(f"{path}: no rows")
    return rows


def read_json(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except OSError as e:
        raise BadInput(f"{path}: cannot be read ({e.strerror})")
    except ValueError as e:
        raise BadInput(f"{path}: not JSON ({e})")


def number(row, key, path):
    try:
        return float(row[key])
    except (KeyError, TypeError, ValueError):
        raise BadInput(f"{path}: column {key}: missing or not a number")


# Labels where a column's name is not its label.
ENERGY_LABELS = {"potential": "potential (above its lowest)", "net_damping": "net dashpots"}


def energy_terms(columns):
    """Stacked in this order, bottom up: the stored energies, then energy.csv's dissipated
    columns (those between `total` and `residual`, as the engine declares them), the residual."""
    if "total" not in columns or "residual" not in columns:
        raise BadInput("energy.csv: no total or residual column")
    dissipated = columns[columns.index("total") + 1:columns.index("residual")]
    return [(key, ENERGY_LABELS.get(key, key))
            for key in ["kinetic", "potential", "elastic"] + dissipated + ["residual"]]


def plot_energy(plt, d, out):
    path = os.path.join(d, "energy.csv")
    rows = read_csv(path)
    step = max(1, math.ceil(len(rows) / 4000))  # enough points for a figure
    rows = rows[::step] + ([rows[-1]] if (len(rows) - 1) % step else [])
    t = [number(r, "time", path) for r in rows]
    terms = energy_terms(list(rows[0].keys()))
    series = {}
    for key, _ in terms:
        if key == "kinetic":
            series[key] = [number(r, "kinetic_translational", path) + number(r, "kinetic_rotational", path)
                           for r in rows]
        else:
            series[key] = [number(r, key, path) for r in rows]
    lowest = min(series["potential"])
    series["potential"] = [p - lowest for p in series["potential"]]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    pos_base = [0.0] * len(t)
    neg_base = [0.0] * len(t)
    for k, (key, label) in enumerate(terms):
        v = series[key]
        if all(abs(x) == 0.0 for x in v):
            continue
        colour = colours[k % len(colours)]
        pos_top = [b + max(x, 0.0) for b, x in zip(pos_base, v)]
        neg_top = [b + min(x, 0.0) for b, x in zip(neg_base, v)]
        ax.fill_between(t, pos_base, pos_top, color=colour, label=label, linewidth=0)
        if any(x < 0.0 for x in v):
            ax.fill_between(t, neg_base, neg_top, color=colour, linewidth=0, alpha=0.6)
        pos_base, neg_base = pos_top, neg_top
    ax.axhline(0.0, color="black", linewidth=0.6)
    # What the stack adds up to: the initial energy (potential above its lowest) plus what the
    # negative terms below zero added.
    budget = number(rows[0], "total", path) - lowest + series["residual"][0]
    ax.axhline(budget, color="black", linestyle="--", linewidth=0.8,
               label="initial (potential above its lowest)")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title(f"energy ledger of {os.path.basename(os.path.abspath(d))}: stored and dissipated, "
                 "stacked\n(below 0: negative terms, energy the discretisation added)", fontsize=9)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_repose(plt, d, out):
    path = os.path.join(d, "repose.json")
    j = read_json(path)
    for key in ("heights_m", "cell_centres_m", "slopes", "intercepts_m", "angles_deg"):
        if key not in j:
            raise BadInput(f"{path}: {key}: missing (run `etdem analyze repose` of this version)")
    s = j["cell_centres_m"]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    colours = plt.cm.viridis
    rows = len(j["heights_m"])
    for k, heights in enumerate(j["heights_m"]):
        colour = colours(k / max(1, rows - 1))
        xs = [x for x, h in zip(s, heights) if h is not None]
        hs = [h for h in heights if h is not None]
        ax.plot(xs, hs, "o", color=colour, markersize=3)
        slope, a, angle = j["slopes"][k], j["intercepts_m"][k], j["angles_deg"][k]
        if slope is not None and a is not None:
            ax.plot([s[0], s[-1]], [a + slope * s[0], a + slope * s[-1]], "-", color=colour,
                    linewidth=1, label=f"row {k}: {angle:.1f} deg")
    mean, spread = j.get("mean_deg"), j.get("spread_deg")
    title = "heap profile per row, fitted lines"
    if mean is not None:
        title += f": angle of repose {mean:.1f} +/- {spread:.1f} deg"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(f"position along {j.get('long_axis', 'x')} from the floor's centre [m]")
    ax.set_ylabel("highest surface node over the cell, z [m]")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_mound(plt, d, out):
    jpath = os.path.join(d, "mound.json")
    j = read_json(jpath)
    path = os.path.join(d, "mound_profile.csv")
    rows = read_csv(path)
    r = [0.5 * (number(x, "r_inner", path) + number(x, "r_outer", path)) for x in rows]
    top = [number(x, "top", path) for x in rows]
    share = [number(x, "share", path) for x in rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.plot([x for x, h in zip(r, top) if not math.isnan(h)], [h for h in top if not math.isnan(h)],
            "-o", markersize=3, label="highest surface node")
    for key, style, label in (("spread", "--", "spread"), ("reach", ":", "reach")):
        if key in j:
            ax.axvline(j[key], color="grey", linestyle=style,
                       label=f"{label} {j[key]:.4g} m" + (f" ({100 * j['fraction']:.0f} % of the {j['weights']})"
                                                          if key == "spread" else ""))
    if j.get("height") is not None:
        ax.axhline(j["height"], color="black", linewidth=0.6, label=f"height {j['height']:.4g} m")
    ax.set_xlabel("distance from the mound's axis [m]")
    ax.set_ylabel("height above the base [m]")
    ax2 = ax.twinx()
    ax2.bar(r, share, width=(r[1] - r[0]) if len(r) > 1 else 0.01, alpha=0.2, color="tab:orange")
    ax2.set_ylabel(f"share of the {j.get('weights', 'weight')} per annulus", color="tab:orange")
    ax.set_title(f"mound profile: {j.get('grains', '?')} grains", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_runout(plt, d, out):
    jpath = os.path.join(d, "runout.json")
    j = read_json(jpath)
    m = j.get("map")
    if not m:
        raise BadInput(f"{jpath}: map: missing")
    path = os.path.join(d, "runout_map.csv")
    rows = read_csv(path)
    cell, (lx, ly), nx, ny = m["cell"], m["lo"], m["nx"], m["ny"]
    grid = [[math.nan] * nx for _ in range(ny)]
    for row in rows:
        i = int(round((number(row, "x", path) - lx) / cell - 0.5))
        k = int(round((number(row, "y", path) - ly) / cell - 0.5))
        if 0 <= i < nx and 0 <= k < ny:
            grid[k][i] = number(row, "top", path)
    fig, ax = plt.subplots(figsize=(7.5, 6))
    im = ax.imshow(grid, origin="lower", extent=(lx, lx + nx * cell, ly, ly + ny * cell),
                   cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="top of the deposit, z [m]", shrink=0.8)
    ox, oy = j["origin"]
    dx, dy = j["direction"]
    ax.plot([ox], [oy], "r^", label="origin (apex)")
    front = j["runout"]
    fx, fy = ox + front * dx, oy + front * dy
    half = 0.5 * j["width"]
    ax.plot([fx - half * dy, fx + half * dy], [fy + half * dx, fy - half * dx], "r-",
            label=f"runout {front:.4g} m")
    ax.annotate("", xy=(fx, fy), xytext=(ox, oy), arrowprops=dict(arrowstyle="->", color="red"))
    bearings = j.get("fan_bearings_deg") or [None, None]
    if None not in bearings:
        for b in bearings:
            a = math.radians(b)
            ux, uy = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
            ax.plot([ox, ox + front * ux], [oy, oy + front * uy], "w--", linewidth=1)
        ax.plot([], [], "w--", label=f"fan {j['fan_angle_deg']:.1f} deg")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_aspect("equal")
    ax.set_title(f"deposit map: area {j['area']:.4g} m^2, {j['grains']} grains", fontsize=10)
    leg = ax.legend(fontsize=8, loc="best", facecolor="lightgrey")
    leg.get_frame().set_alpha(0.8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("energy", "repose", "mound", "runout"):
        print("usage: etdem_plot.py energy|repose|mound|runout DIR OUT.png", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return EXIT_NO_MATPLOTLIB
    kind, d, out = argv[1:]
    try:
        {"energy": plot_energy, "repose": plot_repose, "mound": plot_mound,
         "runout": plot_runout}[kind](plt, d, out)
    except BadInput as e:
        print(str(e).replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as e:
        print(f"{out}: cannot be written ({e.strerror})", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
