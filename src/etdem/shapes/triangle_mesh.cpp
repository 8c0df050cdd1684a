#include "etdem/shapes/triangle_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "etdem/core/group_by_key.hpp"

namespace etdem {
namespace {

constexpr int kLeafSize = 4;
constexpr double kAreaTol = 1e-12;    // relative to the squared bounding-box diagonal
constexpr double kVolumeTol = 1e-12;  // relative to the cubed bounding-box diagonal
constexpr double kFlatSine = 1e-6;    // a dihedral this close to flat is not a ridge

void build_tree(TriangleMesh& m) {
  const int n = m.triangle_count();
  m.order.resize(n);
  std::iota(m.order.begin(), m.order.end(), 0);
  std::vector<Vec3> centroid(n);
  std::vector<Vec3> tlo(n), thi(n);
  for (int t = 0; t < n; ++t) {
    const Vec3 &a = m.corner(t, 0), &b = m.corner(t, 1), &c = m.corner(t, 2);
    centroid[t] = (a + b + c) / 3.0;
    tlo[t] = a.cwiseMin(b).cwiseMin(c);
    thi[t] = a.cwiseMax(b).cwiseMax(c);
  }
  m.nodes.clear();
  m.nodes.reserve(2 * n / kLeafSize + 2);
  m.nodes.push_back({});
  m.nodes[0].first = 0;
  m.nodes[0].count = n;
  // Breadth-first over a work list (no recursion); median splits keep the depth near log2(n/4),
  // far below the query stack of 64.
  for (std::size_t k = 0; k < m.nodes.size(); ++k) {
    const int first = m.nodes[k].first, count = m.nodes[k].count;
    Vec3 lo = tlo[m.order[first]], hi = thi[m.order[first]];
    Vec3 clo = centroid[m.order[first]], chi = clo;
    for (int i = first; i < first + count; ++i) {
      const int t = m.order[i];
      lo = lo.cwiseMin(tlo[t]);
      hi = hi.cwiseMax(thi[t]);
      clo = clo.cwiseMin(centroid[t]);
      chi = chi.cwiseMax(centroid[t]);
    }
    m.nodes[k].lo = lo;
    m.nodes[k].hi = hi;
    if (count <= kLeafSize) continue;
    int axis = 0;
    (chi - clo).maxCoeff(&axis);
    const int mid = first + count / 2;
    std::nth_element(m.order.begin() + first, m.order.begin() + mid,
                     m.order.begin() + first + count, [&](int x, int y) {
                       return centroid[x][axis] < centroid[y][axis] ||
                              (centroid[x][axis] == centroid[y][axis] && x < y);
                     });
    TriangleMesh::Node left, right;
    left.first = first;
    left.count = mid - first;
    right.first = mid;
    right.count = first + count - mid;
    m.nodes[k].left = static_cast<int>(m.nodes.size());
    m.nodes[k].right = m.nodes[k].left + 1;
    m.nodes.push_back(left);
    m.nodes.push_back(right);
  }
}

}  // namespace

TriangleMesh TriangleMesh::build(std::span<const Vec3> vertices,
                                 std::span<const std::array<int, 3>> triangles, Facing facing) {
  TriangleMesh m;
  if (triangles.empty()) throw std::invalid_argument("the mesh has no triangle");
  const int nv = static_cast<int>(vertices.size());
  for (const Vec3& v : vertices)
    if (!v.allFinite()) throw std::invalid_argument("a vertex has a non-finite coordinate");
  m.vertices.assign(vertices.begin(), vertices.end());
  m.lo = m.hi = m.vertices.empty() ? Vec3::Zero() : m.vertices[0];
  for (const Vec3& v : m.vertices) {
    m.lo = m.lo.cwiseMin(v);
    m.hi = m.hi.cwiseMax(v);
    m.bounding_radius = std::max(m.bounding_radius, v.norm());
  }
  const double diag = (m.hi - m.lo).norm();
  int dropped = 0;
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const auto& tri = triangles[t];
    for (int k = 0; k < 3; ++k)
      if (tri[k] < 0 || tri[k] >= nv)
        throw std::invalid_argument(
            fmt::format("triangle {} uses vertex {}, but there are {} vertices", t, tri[k], nv));
    const Vec3 n =
        (m.vertices[tri[1]] - m.vertices[tri[0]]).cross(m.vertices[tri[2]] - m.vertices[tri[0]]);
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] ||
        !(n.norm() > 2.0 * kAreaTol * diag * diag)) {
      ++dropped;
      continue;
    }
    m.triangles.push_back(tri);
    m.normals.push_back(n.normalized());
  }
  if (m.triangles.empty())
    throw std::invalid_argument(
        fmt::format("all {} triangles are degenerate (zero area)", triangles.size()));
  if (dropped > 0)
    m.notes.push_back(fmt::format("{} degenerate triangle(s) (zero area) dropped", dropped));

  // Edge adjacency: each undirected edge with the (triangle, edge) pairs that use it.
  const int nt = m.triangle_count();
  std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> edges;
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
      edges[std::minmax(a, b)].push_back({t, k});
    }
  m.neighbours.assign(nt, {-1, -1, -1});
  int boundary = 0;
  for (const auto& [key, uses] : edges) {
    if (uses.size() > 2)
      throw std::invalid_argument(
          fmt::format("edge ({}, {}) is shared by {} triangles: not a manifold surface", key.first,
                      key.second, uses.size()));
    if (uses.size() == 1) {
      ++boundary;
      continue;
    }
    const auto [t0, k0] = uses[0];
    const auto [t1, k1] = uses[1];
    if (m.triangles[t0][k0] == m.triangles[t1][k1])
      throw std::invalid_argument(
          fmt::format("triangles {} and {} are oriented oppositely across edge ({}, {})", t0, t1,
                      key.first, key.second));
    m.neighbours[t0][k0] = t1;
    m.neighbours[t1][k1] = t0;
  }
  m.closed = boundary == 0;

  if (m.closed) {
    m.volume = m.solid().volume;
    if (!(std::abs(m.volume) > kVolumeTol * diag * diag * diag))
      throw std::invalid_argument("the closed surface encloses no volume");
    const bool flip = (facing == Facing::Outward && m.volume < 0.0) ||
                      (facing == Facing::Inward && m.volume > 0.0);
    if (flip) {
      for (auto& tri : m.triangles) std::swap(tri[1], tri[2]);
      for (Vec3& n : m.normals) n = -n;
      // (a, b, c) -> (a, c, b): the new edges 0, 1, 2 are the old edges 2, 1, 0.
      for (auto& nb : m.neighbours) nb = {nb[2], nb[1], nb[0]};
      m.volume = -m.volume;
      m.notes.push_back(facing == Facing::Outward
                            ? "the triangles of the closed surface faced inwards; turned outwards"
                            : "the triangles of the closed surface faced outwards; turned inwards");
    }
  }

  // Ridges: the neighbour's far vertex lies behind this triangle's plane.
  m.convex_edge.assign(3 * nt, 0);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int u = m.neighbours[t][k];
      if (u < 0) continue;
      const Vec3& a = m.corner(t, k);
      const Vec3& b = m.corner(t, (k + 1) % 3);
      int far = -1;
      for (int j = 0; j < 3; ++j)
        if (m.triangles[u][j] != m.triangles[t][k] &&
            m.triangles[u][j] != m.triangles[t][(k + 1) % 3])
          far = m.triangles[u][j];
      const double h = m.normals[t].dot(m.vertices[far] - a);
      if (h < -kFlatSine * std::max((b - a).norm(), (m.vertices[far] - a).norm()))
        m.convex_edge[3 * t + k] = 1;
    }

  // Vertex -> triangles.
  std::vector<int> fill;
  group_by_key(
      nv,
      [&](auto emit) {
        for (int t = 0; t < nt; ++t)
          for (int v : m.triangles[t]) emit(v, t);
      },
      m.vertex_start, m.vertex_triangles, fill);

  build_tree(m);
  return m;
}

SolidIntegrals TriangleMesh::solid() const {
  if (!closed) throw std::logic_error("an open mesh encloses no solid: no mass properties");
  return solid_integrals(vertices, triangles);
}

MassProperties TriangleMesh::mass_properties(double density) const {
  const SolidIntegrals s = solid();
  const PrincipalFrame f = principal_frame(s.inertia);
  MassProperties mp;
  mp.volume = s.volume;
  mp.mass = density * s.volume;
  mp.inertia = density * f.moments;
  return mp;
}

}  // namespace etdem
