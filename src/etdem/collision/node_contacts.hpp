// Node-to-surface contacts shared by level-set grains and the terrain: the surface nodes of one
// body placed in the frame of another body whose signed distance is known there (a level-set
// grid, a terrain band, the exact distance of a convex hull). The value is the gap and the
// gradient the normal; the contact point lies halfway between the node and the surface.
#pragma once

#include <algorithm>

#include "etdem/collision/contact_collector.hpp"
#include "etdem/shapes/level_set.hpp"
#include "etdem/shapes/polyhedron.hpp"

namespace etdem {

/// The most points a manifold of grain `ls` keeps (LevelSet::contact_points; 0: a manifold's
/// Manifold::kMaxPoints). A pair of two level-set grains keeps the smaller of their two.
inline int contact_point_limit(const LevelSet& ls) {
  return ls.contact_points > 0 ? std::min(ls.contact_points, Manifold::kMaxPoints)
                               : Manifold::kMaxPoints;
}

/// Calls visit(x, q) for every node x of `ls` (body frame) that may lie within `margin` of a
/// surface whose signed distance, in a frame where the node is at q = m x + t, is `value(q)`
/// with slope at most `slope`: groups of clusters, then clusters, farther than `reach` from
/// `centre` (that frame's origin unless given), or whose centre is farther from the surface than
/// slope times their radius plus the margin, are skipped whole (one distance lookup for up to
/// 256 or 32 nodes).
template <class Value, class Visit>
void near_nodes(const LevelSet& ls, const Mat3& m, const Vec3& t, double reach, double margin,
                double slope, Value&& value, Visit&& visit, const Vec3& centre = Vec3::Zero()) {
  const double reach2 = reach * reach;
  auto skip = [&](const NodeCluster& c) {
    const Vec3 qc = m * c.centre + t;
    const double far = reach + c.radius;
    return (qc - centre).squaredNorm() > far * far ||
           value(qc) - slope * c.radius >= std::max(margin, 0.0);
  };
  for (const NodeCluster& g : ls.groups) {
    if (skip(g)) continue;
    for (int ci = g.first; ci < g.first + g.count; ++ci) {
      const NodeCluster& c = ls.clusters[ci];
      if (skip(c)) continue;
      for (int k = c.first; k < c.first + c.count; ++k) {
        const Vec3& x = ls.nodes[k];
        const Vec3 q = m * x + t;
        if ((q - centre).squaredNorm() > reach2) continue;
        visit(x, q);
      }
    }
  }
}

/// Nodes of level set `la` (pose pa) against a signed distance of body B (pose pb), given in
/// B's frame by dist(q, gradient) and, without the gradient (for the cluster tests), by value(q)
/// (slope at most `slope`). Normal from B to A = B's gradient,
/// turned to world, flipped when `flip`. Nodes farther from B's origin than `reach` (B's
/// bounding radius plus the margin) are skipped.
template <class Value, class Dist>
void nodes_against(const LevelSet& la, const Pose& pa, const Pose& pb, double reach, double margin,
                   double slope, bool flip, Value&& value, Dist&& dist, ContactCollector& out) {
  const Mat3 m = pb.rotation.transpose() * pa.rotation;
  const Vec3 t = pb.rotation.transpose() * (pa.position - pb.position);
  near_nodes(la, m, t, reach, margin, slope, value, [&](const Vec3& x, const Vec3& q) {
    Vec3 g;
    const double phi = dist(q, g);
    if (!(phi < margin)) return;
    const double g_norm = g.norm();
    if (!(g_norm > 0.0)) return;
    const Vec3 n = pb.rotation * (g / g_norm);  // out of B
    const Vec3 p = pa.position + pa.rotation * x;
    out.add(p - 0.5 * phi * n, phi, flip ? Vec3(-n) : n);
  });
}

/// nodes_against for a field with value(q) and value_below(q, limit, value, g) members (a
/// level-set grid, a terrain): the gradient is blended only for nodes within the margin.
template <class Field>
void nodes_against_field(const LevelSet& la, const Pose& pa, const Pose& pb, double reach,
                         double margin, double slope, bool flip, const Field& field,
                         ContactCollector& out) {
  nodes_against(
      la, pa, pb, reach, margin, slope, flip, [&](const Vec3& q) { return field.value(q); },
      [&](const Vec3& q, Vec3& g) {
        double phi;
        if (!field.value_below(q, margin, phi, g)) g = Vec3::Zero();  // phi >= margin: no use
        return phi;
      },
      out);
}

/// Nodes of level set `la` (pose pa) against level-set grain `lb`'s grid (pose pb), as
/// nodes_against_field but read in the grid's own frame (one transform per node instead of two)
/// and the gradient looked up only for nodes within the margin.
inline void nodes_against_grid(const LevelSet& la, const Pose& pa, const LevelSet& lb,
                               const Pose& pb, double reach, double margin, bool flip,
                               ContactCollector& out) {
  const LevelSetGrid& grid = lb.grid;
  const Mat3 m = lb.grid_rotation * (pb.rotation.transpose() * pa.rotation);
  const Vec3 t =
      lb.grid_rotation * (pb.rotation.transpose() * (pa.position - pb.position)) + lb.grid_offset;
  const Mat3 to_world = pb.rotation * lb.grid_rotation.transpose();
  near_nodes(
      la, m, t, reach, margin, grid.slope, [&](const Vec3& q) { return grid.value(q); },
      [&](const Vec3& x, const Vec3& q) {
        double phi;
        Vec3 g;
        if (!grid.value_below(q, margin, phi, g)) return;
        const double g_norm = g.norm();
        if (!(g_norm > 0.0)) return;
        const Vec3 n = to_world * (g / g_norm);  // out of B
        const Vec3 p = pa.position + pa.rotation * x;
        out.add(p - 0.5 * phi * n, phi, flip ? Vec3(-n) : n);
      },
      lb.grid_offset);
}

/// Signed distance of q to a convex polyhedron (its frame) and the gradient: inside, the
/// nearest face plane; outside, the distance to the closest point of the surface.
double convex_distance(const ConvexPolyhedron& h, const Vec3& q, Vec3& gradient);

}  // namespace etdem
