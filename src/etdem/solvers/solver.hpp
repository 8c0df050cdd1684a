// The one small interface every impulse solver implements. A solver resolves the collisions of
// one island: a span of plain-data contacts whose body ids are island-local (-1 = static body),
// and the island's body velocities, which it updates in place. It never sees positions, shapes or
// any other world state, so every solver can be tested on hand-built contacts.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "etdem/collision/contact.hpp"
#include "etdem/core/exact_sum.hpp"

namespace etdem {

/// Island-local view of the velocities a solver may change and the inverse mass data it reads.
/// Length of every array = count (dynamic bodies of the island).
struct IslandBodies {
  int count = 0;
  Vec3* v = nullptr;                  // [m/s]
  Vec3* w = nullptr;                  // world frame [rad/s]
  const double* inv_mass = nullptr;   // [1/kg]
  const Mat3* inv_inertia = nullptr;  // world frame [1/(kg m^2)]
  /// Centres of mass [m], optional: a solver that orders its work in space (the resting pass's
  /// blocked sweeps of a large island) reads them; null keeps every solver in contact order.
  const Vec3* x = nullptr;
};

/// What a solver reports for one island; summed over islands for the step.
struct SolverStats {
  long iterations = 0;           // impulses applied
  long rounds = 0;               // compression/restitution/separation rounds (ETM), sweeps (others)
  long guards_fired = 0;         // bounds hit (round guard, iteration cap)
  long approaching_left = 0;     // contacts still approaching when the solver stopped
  long shock_bound_reached = 0;  // bodies the resting pass's shock propagation left unsettled
  /// Impulses whose Coulomb sliding form would have created energy (a coupled collision matrix,
  /// e.g. a box corner with large mu: n.K(n + mu q) <= 0 or slip reversing within one impulse,
  /// Kane's paradox) and were replaced by the frictionless impulse. In the resting pass: bodies
  /// whose shock-propagation friction against a moving support would have raised the energy
  /// and was taken against their own slip instead.
  long friction_fallbacks = 0;
  /// Islands whose solve would have raised the kinetic energy and was scaled back to no net
  /// work (the resting pass, solvers/resting.cpp; smm with friction, solvers/smm.cpp).
  long energy_guards = 0;
  long blocked_islands = 0;  // islands the resting pass swept by spatial blocks
  long block_leftovers = 0;  // their contacts wider than a block, relaxed one by one after
  double dissipated_restitution = 0.0;  // [J] energy removed by restitution (Stronge)
  double dissipated_friction = 0.0;     // [J] minus the work of tangential impulses
  double truncated = 0.0;  // [J] elastic energy left in contacts when the solver stopped
                           // (tolerance, guard); > 0 removed from, < 0 added to the system
  /// [J] the time discretisation's share of the kinetic energy the solver changed (> 0
  /// removed, < 0 added): the resting pass's impulses cancel the step's gravity kick on grains
  /// at rest, and a unilateral contact's impulse on a contact that separated within the step
  /// does positive work no continuous contact force would (solvers/resting.cpp). Booked in the
  /// ledger's `integration` column, so `restitution` and `friction` never decrease.
  double integration = 0.0;

  /// Nets the two dissipation parts of one island's solve. Where the collision matrix couples
  /// the normal and tangential directions, how a contact's work splits between its normal and
  /// tangential parts is a convention, and a negative part is energy the coupling moved into
  /// the other: it is taken from the other part. A sum still negative is energy the solver
  /// created, left visible. Called once per island and solver, so the restitution and friction
  /// columns of the ledger never decrease while no solver creates energy.
  void net_dissipation() {
    if (dissipated_restitution < 0.0) {
      dissipated_friction += dissipated_restitution;
      dissipated_restitution = 0.0;
    } else if (dissipated_friction < 0.0) {
      dissipated_restitution += dissipated_friction;
      dissipated_friction = 0.0;
      if (dissipated_restitution < 0.0) {  // the sum is negative: keep it visible in friction
        dissipated_friction = dissipated_restitution;
        dissipated_restitution = 0.0;
      }
    }
  }
  /// Books what the dissipation parts still hold below zero as the time discretisation's
  /// (`integration`): for passes whose impulses stand for forces through the step (resting).
  void negative_dissipation_to_integration() {
    for (double* d : {&dissipated_restitution, &dissipated_friction})
      if (*d < 0.0) {
        integration += *d;
        *d = 0.0;
      }
  }

  void add(const SolverStats& o) {
    iterations += o.iterations;
    rounds += o.rounds;
    guards_fired += o.guards_fired;
    approaching_left += o.approaching_left;
    shock_bound_reached += o.shock_bound_reached;
    friction_fallbacks += o.friction_fallbacks;
    energy_guards += o.energy_guards;
    blocked_islands += o.blocked_islands;
    block_leftovers += o.block_leftovers;
    dissipated_restitution += o.dissipated_restitution;
    dissipated_friction += o.dissipated_friction;
    truncated += o.truncated;
    integration += o.integration;
  }
};

/// SolverStats summed over a step's islands, the energies exactly (core/exact_sum): the same
/// bits in any island order, on any number of threads or hosts.
struct SolverSums {
  SolverStats counts;  // the counters; its energy fields are replaced by the exact sums
  ExactSum restitution, friction, truncated, integration;

  void add(const SolverStats& s) {
    counts.add(s);
    restitution += s.dissipated_restitution;
    friction += s.dissipated_friction;
    truncated += s.truncated;
    integration += s.integration;
  }
  /// Adds the step's sums to `out` (zero at the start of a step: then `out` becomes them).
  void add_to(SolverStats& out) const {
    SolverStats step = counts;
    step.dissipated_restitution = restitution.value();
    step.dissipated_friction = friction.value();
    step.truncated = truncated.value();
    step.integration = integration.value();
    out.add(step);
  }
};

/// Parameters of the energy tracking method (ETM 2014). Defaults follow the paper.
struct EtmSettings {
  int lambda = 30;       // velocity increments per collision, Eq. 62 (paper: "lambda = 30")
  int max_rounds = 300;  // round guard after which restitution is set to zero (§6)
  long max_iterations = 50'000'000;  // cap on impulses per call per step (never reached in
                                     // normal use; counted as a guard when it fires)
  /// A contact with u_n >= -tol no longer approaches, tol = velocity_tolerance times the largest
  /// initial approach speed of the contacts the solver is given: in a world, one collision group
  /// (world/collision_groups.hpp) (2024 §3.3: "a threshold value is chosen to truncate
  /// small values"). 1e-4 at the g dt = 0.016 m/s of a resting pile leaves 1.6e-6 m/s, a
  /// penetration of 3e-9 m per step at dt = 1/600 s.
  double velocity_tolerance = 1e-4;
  double energy_tolerance = 1e-12;  // relative to the group's peak elastic energy

  bool operator==(const EtmSettings&) const = default;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual const char* name() const = 0;
  /// Sizes per-thread scratch space; called before resolve() is used from `threads` threads.
  virtual void prepare(int threads) = 0;
  /// Resolves the collisions of one island. `thread` selects the scratch space. Solvers read
  /// contacts as input; the only fields they may write are the impulse outputs.
  virtual SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) = 0;
};

}  // namespace etdem
