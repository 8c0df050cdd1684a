// What one sub-step books in the energy ledger, summed exactly (core/exact_sum) as its phases
// produce it and booked once, at the ledger phase, in one fixed order (World::book_substep).
// Exact sums give the same bits in any order of bodies, islands, threads or ranks, so a run
// split over ranks reduces them (Domain::reduce) and books the serial run's bits.
#pragma once

#include <array>
#include <vector>

#include "etdem/core/exact_sum.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/world/net.hpp"

namespace etdem {

struct SubstepSums {
  ExactSum kick;                   // [J] gravity's kick on the awake bodies (booked as integration)
  std::vector<NetKick> net_kicks;  // per net: the links' kick (World::kick_nets)
  ExactSum wake_kick;              // [J] the kick sleepers woken within the step got
  NetBooking nets;                 // the kick the contacts took back at the nets' nodes
  ExactSum island_kick;            // [J] what the islands' gravity split moved
  SolverSums solver, resting;      // the collision solver's and the resting pass's, over islands
  long solved = 0;                 // islands solved (their kick and statistics are booked)
  ExactSum correction_work;        // [J] gravity's work over the position projection
  long penetrating = 0;            // contacts the projection moved (its work is booked)
  ExactSum damped, integration, wall_work;  // [J] damping, gravity over the motion, walls
  ExactSum sleep_energy;                    // [J] kinetic energy set to zero by falling asleep
  ExactSum kinetic_translational, kinetic_rotational, potential;  // [J] at the sub-step's end

  /// Every exact sum above, in one fixed order: what a split run reduces over the ranks.
  std::array<ExactSum*, 24> exact_sums() {
    return {&kick,
            &wake_kick,
            &nets.islands_integration,
            &nets.islands_damping,
            &nets.free.spring,
            &nets.free.removed,
            &nets.free.dashpot_w,
            &island_kick,
            &solver.restitution,
            &solver.friction,
            &solver.truncated,
            &solver.integration,
            &resting.restitution,
            &resting.friction,
            &resting.truncated,
            &resting.integration,
            &correction_work,
            &damped,
            &integration,
            &wall_work,
            &sleep_energy,
            &kinetic_translational,
            &kinetic_rotational,
            &potential};
  }
};

}  // namespace etdem
