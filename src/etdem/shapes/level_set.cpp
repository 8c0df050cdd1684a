#include "etdem/shapes/level_set.hpp"

#include "etdem/core/splitmix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <Eigen/Eigenvalues>

namespace etdem {

double LevelSetGrid::value_gradient(const Vec3& p, Vec3& gradient) const {
  double v;
  if (!value_below(p, std::numeric_limits<double>::infinity(), v, gradient))
    gradient = Vec3::Zero();  // a non-finite value
  return v;
}

namespace {

/// The Lipschitz constant of value() over the region a cluster cull relies on. In a cell, the
/// trilinear interpolant's derivative along an axis is a weighted mean of the differences along
/// that axis' four edges, so |grad| <= sqrt(mx^2 + my^2 + mz^2) with m the largest edge quotient
/// per axis. A skipped cluster's centre has value >= margin >= 0; on the way to any of its nodes
/// with value below the margin, the path stays where value >= margin until it first reaches it,
/// so only cells with a corner >= 0 count (deep inside, a generated grid may be steeper).
/// Outside the box value is the box value at the nearest box point P(p) plus |p - P(p)|; per
/// axis the clamp and the remainder split a move exactly, so there the constant is
/// sqrt(L_face^2 + 1), L_face over the cells on the box's faces.
double measured_slope(const LevelSetGrid& g) {
  const std::size_t stride[3] = {1, static_cast<std::size_t>(g.n[0]),
                                 static_cast<std::size_t>(g.n[0]) * g.n[1]};
  double inner = 0.0, face = 0.0;
  for (int k = 0; k + 1 < g.n[2]; ++k)
    for (int j = 0; j + 1 < g.n[1]; ++j)
      for (int i = 0; i + 1 < g.n[0]; ++i) {
        const std::size_t b = g.at(i, j, k);
        float hi = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < 8; ++c)
          hi = std::max(hi, g.phi[b + (c & 1 ? stride[0] : 0) + (c & 2 ? stride[1] : 0) +
                                  (c & 4 ? stride[2] : 0)]);
        const bool on_face =
            i == 0 || j == 0 || k == 0 || i + 2 == g.n[0] || j + 2 == g.n[1] || k + 2 == g.n[2];
        if (!(hi >= 0.0f) && !on_face) continue;
        double sum = 0.0;
        for (int a = 0; a < 3; ++a) {
          double m = 0.0;
          for (int c = 0; c < 8; ++c) {
            if (c & (1 << a)) continue;  // the corners with bit a clear start the edges along a
            const std::size_t p =
                b + (c & 1 ? stride[0] : 0) + (c & 2 ? stride[1] : 0) + (c & 4 ? stride[2] : 0);
            m = std::max(m, std::abs(static_cast<double>(g.phi[p + stride[a]]) - g.phi[p]));
          }
          sum += (m / g.spacing) * (m / g.spacing);
        }
        const double l = std::sqrt(sum);
        if (hi >= 0.0f) inner = std::max(inner, l);
        if (on_face) face = std::max(face, l);
      }
  return std::max(inner, std::sqrt(face * face + 1.0));
}

}  // namespace

void LevelSetGrid::compute_gradients() {
  cells.assign(phi.size(), {0.0f, 0.0f, 0.0f, 0.0f});
  const std::size_t stride[3] = {1, static_cast<std::size_t>(n[0]),
                                 static_cast<std::size_t>(n[0]) * n[1]};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const int ijk[3] = {i, j, k};
        const std::size_t c = at(i, j, k);
        cells[c][0] = phi[c];
        for (int a = 0; a < 3; ++a) {
          const bool lo = ijk[a] > 0, hi = ijk[a] < n[a] - 1;
          const double up = hi ? phi[c + stride[a]] : phi[c];
          const double down = lo ? phi[c - stride[a]] : phi[c];
          cells[c][a + 1] = static_cast<float>((up - down) / ((lo && hi ? 2.0 : 1.0) * spacing));
        }
      }
  slope = measured_slope(*this);
}

std::size_t LevelSet::memory_bytes() const {
  return sizeof(LevelSet) + grid.phi.capacity() * sizeof(float) +
         grid.cells.capacity() * sizeof(std::array<float, 4>) + nodes.capacity() * sizeof(Vec3) +
         surface.vertices.capacity() * sizeof(Vec3) +
         surface.triangles.capacity() * sizeof(std::array<int, 3>);
}

GridMoments grid_moments(const LevelSetGrid& g) {
  const double eps = g.spacing;
  const double cell = g.spacing * g.spacing * g.spacing;
  double v = 0.0;
  Vec3 s = Vec3::Zero();
  Mat3 q = Mat3::Zero();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i) {
        const double phi = g.phi[g.at(i, j, k)];
        double w;
        if (phi <= -eps)
          w = 1.0;
        else if (phi >= eps)
          continue;
        else
          w = 0.5 * (1.0 - phi / eps - std::sin(M_PI * phi / eps) / M_PI);
        w *= cell;
        const Vec3 x = g.node(i, j, k);
        v += w;
        s += w * x;
        q += w * (x * x.transpose());
      }
  GridMoments m;
  m.volume = v;
  if (v <= 0.0) return m;
  m.centre = s / v;
  const Mat3 cov = q - v * (m.centre * m.centre.transpose());
  m.inertia = cov.trace() * Mat3::Identity() - cov;
  return m;
}

namespace {

/// Principal axes as the columns of a proper rotation; an isotropic (or nearly) tensor keeps
/// the grid's axes, so a sphere's body frame is its input frame.
Mat3 principal_axes(const Mat3& inertia, Vec3& moments) {
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  moments = es.eigenvalues();
  const double spread = moments.maxCoeff() - moments.minCoeff();
  if (spread <= 1e-6 * moments.maxCoeff()) {
    moments = Vec3::Constant(inertia.trace() / 3.0);
    return Mat3::Identity();
  }
  Mat3 e = es.eigenvectors();
  // Each axis points towards the grid's positive octant (deterministic sign), right-handed.
  for (int a = 0; a < 2; ++a) {
    int big = 0;
    for (int r = 1; r < 3; ++r)
      if (std::abs(e(r, a)) > std::abs(e(big, a)) + 1e-12) big = r;
    if (e(big, a) < 0.0) e.col(a) = -e.col(a);
  }
  e.col(2) = e.col(0).cross(e.col(1));
  return e;
}

/// Orders nodes[first, first + count) into clusters of at most kClusterNodes by splitting at the
/// median of the longest axis, appending the clusters.
void cluster_nodes(std::vector<Vec3>& nodes, int first, int count, std::vector<NodeCluster>& out) {
  Vec3 lo = nodes[first], hi = nodes[first];
  for (int k = first; k < first + count; ++k) {
    lo = lo.cwiseMin(nodes[k]);
    hi = hi.cwiseMax(nodes[k]);
  }
  if (count <= kClusterNodes) {
    NodeCluster c;
    c.centre = 0.5 * (lo + hi);
    for (int k = first; k < first + count; ++k)
      c.radius = std::max(c.radius, (nodes[k] - c.centre).norm());
    c.first = first;
    c.count = count;
    out.push_back(c);
    return;
  }
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const int half = count / 2;
  std::nth_element(nodes.begin() + first, nodes.begin() + first + half,
                   nodes.begin() + first + count,
                   [axis](const Vec3& a, const Vec3& b) { return a[axis] < b[axis]; });
  cluster_nodes(nodes, first, half, out);
  cluster_nodes(nodes, first + half, count - half, out);
}

}  // namespace

LevelSet finish_level_set(LevelSetGrid grid, const SurfaceMesh& contour, int node_count) {
  if (node_count < 4) throw std::invalid_argument("a level set needs at least 4 surface nodes");
  const GridMoments mom = grid_moments(grid);
  if (!(mom.volume > 0.0)) throw std::invalid_argument("the level set encloses no solid");
  if (contour.triangles.empty()) throw std::invalid_argument("the level set has no zero contour");

  if (grid.cells.size() != grid.phi.size()) grid.compute_gradients();
  LevelSet ls;
  Vec3 moments;
  const Mat3 axes = principal_axes(mom.inertia, moments);
  ls.grid_rotation = axes;
  ls.grid_offset = mom.centre;
  ls.volume = mom.volume;
  ls.unit_inertia = moments;
  ls.input_rotation = Quat(axes).normalized();
  ls.input_centre = mom.centre;

  // The contour in the body frame.
  ls.surface.triangles = contour.triangles;
  ls.surface.vertices.reserve(contour.vertices.size());
  for (const Vec3& v : contour.vertices)
    ls.surface.vertices.push_back(axes.transpose() * (v - mom.centre));
  ls.grid = std::move(grid);

  // Area-weighted samples of the contour, then farthest-point sampling of node_count of them.
  const auto& sv = ls.surface.vertices;
  const auto& st = ls.surface.triangles;
  std::vector<double> cumulative(st.size());
  double area = 0.0;
  for (std::size_t t = 0; t < st.size(); ++t) {
    area += 0.5 * (sv[st[t][1]] - sv[st[t][0]]).cross(sv[st[t][2]] - sv[st[t][0]]).norm();
    cumulative[t] = area;
  }
  if (!(area > 0.0)) throw std::invalid_argument("the level set's zero contour has no area");
  const std::size_t samples =
      std::max<std::size_t>(20 * static_cast<std::size_t>(node_count), 2000);
  std::vector<Vec3> pool;
  pool.reserve(samples);
  SplitMix64 rnd{0x5eedULL};
  for (std::size_t k = 0; k < samples; ++k) {
    const double target = rnd() * area;
    const std::size_t t = static_cast<std::size_t>(
        std::lower_bound(cumulative.begin(), cumulative.end(), target) - cumulative.begin());
    const auto& tri = st[std::min(t, st.size() - 1)];
    double a = rnd(), b = rnd();
    if (a + b > 1.0) {
      a = 1.0 - a;
      b = 1.0 - b;
    }
    pool.push_back(sv[tri[0]] + a * (sv[tri[1]] - sv[tri[0]]) + b * (sv[tri[2]] - sv[tri[0]]));
  }
  std::size_t first = 0;
  for (std::size_t k = 1; k < pool.size(); ++k)
    if (pool[k].squaredNorm() > pool[first].squaredNorm()) first = k;
  std::vector<double> d2(pool.size(), std::numeric_limits<double>::infinity());
  const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(node_count), pool.size());
  ls.nodes.reserve(want);
  std::size_t pick = first;
  for (std::size_t m = 0; m < want; ++m) {
    ls.nodes.push_back(pool[pick]);
    std::size_t next = 0;
    double best = -1.0;
    for (std::size_t k = 0; k < pool.size(); ++k) {
      d2[k] = std::min(d2[k], (pool[k] - pool[pick]).squaredNorm());
      if (d2[k] > best) {
        best = d2[k];
        next = k;
      }
    }
    pick = next;
  }
  // Onto the zero level of the interpolated grid (the contour is piecewise linear).
  for (Vec3& p : ls.nodes)
    for (int it = 0; it < 4; ++it) {
      Vec3 g;
      const double phi = ls.value_gradient(p, g);
      const double g2 = g.squaredNorm();
      if (!(g2 > 0.0)) break;
      p -= (phi / g2) * g;
    }

  cluster_nodes(ls.nodes, 0, static_cast<int>(ls.nodes.size()), ls.clusters);
  // The median splits order the clusters depth first, so consecutive ones are neighbours.
  for (int first = 0; first < static_cast<int>(ls.clusters.size()); first += kClustersPerGroup) {
    NodeCluster g;
    g.first = first;
    g.count = std::min<int>(kClustersPerGroup, static_cast<int>(ls.clusters.size()) - first);
    Vec3 lo = ls.clusters[first].centre, hi = lo;
    for (int c = first; c < first + g.count; ++c)
      for (int k = ls.clusters[c].first; k < ls.clusters[c].first + ls.clusters[c].count; ++k) {
        lo = lo.cwiseMin(ls.nodes[k]);
        hi = hi.cwiseMax(ls.nodes[k]);
      }
    g.centre = 0.5 * (lo + hi);
    for (int c = first; c < first + g.count; ++c)
      for (int k = ls.clusters[c].first; k < ls.clusters[c].first + ls.clusters[c].count; ++k)
        g.radius = std::max(g.radius, (ls.nodes[k] - g.centre).norm());
    ls.groups.push_back(g);
  }

  double r2 = 0.0;
  for (const Vec3& p : ls.nodes) r2 = std::max(r2, p.squaredNorm());
  for (const Vec3& p : ls.surface.vertices) r2 = std::max(r2, p.squaredNorm());
  ls.bounding_radius = std::sqrt(r2);
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vec3& p : ls.surface.vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  ls.min_thickness = (hi - lo).minCoeff();
  ls.node_spacing = std::sqrt(area / static_cast<double>(ls.nodes.size()));
  return ls;
}

}  // namespace etdem
