// The position projection's share of one contact (jolt appendix B.18; World::correct_positions,
// and the split run's hosts and detecting ranks, which must give the same bits): the depth
// beyond the slop, k_p times it along the normal, shared between the two bodies by inverse mass
// and weighted by the square of the depth. A body moves by the weighted mean of its shares.
#pragma once

#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct ProjectionShare {
  bool moves = false;        // the contact penetrates beyond the slop and a body can move
  Vec3 to_a = Vec3::Zero();  // weighted correction added to A
  Vec3 to_b = Vec3::Zero();  // weighted correction subtracted from B
  double weight = 0.0;       // depth^2
};

/// `gap` and `normal` (from B to A) of the contact, `ia` and `ib` the inverse masses of the
/// bodies that may move (0 for a wall or a sleeper), `kp` and `slop` the settings.
inline ProjectionShare projection_share(double gap, const Vec3& normal, double ia, double ib,
                                        double kp, double slop) {
  ProjectionShare s;
  const double depth = -gap - slop;
  if (depth <= 0.0 || ia + ib <= 0.0) return s;
  const Vec3 d = kp * depth * normal;
  s.weight = depth * depth;
  s.to_a = (s.weight * (ia / (ia + ib))) * d;
  s.to_b = (s.weight * (ib / (ia + ib))) * d;
  s.moves = true;
  return s;
}

/// Adds share `s` of a contact between bodies a and b (indices into `sum` and `weight`) to
/// their sums: to_a to A's, -to_b to B's, the weight to both; a body that cannot move (inverse
/// mass `ia` or `ib` 0: a wall, a sleeper) takes nothing, so its index is never read.
inline void add_share(const ProjectionShare& s, int a, double ia, int b, double ib,
                      std::vector<Vec3>& sum, std::vector<double>& weight) {
  if (ia > 0.0) {
    sum[a] += s.to_a;
    weight[a] += s.weight;
  }
  if (ib > 0.0) {
    sum[b] -= s.to_b;
    weight[b] += s.weight;
  }
}

}  // namespace etdem
