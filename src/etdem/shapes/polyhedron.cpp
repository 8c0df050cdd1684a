#include "etdem/shapes/polyhedron.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <libqhull_r/libqhull_r.h>

#include "etdem/core/polyhedron_mass.hpp"

namespace etdem {
namespace {

// Points closer than this (relative to the size of the point set) to a line or plane through the
// others count as collinear or coplanar: such a set has no volume.
constexpr double kFlatTolerance = 1e-10;

// Above this many vertices the support query walks the vertex adjacency (hill climbing on a convex
// polytope reaches the global maximum); below it a linear scan is faster.
constexpr int kHillClimbVertices = 32;

[[noreturn]] void bad_input(const std::string& why) {
  throw std::invalid_argument(why);
}

/// Rejects point sets that cannot bound a volume, with a reason a user can act on.
void check_points(std::span<const Vec3> p) {
  if (p.size() < 4)
    bad_input(fmt::format("a polyhedron needs at least 4 vertices, got {}", p.size()));
  for (std::size_t k = 0; k < p.size(); ++k)
    if (!all_finite(p[k])) bad_input(fmt::format("vertex {} has a non-finite coordinate", k));
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : p) mean += v;
  mean /= static_cast<double>(p.size());
  // A large tetrahedron: farthest from the mean, farthest from that, farthest from their line,
  // farthest from the plane of the three.
  auto farthest = [&](auto dist) {
    std::size_t best = 0;
    double d = -1.0;
    for (std::size_t k = 0; k < p.size(); ++k)
      if (const double dk = dist(p[k]); dk > d) d = dk, best = k;
    return std::pair{best, d};
  };
  const auto [i0, scale] = farthest([&](const Vec3& v) { return (v - mean).norm(); });
  if (!(scale > 0.0)) bad_input("all vertices coincide: the polyhedron has no volume");
  const Vec3 a = p[i0];
  const auto [i1, len] = farthest([&](const Vec3& v) { return (v - a).norm(); });
  const Vec3 u = (p[i1] - a) / len;
  const auto [i2, off_line] = farthest([&](const Vec3& v) {
    const Vec3 d = v - a;
    return (d - d.dot(u) * u).norm();
  });
  if (off_line <= kFlatTolerance * scale)
    bad_input("all vertices lie on one line: the polyhedron has no volume");
  const Vec3 n = u.cross(p[i2] - a).normalized();
  const auto [i3, off_plane] = farthest([&](const Vec3& v) { return std::abs((v - a).dot(n)); });
  (void)i3;
  if (off_plane <= kFlatTolerance * scale)
    bad_input("all vertices lie in one plane: the polyhedron has no volume");
}

struct RawHull {
  std::vector<Vec3> vertices;
  std::vector<std::vector<int>> faces;  // unordered vertex indices per facet
  std::vector<Vec3> normals;            // outward, from Qhull
};

/// Convex hull by Qhull (reentrant API). Default options: in 3-d Qhull merges coplanar and
/// nearly coplanar facets (option C-0), so flat faces come out as one polygon each.
RawHull qhull_hull(std::span<const Vec3> points) {
  std::vector<coordT> coords(3 * points.size());
  for (std::size_t k = 0; k < points.size(); ++k)
    for (int c = 0; c < 3; ++c) coords[3 * k + c] = points[k][c];
  char* err_text = nullptr;
  std::size_t err_size = 0;
  std::FILE* err = open_memstream(&err_text, &err_size);
  qhT qh_storage;
  qhT* qh = &qh_storage;
  QHULL_LIB_CHECK
  qh_zero(qh, err);
  char command[] = "qhull";
  const int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False,
                                command, nullptr, err);
  RawHull hull;
  if (code == 0) {
    std::vector<int> index(points.size(), -1);  // input point -> hull vertex
    facetT* facet;
    vertexT *vertex, **vertexp;
    FORALLfacets {
      std::vector<int> f;
      FOREACHvertex_(facet->vertices) {
        const int id = qh_pointid(qh, vertex->point);
        if (index[id] < 0) {
          index[id] = static_cast<int>(hull.vertices.size());
          hull.vertices.push_back(points[id]);
        }
        f.push_back(index[id]);
      }
      hull.faces.push_back(std::move(f));
      hull.normals.emplace_back(facet->normal[0], facet->normal[1], facet->normal[2]);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(err);
  std::string message(err_text ? err_text : "", err_size);
  std::free(err_text);
  if (code != 0) {
    const std::size_t eol = message.find('\n');
    bad_input(fmt::format("Qhull failed (code {}): {}", code,
                          eol == std::string::npos ? message : message.substr(0, eol)));
  }
  return hull;
}

/// Newell's normal of a planar polygon (unit, right-handed about the vertex order).
Vec3 newell_normal(const std::vector<Vec3>& v, std::span<const int> f) {
  Vec3 n = Vec3::Zero();
  for (std::size_t k = 0; k < f.size(); ++k) {
    const Vec3& p = v[f[k]];
    const Vec3& q = v[f[(k + 1) % f.size()]];
    n += Vec3((p.y() - q.y()) * (p.z() + q.z()), (p.z() - q.z()) * (p.x() + q.x()),
              (p.x() - q.x()) * (p.y() + q.y()));
  }
  return n.normalized();
}

/// Edges (each once, with its two faces), vertex adjacency and the size measures, from
/// vertices and counter-clockwise faces with normals already set.
void finish_topology(ConvexPolyhedron& p) {
  struct HalfEdge {
    int lo, hi, face;
    bool forward;  // runs lo -> hi in its face
  };
  std::vector<HalfEdge> half;
  for (int f = 0; f < p.face_count(); ++f) {
    const auto fv = p.face(f);
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const int a = fv[k], b = fv[(k + 1) % fv.size()];
      half.push_back({std::min(a, b), std::max(a, b), f, a < b});
    }
  }
  std::sort(half.begin(), half.end(), [](const HalfEdge& x, const HalfEdge& y) {
    return std::tie(x.lo, x.hi, x.forward) < std::tie(y.lo, y.hi, y.forward);
  });
  p.edges.clear();
  for (std::size_t k = 0; k < half.size(); k += 2) {
    if (k + 1 >= half.size() || half[k].lo != half[k + 1].lo || half[k].hi != half[k + 1].hi ||
        half[k].forward == half[k + 1].forward)
      throw std::logic_error(
          "convex hull: the faces do not close (an edge is not shared by "
          "exactly two faces with opposite directions)");
    // half[k] runs hi -> lo (forward = false sorts first), half[k + 1] runs lo -> hi.
    p.edges.push_back({half[k + 1].lo, half[k + 1].hi, half[k + 1].face, half[k].face});
  }
  const int nv = p.vertex_count();
  std::vector<int> degree(nv, 0);
  for (const auto& e : p.edges) ++degree[e.v0], ++degree[e.v1];
  p.neighbour_start.assign(nv + 1, 0);
  for (int v = 0; v < nv; ++v) p.neighbour_start[v + 1] = p.neighbour_start[v] + degree[v];
  p.neighbours.assign(p.neighbour_start[nv], 0);
  std::vector<int> fill(p.neighbour_start.begin(), p.neighbour_start.end() - 1);
  for (const auto& e : p.edges) {
    p.neighbours[fill[e.v0]++] = e.v1;
    p.neighbours[fill[e.v1]++] = e.v0;
  }
  p.bounding_radius = 0.0;
  for (const Vec3& v : p.vertices) p.bounding_radius = std::max(p.bounding_radius, v.norm());
  p.inner_radius = std::numeric_limits<double>::infinity();
  p.min_width = std::numeric_limits<double>::infinity();
  for (const auto& f : p.faces) {
    p.inner_radius = std::min(p.inner_radius, f.offset);
    double lowest = f.offset;
    for (const Vec3& v : p.vertices) lowest = std::min(lowest, f.normal.dot(v));
    p.min_width = std::min(p.min_width, f.offset - lowest);
  }
}

}  // namespace

ConvexPolyhedron ConvexPolyhedron::from_points(std::span<const Vec3> points) {
  check_points(points);
  RawHull raw = qhull_hull(points);

  // Faces counter-clockwise about Qhull's outward normal: sort by angle about the face centre.
  ConvexPolyhedron p;
  std::vector<std::vector<int>> ordered;
  for (std::size_t f = 0; f < raw.faces.size(); ++f) {
    std::vector<int>& fv = raw.faces[f];
    const Vec3 n = raw.normals[f];
    Vec3 c = Vec3::Zero();
    for (int v : fv) c += raw.vertices[v];
    c /= static_cast<double>(fv.size());
    const Vec3 u = any_orthogonal(n);
    const Vec3 w = n.cross(u);
    std::vector<std::pair<double, int>> by_angle;
    for (int v : fv) {
      const Vec3 d = raw.vertices[v] - c;
      by_angle.emplace_back(std::atan2(d.dot(w), d.dot(u)), v);
    }
    std::sort(by_angle.begin(), by_angle.end());
    std::vector<int> out;
    for (const auto& [angle, v] : by_angle) out.push_back(v);
    ordered.push_back(std::move(out));
  }

  // Mass properties in the input frame (fan triangulation of the convex faces).
  std::vector<std::array<int, 3>> triangles;
  for (const auto& fv : ordered)
    for (std::size_t k = 1; k + 1 < fv.size(); ++k) triangles.push_back({fv[0], fv[k], fv[k + 1]});
  const SolidIntegrals si = solid_integrals(raw.vertices, triangles);
  if (!(si.volume > 0.0))
    bad_input(fmt::format("the convex hull has no positive volume ({} m^3)", si.volume));
  const PrincipalFrame pf = principal_frame(si.inertia);

  // Body frame: centre of mass at the origin, principal axes along x, y, z.
  p.input_centre = si.centroid;
  p.input_rotation = Quat(pf.rotation);
  p.input_rotation.normalize();
  const Mat3 rt = pf.rotation.transpose();
  p.vertices.reserve(raw.vertices.size());
  for (const Vec3& v : raw.vertices) p.vertices.push_back(rt * (v - si.centroid));
  p.volume = si.volume;
  p.unit_inertia = pf.moments;
  for (const auto& fv : ordered) {
    Face f;
    f.first = static_cast<int>(p.face_vertices.size());
    f.count = static_cast<int>(fv.size());
    p.face_vertices.insert(p.face_vertices.end(), fv.begin(), fv.end());
    f.normal = newell_normal(p.vertices, fv);
    f.offset = -std::numeric_limits<double>::infinity();
    for (int v : fv) f.offset = std::max(f.offset, f.normal.dot(p.vertices[v]));
    p.faces.push_back(f);
  }
  finish_topology(p);
  return p;
}

ConvexPolyhedron ConvexPolyhedron::box(const Vec3& h) {
  if (!(h.array() > 0.0).all() || !all_finite(h))
    bad_input("a box needs finite, positive half extents");
  ConvexPolyhedron p;
  // Vertex k has sign + along x, y, z where bit 0, 1, 2 of k is set.
  for (int k = 0; k < 8; ++k)
    p.vertices.emplace_back((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(),
                            (k & 4) ? h.z() : -h.z());
  static const int kFaces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                   {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (int f = 0; f < 6; ++f) {
    const int axis = f / 2;
    const double sign = f % 2 == 0 ? 1.0 : -1.0;
    Face face;
    face.first = static_cast<int>(p.face_vertices.size());
    face.count = 4;
    face.normal = Vec3::Zero();
    face.normal[axis] = sign;
    face.offset = h[axis];
    p.face_vertices.insert(p.face_vertices.end(), kFaces[f], kFaces[f] + 4);
    p.faces.push_back(face);
  }
  const MassProperties unit = box_mass_properties(h, 1.0);
  p.volume = unit.volume;
  p.unit_inertia = unit.inertia;
  finish_topology(p);
  return p;
}

int ConvexPolyhedron::support_index(const Vec3& dir) const {
  const int n = vertex_count();
  if (n <= kHillClimbVertices) {
    int best = 0;
    double d = dir.dot(vertices[0]);
    for (int k = 1; k < n; ++k)
      if (const double dk = dir.dot(vertices[k]); dk > d) d = dk, best = k;
    return best;
  }
  int v = 0;
  double d = dir.dot(vertices[0]);
  for (int guard = 0; guard < n; ++guard) {  // each move strictly increases d: at most n moves
    int next = v;
    for (int k = neighbour_start[v]; k < neighbour_start[v + 1]; ++k)
      if (const double dk = dir.dot(vertices[neighbours[k]]); dk > d) d = dk, next = neighbours[k];
    if (next == v) break;
    v = next;
  }
  return v;
}

int ConvexPolyhedron::supporting_face(const Vec3& dir) const {
  int best = 0;
  double d = faces[0].normal.dot(dir);
  for (int f = 1; f < face_count(); ++f)
    if (const double df = faces[f].normal.dot(dir); df > d) d = df, best = f;
  return best;
}

MassProperties ConvexPolyhedron::mass_properties(double density) const {
  MassProperties mp;
  mp.volume = volume;
  mp.mass = density * volume;
  mp.inertia = density * unit_inertia;
  return mp;
}

}  // namespace etdem
