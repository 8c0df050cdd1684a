#include "etdem/collision/closest_features.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace etdem {

void closest_on_segments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1,
                         Vec3& c2) {
  const Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double c = d1.dot(r), b = d1.dot(d2);
  const double denom = a * e - b * b;
  // Parallel segments (denom = 0): any s, here 0, then the clamped t and s again.
  double s = denom > 0.0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  double t = e > 0.0 ? (b * s + f) / e : 0.0;
  if (t < 0.0) {
    t = 0.0;
    s = a > 0.0 ? std::clamp(-c / a, 0.0, 1.0) : 0.0;
  } else if (t > 1.0) {
    t = 1.0;
    s = a > 0.0 ? std::clamp((b - c) / a, 0.0, 1.0) : 0.0;
  }
  c1 = p1 + s * d1;
  c2 = p2 + t * d2;
}

namespace {

/// Vertices of `p` at pose `pose`, in world coordinates.
void world_vertices(const ConvexPolyhedron& p, const Pose& pose, std::vector<Vec3>& out) {
  out.resize(p.vertices.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = pose.position + pose.rotation * p.vertices[k];
}

/// Points of `points` above a face of `p` (world vertices `pv`, rotation of its pose) whose
/// projection falls inside that face: the height is a candidate distance.
void vertex_face(const std::vector<Vec3>& points, const ConvexPolyhedron& p,
                 const std::vector<Vec3>& pv, const Mat3& rotation, bool points_on_a,
                 ClosestPoints& best) {
  for (int f = 0; f < p.face_count(); ++f) {
    const Vec3 n = rotation * p.faces[f].normal;
    const auto fv = p.face(f);
    const double offset = n.dot(pv[fv[0]]);
    for (const Vec3& x : points) {
      const double h = n.dot(x) - offset;
      if (h <= 0.0 || h >= best.distance) continue;
      bool inside = true;
      for (std::size_t k = 0; k < fv.size() && inside; ++k) {
        const Vec3& v0 = pv[fv[k]];
        const Vec3& v1 = pv[fv[(k + 1) % fv.size()]];
        inside = (v1 - v0).cross(n).dot(x - v0) <= 0.0;  // inside the side plane of edge v0-v1
      }
      if (!inside) continue;
      best.distance = h;
      const Vec3 foot = x - h * n;
      best.on_a = points_on_a ? x : foot;
      best.on_b = points_on_a ? foot : x;
    }
  }
}

}  // namespace

ClosestPoints closest_points(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                             const Pose& pb) {
  thread_local std::vector<Vec3> va, vb;
  world_vertices(a, pa, va);
  world_vertices(b, pb, vb);
  ClosestPoints best;
  best.distance = std::numeric_limits<double>::infinity();
  // Edge against edge (vertex-vertex and vertex-edge pairs are edge pairs' end points).
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges) {
      Vec3 ca, cb;
      closest_on_segments(va[ea.v0], va[ea.v1], vb[eb.v0], vb[eb.v1], ca, cb);
      const double d = (ca - cb).norm();
      if (d < best.distance) {
        best.distance = d;
        best.on_a = ca;
        best.on_b = cb;
      }
    }
  vertex_face(va, b, vb, pb.rotation, true, best);
  vertex_face(vb, a, va, pa.rotation, false, best);
  return best;
}

}  // namespace etdem

namespace etdem {

void add_closest_if_missing(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                            const Pose& pb, double separation, double margin, Manifold& out) {
  if (!(separation > 0.0) || separation >= margin) return;
  double nearest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < out.count; ++k) nearest = std::min(nearest, out.gap[k]);
  // Reported gaps are exact distances of their points; the bound is reached by the closest
  // pair, so a point within round-off of it means the closest feature is already there.
  const double tol = 1e-9 * std::max(a.bounding_radius, b.bounding_radius);
  if (nearest <= separation + tol) return;
  const ClosestPoints c = closest_points(a, pa, b, pb);
  if (!(c.distance > 0.0) || c.distance >= margin || c.distance >= nearest - tol) return;
  const Vec3 n = (c.on_a - c.on_b) / c.distance;  // from B to A
  const Vec3 mid = 0.5 * (c.on_a + c.on_b);
  if (out.count == 0) {
    out.normal = n;
    out.add(mid, c.distance);
  } else {
    out.add(mid, c.distance, n);
  }
}

}  // namespace etdem
