// A world split over ranks (docs/distributed.md): each rank holds the grains whose centres lie
// in its box (owned) and copies of the grains within the halo of its box (ghosts), with every
// wall, in a World whose bodies keep the serial order (ascending global id). That world steps
// with World::step, the one list of phases of every run; this class is its Domain
// (world/domain.hpp), the rank's side of the calls the step makes:
//   decomposed_world.cpp  building the rank's part, events, the sub-step's frame;
//   rank_halo.cpp         the grains' exchange with their warm start, the halo, rebalancing;
//   rank_islands.cpp      islands labelled across ranks without a gather (island_labels), their
//                         parts (island_parts.hpp) sent and the results taken back;
//   rank_hosted.cpp       an island solved whole on its host, or by the ranks that hold it as a
//                         team of the resting pass (world/island_solve, through
//                         World::solve_island);
//   rank_projection.cpp   the position corrections, summed on the grains' owners;
//   rank_sleep.cpp        the islands' sleep across ranks, and the joins of the regions' sleep;
//   rank_nets.cpp         the nets, whole on every rank;
//   rank_ledger.cpp       the sub-step's sums reduced over the ranks, the gather for output.
// Each pair is detected by the owner of its first grain; each grain's position corrections
// reach its owner and are summed there in the serial contact order; the ledger's sums are
// exact: a run gives the serial run's bits on any number of ranks.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "etdem/core/byte_stream.hpp"
#include "etdem/distributed/decomposition.hpp"
#include "etdem/distributed/grain_exchange.hpp"
#include "etdem/distributed/island_gather.hpp"
#include "etdem/distributed/island_labels.hpp"
#include "etdem/distributed/root_lists.hpp"
#include "etdem/distributed/transport.hpp"
#include "etdem/world/contact_order.hpp"
#include "etdem/world/domain.hpp"
#include "etdem/world/world.hpp"

namespace etdem::distributed {

struct IslandGrains;  // (host_scratch.hpp)

/// What the decomposition moved, summed over the run on this rank (the scaling model's inputs).
struct DecomposedStats {
  long owned = 0, ghosts = 0;      // grain-steps held
  long islands_hosted = 0;         // islands this rank resolved
  long islands_spanning = 0;       // of which parts came from other ranks
  long islands_shared = 0;         // of which every rank solved its resting pass together
  long islands_shared_direct = 0;  // of which each rank sent its part to every rank itself
  long groups_shared = 0;          // their collision groups, split over the ranks
  long contacts_kept_local = 0;    // contacts of such islands no other rank reads: not sent
  long collisions_kept_local = 0;  // of those, collisions (whole collision groups)
  long grains_sent_slim = 0;       // grains of such islands one rank reads or all hold: slim
  long islands_shared_empty = 0;   // such islands this rank solved holding none of the contacts
  long islands_sent_whole = 0;     // islands sent again whole: no longer swept by blocks
  long islands_offloaded = 0;      // islands solved here for the host of a large one (offload)
  long most_ranks_spanned = 0;     // the most ranks one island hosted here came from
  long label_rounds = 0;           // island label rounds
  long migrated = 0;               // grains that arrived from another rank
  long refreshed_in_place = 0;     // sub-steps whose local world kept its bodies (the same set)
  long rebalances = 0;             // times the rank boxes were drawn again (the same on every rank)
  long rebalances_by_time = 0;     // of those, for the ranks' busy times (rebalance_busy_imbalance)
  long contacts = 0;               // contact points detected here, summed over the sub-steps
  long shared_row_updates = 0;  // row updates of the resting pass this rank made in shared islands
};

class DecomposedWorld final : public Domain {
 public:
  /// `full` is the scenario's world as every rank builds it (the same bits everywhere),
  /// initialised, at the start or restored from a checkpoint (its warm start included). Each rank
  /// keeps its part; rank 0 gathers into `full` for the output (gather). Throws
  /// std::invalid_argument, naming it, for a feature a decomposed run does not carry yet: a
  /// solver of the user's own.
  DecomposedWorld(World& full, Transport& transport);
  ~DecomposedWorld() override;
  DecomposedWorld(const DecomposedWorld&) = delete;
  DecomposedWorld& operator=(const DecomposedWorld&) = delete;

  /// Collective: one step of the whole world (World::step on this rank's part).
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
  /// This rank's world's phases, summed over the run (wall time, waits in collectives included).
  const StepProfile& profile() const { return local_.profile(); }
  const StageProfile& stages() const { return local_.stages(); }  // this rank's
  int owned_count() const { return static_cast<int>(grains_.owned.size()); }
  int ghost_count() const { return static_cast<int>(grains_.ghosts.size()); }
  /// This rank's work now, as rebalancing weighs it: its owned grains' work (owned_work).
  long work() const;
  struct Contribution;  // a contact's position correction of one grain (correct_positions)
  /// A grain's projection sums as an island's host formed them (project_hosted).
  struct GrainSum {
    std::int64_t gid = -1;
    Vec3 sum = Vec3::Zero();  // weighted corrections [m]
    double weight = 0.0;
  };

  /// Whether islands the resting pass sweeps by blocks are solved by every rank together
  /// (share_islands; the same bits either way; never on one rank). From the world's
  /// `share_islands` setting: on by default on at most kAutoShareRanks ranks. Each rank then holds
  /// every grain of the island (and the contacts it reads), so the bytes moved and the memory
  /// held grow with the ranks (docs/distributed.md "The pile's solve across ranks").
  static constexpr int kAutoShareRanks = 4;
  /// A grain held as a ghost stays one while its centre lies within the halo and this many
  /// largest grain radii of the rank's box (exchange_grains' `keep`): a grain that moves to and
  /// fro across the halo's edge does not change the rank's bodies, whose world is then refreshed
  /// in place. The ghosts beyond the halo take part in no pair (halo_for).
  static constexpr double kGhostBand = 0.5;
  /// An island solved alone on one rank with at least this many contacts moves that rank's
  /// other islands to another rank in the next sub-step (offload_).
  static constexpr long kOffloadContacts = 1000;
  /// The most ranks for which the reduction carries each rank's largest island (offload_).
  static constexpr int kOffloadMostRanks = 16;
  void set_shared_islands(bool on) { shared_islands_ = on && t_.size() > 1; }
  /// The contacts from which an island solved alone offloads its host (kOffloadContacts unless
  /// set; the results do not depend on it).
  void set_offload_contacts(long contacts) { offload_contacts_ = contacts; }
  bool shared_islands() const { return shared_islands_; }

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

  // --- Domain: the calls World::step makes on a rank ---
  const std::vector<char>& owned() const override { return owned_; }
  TransferTotals transfers() const override {
    return {&t_.counters().seconds, &t_.counters().bytes};
  }
  double largest_radius() const override { return largest_radius_; }
  bool turning() const override { return turning_; }
  long most(long n) override;
  void process_events(World& w) override;
  void begin_substep(World& w, bool may_redo) override;
  void undo_substep(World& w) override;
  bool has_nets() const override { return !full_.nets.empty(); }
  void kick_nets(World& w, SubstepSums& sums) override;
  double net_elastic_energy(World& w) override;
  void solve_islands(World& w, SubstepLists lists) override;
  void share_velocities(World& w) override;
  void restore_velocities(World& w) override;
  void correct_positions(World& w, SubstepLists lists) override;
  void update_sleep(World& w, SubstepLists lists) override;
  bool any(bool mine) override;
  bool any_asleep(bool mine) override;
  bool lead() const override;
  void agree_regions(World& w, std::vector<RegionVote>& votes) override;
  void contact_loads(World& w, const std::vector<Contact>& contacts,
                     const std::vector<char>& wanted, std::vector<Vec3>& force,
                     std::vector<Vec3>& torque) override;
  void block_net_islands(World& w, std::vector<char>& blocked) override;
  void reduce(World& w, SubstepSums& sums, StepStats& stats) override;
  void exchange(World& w) override;

 private:
  void check_supported(const World& full) const;
  /// local_'s bodies from the statics, grains_ and the carried warm start, which is taken to
  /// have been found over a sub-step of h [s].
  /// `keep`: the world may keep its bodies when they would be the same (refresh_in_place); not
  /// when it was just built or initialized, whose grains' records carry what it lacks (their
  /// states as initialized, a checkpoint's warm start).
  void rebuild_local(double h, bool keep = false);
  /// A body of the local world as rebuild_local lists them (ascending global id).
  struct LocalEntry {
    std::int64_t gid;
    int kind;   // 0 static, 1 owned, 2 ghost
    int index;  // in the world every rank keeps (a static), in grains_.owned or grains_.ghosts
  };
  /// rebuild_local when its bodies would be the same as now: refreshed in place; returns false
  /// (and changes nothing) when they would not.
  bool refresh_in_place(std::span<const LocalEntry> entries, double h);
  /// The contacts the grains that came in carried (grains_.owned, global ids), on local ids,
  /// merged into `kept` (merge_arrived).
  void take_carried(std::vector<Contact>& kept);
  /// rebuild_local's warm start: the contacts the arrived grains carried (on local ids) merged
  /// into `kept` (the contacts of grains that stayed, in the serial order) in their serial
  /// places; `arrived` is scratch.
  void merge_arrived(std::vector<Contact>& kept, std::vector<Contact>& arrived);
  /// The owned grains' records (with their warm start) current, then exchanged: owned grains
  /// to their owners, ghosts within the halo (rank_halo.cpp).
  void exchange_grains_now();
  /// Collective: every settings.rebalance_every steps, the rank boxes drawn again from every
  /// grain's centre, weighted by its work, when the largest rank's work exceeds
  /// rebalance_imbalance times the mean, or weighted by its work times its rank's measured
  /// seconds per unit of work when the busiest rank's busy time since the last check exceeds
  /// rebalance_busy_imbalance times the mean; the grains then moved to their new owners.
  void rebalance();
  /// Per owned grain (in grains_.owned's order), its work: 1 + the contacts it detects (its
  /// warm start: last step's contacts whose first grain it is).
  std::vector<double> owned_work() const;
  /// [m] for the next step, as drawn (draw_halo): collective, unless the step's ledger
  /// reduction carried the speed (next_speed_), which it consumes.
  double halo();
  /// The fastest owned surface point's speed in the next step (no reduction).
  double owned_next_speed() const;
  /// [m] The halo when `speed` bounds the fastest surface point's speed in the next step.
  double halo_for(double speed) const;
  /// The owned nodes' positions (and velocities) into every rank's copy of the whole world.
  void share_net_nodes(bool velocities);
  struct HostScratch;
  /// Solves one island gathered on this host and writes its results: velocities and motion to
  /// the grains' owners, impulses to the ranks that sent its contacts, in the order they came.
  /// With `sharing`, the island is solved by every rank together (share_islands): each writes
  /// its own grains' and contacts' results, and its host books the island. Without, `own` lists
  /// this rank's contacts of the island when its part holds none (PartContactsKind::kLocal:
  /// they are solved where they lie). This rank's own grains take their results at once.
  struct Sharing;
  void solve_hosted(const GatheredIsland& island, SubstepLists& lists,
                    std::map<int, ByteWriter>& to_owner, std::map<int, ByteWriter>& to_source,
                    std::map<int, ByteWriter>& to_correction, const Sharing* sharing = nullptr,
                    std::optional<std::span<const int>> own = std::nullopt);
  /// Whether an island may be solved by every rank together: the resting pass sweeps large
  /// islands by blocks, and the ranks are several and few enough for a team.
  bool may_share_islands(const World& w) const;
  /// The grains of a gathered island that came slim only (put_part_grains: each is read by its
  /// sender alone, or held awake by every rank): their positions, velocities, inverse masses
  /// and inertias from this rank's copies where it holds them (the same bits as its owner's),
  /// else quiet NaNs, which no stage here reads (the resting pass slots only the bodies this
  /// rank holds).
  void fill_slim_grains(IslandGrains& grains) const;
  /// The parts of islands sent to every rank without the contacts only their senders read
  /// (`direct`, this rank's kept part in its place) that the resting pass no longer sweeps by
  /// blocks, sent again whole (their contacts, and their grains all whole) and put in their
  /// places; collective, an exchange only when some island needs it.
  void send_whole_again(std::vector<GatheredIsland>& direct, const RootLists& part_contacts,
                        const SubstepLists& lists);
  /// Collective: the islands every rank received whole (`direct`, the last sub-step's shared
  /// islands, root after root), then the islands hosted here that the resting pass sweeps by
  /// blocks (`shared` set for them) and those of the other hosts, each sent whole to every rank,
  /// host after host, root after root: each solved by all together
  /// (solvers/resting_team.hpp). `kept`: this rank's parts of the islands others host (each
  /// moved out as it comes back); `part_contacts`: its contacts of each island. Sets
  /// shared_roots_.
  void share_islands(std::vector<GatheredIsland>& direct, const std::vector<GatheredIsland>& hosted,
                     std::map<std::int64_t, std::string>& kept, const RootLists& part_contacts,
                     SubstepLists& lists, std::vector<char>& shared);
  /// The projection's contributions from the ranks that detected the contacts, to the grains'
  /// owners (an exchange; without the resting pass), counting the penetrating contacts.
  void collect_contributions(std::vector<Contribution>& mine, long& penetrating);

  World& full_;
  Transport& t_;
  std::unique_ptr<HostScratch> host_;
  std::vector<char> owned_;      // per local body: a grain owned here (before local_: its domain)
  double largest_radius_ = 0.0;  // [m] of any grain
  bool turning_ = false;         // a grain of the whole world may split a step by turning
  World local_;
  /// [m/s] The largest next_speed over every rank, reduced with the step's maxima
  /// (reduce) for the exchange that ends the step; negative when not known.
  double next_speed_ = -1.0;
  /// Whether a grain was asleep on some rank at the end of the last sub-step, reduced with its
  /// maxima (reduce) for any_asleep until the next reduction (a sub-step taken again included:
  /// it puts no grain to sleep before its own); -1: not known yet.
  int asleep_anywhere_ = -1;
  /// The largest island this rank solved alone this sub-step (not shared): its contacts and
  /// root; reduced with the step's maxima into the offload of the next sub-step.
  long largest_alone_ = 0;
  std::int64_t largest_alone_root_ = -1;
  /// Where one rank solves alone an island that outweighs the rest of a sub-step (at least
  /// kOffloadContacts contacts, the largest any rank solved alone in the last sub-step), the
  /// other islands it would host go to the rank that solved the least (`to`): they are solved
  /// there while it solves the large one. The same on every rank (from the reduction); `from`
  /// -1: none. The host moves no bit.
  struct Offload {
    int from = -1, to = -1;
    std::int64_t keep_root = -1;  // the large island's root, which stays on `from`
  };
  Offload offload_;
  long offload_contacts_ = kOffloadContacts;
  double last_halo_ = 0.0;  // [m] the halo of the last exchange
  /// share_velocities: each ghost it wrote, with the velocities it held before.
  struct GhostBefore {
    int local = -1;
    Vec3 velocity, angular_velocity;
  };
  std::vector<GhostBefore> ghosts_before_;
  /// The sub-steps the next step needs, reduced with the step's maxima at the spins the step
  /// leaves (its last reduce), the dt and substep_sweep it was counted with, and whether an
  /// event changed the grains since (then the step counts again); negative: not known.
  double next_substeps_ = -1.0;
  double next_substeps_dt_ = 0.0, next_substeps_sweep_ = 0.0;
  bool event_fired_ = false;
  const volatile std::sig_atomic_t* stop_flag_ = nullptr;
  bool stop_seen_ = false;
  double balance_profiled_ = 0.0;        // the step phases' wall time and the time in collectives
  double balance_waited_ = 0.0;          // at the last rebalance check [s]
  long balance_shared_ = 0;              // stats_.islands_shared then
  std::vector<int> statics_;             // global ids of the bodies every rank holds
  std::vector<std::int64_t> gid_;        // per local body
  std::vector<int> owner_;               // per local body (statics: this rank)
  std::vector<int> local_of_;            // per global id: local index, -1 absent
  std::vector<GrainRecord*> record_of_;  // exchange_grains_now: per local body, a migrant's record
  std::vector<Contact> arrived_contacts_;      // rebuild_local: the arrived grains' warm start
  std::vector<ContactOrderKey> arrived_keys_;  // merge_arrived's keys and order
  std::vector<int> arrived_order_;
  Decomposition decomposition_;
  RankGrains grains_;
  std::vector<Net> nets_at_start_;   // the nets at the start of a sub-step that may be redone
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
  /// The largest island of the last sub-step over every rank (reduce): whether the next may
  /// share islands (may_share_islands).
  long last_largest_island_ = 0;
  bool shared_islands_ = false;  // set_shared_islands
  /// The roots of the islands solved by every rank together in the last sub-step (ascending, the
  /// same on every rank): their parts go from every rank straight to every other.
  std::vector<std::int64_t> shared_roots_;
  long hosted_penetrating_ = 0;
  /// contact_loads: the held grains' load shares grouped by local body (group_by_key).
  std::vector<int> load_start_, load_shares_, load_fill_;
  std::vector<char> load_merged_;               // (the grains other ranks sent shares to)
  std::vector<std::pair<int, int>> load_hits_;  // (the contacts loading them, points' places)
  DecomposedStats stats_;
};

}  // namespace etdem::distributed
