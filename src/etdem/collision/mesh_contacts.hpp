// Shared pieces of the narrow phase against a triangle mesh: the closest point of a triangle with
// the feature it lies on, and the list of candidate points (each with its own normal) that goes
// into a Manifold with duplicates merged and at most Manifold::kMaxPoints kept.
#pragma once

#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/closest_point_triangle.hpp"

namespace etdem {

struct TriangleMesh;

/// One-sided signed distance of c to triangle t of m (mesh frame), with its closest point q and
/// the feature q lies on: |c - q| in front of the triangle's plane, the (negative) plane distance
/// behind it over the triangle, +inf behind it elsewhere (the back does not count).
double triangle_distance(const TriangleMesh& m, int t, const Vec3& c, Vec3& q, TriangleFeature& f);

/// Candidate contact points in the mesh's body frame, each with its normal (mesh to body).
class MeshContacts {
 public:
  void clear() { c_.clear(); }
  void add(const Vec3& p, double gap, const Vec3& n) { c_.push_back({p, gap, n}); }
  int size() const { return static_cast<int>(c_.size()); }
  /// Merges points that coincide (within `tol` m, same normal), keeps at most `limit` (at most
  /// kMaxPoints: the deepest, then farthest-point sampling as ContactCollector), turns them into
  /// world coordinates with the mesh's pose and appends them to `out`. One shared normal is
  /// stored as the manifold normal; differing normals are stored per point.
  void emit(const Pose& mesh_pose, double tol, Manifold& out, int limit = Manifold::kMaxPoints);

 private:
  struct Candidate {
    Vec3 p;
    double gap;
    Vec3 n;
  };
  std::vector<Candidate> c_, kept_;
  std::vector<double> dist2_;
  std::vector<int> pick_;
};

}  // namespace etdem
