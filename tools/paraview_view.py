"""Opens an etdem run in ParaView: `etdem view DIR` runs this with ParaView's pvpython.

    pvpython tools/paraview_view.py DIR [--state FILE.pvsm] [--png OUTDIR | --png-last FILE.png]
                                        [--size W H] [--speed-range MIN MAX]

Reads DIR/particles.pvd (one .vtm per frame with named blocks, docs/scenario.md) and builds the
picture: sphere grains (blocks spheres and compound_spheres) as sphere glyphs on every point
(GlyphMode 'All Points') scaled by their radius (a glyph's diameter is the grain's), the other
grains as solids, all coloured by speed on one colour scale (0 to the fastest grain over the
frames); walls translucent, mesh walls half translucent; the camera on the grains and the mesh
walls, z up.

  --state FILE      writes the pipeline as a ParaView state (open it with paraview --state=FILE;
                    `etdem view DIR` does)
  --png OUTDIR      renders every frame to OUTDIR/frame_SSSSSS.png (SSSSSS the step)
  --png-last FILE   renders the last frame to FILE
Rendering needs a display: headless, run under xvfb-run (`etdem view` does when DISPLAY is unset).

The pipeline is built by build_view(), which tests/support/paraview_check.py inspects.
"""
import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

# How each block is drawn: "glyphs" (points with a radius), "solid" (cells coloured by speed),
# "translucent" (walls), "terrain", "net". The order and names are those of the frames; a block
# not listed here (the grains of a shape type added since) is a grain block drawn as its data
# says (block_style).
BLOCK_STYLE = {
    "spheres": "glyphs",
    "boxes": "solid",
    "polyhedra": "solid",
    "compounds": "solid",
    "compound_spheres": "glyphs",
    "level_sets": "solid",
    "walls": "translucent",
    "meshes": "translucent",
    "terrain": "terrain",
    "nets": "net",
}
GRAIN_BLOCKS = ["spheres", "boxes", "polyhedra", "compounds", "compound_spheres", "level_sets"]
# What the camera frames: the grains and the mesh walls they run on (not the floors and
# containers, which may be much larger).
CAMERA_BLOCKS = GRAIN_BLOCKS + ["meshes"]
WALL_OPACITY = {"walls": 0.25, "meshes": 0.5}
BACKGROUND = [1.0, 1.0, 1.0]
GLYPH_RESOLUTION = 16  # theta and phi divisions of a sphere glyph


def read_frames(directory):
    """The frames of particles.pvd: [(time, step, {block name: file or None})], in time order."""
    pvd = os.path.join(directory, "particles.pvd")
    if not os.path.isfile(pvd):
        raise SystemExit(f"{pvd}: no such file (run etdem with output.every > 0 to write frames)")
    frames = []
    for d in ET.parse(pvd).getroot().findall("./Collection/DataSet"):
        vtm = os.path.join(directory, d.get("file"))
        if not vtm.endswith(".vtm"):
            raise SystemExit(f"{pvd}: lists {d.get('file')}, not a .vtm frame (written by an "
                             "older etdem; run it again)")
        blocks = {e.get("name"): e.get("file") for e in ET.parse(vtm).getroot().iter("DataSet")}
        step = int(os.path.basename(vtm).split("_")[-1].split(".")[0])
        frames.append((float(d.get("timestep")), step, blocks))
    if not frames:
        raise SystemExit(f"{pvd}: lists no frames")
    return frames


def block_style(directory, frames, name):
    """How block `name` is drawn: its BLOCK_STYLE, else as a grain block, "glyphs" when its
    points carry the radius as their scalars (balls, as the spheres block), "solid" otherwise."""
    if name in BLOCK_STYLE:
        return BLOCK_STYLE[name]
    file = next(b[name] for _, _, b in frames if b.get(name))
    with open(os.path.join(directory, "frames", file), "rb") as fh:
        head = fh.read(1 << 16).split(b"<AppendedData")[0]
    return "glyphs" if b'<PointData Scalars="radius"' in head else "solid"


def speed_range(reader, times):
    """0 and the largest speed of any grain over the given times."""
    top = 0.0
    for t in times:
        reader.UpdatePipeline(t)
        for data in (reader.PointData, reader.CellData):
            if "speed" in data.keys():
                top = max(top, data["speed"].GetRange()[1])
    return [0.0, top if top > 0.0 else 1.0]


def camera_bounds(sources, time, names=CAMERA_BLOCKS):
    """The bounds of the blocks `names` (the grains and mesh walls) at `time`, or None."""
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for name, src in sources.items():
        if name not in names:
            continue
        src.UpdatePipeline(time)
        info = src.GetDataInformation()
        if info.GetNumberOfPoints() == 0:
            continue
        b = info.GetBounds()
        for a in range(3):
            lo[a] = min(lo[a], b[2 * a])
            hi[a] = max(hi[a], b[2 * a + 1])
    return None if lo[0] == math.inf else lo + hi


def place_camera(view, bounds):
    """Looks at the bounds (lo, hi) from the front (-y), a little to the right and above, z up,
    at a distance that fits them."""
    from paraview.simple import Render
    lo, hi = bounds[:3], bounds[3:]
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    radius = max(1e-9, 0.5 * math.dist(lo, hi))
    direction = [0.45, -1.0, 0.55]
    norm = math.sqrt(sum(c * c for c in direction))
    view.CameraViewAngle = 30.0
    distance = radius / math.sin(math.radians(view.CameraViewAngle / 2)) * 1.05
    view.CameraFocalPoint = centre
    view.CameraPosition = [c + distance * d / norm for c, d in zip(centre, direction)]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.CameraParallelScale = radius
    Render(view)


def build_view(directory, size=(1280, 800), speed=None, camera_times=None):
    """The pipeline and the displays of a run in a new render view of `size`, in a layout (so
    that the ParaView window shows it when it loads the state). Returns a dict: reader, frames,
    view, sources {block: extracted block or glyph}, inputs {block: glyph input}, displays
    {block: display}, lut, speed_range."""
    from paraview import simple as pv
    directory = os.path.abspath(directory)
    frames = read_frames(directory)
    times = [t for t, _, _ in frames]
    names = list(BLOCK_STYLE) + [n for _, _, b in frames for n in b if n not in BLOCK_STYLE]
    present = [name for name in dict.fromkeys(names) if any(b.get(name) for _, _, b in frames)]
    style_of = {name: block_style(directory, frames, name) for name in present}
    # What the camera frames: CAMERA_BLOCKS and the grain blocks not listed in BLOCK_STYLE.
    camera = CAMERA_BLOCKS + [name for name in present if name not in BLOCK_STYLE]
    reader = pv.PVDReader(registrationName="run", FileName=os.path.join(directory, "particles.pvd"))
    view = pv.CreateView("RenderView")
    pv.AssignViewToLayout(view=view, layout=pv.CreateLayout("etdem"), hint=0)
    view.ViewSize = list(size)
    view.OrientationAxesVisibility = 1
    view.UseColorPaletteForBackground = 0
    view.Background = BACKGROUND
    lut = pv.GetColorTransferFunction("speed")
    lut.ApplyPreset("Viridis (matplotlib)", True)
    lut.AutomaticRescaleRangeMode = "Never"
    rng = list(speed) if speed else speed_range(reader, times)
    sources, inputs, displays = {}, {}, {}
    for name in present:
        style = style_of[name]
        block = pv.ExtractBlock(registrationName=name, Input=reader, Selectors=[f"/Root/{name}"])
        src = block
        if style == "glyphs":
            # Every point a sphere of the grain's diameter: the glyph source has radius 0.5, so
            # a scale of 2 x radius gives diameter 2 r.
            src = pv.Glyph(registrationName=f"{name} (glyphs)", Input=block, GlyphType="Sphere")
            src.GlyphMode = "All Points"
            src.ScaleArray = ["POINTS", "radius"]
            src.ScaleFactor = 2.0
            src.OrientationArray = ["POINTS", "No orientation array"]
            src.GlyphType.ThetaResolution = GLYPH_RESOLUTION
            src.GlyphType.PhiResolution = GLYPH_RESOLUTION
            inputs[name] = block
        d = pv.Show(src, view)
        d.SetRepresentationType("Surface")
        if style == "glyphs":
            pv.ColorBy(d, ("POINTS", "speed"))
        elif style == "solid":
            pv.ColorBy(d, ("CELLS", "speed"))
        else:
            d.ColorArrayName = ["POINTS", ""]
            d.AmbientColor = d.DiffuseColor = {"translucent": [0.6, 0.6, 0.65],
                                               "terrain": [0.55, 0.47, 0.36],
                                               "net": [0.2, 0.2, 0.2]}[style]
            if style == "translucent":
                d.Opacity = WALL_OPACITY[name]
            if name == "walls":
                # Walls face their free side: the near walls of a container, seen from behind,
                # are not drawn and the grains are seen through the opening.
                d.BackfaceRepresentation = "Cull Backface"
            if style == "net":
                d.SetRepresentationType("Wireframe")
        if style in ("glyphs", "solid"):
            d.LookupTable = lut
        sources[name], displays[name] = src, d
    pv.Hide(reader, view)
    # One colour scale for every frame (set after ColorBy, which may rescale it).
    lut.RescaleTransferFunction(rng[0], rng[1])
    pv.GetOpacityTransferFunction("speed").RescaleTransferFunction(rng[0], rng[1])
    if any(style_of[n] in ("glyphs", "solid") for n in present):
        bar = pv.GetScalarBar(lut, view)
        bar.Title = "speed [m/s]"
        bar.ComponentTitle = ""
        bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]
        bar.Visibility = 1
    label = pv.AnnotateTime(registrationName="time")
    label.Format = "t = {time:.3f} s"
    ld = pv.Show(label, view)
    ld.Color = [0.1, 0.1, 0.1]
    ld.WindowLocation = "Upper Left Corner"
    # The camera fits the grains (and mesh walls) of the given frames (default: first and last).
    bounds = None
    for t in camera_times if camera_times is not None else [times[0], times[-1]]:
        b = camera_bounds(sources, t, camera)
        if b:
            bounds = b if bounds is None else [min(bounds[a], b[a]) for a in range(3)] + [
                max(bounds[a], b[a]) for a in range(3, 6)]
    scene = pv.GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = times[-1]
    view.ViewTime = times[-1]
    pv.Render(view)  # the first render resets the camera to everything shown; then it is placed
    if bounds:
        place_camera(view, bounds)
    else:
        pv.ResetCamera(view)
    return {"reader": reader, "frames": frames, "view": view, "sources": sources,
            "inputs": inputs, "displays": displays, "lut": lut, "speed_range": rng}


def render_png(v, time, path):
    """Renders the view at `time` to the PNG `path`."""
    from paraview import simple as pv
    pv.GetAnimationScene().AnimationTime = time
    v["view"].ViewTime = time
    pv.Render(v["view"])
    pv.SaveScreenshot(path, v["view"], ImageResolution=list(v["view"].ViewSize),
                      TransparentBackground=0)


def main(argv):
    p = argparse.ArgumentParser(prog="paraview_view.py", description=__doc__.split("\n")[0])
    p.add_argument("dir")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--png", metavar="OUTDIR", help="one PNG per frame, OUTDIR/frame_SSSSSS.png")
    out.add_argument("--png-last", metavar="FILE", help="the last frame as a PNG")
    p.add_argument("--state", metavar="FILE", help="write the ParaView state (.pvsm)")
    p.add_argument("--size", type=int, nargs=2, default=[1280, 800], metavar=("W", "H"))
    p.add_argument("--speed-range", type=float, nargs=2, metavar=("MIN", "MAX"),
                   help="colour scale of the speed (default: 0 to the fastest grain)")
    a = p.parse_args(argv)
    if min(a.size) < 16 or max(a.size) > 8192:
        p.error("--size: W and H must lie in [16, 8192]")
    if not (a.png or a.png_last or a.state):
        p.error("nothing to do: give --png OUTDIR, --png-last FILE or --state FILE")
    frames = read_frames(a.dir)
    last = [frames[-1][0]] if a.png_last else None
    v = build_view(a.dir, size=a.size, speed=a.speed_range, camera_times=last)
    if a.state:
        from paraview import simple as pv
        pv.SaveState(a.state)
        print(f"paraview_view: state written to {a.state}")
    if a.png_last:
        render_png(v, frames[-1][0], a.png_last)
        print(f"paraview_view: t = {frames[-1][0]:g} s -> {a.png_last}")
    if a.png:
        os.makedirs(a.png, exist_ok=True)
        for t, step, _ in frames:
            render_png(v, t, os.path.join(a.png, f"frame_{step:06d}.png"))
        print(f"paraview_view: {len(frames)} frames -> {a.png}/frame_SSSSSS.png")
    # Deleting the view before the interpreter exits avoids an X error (GLXBadContext, exit code
    # 1) from tearing it down after the X connection under xvfb-run.
    from paraview import simple as pv
    pv.Delete(v["view"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
