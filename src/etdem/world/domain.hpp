// The seam between the step and the ranks of a run split over them (docs/distributed.md).
// World::step is the one list of phases; a world that is a rank's part of a split run is given
// a Domain, which it calls at fixed points of the step: where the ranks must agree (sub-step
// counts, events), where work crosses ranks (islands, projection, sleep) and where the
// sub-step's sums are reduced before they are booked. A serial world has no domain and does
// each of these itself.
#pragma once

#include <cstdint>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/core/stage_profile.hpp"

namespace etdem {

class World;
struct StepBodies;
struct StepContacts;
struct StepStats;
struct SubstepSums;
struct Motion;
struct Contact;

/// A rank's vote on a region of sleep (world/sleep_regions.cpp), and what the ranks agreed.
struct RegionVote {
  std::int64_t key = 0;  // World::region_of
  bool yes = true;       // asked: this rank's vote; agreed: every vote on the region was yes
  bool counted = true;   // agreed: this rank is the first that voted on it (it counts it)
};

/// The lists of the sub-step a domain's calls read and write (world/step_context.hpp).
struct SubstepLists {
  const StepBodies& bodies;
  StepContacts& contacts;
  std::vector<Motion>& motion;  // per body
  SubstepSums& sums;
  StepStats& stats;
};

class Domain {
 public:
  virtual ~Domain() = default;

  /// Per body of the world: a grain owned here. Its kick, motion, sleep and ledger terms are
  /// this rank's, and it detects the pairs whose first grain it is (World::first_grain); the
  /// other bodies are walls (held by every rank) or ghosts. The vector lives as long as the
  /// domain; its contents change when the world's bodies are replaced.
  virtual const std::vector<char>& owned() const = 0;
  /// The running totals of the transport's calls, for the stages' share of them.
  virtual TransferTotals transfers() const = 0;
  /// [m] The largest grain's bounding radius over the whole world (the resting pass's blocks).
  virtual double largest_radius() const = 0;
  /// Whether a grain of the whole world can split a step by turning.
  virtual bool turning() const = 0;
  /// The largest of `n` over the ranks (the sub-steps a step needs).
  virtual long most(long n) = 0;

  /// The step's scheduled events, at its start (World::process_events).
  virtual void process_events(World& w) = 0;
  /// A sub-step begins; with `may_redo` it may be taken again (undo_substep): what it changes
  /// outside the world is kept.
  virtual void begin_substep(World& w, bool may_redo) = 0;
  virtual void undo_substep(World& w) = 0;

  /// The nets (world/net.hpp), held whole by every rank: whether there are any, their kick on
  /// the grains after gravity's (into sums.net_kicks) and their elastic energy now [J].
  virtual bool has_nets() const = 0;
  virtual void kick_nets(World& w, SubstepSums& sums) = 0;
  virtual double net_elastic_energy(World& w) = 0;

  /// Islands and their solve (World::resolve_islands over ranks): the velocities, the
  /// impulses of the contacts detected here, each owned grain's motion, the sums and counts.
  virtual void solve_islands(World& w, SubstepLists lists) = 0;
  /// The velocities the solve left, on the ghosts, for the check of missed pairs; and back.
  virtual void share_velocities(World& w) = 0;
  virtual void restore_velocities(World& w) = 0;
  /// The position projection of the owned grains (World::correct_positions over ranks).
  virtual void correct_positions(World& w, SubstepLists lists) = 0;
  /// Rest times and the islands that fall asleep (World::update_sleep over ranks; sleep by
  /// islands: the regions' is the world's, with the calls above).
  virtual void update_sleep(World& w, SubstepLists lists) = 0;
  /// Sleeping regions (world/sleep_regions.cpp) over the ranks: whether `mine` holds on some
  /// rank; one rank of the run (what every rank decides alike is counted there).
  virtual bool any(bool mine) = 0;
  virtual bool lead() const = 0;
  /// At a sub-step's start (World::wake_regions): whether a grain is asleep on some rank, `mine`
  /// whether one of this rank's is. The last sub-step's reduction (reduce) carries the answer,
  /// as sleep changes nowhere between it and the next sub-step but by waking; without it, an
  /// exchange of its own.
  virtual bool any_asleep(bool mine) = 0;
  /// `votes` (this rank's, ascending by key, one per region) replaced by every region on which
  /// this rank or a rank that may hold a grain of it voted, ascending by key, with `yes` the
  /// AND of the votes on it and `counted` on the lowest rank that voted on it.
  virtual void agree_regions(World& w, std::vector<RegionVote>& votes) = 0;
  /// The contacts' force and torque impulses [N s], [N m s] on each owned grain flagged in
  /// `wanted` (per body, ghosts flagged alike on every rank), summed in the serial contact order
  /// (World::add_contact_loads' bits), into `force` and `torque` (per body, zero elsewhere).
  virtual void contact_loads(World& w, const std::vector<Contact>& contacts,
                             const std::vector<char>& wanted, std::vector<Vec3>& force,
                             std::vector<Vec3>& torque) = 0;
  /// Sets `blocked` (per body) on the owned nets' nodes and the owned grains of every island
  /// holding a node (they do not fall asleep).
  virtual void block_net_islands(World& w, std::vector<char>& blocked) = 0;
  /// The sub-step's sums and statistics over every rank, before the world books them.
  virtual void reduce(World& w, SubstepSums& sums, StepStats& stats) = 0;
  /// The sub-step is booked: grains to their owners, ghosts for the next (sub-)step.
  virtual void exchange(World& w) = 0;
};

}  // namespace etdem
