// Node-to-surface contacts shared by level-set grains and the terrain: the surface nodes of one
// body placed in the frame of another body whose signed distance is known there (a level-set
// grid, a terrain band, the exact distance of a convex hull). The value is the gap and the
// gradient the normal; the contact point lies halfway between the node and the surface.
#pragma once

#include <algorithm>

#include "etdem/collision/contact_collector.hpp"
#include "etdem/collision/near_node_list.hpp"
#include "etdem/shapes/level_set.hpp"
#include "etdem/shapes/polyhedron.hpp"

namespace etdem {

/// The most points a manifold of grain `ls` keeps (LevelSet::contact_points; 0: a manifold's
/// Manifold::kMaxPoints). A pair of two level-set grains keeps the smaller of their two.
inline int contact_point_limit(const LevelSet& ls) {
  return ls.contact_points > 0 ? std::min(ls.contact_points, Manifold::kMaxPoints)
                               : Manifold::kMaxPoints;
}

/// Calls visit(x, q) for every node x of `ls` (body frame; a reference into ls.nodes) that may lie
/// within `margin` of a surface whose signed distance, in a frame where the node is at q = m x + t,
/// is `value(q)` with slope at most `slope`: groups of clusters, then clusters, farther than
/// `reach` from `centre` (that frame's origin unless given), or whose centre is farther from the
/// surface than slope times their radius plus the margin, are skipped whole (one distance lookup
/// for up to 256 or 32 nodes).
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

/// The transform of a level set's nodes into another level-set grain's grid frame
/// (q = m x + t) and from that frame's directions to the world's.
struct GridFrame {
  Mat3 m;
  Vec3 t;
  Mat3 to_world;
};

/// Nodes of `la` (pose pa) in the grid of `lb` (pose pb).
inline GridFrame grid_frame(const Pose& pa, const LevelSet& lb, const Pose& pb) {
  return {
      lb.grid_rotation * (pb.rotation.transpose() * pa.rotation),
      lb.grid_rotation * (pb.rotation.transpose() * (pa.position - pb.position)) + lb.grid_offset,
      pb.rotation * lb.grid_rotation.transpose()};
}

/// A node at q in the grid frame with value phi and gradient g there (phi within the margin): a
/// candidate unless the gradient vanishes.
inline void grid_candidate(const Vec3& x, double phi, const Vec3& g, const GridFrame& f,
                           const Pose& pa, bool flip, ContactCollector& out) {
  const double g_norm = g.norm();
  if (!(g_norm > 0.0)) return;
  const Vec3 n = f.to_world * (g / g_norm);  // out of B
  const Vec3 p = pa.position + pa.rotation * x;
  out.add(p - 0.5 * phi * n, phi, flip ? Vec3(-n) : n);
}

/// Nodes of level set `la` (pose pa) against level-set grain `lb`'s grid (pose pb), as
/// nodes_against_field but read in the grid's own frame (one transform per node instead of two)
/// and the gradient looked up only for nodes within the margin.
inline void nodes_against_grid(const LevelSet& la, const Pose& pa, const LevelSet& lb,
                               const Pose& pb, double reach, double margin, bool flip,
                               ContactCollector& out) {
  const LevelSetGrid& grid = lb.grid;
  const GridFrame f = grid_frame(pa, lb, pb);
  near_nodes(
      la, f.m, f.t, reach, margin, grid.slope, [&](const Vec3& q) { return grid.value(q); },
      [&](const Vec3& x, const Vec3& q) {
        double phi;
        Vec3 g;
        if (!grid.value_below(q, margin, phi, g)) return;
        grid_candidate(x, phi, g, f, pa, flip, out);
      },
      lb.grid_offset);
}

/// nodes_against_grid through a near-node list (collision/near_node_list.hpp): the listed nodes
/// alone while the list holds; otherwise the full test, which lists the nodes within `skin` more
/// than the margin and the reach. Either way the same candidates, in the same order, as
/// nodes_against_grid.
inline void nodes_against_grid_listed(const LevelSet& la, const Pose& pa, const LevelSet& lb,
                                      const Pose& pb, double reach, double margin, bool flip,
                                      double skin, NearNodeList& list, NearNodeCounts& counts,
                                      ContactCollector& out) {
  const LevelSetGrid& grid = lb.grid;
  const GridFrame f = grid_frame(pa, lb, pb);
  const Vec3& centre = lb.grid_offset;
  const double reach2 = reach * reach;
  const double least = std::max(margin, 0.0);
  // How far any node may have moved in the grid frame since the build, rounded up.
  const double moved =
      ((f.m - list.m).norm() * la.bounding_radius + (f.t - list.t).norm()) * (1.0 + 1e-9) +
      1e-12 * la.bounding_radius;
  if (list.threshold - grid.slope * moved > least && reach + moved < list.reach) {
    ++counts.reused;
    counts.listed += static_cast<long>(list.nodes.size());
    for (const int k : list.nodes) {
      const Vec3& x = la.nodes[k];
      const Vec3 q = f.m * x + f.t;
      if ((q - centre).squaredNorm() > reach2) continue;
      double phi;
      Vec3 g;
      if (!grid.value_below(q, margin, phi, g)) continue;
      grid_candidate(x, phi, g, f, pa, flip, out);
    }
    return;
  }
  ++counts.built;
  list.m = f.m;
  list.t = f.t;
  list.threshold = least + skin;
  list.reach = reach + skin;
  list.nodes.clear();
  near_nodes(
      la, f.m, f.t, list.reach, list.threshold, grid.slope,
      [&](const Vec3& q) { return grid.value(q); },
      [&](const Vec3& x, const Vec3& q) {
        double phi;
        Vec3 g;
        if (!grid.value_below(q, list.threshold, phi, g)) return;
        list.nodes.push_back(static_cast<int>(&x - la.nodes.data()));  // x is la.nodes[k]
        if (!(phi < margin) || (q - centre).squaredNorm() > reach2) return;
        grid_candidate(x, phi, g, f, pa, flip, out);
      },
      centre);
}

/// Signed distance of q to a convex polyhedron (its frame) and the gradient: inside, the
/// nearest face plane; outside, the distance to the closest point of the surface.
double convex_distance(const ConvexPolyhedron& h, const Vec3& q, Vec3& gradient);

}  // namespace etdem
