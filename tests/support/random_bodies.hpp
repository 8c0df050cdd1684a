// Bodies at random states for tests of what is written and read back bit for bit (body records,
// island parts): every field set, some fixed, some asleep, some named.
#pragma once

#include <random>
#include <string>

#include "etdem/core/bodies.hpp"

namespace etdem::test {

/// `n` bodies from `seed`: random positions, orientations, velocities, masses and inertias;
/// every fifth fixed, every seventh from the fourth asleep, every fourth named.
inline Bodies random_bodies(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto vec = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  Bodies b;
  for (int i = 0; i < n; ++i) {
    const Quat q(u(rng), u(rng), u(rng), u(rng));
    const bool fixed = i % 5 == 0;
    b.add(vec(), q, vec(), vec(), 0.1 + 0.5 * (1 + u(rng)), Vec3(1e-3, 2e-3, 3e-3) * (2 + u(rng)),
          i % 3, i % 2, fixed, i % 4 == 0 ? "grain " + std::to_string(i) : "");
    if (i % 7 == 3) b.flags[i] |= kBodyAsleep;
  }
  b.update_world_inertia();
  return b;
}

}  // namespace etdem::test
