#include "etdem/collision/mesh_contacts.hpp"

#include "etdem/shapes/triangle_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etdem {

double triangle_distance(const TriangleMesh& m, int t, const Vec3& c, Vec3& q, TriangleFeature& f) {
  const double s = m.normals[t].dot(c - m.corner(t, 0));
  q = closest_point_triangle(c, m.corner(t, 0), m.corner(t, 1), m.corner(t, 2), f);
  if (s >= 0.0) return (c - q).norm();
  return f == TriangleFeature::Face ? s : std::numeric_limits<double>::infinity();
}

void MeshContacts::emit(const Pose& pose, double tol, Manifold& out, int limit) {
  kept_.clear();
  for (const Candidate& x : c_) {
    bool dup = false;
    for (Candidate& k : kept_)
      if ((k.p - x.p).squaredNorm() <= tol * tol && k.n.dot(x.n) > 1.0 - 1e-9) {
        k.gap = std::min(k.gap, x.gap);
        dup = true;
        break;
      }
    if (!dup) kept_.push_back(x);
  }
  const int n = static_cast<int>(kept_.size());
  if (n == 0) return;
  const int room = std::min(limit, Manifold::kMaxPoints) - out.count;
  if (room <= 0) return;
  std::vector<int>& pick = pick_;
  pick.clear();
  if (n <= room) {
    for (int k = 0; k < n; ++k) pick.push_back(k);
  } else {
    int p = 0;
    for (int k = 1; k < n; ++k)
      if (kept_[k].gap < kept_[p].gap) p = k;
    dist2_.assign(n, std::numeric_limits<double>::infinity());
    while (static_cast<int>(pick.size()) < room) {
      pick.push_back(p);
      int next = -1;
      double far = -1.0;
      for (int k = 0; k < n; ++k) {
        dist2_[k] = std::min(dist2_[k], (kept_[k].p - kept_[p].p).squaredNorm());
        if (dist2_[k] > far) far = dist2_[k], next = k;
      }
      if (next < 0 || far <= 0.0) break;
      p = next;
    }
  }
  bool same = true;
  for (int k : pick) same = same && kept_[k].n == kept_[pick[0]].n;
  if (out.count == 0) out.normal = pose.rotation * kept_[pick[0]].n;
  for (int k : pick) {
    const Vec3 p = pose.position + pose.rotation * kept_[k].p;
    if (same && !out.mixed)
      out.add(p, kept_[k].gap);
    else
      out.add(p, kept_[k].gap, pose.rotation * kept_[k].n);
  }
}

}  // namespace etdem
