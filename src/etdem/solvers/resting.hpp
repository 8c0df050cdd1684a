// Resting contacts: the hybrid treatment of slow contacts (2024 §4.1, after Guendelman,
// Bridson & Fedkiw 2003: a collision pass, then a separate contact pass with e = 0).
//
// ETM resolves a contact by about lambda small impulses; in a pile at rest every contact is
// reloaded by g dt each step and the compression stage behaves like a Gauss-Seidel sweep with
// steps of |u_n| / lambda: measured 500 impulses per contact per step on a 200-grain heap, which
// makes piles of 10^4 grains impractical. Contacts that approach slower than the resting
// velocity (or not at all) at the start of the step are therefore resolved here, inelastically:
// projected Gauss-Seidel on accumulated impulses (normal >= 0, tangential within the Coulomb
// disc mu * normal), a fixed number of sweeps with an early exit. Every impulse's work is split
// exactly into normal work (booked as restitution, e = 0) and tangential work (friction), so the
// energy ledger still closes to round-off. Collisions (faster approach) go through the chosen
// impulse solver (ETM) first; this pass runs after it on the whole island.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "etdem/core/stage_profile.hpp"
#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/step_time.hpp"

namespace etdem {

struct RestingSettings {
  int iterations = 12;            // Gauss-Seidel sweeps per island and step (upper bound)
  double tolerance = 1e-3;        // stop when no impulse changed by more than this fraction of the
                                  // largest accumulated normal impulse in a sweep
  bool shock_propagation = true;  // final bottom-up pass with the lower body fixed (with gravity)
  /// The shock pass lets a body approach a support until the contact would be this deep, as a
  /// fraction of the contact's shorter lever (0.01: 50 um for a grain of 1 cm), and stops only
  /// the approach beyond; 0 stops any (docs/design.md "The resting pass").
  double shock_depth = 0.0;
  /// A contact still closing faster than its target after the shock pass is left approaching
  /// (swept again by the rounds after it, and counted) when within the step it would close by
  /// more than this fraction of its shorter lever, the distance from a dynamic body's centre to
  /// the point (1e-5: 0.05 um, 3e-5 m/s in a step of 1/600 s, for a grain of 1 cm). 0: any
  /// excess beyond round-off (docs/notes/resting-pass.md "Left approaching: a depth, not
  /// round-off").
  double approach_tolerance = 1e-5;
  double warm_start = 1.0;     // fraction of last step's impulses applied first (0 = cold)
  double slip_velocity = 0.0;  // [m/s] above it a saturated friction impulse opposes the slip;
                               // the world sets it to the resting velocity
  /// Islands with at least this many contacts are swept by spatial blocks (resting_blocks.hpp):
  /// the same bits on any number of threads, the blocks of one colour in parallel; smaller
  /// islands keep the island's contact order. 0 = never.
  long block_contacts = 8192;
  double block_size = 0.0;  // [m] edge of the blocks; set by the world (0: no blocked sweeps)
  /// How a blocked island's rows are split into colours (resting_blocks.hpp).
  BlockOrder::Colouring colouring = BlockOrder::Colouring::kBlocks;

  bool operator==(const RestingSettings&) const = default;
};

/// A diagnostic of the pass's convergence, for bench programs (bench/resting_probe.hpp): when set,
/// called after every sweep and after the shock pass with the state of the whole island. Unset
/// in every run of the library and the CLI; it changes no velocity or impulse.
struct RestingProbe {
  int set = 0;      // 0: the sweeps before the shock pass; 1: after the shock pass; 2.. its rounds
  int sweep = 0;    // sweep within the set (0 for the shock pass)
  long island = 0;  // contacts of the island
  long swept = 0;   // contacts the sweep visited
  long approaching = 0;    // closing faster than their gap allows (RestingPass::kApproachSlack)
  long faster_1mm = 0;     // of them, by more than 1 mm/s
  double fastest = 0.0;    // the largest excess [m/s]
  bool converged = false;  // the sweep met the pass's stopping test
  double normal_impulses = 0.0;  // the island's accumulated normal impulses, summed in order [N s]
};
using RestingProbeHook = void (*)(const RestingProbe&);
inline RestingProbeHook resting_probe = nullptr;

class RestingTeam;
struct RestingWork;
struct RestingSettled;
struct RestingSupport;
struct RestingSweep;

/// The resting pass, in stages (each a method; the large ones in files of their own):
///   prepare_rows   the island's contacts as rows (resting.cpp): read once here;
///   warm_start     last step's impulses applied (resting.cpp);
///   sweep_all      projected Gauss-Seidel sweeps over every row (resting_sweeps.cpp);
///   book_and_guard each row's work booked, the pass scaled back where it would create energy
///                  (resting_booking.cpp);
///   shock_pass     bottom-up settle of each body on its held supports (resting_shock.cpp);
///   close_rounds   sweeps of the rows left approaching, following their front
///                  (resting_rounds.cpp);
///   store          impulses written back to the contacts (resting.cpp): written once here.
/// docs/design.md "The resting pass" states what each stage guarantees.
class RestingPass final : public Solver {
 public:
  /// Rounds of sweeps after the shock pass, each from the rows still left approaching (those
  /// that answer them join as the round moves their bodies, kJoinShare); they end early when
  /// none is left, or when the energy guard takes a round back whole.
  static constexpr int kCloseRounds = 2;
  /// A round follows its front: a row of a body its sweeps moved joins the round when within
  /// the step it would close by more than this share of its shorter lever (1e-3: 5 um, 3 mm/s
  /// in a step of 1/600 s, for a grain of 1 cm). Slower rows wait for the next round or step.
  static constexpr double kJoinShare = 1e-3;
  /// A body's rows are looked at for joining once the speed its points gained from the round's
  /// impulses since they were last looked at exceeds this share of the slowest joining speed of
  /// its rows (the speed that closes kJoinShare of the lever in a step): a filter against
  /// looking at every neighbour of every body after every sweep, not a bound (a row already
  /// near the joining speed can cross it by less).
  static constexpr double kStirShare = 0.5;
  /// A growth of a round's set looks at the stirred bodies' rows on every thread from this many
  /// bodies on (an island swept by blocks only).
  static constexpr std::size_t kParallelStirred = 128;
  /// A row closing faster than its target by at most this is not approaching [m/s] (round-off
  /// of the sweeps' velocities). The rounds and the count in the statistics ask in addition for
  /// a depth (RestingSettings::approach_tolerance); the convergence probe counts every row
  /// beyond round-off.
  static constexpr double kApproachSlack = 1e-9;
  /// Sweeps over one body's supports in the shock pass (a small problem: a grain has a few
  /// supports); reaching it is counted.
  static constexpr int kShockIterations = 16;

  explicit RestingPass(const RestingSettings& s);
  ~RestingPass() override;
  const char* name() const override { return "resting"; }
  /// The step the next resolve() works in (the world's sub-steps change its length): a contact
  /// with gap g > 0 may close at g / h (speculative contact); the impulses cancel the kick g h
  /// on resting grains (their work is booked from the velocity before it), and gravity's
  /// direction orders the shock pass (none without gravity).
  void set_step(const StepTime& step) { step_ = step; }
  /// Whether a contact may have rolling resistance (some material has it). When not, the pass
  /// does not look through the contacts for one: every contact's rolling is 0. By default it
  /// may.
  void set_rolling_possible(bool possible) { rolling_possible_ = possible; }
  const StepTime& step() const { return step_; }
  /// The team that solves the next blocked islands with this process (resting_team.hpp), null
  /// (the default): this process alone. Not owned.
  void set_team(RestingTeam* team) { team_ = team; }
  /// Where the stages of the islands swept by blocks add their wall time (one caller at a
  /// time: such islands are resolved one after another), null (the default): not timed. Not
  /// owned.
  void set_stage_profile(StageProfile* stages) { stages_ = stages; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;
  /// resolve() of the contacts serial[order[k]], k < order.size(), in that order, as if they
  /// were gathered into one array first: the same bits, without the array (the rows are built
  /// from the contacts where they lie).
  SolverStats resolve_in_order(std::span<Contact> serial, std::span<const int> order,
                               IslandBodies& bodies, int thread);
  /// The pass's settings, the block size the world set included.
  const RestingSettings& settings() const { return settings_; }
  /// Whether resolve() sweeps these contacts of these bodies by blocks.
  bool sweeps_by_blocks(std::size_t contacts, const IslandBodies& bodies) const {
    return blocked(contacts) && bodies.x;
  }
  /// Whether an island of `contacts` contacts is swept by blocks (it then takes every thread:
  /// the world resolves such islands one at a time, before the others).
  bool blocked(std::size_t contacts) const {
    return settings_.block_contacts > 0 && settings_.block_size > 0.0 &&
           static_cast<long>(contacts) >= settings_.block_contacts;
  }

 private:
  /// The pass over the contacts cs[order[k]] (order empty: cs[k]), blocked or in island order.
  SolverStats run(std::span<Contact> cs, std::span<const int> order, IslandBodies& b,
                  RestingWork& w, bool blocked);
  // The stages, in the order run() calls them.
  /// Reads every contact into its row and builds it (build_row); a team's member (share_assign
  /// done) builds only the rows it relaxes or settles a body on (of the contacts it holds).
  void prepare_rows(std::span<Contact> cs, std::span<const int> order, RestingWork& w) const;
  void warm_start(RestingWork& w) const;
  void sweep_all(RestingWork& w) const;
  double book_and_guard(RestingWork& w, std::span<const int> which) const;
  /// book_and_guard of a blocked island: its sums exact, split over a team's members.
  double book_blocked(RestingWork& w, std::span<const int> which) const;
  void shock_pass(RestingWork& w) const;
  void close_rounds(RestingWork& w) const;
  void store(std::span<Contact> cs, std::span<const int> order, RestingWork& w) const;
  /// Counts the rows left approaching after the pass (stats.approaching_left); a team's members
  /// mark their own rows, and their counts and updates are summed here.
  void count_left_approaching(RestingWork& w) const;

  // Parts of the stages.
  /// What prepare_rows builds of row i beyond its contact's data: the turns, the masses, the
  /// velocities before the pass and the shock pass's target; read only by the stages that
  /// relax the row or settle its upper body.
  void build_row(std::size_t i, const Contact& c, RestingWork& w) const;
  /// The normal velocity a contact may end the step with: 0, or for a contact still apart by
  /// g > 0 the speed that closes the gap within the step, -g / dt (a speculative contact).
  double target_speed(double gap) const {
    return gap > 0.0 && step_.h > 0.0 ? -gap / step_.h : 0.0;
  }
  /// One sweep's convergence test and the probe (RestingProbe) after it; `swept` rows.
  bool finish_sweep(RestingWork& w, const RestingSweep& sw, int k, long swept) const;
  /// The probe's report of the island's rows after a sweep.
  void probe(const RestingWork& w, int sweep, long swept, bool converged) const;
  /// Marks (RestingWork::marks) the rows left approaching: closing within the step by more than
  /// approach_tolerance of their shorter lever.
  void mark_approaching(RestingWork& w) const;
  /// Settles one body on its supports (shock pass), `local` its support scratch.
  RestingSettled settle_body(int body, RestingWork& w, std::vector<RestingSupport>& local) const;
  /// The shock pass's bodies settled by one process (on its threads, level by level), into
  /// w.by_height and w.settled.
  void settle_alone(RestingWork& w) const;
  /// The shock pass's bodies settled by a team (resting_team.hpp): this member's, in height
  /// order, the others' as they arrive (share_heights done).
  void settle_team(RestingWork& w) const;
  // The closing rounds' parts (resting_rounds.cpp).
  void build_lists(RestingWork& w) const;
  void join(RestingWork& w, int i) const;
  /// The rows the last sweep stirred join the set; whether any did. A team's answer is asked
  /// for only when `asked` (the sweep converged; otherwise it does not change the outcome): this
  /// member's own answer else. (A team shared the stirred bodies after the sweep, sweep_round.)
  bool grow(RestingWork& w, bool asked) const;
  /// Sweep k of a round's set; whether it converged. `grows`: a growth follows (grow), so a
  /// team passes the sweep's maxima with the stirred bodies, in one exchange.
  bool sweep_round(RestingWork& w, int k, bool grows) const;
  void follow(RestingWork& w, int bound) const;

  /// Whether the pass has a shock pass (and its closing rounds): set, and a gravity to order it.
  bool shocks() const { return settings_.shock_propagation && step_.gravity.squaredNorm() > 0.0; }

  RestingSettings settings_;
  bool rolling_possible_ = true;
  StepTime step_;  // the step being solved (set_step)
  RestingTeam* team_ = nullptr;
  StageProfile* stages_ = nullptr;
  std::vector<std::unique_ptr<RestingWork>> work_;  // per thread: the islands not blocked
  // The blocked islands' (one at a time): a pile keeps its rows' room from one step to the
  // next instead of the small islands between shrinking it and the pile growing it again.
  std::unique_ptr<RestingWork> blocked_work_;
  /// The working state for an island swept on `thread`: blocked_work_ for a blocked one.
  RestingWork& work_for(bool blocked, int thread);
};

}  // namespace etdem
