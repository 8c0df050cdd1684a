#!/usr/bin/python3
"""Reads an etdem run directory back with independent tools and checks it.

    /usr/bin/python3 tests/support/read_output.py DIR --steps N [--spheres N] [--boxes N] [--polyhedra N]
                                          [--compounds N] [--every N] [--container] [--meshes]
                                          [--format binary|zlib|ascii]

particles.pvd and the frames' .vtm files are parsed as XML (every frame has the documented blocks
in order), the blocks' .vtu files are read with meshio (Debian python3-meshio) in any of the three
encodings; when VTK's Python module is importable (python3-paraview) the last frame is also read
with vtkXMLMultiBlockDataReader, the reader ParaView itself uses. energy.csv is read with the csv
module, summary.json and state.csv likewise. Exits 1 with a message on the first failed check, 0
when everything holds.
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
                  "total", "restitution", "friction", "damping", "net_damping", "correction", "truncation", "integration",
                  "residual"]
DISSIPATED = ["restitution", "friction", "damping", "net_damping", "correction", "truncation", "integration"]
STATE_COLUMNS = ["id", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
                 "shape", "radius", "hx", "hy", "hz", "shape_name"]


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


# The blocks of every frame, in order (docs/scenario.md, "ParaView").
BLOCKS = ["spheres", "boxes", "polyhedra", "compounds", "compound_spheres", "level_sets", "walls",
          "meshes", "terrain", "nets"]
GRAIN_BLOCKS = ["spheres", "boxes", "polyhedra", "compounds", "compound_spheres", "level_sets"]


def frame_step(path):
    return int(os.path.basename(path).split("_")[-1].split(".")[0])


def read_frames(d):
    """particles.pvd and the .vtm files it lists: [(time, vtm path, {block: file path or None})]."""
    root = ET.parse(os.path.join(d, "particles.pvd")).getroot()
    check(root.tag == "VTKFile" and root.get("type") == "Collection", "particles.pvd: not a Collection")
    frames = []
    for s in root.findall("./Collection/DataSet"):
        vtm = os.path.join(d, s.get("file"))
        check(vtm.endswith(".vtm") and os.path.isfile(vtm), f"particles.pvd lists {s.get('file')}, not a .vtm file")
        m = ET.parse(vtm).getroot()
        check(m.get("type") == "vtkMultiBlockDataSet", f"{vtm}: not a vtkMultiBlockDataSet")
        sets = m.findall("./vtkMultiBlockDataSet/DataSet")
        names = [e.get("name") for e in sets]
        check(names == BLOCKS, f"{vtm}: blocks {names}, expected {BLOCKS}")
        check([e.get("index") for e in sets] == [str(k) for k in range(len(BLOCKS))], f"{vtm}: block indices")
        blocks = {}
        for e in sets:
            f = e.get("file")
            blocks[e.get("name")] = os.path.join(os.path.dirname(vtm), f) if f else None
            check(f is None or os.path.isfile(blocks[e.get("name")]), f"{vtm}: block {e.get('name')}: missing {f}")
        frames.append((float(s.get("timestep")), vtm, blocks))
    times = [t for t, _, _ in frames]
    check(all(a < b for a, b in zip(times, times[1:])), "particles.pvd: timesteps not increasing")
    return frames


def check_encoding(f, fmt):
    """The file is encoded as [output] vtk_format and vtk_compression asked."""
    with open(f, "rb") as fh:
        data = fh.read()
    head = data[:data.find(b"<AppendedData")] if b"<AppendedData" in data else data[:4000]
    appended = b'format="appended"' in head and b'<AppendedData encoding="raw">' in data
    zlib = b'compressor="vtkZLibDataCompressor"' in head
    if fmt == "ascii":
        check(b'format="ascii"' in head and not appended and not zlib, f"{f}: not ASCII")
    else:
        check(appended and b'format="ascii"' not in head, f"{f}: not appended raw binary")
        check(zlib == (fmt == "zlib"), f"{f}: zlib compression {'missing' if fmt == 'zlib' else 'unexpected'}")


def check_spheres(f, count):
    m = meshio.read(f)
    n = len(m.points)
    check(n == count, f"{f}: {n} points, expected {count} spheres")
    check(sum(len(c.data) for c in m.cells if c.type == "vertex") == n, f"{f}: expected one vertex cell per sphere")
    check(np.all(np.isfinite(m.points)), f"{f}: non-finite positions")
    for key, comps in (("radius", 1), ("velocity", 3), ("speed", 1), ("angular_velocity", 3),
                       ("orientation", 4), ("id", 1)):
        check(key in m.point_data, f"{f}: point data '{key}' missing")
        a = np.asarray(m.point_data[key])
        check(a.size == n * comps, f"{f}: '{key}' has shape {a.shape}")
        m.point_data[key] = a = a.reshape(n, comps) if comps > 1 else a.reshape(n)
        check(np.all(np.isfinite(a)), f"{f}: '{key}' has non-finite values")
    check(np.all(m.point_data["radius"] > 0), f"{f}: radius not positive")
    q = np.asarray(m.point_data["orientation"])
    check(np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-8), f"{f}: orientation not unit")
    speed = np.linalg.norm(m.point_data["velocity"], axis=1)
    check(np.allclose(m.point_data["speed"], speed, rtol=1e-8, atol=1e-12), f"{f}: speed is not |velocity|")
    return m


def cell_values(m, key, comps):
    return np.concatenate([np.asarray(b).reshape(-1, comps) for b in m.cell_data[key]])


def check_grain_cells(f, m, cells):
    """Cell data of a grain block: id, velocity, speed = |velocity|, angular_velocity."""
    check(np.all(np.isfinite(m.points)), f"{f}: non-finite vertices")
    for block in m.cells:
        check(np.all(block.data < len(m.points)), f"{f}: a cell refers to a missing vertex")
    v = cell_values(m, "velocity", 3)
    check(v.shape == (cells, 3) and np.all(np.isfinite(v)), f"{f}: bad velocity data")
    check(np.allclose(cell_values(m, "speed", 1)[:, 0], np.linalg.norm(v, axis=1), rtol=1e-8, atol=1e-12),
          f"{f}: speed is not |velocity|")
    check(cell_values(m, "angular_velocity", 3).shape == (cells, 3), f"{f}: bad angular_velocity data")
    return cell_values(m, "id", 1)[:, 0]


def check_boxes(f, count):
    m = meshio.read(f)
    hexes = sum(len(c.data) for c in m.cells if c.type == "hexahedron")
    check(hexes == count, f"{f}: {hexes} hexahedra, expected {count} boxes")
    check(len(m.points) == 8 * count, f"{f}: {len(m.points)} points, expected 8 per box")
    check_grain_cells(f, m, count)
    return m


def check_hulls(f, count):
    # One polygon cell per face (meshio groups polygons by vertex count); cell data id names the
    # body, so the distinct ids count the bodies.
    m = meshio.read(f)
    check(all(c.type == "polygon" for c in m.cells), f"{f}: faces must be polygons")
    ids = check_grain_cells(f, m, sum(len(c.data) for c in m.cells))
    check(len(np.unique(ids)) == count, f"{f}: faces of {len(np.unique(ids))} bodies, expected {count}")
    check(len(ids) >= 4 * count, f"{f}: fewer than 4 faces per body")
    return m


def check_frames(d, args):
    frames = read_frames(d)
    steps = [frame_step(vtm) for _, vtm, _ in frames]
    expected = list(range(0, args.steps + 1, args.every))
    if expected[-1] != args.steps:
        expected.append(args.steps)
    check(steps == expected, f"frames at steps {steps}, expected {expected}")
    expected_counts = {"spheres": args.spheres, "boxes": args.boxes, "polyhedra": args.polyhedra,
                       "compounds": args.compounds}
    readers = {"spheres": check_spheres, "boxes": check_boxes, "polyhedra": check_hulls,
               "compounds": check_hulls}
    read = {}  # file -> meshio mesh; a file several frames share is read once
    for _, vtm, blocks in frames:
        for f in blocks.values():
            if f is not None and f not in read:
                check_encoding(f, args.format)
        for name, count in expected_counts.items():
            f = blocks[name]
            check((f is not None) == (count > 0), f"{vtm}: block {name} {'missing' if count else 'not empty'}")
            if f is not None and f not in read:
                read[f] = readers[name](f, count)
        walls = blocks["walls"]
        check(walls is not None or not args.container, f"{vtm}: no walls although the run has a container")
        if walls is not None and walls not in read:
            m = read[walls] = meshio.read(walls)
            check(all(c.type == "quad" for c in m.cells), f"{walls}: walls must be quads")
        meshes = blocks["meshes"]
        check((meshes is not None) == args.meshes, f"{vtm}: mesh walls {'missing' if args.meshes else 'unexpected'}")
        if meshes is not None and meshes not in read:
            m = read[meshes] = meshio.read(meshes)
            check(len(m.cells) > 0 and all(c.type == "triangle" for c in m.cells), f"{meshes}: mesh walls must be triangles")
            check(np.all(np.isfinite(m.points)), f"{meshes}: non-finite vertices")
            for block in m.cells:
                check(np.all(block.data < len(m.points)), f"{meshes}: triangle refers to a missing vertex")
    # Static geometry is written once while it does not change: one mesh file for the whole run
    # (no event removes a mesh in these runs), referred to by every frame.
    if args.meshes:
        check(len({b["meshes"] for _, _, b in frames}) == 1, "mesh walls written more than once")
    # Every file in frames/ belongs to a frame (an earlier run's are removed).
    listed = {vtm for _, vtm, _ in frames} | {f for _, _, b in frames for f in b.values() if f}
    on_disk = set(glob.glob(os.path.join(d, "frames", "*")))
    check(on_disk == listed, f"frames/ holds files no frame lists: {sorted(on_disk - listed)[:3]}")
    if args.container:
        check_floor(d, frames, read)
    check_vtk_reader(frames, read)
    return sorted(listed)


def check_floor(d, frames, read):
    """The container's floor quad covers the box and every grain of every frame (run-out)."""
    with open(os.path.join(d, "summary.json")) as fh:
        c = json.load(fh)["container"]
    lo, hi = np.array(c["min"]), np.array(c["max"])
    floors = []
    for _, _, b in frames:
        pts = read[b["walls"]].points.reshape(-1, 4, 3)
        quads = [q for q in pts if np.allclose(q[:, 2], lo[2], rtol=0, atol=1e-12)]
        check(len(quads) == 1, f"{b['walls']}: expected one floor quad at z = {lo[2]}")
        floors.append(quads[0])
    floor_lo, floor_hi = floors[-1].min(axis=0), floors[-1].max(axis=0)
    check(all(np.array_equal(f, floors[-1]) for f in floors), "the floor differs between frames")
    check(np.all(floor_lo[:2] <= lo[:2]) and np.all(floor_hi[:2] >= hi[:2]), "the floor does not cover the box")
    tol = 1e-9 * max(1.0, float(np.max(np.abs(hi - lo))))
    for _, vtm, b in frames:
        for name in GRAIN_BLOCKS:
            if b[name] is None:
                continue
            m = read.get(b[name]) or meshio.read(b[name])
            r = np.asarray(m.point_data["radius"]).reshape(-1, 1) if "radius" in m.point_data else 0.0
            xy_lo, xy_hi = (m.points[:, :2] - r).min(axis=0), (m.points[:, :2] + r).max(axis=0)
            check(np.all(xy_lo >= floor_lo[:2] - tol) and np.all(xy_hi <= floor_hi[:2] + tol),
                  f"{vtm}: {name} beyond the floor {floor_lo[:2]}..{floor_hi[:2]}: {xy_lo}..{xy_hi}")


def check_vtk_reader(frames, read):
    """The last frame through VTK's own multiblock reader (the one ParaView uses) when VTK's
    Python module is importable (python3-paraview): block names and sizes agree with meshio."""
    try:
        import vtk  # noqa: optional
    except ImportError:
        return
    _, vtm, blocks = frames[-1]
    r = vtk.vtkXMLMultiBlockDataReader()
    r.SetFileName(vtm)
    r.Update()
    out = r.GetOutput()
    check(out.GetNumberOfBlocks() == len(BLOCKS), f"{vtm}: VTK reads {out.GetNumberOfBlocks()} blocks")
    for k, name in enumerate(BLOCKS):
        check(out.GetMetaData(k).Get(vtk.vtkCompositeDataSet.NAME()) == name, f"{vtm}: VTK names block {k} otherwise")
        b = out.GetBlock(k)
        check((b is None) == (blocks[name] is None), f"{vtm}: VTK and the file disagree on block {name}")
        if b is not None:
            m = read.get(blocks[name]) or meshio.read(blocks[name])
            check(b.GetNumberOfPoints() == len(m.points) and b.GetNumberOfCells() == sum(len(c.data) for c in m.cells),
                  f"{blocks[name]}: VTK's reader disagrees with meshio")


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
                "contacts", "islands", "solver", "max_penetration", "energy", "profile_seconds",
                "profile_stages"):
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
    check(s["bodies"]["dynamic"] == args.spheres + args.boxes + args.polyhedra + args.compounds,
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
    check(len(rows) == args.spheres + args.boxes + args.polyhedra + args.compounds,
          f"state.csv: {len(rows)} rows")
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
    p.add_argument("--compounds", type=int, default=0)
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--every", type=int, default=0)
    p.add_argument("--container", action="store_true")
    p.add_argument("--meshes", action="store_true", help="the run has mesh walls")
    p.add_argument("--format", choices=["binary", "zlib", "ascii"], default="binary",
                   help="the frames' encoding (output.vtk_format, vtk_compression)")
    args = p.parse_args()
    try:
        frames = check_frames(args.dir, args) if args.every else []
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
