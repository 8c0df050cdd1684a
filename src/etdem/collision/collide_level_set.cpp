// Level-set grains against every shape: node-to-surface contacts (Kawamoto et al. 2016; Tan,
// Wijesuriya & Sitar 2024, section 3.1). The surface nodes of one body are placed in the other
// body's frame and its signed distance is read there: the value is the gap, its gradient the
// normal, and the contact point lies halfway between the node and the surface it faces.
//
// Which body gives the nodes ("slave") and which the distance ("master"):
// - level set / level set: the nodes of the smaller grain (by bounding radius) against the larger's
//   grid; when the two are within kBothWays in size, both ways, so that neither grain's corners
//   slip between the other's nodes;
// - level set / sphere: the sphere's centre against the grain's grid (distance minus radius),
//   unless the sphere is the larger, then the grain's nodes against the sphere;
// - level set / plane, box, polyhedron, triangle mesh: the grain's nodes against the exact
//   distance of the other shape; a box's or polyhedron's vertices also go against the grain's
//   grid, so that a sharp corner between nodes is felt.
// Every node closer than the margin is a candidate; at most Manifold::kMaxPoints are kept, the
// deepest first and then the most spread (ContactCollector), or fewer when the grain's shape
// asks (LevelSet::contact_points, the smaller of a pair's two).
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/contact_collector.hpp"
#include "etdem/collision/mesh_contacts.hpp"
#include "etdem/collision/node_contacts.hpp"

namespace etdem {
namespace {

/// Size ratio above which two level-set grains test each other's nodes both ways.
constexpr double kBothWays = 0.8;

/// One point q (level set lb's frame; world point p) against lb: a candidate when closer than
/// the margin, normal out of the level set, flipped unless the point is body A's.
void point_against_level_set(const Vec3& q, const Vec3& p, const LevelSet& lb, const Pose& pb,
                             double margin, bool points_are_a, ContactCollector& out) {
  Vec3 g;
  const double phi = lb.value_gradient(q, g);
  if (!(phi < margin)) return;
  const double g_norm = g.norm();
  if (!(g_norm > 0.0)) return;
  const Vec3 n = pb.rotation * (g / g_norm);  // out of the level set
  out.add(p - 0.5 * phi * n, phi, points_are_a ? n : Vec3(-n));
}

/// Points (body frame of their owner, pose pp: a polyhedron's vertices) against the level set
/// `lb` (pose pb): normal from the level set to the points' body when `points_are_a`, else the
/// other way.
void points_against_level_set(std::span<const Vec3> points, const Pose& pp, const LevelSet& lb,
                              const Pose& pb, double margin, bool points_are_a,
                              ContactCollector& out) {
  const Mat3 m = pb.rotation.transpose() * pp.rotation;
  const Vec3 t = pb.rotation.transpose() * (pp.position - pb.position);
  const double reach = lb.bounding_radius + std::max(margin, 0.0);
  for (const Vec3& x : points) {
    const Vec3 q = m * x + t;
    if (q.squaredNorm() > reach * reach) continue;
    point_against_level_set(q, pp.position + pp.rotation * x, lb, pb, margin, points_are_a, out);
  }
}

bool spheres_apart(const ShapeTable& shapes, int sa, const Pose& pa, int sb, const Pose& pb,
                   double margin) {
  const double r = shapes.bounding_radius[sa] + shapes.bounding_radius[sb] + std::max(margin, 0.0);
  return (pa.position - pb.position).squaredNorm() > r * r;
}

}  // namespace

double convex_distance(const ConvexPolyhedron& h, const Vec3& q, Vec3& gradient) {
  double best = -std::numeric_limits<double>::infinity();
  int face = 0;
  for (int f = 0; f < static_cast<int>(h.faces.size()); ++f) {
    const double d = h.faces[f].normal.dot(q) - h.faces[f].offset;
    if (d > best) {
      best = d;
      face = f;
    }
  }
  if (best <= 0.0) {
    gradient = h.faces[face].normal;
    return best;
  }
  // Outside: the closest point lies on a face the point is in front of.
  double d2_best = std::numeric_limits<double>::infinity();
  Vec3 closest = q;
  for (int f = 0; f < static_cast<int>(h.faces.size()); ++f) {
    const auto& fc = h.faces[f];
    if (fc.normal.dot(q) - fc.offset <= 0.0) continue;
    const auto idx = h.face(f);
    const int nv = static_cast<int>(idx.size());
    // Inside the face polygon (convex, counter-clockwise about the outward normal)?
    const Vec3 on_plane = q - (fc.normal.dot(q) - fc.offset) * fc.normal;
    bool inside = true;
    for (int k = 0; k < nv && inside; ++k) {
      const Vec3& a = h.vertices[idx[k]];
      const Vec3& b = h.vertices[idx[(k + 1) % nv]];
      if ((b - a).cross(on_plane - a).dot(fc.normal) < 0.0) inside = false;
    }
    if (inside) {
      const double d2 = (q - on_plane).squaredNorm();
      if (d2 < d2_best) {
        d2_best = d2;
        closest = on_plane;
      }
      continue;
    }
    for (int k = 0; k < nv; ++k) {
      const Vec3& a = h.vertices[idx[k]];
      const Vec3& b = h.vertices[idx[(k + 1) % nv]];
      const Vec3 ab = b - a;
      const double s = std::clamp((q - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0);
      const Vec3 c = a + s * ab;
      const double d2 = (q - c).squaredNorm();
      if (d2 < d2_best) {
        d2_best = d2;
        closest = c;
      }
    }
  }
  const double d = std::sqrt(d2_best);
  gradient = d > 0.0 ? Vec3((q - closest) / d) : h.faces[face].normal;
  return d;
}

void collide_level_set_plane(const ShapeTable& shapes, int sa, const Pose& pa, int /*sb*/,
                             const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const LevelSet& la = shapes.level_set(sa);
  const Vec3 n = pb.rotation.col(2);
  if ((pa.position - pb.position).dot(n) - la.bounding_radius >= margin) return;
  thread_local ContactCollector c;
  c.clear();
  // In the plane's frame a node's height is its gap.
  const Mat3 m = pb.rotation.transpose() * pa.rotation;
  const Vec3 t = pb.rotation.transpose() * (pa.position - pb.position);
  near_nodes(
      la, m, t, std::numeric_limits<double>::infinity(), margin, 1.0,
      [](const Vec3& q) { return q.z(); },
      [&](const Vec3& x, const Vec3& q) {
        if (!(q.z() < margin)) return;
        c.add(pa.position + pa.rotation * x - 0.5 * q.z() * n, q.z());
      });
  out.normal = n;
  c.emit(out, false, false, contact_point_limit(la));
}

void collide_sphere_level_set(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                              const Pose& pb, double margin, Manifold& out) {
  out.clear();
  if (spheres_apart(shapes, sa, pa, sb, pb, margin)) return;
  const double r = shapes.sphere(sa).radius;
  const LevelSet& lb = shapes.level_set(sb);
  if (r <= lb.bounding_radius) {
    const Vec3 c = pb.rotation.transpose() * (pa.position - pb.position);
    Vec3 g;
    const double gap = lb.value_gradient(c, g) - r;
    if (!(gap < margin) || !(g.norm() > 0.0)) return;
    out.normal = pb.rotation * g.normalized();
    out.add(pa.position - (r + 0.5 * gap) * out.normal, gap);
    return;
  }
  // The larger sphere: the grain's nodes against it (normal out of the sphere, flipped to B->A).
  thread_local ContactCollector c;
  c.clear();
  nodes_against(
      lb, pb, Pose(pa.position, Quat::Identity()), r + std::max(margin, 0.0), margin, 1.0, true,
      [&](const Vec3& q) { return q.norm() - r; },
      [&](const Vec3& q, Vec3& g) {
        const double d = q.norm();
        g = d > 0.0 ? Vec3(q / d) : Vec3::UnitZ();
        return d - r;
      },
      c);
  c.emit(out, false, false, contact_point_limit(lb));
}

void collide_level_set_convex(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                              const Pose& pb, double margin, Manifold& out) {
  out.clear();
  if (spheres_apart(shapes, sa, pa, sb, pb, margin)) return;
  const LevelSet& la = shapes.level_set(sa);
  const ConvexPolyhedron& hb = shapes.hull(sb);
  thread_local ContactCollector c;
  c.clear();
  auto dist = [&](const Vec3& q, Vec3& g) { return convex_distance(hb, q, g); };
  nodes_against(
      la, pa, pb, hb.bounding_radius + std::max(margin, 0.0), margin, 1.0, false,
      [&](const Vec3& q) {
        Vec3 g;
        return dist(q, g);
      },
      dist, c);
  points_against_level_set(hb.vertices, pb, la, pa, margin, false, c);
  c.emit(out, false, false, contact_point_limit(la));
}

namespace {

/// A pair of level-set grains: the nodes of the smaller against the larger's grid, both ways
/// when they are of close size (see the head of this file), through
/// against(nodes, pose, grid, pose, flip, collector, a_in_b); then the manifold.
template <class Against>
void level_set_pair(const ShapeTable& shapes, int sa, const Pose& pa, int sb, const Pose& pb,
                    double margin, Manifold& out, Against&& against) {
  out.clear();
  if (spheres_apart(shapes, sa, pa, sb, pb, margin)) return;
  const LevelSet& la = shapes.level_set(sa);
  const LevelSet& lb = shapes.level_set(sb);
  const double ra = la.bounding_radius, rb = lb.bounding_radius;
  const bool close = std::min(ra, rb) > kBothWays * std::max(ra, rb);
  thread_local ContactCollector c;
  c.clear();
  // A's nodes in B's grid give normals out of B (B -> A); B's nodes in A's grid are flipped.
  if (ra <= rb || close) against(la, pa, lb, pb, false, c, true);
  if (rb <= ra || close) against(lb, pb, la, pa, true, c, false);
  c.emit(out, false, false, std::min(contact_point_limit(la), contact_point_limit(lb)));
}

}  // namespace

void collide_level_set_level_set(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                                 const Pose& pb, double margin, Manifold& out) {
  level_set_pair(shapes, sa, pa, sb, pb, margin, out,
                 [&](const LevelSet& nodes, const Pose& pn, const LevelSet& grid, const Pose& pg,
                     bool flip, ContactCollector& c, bool /*a_in_b*/) {
                   nodes_against_grid(nodes, pn, grid, pg,
                                      grid.bounding_radius + std::max(margin, 0.0), margin, flip,
                                      c);
                 });
}

void collide_level_set_level_set_listed(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                                        const Pose& pb, double margin, double skin,
                                        LevelSetPairLists& lists, NearNodeCounts& counts,
                                        Manifold& out) {
  if (lists.shape_a != sa || lists.shape_b != sb) {
    lists.shape_a = sa;
    lists.shape_b = sb;
    lists.a_in_b.clear();
    lists.b_in_a.clear();
  }
  level_set_pair(shapes, sa, pa, sb, pb, margin, out,
                 [&](const LevelSet& nodes, const Pose& pn, const LevelSet& grid, const Pose& pg,
                     bool flip, ContactCollector& c, bool a_in_b) {
                   nodes_against_grid_listed(
                       nodes, pn, grid, pg, grid.bounding_radius + std::max(margin, 0.0), margin,
                       flip, skin, a_in_b ? lists.a_in_b : lists.b_in_a, counts, c);
                 });
}

void collide_level_set_mesh(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                            const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const LevelSet& la = shapes.level_set(sa);
  const TriangleMesh& m = shapes.mesh(sb);
  const Vec3 centre = pb.rotation.transpose() * (pa.position - pb.position);
  const Vec3 ext = Vec3::Constant(la.bounding_radius + std::max(margin, 0.0));
  thread_local std::vector<int> near;
  near.clear();
  m.query(centre - ext, centre + ext, [&](int t) { near.push_back(t); });
  if (near.empty()) return;
  thread_local MeshContacts points;
  points.clear();
  const Mat3 rot = pb.rotation.transpose() * pa.rotation;
  for (const Vec3& x : la.nodes) {
    const Vec3 q = rot * x + centre;
    // The nearest triangle by the one-sided distance of the sphere-mesh pair.
    double best = std::numeric_limits<double>::infinity();
    Vec3 normal = Vec3::UnitZ();
    for (int t : near) {
      TriangleFeature f;
      Vec3 cp;
      const double d = triangle_distance(m, t, q, cp, f);
      if (d < best) {
        best = d;
        normal = (f == TriangleFeature::Face || d <= 1e-12) ? m.normals[t] : Vec3((q - cp) / d);
      }
    }
    if (!(best < margin)) continue;
    points.add(q - 0.5 * best * normal, best, normal);
  }
  points.emit(pb, 1e-6 * la.bounding_radius, out, contact_point_limit(la));
}

}  // namespace etdem
