// The multiple-impact method of Liu, Zhao & Brogliato (2009): frictionless Darboux-Keller shock
// dynamics integrated in impulse time, with the normal impulses distributed between contacts by
// their stiffness ratios and stored potential energies.
//
// Per island, in the Delassus form (contact i's normal velocity changes by sum_j D_ij dP_j with
// D = W^T M^-1 W built from r_A, r_B, n, inverse masses and inertias), with the paper's sign
// delta_dot = -u_n (positive while a contact compresses):
//
//   step size          dP = P_est / N                                           Eqs. 2.1-2.2
//   primary contact    the one with the highest potential energy E_i            Eq. 2.11
//                      (at the start of an impact: the fastest approaching)     Eq. 2.3
//   distributing law   dP_j = (K_j/K_i)^(1/(eta+1)) (E_j/E_i)^(eta/(eta+1)) dP  Eqs. 1.2, 2.7
//                      at the start: dP_j = (K_j/K_i) (dd_j/dd_i)^eta dP        Eq. 2.4
//                      a contact entering (again) with E_j = 0 and dd_j > 0:
//                      dP_j = (K_j/K_i) (dd_j/E_i)^eta dP^(eta+1)               Eq. 2.16
//   velocities         explicit Euler in impulse time                           Eqs. 2.5, 2.8
//   energies           E_j += (dd_j(l) + dd_j(l+1))/2 dP_j, with the contact's  Eq. 2.9
//                      own dP_j; bi-stiffness: divided by e_j^2 while expanding Eq. 2.10
//   termination        mono: E_j = (1 - e_j^2) W_c,j while expanding            Eq. 2.13
//                      bi:   E_j = 0 while expanding                            Eq. 2.12
//
// Readings where the paper is ambiguous or has typos (docs/solvers.md, docs/errata.md):
//  - The energy-ratio exponent is eta/(eta+1) (Eqs. 2.15, 3.5 and E = K delta^(eta+1)/(eta+1));
//    Eqs. 1.2, 2.7 and 4.5 print its inverse.
//  - Eqs. 2.9/2.10 use each contact's own increment dP_j (as printed they use the primary's).
//  - P_est (Eq. 2.1) sums momenta in the world frame, which makes the step depend on the frame
//    (an island falling fast would take one huge step). We use the momentum of the relative
//    motion at each approaching contact, P_est = sum_j dd_j(0) / D_jj: the same as Eq. 2.1 for a
//    body hitting a wall, the reduced-mass form for two bodies, Galilean invariant.
//  - The critical points the paper suggests to search with a variable step are located exactly:
//    a step in which a contact would reach its termination condition is shortened (all its
//    increments scaled by one factor, so the step stays an Euler step) to end there. A step in
//    which a contact turns from compression to expansion is split at the turning point for the
//    energy (Eqs. 2.9/2.10 on each part) and for W_c, which is the energy at the end of the last
//    compression (Eq. 1.4). A single contact is therefore resolved exactly for any step size.
//  - An entering contact's increment from Eq. 2.16 is capped at the primary's dP (the equation
//    grows without bound as E_i -> 0 at the end of the primary's expansion).
//  - e = 0 ends a contact at the end of its compression in both models (the expansion of the
//    bi-stiffness model has zero length).
//
// Energy: the trapezoidal work of Eq. 2.9 equals the kinetic energy change of each Euler step
// exactly, so kinetic energy plus the stored E_j is conserved by the integration itself; what a
// contact loses at termination (mono) or during expansion (bi) is booked as restitution, round-off
// left at termination as truncation.
#pragma once

#include <vector>

#include "etdem/solvers/body_contacts.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// Parameters of the LZB multiple-impact solver.
struct LzbSettings {
  enum class Model { Mono, Bi };
  double eta = 1.5;             // force-indentation exponent: 1 linear, 3/2 Hertz
  Model model = Model::Mono;    // mono-stiffness (Eq. 2.13) or bi-stiffness (Eq. 2.10)
  int steps = 1000;             // N of Eq. 2.2: dP = P_est / N
  long max_steps = 10'000'000;  // guard on impulse steps per island and step (counted)
  /// A contact with no stored energy takes part only while delta_dot > tol, tol = this times the
  /// island's largest initial approach speed.
  double velocity_tolerance = 1e-9;

  bool operator==(const LzbSettings&) const = default;
};

/// The keys of [simulation.lzb].
std::vector<Setting<LzbSettings>> lzb_setting_keys();

class LzbSolver final : public Solver {
 public:
  explicit LzbSolver(const LzbSettings& settings) : settings_(settings) {}
  const char* name() const override { return "lzb"; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;

 private:
  struct Scratch {
    // Delassus matrix D = W^T M^-1 W in compressed rows: contacts sharing a body.
    std::vector<int> row_start, col;
    std::vector<double> val;
    std::vector<double> diag;  // D_jj [1/kg]
    // Per contact of the island being resolved.
    std::vector<double> dd;         // delta_dot = -u_n [m/s]
    std::vector<double> change;     // change of delta_dot over the current step [m/s]
    std::vector<double> energy;     // E_j, potential energy of the contact [J]
    std::vector<double> work_c;     // W_c,j, energy at the end of the last compression [J]
    std::vector<double> impulse;    // P_j, accumulated normal impulse [N s]
    std::vector<double> increment;  // dP_j of the current step [N s]
    std::vector<double> event;      // fraction of the step at which the contact terminates
    BodyContacts graph;             // body -> contacts
    std::vector<int> cursor;        // per contact: its column in the row being assembled, or -1
  };

  void setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const;
  /// Fraction of the current step at which contact j reaches its termination condition, or a
  /// value > 1 when it does not within the step.
  double termination_fraction(const Contact& c, const Scratch& s, int j) const;

  LzbSettings settings_;
  std::vector<Scratch> scratch_;
};

/// The lzb solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<LzbSettings> kLzbRecord{
    .name = "lzb",
    .summary = "LZB multiple impacts (2009): impulse-time integration, frictionless",
    .make = make_solver_from<LzbSolver, LzbSettings>,
    .keys = lzb_setting_keys,
    .friction = false,
    .stiffness = true,
};

}  // namespace etdem
