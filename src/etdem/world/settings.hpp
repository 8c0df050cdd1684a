// Plain settings structs with their defaults. Input files become these; the world never parses
// anything. Each setting's key, unit, valid range and documentation are declared once: a
// solver's in its record beside the solver (solvers/<name>.hpp and .cpp, listed in
// world/solver_list.hpp), the others in the scenario loader's settings schema
// (io/settings_schema.cpp). docs/scenario.md is generated from them.
#pragma once

#include <string>

#include "etdem/core/math.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/world/solver_list.hpp"

namespace etdem {

/// What falls asleep and wakes as one (WorldSettings::sleep_unit).
enum class SleepUnit { kRegion, kIsland };

struct Material {
  std::string name;
  double density = 2650.0;        // [kg/m^3]
  double restitution = 0.5;       // normal restitution e in [0, 1] (energetic, Stronge)
  double friction = 0.5;          // Coulomb mu >= 0
  double stiffness = 1.0;         // contact stiffness K > 0 (LZB solver; only ratios matter)
  double rolling_friction = 0.0;  // rolling resistance mu_r >= 0 (resting pass; 0 = none)
};

/// Values of a material pair. The pair restitution is the smaller of the two (the more
/// dissipative material decides, and e never exceeds either value); the pair friction is the
/// geometric mean sqrt(mu_A mu_B) (Box2D, Jolt). With one material both are that material's.
inline double pair_restitution(const Material& a, const Material& b) {
  return std::min(a.restitution, b.restitution);
}
inline double pair_friction(const Material& a, const Material& b) {
  return std::sqrt(a.friction * b.friction);
}
/// Pair rolling resistance: the geometric mean, as friction (0 when either material has none).
inline double pair_rolling_friction(const Material& a, const Material& b) {
  return std::sqrt(a.rolling_friction * b.rolling_friction);
}
/// Pair stiffness: the two materials' springs in series, k_A k_B / (k_A + k_B).
inline double pair_stiffness(const Material& a, const Material& b) {
  return a.stiffness * b.stiffness / (a.stiffness + b.stiffness);
}

struct WorldSettings {
  double dt = 1.0 / 600.0;        // [s] time step (ETM 2014 uses 1/600 throughout)
  Vec3 gravity{0.0, 0.0, -9.81};  // [m/s^2]
  std::string solver = "etm";     // a name of the solver registry (solver_registry.hpp)
  /// The parameters of every solver of the registry, one settings struct each (solver_list.hpp);
  /// solver_settings<EtmSettings>() is the etm solver's.
  SolverSettings solvers;
  /// [m/s] contacts approaching slower than this are resolved inelastically (e = 0), so a
  /// resting pile does not bounce on the g*dt it gains each step. < 0: automatic, 2 |g| dt.
  double resting_velocity = -1.0;
  /// How resting contacts are resolved: "pgs" (the hybrid treatment: an inelastic Coulomb
  /// contact pass after the collision solver, solvers/resting.hpp) or "etm" (inside the
  /// collision solver with e = 0, the paper's method unchanged; slow for piles).
  std::string resting = "pgs";
  /// resting = "wall-correction": rounds of predict, detect and correct per step (2024 §4.1).
  int wall_iterations = 10;
  RestingSettings resting_pass;
  /// Contacts are reported up to this fraction of the smaller bounding radius apart, beyond the
  /// distance the pair can close in one step, so the resting pass sees near neighbours that the
  /// solve may push a grain into (speculative contacts). Only with resting = "pgs".
  double contact_skin = 0.1;
  double projection = 0.3;        // k_p of the jolt appendix (B.18), 0 disables
  double penetration_slop = 0.0;  // [m] penetration left uncorrected by projection
  /// A step is split into equal sub-steps when a grain other than a sphere turns so fast that
  /// its bounding radius R sweeps more than this fraction of its thinnest extent t within the
  /// step (|w| dt R > f t, with w at the start of the step): a corner that was not among the
  /// closest features when the contacts were found would otherwise go that deep before the
  /// next narrow phase (docs/design.md "Sub-steps"). 0 never splits.
  double substep_sweep = 0.05;
  int max_substeps = 16;  // upper bound of the split (counted when it binds)
  /// A step is also taken again split when the velocities its solve left would close, within
  /// the step, a pair the narrow phase did not report (it tested the pair with the distance the
  /// velocities of the start of the step could close: a grain an impact stopped is run into by
  /// the grain behind it). n = ceil(c dt / g) for a point at gap g closing at c, so that the
  /// next sub-step's narrow phase reports it (docs/design.md, "Pairs the narrow phase missed").
  bool substep_missed = true;
  /// Sleep (docs/design.md "Sleep"): a unit whose every body stayed slower than sleep_velocity
  /// (a sphere's centre; any other shape's fastest surface point |v| + |w| R) for sleep_time is
  /// put to sleep (velocities set to zero, their kinetic energy booked as damping) and skips the
  /// kick, the solve and the motion until it wakes. 0 never sleeps. The default (1 cm/s for
  /// half a second, by regions) is measured on the 10,000-sphere pour and the repose demo
  /// (docs/design.md "Sleep").
  double sleep_velocity = 0.01;  // [m/s]
  double sleep_time = 0.5;       // [s]
  /// What falls asleep and wakes as one: a region (a cube of the resting pass's block edge, four
  /// largest bounding radii, anchored at the origin; a sleeping region inside a moving island is
  /// held as a support) or a whole island (as Box2D and Jolt).
  SleepUnit sleep_unit = SleepUnit::kRegion;
  /// A held body wakes its region when the resting contacts' force on it differs from the one
  /// it carried when it fell asleep by more than this many times its weight (or the torque by as
  /// much at its bounding radius): a load added or a support taken away.
  double sleep_wake_load = 2.0;
  /// A solve that woke regions by their load is taken again with them free at most this many
  /// times in a (sub-)step; regions loaded beyond that wake for the next one (counted).
  int sleep_wake_rounds = 8;
  double damping = 0.0;  // [1/s] global damping xi, 2024 Eqs. 47-49
  int threads = 0;       // OpenMP threads, 0 = OpenMP's default
  /// A run split over MPI ranks draws its rank boxes again (recursive bisection of the grains'
  /// centres) when, at a check every `rebalance_every` steps, the rank owning most grains owns
  /// more than `rebalance_imbalance` times the mean. 0 never checks. The results do not depend
  /// on either (a split run is the serial run bit for bit); a serial run ignores them.
  int rebalance_every = 50;
  double rebalance_imbalance = 1.25;
  /// At the same checks, a split run whose ranks solved piles together since the last check
  /// (share_islands) decides by the busy time instead of the work: it draws its rank boxes
  /// again when the busiest rank's busy time since then (its step phases' wall time less its
  /// time in collectives, waits included) exceeds `rebalance_busy_imbalance` times the mean;
  /// each grain is then weighted by its work times the seconds its rank took per unit of work.
  /// 0 never (the work deciding at every check; up to 1: at every such check). The boxes then
  /// depend on the machine's timing, the results still not.
  double rebalance_busy_imbalance = 1.05;
  /// Whether a run split over MPI ranks solves a pile's island (one the resting pass sweeps by
  /// blocks) on every rank together instead of on its host alone (docs/distributed.md "The
  /// pile's solve across ranks"): kAuto on 2 to DecomposedWorld::kAutoShareRanks ranks. The
  /// results do not depend on it; a serial run ignores it.
  enum class IslandSharing { kAuto, kOn, kOff };
  IslandSharing share_islands = IslandSharing::kAuto;
  bool conserve_angular_momentum = true;  // rotate with L = I w held fixed (torque-free exact)

  template <class S>
  S& solver_settings() {
    return std::get<S>(solvers);
  }
  template <class S>
  const S& solver_settings() const {
    return std::get<S>(solvers);
  }

  double effective_resting_velocity() const {
    return resting_velocity >= 0.0 ? resting_velocity : 2.0 * gravity.norm() * dt;
  }

  bool operator==(const WorldSettings&) const = default;
};

}  // namespace etdem
