// Islands across ranks (distributed/island_labels) against the serial union-find: random contact
// graphs cut into slabs of 1-6 ranks (threads standing in for ranks), chains that zig-zag across
// a rank boundary (many rounds), and inconsistent ghosts, which must fail on every rank.
#include <gtest/gtest.h>

#include <limits>

#include "distributed_graphs.hpp"
#include "etdem/core/exact_sum.hpp"
#include "etdem/distributed/local_transport.hpp"

namespace etdem::distributed {
namespace {
using namespace test_graphs;

void expect_matches_serial(const GlobalGraph& g, int ranks, int* max_rounds = nullptr) {
  const std::vector<IslandLabel> expected = serial_labels(g);
  std::vector<std::vector<IslandLabel>> got(ranks);
  std::vector<LocalContactGraph> views(ranks);
  std::vector<IslandLabelStats> stats(ranks);
  for (int r = 0; r < ranks; ++r) views[r] = local_view(g, r);
  run_local_ranks(ranks, [&](Transport& t) {
    got[t.rank()] = label_islands(views[t.rank()], t, &stats[t.rank()]);
  });
  std::vector<char> seen(g.bodies, 0);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(stats[r].rounds, stats[0].rounds);
    EXPECT_LE(stats[r].rounds, stats[r].round_bound);
    for (std::size_t i = 0; i < views[r].gid.size(); ++i) {
      const auto body = static_cast<int>(views[r].gid[i]);
      if (got[r][i].root < 0) continue;  // untouched here (a halo ghost, or only touched elsewhere)
      EXPECT_EQ(got[r][i], expected[body]) << "rank " << r << " body " << body;
      if (views[r].owner[i] == r) seen[body] = 1;
    }
  }
  // Every body in an island is labelled on its owner.
  for (int i = 0; i < g.bodies; ++i)
    if (expected[i].root >= 0) {
      EXPECT_TRUE(seen[i]) << "body " << i << " unlabelled on its owner";
    }
  if (max_rounds) *max_rounds = stats[0].rounds;
}

TEST(DistributedIslands, RandomGraphsMatchSerialOnOneToSixRanks) {
  for (int ranks = 1; ranks <= 6; ++ranks)
    for (unsigned seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE("ranks " + std::to_string(ranks) + " seed " + std::to_string(seed));
      // Sparse (many small islands) and dense (one spanning island).
      expect_matches_serial(random_graph(300, 0.04, ranks, seed), ranks);
      expect_matches_serial(random_graph(300, 0.09, ranks, seed + 10), ranks);
    }
}

TEST(DistributedIslands, ChainZigZaggingAcrossABoundaryNeedsManyRoundsAndSettles) {
  // Bodies 0..2k-1 alternate between ranks 0 and 1 along a chain whose smallest id sits at the
  // far end: the label hops rank to rank along it. Each contact is detected by the owner of
  // its smaller body.
  for (int k : {1, 5, 20}) {
    GlobalGraph g;
    g.bodies = 2 * k;
    g.owner.resize(g.bodies);
    g.wall.assign(g.bodies, 0);
    for (int i = 0; i < g.bodies; ++i) g.owner[i] = i % 2;
    for (int i = 0; i + 1 < g.bodies; ++i) g.edges.emplace_back(g.bodies - 2 - i, g.bodies - 1 - i);
    g.extra_ghost.resize(2);
    int rounds = 0;
    expect_matches_serial(g, 2, &rounds);
    EXPECT_GE(rounds, k);  // the label crosses the boundary 2k - 1 times, at most 2 per round
  }
}

TEST(DistributedIslands, AGhostItsOwnerDoesNotHoldFailsOnEveryRank) {
  std::vector<LocalContactGraph> views(2);
  views[0] = {{0, 7}, {0, 1}, {1, 1}, {{0, 1}}};  // rank 0 claims rank 1 owns body 7
  views[1] = {{1}, {1}, {0}, {}};
  EXPECT_THROW(run_local_ranks(2, [&](Transport& t) { label_islands(views[t.rank()], t); }),
               std::logic_error);
}

TEST(LocalTransport, ExchangeDeliversBySourceInSendOrderAndSumsAgree) {
  const int ranks = 4;
  std::vector<std::vector<Message>> got(ranks);
  std::vector<long> sums(ranks);
  run_local_ranks(ranks, [&](Transport& t) {
    std::vector<Message> out;
    for (int p = 0; p < ranks; ++p)  // two messages to every rank, itself included
      for (int k = 0; k < 2; ++k) out.push_back({p, std::to_string(t.rank() * 10 + k)});
    got[t.rank()] = t.exchange(std::move(out));
    sums[t.rank()] = t.sum(t.rank() + 1);
    EXPECT_EQ(t.counters().messages, 2 * ranks);
  });
  for (int r = 0; r < ranks; ++r) {
    ASSERT_EQ(got[r].size(), 2u * ranks);
    for (int i = 0; i < 2 * ranks; ++i) {
      EXPECT_EQ(got[r][i].peer, i / 2);
      EXPECT_EQ(got[r][i].bytes, std::to_string((i / 2) * 10 + i % 2));
    }
    EXPECT_EQ(sums[r], 10);
  }
}

TEST(LocalTransport, ExactSumsOverRanksEqualTheSerialSumForAnyRankCount) {
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i)
    values.push_back(std::ldexp(1.0 + i * 1e-3, (i * 37) % 90 - 45) * (i % 3 ? 1 : -1));
  ExactSum serial;
  for (double v : values) serial += v;
  for (int ranks = 1; ranks <= 5; ++ranks) {
    std::vector<double> got(ranks), biggest(ranks);
    run_local_ranks(ranks, [&](Transport& t) {
      ExactSum part;
      double local_max = -1e300;
      for (std::size_t i = t.rank(); i < values.size(); i += ranks) {
        part += values[i];
        local_max = std::max(local_max, values[i]);
      }
      got[t.rank()] = t.sum(part).value();
      biggest[t.rank()] = t.max(local_max);
    });
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(got[r], serial.value()) << ranks << " ranks";
      EXPECT_EQ(biggest[r], *std::max_element(values.begin(), values.end()));
    }
  }
}

TEST(LocalTransport, AnExactSumIsOneReductionAndCarriesANonFinitePartToEveryRank) {
  // A non-finite part on one rank makes the total non-finite on every rank, in one reduction.
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::vector<char> nonfinite(ranks, 0);
    std::vector<long> reductions(ranks, 0);
    std::vector<double> total(ranks, 0.0);
    run_local_ranks(ranks, [&](Transport& t) {
      ExactSum part;
      part += 0.25 * (t.rank() + 1);
      const long before = t.counters().reductions;
      total[t.rank()] = t.sum(part).value();
      reductions[t.rank()] = t.counters().reductions - before;
      ExactSum bad;
      bad += t.rank() == ranks - 1 ? std::numeric_limits<double>::quiet_NaN() : 1.0;
      nonfinite[t.rank()] = t.sum(bad).nonfinite() ? 1 : 0;
    });
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(total[r], 0.125 * ranks * (ranks + 1)) << ranks << " ranks";
      EXPECT_EQ(reductions[r], 1);
      EXPECT_EQ(nonfinite[r], 1) << ranks << " ranks";
    }
  }
}

TEST(LocalTransport, AFailureOnOneRankEndsEveryRankWithItsError) {
  EXPECT_THROW(run_local_ranks(3,
                               [](Transport& t) {
                                 if (t.rank() == 1) throw std::runtime_error("bad input on 1");
                                 for (int i = 0; i < 5; ++i) t.sum(1);
                               }),
               std::runtime_error);
}

}  // namespace
}  // namespace etdem::distributed
