// Polyhedron against a one-sided plane: every vertex closer than the margin is a contact point
// (a face resting on the plane yields all its vertices, an edge two), as for the box.
#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"
#include "etdem/collision/contact_collector.hpp"

namespace etdem {

void collide_hull_plane(const ConvexPolyhedron& a, const Pose& pa, const Pose& pb, double margin,
                        Manifold& out) {
  out.clear();
  const Vec3 n = pb.rotation.col(2);
  const double centre = (pa.position - pb.position).dot(n);
  if (centre - a.bounding_radius >= margin) return;
  out.normal = n;
  const Vec3 nb = pa.rotation.transpose() * n;  // plane normal in the polyhedron's frame
  thread_local ContactCollector points;
  points.clear();
  for (const Vec3& v : a.vertices) {
    const double gap = centre + nb.dot(v);
    if (gap >= margin) continue;
    points.add(pa.position + pa.rotation * v - 0.5 * gap * n, gap);
  }
  points.emit(out);
}

void collide_polyhedron_plane(const ShapeTable& shapes, int sa, const Pose& pa, int /*sb*/,
                              const Pose& pb, double margin, Manifold& out) {
  collide_hull_plane(shapes.polyhedron(sa), pa, pb, margin, out);
}

}  // namespace etdem
