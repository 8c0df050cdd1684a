#include "etdem/world/energy_ledger.hpp"

#include "etdem/core/exact_sum.hpp"
#include "etdem/core/parallel_sums.hpp"

namespace etdem {

void EnergyLedger::measure(const Bodies& b, const Vec3& gravity) {
  // Exact sums: the same bits whatever the order of the bodies (ranks of a distributed run).
  ExactSum kt, kr, pe;
  measure_sums(b, gravity, nullptr, kt, kr, pe);
  kinetic_translational = kt.value();
  kinetic_rotational = kr.value();
  potential = pe.value();
}

void EnergyLedger::measure_sums(const Bodies& b, const Vec3& gravity,
                                const std::vector<char>* counted, ExactSum& kt, ExactSum& kr,
                                ExactSum& pe) {
  // On every thread; exact sums, so the same bits on any thread count.
  const auto sums = parallel_sums<3>(static_cast<std::size_t>(b.count()), [&](std::size_t k,
                                                                             auto& sum) {
    const int i = static_cast<int>(k);
    if (!b.is_dynamic(i) || (counted && !(*counted)[i])) return;
    sum[0] += 0.5 * b.mass[i] * b.velocity[i].squaredNorm();
    const Vec3& w = b.angular_velocity[i];
    sum[1] += 0.5 * w.dot(world_inertia(b.orientation[i], b.inertia[i]) * w);
    sum[2] += -(b.mass[i] * gravity.dot(b.position[i]));
  });
  kt.add(sums[0]);
  kr.add(sums[1]);
  pe.add(sums[2]);
}

}  // namespace etdem
