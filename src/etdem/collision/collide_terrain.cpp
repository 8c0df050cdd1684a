// Grains against the terrain (shapes/terrain.hpp): the terrain's signed distance read at the
// grain's points, as a level-set grain meets another (Tan, Wijesuriya & Sitar 2024, section
// 6.3: "we treat grain-topography interaction identically to grain-grain interaction").
// - sphere: its centre (distance minus radius: one exact point);
// - level set: its surface nodes (clusters skipped whole as against a level-set grid);
// - box, polyhedron: its vertices, and the raster nodes under it against the hull's exact
//   distance (a peak or a ridge of the terrain poking into a face, which no grain vertex feels),
//   only where the node supports the terrain towards the grain;
// - compound: through its parts (collide_compound.cpp).
// Normals from the terrain to the grain; every point within the margin is a candidate and at
// most Manifold::kMaxPoints are kept, the deepest first, then the most spread
// (ContactCollector). A grain whose ball does not reach the terrain's box is rejected first.
#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/contact_collector.hpp"
#include "etdem/collision/node_contacts.hpp"

namespace etdem {
namespace {

/// One point (terrain frame q, world p) against the terrain; normal out of the terrain.
void point_against_terrain(const Terrain& tb, const Pose& pb, const Vec3& q, const Vec3& p,
                           double margin, ContactCollector& out) {
  Vec3 g;
  const double phi = tb.value_gradient(q, g);
  if (!(phi < margin)) return;
  const double g_norm = g.norm();
  if (!(g_norm > 0.0)) return;
  const Vec3 n = pb.rotation * (g / g_norm);
  out.add(p - 0.5 * phi * n, phi, n);
}

/// True when raster node (i, j) at `node` is a supporting vertex of the terrain along -m (m:
/// the direction from the grain to the node, terrain frame): none of its neighbours in the
/// triangulation lies nearer the grain. Only then can the grain touch the terrain at the node
/// (a peak, a ridge, a flat patch under a face); elsewhere the terrain's triangles around the
/// node come first, and the node would give a contact across them (a sliding block's leading
/// face against the flat ground in front of it).
bool supporting(const HeightMap& map, int i, int j, const Vec3& node, const Vec3& m) {
  constexpr int kNeighbours[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};
  const double tol = 1e-9 * (map.dx + map.dy);
  for (const auto& d : kNeighbours) {
    const int a = i + d[0], b = j + d[1];
    if (a < 0 || b < 0 || a >= map.nx || b >= map.ny) continue;
    const Vec3 w(map.x0 + a * map.dx, map.y0 + b * map.dy, map.at(a, b));
    if ((w - node).dot(m) < -tol) return false;
  }
  return true;
}

/// True when raster node (i, j) lies inside a planar patch: its six incident triangles share
/// one plane. A convex grain then meets that patch at one of its own vertices first (or along a
/// face whose corners are over the patch), so the node adds nothing the grain's vertices miss.
bool inside_plane(const HeightMap& map, int i, int j) {
  if (i < 1 || j < 1 || i + 1 >= map.nx || j + 1 >= map.ny) return false;
  const double z = map.at(i, j), tol = 1e-9 * (map.dx + map.dy);
  const double sx = map.at(i + 1, j) - z, sy = map.at(i, j + 1) - z;
  return std::abs(z - map.at(i - 1, j) - sx) <= tol && std::abs(z - map.at(i, j - 1) - sy) <= tol &&
         std::abs(map.at(i + 1, j + 1) - z - sx - sy) <= tol &&
         std::abs(z - map.at(i - 1, j - 1) - sx - sy) <= tol;
}

/// The grain's centre in the terrain frame; false when its ball (radius r plus the margin)
/// cannot reach the terrain.
bool reaches(const Terrain& tb, const Pose& pa, const Pose& pb, double r, double margin,
             Vec3& centre) {
  centre = pb.rotation.transpose() * (pa.position - pb.position);
  return tb.may_touch(centre, r + std::max(margin, 0.0));
}

/// reaches() for a grain whose points go through `collector`: clears it and the manifold.
bool start(const Terrain& tb, const Pose& pa, const Pose& pb, double r, double margin,
           Manifold& out, ContactCollector& collector, Vec3& centre) {
  out.clear();
  collector.clear();
  return reaches(tb, pa, pb, r, margin, centre);
}

}  // namespace

void collide_sphere_terrain(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                            const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const Terrain& tb = shapes.terrain(sb);
  const double r = shapes.sphere(sa).radius;
  Vec3 c;
  if (!reaches(tb, pa, pb, r, margin, c)) return;
  Vec3 g;
  const double gap = tb.value_gradient(c, g) - r;
  if (!(gap < margin) || !(g.norm() > 0.0)) return;
  out.normal = pb.rotation * g.normalized();
  out.add(pa.position - (r + 0.5 * gap) * out.normal, gap);
}

void collide_level_set_terrain(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                               const Pose& pb, double margin, Manifold& out) {
  const Terrain& tb = shapes.terrain(sb);
  thread_local ContactCollector collector;
  Vec3 c;
  if (!start(tb, pa, pb, shapes.level_set(sa).bounding_radius, margin, out, collector, c)) return;
  nodes_against_field(shapes.level_set(sa), pa, pb, std::numeric_limits<double>::infinity(), margin,
                      kDistanceSlope, false, tb, collector);
  collector.emit(out, false, false, contact_point_limit(shapes.level_set(sa)));
}

void collide_convex_terrain(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                            const Pose& pb, double margin, Manifold& out) {
  const Terrain& tb = shapes.terrain(sb);
  const ConvexPolyhedron& ha = shapes.hull(sa);
  thread_local ContactCollector collector;
  Vec3 c;
  if (!start(tb, pa, pb, ha.bounding_radius, margin, out, collector, c)) return;
  // The grain's vertices in the terrain's distance.
  const Mat3 to_terrain = pb.rotation.transpose() * pa.rotation;
  for (const Vec3& v : ha.vertices)
    point_against_terrain(tb, pb, to_terrain * v + c, pa.position + pa.rotation * v, margin,
                          collector);
  // The raster nodes within the grain's ball in the hull's exact distance (normal out of the
  // hull, flipped: from the terrain to the grain).
  const HeightMap& map = tb.map;
  const double reach = ha.bounding_radius + std::max(margin, 0.0);
  const int i0 = std::max(0, static_cast<int>(std::ceil((c.x() - reach - map.x0) / map.dx)));
  const int i1 =
      std::min(map.nx - 1, static_cast<int>(std::floor((c.x() + reach - map.x0) / map.dx)));
  const int j0 = std::max(0, static_cast<int>(std::ceil((c.y() - reach - map.y0) / map.dy)));
  const int j1 =
      std::min(map.ny - 1, static_cast<int>(std::floor((c.y() + reach - map.y0) / map.dy)));
  const Mat3 to_grain = to_terrain.transpose();
  // The hull's box in its own frame, widened by the margin: a cheap reject per node.
  Vec3 box_lo = Vec3::Constant(std::numeric_limits<double>::infinity()), box_hi = -box_lo;
  for (const Vec3& v : ha.vertices) box_lo = box_lo.cwiseMin(v), box_hi = box_hi.cwiseMax(v);
  box_lo.array() -= std::max(margin, 0.0);
  box_hi.array() += std::max(margin, 0.0);
  for (int j = j0; j <= j1; ++j)
    for (int i = i0; i <= i1; ++i) {
      const Vec3 node(map.x0 + i * map.dx, map.y0 + j * map.dy, map.at(i, j));
      const Vec3 q = to_grain * (node - c);  // grain frame
      if (q.squaredNorm() > reach * reach || (q.array() < box_lo.array()).any() ||
          (q.array() > box_hi.array()).any() || inside_plane(map, i, j))
        continue;
      Vec3 g;
      const double phi = convex_distance(ha, q, g);
      if (!(phi < margin)) continue;
      const Vec3 n = pa.rotation * g;  // out of the grain
      if (!supporting(map, i, j, node, pb.rotation.transpose() * n)) continue;
      const Vec3 p = pb.position + pb.rotation * node;
      collector.add(p - 0.5 * phi * n, phi, -n);
    }
  collector.emit(out);
}

}  // namespace etdem
