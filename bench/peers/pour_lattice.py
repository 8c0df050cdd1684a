#!/usr/bin/env python3
"""Shared geometry of the pour benchmark, and post-processing of the LIGGGHTS dump.

The lattice and its jitter are defined here and re-implemented bit-for-bit in
bench/bench_pour.cpp (splitmix64 -> 53-bit uniform), so etdem and LIGGGHTS start from the
same positions.

  pour_lattice.py data N OUT      write a LIGGGHTS read_data file, print "nx ny nz L H"
  pour_lattice.py geom N          print "nx ny nz L H" (box side L, box height H, metres)
  pour_lattice.py bed DUMP        "count bed_height overlap_max overlap_mean overlap_pairs" of the
                                  last frame of a `dump custom id x y z radius`
"""
import math
import sys

D = 0.01            # grain diameter [m]
R = D / 2
DENSITY = 2650.0    # [kg/m^3]
SPACING = 1.2 * D   # lattice spacing [m]
JITTER = 0.25 * (SPACING - D)  # max |offset| per axis [m]; keeps neighbours apart
MASK = (1 << 64) - 1


def geometry(n, layers=0):
    """The cubic lattice, or with layers > 0 that many layers on the smallest square footprint."""
    nx = 1
    while nx * nx * (layers if layers > 0 else nx) < n:
        nx += 1
    ny = nx
    nz = -(-n // (nx * ny))
    side = nx * SPACING
    height = (nz + 1) * SPACING  # one spacing of headroom above the top layer
    return nx, ny, nz, side, height


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):  # [0, 1), 53 bits
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


def positions(n, seed=12345):
    nx, ny, nz, _, _ = geometry(n)
    rng = SplitMix64(seed)
    out = []
    for k in range(n):
        i, j, l = k % nx, (k // nx) % ny, k // (nx * ny)
        dx = (2.0 * rng.uniform() - 1.0) * JITTER
        dy = (2.0 * rng.uniform() - 1.0) * JITTER
        dz = (2.0 * rng.uniform() - 1.0) * JITTER
        out.append(((i + 0.5) * SPACING + dx, (j + 0.5) * SPACING + dy, (l + 0.5) * SPACING + dz))
    return out


def bed_height(z, r):
    """Height below which 95 % of grain centres lie (linear interpolation between order
    statistics, numpy's default percentile), plus the grain radius."""
    zs = sorted(z)
    if not zs:
        return float("nan")
    pos = 0.95 * (len(zs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(zs) - 1)
    return zs[lo] + (pos - lo) * (zs[hi] - zs[lo]) + r


def write_data(n, path):
    nx, ny, nz, side, height = geometry(n)
    m = 0.5 * D  # margin between the walls and the simulation domain
    with open(path, "w") as f:
        f.write("etdem pour benchmark lattice\n\n")
        f.write(f"{n} atoms\n1 atom types\n\n")
        f.write(f"{-m:.6f} {side + m:.6f} xlo xhi\n")
        f.write(f"{-m:.6f} {side + m:.6f} ylo yhi\n")
        f.write(f"{-m:.6f} {height + m:.6f} zlo zhi\n\n")
        f.write("Atoms\n\n")
        for k, (x, y, z) in enumerate(positions(n), start=1):
            f.write(f"{k} 1 {D:.17g} {DENSITY:.17g} {x:.17g} {y:.17g} {z:.17g}\n")
    print(f"{nx} {ny} {nz} {side:.17g} {height:.17g}")


def overlaps(pts, r):
    """Largest and mean overlap (2 r - distance) over touching grain pairs [m], and the pair
    count; walls left out. The same statistic as bench_pour's overlap_* fields."""
    cell = 2.0 * r
    grid = {}
    for k, p in enumerate(pts):
        grid.setdefault(tuple(int(math.floor(c / cell)) for c in p), []).append(k)
    worst, total, pairs = 0.0, 0.0, 0
    for k, p in enumerate(pts):
        ci = tuple(int(math.floor(c / cell)) for c in p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in grid.get((ci[0] + dx, ci[1] + dy, ci[2] + dz), ()):
                        if j > k:
                            d = 2.0 * r - math.dist(p, pts[j])
                            if d > 0.0:
                                worst = max(worst, d)
                                total += d
                                pairs += 1
    return worst, (total / pairs if pairs else 0.0), pairs


def last_frame_bed(path):
    with open(path) as f:
        lines = f.read().splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith("ITEM: TIMESTEP")]
    if not starts:
        raise SystemExit(f"no frame in {path}")
    frame = lines[starts[-1]:]
    hdr = next(i for i, l in enumerate(frame) if l.startswith("ITEM: ATOMS"))
    cols = frame[hdr].split()[2:]
    ix, iy, iz, ir = (cols.index(c) for c in ("x", "y", "z", "radius"))
    rows = [l.split() for l in frame[hdr + 1:] if l.strip()]
    pts = [(float(r[ix]), float(r[iy]), float(r[iz])) for r in rows]
    radius = float(rows[0][ir]) if rows else R
    return len(rows), bed_height([p[2] for p in pts], radius), overlaps(pts, radius)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "data":
        write_data(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "geom":
        nx, ny, nz, side, height = geometry(int(sys.argv[2]))
        print(f"{nx} {ny} {nz} {side:.17g} {height:.17g}")
    elif len(sys.argv) >= 3 and sys.argv[1] == "bed":
        count, h, (omax, omean, opairs) = last_frame_bed(sys.argv[2])
        print(f"{count} {h:.6f} {omax:.3g} {omean:.3g} {opairs}")
    else:
        sys.exit(__doc__)
