// Sphere against a static triangle mesh, worked in the mesh's frame. Every triangle near the
// sphere gives its closest point (mesh_contacts.hpp); a point on an edge or a vertex is kept only
// when no triangle sharing that edge or vertex is closer (so a sphere over a flat tessellated
// floor gets the face point of the triangle below it and not the tilted normals of its
// neighbours' edges), and points that coincide (the shared edge of two triangles, seen from
// both) are merged. One-sided: a centre behind a triangle's plane (by less than the radius, and
// over the triangle) is pushed out along the triangle normal; a sphere entirely behind is ignored.
#include <cmath>
#include <limits>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"
#include "etdem/collision/mesh_contacts.hpp"

namespace etdem {

void collide_sphere_trimesh(double r, const Pose& pa, const TriangleMesh& m, const Pose& pb,
                            double margin, Manifold& out) {
  out.clear();
  const Vec3 c = pb.rotation.transpose() * (pa.position - pb.position);
  const double reach = r + std::max(margin, 0.0);
  const Vec3 ext = Vec3::Constant(reach);
  thread_local MeshContacts points;
  points.clear();
  const double eps = 1e-9 * r;
  m.query(c - ext, c + ext, [&](int t) {
    const double s = m.normals[t].dot(c - m.corner(t, 0));
    if (s < -r || s >= reach) return;
    Vec3 q;
    TriangleFeature f;
    const double d = triangle_distance(m, t, c, q, f);
    if (!std::isfinite(d)) return;
    const double gap = d - r;
    if (gap >= margin) return;
    // An edge or vertex point yields to a closer triangle sharing that feature.
    auto closer = [&](int u) {
      if (u < 0 || u == t) return false;
      Vec3 qu;
      TriangleFeature fu;
      return triangle_distance(m, u, c, qu, fu) < d - eps;
    };
    switch (f) {
      case TriangleFeature::Face:
        break;
      case TriangleFeature::Edge0:
      case TriangleFeature::Edge1:
      case TriangleFeature::Edge2:
        if (closer(m.neighbours[t][int(f) - int(TriangleFeature::Edge0)])) return;
        break;
      default: {
        const int v = m.triangles[t][int(f) - int(TriangleFeature::Vertex0)];
        for (int k = m.vertex_start[v]; k < m.vertex_start[v + 1]; ++k)
          if (closer(m.vertex_triangles[k])) return;
      }
    }
    const Vec3 n = (f == TriangleFeature::Face || d <= eps) ? m.normals[t] : Vec3((c - q) / d);
    points.add(q + 0.5 * gap * n, gap, n);
  });
  points.emit(pb, 1e-6 * r, out);
}

void collide_sphere_mesh(const ShapeTable& shapes, int sa, const Pose& pa, int sb, const Pose& pb,
                         double margin, Manifold& out) {
  collide_sphere_trimesh(shapes.sphere(sa).radius, pa, shapes.mesh(sb), pb, margin, out);
}

}  // namespace etdem
