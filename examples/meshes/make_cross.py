#!/usr/bin/env python3
"""Writes the concrete cross of ETM 2014 §7.4 (three orthogonal 3 x 1 x 1 bars) in units of the
bar width a = 1, centred at the origin:
  cross.msh  a conforming tetrahedral mesh (Gmsh MSH 2.2 ASCII): the 7 unit cubes of the cross,
             each cut into the 6 tetrahedra of Freudenthal's triangulation (all around the
             (+1, +1, +1) diagonal, so the cut faces of neighbouring cubes match), 42 tetrahedra
             on 32 nodes;
  cross.stl  its closed boundary (ASCII), 60 triangles, normals outward.
A scenario scales both to metres with `scale` (examples/tet_crosses.toml)."""
import itertools

cubes = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
nodes, index, tets = [], {}, []


def node(p):
    if p not in index:
        index[p] = len(nodes)
        nodes.append(p)
    return index[p]


for c in cubes:
    lo = tuple(x - 0.5 for x in c)
    for perm in itertools.permutations(range(3)):
        p = list(lo)
        path = [node(tuple(p))]
        for axis in perm:  # walk from the low corner to the high one, one axis at a time
            p[axis] += 1
            path.append(node(tuple(p)))
        tets.append(path)


def volume6(t):
    a, b, c, d = (nodes[k] for k in t)
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    w = [d[i] - a[i] for i in range(3)]
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
            + u[2] * (v[0] * w[1] - v[1] * w[0]))


tets = [t if volume6(t) > 0 else [t[0], t[2], t[1], t[3]] for t in tets]  # positive orientation

with open("cross.msh", "w") as f:
    f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n" % len(nodes))
    for k, p in enumerate(nodes):
        f.write("%d %g %g %g\n" % (k + 1, *p))
    f.write("$EndNodes\n$Elements\n%d\n" % len(tets))
    for k, t in enumerate(tets):  # type 4 = 4-node tetrahedron, tags: physical 1, entity 1
        f.write("%d 4 2 1 1 %d %d %d %d\n" % (k + 1, *(i + 1 for i in t)))
    f.write("$EndElements\n")

# Boundary: faces of one tetrahedron only; for a positive tetrahedron (a, b, c, d) the faces
# (b, c, d), (a, d, c), (a, b, d), (a, c, b) face outwards.
count = {}
for a, b, c, d in tets:
    for f in ((b, c, d), (a, d, c), (a, b, d), (a, c, b)):
        key = tuple(sorted(f))
        count.setdefault(key, []).append(f)
boundary = [fs[0] for fs in count.values() if len(fs) == 1]
with open("cross.stl", "w") as f:
    f.write("solid cross\n")
    for tri in boundary:
        f.write(" facet normal 0 0 0\n  outer loop\n")
        for k in tri:
            f.write("   vertex %g %g %g\n" % nodes[k])
        f.write("  endloop\n endfacet\n")
    f.write("endsolid cross\n")
print(len(nodes), "nodes,", len(tets), "tetrahedra,", len(boundary), "boundary triangles")
