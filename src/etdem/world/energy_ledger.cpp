#include "etdem/world/energy_ledger.hpp"

#include "etdem/core/exact_sum.hpp"

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
  for (int i = 0; i < b.count(); ++i) {
    if (!b.is_dynamic(i) || (counted && !(*counted)[i])) continue;
    kt += 0.5 * b.mass[i] * b.velocity[i].squaredNorm();
    const Vec3& w = b.angular_velocity[i];
    kr += 0.5 * w.dot(world_inertia(b.orientation[i], b.inertia[i]) * w);
    pe += -(b.mass[i] * gravity.dot(b.position[i]));
  }
}

}  // namespace etdem
