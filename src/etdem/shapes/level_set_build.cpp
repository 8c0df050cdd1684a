#include "etdem/shapes/level_set_build.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>
#include <openvdb/tools/SignedFloodFill.h>
#include <openvdb/tools/VolumeToMesh.h>

#include "etdem/core/splitmix.hpp"
#include "etdem/shapes/triangle_mesh.hpp"

namespace etdem {
namespace {

using openvdb::Coord;
using openvdb::FloatGrid;

void init_vdb() {
  static const bool done = [] {
    openvdb::initialize();
    return true;
  }();
  (void)done;
}

/// Index range of a dense grid holding [lo, hi] with the padding, checked against the limits.
struct Extent {
  Coord lo, hi;  // inclusive index bounds, index = world / h
  std::array<int, 3> n() const { return {hi.x() - lo.x() + 1, hi.y() - lo.y() + 1, hi.z() - lo.z() + 1}; }
};

Extent grid_extent(const Vec3& lo, const Vec3& hi, double h) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::invalid_argument(fmt::format("spacing {:g} must be finite and > 0", h));
  const double thinnest = (hi - lo).minCoeff();
  if (thinnest < kMinCellsAcross * h)
    throw std::invalid_argument(fmt::format(
        "spacing {:g} m is too coarse: the shape is {:.3g} m across at its thinnest, fewer than "
        "{} cells",
        h, thinnest, kMinCellsAcross));
  double nodes = 1.0;
  for (int a = 0; a < 3; ++a) nodes *= std::ceil((hi[a] - lo[a]) / h) + 2 * kPaddingCells + 3;
  if (nodes > static_cast<double>(kMaxGridNodes))
    throw std::invalid_argument(fmt::format(
        "spacing {:g} m is too fine: the grid would hold {:.3g} nodes ({:.3g} GiB), more than {}",
        h, nodes, nodes * 4.0 / (1u << 30), kMaxGridNodes));
  Extent e;
  for (int a = 0; a < 3; ++a) {
    e.lo[a] = static_cast<int>(std::floor(lo[a] / h)) - kPaddingCells;
    e.hi[a] = static_cast<int>(std::ceil(hi[a] / h)) + kPaddingCells;
  }
  return e;
}

/// The dense grid of a VDB grid over the index range e (values of the tree, background beyond).
LevelSetGrid dense_from_vdb(const FloatGrid& vdb, const Extent& e) {
  LevelSetGrid g;
  g.spacing = vdb.voxelSize()[0];
  const openvdb::Vec3d o = vdb.indexToWorld(e.lo);
  g.origin = Vec3(o.x(), o.y(), o.z());
  g.n = e.n();
  g.phi.resize(static_cast<std::size_t>(g.n[0]) * g.n[1] * g.n[2]);
  auto acc = vdb.getConstAccessor();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i)
        g.phi[g.at(i, j, k)] = acc.getValue(Coord(e.lo.x() + i, e.lo.y() + j, e.lo.z() + k));
  return g;
}

openvdb::math::Transform::Ptr voxel_transform(double h) {
  return openvdb::math::Transform::createLinearTransform(h);
}

/// A unit sphere triangulated by subdividing an icosahedron `level` times.
SurfaceMesh unit_sphere(int level) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  SurfaceMesh m;
  for (const Vec3& v : {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0),
                        Vec3(0, -1, t), Vec3(0, 1, t), Vec3(0, -1, -t), Vec3(0, 1, -t),
                        Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)})
    m.vertices.push_back(v.normalized());
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto middle = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      m.vertices.push_back((m.vertices[a] + m.vertices[b]).normalized());
      const int v = static_cast<int>(m.vertices.size()) - 1;
      mid.emplace(key, v);
      return v;
    };
    std::vector<std::array<int, 3>> next;
    next.reserve(4 * m.triangles.size());
    for (const auto& tr : m.triangles) {
      const int a = middle(tr[0], tr[1]), b = middle(tr[1], tr[2]), c = middle(tr[2], tr[0]);
      next.push_back({tr[0], a, c});
      next.push_back({tr[1], b, a});
      next.push_back({tr[2], c, b});
      next.push_back({a, b, c});
    }
    m.triangles = std::move(next);
  }
  return m;
}

/// A star-shaped surface r(d) d over the directions d of a fine unit sphere: the subdivision
/// level makes the mean edge about h / 2 (at most level 6, 81 920 triangles).
template <class Radius>
LevelSet star_shaped(double mean_radius, Radius&& radius_along, const LevelSetOptions& o) {
  int level = 2;
  // An icosphere of level l has edges of about 1.1 / 2^l of its radius.
  while (level < 6 && 1.1 * mean_radius / double(1 << level) > 0.5 * o.spacing) ++level;
  SurfaceMesh m = unit_sphere(level);
  for (Vec3& v : m.vertices) v = radius_along(v);
  return level_set_from_surface(m.vertices, m.triangles, o);
}

/// A dense grid as an OpenVDB level set on the same nodes: every value when `band` is infinite
/// (what volumeToMesh needs), else only those within `band` of the surface, the rest
/// flood-filled (a narrow band, as stored in files).
FloatGrid::Ptr vdb_from_dense(const LevelSetGrid& g, double band) {
  init_vdb();
  FloatGrid::Ptr vdb = FloatGrid::create(static_cast<float>(3.0 * g.spacing));
  auto xf = voxel_transform(g.spacing);
  xf->postTranslate(openvdb::Vec3d(g.origin.x(), g.origin.y(), g.origin.z()));
  vdb->setTransform(xf);
  vdb->setGridClass(openvdb::GRID_LEVEL_SET);
  auto acc = vdb->getAccessor();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i) {
        const float v = g.phi[g.at(i, j, k)];
        if (std::abs(v) < band) acc.setValue(Coord(i, j, k), v);
      }
  if (std::isfinite(band)) openvdb::tools::signedFloodFill(vdb->tree());
  return vdb;
}

/// The shape of a dense grid: nodes from the full contour, and a coarser contour (OpenVDB's
/// adaptive meshing, flat regions in fewer triangles) kept for drawing.
LevelSet finish(LevelSetGrid g, int nodes) {
  const SurfaceMesh contour = zero_contour(g, 0.0);
  LevelSet ls = finish_level_set(std::move(g), contour, nodes);
  SurfaceMesh draw = zero_contour(ls.grid, 0.5);
  for (Vec3& v : draw.vertices) v = ls.grid_rotation.transpose() * (v - ls.grid_offset);
  ls.surface = std::move(draw);
  return ls;
}

}  // namespace

SurfaceMesh zero_contour(const LevelSetGrid& g, double adaptivity) {
  const FloatGrid::Ptr vdb = vdb_from_dense(g, std::numeric_limits<double>::infinity());
  std::vector<openvdb::Vec3s> points;
  std::vector<openvdb::Vec3I> tris;
  std::vector<openvdb::Vec4I> quads;
  openvdb::tools::volumeToMesh(*vdb, points, tris, quads, 0.0, adaptivity);
  SurfaceMesh m;
  m.vertices.reserve(points.size());
  for (const auto& p : points) m.vertices.emplace_back(p.x(), p.y(), p.z());
  for (const auto& t : tris) m.triangles.push_back({int(t[0]), int(t[1]), int(t[2])});
  for (const auto& q : quads) {
    m.triangles.push_back({int(q[0]), int(q[1]), int(q[2])});
    m.triangles.push_back({int(q[0]), int(q[2]), int(q[3])});
  }
  // Counter-clockwise seen from outside (a positive enclosed volume), whatever order
  // volumeToMesh chose.
  double six_volume = 0.0;
  for (const auto& t : m.triangles)
    six_volume += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]]));
  if (six_volume < 0.0)
    for (auto& t : m.triangles) std::swap(t[1], t[2]);
  return m;
}

LevelSet level_set_from_surface(std::span<const Vec3> vertices,
                                std::span<const std::array<int, 3>> triangles,
                                const LevelSetOptions& o) {
  init_vdb();
  // Closed and consistently oriented, else no inside exists (TriangleMesh checks both).
  const TriangleMesh check = TriangleMesh::build(vertices, triangles, TriangleMesh::Facing::Outward);
  if (!check.closed)
    throw std::invalid_argument("the surface is not closed (a level set needs an inside)");
  const Extent e = grid_extent(check.lo, check.hi, o.spacing);
  std::vector<openvdb::Vec3s> points;
  points.reserve(check.vertices.size());
  for (const Vec3& v : check.vertices)
    points.emplace_back(float(v.x()), float(v.y()), float(v.z()));
  std::vector<openvdb::Vec3I> tris;
  tris.reserve(check.triangles.size());
  for (const auto& t : check.triangles)
    tris.emplace_back(openvdb::Index32(t[0]), openvdb::Index32(t[1]), openvdb::Index32(t[2]));
  const std::vector<openvdb::Vec4I> quads;
  // Exterior band: the padding (and the grid's corners); interior: the whole inside.
  int across = 0;
  for (int a = 0; a < 3; ++a) across = std::max(across, e.n()[a]);
  const float ex_band = float(2 * kPaddingCells + 2), in_band = float(across);
  FloatGrid::Ptr vdb = openvdb::tools::meshToSignedDistanceField<FloatGrid>(
      *voxel_transform(o.spacing), points, tris, quads, ex_band, in_band);
  LevelSet ls = finish(dense_from_vdb(*vdb, e), o.nodes);
  // The smoothed Heaviside blurs edges and corners by O(h^2) per unit length of edge; a quarter
  // of the surface area times h over the volume bounds that blur for any polyhedral surface.
  double area = 0.0;
  for (const auto& t : check.triangles)
    area += 0.5 * (check.vertices[t[1]] - check.vertices[t[0]])
                      .cross(check.vertices[t[2]] - check.vertices[t[0]])
                      .norm();
  const double rel = std::abs(ls.volume - check.volume) / check.volume;
  if (rel > 0.05 + 0.25 * area * o.spacing / check.volume)
    throw std::invalid_argument(fmt::format(
        "the surface encloses {:.4g} m^3 but its level set {:.4g} m^3: it intersects itself or "
        "has parts thinner than the spacing {:g} m",
        check.volume, ls.volume, o.spacing));
  return ls;
}

LevelSet level_set_sphere(double radius, const LevelSetOptions& o) {
  if (!(radius > 0.0)) throw std::invalid_argument("radius must be > 0");
  const Extent e = grid_extent(Vec3::Constant(-radius), Vec3::Constant(radius), o.spacing);
  LevelSetGrid g;
  g.spacing = o.spacing;
  g.origin = o.spacing * Vec3(e.lo.x(), e.lo.y(), e.lo.z());
  g.n = e.n();
  g.phi.resize(static_cast<std::size_t>(g.n[0]) * g.n[1] * g.n[2]);
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i)
        g.phi[g.at(i, j, k)] = static_cast<float>(g.node(i, j, k).norm() - radius);
  return finish(std::move(g), o.nodes);
}

LevelSet level_set_superellipsoid(const Vec3& semi_axes, double e1, double e2,
                                  const LevelSetOptions& o) {
  if (!(semi_axes.array() > 0.0).all()) throw std::invalid_argument("semi_axes must all be > 0");
  if (!(e1 > 0.0 && e1 <= 2.0 && e2 > 0.0 && e2 <= 2.0))
    throw std::invalid_argument("exponents must lie in (0, 2]");
  // Along direction d the surface is at t d with t = F(d)^(-e1/2): F is homogeneous of degree
  // 2/e1.
  auto f = [&](const Vec3& d) {
    const double x = std::pow(std::abs(d.x() / semi_axes.x()), 2.0 / e2);
    const double y = std::pow(std::abs(d.y() / semi_axes.y()), 2.0 / e2);
    const double z = std::pow(std::abs(d.z() / semi_axes.z()), 2.0 / e1);
    return std::pow(x + y, e2 / e1) + z;
  };
  return star_shaped(semi_axes.maxCoeff(), [&](const Vec3& d) { return Vec3(d * std::pow(f(d), -0.5 * e1)); }, o);
}

LevelSet level_set_rock(double radius, double roughness, double elongation, std::uint64_t seed,
                        const LevelSetOptions& o) {
  if (!(radius > 0.0)) throw std::invalid_argument("radius must be > 0");
  if (!(roughness >= 0.0 && roughness <= 0.5))
    throw std::invalid_argument("roughness must lie in [0, 0.5]");
  if (!(elongation >= 1.0 && elongation <= 10.0))
    throw std::invalid_argument("elongation must lie in [1, 10]");
  // Waves sin(f (d . u) + p) over the directions, amplitudes falling as 1/f, normalised to a
  // unit root-mean-square.
  SplitMix64 uniform{seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL};
  struct Wave {
    Vec3 u;
    double f, p, a;
  };
  std::vector<Wave> waves(16);
  double power = 0.0;
  for (Wave& w : waves) {
    const double z = 2.0 * uniform() - 1.0, phi = 2.0 * M_PI * uniform();
    const double rho = std::sqrt(1.0 - z * z);
    w.u = Vec3(rho * std::cos(phi), rho * std::sin(phi), z);
    w.f = 1.0 + 3.0 * uniform();
    w.p = 2.0 * M_PI * uniform();
    w.a = 1.0 / w.f;
    power += 0.5 * w.a * w.a;
  }
  const double norm = 1.0 / std::sqrt(power);
  const Vec3 stretch(std::sqrt(elongation), 1.0, 1.0 / std::sqrt(elongation));
  return star_shaped(
      radius * std::sqrt(elongation),
      [&](const Vec3& d) {
        double n = 0.0;
        for (const Wave& w : waves) n += w.a * std::sin(w.f * d.dot(w.u) + w.p);
        const double r = radius * std::max(0.3, 1.0 + roughness * norm * n);
        return Vec3((r * d).cwiseProduct(stretch));
      },
      o);
}

LevelSet level_set_from_vdb(const std::string& path, const std::string& grid_name,
                            const LevelSetOptions& o) {
  init_vdb();
  FloatGrid::Ptr vdb;
  try {
    openvdb::io::File file(path);
    file.open();
    for (auto it = file.beginName(); it != file.endName(); ++it) {
      if (!grid_name.empty() && it.gridName() != grid_name) continue;
      openvdb::GridBase::Ptr base = file.readGrid(it.gridName());
      vdb = openvdb::gridPtrCast<FloatGrid>(base);
      if (vdb) break;
    }
    file.close();
  } catch (const openvdb::Exception& ex) {
    throw std::invalid_argument(fmt::format("not a readable OpenVDB file ({})", ex.what()));
  }
  if (!vdb)
    throw std::invalid_argument(grid_name.empty()
                                    ? std::string("the file holds no float grid")
                                    : fmt::format("the file holds no float grid named '{}'", grid_name));
  if (vdb->getGridClass() != openvdb::GRID_LEVEL_SET)
    throw std::invalid_argument(fmt::format("grid '{}' is not a level set", vdb->getName()));
  if (!vdb->transform().isLinear() || !vdb->hasUniformVoxels())
    throw std::invalid_argument(fmt::format("grid '{}' has non-uniform voxels", vdb->getName()));
  const openvdb::CoordBBox box = vdb->evalActiveVoxelBoundingBox();
  if (box.empty()) throw std::invalid_argument(fmt::format("grid '{}' is empty", vdb->getName()));
  const double h = vdb->voxelSize()[0];
  const openvdb::Vec3d wlo = vdb->indexToWorld(box.min()), whi = vdb->indexToWorld(box.max());
  Extent e = grid_extent(Vec3(wlo.x(), wlo.y(), wlo.z()), Vec3(whi.x(), whi.y(), whi.z()), h);
  e.lo = box.min() - Coord(kPaddingCells);
  e.hi = box.max() + Coord(kPaddingCells);
  LevelSetGrid g = dense_from_vdb(*vdb, e);
  return finish(std::move(g), o.nodes);
}

void save_level_set_vdb(const LevelSetGrid& g, const std::string& path, const std::string& name) {
  FloatGrid::Ptr vdb = vdb_from_dense(g, 3.0 * g.spacing);
  vdb->setName(name);
  openvdb::io::File file(path);
  file.write({vdb});
  file.close();
}

}  // namespace etdem
