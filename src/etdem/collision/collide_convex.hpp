// Narrow phase on convex polyhedra passed directly rather than through the shape table, so a
// shape made of several polyhedra with local poses can call them per part. Same contract as the
// pair functions of collide.hpp: normal from the second shape to the first, every point with gap
// < margin, nothing touched but `out`.
#pragma once

#include "etdem/collision/contact.hpp"
#include "etdem/shapes/polyhedron.hpp"
#include "etdem/shapes/triangle_mesh.hpp"

namespace etdem {

/// Sphere of this radius at pose `pa` against polyhedron `b`.
void collide_sphere_hull(double radius, const Pose& pa, const ConvexPolyhedron& b, const Pose& pb,
                         double margin, Manifold& out);

/// Polyhedron `a` against the one-sided plane of pose `plane` (normal: its local +z).
void collide_hull_plane(const ConvexPolyhedron& a, const Pose& pa, const Pose& plane, double margin,
                        Manifold& out);

/// Polyhedron `a` against polyhedron `b`.
void collide_hull_hull(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                       const Pose& pb, double margin, Manifold& out);

/// Sphere of this radius at pose `pa` against the static triangle mesh `b`.
void collide_sphere_trimesh(double radius, const Pose& pa, const TriangleMesh& b, const Pose& pb,
                            double margin, Manifold& out);

/// Polyhedron `a` against the static triangle mesh `b`.
void collide_hull_trimesh(const ConvexPolyhedron& a, const Pose& pa, const TriangleMesh& b,
                          const Pose& pb, double margin, Manifold& out);

}  // namespace etdem
