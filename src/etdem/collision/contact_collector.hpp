// Candidate contact points of one narrow-phase call, before they go into a Manifold. A Manifold
// holds at most Manifold::kMaxPoints points; a polyhedron face with more vertices resting on a
// plane, or two many-sided faces clipped against each other, can produce more. All points are
// kept when they fit. Otherwise kMaxPoints of them are kept: the deepest first, then repeatedly
// the candidate farthest from those already kept (farthest-point sampling), which keeps the
// extent of the contact patch (so its support against tipping) and its deepest point.
// Deterministic: ties go to the lower candidate index.
#pragma once

#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

class ContactCollector {
 public:
  void clear() {
    point_.clear();
    gap_.clear();
  }
  void add(const Vec3& p, double g) {
    point_.push_back(p);
    gap_.push_back(g);
  }
  int size() const { return static_cast<int>(point_.size()); }
  /// Appends the kept points to `out` (see above).
  void emit(Manifold& out);

 private:
  std::vector<Vec3> point_;
  std::vector<double> gap_;
  std::vector<double> dist2_;  // farthest-point sampling: squared distance to the kept set
};

}  // namespace etdem
