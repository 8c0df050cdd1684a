// Level-set grains (Kawamoto et al. 2016; the impulse-based LS-DEM of Tan, Wijesuriya & Sitar
// 2024, section 3.1): a grain of any shape is a signed-distance grid and a set of nodes on its
// surface. Contacts are node-to-surface: the nodes of one body are looked up in the other's grid,
// whose value is the gap and whose gradient the normal.
//
// The grid is dense (one float per node, x fastest) and shared by every grain of the shape. Its
// values are the signed distance to the surface, negative inside, sampled at the nodes
// origin + h (i, j, k); between nodes it is interpolated trilinearly. The gradient is the
// trilinear interpolation of central differences stored at the nodes (the interpolant's own
// gradient jumps at every cell face and is one-sided on the nodes, which would tilt the normal
// of a contact on a symmetry plane by a difference quotient). The grid keeps the frame it was built
// in ("grid frame": the input surface's frame, or the generator's); the body frame (centre of mass
// at the origin, principal axes along x, y, z) maps into it by p_grid = rotation * p_body + offset,
// so nothing is resampled when the shape is re-centred.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

/// A dense signed-distance grid with trilinear interpolation.
struct LevelSetGrid {
  Vec3 origin{0, 0, 0};           // m, position of node (0, 0, 0)
  double spacing = 0.0;           // m, h
  std::array<int, 3> n{0, 0, 0};  // nodes along x, y, z (each >= 2)
  std::vector<float> phi;         // m, n[0] n[1] n[2] values, x fastest
  /// Per node, what a query reads: the value and its central differences (one-sided on the
  /// box), packed so that a cell's eight corners lie in four or five cache lines instead of
  /// eight (a value array and a gradient array); filled from `phi` by compute_gradients().
  std::vector<std::array<float, 4>> cells;
  /// A bound of |grad value| wherever value() can reach a margin >= 0 (cells with a corner >= 0,
  /// and outside the box), set by compute_gradients(): the cluster cull's Lipschitz constant.
  /// A grid of exact distances has difference quotients of at most 1 per axis (sqrt(3) in all),
  /// but an interpolated or generated grid can exceed that, so each grid measures its own.
  double slope = 1.7320508075688772;

  std::size_t at(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * n[1] + j) * n[0] + i;
  }
  Vec3 node(int i, int j, int k) const { return origin + spacing * Vec3(i, j, k); }
  Vec3 upper() const { return origin + spacing * Vec3(n[0] - 1, n[1] - 1, n[2] - 1); }

  /// Signed distance at p (grid frame). Outside the grid: the value at the nearest point of the
  /// grid's box plus the distance to it (an upper bound of the distance, which is all a point
  /// that far from the surface needs).
  double value(const Vec3& p) const;
  /// Signed distance at p and its gradient (interpolated; outside the grid the direction from
  /// the box to p, added to the box value's gradient and normalised).
  double value_gradient(const Vec3& p, Vec3& gradient) const;
  /// value(p) in `value`; when it is below `limit`, also the gradient (as value_gradient) and
  /// true. A contact test asks for the gradient only where there is a contact.
  bool value_below(const Vec3& p, double limit, double& value, Vec3& gradient) const;
  /// Fills `cells` from `phi` and measures `slope` (call after the values are set).
  void compute_gradients();
};

/// The trilinear lookup, inline: it is the inner loop of every level-set contact (a contact test
/// reads it once per node near the other body).
namespace level_set_lookup {

/// The eight corners of the cell holding grid coordinates u (inside the box) and their
/// trilinear weights.
struct Corners {
  std::size_t idx[8];
  double w[8];
};

inline Corners corners(const LevelSetGrid& g, const Vec3& u) {
  int i[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    // u lies in the box (u >= 0), where truncation is the floor (std::floor costs a dozen
    // instructions without SSE4.1); a NaN lands on cell 0 either way.
    int ia = u[a] >= 0.0 ? static_cast<int>(u[a]) : 0;
    ia = std::clamp(ia, 0, g.n[a] - 2);
    i[a] = ia;
    f[a] = u[a] - ia;
  }
  const std::size_t sy = static_cast<std::size_t>(g.n[0]),
                    sz = static_cast<std::size_t>(g.n[0]) * g.n[1];
  const std::size_t b = g.at(i[0], i[1], i[2]);
  const double fx = f[0], fy = f[1], fz = f[2];
  const double gx = 1.0 - fx, gy = 1.0 - fy, gz = 1.0 - fz;
  return {{b, b + 1, b + sy, b + 1 + sy, b + sz, b + 1 + sz, b + sy + sz, b + 1 + sy + sz},
          {gx * gy * gz, fx * gy * gz, gx * fy * gz, fx * fy * gz, gx * gy * fz, fx * gy * fz,
           gx * fy * fz, fx * fy * fz}};
}

inline double corner_value(const LevelSetGrid& g, const Corners& c) {
  double v = 0.0;
  for (int k = 0; k < 8; ++k) v += c.w[k] * g.cells[c.idx[k]][0];
  return v;
}

inline Vec3 corner_gradient(const LevelSetGrid& g, const Corners& c) {
  Vec3 d = Vec3::Zero();
  for (int k = 0; k < 8; ++k) {
    const auto& gc = g.cells[c.idx[k]];
    d += c.w[k] * Vec3(gc[1], gc[2], gc[3]);
  }
  return d;
}

/// Grid coordinates of p, and the nearest point of the grid's box to them.
struct BoxPoint {
  Vec3 u, c;
};

inline BoxPoint box_point(const LevelSetGrid& g, const Vec3& p) {
  const Vec3 u = (p - g.origin) / g.spacing;
  const Vec3 hi(g.n[0] - 1, g.n[1] - 1, g.n[2] - 1);
  return {u, u.cwiseMax(Vec3::Zero()).cwiseMin(hi)};
}

}  // namespace level_set_lookup

inline double LevelSetGrid::value(const Vec3& p) const {
  using namespace level_set_lookup;
  const BoxPoint b = box_point(*this, p);
  const double inside = corner_value(*this, corners(*this, b.c));
  if (b.c == b.u) return inside;
  return inside + spacing * (b.u - b.c).norm();
}

inline bool LevelSetGrid::value_below(const Vec3& p, double limit, double& value,
                                      Vec3& gradient) const {
  using namespace level_set_lookup;
  const BoxPoint b = box_point(*this, p);
  const Corners c = corners(*this, b.c);
  const double inside = corner_value(*this, c);
  if (b.c == b.u) {
    value = inside;
    if (!(value < limit)) return false;
    gradient = corner_gradient(*this, c);
    return true;
  }
  const Vec3 out = b.u - b.c;
  const double d = out.norm();
  value = inside + spacing * d;
  if (!(value < limit)) return false;
  gradient = (corner_gradient(*this, c) + out / d).normalized();
  return true;
}

/// A triangle surface in the body frame (the zero contour, for drawing).
struct SurfaceMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

/// A group of neighbouring surface nodes and a sphere holding them: a contact test looks up the
/// other body's distance at the centre first and skips the whole group when it is farther than
/// the radius (times the distance's Lipschitz bound) plus the margin.
struct NodeCluster {
  Vec3 centre{0, 0, 0};      // m, body frame
  double radius = 0.0;       // m
  int first = 0, count = 0;  // nodes[first .. first + count)
};

/// Largest slope of a trilinearly interpolated signed distance: each axis' difference quotient
/// is at most 1, so the gradient's norm at most sqrt(3); a cluster is skipped only when its
/// centre's distance exceeds this times its radius plus the margin.
inline constexpr double kDistanceSlope = 1.7320508075688772;

/// A level-set shape in its body frame.
struct LevelSet {
  LevelSetGrid grid;
  Mat3 grid_rotation = Mat3::Identity();  // p_grid = grid_rotation * p_body + grid_offset
  Vec3 grid_offset{0, 0, 0};
  std::vector<Vec3> nodes;            // m, surface nodes, body frame, ordered cluster by cluster
  std::vector<NodeCluster> clusters;  // at most kClusterNodes nodes each
  /// Groups of kClustersPerGroup consecutive clusters (first, count index `clusters`; the sphere
  /// holds all their nodes), tested before their clusters.
  std::vector<NodeCluster> groups;
  SurfaceMesh surface;           // m, zero contour, body frame
  double volume = 0.0;           // m^3 (smoothed Heaviside over the grid)
  Vec3 unit_inertia{0, 0, 0};    // m^5, principal moments per unit density
  double bounding_radius = 0.0;  // m, largest |node| (every node and the contour inside it)
  double min_thickness = 0.0;    // m, smallest extent along the principal axes
  double node_spacing = 0.0;     // m, mean distance between neighbouring nodes
  /// Most points a contact of this grain keeps (ContactCollector::emit's reduced rule); 0: as
  /// many as a manifold holds (collision/contact.hpp, 16). A pair of two grains keeps the smaller.
  int contact_points = 0;
  Quat input_rotation{1, 0, 0, 0};  // from the body frame to the grid (input) frame
  Vec3 input_centre{0, 0, 0};       // centre of mass in the grid (input) frame

  /// Signed distance at a body-frame point.
  double value(const Vec3& p_body) const {
    return grid.value(grid_rotation * p_body + grid_offset);
  }
  /// Signed distance and its gradient (body frame; not normalised).
  double value_gradient(const Vec3& p_body, Vec3& gradient) const {
    Vec3 g;
    const double v = grid.value_gradient(grid_rotation * p_body + grid_offset, g);
    gradient = grid_rotation.transpose() * g;
    return v;
  }
  /// Bytes held by the shape (grid, nodes, surface).
  std::size_t memory_bytes() const;
};

/// Nodes per cluster, clusters per group (at most).
inline constexpr int kClusterNodes = 32;
inline constexpr int kClustersPerGroup = 8;

/// Volume and second moments of the solid {phi < 0} by the smoothed Heaviside
/// H(-phi) = 1/2 (1 - phi/eps - sin(pi phi/eps)/pi) for |phi| <= eps (Kawamoto et al. 2016,
/// Eq. 3; eps = the grid spacing) summed over the grid cells (grid frame).
struct GridMoments {
  double volume = 0.0;          // m^3
  Vec3 centre{0, 0, 0};         // m, centre of volume
  Mat3 inertia = Mat3::Zero();  // m^5, per unit density, about the centre
};
GridMoments grid_moments(const LevelSetGrid& g);

/// Completes a shape from its grid (grid frame) and its zero contour (grid frame): mass
/// properties, the body frame, `node_count` surface nodes spread evenly over the contour
/// (farthest-point sampling of area-weighted samples, then moved onto the zero level by Newton
/// steps), the bounding radius and the thinnest extent. Throws std::invalid_argument with a
/// one-line reason when the grid holds no solid or the contour is empty.
LevelSet finish_level_set(LevelSetGrid grid, const SurfaceMesh& contour, int node_count);

}  // namespace etdem
