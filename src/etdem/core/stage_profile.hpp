// The stages inside the step's phases where a large pile's time goes, timed.
#pragma once

#include <array>

#include "etdem/core/profile_timer.hpp"

namespace etdem {

/// Running totals of a transport's calls (a rank of a split run): seconds inside them, waits
/// included, and payload bytes sent. Null where there is no transport.
struct TransferTotals {
  const double* seconds = nullptr;
  const long* bytes = nullptr;
};

/// Wall seconds of the stages inside the step's phases (StepProfile) on which a pile's cost
/// hangs, summed over a run on one process (one rank of a split run):
/// - the resting pass of an island swept by blocks (solvers/resting.cpp), inside the `solve`
///   phase: its blocked order, its rows read and built, the warm start, the sweeps, the booking
///   and guard, the shock pass, the closing rounds, the store, and a team's own exchanges;
/// - on a rank of a split run (distributed/), inside `solve`: the islands labelled across the
///   ranks, this rank's parts written, gathered, each island assembled, solved (the resting
///   pass's stages nest in it), and the results sent back; inside `broad`: the grains'
///   exchange and the rank's world rebuilt.
/// summary.json prints them as `profile_stages` (docs/scenario.md). A stage's time is wall
/// time: waits for other ranks inside it count; on a rank of a split run the seconds of it
/// spent in the transport's calls (waits included) and the bytes it sent are kept beside it.
struct StageProfile {
  enum Stage {
    RestingOrder,
    RestingRows,
    RestingWarmStart,
    RestingSweeps,
    RestingBooking,
    RestingShockPass,
    RestingClosingRounds,
    RestingStore,
    RestingTeam,
    IslandsLabels,
    IslandsParts,
    IslandsGather,
    IslandsAssembly,
    IslandsSolves,
    IslandsResults,
    GrainsExchange,
    WorldRebuild
  };
  static constexpr int kStages = WorldRebuild + 1;
  /// Names in the order above, as summary.json and `etdem run --profile` print them.
  static constexpr const char* kNames[kStages] = {
      "resting_order",    "resting_rows",       "resting_warm_start",     "resting_sweeps",
      "resting_booking",  "resting_shock_pass", "resting_closing_rounds", "resting_store",
      "resting_team",     "islands_labels",     "islands_parts",          "islands_gather",
      "islands_assembly", "islands_solves",     "islands_results",        "grains_exchange",
      "world_rebuild"};
  std::array<double, kStages> seconds{};  // [s]
  std::array<long, kStages> calls{};
  /// With `transfers` set: of each stage's seconds, those inside the transport's calls [s], and
  /// the bytes it sent (a nested stage's count in the stage around it too, as its seconds do).
  std::array<double, kStages> transferring{};
  std::array<long, kStages> sent{};
  TransferTotals transfers;
};

/// Times one stage into a StageProfile (core/profile_timer.hpp).
using StageTimer = ProfileTimer<StageProfile>;

}  // namespace etdem
