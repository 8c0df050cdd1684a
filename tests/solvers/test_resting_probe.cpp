// The resting pass's convergence probe (etdem::resting_probe, RestingProbe): a diagnostic that
// bench programs set. It must change nothing, report every sweep the pass makes, and its counts
// must be consistent with each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <mutex>
#include <vector>

#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting.hpp"
#include "pile_fixture.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

std::mutex reports_mutex;
std::vector<RestingProbe> reports;

void record(const RestingProbe& p) {
  std::lock_guard<std::mutex> lock(reports_mutex);
  reports.push_back(p);
}

struct PourRun {
  std::uint64_t hash = 0;
  long sweeps = 0;  // the resting pass's sweeps over the run (its statistics)
  int iterations = 0;
};

// 216 spheres of 1 cm poured into a 7.2 cm box (120 steps, 0.2 s: settling islands, the shock
// pass and the rounds after it all run); settings made before it are kept.
void pour_spheres(TestWorld& t) {
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_container(Vec3(0, 0, 0), Vec3(0.072, 0.072, 1));
  fill_spheres(t, 6, 6, 6, 0.005, 0.012, Vec3(0, 0, 0), 0.0, 5, 0.3);
  t.world.initialize();
}

// The world's velocities in the solvers' view (the walls at rest: their velocities are zero).
IslandBodies view_of(Bodies& bodies) {
  return {bodies.count(), bodies.velocity.data(), bodies.angular_velocity.data(),
          bodies.inv_mass.data(), bodies.inv_inertia_world.data()};
}

// How far contact c would close within the next step at the velocities the solve left,
// (target - u_n) dt [m] (negative: it opens), and its shorter lever |r| over dynamic bodies [m].
struct Closing {
  double depth = 0.0, lever = 0.0;
};
Closing closing(const Contact& c, const IslandBodies& view, const Bodies& bodies, double dt) {
  const double un = c.normal.dot(impulse::relative_velocity(c, view));
  const double target = c.gap > 0.0 ? -c.gap / dt : 0.0;
  double lever = std::numeric_limits<double>::infinity();
  if (bodies.is_dynamic(c.a)) lever = c.ra.norm();
  if (bodies.is_dynamic(c.b)) lever = std::min(lever, c.rb.norm());
  return {(target - un) * dt, lever};
}

PourRun pour(bool probed) {
  TestWorld t(0.5, 0.5);
  pour_spheres(t);
  reports.clear();
  resting_probe = probed ? &record : nullptr;
  for (int k = 0; k < 120; ++k) t.world.step();
  resting_probe = nullptr;
  PourRun r;
  r.hash = t.state_hash();
  r.sweeps = t.world.totals().resting.rounds;
  r.iterations = t.world.settings.resting_pass.iterations;
  return r;
}

TEST(RestingProbe, ChangesNothingAndReportsEverySweep) {
  const PourRun plain = pour(false);
  ASSERT_TRUE(reports.empty());
  const PourRun probed = pour(true);
  EXPECT_EQ(plain.hash, probed.hash) << "the probe changed the trajectory";
  EXPECT_EQ(plain.sweeps, probed.sweeps);
  long sweeps = 0, shock = 0, rounds = 0, approaching_seen = 0;
  for (const RestingProbe& p : reports) {
    ASSERT_GE(p.set, 0);
    ASSERT_LE(p.set, 1 + RestingPass::kCloseRounds)
        << "the sweeps, the shock pass and at most kCloseRounds rounds after it";
    (p.set == 1 ? shock : sweeps) += 1;
    rounds += p.set >= 2;
    EXPECT_LT(p.sweep, probed.iterations);
    EXPECT_GT(p.island, 0);
    EXPECT_LE(p.swept, p.island);
    EXPECT_LE(p.approaching, p.island);
    EXPECT_LE(p.faster_1mm, p.approaching);
    EXPECT_EQ(p.faster_1mm > 0, p.fastest > 1e-3) << "set " << p.set << " sweep " << p.sweep;
    EXPECT_EQ(p.approaching > 0, p.fastest > 0.0);
    if (p.set == 1) {
      EXPECT_EQ(p.swept, 0);
    } else if (p.set == 0) {
      EXPECT_EQ(p.swept, p.island) << "the main sweeps visit every contact";
    }
    approaching_seen += p.approaching;
  }
  EXPECT_EQ(sweeps, probed.sweeps) << "one report per sweep of the pass";
  EXPECT_GT(shock, 0) << "the shock pass ran";
  EXPECT_GT(rounds, 0) << "a round after the shock pass ran";
  EXPECT_GT(approaching_seen, 0) << "a settling pour leaves some contact approaching";
}

// A contact is left approaching (counted, and swept again by the rounds after the shock pass)
// when within the step it would close by more than approach_tolerance times its shorter lever:
// (target - u_n) dt > tol |r|. The count the statistics give after a step is recomputed here from
// the step's contacts and the velocities the solve left (no damping: the step's motion keeps
// them), with a margin of 1 % on the depth for round-off; with a tolerance of a whole lever no
// contact of the pour is left approaching and no round runs, with 0 every excess beyond
// round-off counts and the rounds sweep the most.
struct LeftRun {
  long checked_steps = 0, mismatches = 0, counted = 0, round_sweeps = 0;
};
LeftRun left_approaching(double tolerance) {
  TestWorld t(0.5, 0.5);
  t.world.settings.resting_pass.approach_tolerance = tolerance;
  pour_spheres(t);
  reports.clear();
  resting_probe = &record;
  LeftRun r;
  const IslandBodies view = view_of(t.world.bodies);
  const double dt = t.world.settings.dt;
  for (int k = 0; k < 120; ++k) {
    t.world.step();
    if (t.world.last_step().substeps != 1) continue;  // the last sub-step's contacts only
    long beyond = 0, within = 0;  // beyond 1.01 tol |r|, and beyond 0.99 tol |r|
    for (const Contact& c : t.world.contacts()) {
      const Closing x = closing(c, view, t.world.bodies, dt);
      if (!(x.depth > RestingPass::kApproachSlack * dt)) continue;
      beyond += x.depth > 1.01 * tolerance * x.lever;
      within += x.depth > 0.99 * tolerance * x.lever;
    }
    const long counted = t.world.last_step().resting.approaching_left;
    ++r.checked_steps;
    r.counted += counted;
    if (counted < beyond || counted > within) ++r.mismatches;
  }
  resting_probe = nullptr;
  for (const RestingProbe& p : reports) r.round_sweeps += p.set >= 2;
  return r;
}

TEST(RestingProbe, LeftApproachingIsADepthBeyondTheTolerance) {
  const LeftRun exact = left_approaching(0.0);
  const LeftRun kept = left_approaching(1e-5);
  const LeftRun lever = left_approaching(1.0);
  for (const LeftRun* r : {&exact, &kept, &lever}) {
    EXPECT_GT(r->checked_steps, 100);
    EXPECT_EQ(r->mismatches, 0) << "the count is not the contacts beyond the tolerance";
  }
  std::printf(
      "contact-steps left approaching: %ld (0), %ld (1e-5), %ld (1); round sweeps %ld, "
      "%ld, %ld\n",
      exact.counted, kept.counted, lever.counted, exact.round_sweeps, kept.round_sweeps,
      lever.round_sweeps);
  EXPECT_GT(exact.counted, kept.counted);
  EXPECT_GT(kept.counted, 0) << "the pour settles: some contact closes beyond 1e-5 of its lever";
  EXPECT_EQ(lever.counted, 0) << "no contact closes by a whole lever (5 mm) in a step";
  EXPECT_EQ(lever.round_sweeps, 0);
  EXPECT_GT(exact.round_sweeps, kept.round_sweeps);
}

// A round follows its front: after each sweep, the contacts of the bodies it moved that would now
// close within the step by more than kJoinShare of their lever join it. Without that, a round
// pushed bodies into neighbours it did not sweep and left them closing, the approach moving one
// contact a round. The 216-sphere pour at its landing (0.1-0.2 s): after every step, no contact
// may close by more than twice kJoinShare of its lever (10 um for these grains, 0.1 % of d) in
// the next step.
TEST(RestingProbe, RoundsFollowTheirFront) {
  TestWorld t(0.5, 0.5);
  pour_spheres(t);
  const IslandBodies view = view_of(t.world.bodies);
  const double dt = t.world.settings.dt;
  double deepest = 0.0;  // the largest (target - u_n) dt / |r| after a step
  long beyond = 0, checked = 0;
  for (int k = 0; k < 120; ++k) {
    t.world.step();
    if (t.world.last_step().substeps != 1) continue;  // the last sub-step's contacts only
    ++checked;
    for (const Contact& c : t.world.contacts()) {
      const Closing x = closing(c, view, t.world.bodies, dt);
      const double share = x.depth / x.lever;
      deepest = std::max(deepest, share);
      beyond += share > RestingPass::kJoinShare;
    }
  }
  std::printf("%ld steps checked; deepest closing %.3g of the lever, %ld contact-steps beyond %g\n",
              checked, deepest, beyond, RestingPass::kJoinShare);
  EXPECT_GT(checked, 100);
  EXPECT_LT(deepest, 2.0 * RestingPass::kJoinShare);
}

// The rounds after the shock pass: a round that the energy guard takes back whole (scale 0)
// leaves every velocity and impulse as it found them, so another round would be a replay of it
// bit for bit; the rounds end there instead. Level-set rocks poured into a box (the grains of
// V9): some island-steps end their rounds early with contacts still approaching, and no round
// repeats the one before it.
TEST(RestingProbe, NoRoundReplaysATakenBackRound) {
  TestWorld t(0.3, 0.5, 2400.0);
  build_pile(t, Grain::LevelSetRock, 1, 8, 0.0205);
  t.world.settings.threads = 1;  // one island at a time: its reports follow each other
  t.world.initialize();
  reports.clear();
  resting_probe = &record;
  for (int k = 0; k < 360; ++k) t.world.step();
  resting_probe = nullptr;
  // Island-steps: each starts with sweep 0 of set 0. A round: the reports of one set >= 2.
  auto same = [](const RestingProbe& a, const RestingProbe& b) {
    return a.sweep == b.sweep && a.island == b.island && a.swept == b.swept &&
           a.approaching == b.approaching && a.faster_1mm == b.faster_1mm &&
           a.fastest == b.fastest && a.converged == b.converged &&
           a.normal_impulses == b.normal_impulses;
  };
  long rounds = 0, replays = 0, ended_early = 0;
  std::size_t k = 0;
  while (k < reports.size()) {
    std::size_t end = k + 1;
    while (end < reports.size() && !(reports[end].set == 0 && reports[end].sweep == 0)) ++end;
    std::vector<std::pair<std::size_t, std::size_t>> round;  // [first, last) of each round
    for (std::size_t j = k; j < end; ++j) {
      if (reports[j].set < 2) continue;
      if (round.empty() || reports[j].set != reports[round.back().first].set)
        round.push_back({j, j});
      round.back().second = j + 1;
    }
    rounds += std::ssize(round);
    for (std::size_t r = 1; r < round.size(); ++r) {
      const auto [a0, a1] = round[r - 1];
      const auto [b0, b1] = round[r];
      bool replay = a1 - a0 == b1 - b0;
      for (std::size_t j = 0; replay && j < a1 - a0; ++j)
        replay = same(reports[a0 + j], reports[b0 + j]);
      replays += replay;
    }
    // Rounds end at their bound (kCloseRounds), with no contact left approaching, or at a round
    // taken back. Of the early ends, a round taken back leaves its last sweep's approaching
    // contacts; with none left, a round's last sweep shows none unless the guard scaled it part
    // way.
    if (!round.empty() && round.size() < RestingPass::kCloseRounds &&
        reports[round.back().second - 1].approaching > 0)
      ++ended_early;
    k = end;
  }
  std::printf("%ld rounds, %ld ended early with contacts approaching, %ld replays\n", rounds,
              ended_early, replays);
  EXPECT_GT(rounds, 0);
  EXPECT_GT(ended_early, 0) << "no round was taken back: the test does not see the case";
  EXPECT_EQ(replays, 0) << "a round repeated the one before it";
}

}  // namespace
}  // namespace etdem::test
