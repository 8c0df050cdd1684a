// Convex polyhedron against convex polyhedron (and a box against a polyhedron, through the box's
// hull): separating axis test over the face normals of both and the edge-edge cross products that
// are faces of the Minkowski difference (Gregorius, "The Separating Axis Test between Convex
// Polyhedra", GDC 2013: an edge pair is tested only when the arcs of the two edges on the Gauss
// map intersect), then
//  - a face contact: the incident face (the other body's face most anti-parallel to the reference
//    face) clipped by Sutherland-Hodgman against the side planes of the reference face's edges;
//    every clipped point closer than the margin is kept (up to Manifold::kMaxPoints, see
//    contact_collector.hpp), as collide_box_box.cpp does for boxes;
//  - an edge-edge contact: one point, midway between the closest points of the two edges.
// The axis choice (reference face of A unless B's is clearly better, an edge axis only when
// clearly better than both faces) uses the same biases as collide_box_box.cpp, so a box given as
// a polyhedron gives the same manifold as the box code.
//
// Everything is worked in A's body frame: B's rotation and translation relative to A are applied
// to the few B features used, and the result is turned into world coordinates at the end.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "etdem/collision/closest_features.hpp"
#include "etdem/collision/collide.hpp"
#include "etdem/collision/collide_convex.hpp"
#include "etdem/collision/contact_collector.hpp"

namespace etdem {
namespace {

// See collide_box_box.cpp for the reasons behind these values (same constants, same meaning;
// kAbsTol is relative to the smaller inner radius, a box's smallest half extent).
constexpr double kParallelSine = 1e-5;
constexpr double kFaceRelTol = 0.02;
constexpr double kEdgeRelTol = 0.05;
constexpr double kFaceNearEdge = 0.1;  // as collide_box_box.cpp, times the smaller inner radius
constexpr double kAbsTol = 1e-4;

struct Scratch {
  std::vector<Vec3> normals_b;  // B's face normals in A's frame
  std::vector<Vec3> arcs_b;     // per edge of B: d x c of its face normals c, d (A's frame)
  std::vector<double> side_b;   // per face of B: its normal . (b x a) for the current edge of A
  std::vector<int> edges_b;     // edges of B that may beat the best face axis
  std::vector<Vec3> poly, clipped;
  ContactCollector points;
};

/// B seen from A: x_A = r x_B + t.
struct Relative {
  Mat3 r;
  Vec3 t;
  Vec3 point(const Vec3& x) const { return r * x + t; }
};

/// Sutherland-Hodgman: the part of polygon `in` with s.x <= offset, into `out`.
void clip(const std::vector<Vec3>& in, const Vec3& s, double offset, std::vector<Vec3>& out) {
  out.clear();
  const std::size_t n = in.size();
  for (std::size_t k = 0; k < n; ++k) {
    const Vec3& p = in[k];
    const Vec3& q = in[(k + 1) % n];
    const double dp = s.dot(p) - offset;
    const double dq = s.dot(q) - offset;
    if (dp <= 0.0) out.push_back(p);
    if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0))
      out.push_back(p + (dp / (dp - dq)) * (q - p));
  }
}

/// Gauss-map test (Gregorius 2013): does the arc a-b of an edge of A cross the arc -c..-d of an
/// edge of B (B's normals negated: the Minkowski difference)? With bxa = b x a, dxc = d x c,
/// C = -c, D = -d, the published test C.(BxA) * D.(BxA) < 0, A.(DxC) * B.(DxC) < 0,
/// C.(BxA) * B.(DxC) > 0 reads as below, given cb = c.bxa and db = d.bxa (computed once per face
/// of B for each edge of A, as most pairs fail on their signs alone).
bool is_minkowski_face(double cb, double db, const Vec3& a, const Vec3& b, const Vec3& dxc) {
  if (cb * db >= 0.0) return false;
  const double adc = a.dot(dxc), bdc = b.dot(dxc);
  return adc * bdc < 0.0 && cb * bdc < 0.0;
}

/// Largest w.u over unit u on the shorter great arc from unit a to unit b (adjacent face normals,
/// not parallel): |w'| when the projection w' of w on the plane of a and b falls between them,
/// else the larger end.
double arc_max(const Vec3& a, const Vec3& b, const Vec3& w) {
  const double aw = a.dot(w), bw = b.dot(w), c = a.dot(b);
  const double det = 1.0 - c * c;
  const double alpha = aw - c * bw, beta = bw - c * aw;  // w' = (alpha a + beta b) / det
  if (alpha >= 0.0 && beta >= 0.0 && det > 0.0) return std::sqrt((alpha * aw + beta * bw) / det);
  return std::max(aw, bw);
}

/// Face contact in A's frame. The reference face `ref_face` of body `ref` has outward normal
/// n_ref and offset o_ref (A's frame) and faces the incident body `inc`; `ref_at`/`inc_at` map the
/// two bodies' vertices into A's frame; inc_dir is -n_ref in the incident body's frame. Collects
/// the clipped points with gap < margin.
template <class RefAt, class IncAt>
void face_contact(const ConvexPolyhedron& ref, int ref_face, const Vec3& n_ref, double o_ref,
                  RefAt ref_at, const ConvexPolyhedron& inc, int inc_face, IncAt inc_at,
                  const Vec3& inc_dir, double margin, Scratch& s) {
  s.poly.clear();
  for (int v : inc.face(inc_face)) s.poly.push_back(inc_at(v));
  const auto rv = ref.face(ref_face);
  // The side plane of the reference face's edge k: its outward normal (in the face's plane)
  // and a point on it; a point is under the face when it lies inside every one.
  auto side_plane = [&](std::size_t k) {
    const Vec3 r0 = ref_at(rv[k]);
    return std::make_pair(Vec3((ref_at(rv[(k + 1) % rv.size()]) - r0).cross(n_ref)), r0);
  };
  for (std::size_t k = 0; k < rv.size() && !s.poly.empty(); ++k) {
    const auto [side, r0] = side_plane(k);
    clip(s.poly, side, side.dot(r0), s.clipped);
    std::swap(s.poly, s.clipped);
  }
  double least = std::numeric_limits<double>::infinity();
  for (const Vec3& x : s.poly) {
    const double gap = n_ref.dot(x) - o_ref;
    least = std::min(least, gap);
    if (gap < margin) s.points.add(x - 0.5 * gap * n_ref, gap);
  }
  // The incident face is the face most anti-parallel to the normal, but on a hull of many small
  // faces the incident body's deepest vertex along the normal (the one the separating axis test
  // measured) need not lie on it: a rock's corner under the reference face went unreported while
  // the face beside it was clipped, and was found 13 % of the thickness deep a step later
  // (docs/notes/deep-contacts.md "Rocks: the deepest vertex"). That vertex joins the points when it
  // lies under the reference face (inside its side planes, where clipping would have kept it) and
  // deeper than every clipped point.
  const Vec3 x = inc_at(inc.support_index(inc_dir));
  const double gap = n_ref.dot(x) - o_ref;
  if (!(gap < margin) || !(gap < least)) return;
  for (std::size_t k = 0; k < rv.size(); ++k) {
    const auto [side, r0] = side_plane(k);
    if (side.dot(x - r0) > 0.0) return;
  }
  s.points.add(x - 0.5 * gap * n_ref, gap);
}

}  // namespace

void collide_hull_hull(const ConvexPolyhedron& A, const Pose& pa, const ConvexPolyhedron& B,
                       const Pose& pb, double margin, Manifold& out) {
  out.clear();
  const Relative rel{pa.rotation.transpose() * pb.rotation,
                     pa.rotation.transpose() * (pb.position - pa.position)};
  if (rel.t.norm() - A.bounding_radius - B.bounding_radius >= margin) return;
  const Mat3 rt = rel.r.transpose();
  thread_local Scratch s;
  auto a_at = [&](int v) -> const Vec3& { return A.vertices[v]; };
  auto b_at = [&](int v) { return rel.point(B.vertices[v]); };

  // Face axes of A: separation = (deepest vertex of B along -n) - plane.
  double sep_a = -std::numeric_limits<double>::infinity();
  int face_a = 0;
  for (int f = 0; f < A.face_count(); ++f) {
    const Vec3& n = A.faces[f].normal;
    const int j = B.support_index(-(rt * n));
    const double sep = n.dot(b_at(j)) - A.faces[f].offset;
    if (sep >= margin) return;
    if (sep > sep_a) sep_a = sep, face_a = f;
  }
  // Face axes of B, in A's frame: n' = r n, offset o + n'.t.
  s.normals_b.resize(B.face_count());
  double sep_b = -std::numeric_limits<double>::infinity();
  int face_b = 0;
  for (int g = 0; g < B.face_count(); ++g) {
    const Vec3 n = rel.r * B.faces[g].normal;
    s.normals_b[g] = n;
    const int i = A.support_index(-n);
    const double sep = n.dot(A.vertices[i]) - (B.faces[g].offset + n.dot(rel.t));
    if (sep >= margin) return;
    if (sep > sep_b) sep_b = sep, face_b = g;
  }

  // Edge axes: pairs whose Gauss-map arcs cross. The axis u points out of A at its edge (A's
  // centre of mass is the origin); the separation is u.(edge of B - edge of A).
  // An edge axis is used only if it beats the best face axis, so edges that cannot are skipped
  // (exact pruning): A holds a ball of its inner radius about its centre, so along u its support
  // is at least r_A, and B's lowest point along u is at most u.t - r_B; with u confined to the
  // edge's arc of face normals this bounds the separation of every pair of that edge.
  const double best_face = std::max(sep_a, sep_b);
  s.arcs_b.resize(B.edge_count());
  s.edges_b.clear();
  for (int j = 0; j < B.edge_count(); ++j) {
    const ConvexPolyhedron::Edge& eb = B.edges[j];
    const Vec3& c = s.normals_b[eb.f0];
    const Vec3& d = s.normals_b[eb.f1];
    // -u lies on B's arc c-d and B's edge is its support there: separation <= u.pb - r_A.
    if (arc_max(c, d, -b_at(eb.v0)) - A.inner_radius <= best_face) continue;
    s.arcs_b[j] = d.cross(c);
    s.edges_b.push_back(j);
  }
  double sep_e = -std::numeric_limits<double>::infinity();
  int edge_a = -1, edge_b = -1;
  Vec3 axis_e = Vec3::UnitZ();
  s.side_b.resize(B.face_count());
  for (int i = 0; i < A.edge_count() && !s.edges_b.empty(); ++i) {
    const ConvexPolyhedron::Edge& ea = A.edges[i];
    const Vec3& a = A.faces[ea.f0].normal;
    const Vec3& b = A.faces[ea.f1].normal;
    const Vec3& pa0 = A.vertices[ea.v0];
    // u on A's arc a-b, A's edge its support there: separation <= u.(t - pa) - r_B.
    if (arc_max(a, b, rel.t - pa0) - B.inner_radius <= best_face) continue;
    const Vec3 bxa = b.cross(a);
    for (int g = 0; g < B.face_count(); ++g) s.side_b[g] = s.normals_b[g].dot(bxa);
    const Vec3 da = A.vertices[ea.v1] - pa0;
    for (int j : s.edges_b) {
      const ConvexPolyhedron::Edge& eb = B.edges[j];
      if (!is_minkowski_face(s.side_b[eb.f0], s.side_b[eb.f1], a, b, s.arcs_b[j])) continue;
      const Vec3 pb0 = b_at(eb.v0);
      const Vec3 db = rel.r * (B.vertices[eb.v1] - B.vertices[eb.v0]);
      Vec3 u = da.cross(db);
      const double len = u.norm();
      if (len < kParallelSine * da.norm() * db.norm()) continue;
      u /= len;
      if (u.dot(pa0) < 0.0) u = -u;
      const double sep = u.dot(pb0 - pa0);
      if (sep >= margin) return;
      if (sep > sep_e) sep_e = sep, edge_a = i, edge_b = j, axis_e = u;
    }
  }

  const double abs_tol = kAbsTol * std::min(A.inner_radius, B.inner_radius);
  const bool use_b = sep_b > sep_a + kFaceRelTol * std::abs(sep_a) + abs_tol;
  // The face manifold of the reference face into s.points; returns its normal (B to A, A's frame).
  // A contact point in A's frame with its normal (B to A) and gap.
  struct Point {
    Vec3 point, normal;
    double gap;
  };
  // The incident body's deepest vertex along the reference face's normal, as a point of the
  // face contact (its gap the face axis's separation).
  auto incident_vertex = [&]() {
    if (!use_b) {
      const Vec3& n_ref = A.faces[face_a].normal;
      const Vec3 x = b_at(B.support_index(-(rt * n_ref)));
      const double gap = n_ref.dot(x) - A.faces[face_a].offset;
      return Point{x - 0.5 * gap * n_ref, -n_ref, gap};
    }
    const Vec3& n_ref = s.normals_b[face_b];
    const Vec3 x = A.vertices[A.support_index(-n_ref)];
    const double gap = n_ref.dot(x) - (B.faces[face_b].offset + n_ref.dot(rel.t));
    return Point{x - 0.5 * gap * n_ref, n_ref, gap};
  };
  auto face_points = [&]() -> Vec3 {
    s.points.clear();
    Vec3 normal;
    if (!use_b) {
      // A's face is the reference; its outward normal points at B, the contact normal opposite.
      const Vec3& n_ref = A.faces[face_a].normal;
      const int inc = B.supporting_face(-(rt * n_ref));
      face_contact(A, face_a, n_ref, A.faces[face_a].offset, a_at, B, inc, b_at, -(rt * n_ref),
                   margin, s);
      normal = -n_ref;
    } else {
      const Vec3& n_ref = s.normals_b[face_b];
      const double o_ref = B.faces[face_b].offset + n_ref.dot(rel.t);
      const int inc = A.supporting_face(-n_ref);
      face_contact(B, face_b, n_ref, o_ref, b_at, A, inc, a_at, Vec3(-n_ref), margin, s);
      normal = n_ref;
    }
    // Overlap without a clipped point (round-off on a sliver): keep the deepest vertex of the
    // incident body, as collide_box_box.cpp does.
    if (s.points.size() == 0 && (use_b ? sep_b : sep_a) < 0.0) {
      const Point v = incident_vertex();
      if (v.gap < margin) s.points.add(v.point, v.gap);
    }
    return normal;
  };

  // The edge-edge contact point of the best edge pair: midway between the closest points of the
  // two edges.
  auto edge_point = [&]() {
    const ConvexPolyhedron::Edge& ea = A.edges[edge_a];
    const ConvexPolyhedron::Edge& eb = B.edges[edge_b];
    Vec3 ca, cb;
    closest_on_segments(A.vertices[ea.v0], A.vertices[ea.v1], b_at(eb.v0), b_at(eb.v1), ca, cb);
    const Vec3 normal = -axis_e;
    return Point{0.5 * (ca + cb), normal, (ca - cb).dot(normal)};
  };
  const double face_bias = kEdgeRelTol * std::abs(best_face) + abs_tol;
  if (edge_a >= 0 && sep_e > best_face + face_bias) {
    const Point e = edge_point();
    if (e.gap >= margin) return;
    out.normal = pa.rotation * e.normal;
    out.add(pa.position + pa.rotation * e.point, e.gap);
    // As in collide_box_box.cpp: while a face pair separates the bodies almost as well as the
    // edges, the face points within the margin join the edge point, each with the face normal
    // and its gap clamped below by the edge separation, so a corner a rotation brings onto the
    // face within the step is in the manifold.
    if (best_face < sep_e - kFaceNearEdge * std::min(A.inner_radius, B.inner_radius)) return;
    const Vec3 face_normal = pa.rotation * face_points();
    Manifold local;
    s.points.emit(local);
    for (int k = 0; k < local.count; ++k)
      out.add(pa.position + pa.rotation * local.point[k], std::max(local.gap[k], sep_e),
              face_normal);
    return;
  }
  const Vec3 normal = face_points();
  // Overlapping, yet the face manifold holds no point as deep as the axes measured: the face won
  // the axis choice by its bias over an edge pair that separates the bodies better, or the
  // incident body's deepest vertex lies beside the reference face, and the overlap is where
  // neither the clipped face nor that vertex test looks (two rocks of a pile reported 7 % of
  // the thickness apart while 5 % deep; docs/notes/shapes.md "A face manifold that missed the
  // overlap"). The witness of the separation leads the manifold with its own normal, so the cut
  // to kMaxPoints keeps it: the edge point when the edge axis is the better one, else that
  // vertex.
  Manifold local;  // A's frame
  local.normal = normal;
  const double separation = std::max(best_face, sep_e);
  const double least = s.points.least_gap();
  if (separation < 0.0 && least > separation + face_bias) {
    const Point w = edge_a >= 0 && sep_e >= best_face ? edge_point() : incident_vertex();
    if (w.gap < least) local.add(w.point, w.gap, w.normal);
  }
  s.points.emit(local);
  if (local.count > 0) {
    // To world.
    out.normal = pa.rotation * normal;
    for (int k = 0; k < local.count; ++k) {
      const Vec3 x = pa.position + pa.rotation * local.point[k];
      if (local.mixed)
        out.add(x, local.gap[k], pa.rotation * local.normal_at(k));
      else
        out.add(x, local.gap[k]);
    }
  }
  // Apart, but no clipped point as near as the separation bound: a corner beside the reference
  // face may be the closest feature (closest_features.hpp).
  add_closest_if_missing(A, pa, B, pb, separation, margin, out);
}

void collide_polyhedron_polyhedron(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                                   const Pose& pb, double margin, Manifold& out) {
  collide_hull_hull(shapes.polyhedron(sa), pa, shapes.polyhedron(sb), pb, margin, out);
}

void collide_box_polyhedron(const ShapeTable& shapes, int sa, const Pose& pa, int sb,
                            const Pose& pb, double margin, Manifold& out) {
  collide_hull_hull(shapes.hull(sa), pa, shapes.polyhedron(sb), pb, margin, out);
}

}  // namespace etdem
