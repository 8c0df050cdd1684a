// The collisions of one island, solved group by group. An island joins every body linked by a
// contact, resting contacts included, because the resting pass needs all of them; the
// collision solver sees only the island's collisions (contacts closing faster than the
// resting velocity), and those fall apart into groups that share no dynamic body: in a
// settling pour of 10,000 spheres, the 600-2,200 collisions of the bed's one island form
// 130-1,400 groups of at most 2-26 contacts (grains landing on the bed here and there). An
// impulse moves only the bodies of its own group, so the groups are separate collision
// problems: each is solved alone, with its own tolerances (a solver's velocity tolerance is
// relative to the fastest approach it is given), on compact local arrays, and on every thread
// when the caller is not already inside a parallel region. The result of a group depends only
// on its own contacts and bodies, so it is the same bits on any number of threads or hosts
// (docs/design.md, "Collision groups"). A team solving the island together
// (solvers/resting_team.hpp) splits the groups: each member solves those whose least body it
// settles and sends their results to the others.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/math.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/world/islands.hpp"

namespace etdem {

class CollisionGroups {
 public:
  /// Sizes per-thread scratch; call before resolve() is used from `threads` threads.
  void prepare(int threads);
  /// Resolves `collisions` (island-local body ids, -1 static) with `solver`, group by group;
  /// writes the bodies' velocities and the contacts as the solver leaves them. A single group
  /// goes to the solver as it is (no copy). Returns the groups' statistics, each group's
  /// dissipation netted (SolverStats::net_dissipation) and summed in group order. `thread`
  /// indexes the solver's scratch when the groups run on this thread. With a `team` of more
  /// than one member (every member calling with the same island), each member solves its
  /// groups and every member ends with every group's results.
  SolverStats resolve(Solver& solver, std::span<Contact> collisions, IslandBodies& bodies,
                      int thread, RestingTeam* team = nullptr);
  /// Groups of the last resolve() (1 when it had a single group or none; a team's: the
  /// island's, those other members kept whole included).
  int groups() const { return groups_; }
  /// Whether the last resolve() split its groups over a team.
  bool shared() const { return shared_; }

 private:
  /// A group's contacts and bodies, gathered: local body ids, ascending in island order.
  struct Local {
    std::vector<Contact> contacts;
    std::vector<Vec3> v, w, x;
    std::vector<double> inv_mass;
    std::vector<Mat3> inv_inertia;
  };
  /// Solves group g alone with the solver's scratch `thread`.
  SolverStats solve_group(Solver& solver, std::span<Contact> collisions, IslandBodies& bodies,
                          int g, int thread);
  /// Solves the groups listed (ascending), on every thread when many.
  void solve_groups(Solver& solver, std::span<Contact> collisions, IslandBodies& bodies,
                    std::span<const int> which, int thread);
  /// The team's part: this member's groups solved, every group's results exchanged (the
  /// statistics of the groups other members keep whole into `elsewhere_`).
  void solve_shared(Solver& solver, std::span<Contact> collisions, IslandBodies& bodies, int thread,
                    RestingTeam& team);
  /// An island's one group, kept whole by one member (`holds`): its statistics `st` from it to
  /// the others.
  static void share_one(SolverStats& st, bool holds, RestingTeam& team);

  IslandBuilder builder_;           // the groups are the islands of the collisions alone
  Islands groups_of_;               // group g: its collisions and its bodies (island ids)
  std::vector<char> dynamic_;       // every body of an island can move
  std::vector<int> all_;            // 0 .. collisions - 1
  std::vector<int> local_id_;       // per island body: its place among its group's bodies
  std::vector<SolverStats> stats_;  // per group
  std::vector<Local> local_;        // per thread
  std::vector<int> which_;          // the groups solved here
  std::vector<int> least_;          // per group: its smallest body (its name in a team)
  std::vector<std::pair<int, SolverStats>> elsewhere_;  // groups kept by other members: by
                                                        // smallest body, their statistics
  int groups_ = 0;
  bool shared_ = false;
};

}  // namespace etdem
