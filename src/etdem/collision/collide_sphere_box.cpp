// Sphere against an oriented box: closest point on the box to the sphere centre, worked in the
// box frame where the box is an axis-aligned interval per axis (Ericson, Real-Time Collision
// Detection, 5.1.3; the same split into outside / inside as Box2D's b2CollidePolygonAndCircle).
#include <cmath>

#include "etdem/collision/collide.hpp"

namespace etdem {

void collide_sphere_box(const ShapeTable& shapes, int sa, const Pose& pa, int sb, const Pose& pb,
                        double margin, Manifold& out) {
  out.clear();
  const double r = shapes.sphere(sa).radius;
  const Vec3 h = shapes.box(sb).half_extents;
  // Sphere centre in the box frame (rotation is orthonormal, so its transpose is its inverse).
  const Vec3 c = pb.rotation.transpose() * (pa.position - pb.position);
  const Vec3 q = c.cwiseMax(-h).cwiseMin(h);  // closest point of the box, box frame
  const Vec3 d = c - q;
  const double dist2 = d.squaredNorm();

  if (dist2 > 0.0) {
    // Centre outside the box: face, edge or corner region, all handled by the clamp. The normal
    // is the direction from the closest point to the centre, so it is continuous across regions.
    const double dist = std::sqrt(dist2);
    const double gap = dist - r;
    if (gap >= margin) return;
    out.normal = pb.rotation * (d / dist);
    const Vec3 on_b = pb.position + pb.rotation * q;
    out.add(on_b + 0.5 * gap * out.normal, gap);
    return;
  }

  // Centre inside the box (or on its surface): the clamp gives no direction, so push out through
  // the face of least penetration, the shortest way out (as Box2D does for a polygon's interior).
  // Ties go to the lowest axis, then to the + face, so the choice is deterministic.
  int axis = 0;
  double depth = h.x() - std::abs(c.x());
  for (int k = 1; k < 3; ++k) {
    const double dk = h[k] - std::abs(c[k]);
    if (dk < depth) {
      depth = dk;
      axis = k;
    }
  }
  const double side = c[axis] >= 0.0 ? 1.0 : -1.0;
  const double gap = -depth - r;  // centre is `depth` below the face, the sphere reaches r more
  if (gap >= margin) return;      // only with a negative margin; kept for the contract
  out.normal = side * pb.rotation.col(axis);
  Vec3 face_point = c;  // centre projected onto the chosen face, box frame
  face_point[axis] = side * h[axis];
  const Vec3 on_b = pb.position + pb.rotation * face_point;
  out.add(on_b + 0.5 * gap * out.normal, gap);
}

}  // namespace etdem
