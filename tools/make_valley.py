#!/usr/bin/python3
"""A synthetic valley as a GeoTIFF height map, for [[wall]] type = "terrain".

The valley of the 2024 impulse-based LS-DEM's rock avalanches (Tan, Wijesuriya & Sitar, section
6.3): a channel descending along +x at --slope degrees (25 by default) that opens onto a runout
sloping at --runout-slope degrees (0: a flat plane, 3: the paper's second case). Across y the
channel is a parabola --depth deep and --channel-width wide, with walls rising at --wall-slope
beyond it; the channel's cross-section fades out over --opening metres of runout, so the flow
leaves it onto an open fan. The break in slope is rounded over --transition metres (the slope
changes linearly there). One Float32 band, north up, nx = length / pixel by ny = width / pixel
pixels centred at x = (i + 1/2) pixel, y = (j - (ny - 1) / 2) pixel (the channel's axis at
y = 0), no NoData.

The defaults make the size of the paper's terrain, 4000 x 1280 pixels:

    /usr/bin/python3 tools/make_valley.py out/valley.tif
    /usr/bin/python3 tools/make_valley.py --length 3 --width 1 --pixel 0.05 --chute 1.8 \\
        --channel-width 0.5 --depth 0.06 --opening 0.6 --transition 0.2 small.tif

Needs python3-gdal and python3-numpy (Debian), nothing else.
"""
import argparse
import math
import sys

import numpy as np
from osgeo import gdal


def valley(args):
    # Pixels cover the area: their centres at (i + 1/2) pixel along x, symmetric about y = 0.
    nx = int(round(args.length / args.pixel))
    ny = int(round(args.width / args.pixel))
    x = (np.arange(nx) + 0.5) * args.pixel
    y = (np.arange(ny) - (ny - 1) / 2.0) * args.pixel
    s1 = math.tan(math.radians(args.slope))
    s2 = math.tan(math.radians(args.runout_slope))
    # Longitudinal profile: slope s1 down to x = chute, then s2; the slope changes linearly over
    # [chute - t/2, chute + t/2] (a parabolic arc: height and slope continuous).
    a, b = args.chute - args.transition / 2.0, args.chute + args.transition / 2.0
    slope = np.where(x <= a, s1, np.where(x >= b, s2, s1 + (s2 - s1) * (x - a) / max(b - a, 1e-300)))
    z_long = -np.concatenate(([0.0], np.cumsum(0.5 * (slope[1:] + slope[:-1]) * np.diff(x))))
    z_long -= z_long.min()
    # Cross-section: a parabolic channel of half-width w/2, walls beyond it; faded out along the
    # runout over `opening` metres.
    half = args.channel_width / 2.0
    u = np.abs(y)
    cross = np.where(u <= half, args.depth * (u / half) ** 2,
                     args.depth + (u - half) * math.tan(math.radians(args.wall_slope)))
    fade = np.clip(1.0 - (x - args.chute) / max(args.opening, 1e-300), 0.0, 1.0)
    z = z_long[np.newaxis, :] + fade[np.newaxis, :] * cross[:, np.newaxis]  # [j, i]
    return x, y, z


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("output", help="GeoTIFF to write")
    p.add_argument("--length", type=float, default=200.0, help="m along x (default 200)")
    p.add_argument("--width", type=float, default=64.0, help="m along y (default 64)")
    p.add_argument("--pixel", type=float, default=0.05, help="m (default 0.05: 4000 x 1280 pixels)")
    p.add_argument("--slope", type=float, default=25.0, help="channel slope, degrees (25)")
    p.add_argument("--runout-slope", type=float, default=0.0,
                   help="runout slope, degrees (0: flat; the paper's second case: 3)")
    p.add_argument("--chute", type=float, default=None,
                   help="m, where the channel meets the runout (default 0.55 length)")
    p.add_argument("--transition", type=float, default=None,
                   help="m, the break in slope is rounded over this (default 0.02 length)")
    p.add_argument("--channel-width", type=float, default=None, help="m (default 0.4 width)")
    p.add_argument("--depth", type=float, default=None, help="m, channel depth (0.06 length)")
    p.add_argument("--wall-slope", type=float, default=35.0, help="degrees beyond the channel")
    p.add_argument("--opening", type=float, default=None,
                   help="m of runout over which the channel fades (default 0.15 length)")
    args = p.parse_args()
    if args.chute is None:
        args.chute = 0.55 * args.length
    if args.transition is None:
        args.transition = 0.02 * args.length
    if args.channel_width is None:
        args.channel_width = 0.4 * args.width
    if args.depth is None:
        args.depth = 0.06 * args.length
    if args.opening is None:
        args.opening = 0.15 * args.length
    for name in ("length", "width", "pixel", "channel_width"):
        if not getattr(args, name) > 0.0:
            sys.exit(f"make_valley.py: --{name.replace('_', '-')} must be > 0")
    if args.pixel > min(args.length, args.width):
        sys.exit("make_valley.py: --pixel must not exceed the length or the width")
    if not 0.0 <= args.slope < 90.0 or not -45.0 < args.runout_slope < 90.0:
        sys.exit("make_valley.py: slopes must lie in [0, 90) degrees (runout: (-45, 90))")
    x, y, z = valley(args)
    ny, nx = z.shape
    gdal.UseExceptions()
    ds = gdal.GetDriverByName("GTiff").Create(args.output, nx, ny, 1, gdal.GDT_Float32,
                                              options=["COMPRESS=DEFLATE", "PREDICTOR=3"])
    # North up: row 0 is the largest y; pixel (i, row) centred on (x[i], y[ny - 1 - row]).
    ds.SetGeoTransform((x[0] - args.pixel / 2, args.pixel, 0.0,
                        y[-1] + args.pixel / 2, 0.0, -args.pixel))
    ds.GetRasterBand(1).WriteArray(z[::-1, :].astype(np.float32))
    ds.FlushCache()
    ds = None
    print(f"{args.output}: {nx} x {ny} pixels of {args.pixel} m, heights {z.min():.3f} to "
          f"{z.max():.3f} m, channel at {args.slope} deg down to x = {args.chute} m, runout at "
          f"{args.runout_slope} deg")


if __name__ == "__main__":
    main()
