// The energy tracking method, exactly as Tang, Paluszny & Zimmerman (2014), Algorithm 2:
//
//   round r = 1 .. max_rounds (300, §6):
//     I   compression: repeatedly take the contact with the smallest relative normal velocity
//         (heap by u_n) while it approaches; raise its u_n by du = |u_n(s0)| / lambda, or to
//         exactly zero when that would overshoot (Eqs. 62-63, docs/errata.md: the step is
//         positive); impulse with friction by Eqs. 50-55; its elastic energy W grows by minus the
//         normal work, Eqs. 18 and 64.
//     II  restitution: W <- e^2 W at every contact (Stronge's hypothesis, Eq. 65).
//     III separation: sweep the contacts in order; each with W > 0 gets du = |u_n(s0)| / lambda,
//         capped so that it releases at most W (Eq. 49, Eq. 66), until no energy remains.
//   until no contact approaches. After max_rounds the restitution is set to zero (guard, counted).
//
// Choices where the paper is silent or ambiguous (docs/solvers.md):
//  - u_n(s0) in Eq. 62 is per contact, taken when the island's resolution starts. A contact that
//    is driven into faster approach later (or did not approach at s0) takes the larger |u_n|
//    when it is selected: with a step fixed by a tiny |u_n(s0)| a wall contact loaded by its
//    neighbours' friction needed 10^8 impulses (measured), the paper's 300-round guard never
//    being reached inside one compression stage.
//  - W is stored as minus the accumulated normal work (positive while compressed).
//  - With friction, the cap of Eq. 49 uses the effective normal compliance of the actual
//    frictional impulse (du_n / p_n), which reduces to n.K n (Eq. 49) when mu = 0. Energy that a
//    capped step leaves in or takes from a contact beyond the tolerance is reported as
//    `truncated`, so the ledger still closes.
#pragma once

#include <vector>

#include "etdem/solvers/etm_rounds.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// The keys of [simulation.etm].
std::vector<Setting<EtmSettings>> etm_setting_keys();

/// The guards and tolerances of the two ETM solvers (etm, etm-priority), whose settings structs
/// share these fields.
template <class S>
void add_etm_guard_keys(std::vector<Setting<S>>& out) {
  using namespace setting;
  out.push_back(field<S>("max_rounds", "", closed(1, 1e9),
                         "round guard after which restitution is set to 0 (ETM 2014 §6)",
                         &S::max_rounds));
  out.push_back(field<S>("max_iterations", "", at_least(1),
                         "cap on impulses per collision group and step (a guard, counted)",
                         &S::max_iterations));
  out.push_back(field<S>("velocity_tolerance", "1", at_least(0),
                         "a contact stops approaching at u_n >= -tol, tol relative to the "
                         "collision group's largest initial approach speed",
                         &S::velocity_tolerance));
  out.push_back(
      field<S>("energy_tolerance", "1", at_least(0),
               "elastic energy below this fraction of the collision group's peak is truncated",
               &S::energy_tolerance));
}

class EtmSolver final : public Solver {
 public:
  explicit EtmSolver(const EtmSettings& settings) : settings_(settings) {}
  const char* name() const override { return "etm"; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;

 private:
  struct Scratch : EtmScratch {
    std::vector<double> increment;  // per contact: |u_n(s0)| / lambda [m/s]
  };

  void setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const;
  /// Stage I. Returns false when the iteration cap fired.
  bool compress(std::span<const Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st) const;
  /// Stage III. Returns false when the iteration cap fired.
  bool separate(std::span<const Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st) const;

  EtmSettings settings_;
  std::vector<Scratch> scratch_;
};

/// The etm solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<EtmSettings> kEtmRecord{
    .name = "etm",
    .summary = "energy tracking method (ETM 2014): sequential, energy tracked per contact",
    .make = make_solver_from<EtmSolver, EtmSettings>,
    .keys = etm_setting_keys,
};

}  // namespace etdem
