#!/usr/bin/env python3
"""Writes chute.stl: an open U-channel (floor and two side walls) 0.8 m long, 0.12 m wide,
0.04 m deep, tilted 30 degrees so it descends along +x from its top end at the origin. The
triangles face into the channel (the free side), 16 segments along its length."""
import math

L, W, H, SLOPE, N = 0.8, 0.12, 0.04, math.radians(30.0), 16
profile = [(-W / 2, H), (-W / 2, 0.0), (W / 2, 0.0), (W / 2, H)]  # (y, z), counter-clockwise


def tilt(x, y, z):  # about y: +x goes to (cos, 0, -sin)
    c, s = math.cos(SLOPE), math.sin(SLOPE)
    return (c * x + s * z, y, -s * x + c * z)


facets = []
for j in range(N):
    x0, x1 = L * j / N, L * (j + 1) / N
    for (y0, z0), (y1, z1) in zip(profile, profile[1:]):
        a, b, c, d = (x0, y0, z0), (x1, y0, z0), (x1, y1, z1), (x0, y1, z1)
        facets += [(a, b, c), (a, c, d)]

with open("chute.stl", "w") as f:
    f.write("solid chute\n")
    for tri in facets:
        f.write(" facet normal 0 0 0\n  outer loop\n")
        for p in tri:
            f.write("   vertex {:.9f} {:.9f} {:.9f}\n".format(*tilt(*p)))
        f.write("  endloop\n endfacet\n")
    f.write("endsolid chute\n")
