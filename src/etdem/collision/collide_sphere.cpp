// Sphere against sphere and sphere against a one-sided plane.
#include "etdem/collision/collide.hpp"

namespace etdem {

void collide_sphere_sphere(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                           const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const double ra = shapes.sphere(sa).radius, rb = shapes.sphere(sb).radius;
  const Vec3 d = pa.position - pb.position;
  const double dist = d.norm();
  const double gap = dist - ra - rb;
  if (gap >= margin) return;
  // Coincident centres: any direction is as good as another; choose +z deterministically.
  out.normal = dist > 0.0 ? Vec3(d / dist) : Vec3::UnitZ();
  // Midway between the two surfaces along the line of centres.
  const Vec3 on_b = pb.position + rb * out.normal;
  out.add(on_b + 0.5 * gap * out.normal, gap);
}

void collide_sphere_plane(const ShapeTable& shapes, int sa, const Pose& pa, int /*sb*/,
                          const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const double r = shapes.sphere(sa).radius;
  const Vec3 n = pb.rotation.col(2);
  // One-sided: the signed distance is not taken in absolute value, so a sphere that tunnelled
  // below the plane has a large negative gap and is pushed back (jolt appendix, modified 5.9).
  const double gap = (pa.position - pb.position).dot(n) - r;
  if (gap >= margin) return;
  out.normal = n;
  out.add(pa.position - (r + 0.5 * gap) * n, gap);
}

}  // namespace etdem
