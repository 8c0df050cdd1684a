// Geometric checks of a scenario's initial state: no two bodies and no body and wall may
// overlap at the start (an impulse method would have to fight the overlap from step one, and a
// grain generated behind a one-sided wall would be shot back through it).
#pragma once

#include <vector>

#include "etdem/io/scenario_spec.hpp"

namespace etdem {

class World;

/// Throws a ScenarioError naming the first overlapping pair (file order), the depth and the
/// offending position. Pairs are found with the engine's O(N) grid broad phase and tested with
/// its narrow phase, so 100 000 grains take well under a second. Penetrations shallower than
/// 1e-6 of the smallest grain thickness (round-off of touching grains) are accepted.
/// `world` is the scenario built by build_world, `origin` where each of its bodies came from.
void check_initial_overlaps(const Scenario& scenario, const World& world,
                            const std::vector<BodyOrigin>& origin);

}  // namespace etdem
