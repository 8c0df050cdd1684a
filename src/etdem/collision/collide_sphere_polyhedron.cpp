// Sphere against a convex polyhedron: the closest point of the polyhedron to the sphere centre,
// worked in the polyhedron's frame (Ericson, Real-Time Collision Detection, 5.1: the closest point
// of a convex polytope lies on a face the point is in front of; on that face it is the projection
// when that falls inside the polygon, else the closest point of an edge the projection is outside
// of). A centre inside the polyhedron leaves through the face of least penetration, as for the
// box (collide_sphere_box.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"

namespace etdem {

void collide_sphere_hull(double r, const Pose& pa, const ConvexPolyhedron& h, const Pose& pb,
                         double margin, Manifold& out) {
  out.clear();
  const Vec3 c = pb.rotation.transpose() * (pa.position - pb.position);  // centre, body frame
  if (c.norm() - h.bounding_radius - r >= margin) return;

  // Signed distance to every face plane; the largest is a lower bound of the distance.
  int deepest = 0;
  double s_max = -std::numeric_limits<double>::infinity();
  for (int f = 0; f < h.face_count(); ++f) {
    const double s = h.faces[f].normal.dot(c) - h.faces[f].offset;
    if (s > s_max) s_max = s, deepest = f;
  }
  if (s_max - r >= margin) return;

  if (s_max <= 0.0) {
    // Centre inside (or on the surface): out through the face of least penetration.
    const ConvexPolyhedron::Face& f = h.faces[deepest];
    const double gap = s_max - r;
    out.normal = pb.rotation * f.normal;
    const Vec3 on_b = pb.position + pb.rotation * (c - s_max * f.normal);
    out.add(on_b + 0.5 * gap * out.normal, gap);
    return;
  }

  // Centre outside: the closest point over the faces the centre is in front of.
  double best = std::numeric_limits<double>::infinity();
  Vec3 q = Vec3::Zero();
  for (int f = 0; f < h.face_count(); ++f) {
    const ConvexPolyhedron::Face& face = h.faces[f];
    const double s = face.normal.dot(c) - face.offset;
    if (s <= 0.0 || s * s >= best) continue;
    const Vec3 p = c - s * face.normal;  // projection on the face plane
    const auto fv = h.face(f);
    bool inside = true;
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const Vec3& v0 = h.vertices[fv[k]];
      const Vec3& v1 = h.vertices[fv[(k + 1) % fv.size()]];
      const Vec3 e = v1 - v0;
      if (e.cross(p - v0).dot(face.normal) >= 0.0) continue;  // inner side of this edge
      inside = false;
      // Closest point of the edge segment to the centre.
      const double t = std::clamp((c - v0).dot(e) / e.squaredNorm(), 0.0, 1.0);
      const Vec3 x = v0 + t * e;
      const double d2 = (c - x).squaredNorm();
      if (d2 < best) best = d2, q = x;
    }
    if (inside) best = s * s, q = p;
  }
  const Vec3 d = c - q;
  const double dist = d.norm();
  const double gap = dist - r;
  if (gap >= margin) return;
  out.normal = pb.rotation * (d / dist);
  const Vec3 on_b = pb.position + pb.rotation * q;
  out.add(on_b + 0.5 * gap * out.normal, gap);
}

void collide_sphere_polyhedron(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                               const Pose& pb, double margin, Manifold& out) {
  collide_sphere_hull(shapes.sphere(sa).radius, pa, shapes.polyhedron(sb), pb, margin, out);
}

}  // namespace etdem
