#!/usr/bin/python3
"""Reads an etdem run directory back with independent tools and checks it.

    /usr/bin/python3 tests/read_output.py DIR [--spheres N] [--boxes N] [--polyhedra N] [--steps N]
                                              [--every N] [--container]

Frames (frames/*.vtu) are read with meshio (Debian python3-meshio); when VTK's Python module is
importable (python3-paraview / python3-vtk9) one frame of each part is also read with
vtkXMLUnstructuredGridReader, the reader ParaView itself uses. particles.pvd is parsed as XML,
energy.csv with the csv module, summary.json and state.csv likewise. Exits 1 with a message on
the first failed check, 0 when everything holds.
"""
import argparse
import csv
import glob
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

import meshio
import numpy as np

ENERGY_COLUMNS = ["time", "kinetic_translational", "kinetic_rotational", "potential", "elastic",
                  "total", "restitution", "friction", "damping", "correction", "truncation", "integration",
                  "residual"]
DISSIPATED = ["restitution", "friction", "damping", "correction", "truncation", "integration"]
STATE_COLUMNS = ["id", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
                 "shape", "radius", "hx", "hy", "hz", "shape_name"]


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def frame_step(path):
    return int(os.path.basename(path).split("_")[-1].split(".")[0])


def check_frames(d, args):
    spheres = sorted(glob.glob(os.path.join(d, "frames", "particles_*.vtu")))
    boxes = sorted(glob.glob(os.path.join(d, "frames", "boxes_*.vtu")))
    walls = sorted(glob.glob(os.path.join(d, "frames", "walls_*.vtu")))
    polys = sorted(glob.glob(os.path.join(d, "frames", "polyhedra_*.vtu")))
    meshes = sorted(glob.glob(os.path.join(d, "frames", "meshes_*.vtu")))
    if args.every:
        expected = list(range(0, args.steps + 1, args.every))
        if expected[-1] != args.steps:
            expected.append(args.steps)
        for name, files, count in (("particles", spheres, args.spheres), ("boxes", boxes, args.boxes),
                                   ("polyhedra", polys, args.polyhedra)):
            if count:
                check([frame_step(f) for f in files] == expected,
                      f"{name} frames at steps {[frame_step(f) for f in files]}, expected {expected}")
    for f in spheres:
        m = meshio.read(f)
        n = len(m.points)
        check(n == args.spheres, f"{f}: {n} points, expected {args.spheres} spheres")
        check(sum(len(c.data) for c in m.cells if c.type == "vertex") == n,
              f"{f}: expected one vertex cell per sphere")
        check(np.all(np.isfinite(m.points)), f"{f}: non-finite positions")
        for key, comps in (("radius", 1), ("velocity", 3), ("angular_velocity", 3),
                           ("orientation", 4), ("id", 1)):
            check(key in m.point_data, f"{f}: point data '{key}' missing")
            a = np.asarray(m.point_data[key])
            check(a.size == n * comps, f"{f}: '{key}' has shape {a.shape}")
            m.point_data[key] = a = a.reshape(n, comps) if comps > 1 else a.reshape(n)
            check(np.all(np.isfinite(a)), f"{f}: '{key}' has non-finite values")
        check(np.all(m.point_data["radius"] > 0), f"{f}: radius not positive")
        q = np.asarray(m.point_data["orientation"])
        check(np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-8), f"{f}: orientation not unit")
    for f in boxes:
        m = meshio.read(f)
        hexes = sum(len(c.data) for c in m.cells if c.type == "hexahedron")
        check(hexes == args.boxes, f"{f}: {hexes} hexahedra, expected {args.boxes} boxes")
        check(len(m.points) == 8 * args.boxes, f"{f}: {len(m.points)} points, expected 8 per box")
        check(np.all(np.isfinite(m.points)), f"{f}: non-finite corners")
        v = np.concatenate([np.asarray(b) for b in m.cell_data["velocity"]])
        check(v.shape == (args.boxes, 3) and np.all(np.isfinite(v)), f"{f}: bad velocity data")
    for f in walls:
        m = meshio.read(f)
        check(all(c.type == "quad" for c in m.cells), f"{f}: walls must be quads")
    check(len(meshes) <= 1, f"mesh walls written {len(meshes)} times, expected once")
    for f in meshes:
        m = meshio.read(f)
        check(all(c.type == "triangle" for c in m.cells), f"{f}: mesh walls must be triangles")
        check(np.all(np.isfinite(m.points)), f"{f}: non-finite vertices")
        for block in m.cells:
            check(np.all(block.data < len(m.points)), f"{f}: triangle refers to a missing vertex")
    for f in polys:
        # One polygon cell per face (meshio groups polygons by vertex count); cell data id names
        # the body, so the distinct ids count the polyhedra.
        m = meshio.read(f)
        check(all(c.type == "polygon" for c in m.cells), f"{f}: polyhedron faces must be polygons")
        check(np.all(np.isfinite(m.points)), f"{f}: non-finite vertices")
        ids = np.concatenate([np.asarray(b).reshape(-1) for b in m.cell_data["id"]])
        check(len(np.unique(ids)) == args.polyhedra,
              f"{f}: faces of {len(np.unique(ids))} bodies, expected {args.polyhedra} polyhedra")
        check(len(ids) >= 4 * args.polyhedra, f"{f}: fewer than 4 faces per polyhedron")
        v = np.concatenate([np.asarray(b).reshape(-1, 3) for b in m.cell_data["velocity"]])
        check(v.shape == (len(ids), 3) and np.all(np.isfinite(v)), f"{f}: bad velocity data")
        for block in m.cells:
            check(np.all(block.data < len(m.points)), f"{f}: face refers to a missing vertex")
    check(args.spheres == 0 or spheres, "no particle frames")
    check(args.boxes == 0 or boxes, "no box frames")
    check(args.polyhedra == 0 or polys, "no polyhedron frames")
    check(not args.container or walls, "no wall frames although the run has a container")
    try:
        import vtk  # noqa: optional, the reader ParaView uses
    except ImportError:
        vtk = None
    if vtk is not None:
        for files in (spheres, boxes, walls, polys, meshes):
            if files:
                r = vtk.vtkXMLUnstructuredGridReader()
                r.SetFileName(files[-1])
                r.Update()
                out = r.GetOutput()
                check(out is not None and out.GetNumberOfPoints() == len(meshio.read(files[-1]).points),
                      f"{files[-1]}: VTK's reader disagrees with meshio")
    return spheres + boxes + walls + polys + meshes


def check_pvd(d, frame_files):
    root = ET.parse(os.path.join(d, "particles.pvd")).getroot()
    check(root.tag == "VTKFile" and root.get("type") == "Collection", "particles.pvd: not a Collection")
    sets = root.findall("./Collection/DataSet")
    listed = [s.get("file") for s in sets]
    for s in sets:
        check(os.path.isfile(os.path.join(d, s.get("file"))), f"particles.pvd lists missing {s.get('file')}")
        check(s.get("part") in ("0", "1", "2", "3", "4"), f"particles.pvd: bad part {s.get('part')}")
        float(s.get("timestep"))
    rel = sorted(os.path.relpath(f, d) for f in frame_files)
    check(sorted(listed) == rel, f"particles.pvd lists {len(listed)} files, frames/ has {len(rel)}")
    times = [float(s.get("timestep")) for s in sets]
    check(times == sorted(times), "particles.pvd: timesteps not in order")


def check_energy(d, args):
    with open(os.path.join(d, "energy.csv"), newline="") as fh:
        reader = csv.DictReader(fh)
        check(reader.fieldnames == ENERGY_COLUMNS, f"energy.csv: columns {reader.fieldnames}")
        rows = [{k: float(v) for k, v in r.items()} for r in reader]
    check(len(rows) == args.steps + 1, f"energy.csv: {len(rows)} rows, expected {args.steps + 1}")
    initial = rows[0]["total"]
    check(rows[0]["time"] == 0.0 and rows[0]["residual"] == 0.0, "energy.csv: first row is not t = 0")
    scale = max(abs(initial), 1e-300)
    last_t = -1.0
    for i, r in enumerate(rows):
        check(all(math.isfinite(v) for v in r.values()), f"energy.csv row {i}: non-finite value")
        check(r["time"] > last_t, f"energy.csv row {i}: time does not increase")
        last_t = r["time"]
        stored = r["kinetic_translational"] + r["kinetic_rotational"] + r["potential"] + r["elastic"]
        check(abs(stored - r["total"]) <= 1e-9 * max(scale, abs(r["total"])),
              f"energy.csv row {i}: total {r['total']} != sum of stored terms {stored}")
        balance = r["total"] + sum(r[k] for k in DISSIPATED) + r["residual"]
        check(abs(balance - initial) <= 1e-9 * scale,
              f"energy.csv row {i}: total + dissipated + residual = {balance!r}, initial {initial!r}")
    return rows


def check_summary(d, args, rows):
    with open(os.path.join(d, "summary.json")) as fh:
        s = json.load(fh)
    for key in ("steps", "simulated_time", "wall_time", "steps_per_second", "threads", "bodies",
                "contacts", "islands", "solver", "max_penetration", "energy", "profile_seconds"):
        check(key in s, f"summary.json: '{key}' missing")
    for key in ("name", "iterations", "rounds", "guards_fired", "approaching_left"):
        check(key in s["solver"], f"summary.json: solver.{key} missing")
    for key in ("total", "per_step_mean"):
        check(key in s["contacts"], f"summary.json: contacts.{key} missing")
    for key in ("m", "fraction_of_smallest_diameter"):
        check(key in s["max_penetration"], f"summary.json: max_penetration.{key} missing")
    for key in ["initial", "final_total", "residual", "relative_residual"] + DISSIPATED:
        check(key in s["energy"], f"summary.json: energy.{key} missing")
    check(s["steps"] == args.steps, f"summary.json: steps {s['steps']}, expected {args.steps}")
    check(s["bodies"]["dynamic"] == args.spheres + args.boxes + args.polyhedra,
          "summary.json: wrong body count")
    check(abs(s["energy"]["final_total"] - rows[-1]["total"]) <= 1e-12 * max(1.0, abs(rows[-1]["total"])),
          "summary.json: final energy differs from the last row of energy.csv")
    check(abs(s["energy"]["initial"] - rows[0]["total"]) <= 1e-12 * max(1.0, abs(rows[0]["total"])),
          "summary.json: initial energy differs from the first row of energy.csv")
    if args.container:
        c = s.get("container")
        check(c is not None and len(c["min"]) == 3 and len(c["max"]) == 3,
              "summary.json: container extents missing")


def check_state(d, args):
    with open(os.path.join(d, "state.csv"), newline="") as fh:
        reader = csv.DictReader(fh)
        check(reader.fieldnames == STATE_COLUMNS, f"state.csv: columns {reader.fieldnames}")
        rows = list(reader)
    check(len(rows) == args.spheres + args.boxes + args.polyhedra, f"state.csv: {len(rows)} rows")
    for r in rows:
        values = [float(r[k]) for k in STATE_COLUMNS if k not in ("shape", "shape_name")]
        check(all(math.isfinite(v) for v in values), f"state.csv: non-finite values in body {r['id']}")
        q = math.sqrt(sum(float(r[k]) ** 2 for k in ("qw", "qx", "qy", "qz")))
        check(abs(q - 1.0) < 1e-9, f"state.csv: body {r['id']} quaternion norm {q}")
        check(r["shape"] in ("sphere", "box", "polyhedron", "compound"), f"state.csv: shape {r['shape']}")
    # shapes.json: every grain's shape by name, with its body-frame nodes (a box has 8 corners
    # at its half extents, a sphere one ball of its radius).
    with open(os.path.join(d, "shapes.json")) as fh:
        shapes = json.load(fh)["shapes"]
    for r in rows:
        sh = shapes.get(r["shape_name"])
        check(sh is not None and sh["type"] == r["shape"],
              f"shapes.json: no {r['shape']} named '{r['shape_name']}' (body {r['id']})")
        if r["shape"] == "box":
            h = [float(r[k]) for k in ("hx", "hy", "hz")]
            check(len(sh["nodes"]) == 8 and all(
                abs(abs(n[a]) - h[a]) <= 1e-12 * max(h) for n in sh["nodes"] for a in range(3)),
                f"shapes.json: box '{r['shape_name']}' nodes are not its corners")
        if r["shape"] == "sphere":
            check(len(sh["spheres"]) == 1 and abs(sh["spheres"][0][3] - float(r["radius"])) <= 1e-12 * float(r["radius"]),
                  f"shapes.json: sphere '{r['shape_name']}' radius")
        if r["shape"] in ("polyhedron", "compound"):
            far = max(math.sqrt(sum(c * c for c in n)) for n in sh["nodes"]) if sh["nodes"] else 0.0
            check(len(sh["nodes"]) >= 4 and far <= float(r["radius"]) * (1 + 1e-9),
                  f"shapes.json: '{r['shape_name']}' nodes beyond the bounding radius")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--spheres", type=int, default=0)
    p.add_argument("--boxes", type=int, default=0)
    p.add_argument("--polyhedra", type=int, default=0)
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--every", type=int, default=0)
    p.add_argument("--container", action="store_true")
    args = p.parse_args()
    try:
        frames = check_frames(args.dir, args)
        if args.every:
            check_pvd(args.dir, frames)
        rows = check_energy(args.dir, args)
        check_summary(args.dir, args, rows)
        check_state(args.dir, args)
    except CheckFailed as e:
        print(f"read_output: FAILED: {args.dir}: {e}")
        return 1
    print(f"read_output: {args.dir}: {len(frames)} frame files, {len(rows)} energy rows: all checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
