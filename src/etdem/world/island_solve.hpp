// The solve of one contact island, alone (2024 §3.3): the collision solver on the island's
// collisions, then the resting pass on all its contacts, with gravity split around each body's
// time of impact. It reads nothing but the island's own data: its bodies in ascending body order
// (island-local arrays) and its contacts in the serial order with island-local body ids (-1 for
// a static body). So the same island gives the same bits whichever thread or host solves it
// (World::resolve_islands on threads; a host rank of a distributed run, docs/distributed.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/core/exact_sum.hpp"
#include "etdem/core/math.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/step_time.hpp"
#include "etdem/world/collision_groups.hpp"

namespace etdem {

class RestingPass;
class RestingTeam;

/// What the island's solve needs of the step and of the world's settings.
struct IslandSolveSettings {
  StepTime step;                  // the (sub-)step's length and gravity
  double resting_velocity = 0.0;  // [m/s] WorldSettings::effective_resting_velocity
};

/// Whether the island's solve takes a contact for a resting one, not a collision (with the
/// resting pass: the collisions go to the collision solver first): its normal velocity `un`
/// [m/s] (impulse::relative_velocity along the normal, negative when closing) is slower than
/// `v_rest`, or it does not close its gap [m] within the (sub-)step h [s]. A split run's rank
/// reads the same rule from the same bits to keep a contact no other rank reads
/// (distributed/rank_islands.cpp).
inline bool resting_contact(double un, double gap, double h, double v_rest) {
  const bool closing = gap + un * h <= 0.0;
  return (v_rest > 0.0 && un > -v_rest) || !closing;
}

/// What one island contributes to the step beyond its velocities and impulses.
struct IslandSolution {
  int collisions = 0;     // contacts that went to the collision solver
  int groups = 0;         // the groups they formed (world/collision_groups.hpp)
  int groups_shared = 0;  // of those, the groups split over a team's members
  /// [J] kinetic energy the gravity split moved (booked as integration), summed exactly; a
  /// team's member sums the bodies it settles (the ranks' sub-step sums add the members').
  ExactSum kick;
  SolverStats stats;          // collision solver
  SolverStats resting_stats;  // resting pass
};

/// The position change over a step of length dt of a body that moves with its velocity at
/// impact v_c until the time of impact t_c and with its new velocity v for the rest
/// tau = dt - t_c, gravity g acting on each piece (World::displacement; IslandSolve holds the
/// impact times the solve's contacts ask for).
inline Vec3 two_piece_displacement(double dt, double tc, const Vec3& vc, const Vec3& v,
                                   const Vec3& g) {
  const double tau = dt - tc;
  return tc * (vc - 0.5 * tc * g) + tau * (v - 0.5 * tau * g);
}

/// The island's bodies as the solve reads and writes them.
struct IslandState {
  IslandBodies bodies;    // v, w in and out; inv_mass, inv_inertia, x in
  double* toi = nullptr;  // per body out: time of impact within the step, 0 = none [s]
  Vec3* v0 = nullptr;     // per body out: velocity at that impact [m/s] (where toi > 0)
};

/// Island-local arrays of bodies, of one island or of several one after another: what a world
/// (World::resolve_islands) or a rank of a split run (distributed/rank_hosted.cpp) gathers for
/// the solve.
struct IslandArrays {
  std::vector<Vec3> v, w, x, v0;  // [m/s], [rad/s], [m], [m/s]
  std::vector<double> inv_mass;   // [1/kg]
  std::vector<double> toi;        // [s]
  std::vector<Mat3> inv_inertia;  // world frame
  void resize(std::size_t n) {
    v.resize(n), w.resize(n), x.resize(n), v0.resize(n);
    inv_mass.resize(n), toi.resize(n), inv_inertia.resize(n);
  }
  /// The state of bodies [first, first + count) for one island's solve.
  IslandState state(int first, int count) {
    IslandState s;
    s.bodies.count = count;
    s.bodies.v = v.data() + first;
    s.bodies.w = w.data() + first;
    s.bodies.inv_mass = inv_mass.data() + first;
    s.bodies.inv_inertia = inv_inertia.data() + first;
    s.bodies.x = x.data() + first;
    s.toi = toi.data() + first;
    s.v0 = v0.data() + first;
    return s;
  }
};

/// The lists of the rounds that hold impact times (island_solve.cpp, hold_impact_times).
struct ImpactHold {
  std::vector<int> pool;            // the serial contacts that still have a timed body
  std::vector<int> ask;             // those asked this round
  std::vector<char> asks;           // per contact asked: it asks its bodies' times cleared
  std::vector<char> cleared;        // per body: cleared this round
  std::vector<int> bodies;          // the bodies cleared this round
  std::vector<std::uint64_t> sent;  // a team: per body, the members its velocity went to
  std::vector<ByteWriter> out;      // a team: per member, the final velocities sent to it
};

class IslandSolve {
 public:
  /// Sizes per-thread scratch; call before solve() is used from `threads` threads.
  void prepare(int threads);
  /// Solves one island. Its contacts, in the serial order with island-local ids, are
  /// `contacts[(*at)[k]]` for k < at->size(), or `contacts` themselves without `at`; their
  /// impulses are written (the warm start's impulses are read). Other contacts of `contacts`
  /// are not read; an empty `at` is an island without contacts (a team member may hold none).
  /// `resting` is null when the collision solver also holds resting contacts. `thread` indexes the
  /// solvers' scratch. With a `team` (null: alone), every member calls with the same island and the
  /// collision groups are split over the members (world/collision_groups.hpp); the resting pass's
  /// team is set on the pass itself (RestingPass::set_team), and it names a contact by its index in
  /// `contacts`.
  IslandSolution solve(const IslandSolveSettings& s, Solver& solver, RestingPass* resting,
                       IslandState state, std::span<Contact> contacts,
                       std::optional<std::span<const int>> at, int thread,
                       RestingTeam* team = nullptr);

 private:
  struct Scratch {
    std::vector<Contact> contacts;  // solve order: collisions first, then resting contacts (only
                                    // the collisions of an island the pass sweeps by blocks)
    std::vector<int> source;        // per solve-order contact: its index in the serial order
    std::vector<int> in_contacts;   // per solve-order contact: its index in `contacts` (with `at`)
    std::vector<double> un;         // per serial contact: normal velocity before the solve [m/s]
    std::vector<char> slow;         // per serial contact: not a collision (the resting pass's)
    std::vector<std::array<int, 2>> pair;  // per serial contact: its bodies
    std::vector<double> gap;               // per serial contact: its gap [m]
    CollisionGroups groups;                // the collisions' groups, solved one by one
    ImpactHold hold;                       // hold_impact_times' lists
  };
  std::vector<Scratch> scratch_;
};

}  // namespace etdem
