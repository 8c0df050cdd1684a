// Energy ledger (F13; ETM 2014 Eq. 67): mechanical energy still in the system and the energy
// each mechanism has removed, cumulative since the start. By construction
//   initial + external = kinetic + potential + elastic + restitution + friction + damping
//                        + net_damping + correction + truncation + integration + residual,
// where residual is what no mechanism accounts for (round-off). Dissipated terms are positive
// when energy left the system; `integration` is the energy the time discretisation adds (so it
// is usually negative): symplectic Euler's gravity kick changes the kinetic energy by
// m g.v dt + m |g|^2 dt^2 / 2 while gravity does the work m g.v' dt over the step's displacement,
// and the rotation update that keeps L exact changes the rotational energy of a tumbling body.
//
// The columns are declared once, in kLedgerColumns below: energy.csv, summary.json, checkpoints,
// the Python module and the command line's report iterate over it.
#pragma once

#include <span>
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
  /// The dissipated columns summed in kLedgerColumns' order.
  double dissipated() const;
  double residual() const { return initial + external - total() - dissipated(); }

  /// Recomputes the stored energies (kinetic, potential) from the bodies.
  void measure(const Bodies& bodies, const Vec3& gravity);
  /// The exact sums measure() rounds, over the dynamic bodies `counted` marks (null: all): a
  /// rank of a decomposed run sums the grains it owns, and the ranks' sums merge exactly.
  static void measure_sums(const Bodies& bodies, const Vec3& gravity,
                           const std::vector<char>* counted, ExactSum& translational,
                           ExactSum& rotational, ExactSum& potential);
};

/// One column of the ledger: its name (energy.csv, summary.json, the Python module), the member
/// that holds it, and its kind: an energy the system holds (total() adds them), one a mechanism
/// removed (dissipated() adds them), or a reference the balance starts from.
struct LedgerColumn {
  enum Kind { kStored, kDissipated, kReference };
  const char* name;
  double EnergyLedger::*member;
  Kind kind;
};

/// Every column, in energy.csv's order within each kind (the file puts `total` after the stored
/// ones and `residual` last; the references are not in it). A new column is one line here, one
/// member above and the mechanism that books it.
inline constexpr LedgerColumn kLedgerColumns[] = {
    {"kinetic_translational", &EnergyLedger::kinetic_translational, LedgerColumn::kStored},
    {"kinetic_rotational", &EnergyLedger::kinetic_rotational, LedgerColumn::kStored},
    {"potential", &EnergyLedger::potential, LedgerColumn::kStored},
    {"elastic", &EnergyLedger::elastic, LedgerColumn::kStored},
    {"restitution", &EnergyLedger::restitution, LedgerColumn::kDissipated},
    {"friction", &EnergyLedger::friction, LedgerColumn::kDissipated},
    {"damping", &EnergyLedger::damping, LedgerColumn::kDissipated},
    {"net_damping", &EnergyLedger::net_damping, LedgerColumn::kDissipated},
    {"correction", &EnergyLedger::correction, LedgerColumn::kDissipated},
    {"truncation", &EnergyLedger::truncation, LedgerColumn::kDissipated},
    {"integration", &EnergyLedger::integration, LedgerColumn::kDissipated},
    {"initial", &EnergyLedger::initial, LedgerColumn::kReference},
    {"external", &EnergyLedger::external, LedgerColumn::kReference},
};

inline double EnergyLedger::dissipated() const {
  // From the first dissipated column, not from 0: the same bits as the columns' sum written out.
  bool first = true;
  double sum = 0.0;
  for (const LedgerColumn& c : kLedgerColumns) {
    if (c.kind != LedgerColumn::kDissipated) continue;
    sum = first ? this->*c.member : sum + this->*c.member;
    first = false;
  }
  return sum;
}

}  // namespace etdem
