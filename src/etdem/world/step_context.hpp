// What one step of the world hands from phase to phase (Box2D's step context). World::step
// passes these lists explicitly, so which phase fills what and which phase reads it is written
// in one place; no phase reads a list it was not given. The vectors keep their capacity from
// step to step (no allocation once sizes are stable); nothing here outlives the step.
#pragma once

#include <utility>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/math.hpp"
#include "etdem/world/islands.hpp"

namespace etdem {

/// Who takes part in the step and which pairs may touch (broad phase).
struct StepBodies {
  std::vector<char> dynamic;               // per body: active and free to move
  std::vector<int> dynamic_ids;            // the dynamic bodies, ascending
  std::vector<int> unbounded;              // active planes, tested against every dynamic body
  std::vector<double> speed;               // per active body: World::speed_bound [m/s]
  std::vector<double> spin;                // per active body: |w| R, its part of speed [m/s]
  std::vector<std::pair<int, int>> pairs;  // candidate pairs of bounded bodies, sorted
};

/// The narrow phase's contact points (global body ids) and which of them join islands.
struct StepContacts {
  std::vector<Contact> contacts;  // in pair order, then body-plane contacts; impulses written by
                                  // the solve
  std::vector<int> candidates;    // indices of contacts that join islands
  /// Per candidate pair (StepBodies::pairs), and per dynamic body and plane
  /// (k * unbounded.size() + plane for dynamic_ids[k]): the margin the narrow phase tested it
  /// with [m], or -1 when it reported a point (or the pair was not tested). A pair it did not
  /// report may still be closed by the solve's velocities (World::missed_substeps).
  std::vector<double> pair_margin, plane_margin;
};

/// How each body moved during the step, for its position update (World::displacement).
struct Motion {
  bool free = true;               // in no island: no contact this step
  double impact_time = 0.0;       // [s] time of its first impact within the step, 0 = none
  Vec3 impact_velocity{0, 0, 0};  // [m/s] its velocity at that impact
};

/// The pseudo-velocities of the wall correction (resting = "wall-correction"): they move a
/// grain in this step's position update and are then dropped. Empty when not in use.
struct WallCorrection {
  std::vector<Vec3> dv, dw;  // per body [m/s], [rad/s]
};

}  // namespace etdem
