"""Checks the picture `etdem view` builds, in the real ParaView (pvpython under xvfb-run):

    pvpython tests/support/paraview_check.py RUN_DIR --png FILE.png --docs docs/scenario.md [--mesh]

Builds the viewer's pipeline (tools/paraview_view.py, build_view) for the run, renders its last
frame to FILE.png and checks, at the last frame:
- the blocks ParaView reads are those of the docs' block table, by name and in order;
- every sphere grain is drawn: the glyph input (the `spheres` block) has one point per sphere
  grain of state.csv (no wall corner among them), and the glyph output has one sphere source per
  input point, carrying every grain id;
- a glyph's diameter is its grain's: the glyphs reach exactly from min(z - r) to max(z + r);
- walls are translucent; with --mesh, the mesh walls are in the last frame and drawn (the picture
  changes when they are hidden);
- the PNG is not blank: a share of its pixels differs from the background.
Prints one line per check; exits 1 at the first that fails.
"""
import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import paraview_view  # noqa: E402

from paraview import simple as pv  # noqa: E402
from paraview import servermanager as sm  # noqa: E402
from vtkmodules.numpy_interface import dataset_adapter as dsa  # noqa: E402
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402
import numpy as np  # noqa: E402


def check(ok, message):
    print(("ok: " if ok else "FAILED: ") + message, flush=True)
    if not ok:
        raise SystemExit(1)


def documented_blocks(docs):
    """The block names of the table in the docs' ParaView section, in index order."""
    text = open(docs).read()
    section = text[text.index("### ParaView"):]
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \|", section, flags=re.M)
    check([int(i) for i, _ in rows] == list(range(len(rows))) and rows,
          f"{docs}: a block table indexed 0.. ({len(rows)} rows)")
    return [name for _, name in rows]


def sphere_grains(directory):
    with open(os.path.join(directory, "state.csv"), newline="") as fh:
        return sum(1 for r in csv.DictReader(fh) if r["shape"] == "sphere")


def fetch(proxy, time):
    proxy.UpdatePipeline(time)
    return sm.Fetch(proxy)


def leaves(data):
    """The non-empty datasets of a (multiblock) data object."""
    if data is None:
        return []
    if data.IsA("vtkMultiBlockDataSet"):
        out = []
        for k in range(data.GetNumberOfBlocks()):
            out += leaves(data.GetBlock(k))
        return out
    return [data] if data.GetNumberOfPoints() > 0 else []


def png_pixels(path):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = dsa.WrapDataObject(r.GetOutput())
    return np.asarray(img.PointData[0]).reshape(-1, r.GetOutput().GetNumberOfScalarComponents())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--png", required=True)
    p.add_argument("--docs", required=True)
    p.add_argument("--mesh", action="store_true", help="the run has mesh walls")
    a = p.parse_args()

    frames = paraview_view.read_frames(a.dir)
    last = frames[-1][0]
    v = paraview_view.build_view(a.dir, size=(960, 600), camera_times=[last])

    # Block names and order, as documented, in ParaView's reader at the last time.
    names = documented_blocks(a.docs)
    data = fetch(v["reader"], last)
    read = [data.GetMetaData(k).Get(data.NAME()) for k in range(data.GetNumberOfBlocks())]
    check(read == names, f"ParaView reads the blocks {read}, documented {names}")

    # Every grain drawn: the glyph input is the spheres block, one point per sphere grain.
    grains = sphere_grains(a.dir)
    glyph = v["sources"]["spheres"]
    check(glyph.GlyphMode == "All Points", f"glyph mode {glyph.GlyphMode}")
    points = leaves(fetch(v["inputs"]["spheres"], last))
    n_in = sum(d.GetNumberOfPoints() for d in points)
    check(n_in == grains, f"glyph input: {n_in} points, state.csv: {grains} sphere grains (no wall corners)")
    source = sm.Fetch(glyph.GlyphType)
    out = leaves(fetch(glyph, last))
    n_out = sum(d.GetNumberOfPoints() for d in out)
    check(n_out == n_in * source.GetNumberOfPoints(),
          f"glyph output: {n_out} points = {n_in} grains x {source.GetNumberOfPoints()} per sphere")
    ids_in = np.concatenate([np.asarray(dsa.WrapDataObject(d).PointData["id"]) for d in points])
    ids_out = np.concatenate([np.asarray(dsa.WrapDataObject(d).PointData["id"]) for d in out])
    check(set(ids_out.tolist()) == set(ids_in.tolist()) and len(set(ids_in.tolist())) == grains,
          f"glyphs carry all {grains} grain ids")

    # A glyph's diameter is its grain's: the sphere source's poles lie on the z axis, so the
    # glyphs reach from min(z - r) to max(z + r) (float32 points: relative 1e-6).
    xyz = np.concatenate([np.asarray(dsa.WrapDataObject(d).Points) for d in points])
    r = np.concatenate([np.asarray(dsa.WrapDataObject(d).PointData["radius"]) for d in points])
    gz = np.concatenate([np.asarray(dsa.WrapDataObject(d).Points)[:, 2] for d in out])
    lo, hi = float(np.min(xyz[:, 2] - r)), float(np.max(xyz[:, 2] + r))
    tol = 1e-6 * max(1.0, abs(lo), abs(hi))
    check(abs(gz.min() - lo) <= tol and abs(gz.max() - hi) <= tol,
          f"glyph z extent [{gz.min():.6g}, {gz.max():.6g}] = grains' [{lo:.6g}, {hi:.6g}] (diameter 2 r)")

    # Walls translucent.
    walls = v["displays"].get("walls")
    check(walls is not None and 0.0 < walls.Opacity < 1.0, "walls drawn translucent")

    # The picture.
    paraview_view.render_png(v, last, a.png)
    px = png_pixels(a.png)
    bg = np.round(np.array(paraview_view.BACKGROUND) * 255)
    differ = np.any(np.abs(px[:, :3].astype(float) - bg) > 8, axis=1).mean()
    check(differ > 0.02, f"{a.png}: {100 * differ:.1f} % of the pixels differ from the background")

    if a.mesh:
        meshes = leaves(fetch(v["sources"]["meshes"], last))
        cells = sum(d.GetNumberOfCells() for d in meshes)
        check(cells > 0, f"the mesh walls are in the last frame ({cells} triangles)")
        d = v["displays"]["meshes"]
        check(d.Visibility == 1, "the mesh walls are shown")
        d.Visibility = 0
        hidden = a.png + ".nomesh.png"
        paraview_view.render_png(v, last, hidden)
        d.Visibility = 1
        changed = np.any(px != png_pixels(hidden), axis=1).mean()
        os.remove(hidden)
        check(changed > 0.005, f"the mesh walls are drawn: hiding them changes {100 * changed:.1f} % of the pixels")
    pv.Delete(v["view"])
    print(f"paraview_check: {a.dir}: all checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
