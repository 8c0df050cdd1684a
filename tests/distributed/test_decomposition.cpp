// Recursive coordinate bisection (distributed/decomposition): every point owned by one box, the
// weight shared out to within one point's weight, ghosts exactly the boxes within the halo, and
// the property the halo exists for: the owner of either grain of a touching pair holds the other.
#include <gtest/gtest.h>

#include <random>

#include "etdem/distributed/decomposition.hpp"

namespace etdem::distributed {
namespace {

std::vector<Vec3> random_points(int n, unsigned seed, Vec3 size) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Vec3> p(n);
  for (Vec3& x : p) x = Vec3(u(rng), u(rng), u(rng)).cwiseProduct(size);
  return p;
}

TEST(Decomposition, EveryPointHasOneOwnerAndTheWeightIsShared) {
  for (int ranks = 1; ranks <= 9; ++ranks)
    for (unsigned seed : {1u, 2u}) {
      SCOPED_TRACE("ranks " + std::to_string(ranks));
      const auto points = random_points(2000, seed, Vec3(4, 1, 0.5));  // a long pour
      std::vector<double> weights(points.size());
      std::mt19937 rng(seed);
      for (double& w : weights) w = 1 + rng() % 7;  // contacts per grain
      const Decomposition d = Decomposition::bisect(points, weights, ranks);
      ASSERT_EQ(d.ranks(), ranks);
      std::vector<double> load(ranks, 0.0);
      double total = 0;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const int r = d.owner_of(points[i]);
        int inside = 0;
        for (int q = 0; q < ranks; ++q) inside += d.box(q).distance(points[i]) == 0;
        EXPECT_GE(inside, 1);
        EXPECT_EQ(d.box(r).distance(points[i]), 0.0);
        load[r] += weights[i];
        total += weights[i];
      }
      // Each cut misses its share by at most one point's weight (7), and there are at most
      // ceil(log2 ranks) cuts above a box.
      for (int r = 0; r < ranks; ++r) EXPECT_NEAR(load[r], total / ranks, 7.0 * 4) << "rank " << r;
      // Cuts go across the longest side first: with 2 ranks the cut is across x (4 m long).
      if (ranks == 2) {
        EXPECT_TRUE(std::isinf(d.box(0).lo[0]) && std::isfinite(d.box(0).hi[0]));
      }
    }
}

TEST(Decomposition, GhostsAreTheBoxesWithinTheHaloAndCoverEveryTouchingPair) {
  const auto points = random_points(1500, 3, Vec3(1, 1, 1));
  const double radius = 0.02, motion = 0.005, halo = 2 * radius + motion;
  for (int ranks : {2, 5, 8}) {
    const Decomposition d = Decomposition::bisect(points, {}, ranks);
    std::vector<int> owner(points.size());
    std::vector<std::vector<int>> ghosts(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      owner[i] = d.owner_of(points[i]);
      d.ghost_ranks(points[i], halo, owner[i], ghosts[i]);
      std::vector<int> brute;
      for (int r = 0; r < ranks; ++r)
        if (r != owner[i] && d.box(r).distance(points[i]) <= halo) brute.push_back(r);
      EXPECT_EQ(ghosts[i], brute);
      // Asked for another rank than the box holding the point (a sleep region's centre): the
      // walk, not the shortcut for points deep in their owner's box, answers.
      const int other = (owner[i] + 1) % ranks;
      std::vector<int> from_other, brute_other;
      d.ghost_ranks(points[i], halo, other, from_other);
      for (int r = 0; r < ranks; ++r)
        if (r != other && d.box(r).distance(points[i]) <= halo) brute_other.push_back(r);
      EXPECT_EQ(from_other, brute_other);
    }
    // Two grains that can touch this step (centres within 2 R + motion): the owner of each holds
    // the other, as owner or ghost.
    long pairs = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
      for (std::size_t j = i + 1; j < points.size(); ++j) {
        if ((points[i] - points[j]).norm() > halo) continue;
        ++pairs;
        auto holds = [&](int rank, std::size_t b) {
          return owner[b] == rank ||
                 std::find(ghosts[b].begin(), ghosts[b].end(), rank) != ghosts[b].end();
        };
        EXPECT_TRUE(holds(owner[i], j) && holds(owner[j], i)) << i << " " << j;
      }
    EXPECT_GT(pairs, 100);
  }
}

TEST(Decomposition, EqualCoordinatesStayOnOneSideAndBadInputIsRefused) {
  // Ten grains in one column (equal x and y): the cut goes along z or leaves a box empty, but
  // never separates equal points of the cut axis.
  std::vector<Vec3> column(10, Vec3(0.5, 0.5, 0));
  for (int i = 0; i < 10; ++i) column[i].z() = i < 5 ? 0.0 : 1.0;
  const Decomposition d = Decomposition::bisect(column, {}, 2);
  EXPECT_NE(d.owner_of(column[0]), d.owner_of(column[9]));
  for (int i = 1; i < 5; ++i) EXPECT_EQ(d.owner_of(column[i]), d.owner_of(column[0]));
  // Nothing to cut: one rank gets everything, the other an empty box.
  std::vector<Vec3> same(6, Vec3(1, 2, 3));
  const Decomposition e = Decomposition::bisect(same, {}, 3);
  for (const Vec3& x : same) EXPECT_EQ(e.owner_of(x), e.owner_of(same[0]));
  EXPECT_THROW(Decomposition::bisect(same, {}, 0), std::invalid_argument);
  std::vector<Vec3> nan(1, Vec3(std::nan(""), 0, 0));
  EXPECT_THROW(Decomposition::bisect(nan, {}, 2), std::invalid_argument);
  const std::vector<double> negative{-1.0};
  EXPECT_THROW(Decomposition::bisect(std::vector<Vec3>(1, Vec3::Zero()), negative, 2),
               std::invalid_argument);
}

TEST(Decomposition, TheHaloIsDrawnInStepsAndKeptWhileItHoldsWhatThePairsNeed) {
  const double step = 0.25;
  // Rounded up to a whole number of steps from nothing drawn; a need on a step is that step.
  EXPECT_DOUBLE_EQ(draw_halo(2.1, 0.0, step), 2.25);
  EXPECT_DOUBLE_EQ(draw_halo(2.0, 0.0, step), 2.0);
  // Kept while it holds the need with at most two steps to spare, whichever way the need moves.
  EXPECT_EQ(draw_halo(2.2, 2.25, step), 2.25);
  EXPECT_EQ(draw_halo(1.8, 2.25, step), 2.25);
  EXPECT_EQ(draw_halo(1.75, 2.25, step), 2.25);
  // Drawn again when the need outgrows it or falls more than two steps below it.
  EXPECT_DOUBLE_EQ(draw_halo(2.3, 2.25, step), 2.5);
  EXPECT_DOUBLE_EQ(draw_halo(1.7, 2.25, step), 1.75);
  // Never below the need; a need that grows by a little each step redraws it rarely.
  double drawn = 0.0;
  int redrawn = 0;
  for (int k = 0; k < 100; ++k) {
    const double need = 2.0 + 0.01 * k;
    const double next = draw_halo(need, drawn, step);
    EXPECT_GE(next, need);
    redrawn += next != drawn ? 1 : 0;
    drawn = next;
  }
  EXPECT_LE(redrawn, 5);
  // No step: the need itself.
  EXPECT_EQ(draw_halo(2.1, 3.0, 0.0), 2.1);
}

// A pour whose pile the ranks solve together: boxes drawn for the busy times leave the work
// uneven (the rank with the pile's slow rows holds fewer grains). Were the work's trigger then
// to draw them again, the next check would find the times uneven and draw them back: on the
// 10,000-sphere pour the checks alternated so (busy imbalance 1.12 over a run, work even at
// step 300 with the busy times 2.08 s against 0.99 s). Where piles were shared, the time alone
// decides.
TEST(Decomposition, WherePilesAreSharedTheBusyTimeAloneDecidesARebalance) {
  const double work_limit = 1.25, busy_limit = 1.05;
  BalanceFigures f;
  f.total_work = 2000.0;
  f.most_work = 1300.0;  // 1.3 times the mean
  f.most_busy = 1.02, f.least_busy = 0.98, f.mean_busy = 1.0;
  f.shared = true;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kNone);
  f.most_busy = 1.2, f.least_busy = 0.8;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kByTime);
  f.most_work = 1000.0;  // the work even: the time still decides
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kByTime);
  // No pile shared since the last check: the work decides, the time is not read.
  f.shared = false;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kNone);
  f.most_work = 1300.0;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kByWork);
  f.most_busy = 1.0, f.least_busy = 1.0;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kByWork);
  // The time's trigger off (0), or a rank that measured no busy time: the work decides.
  f.shared = true;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, 0.0), Rebalance::kByWork);
  f.most_busy = 1.0, f.least_busy = 0.0;
  EXPECT_EQ(rebalance_rule(f, 2, work_limit, busy_limit), Rebalance::kByWork);
  // One rank, no work, or a run too small to split better than it is: never.
  EXPECT_EQ(rebalance_rule(f, 1, work_limit, busy_limit), Rebalance::kNone);
  BalanceFigures none;
  none.most_busy = 2.0, none.least_busy = 1.0, none.mean_busy = 1.5, none.shared = true;
  EXPECT_EQ(rebalance_rule(none, 2, work_limit, busy_limit), Rebalance::kNone);
  BalanceFigures small;
  small.total_work = 3.0, small.most_work = 2.0;  // the mean 1.5: no bisection gives less than 2
  EXPECT_EQ(rebalance_rule(small, 2, 1.0, busy_limit), Rebalance::kNone);
  small.most_work = 3.0;
  EXPECT_EQ(rebalance_rule(small, 2, 1.0, busy_limit), Rebalance::kByWork);
}

}  // namespace
}  // namespace etdem::distributed
