#include "etdem/world/energy_ledger.hpp"

namespace etdem {

void EnergyLedger::measure(const Bodies& b, const Vec3& gravity) {
  double kt = 0.0, kr = 0.0, pe = 0.0;
  for (int i = 0; i < b.count(); ++i) {
    if (!b.is_dynamic(i)) continue;
    kt += 0.5 * b.mass[i] * b.velocity[i].squaredNorm();
    const Vec3& w = b.angular_velocity[i];
    kr += 0.5 * w.dot(world_inertia(b.orientation[i], b.inertia[i]) * w);
    pe -= b.mass[i] * gravity.dot(b.position[i]);
  }
  kinetic_translational = kt;
  kinetic_rotational = kr;
  potential = pe;
}

}  // namespace etdem
