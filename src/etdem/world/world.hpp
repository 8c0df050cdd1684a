// The world: shape table, materials, bodies, settings, and the step as a list of phases.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etdem/collision/broad_phase.hpp"
#include "etdem/collision/contact.hpp"
#include "etdem/collision/near_node_list.hpp"
#include "etdem/collision/pair_list.hpp"
#include "etdem/core/bodies.hpp"
#include "etdem/core/stage_profile.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/world/contact_order.hpp"
#include "etdem/world/domain.hpp"
#include "etdem/world/energy_ledger.hpp"
#include "etdem/world/island_solve.hpp"
#include "etdem/world/islands.hpp"
#include "etdem/world/net.hpp"
#include "etdem/world/settings.hpp"
#include "etdem/world/sleep_regions.hpp"
#include "etdem/world/solver_registry.hpp"
#include "etdem/world/step_context.hpp"
#include "etdem/world/substep_sums.hpp"

namespace etdem {

class RestingTeam;

/// Wall-clock seconds spent in each phase of World::step and how often it ran: for the last
/// step (World::last_profile) and summed over the run (World::profile).
struct StepProfile {
  enum Phase { Events, Forces, Broad, Narrow, Islands, Solve, Correct, Integrate, Ledger, Checks };
  static constexpr int kPhases = Checks + 1;
  /// Names in step order, as summary.json and `etdem run --profile` print them.
  static constexpr const char* kNames[kPhases] = {"events",  "forces", "broad",   "narrow",
                                                  "islands", "solve",  "correct", "integrate",
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
  long contacts = 0;    // contact points from the narrow phase
  long candidates = 0;  // of which would close within the step
  long islands = 0;
  long largest_island = 0;         // contacts
  SolverStats solver;              // collision solver (ETM)
  SolverStats resting;             // resting-contact pass
  long collisions = 0;             // candidates approaching faster than the resting velocity
  double max_penetration = 0.0;    // [m] deepest contact this step (before projection)
  long wall_corrections = 0;       // velocity corrections against walls (wall-correction)
  long wall_rounds = 0;            // predict-detect-correct rounds
  long wall_bound_reached = 0;     // 1 when the rounds ran out with a grain still in a wall
  int substeps = 1;                // sub-steps the step was split into (World::step)
  long redone = 0;                 // 1 when the spin after the first solve split it again
  long substep_bound_reached = 0;  // 1 when the split was capped at max_substeps
  // Sleep, by the unit of WorldSettings::sleep_unit: units left asleep this step (islands not
  // solved, or with regions the bodies held), put to sleep at its end, woken.
  long asleep_steps = 0;
  long fell_asleep = 0;
  long woken = 0;
  long sleep_wake_bound_reached = 0;  // solves that woke regions sleep_wake_rounds times

  /// Adds the statistics of one sub-step of the same step: counts summed, maxima kept.
  void merge(const StepStats& o) {
    contacts += o.contacts;
    candidates += o.candidates;
    islands += o.islands;
    largest_island = std::max(largest_island, o.largest_island);
    solver.add(o.solver);
    resting.add(o.resting);
    collisions += o.collisions;
    max_penetration = std::max(max_penetration, o.max_penetration);
    wall_corrections += o.wall_corrections;
    wall_rounds += o.wall_rounds;
    wall_bound_reached += o.wall_bound_reached;
    asleep_steps += o.asleep_steps;
    fell_asleep += o.fell_asleep;
    woken += o.woken;
    sleep_wake_bound_reached += o.sleep_wake_bound_reached;
  }
};

struct RunTotals {
  long steps = 0;
  long contacts = 0, candidates = 0, islands = 0;
  long largest_island = 0;
  long collisions = 0;
  SolverStats solver;
  SolverStats resting;
  double max_penetration = 0.0;                                        // [m] over the run
  long wall_corrections = 0, wall_rounds = 0, wall_bound_reached = 0;  // wall-correction
  long pair_list_builds = 0;          // steps whose broad phase rebuilt the kept pairs (PairList)
  long pair_list_updates = 0;         // steps that found only some bodies' pairs again (PairList)
  NearNodeCounts node_lists;          // level-set pairs' node tests, full or from lists (a cache)
  long split_steps = 0;               // steps split into sub-steps (a grain turning fast)
  long substeps = 0;                  // sub-steps taken by those steps
  long substep_bound_reached = 0;     // steps whose split was capped at max_substeps
  long redone_steps = 0;              // steps taken again split after the first solve
  long asleep_steps = 0;              // island-steps not solved, or body-steps held (regions)
  long fell_asleep = 0;               // islands or regions put to sleep
  long woken = 0;                     // islands or regions woken
  long sleep_wake_bound_reached = 0;  // solves that woke regions sleep_wake_rounds times
  double sleep_energy = 0.0;          // [J] kinetic energy set to zero by falling asleep (damping)
};

/// A scheduled change: a body (typically a wall) is removed at a time.
struct Event {
  double time = 0.0;  // [s]
  int body = -1;
  bool done = false;
};

class World {
  friend struct WorldCheckpoint;  // world/world_checkpoint.cpp: the state a checkpoint carries

 public:
  ShapeTable shapes;
  std::vector<Material> materials;
  Bodies bodies;
  WorldSettings settings;
  std::vector<Event> events;
  /// Flexible nets (world/net.hpp): their nodes are bodies above, their links live here.
  std::vector<Net> nets;

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
  /// Books as `external` energy what a change of the state made between steps (bodies written
  /// from outside the step: the Python module's arrays) did to the kinetic and potential
  /// energy, so the ledger keeps closing. Nothing changes when the state was not touched.
  void book_external_change();
  /// Wakes every sleeping body (world/sleep.cpp): call it after writing bodies' state from
  /// outside the step (positions, velocities), which the sleeping islands cannot see.
  void wake_all();
  /// Sleeping pairs' contacts are copied from the last narrow phase rather than found again
  /// (the same bits either way; false only to test that).
  bool reuse_sleeping_contacts = true;
  /// Uses `solver` for the collisions instead of the one named in settings.solver (a solver of
  /// the user's own, or a wrapper that records or measures one); nullptr returns to the named
  /// solver. Takes effect at the next initialize().
  void set_solver(std::unique_ptr<Solver> solver);
  /// The grain whose owner detects the pair (a, b) in a run split over ranks and carries its
  /// warm start (docs/distributed.md): a when it is a grain, else b (a grain against a fixed
  /// body of a smaller id, a plane or a terrain).
  int first_grain(int a, int b) const {
    return first_grain(a, b, [this](int i) { return bodies.is_dynamic(i); });
  }
  int first_grain(const Contact& c) const { return first_grain(c.a, c.b); }
  /// The same rule with `dynamic(i)` saying whether i is a grain (a caller that keeps the flags
  /// apart, as find_pairs per slot).
  template <class Dynamic>
  static int first_grain(int a, int b, Dynamic&& dynamic) {
    return dynamic(a) ? a : b;
  }
  /// The warm start grains carry when they migrate to another rank: per body, last step's
  /// contacts whose first grain it is, with their impulses, in their serial order (none for a
  /// body that is not a grain).
  struct CarriedContacts {
    std::vector<Contact> contacts;  // grouped by body, ascending
    std::vector<int> start;         // body i's are contacts[start[i], start[i + 1])
    std::span<Contact> of(int body) {
      return {contacts.data() + start[body], contacts.data() + start[body + 1]};
    }
    std::span<const Contact> of(int body) const {
      return {contacts.data() + start[body], contacts.data() + start[body + 1]};
    }
  };
  CarriedContacts carried_contacts() const;
  /// Replaces the warm start by `contacts` found over a sub-step of length h [s]: the carried
  /// contacts of every body, each body's in their order, the bodies in any order. The serial
  /// order is restored by a stable sort on world/contact_order's key, so a world given back
  /// every body's carried contacts steps as it would have. Which bodies slept when they were
  /// found is not carried (sleeping islands are refused across ranks). Throws
  /// std::invalid_argument, changing nothing, for a contact naming a body the world lacks or a
  /// non-positive h.
  void restore_warm_start(std::vector<Contact> contacts, double h);
  /// Moves the warm start out (on this world's body ids, in the serial order), leaving none:
  /// for a caller that gives it back, changed, through restore_warm_start.
  std::vector<Contact> release_warm_start() { return std::exchange(previous_, {}); }
  /// [s] The length of the sub-step whose contacts the warm start holds (restore_warm_start's h).
  double warm_start_substep() const { return previous_h_; }
  /// Contact c's place in the serial contact order (world/contact_order.hpp), on this world's
  /// body ids.
  ContactOrderKey contact_order_key(const Contact& c) const { return contact_order_key(c.a, c.b); }
  ContactOrderKey contact_order_key(int a, int b) const {
    return ContactOrderKey{shapes.tested_apart(bodies.shape[b]), a, b};
  }

  // --- A rank's part of a run split over ranks (world/domain.hpp) ---
  /// Makes this world a rank's part of a split run: step() calls `domain` at its fixed points
  /// (null: a serial world). Set it before initialize(); the domain outlives the world's steps.
  void set_domain(Domain* domain);
  /// What a run has done so far: the ledger, the clock, the statistics and the profiles (what a
  /// rank's world and the world its output is gathered into share).
  struct RunState {
    EnergyLedger ledger;
    double net_elastic = 0.0;  // [J] the nets' elastic energy the ledger last measured
    double time = 0.0;         // [s]
    long steps = 0;
    RunTotals totals;
    StepStats last;
    StepProfile profile, last_profile;
    StageProfile stages;
  };
  RunState run_state() const;
  void set_run_state(const RunState& s);
  /// What body i's sleep carries from step to step: how long it has been slow enough to sleep
  /// [s] and, asleep by regions, the resting contacts' force [N] and torque [N m] on it when it
  /// fell asleep (its reference load).
  struct SleepState {
    double rest_time = 0.0;
    Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  };
  /// Replaces the bodies and their sleep states (a rank's grains after an exchange).
  /// `new_id[i]` is the id now of the body that had id i (-1: gone): the kept pairs follow it
  /// (PairList::renumber; dropped if the kept ids no longer ascend). The turning grains are
  /// found again. The warm start is not carried: give it back with restore_warm_start.
  void replace_bodies(Bodies b, const std::vector<SleepState>& sleep,
                      const std::vector<int>& new_id);
  /// After bodies were overwritten in place (a rank's ghosts refreshed, its set of bodies the
  /// same): what replace_bodies derives from the bodies, found again (the turning grains; the
  /// world-frame inverse inertias are found by every sub-step's kick). The kept pairs and the
  /// warm start stay.
  void refresh_bodies();
  /// [s] How long body i has been slow enough to sleep (0 for a body never counted).
  double rest_time(int i) const {
    return static_cast<std::size_t>(i) < rest_time_.size() ? rest_time_[i] : 0.0;
  }
  SleepState sleep_state(int i) const;
  void set_sleep_state(int i, const SleepState& s);
  /// Sleep by regions (settings.sleep_unit, with sleep_velocity > 0).
  bool sleeps_by_regions() const;
  /// [m] The edge of the regions of sleep (world/sleep_regions.cpp).
  double sleep_region_edge() const { return sleep_region_; }
  /// [m] The centre of the region of sleep `key`; none for a region at the grid's clamped edge
  /// (it holds everything beyond it).
  std::optional<Vec3> region_centre(std::int64_t key) const;
  /// Last step's contacts with their impulses (the warm start of the next), in the serial order.
  std::span<const Contact> warm_start_contacts() const { return previous_; }
  bool has_custom_solver() const { return custom_solver_; }
  bool has_turning_grains() const { return !turning_.empty(); }
  bool has_resting_pass() const { return resting_ != nullptr; }
  /// [s] The length of the sub-step being taken.
  double substep_length() const { return h_; }
  /// Sub-steps a step of `dt` needs with angular velocities `spin` (before the max_substeps cap):
  /// the largest rotation sweep |w| dt R of a non-spherical grain over settings.substep_sweep of
  /// its thinnest extent, rounded up.
  long substep_count_unbounded(double dt, const std::vector<Vec3>& spin) const;
  /// Sizes the island solve's scratch for the threads (once per sub-step, before
  /// solve_island).
  void prepare_island_solve();
  /// Solves one island as resolve_islands solves each of the world's own (world/island_solve):
  /// its contacts `contacts[(*at)[k]]` in the serial order with island-local ids (without `at`:
  /// `contacts` themselves); the sub-step's length and gravity. With `team`, an island the
  /// resting pass sweeps by blocks is solved together with the team's other members, each
  /// holding the contacts it reads (solvers/resting_team.hpp): its collision groups and the
  /// resting pass's blocks are split over the members.
  IslandSolution solve_island(IslandState state, std::span<Contact> contacts,
                              std::optional<std::span<const int>> at = std::nullopt,
                              RestingTeam* team = nullptr);
  /// Whether the resting pass sweeps an island of `contacts` contacts by blocks.
  bool sweeps_by_blocks(std::size_t contacts) const;
  /// The resting pass's settings as the world applied them (its block size set), or null when
  /// the step has no resting pass of the pgs kind.
  const RestingSettings* resting_pass_settings() const {
    return resting_pass_ ? &resting_pass_->settings() : nullptr;
  }
  /// Body i awake, its rest time from zero.
  void wake_body(int i);
  /// Body i stopped and asleep; returns the kinetic energy taken [J].
  double put_to_sleep(int i);
  /// The rest times of the awake bodies counted here after the motion.
  void update_rest_times();
  /// The nets' kick over a sub-step of h [s] on this world's bodies (world/net.hpp): per net,
  /// what it booked; each node's velocities before, after the springs and after the dashpots
  /// are kept for add_net_node.
  std::vector<NetKick> kick_nets(double h);
  bool is_net_node(int i) const { return !net_node_.empty() && net_node_[i]; }
  /// Net node i's kick against its velocity after the solve, added to its group (net_ledger).
  void add_net_node(int i, const Vec3& v_after, NetShare& share) const;
  /// An island's share: its solution's dissipation corrected, the columns' parts into `out`.
  static void book_net_island(const NetShare& share, IslandSolution& r, NetBooking& out);
  double net_elastic_energy() const;  // [J] summed over the nets

  double time() const { return time_; }
  long step_count() const { return steps_; }
  const EnergyLedger& ledger() const { return ledger_; }
  const StepProfile& profile() const { return profile_; }            // summed over the run
  const StepProfile& last_profile() const { return last_profile_; }  // the last step
  /// The stages inside the phases, summed over the run on this process (core/stage_profile.hpp;
  /// not kept by a checkpoint: a resumed run counts from its start). A domain adds its own.
  const StageProfile& stages() const { return stages_; }
  StageProfile& stages() { return stages_; }
  const StepStats& last_step() const { return last_; }
  const RunTotals& totals() const { return totals_; }
  std::span<const Contact> contacts() const { return step_contacts_.contacts; }
  /// Indices into contacts() of the last step's candidates: the contacts that joined islands.
  std::span<const int> candidates() const { return step_contacts_.candidates; }
  const Solver& solver() const { return *solver_; }

 private:
  // The phases of step(), in order. Each takes the lists it reads and fills as arguments
  // (world/step_context.hpp); members below are only the world's state and reused scratch.
  void configure();  // solvers and threads from the settings (initialize, or a change of them)
  /// Sub-steps the step needs so that no pair the narrow phase did not report is closed within
  /// the first of them by the velocities the solve left (settings.substep_missed): for each
  /// such point, gap g and closing speed c, ceil(c dt / g) when c h > g (1 if none, before the
  /// max_substeps cap). A grain an impact stopped, run into by the grain behind it.
  long missed_substeps(const StepBodies& sb, const StepContacts& sc);
  /// The narrow phase's margin for a pair closing at most at `closing` [m/s] within the
  /// (sub-)step, and for a body moving at `speed` against a plane or terrain [m].
  double pair_margin(int a, int b, double closing) const;
  double plane_margin(int a, double speed) const;
  void prepare_substeps();  // turning_ from the bodies' shapes (initialize)
  /// One sub-step of length h_: forces, contacts, solve, correction, motion, ledger (and, on a
  /// rank of a split run, the exchange of grains). With `needed`, returns false (and the
  /// sub-steps the spin after the solve needs) before anything moves when that is more than
  /// the step is split into.
  bool advance(StepProfile& p, long* needed);
  /// The sub-step's sums (sums_) into the ledger, in the fixed order of the phases that formed
  /// them, then the energies measured at its end.
  void book_substep();
  bool has_nets_in_run() const { return domain_ ? domain_->has_nets() : !nets.empty(); }
  void save_step_start();     // what advance changes before the solve's check, into start_
  void restore_step_start();  // and back
  void process_events();
  void apply_external_forces();
  void mark_net_nodes();  // net_node_ from the nets (empty without nets)
  void book_net_kicks(const std::vector<NetKick>& kicks);  // into the ledger
  void find_pairs(StepBodies& out);
  void check_pair_count(const StepBodies& sb) const;  // throws when nearly every pair is swept
  void find_contacts(const StepBodies& sb, StepContacts& out);
  void warm_start(std::vector<Contact>& contacts) const;  // last step's impulses onto matches
  /// R_eff of a contact for rolling resistance (contacts.cpp) [m].
  double rolling_radius(const Contact& c) const;
  void build_islands(const StepBodies& sb, const StepContacts& sc, Islands& out);
  /// Sleeping islands (world/sleep.cpp): wakes the sleepers of an island a moving body joined
  /// (with the kick they missed) and takes the islands that stay asleep out of `islands`,
  /// keeping their contacts' impulses for the warm start.
  void wake_or_skip(const StepContacts& sc, Islands& islands);
  void keep_sleeping_impulses(std::vector<Contact>& contacts) const;  // after the solve
  /// After the motion: rest times, and the units (regions or islands) that fall asleep or, for
  /// regions, wake because their load changed (`contacts` carry the solve's impulses).
  void update_sleep(const Islands& islands, const std::vector<Contact>& contacts);
  /// Sleeping regions (world/sleep_regions.cpp). Before the islands: wakes the regions a moving
  /// body closes on (with the kick they missed), then holds the sleepers left: out of the
  /// islands (moving_), their contacts with each other and with walls out of the candidates,
  /// keeping their impulses.
  void wake_regions(const StepBodies& sb, StepContacts& sc);
  /// Holds the sleepers (moving_, the candidates without their contacts); returns how many.
  long hold_sleepers(const StepBodies& sb, StepContacts& sc);
  /// After a solve with sleepers held: the regions of held bodies whose load changed
  /// (sleep_wake_load) into regions_to_wake_; true when there are any on some rank.
  bool find_loaded_regions(const std::vector<Contact>& contacts);
  /// Wakes the regions in regions_to_wake_ (with those the other ranks listed), with the step's
  /// kick when `kick_them`. Collective in a split run.
  void wake_listed_regions(bool kick_them);
  /// load_force_, load_torque_ [N], [N m]: the resting contacts' force and torque on each body
  /// counted here flagged in `wanted` (per body, 0 or 1), summed in the contact order; other
  /// bodies' are zero.
  void contact_loads(const std::vector<Contact>& contacts, const std::vector<char>& wanted);
  /// The serial contact_loads, unscaled [N s], [N m s].
  void add_contact_loads(const std::vector<Contact>& contacts, const std::vector<char>& wanted);
  /// Whether `mine` holds on some rank (the domain's; a serial world's own).
  bool on_any_rank(bool mine) const { return domain_ ? domain_->any(mine) : mine; }
  /// The regions' votes agreed over the ranks (Domain::agree_regions); a serial world's own.
  void agree_regions(std::vector<RegionVote>& votes);
  /// The solve taken again with more regions awake starts from what it started from.
  void save_solve_start();
  void restore_solve_start();
  /// The islands solved: by the domain over the ranks, or resolve_islands over islands_.
  void solve_islands_here(SubstepLists lists);
  /// The solve with held sleepers, taken again while held bodies' loads wake their regions
  /// (at most settings.sleep_wake_rounds times, then they wake for the next step).
  void solve_holding(SubstepLists lists);
  void update_region_sleep(const std::vector<Contact>& contacts, const Islands& islands);
  /// [m] Edge of the resting pass's blocks and of the regions of sleep: four largest bounding
  /// radii of the dynamic bodies (0 without any).
  double block_edge() const;
  std::int64_t region_of(int i) const;  // the key of the region body i's centre lies in
  double sleep_speed(int i) const;      // [m/s] what must stay below settings.sleep_velocity
  /// The contacts of a pair of bodies that have not moved since the last narrow phase (asleep
  /// or static), copied from previous_ into `out`; false when the pair must be collided.
  bool reuse_sleeping(int a, int b, std::vector<Contact>& out) const;
  void resolve_islands(const StepBodies& sb, const Islands& islands, std::vector<Contact>& contacts,
                       std::vector<Motion>& motion);
  void correct_wall_velocities(const StepBodies& sb, WallCorrection& out);  // wall_correction.cpp
  void correct_positions(const std::vector<Contact>& contacts);
  void damp_and_integrate(const std::vector<Motion>& motion, const WallCorrection& wall);
  /// Books the link kick that contacts took back within the step (a node pressed by a grain) as
  /// neither the links' work nor the contacts' dissipation (world/net_ledger.cpp); `motion`
  /// tells the nodes in no island.
  void book_net_contacts(const Islands& islands, const std::vector<Motion>& motion);
  void book_nets(const NetBooking& booking);  // the islands' and the free nodes' into the ledger
  void book_solvers();   // the solvers' dissipation of the sub-step (last_) into the ledger
  void update_totals();  // per step, from last_
  void remember_contacts(const std::vector<Contact>& contacts);  // for the next warm start
  /// Appends the narrow phase's lists of threads 1, 2, ... to `contacts` (thread 0's), in order.
  void append_thread_contacts(std::vector<Contact>& contacts) const;
  void order_previous();  // previous_order_ and previous_key_ from previous_
  /// (a, b) packed in one integer, ordered as the pair (previous_key_).
  static std::uint64_t pair_key(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  }
  void check_finite() const;

  Aabb reach_box(int i, const Aabb& box) const;  // [m] where body i's boxes may go (PairList)
  double spin_bound(int i) const;                // [m/s] |w| R of body i (0 unless dynamic)
  double speed_bound(int i) const;  // [m/s] fastest surface point of body i: |v| + spin_bound
  /// [m/s] fastest approach of the surfaces of a and b, from the step's sb.spin.
  double closing_speed_bound(const StepBodies& sb, int a, int b) const;
  /// The same bound with the spin parts given (missed_substeps: the spins after the solve).
  double closing_speed_bound(const std::vector<char>& dynamic, int a, int b, double spin_a,
                             double spin_b) const;
  /// The contact skin in use (settings.contact_skin with the resting pass, else 0), and the
  /// radius of body i's box swept at `speed` within the (sub-)step: (1 + skin) R + speed h.
  double contact_skin() const;
  double swept_radius(int i, double speed) const;
  Vec3 displacement(int i, const Motion& m) const;  // [m] position change of the step
  /// u = u_A - u_B at a contact (global body ids; static bodies do not move).
  Vec3 contact_velocity(const Contact& c, const std::vector<char>& dynamic) const;
  /// Velocity of a's point at ra relative to b's at rb (the dynamic bodies' motion only).
  Vec3 point_velocity(int a, int b, const Vec3& ra, const Vec3& rb,
                      const std::vector<char>& dynamic) const;

  double time_ = 0.0;
  long steps_ = 0;
  double h_ = 0.0;           // [s] length of the sub-step being taken (settings.dt unsplit)
  double previous_h_ = 0.0;  // [s] length of the sub-step whose impulses previous_ holds
  // The dynamic bodies whose turning can split a step (not spheres), with their bounding
  // radius and thinnest extent; empty when no body can split one.
  struct Turning {
    int body;
    double radius, thickness;  // [m]
  };
  std::vector<Turning> turning_;
  // Sleeping islands: per body, how long it has been slower than settings.sleep_velocity [s]
  // (carried by checkpoints); the contacts of the islands asleep this step and their impulses.
  std::vector<double> rest_time_;
  std::vector<int> sleeping_contacts_;
  struct KeptImpulses {
    double normal;
    Vec3 tangent, rolling;  // [N s], [N m s]
  };
  std::vector<KeptImpulses> sleeping_impulses_;
  Islands awake_scratch_;
  std::vector<char> sleep_keep_;  // per island of the step: solved (not asleep)
  // Sleeping regions: the region edge [m]; per body, the resting contacts' force [N] and torque
  // [N m] on it when it fell asleep (carried by checkpoints) and this step's; the bodies that
  // move this step (awake dynamic) when some are held; scratch.
  double sleep_region_ = 0.0;
  std::vector<Vec3> sleep_force_, sleep_torque_;
  std::vector<Vec3> load_force_, load_torque_;
  std::vector<char> moving_;
  std::vector<char> sleep_blocked_;  // per body: may not fall asleep this step (nets)
  bool holding_ = false;  // some sleepers are held this step: islands are built over moving_
  std::vector<std::int64_t> regions_to_wake_;
  std::vector<RegionVote> region_votes_;
  RegionTable region_table_;
  std::vector<int> all_candidates_;  // the step's candidates before the held ones left
  struct SolveStart {
    std::vector<Vec3> velocity, angular_velocity;
    SubstepSums sums;
    std::vector<Net> nets;
  } solve_start_;
  StepStats solve_start_stats_;
  // A rank's part of a split run (set_domain); null in a serial world.
  Domain* domain_ = nullptr;
  // Per body, owned by this rank (its kick and motion are booked here, it is integrated here;
  // ghosts are not): the domain's. Null: every body (a serial world).
  const std::vector<char>* owned_ = nullptr;
  // What this sub-step books (book_substep).
  SubstepSums sums_;
  bool counted(int i) const { return !owned_ || (*owned_)[i]; }
  // Per body, asleep at this narrow phase / at the one that found previous_ (reuse_sleeping).
  std::vector<char> asleep_at_narrow_, asleep_at_previous_;
  RestingPass* resting_pass_ = nullptr;  // resting_ when it is the pgs pass (its step is set)
  struct StepStart {                     // a step taken again split (World::step)
    std::vector<Vec3> velocity, angular_velocity;
    std::vector<std::uint8_t> flags;
    std::vector<double> rest_time;
    std::vector<Net> nets;
  } start_;
  std::unique_ptr<Solver> solver_;
  bool custom_solver_ = false;       // solver_ was given by set_solver()
  std::unique_ptr<Solver> resting_;  // null when resting contacts go to solver_
  EnergyLedger ledger_;
  double net_elastic_ = 0.0;  // [J] the nets' elastic energy the ledger last measured
  // Per body, for the nets' nodes only: velocity before the link kick, after its springs and
  // after its dashpots (book_net_contacts) [m/s].
  std::vector<Vec3> net_before_, net_springs_, net_kicked_;
  std::vector<char> net_node_;      // per body: a node of a net (mark_net_nodes; empty: no net)
  double net_damping_start_ = 0.0;  // [J] the net_damping column before this step's kick
  double net_kick_h_ = 0.0;         // [s] the sub-step the last kick_nets was over
  StepProfile profile_, last_profile_;
  StageProfile stages_;
  WorldSettings applied_;  // the settings initialize() configured the solvers with
  StepStats last_;
  RunTotals totals_;

  // The lists one step passes between its phases (reused capacity; see step()).
  StepBodies step_bodies_;
  StepContacts step_contacts_;
  Islands islands_;
  std::vector<Motion> motion_;  // per body
  WallCorrection wall_;

  // Carried from one step to the next: last step's contacts with their impulses (warm start).
  std::vector<Contact> previous_;
  std::vector<int> previous_order_;           // previous_ by (a, b), ties in contact order
  std::vector<std::uint64_t> previous_key_;   // per previous_ contact: (a, b) packed, for the sort
  std::vector<int> previous_scratch_;         // order_previous's merge buffer
  std::vector<ContactOrderKey> restore_key_;  // restore_warm_start's keys, when out of order
  std::vector<int> restore_order_;            // restore_warm_start's order, when out of order
  std::vector<Contact> restore_room_;         // restore_warm_start's buffer, when out of order

  // Candidate pairs kept while the bodies stay in their reach (a cache: clearing it changes
  // no result, so a checkpoint need not hold it).
  PairList pair_list_;
  // The level-set pairs' near-node lists (collision/near_node_list.hpp), another cache: per pair
  // of level-set grains in the last narrow phase, its key (pair_key, ascending) and its lists.
  std::vector<std::uint64_t> node_list_keys_, node_list_keys_next_;
  std::vector<LevelSetPairLists> node_lists_, node_lists_next_;
  std::vector<int> node_list_slot_;  // per pair of this narrow phase: its lists, -1 none
  std::vector<int> node_list_from_;  // per slot: the lists it continues in node_lists_, -1 none
  NearNodeCounts node_list_counts_;  // over the run
  std::vector<NearNodeCounts> per_thread_node_counts_;
  /// Gives every pair of two level-set grains in `pairs` a slot and finds the lists the same pair
  /// had at the last narrow phase.
  void match_node_lists(const std::vector<std::pair<int, int>>& pairs);

  // Scratch of single phases, reused across steps.
  BroadPhase broad_;
  // missed_substeps' own grid of the boxes after the solve (broad_ stays the kept pairs' grid).
  BroadPhase missed_broad_;
  std::vector<Aabb> missed_boxes_;
  std::vector<double> missed_spin_;  // missed_substeps: each body's spin bound after the solve
  std::vector<double> missed_sphere_speed_;  // and a sphere's |v| + |w| R (others: infinite)
  std::vector<std::pair<int, int>> missed_pairs_;
  std::vector<int> missed_grown_;       // slots of box_ids_ whose speed bound grew in the solve
  std::vector<double> missed_grown_x_;  // their boxes' lower x, ascending
  std::vector<char> missed_is_grown_;   // per body: one of those
  std::vector<std::vector<std::pair<int, int>>> missed_pairs_of_thread_;
  std::vector<Aabb> reach_;
  std::vector<Aabb> boxes_;
  std::vector<int> box_ids_;
  std::vector<char> pair_first_;  // per slot of box_ids_ (a split run): dynamic 1, counted 2
  std::vector<std::vector<Contact>> per_thread_contacts_;
  IslandBuilder island_builder_;
  /// resolve_islands: each island's bodies gathered into contiguous island-local arrays, its
  /// contacts in the serial order with island-local body ids (world/island_solve.hpp).
  struct IslandScratch {
    std::vector<int> order;                // islands, largest first
    std::vector<int> local_index;          // per body: index within its island, -1 none
    IslandArrays bodies;                   // per island body, island after island
    std::vector<Contact> contacts;         // per island, in the serial order
    std::vector<IslandSolution> solution;  // per island
  } isl_;
  IslandSolve island_solve_;
  std::vector<Vec3> correction_;                 // correct_positions: per body [m]
  std::vector<double> correction_weight_;        // correct_positions: per body
  std::vector<std::pair<int, int>> wall_pairs_;  // wall-correction: (grain, wall) still to test
  std::vector<char> wall_moved_;                 // wall-correction: grain corrected this round
};

}  // namespace etdem
