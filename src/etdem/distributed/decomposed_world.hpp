// A world split over ranks (docs/distributed.md): each rank holds the grains whose centres lie
// in its box (owned) and copies of the grains within the halo of its box (ghosts), with every
// wall, in a World whose bodies keep the serial order (ascending global id). A step runs the
// serial step's phases on that world: each pair is detected by the owner of its first grain,
// islands are labelled across ranks without a gather (distributed/island_labels), each island
// is resolved whole on its host (world/island_solve, the function the serial step calls) and
// the results go back to the owners and to the ranks that detected its contacts; each grain's
// position corrections reach its owner and are summed there in the serial contact order, and
// the ledger's sums are exact, so a run gives the serial run's bits on any number of ranks.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "etdem/core/byte_stream.hpp"

#include "etdem/distributed/decomposition.hpp"
#include "etdem/distributed/grain_exchange.hpp"
#include "etdem/distributed/island_gather.hpp"
#include "etdem/distributed/island_labels.hpp"
#include "etdem/distributed/transport.hpp"
#include "etdem/world/world.hpp"

namespace etdem::distributed {

/// What the decomposition moved, summed over the run on this rank (the scaling model's inputs).
struct DecomposedStats {
  long owned = 0, ghosts = 0;  // grain-steps held
  long islands_hosted = 0;     // islands this rank resolved
  long islands_spanning = 0;   // of which parts came from other ranks
  long label_rounds = 0;       // island label rounds
  long migrated = 0;           // grains that arrived from another rank
  long rebalances = 0;         // times the rank boxes were drawn again (the same on every rank)
};

class DecomposedWorld {
 public:
  /// `full` is the scenario's world as every rank builds it (the same bits everywhere),
  /// initialised, at the start or restored from a checkpoint (its warm start included). Each rank
  /// keeps its part; rank 0 gathers into `full` for the output (gather). Throws
  /// std::invalid_argument, naming it, for a feature a decomposed run does not carry yet: the
  /// wall correction, a solver of the user's own.
  DecomposedWorld(World& full, Transport& transport);
  ~DecomposedWorld();
  DecomposedWorld(const DecomposedWorld&) = delete;
  DecomposedWorld& operator=(const DecomposedWorld&) = delete;

  /// Collective: one step of the whole world.
  void step();
  /// Collective: every grain's state, the ledger, the time, the step count and the run's
  /// totals into `full` on rank 0 (the world the output writers read); nothing on the others.
  /// With `warm_start`, last step's contacts too, in the serial order (for a checkpoint: `full`
  /// then holds what the serial world would, and a run resumed from it on any number of ranks
  /// goes on as the serial run).
  void gather(World& full, bool warm_start = false);

  double time() const { return local_.time(); }
  long step_count() const { return local_.step_count(); }
  /// The whole world's ledger (the same on every rank).
  const EnergyLedger& ledger() const { return local_.ledger(); }
  const RunTotals& totals() const { return local_.totals(); }
  const DecomposedStats& stats() const { return stats_; }
  int owned_count() const { return static_cast<int>(grains_.owned.size()); }
  int ghost_count() const { return static_cast<int>(grains_.ghosts.size()); }
  struct Contribution;  // a contact's position correction of one grain (correct_positions)
  /// A grain's projection sums as an island's host formed them (project_hosted).
  struct GrainSum {
    std::int64_t gid = -1;
    Vec3 sum = Vec3::Zero();  // weighted corrections [m]
    double weight = 0.0;
  };

  /// A rank's request to stop (a signal's flag, read at every step's ledger reduction, which
  /// carries it to every rank: no reduction of its own).
  void watch_stop(const volatile std::sig_atomic_t* flag) { stop_flag_ = flag; }
  /// True on every rank alike when some rank's flag was set at a ledger reduction since the
  /// last call (the run loop then stops after this step on every rank).
  bool take_stop() {
    const bool s = stop_seen_;
    stop_seen_ = false;
    return s;
  }

 private:
  void check_supported(const World& full) const;
  /// One sub-step of length local_.h_ (World::advance over ranks), ending with the exchange of
  /// grains. With `needed`, returns false (and the sub-steps the spin after the solve needs,
  /// the same on every rank) before anything moves when that is more than the step is split
  /// into.
  bool advance(long* needed);
  void rebuild_local();  // local_ from the statics, grains_ and the carried warm start
  void process_events();
  /// The nets' kick (collective when there are nets): every rank kicks every net on its copy of
  /// the whole world, from the nodes their owners sent to every rank; each keeps its bodies'.
  void kick_nets();
  /// The owned nodes' positions (and velocities) into every rank's copy of the whole world.
  void share_net_nodes(bool velocities);
  /// The owned grains' velocities after the solve to the ranks that hold them as ghosts (the
  /// destinations of the last exchange), for World::missed_substeps; the ghosts' velocities
  /// before are kept for restore_ghost_velocities.
  void share_ghost_velocities();
  void restore_ghost_velocities();
  void find_contacts();    // broad and narrow phase of the pairs detected here
  void resolve_islands();  // labels, parts to hosts, solve, results back
  struct HostScratch;
  /// Solves one island gathered on this host and writes its results: velocities and motion to
  /// the grains' owners, impulses to the ranks that sent its contacts, in the order they came.
  void solve_hosted(const GatheredIsland& island, std::map<int, ByteWriter>& to_owner,
                    std::map<int, ByteWriter>& to_source, std::map<int, ByteWriter>& to_correction);
  /// The projection's contributions from the ranks that detected the contacts, to the grains'
  /// owners (an exchange; without the resting pass), counting the penetrating contacts.
  void collect_contributions(std::vector<Contribution>& mine, long& penetrating);
  void correct_positions();  // contributions to their owners, summed in the serial order
  /// Sleeping islands (World::update_sleep across ranks): the owners' rest times, each solved
  /// island's readiness on its host, the decision back to the owners.
  void update_sleep();
  void book_ledger();  // the step's sums over the ranks, booked in the serial order
  void exchange();     // records of owned grains (with their warm start) and ghosts
  /// Collective: every settings.rebalance_every steps, the rank boxes drawn again from every
  /// grain's centre when the largest rank owns more than rebalance_imbalance times the mean,
  /// and the grains moved to their new owners (exchange).
  void rebalance();
  /// [m] for the next step: collective, unless the step's ledger reduction carried the speed
  /// (next_speed_), which it consumes.
  double halo();
  /// The fastest owned surface point's speed in the next step (no reduction).
  double owned_next_speed() const;
  /// [m] The halo when `speed` bounds the fastest surface point's speed in the next step.
  double halo_for(double speed) const;
  /// The ledger, clock, totals and profiles (what a rank's world and the gathered world share).
  static void copy_run_state(const World& from, World& to);

  World& full_;
  Transport& t_;
  std::unique_ptr<HostScratch> host_;
  World local_;
  /// [m/s] The largest next_speed over every rank, reduced with the step's maxima
  /// (book_ledger) for the exchange that ends the step; negative when not known.
  double next_speed_ = -1.0;
  double last_halo_ = 0.0;  // [m] the halo of the last exchange
  /// share_ghost_velocities: each ghost it wrote, with the velocities it held before.
  struct GhostBefore {
    int local = -1;
    Vec3 velocity, angular_velocity;
  };
  std::vector<GhostBefore> ghosts_before_;
  /// The sub-steps the next step needs, reduced with the step's maxima at the spins the step
  /// leaves (its last book_ledger), the dt and substep_sweep it was counted with, and whether an
  /// event changed the grains since (then the step frame counts again); negative: not known.
  double next_substeps_ = -1.0;
  double next_substeps_dt_ = 0.0, next_substeps_sweep_ = 0.0;
  bool event_fired_ = false;
  const volatile std::sig_atomic_t* stop_flag_ = nullptr;
  bool stop_seen_ = false;
  std::vector<int> statics_;       // global ids of the bodies every rank holds
  std::vector<std::int64_t> gid_;  // per local body
  std::vector<int> owner_;         // per local body (statics: this rank)
  std::vector<char> owned_;        // per local body: a grain owned here
  std::vector<int> local_of_;      // per global id: local index, -1 absent
  Decomposition decomposition_;
  RankGrains grains_;
  double largest_radius_ = 0.0;  // [m] of any grain
  World::BodySums sums_;
  ExactSum island_kick_, correction_work_;
  SolverSums solver_sums_, resting_sums_;
  std::vector<NetKick> net_kicks_;  // this (sub-)step's, per net (the same on every rank)
  // This rank's part of the step's (World::wake_or_skip, update_sleep).
  ExactSum wake_kick_, sleep_energy_;
  long solved_ = 0;                  // islands solved here this (sub-)step (not left asleep)
  std::vector<IslandLabel> labels_;  // per local body: its island this (sub-)step
  struct Hosted {                    // an island solved here, for update_sleep
    std::int64_t root;
    std::vector<int> owners;  // ranks owning its grains
  };
  std::vector<Hosted> hosted_;
  /// The position projection's sums of the grains owned here, formed by the islands' hosts and
  /// sent with the velocities (with the resting pass every contact is in an island); whether
  /// they came that way this (sub-)step, and the penetrating contacts the hosts counted.
  std::vector<GrainSum> hosted_sums_;
  bool contributions_hosted_ = false;
  long hosted_penetrating_ = 0;
  NetBooking net_booking_;  // this rank's part of the nets' ledger of the step
  long penetrating_ = 0;    // contacts detected here that the projection corrects, this step
  DecomposedStats stats_;
};

}  // namespace etdem::distributed
