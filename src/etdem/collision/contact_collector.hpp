// Candidate contact points of one narrow-phase call, before they go into a Manifold. A Manifold
// holds at most Manifold::kMaxPoints points; a polyhedron face with more vertices resting on a
// plane, or two many-sided faces clipped against each other, can produce more. All points are
// kept when they fit. Otherwise kMaxPoints of them are kept: the deepest first, then repeatedly
// the candidate farthest from those already kept (farthest-point sampling), which keeps the
// extent of the contact patch (so its support against tipping) and its deepest point.
// Deterministic: ties go to the lower candidate index. Points may carry normals of their own (a
// compound's parts touch along different normals); they are then emitted with add(p, g, n).
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

class ContactCollector {
 public:
  void clear() {
    point_.clear();
    gap_.clear();
    normal_.clear();
    with_normals_ = false;
  }
  void add(const Vec3& p, double g) {
    point_.push_back(p);
    gap_.push_back(g);
    normal_.push_back(Vec3::Zero());
  }
  void add(const Vec3& p, double g, const Vec3& n) {
    point_.push_back(p);
    gap_.push_back(g);
    normal_.push_back(n);
    with_normals_ = true;
  }
  int size() const { return static_cast<int>(point_.size()); }
  /// The smallest gap of the candidates (+infinity when there are none): the emitted manifold's,
  /// since the cut keeps the deepest.
  double least_gap() const {
    return gap_.empty() ? std::numeric_limits<double>::infinity()
                        : *std::min_element(gap_.begin(), gap_.end());
  }
  /// Appends the kept points to `out` (see above). With `normals_apart` (a compound's parts) the
  /// distance of the sampling adds the candidates' extent times the difference of the normals:
  /// a direction of contact that no kept point holds (a second pair of parts, an arm touching
  /// across a seam) is kept before more points of a patch already held. Equal normals add
  /// exactly 0, so points that share one normal are sampled as without it. With
  /// `touching_first` the candidates that touch or overlap (gap <= 0) are all sampled before any
  /// speculative one (gap > 0): a pair of compounds within the contact skin brings dozens of
  /// speculative points from parts far apart, and sampled by distance alone they took the room of
  /// overlapping points of the same direction (docs/design.md "Contacts"; measured in
  /// docs/notes/deep-contacts.md "The crosses' last deep contacts").
  /// At most `limit` points (at most kMaxPoints) are kept in all (a level-set grain's
  /// contact_points). A limit below kMaxPoints samples the candidates within kReducedBand times
  /// the candidates' extent of the deepest first, starting from the one farthest from their
  /// centroid, so that a few points hold a flat face by the same nodes step after step.
  void emit(Manifold& out, bool normals_apart = false, bool touching_first = false,
            int limit = Manifold::kMaxPoints);

  /// A reduced manifold's band of bearing candidates, relative to the candidates' extent: 3e-4 (a
  /// face tilted by less than 0.02 degrees bears on all its nodes). Two level-set cubes stacked
  /// with 8 or 4 points come to rest at 1e-8 m/s with a band of 1e-4 to 1e-3 of the extent;
  /// with 3e-3 the 4-point stack keeps rocking (2e-2 m/s), and so do both with no band (ties
  /// only; docs/design.md "Level-set grains").
  static constexpr double kReducedBand = 3e-4;

 private:
  std::vector<Vec3> point_;
  std::vector<double> gap_;
  std::vector<Vec3> normal_;
  bool with_normals_ = false;
  void put(Manifold& out, int k) const {
    if (with_normals_)
      out.add(point_[k], gap_[k], normal_[k]);
    else
      out.add(point_[k], gap_[k]);
  }
  /// The squared diagonal of the candidates' bounding box (at least one candidate).
  double extent2() const;
  std::vector<double> dist2_;         // farthest-point sampling: squared distance to the kept set
  std::vector<double> xs_, ys_, zs_;  // the candidates' coordinates
};

}  // namespace etdem
