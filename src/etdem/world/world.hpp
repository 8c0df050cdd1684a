// The world: shape table, materials, bodies, settings, and the step as a list of phases.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etdem/collision/broad_phase.hpp"
#include "etdem/collision/contact.hpp"
#include "etdem/core/bodies.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/world/energy_ledger.hpp"
#include "etdem/world/islands.hpp"
#include "etdem/world/settings.hpp"
#include "etdem/world/solver_registry.hpp"

namespace etdem {

/// Wall-clock seconds spent in each phase of World::step and how often it ran: for the last
/// step (World::last_profile) and summed over the run (World::profile).
struct StepProfile {
  enum Phase { Events, Forces, Broad, Narrow, Islands, Solve, Correct, Integrate, Ledger, Checks };
  static constexpr int kPhases = 10;
  /// Names in step order, as summary.json and `etdem run --profile` print them.
  static constexpr const char* kNames[kPhases] = {"events",  "forces",  "broad",     "narrow",
                                                  "islands", "solve",   "correct",   "integrate",
                                                  "ledger",  "checks"};
  std::array<double, kPhases> seconds{};  // [s]
  std::array<long, kPhases> calls{};
  long steps = 0;

  double operator[](Phase p) const { return seconds[p]; }
  double total() const {
    double t = 0.0;
    for (double x : seconds) t += x;
    return t;
  }
  void add(const StepProfile& o) {
    for (int k = 0; k < kPhases; ++k) seconds[k] += o.seconds[k], calls[k] += o.calls[k];
    steps += o.steps;
  }
};

/// What happened in one step, and the running maxima over the run.
struct StepStats {
  long contacts = 0;      // contact points from the narrow phase
  long candidates = 0;    // of which would close within the step
  long islands = 0;
  long largest_island = 0;  // contacts
  SolverStats solver;   // collision solver (ETM)
  SolverStats resting;  // resting-contact pass
  long collisions = 0;  // candidates approaching faster than the resting velocity
  double max_penetration = 0.0;  // [m] deepest contact this step (before projection)
  long wall_corrections = 0;     // velocity corrections against walls (wall-correction)
  long wall_rounds = 0;          // predict-detect-correct rounds
  long wall_bound_reached = 0;   // 1 when the rounds ran out with a grain still in a wall
};

struct RunTotals {
  long steps = 0;
  long contacts = 0, candidates = 0, islands = 0;
  long largest_island = 0;
  long collisions = 0;
  SolverStats solver;
  SolverStats resting;
  double max_penetration = 0.0;  // [m] over the run
  long wall_corrections = 0, wall_rounds = 0, wall_bound_reached = 0;  // wall-correction
};

/// A scheduled change: a body (typically a wall) is removed at a time.
struct Event {
  double time = 0.0;  // [s]
  int body = -1;
  bool done = false;
};

class World {
 public:
  ShapeTable shapes;
  std::vector<Material> materials;
  Bodies bodies;
  WorldSettings settings;
  std::vector<Event> events;

  World();
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// Convenience builders (mass from the shape and the material density).
  int add_material(const Material& m);
  int add_body(int shape, int material, const Vec3& x, const Quat& q = Quat::Identity(),
               const Vec3& v = Vec3::Zero(), const Vec3& w = Vec3::Zero(), bool fixed = false,
               const std::string& name = "");
  /// A fixed one-sided plane through `point` whose normal points into the free side.
  int add_plane(const Vec3& point, const Vec3& normal, int material, const std::string& name = "");
  /// A fixed triangle-mesh wall whose vertices are in world coordinates. The mesh is stored about
  /// the centre of its bounding box (where its body is placed), so its bounding radius is small.
  int add_mesh(const TriangleMesh& mesh, int material, const std::string& name = "");
  /// A fixed terrain wall (terrain.hpp), in world coordinates: its body sits at the origin.
  int add_terrain(std::shared_ptr<const Terrain> terrain, int material,
                  const std::string& name = "");

  /// Creates the solver, sizes scratch space and records the initial energy. Call once after
  /// building, before the first step; calling again restarts the ledger.
  void initialize();
  void step();
  /// Uses `solver` for the collisions instead of the one named in settings.solver (a solver of
  /// the user's own, or a wrapper that records or measures one); nullptr returns to the named
  /// solver. Takes effect at the next initialize().
  void set_solver(std::unique_ptr<Solver> solver);

  double time() const { return time_; }
  long step_count() const { return steps_; }
  const EnergyLedger& ledger() const { return ledger_; }
  const StepProfile& profile() const { return profile_; }            // summed over the run
  const StepProfile& last_profile() const { return last_profile_; }  // the last step
  const StepStats& last_step() const { return last_; }
  const RunTotals& totals() const { return totals_; }
  std::span<const Contact> contacts() const { return contacts_; }
  const Solver& solver() const { return *solver_; }

 private:
  void configure();  // solvers and threads from the settings (initialize, or a change of them)
  void process_events();
  void apply_external_forces();
  void find_pairs();
  void check_pair_count() const;  // throws when the broad phase returns nearly every pair
  void find_contacts();
  void warm_start_contacts();   // last step's impulses onto matching contacts
  void remember_contacts();     // keep this step's impulses for the next
  void build_islands();
  void resolve_islands();
  void correct_positions();
  void correct_wall_velocities();  // resting = "wall-correction" (world/wall_correction.cpp)
  void damp_and_integrate();
  void update_ledger();
  void check_finite() const;
  double speed_bound(int i) const;  // [m/s] fastest surface point of body i
  Vec3 displacement(int i) const;   // [m] position change of the step (damp_and_integrate)
  Vec3 contact_velocity(const Contact& c) const;  // u = u_A - u_B, global body ids

  double time_ = 0.0;
  long steps_ = 0;
  std::unique_ptr<Solver> solver_;
  bool custom_solver_ = false;       // solver_ was given by set_solver()
  std::unique_ptr<Solver> resting_;  // null when resting contacts go to solver_
  EnergyLedger ledger_;
  StepProfile profile_, last_profile_;
  WorldSettings applied_;  // the settings initialize() configured the solvers with
  StepStats last_;
  RunTotals totals_;

  // Per-step buffers, reused across steps.
  BroadPhase broad_;
  std::vector<Aabb> boxes_;
  std::vector<int> box_ids_, planes_, dynamic_ids_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<std::vector<Contact>> per_thread_contacts_;
  std::vector<Contact> contacts_;
  std::vector<int> candidates_;
  std::vector<char> dynamic_;
  IslandBuilder island_builder_;
  Islands islands_;
  std::vector<int> island_order_, local_index_;
  std::vector<Vec3> island_v_, island_w_;
  std::vector<double> island_inv_mass_;
  std::vector<Mat3> island_inv_inertia_;
  std::vector<Contact> island_contacts_;
  std::vector<int> island_source_;  // per island contact: its index in contacts_
  std::vector<char> contact_slow_;  // per island contact (island order): resting, not collision
  std::vector<Vec3> island_v0_;      // per island body: velocity at its time of impact [m/s]
  std::vector<double> island_toi_;   // per island body: time of impact in the step, 0 = none [s]
  std::vector<double> island_kick_;  // per island: kinetic energy of the gravity split [J]
  /// How a body moved during the step, for its position update (displacement()).
  struct Motion {
    bool free = true;             // in no island: no contact this step
    double impact_time = 0.0;     // [s] time of its first impact within the step, 0 = none
    Vec3 impact_velocity{0, 0, 0};  // [m/s] its velocity at that impact
  };
  std::vector<Motion> motion_;    // per body
  std::vector<SolverStats> island_stats_, island_resting_stats_;
  std::vector<int> island_collisions_;  // per island: leading contacts that are collisions
  std::vector<Contact> previous_;      // last step's contacts with their impulses
  std::vector<int> previous_order_;    // previous_ sorted by (a, b)
  std::vector<Vec3> correction_;
  std::vector<Vec3> wall_dv_, wall_dw_;  // wall-correction pseudo-velocities (positions only)
  std::vector<std::pair<int, int>> wall_pairs_;  // wall-correction: (grain, wall) still to test
  std::vector<char> wall_moved_;                 // wall-correction: grain corrected this round
  std::vector<int> correction_count_;
};

}  // namespace etdem
