// Convex polyhedron (or box, through its hull) against a static triangle mesh, in the mesh's
// frame. For every triangle near the body whose plane has the body's centre of mass on its free
// side (one-sided: a body behind a triangle does not touch it):
//  - vertex-face: each vertex of the body closer to the triangle's plane than the margin, and no
//    deeper behind it than the centre is in front, whose projection falls inside the triangle
//    (its prism), is a point with the triangle normal (a face resting on a tessellated floor
//    gives its corners, whatever triangles they fall on);
//  - edge-edge: each ridge of the mesh (an edge whose two triangles bend away from the free side)
//    against each edge of the body whose Gauss-map arcs cross (the test of
//    collide_polyhedron_polyhedron.cpp): the closest points of the two edges, when both are
//    interior to their segments and the pair is closer than the margin, give a point on the
//    axis e_body x e_mesh.
// Duplicates (a vertex over the shared edge of two coplanar triangles) are merged and the points
// reduced to Manifold::kMaxPoints (mesh_contacts.hpp). Not handled: a sharp mesh vertex poking
// into a face of the body with none of its ridges crossing an edge of the body.
#include <algorithm>
#include <cmath>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"
#include "etdem/collision/mesh_contacts.hpp"

namespace etdem {
namespace {

constexpr double kParallelSine = 1e-5;

/// Gregorius 2013 (see collide_polyhedron_polyhedron.cpp): does the arc a-b of an edge of A cross
/// the arc of the edge of B with face normals c, d (negated: the Minkowski difference)?
bool minkowski_face(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 bxa = b.cross(a), dxc = d.cross(c);
  const double cb = c.dot(bxa), db = d.dot(bxa);
  if (cb * db >= 0.0) return false;
  const double adc = a.dot(dxc), bdc = b.dot(dxc);
  return adc * bdc < 0.0 && cb * bdc < 0.0;
}

struct Scratch {
  std::vector<Vec3> x;        // body vertices, mesh frame
  std::vector<Vec3> normals;  // body face normals, mesh frame
  MeshContacts points;
};

}  // namespace

void collide_hull_trimesh(const ConvexPolyhedron& h, const Pose& pa, const TriangleMesh& m,
                          const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const Mat3 rt = pb.rotation.transpose();
  const Mat3 r = rt * pa.rotation;  // body frame -> mesh frame
  const Vec3 centre = rt * (pa.position - pb.position);
  thread_local Scratch s;
  s.x.resize(h.vertex_count());
  for (int v = 0; v < h.vertex_count(); ++v) s.x[v] = r * h.vertices[v] + centre;
  s.normals.resize(h.face_count());
  for (int f = 0; f < h.face_count(); ++f) s.normals[f] = r * h.faces[f].normal;
  s.points.clear();
  const Vec3 ext = Vec3::Constant(h.bounding_radius + std::max(margin, 0.0));
  const double tol = 1e-9 * h.bounding_radius;

  m.query(centre - ext, centre + ext, [&](int t) {
    const Vec3& n = m.normals[t];
    const Vec3& a = m.corner(t, 0);
    const double sc = n.dot(centre - a);
    if (sc < 0.0 || sc - h.bounding_radius >= margin) return;
    const Vec3 e[3] = {m.corner(t, 1) - a, m.corner(t, 2) - m.corner(t, 1), a - m.corner(t, 2)};
    // Vertex-face.
    for (const Vec3& x : s.x) {
      const double g = n.dot(x - a);
      if (g >= margin || g < -sc) continue;
      bool inside = true;
      for (int k = 0; k < 3 && inside; ++k)
        inside = e[k].cross(x - m.corner(t, k)).dot(n) >= -tol * e[k].norm();
      if (inside) s.points.add(x - 0.5 * g * n, g, n);
    }
    // Edge-edge against the ridges of t (each ridge once, from its lower-numbered triangle).
    for (int k = 0; k < 3; ++k) {
      const int u = m.neighbours[t][k];
      if (!m.convex_edge[3 * t + k] || u < t) continue;
      const Vec3& p0 = m.corner(t, k);
      const Vec3& p1 = m.corner(t, (k + 1) % 3);
      const Vec3 db = p1 - p0;
      const Vec3& c = n;
      const Vec3& d = m.normals[u];
      for (const ConvexPolyhedron::Edge& eb : h.edges) {
        const Vec3& fa = s.normals[eb.f0];
        const Vec3& fb = s.normals[eb.f1];
        if (!minkowski_face(fa, fb, c, d)) continue;
        const Vec3& q0 = s.x[eb.v0];
        const Vec3 da = s.x[eb.v1] - q0;
        Vec3 axis = da.cross(db);
        const double len = axis.norm();
        if (len < kParallelSine * da.norm() * db.norm()) continue;
        axis /= len;
        if (axis.dot(c + d) < 0.0) axis = -axis;  // out of the mesh, towards the body
        // Closest points of the two lines; both parameters must be inside the segments.
        const Vec3 w = q0 - p0;
        const double aa = da.dot(da), bb = da.dot(db), ee = db.dot(db);
        const double dd = da.dot(w), ff = db.dot(w);
        const double den = aa * ee - bb * bb;
        if (!(den > 0.0)) continue;
        const double sa = (bb * ff - dd * ee) / den, sb = (aa * ff - bb * dd) / den;
        if (sa <= 0.0 || sa >= 1.0 || sb <= 0.0 || sb >= 1.0) continue;
        const Vec3 xa = q0 + sa * da, xb = p0 + sb * db;
        const double g = axis.dot(xa - xb);
        if (g >= margin || g < -h.inner_radius) continue;
        s.points.add(0.5 * (xa + xb), g, axis);
      }
    }
  });
  s.points.emit(pb, 1e-6 * h.bounding_radius, out);
}

void collide_box_mesh(const ShapeTable& shapes, int sa, const Pose& pa, int sb, const Pose& pb,
                      double margin, Manifold& out) {
  collide_hull_trimesh(shapes.hull(sa), pa, shapes.mesh(sb), pb, margin, out);
}

void collide_polyhedron_mesh(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                             const Pose& pb, double margin, Manifold& out) {
  collide_hull_trimesh(shapes.polyhedron(sa), pa, shapes.mesh(sb), pb, margin, out);
}

}  // namespace etdem
