// Box against a one-sided plane: every corner closer than the margin is a contact point, so a
// face resting on the plane yields its four corners and an edge two.
#include "etdem/collision/collide.hpp"

namespace etdem {

void collide_box_plane(const ShapeTable& shapes, int sa, const Pose& pa, int /*sb*/, const Pose& pb,
                       double margin, Manifold& out) {
  out.clear();
  const Vec3 h = shapes.box(sa).half_extents;
  const Vec3 n = pb.rotation.col(2);
  out.normal = n;
  const double centre = (pa.position - pb.position).dot(n);
  // Extent of each box axis along the plane normal.
  const Vec3 e(h.x() * pa.rotation.col(0).dot(n), h.y() * pa.rotation.col(1).dot(n),
               h.z() * pa.rotation.col(2).dot(n));
  if (centre - std::abs(e.x()) - std::abs(e.y()) - std::abs(e.z()) >= margin) return;
  for (int k = 0; k < 8; ++k) {
    const double sx = (k & 1) ? 1.0 : -1.0, sy = (k & 2) ? 1.0 : -1.0, sz = (k & 4) ? 1.0 : -1.0;
    const double gap = centre + sx * e.x() + sy * e.y() + sz * e.z();
    if (gap >= margin) continue;
    const Vec3 corner = pa.position + pa.rotation * Vec3(sx * h.x(), sy * h.y(), sz * h.z());
    out.add(corner - 0.5 * gap * n, gap);
  }
}

}  // namespace etdem
