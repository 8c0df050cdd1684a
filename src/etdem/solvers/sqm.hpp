// The sequential impulse method (SQM) as described in the appendix of Tang, Paluszny & Zimmerman
// (2014), Eqs. 71-76, with the contact order of Chatterjee (the paper's ref. 55):
//
//   heap of the island's contacts keyed by the relative normal velocity u_n (most negative first);
//   while the top contact approaches (u_n < -tol):
//     one Newton impact at that contact alone: target u_n -> -e u_n (Eqs. 71-73); the sticking
//     impulse p = K^-1 du that also zeroes the tangential relative velocity (Eq. 73, Eq. 8) if it
//     lies inside the Coulomb cone (Eq. 74), otherwise the sliding impulse
//     p = p_n (n + mu q), p_n = -(1 + e) u_n / (n.K(n + mu q)) (Eqs. 75-76; docs/errata.md: Eq.
//     75's printed (n - mu q) must read (n + mu q), the only reading that gives u_n -> -e u_n);
//     update the two bodies and re-key every contact they touch (body -> contact adjacency).
//
// Choices where the appendix is silent (docs/solvers.md):
//  - Friction direction q: opposite to the slip velocity when the bodies slip, else along the
//    tangential part of the sticking impulse; the same reading as ETM
//    (impulse::frictional_impulse).
//  - Energy: the work of each impulse is split by its components, Eq. 18: minus the normal work is
//    booked as restitution, minus the rest (tangential) as friction. For one impulse of fixed
//    direction the normal work is exactly (1 - e^2) times the compression work, Newton's loss.
//    No energy is stored between impulses, so `truncated` is always 0.
//  - Tolerance: a contact approaches while u_n < -tol, tol = velocity_tolerance times the island's
//    largest initial approach speed (as EtmSettings::velocity_tolerance).
//  - Energy guard: where the collision matrix couples normal and tangential directions (a box
//    corner), the one-shot frictional impulse can create energy (Kane's paradox); it is then
//    replaced by the frictionless Newton impulse and a guard is counted.
//  - Bound: at most max_iterations impulses per island and step; when an approaching contact is
//    left at the cap the solver stops, counts a guard and reports the contacts still approaching.
//  - SolverStats::rounds: the largest number of impulses any one contact of the island received
//    (1 when every contact was resolved once, as in a Newton's cradle).
#pragma once

#include <vector>

#include "etdem/solvers/body_contacts.hpp"
#include "etdem/solvers/contact_heap.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// Parameters of the sequential impulse method.
struct SqmSettings {
  /// A contact with u_n >= -tol no longer approaches, tol = velocity_tolerance times the largest
  /// initial approach speed of the island (same meaning as EtmSettings::velocity_tolerance).
  double velocity_tolerance = 1e-4;
  /// Cap on impulses per island per step. A ball held between two walls with e = 1 never stops
  /// (Chatterjee's "infinite calculations"); the cap ends it and is counted as a guard.
  long max_iterations = 1'000'000;

  bool operator==(const SqmSettings&) const = default;
};

/// The keys of [simulation.sqm].
std::vector<Setting<SqmSettings>> sqm_setting_keys();

class SqmSolver final : public Solver {
 public:
  explicit SqmSolver(const SqmSettings& settings) : settings_(settings) {}
  const char* name() const override { return "sqm"; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;

 private:
  struct Scratch {
    std::vector<Mat3> k, k_inv;  // collision matrix and its inverse (inverse only if mu > 0)
    std::vector<long> impulses;  // impulses applied per contact
    BodyContacts graph;          // body -> contacts
    ContactHeap heap;            // keyed by u_n
  };

  void setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const;

  SqmSettings settings_;
  std::vector<Scratch> scratch_;
};

/// The sqm solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<SqmSettings> kSqmRecord{
    .name = "sqm",
    .summary = "sequential impulse method (ETM 2014 appendix)",
    .make = make_solver_from<SqmSolver, SqmSettings>,
    .keys = sqm_setting_keys,
};

}  // namespace etdem
