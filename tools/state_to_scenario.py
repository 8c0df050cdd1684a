#!/usr/bin/python3
"""A scenario that starts from the grains of a state.csv instead of a fill.

Writes the scenario BASE with its [[fill]] tables replaced by one [[body]] per row of STATE
(position, orientation, velocity and angular velocity as the state holds them; every grain of the
fill's shape and material). The state may come from an etdem run (`state.csv`,
`state_SSSSSS.csv`) or from a peer's run converted to etdem's columns
(bench/peers/liggghts_repose.sh writes `state_removal.csv`, the packing when the wall goes), so
a heap can be started from another code's packing:

  tools/state_to_scenario.py examples/repose/spheres.toml PEER/state_removal.csv OUT.toml
  etdem run OUT.toml --set 'event[0].time=0.02' --set simulation.duration=2.52 -o DIR

Every row must be a sphere of the fill's radius (the only case the repose comparison needs); a
row that is not, a missing column or a non-finite number stops with the file, row and column.

etdem refuses grains that overlap at the start (by more than 1e-6 of the thinnest grain). A soft
peer's packing overlaps by its contacts' elastic deflection (micrometres at E = 1e9 Pa), so
`--separate` first moves the grains apart: rounds in which every overlapping pair of spheres is
pushed apart by its depth, half each, one pair after another, and every grain is put back inside
the box walls of BASE, until a round finds no overlap deeper than 1e-9 m (at most 1000 rounds;
the largest move and the rounds are printed; a packing not separated by then stops with an
error).
"""
import argparse
import csv
import itertools
import math
import re
import sys
import tomllib


def fail(msg):
    print(f"state_to_scenario: {msg}", file=sys.stderr)
    sys.exit(2)


def near_pairs(p, cell):
    """The pairs (i, j), i < j, of points in the same or neighbouring cells of edge `cell`, in
    the order of the cells' first points; positions may change while the pairs are walked."""
    grid = {}
    for i, q in enumerate(p):
        grid.setdefault(tuple(int(math.floor(c / cell)) for c in q), []).append(i)
    for (cx, cy, cz), members in grid.items():
        for dx, dy, dz in itertools.product((-1, 0, 1), repeat=3):
            for j in grid.get((cx + dx, cy + dy, cz + dz), ()):
                for i in members:
                    if i < j:
                        yield i, j


def separate(bodies, r, boxes, source, target=1e-9, max_rounds=1000):
    """Moves equal spheres of radius r apart until no pair or box wall overlaps by more than target."""
    p = [[v["x"], v["y"], v["z"]] for v in bodies]
    start = [list(q) for q in p]
    cell = 2.0 * r * 1.01
    for rounds in range(1, max_rounds + 1):
        deepest = 0.0
        for i, j in near_pairs(p, cell):
            d = [p[j][k] - p[i][k] for k in range(3)]
            dist = math.sqrt(sum(c * c for c in d))
            depth = 2.0 * r - dist
            if depth <= 0.0 or dist == 0.0:
                continue
            deepest = max(deepest, depth)
            push = 0.5 * (depth + target) / dist
            for k in range(3):  # half each, in place: the next pair sees the move
                p[i][k] -= push * d[k]
                p[j][k] += push * d[k]
        for q in p:
            for lo, hi in boxes:
                for k in range(3):
                    if q[k] < lo[k] + r:
                        deepest = max(deepest, lo[k] + r - q[k])
                        q[k] = lo[k] + r + target
                    elif k < 2 and q[k] > hi[k] - r:
                        deepest = max(deepest, q[k] - (hi[k] - r))
                        q[k] = hi[k] - r - target
        if deepest <= target:
            moved = max(math.dist(a, b) for a, b in zip(p, start))
            print(f"separated in {rounds} rounds, largest move {moved:.3g} m")
            for v, q in zip(bodies, p):
                v["x"], v["y"], v["z"] = q
            return
    fail(f"{source}: overlaps of {deepest:.3g} m left after {max_rounds} rounds of separation")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="scenario TOML with one [[fill]] of spheres")
    ap.add_argument("state", help="state.csv: id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,...,radius")
    ap.add_argument("out", help="scenario TOML to write")
    ap.add_argument("--separate", action="store_true",
                    help="move overlapping grains apart first (a soft peer's packing)")
    a = ap.parse_args()

    text = open(a.base, encoding="utf-8").read()
    spec = tomllib.loads(text)
    fills = spec.get("fill", [])
    if len(fills) != 1:
        fail(f"{a.base}: fill: {len(fills)} [[fill]] tables, need exactly 1")
    fill = fills[0]
    shapes = {s["name"]: s for s in spec.get("shape", [])}
    shape = shapes.get(fill["shape"])
    if shape is None or shape.get("type") != "sphere":
        fail(f"{a.base}: fill[0].shape: '{fill['shape']}' is not a sphere shape")
    radius = float(shape["radius"])

    # Drop the [[fill]] table: its header and every line up to the next table header.
    kept, skipping = [], False
    for line in text.splitlines():
        if re.match(r"^\s*\[", line):
            skipping = re.match(r"^\s*\[\[fill\]\]", line) is not None
        if not skipping:
            kept.append(line)

    boxes = [(w["min"], w["max"]) for w in spec.get("wall", []) if w.get("type") == "box"]

    columns = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz", "radius"]
    bodies = []
    with open(a.state, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            fail(f"{a.state}: missing column(s) {', '.join(missing)}")
        for n, row in enumerate(reader, start=2):
            v = {}
            for c in columns:
                try:
                    v[c] = float(row[c])
                except ValueError:
                    fail(f"{a.state}: row {n}, column {c}: '{row[c]}' is not a number")
                if not math.isfinite(v[c]):
                    fail(f"{a.state}: row {n}, column {c}: '{row[c]}' is not finite")
            if abs(v["radius"] - radius) > 1e-9 * radius:
                fail(f"{a.state}: row {n}, column radius: {row['radius']} is not the fill's "
                     f"radius {radius}")
            bodies.append(v)
    if not bodies:
        fail(f"{a.state}: no grains")
    if a.separate:
        separate(bodies, radius, boxes, a.state)
    text_bodies = []
    for v in bodies:
        q = [v["qw"], v["qx"], v["qy"], v["qz"]]
        norm = math.sqrt(sum(c * c for c in q))
        q = [c / norm for c in q] if norm > 0 else [1.0, 0.0, 0.0, 0.0]
        text_bodies.append(
            "\n[[body]]\n"
            f"shape = \"{fill['shape']}\"\nmaterial = \"{fill['material']}\"\n"
            f"position = [{v['x']!r}, {v['y']!r}, {v['z']!r}]\n"
            f"orientation = [{q[0]!r}, {q[1]!r}, {q[2]!r}, {q[3]!r}]\n"
            f"velocity = [{v['vx']!r}, {v['vy']!r}, {v['vz']!r}]\n"
            f"angular_velocity = [{v['wx']!r}, {v['wy']!r}, {v['wz']!r}]\n")
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(f"# {a.base} started from the {len(bodies)} grains of {a.state}\n")
        f.write("\n".join(kept).rstrip() + "\n")
        f.writelines(text_bodies)
    print(f"{a.out}: {len(bodies)} bodies from {a.state}")


if __name__ == "__main__":
    main()
