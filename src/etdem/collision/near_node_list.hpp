// Near-node lists: a cache of one level-set pair's node tests over steps, as a Verlet list keeps
// a body's neighbours. The full test of a grain's nodes against another grain's grid walks the
// node groups and clusters and reads the grid at every node of a cluster it cannot skip; at a
// contact most of those nodes lie well outside the margin. A list remembers, from one full test,
// the nodes that were within `threshold` (the margin plus a skin) of the grid's surface and within
// `reach` of its centre, and the nodes' transform into the grid's frame (q = m x + t) then.
//
// Why the list gives the same contacts: at a later test the nodes' transform is (m', t'), and
// every node x (|x| <= r, the grain's largest |node|) has moved in the grid's frame by at most
//   d = |m' - m|_F r + |t' - t|        (the Frobenius norm bounds the spectral one).
// Where the grid's value is at least max(margin, 0) >= 0 its slope is at most `slope`
// (LevelSetGrid::slope, the bound the cluster cull relies on too), so a node that was not listed
// (value >= threshold) still reads at least threshold - slope d. While
//   threshold - slope d > max(margin, 0)   and   reach + d < the list's reach,
// no node off the list can be within the margin (nor within the reach of the grid's centre), and
// testing the listed nodes alone, in the order the full test visits them, gives the same
// candidates in the same order: the same manifold, bit for bit. Otherwise the list is built again
// by a full test with the wider threshold and reach. Dropping every list changes no result, so a
// checkpoint need not hold them.
#pragma once

#include <limits>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

/// A pair's lists hold the nodes within the margin plus this fraction of the smaller bounding
/// radius, whatever the contact skin: wider lists test more nodes at every step, narrower ones are
/// built again more often, and the results are the same bits either way. Measured on V9
/// (docs/notes/level-sets.md "Near-node lists"): at the contact skin of 0.1, 0.05 against 0.02, the
/// flow 10 % faster, the settled mound the same; at the level-set examples' 0.02, list skins of
/// 0.01 to 0.1 within the machine's scatter.
inline constexpr double kNodeListSkin = 0.05;

/// One grain's nodes against the other grain's grid (see above).
struct NearNodeList {
  Mat3 m = Mat3::Zero();  // the nodes' transform into the grid frame at the build
  Vec3 t = Vec3::Zero();  // [m]
  double threshold = -std::numeric_limits<double>::infinity();  // [m] never valid until built
  double reach = 0.0;      // [m] nodes farther from the grid's centre were not listed
  std::vector<int> nodes;  // listed nodes, in the full test's order

  void clear() {
    threshold = -std::numeric_limits<double>::infinity();
    nodes.clear();
  }
};

/// The lists of a pair of level-set grains (shapes a and b as when built; a pair whose shapes
/// differ builds its lists again).
struct LevelSetPairLists {
  int shape_a = -1, shape_b = -1;
  NearNodeList a_in_b, b_in_a;  // A's nodes in B's grid, B's nodes in A's grid
};

/// How the node tests went (summary.json `narrow_phase`).
struct NearNodeCounts {
  long built = 0;   // full tests that built a list
  long reused = 0;  // tests of the listed nodes alone
  long listed = 0;  // nodes tested from lists
  void add(const NearNodeCounts& o) {
    built += o.built;
    reused += o.reused;
    listed += o.listed;
  }
};

}  // namespace etdem
