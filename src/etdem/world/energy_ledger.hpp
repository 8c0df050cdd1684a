// Energy ledger (F13; ETM 2014 Eq. 67): mechanical energy still in the system and the energy
// each mechanism has removed, cumulative since the start. By construction
//   initial + external = kinetic + potential + elastic + restitution + friction + damping
//                        + net_damping + correction + truncation + integration + residual,
// where residual is what no mechanism accounts for (round-off). Dissipated terms are positive
// when energy left the system; `integration` is the energy the time discretisation adds (so it
// is usually negative): symplectic Euler's gravity kick changes the kinetic energy by
// m g.v dt + m |g|^2 dt^2 / 2 while gravity does the work m g.v' dt over the step's displacement,
// and the rotation update that keeps L exact changes the rotational energy of a tumbling body.
#pragma once

#include <vector>

#include "etdem/core/bodies.hpp"
#include "etdem/core/exact_sum.hpp"

namespace etdem {

struct EnergyLedger {
  double kinetic_translational = 0.0;  // [J]
  double kinetic_rotational = 0.0;     // [J]
  double potential = 0.0;              // [J] -m g.x summed over dynamic bodies
  double elastic = 0.0;                // [J] stored between steps: the links of nets (world/net)
  // Cumulative dissipation [J].
  double restitution = 0.0;  // Stronge's hypothesis, W (1 - e^2)
  double friction = 0.0;     // minus the work of tangential impulses
  double damping = 0.0;      // global damping, 2024 Eqs. 47-48
  double net_damping = 0.0;  // the dashpots of net links, and the elastic energy of links that
                             // broke
  double correction = 0.0;   // minus the potential energy added by position projection
  double truncation = 0.0;   // elastic energy left when a solver stops (tolerances, guards)
  double integration = 0.0;  // minus the energy added by the time discretisation
  double initial = 0.0;      // [J] total at the start
  double external = 0.0;     // [J] energy put in from outside the step: state written between
                             // steps (the Python module's arrays; World::book_external_change)

  double kinetic() const { return kinetic_translational + kinetic_rotational; }
  double total() const { return kinetic() + potential + elastic; }
  double dissipated() const {
    return restitution + friction + damping + net_damping + correction + truncation + integration;
  }
  double residual() const { return initial + external - total() - dissipated(); }

  /// Recomputes the stored energies (kinetic, potential) from the bodies.
  void measure(const Bodies& bodies, const Vec3& gravity);
  /// The exact sums measure() rounds, over the dynamic bodies `counted` marks (null: all): a
  /// rank of a decomposed run sums the grains it owns, and the ranks' sums merge exactly.
  static void measure_sums(const Bodies& bodies, const Vec3& gravity,
                           const std::vector<char>* counted, ExactSum& translational,
                           ExactSum& rotational, ExactSum& potential);
};

}  // namespace etdem
