// Islands to their hosts and results back (distributed/island_gather) on 1-5 thread-ranks:
// every host receives exactly the parts of the islands it hosts, from every rank that holds
// some of them, ordered by island and source rank; parts hosted at home move no data; each
// result reaches exactly the ranks it names, and no other.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "etdem/distributed/island_gather.hpp"
#include "etdem/distributed/local_transport.hpp"

namespace etdem::distributed {
namespace {

std::string part_text(std::int64_t root, int rank) {
  return "island " + std::to_string(root) + " part of rank " + std::to_string(rank);
}

class IslandGather : public ::testing::TestWithParam<int> {};

TEST_P(IslandGather, EveryHostGetsExactlyThePartsOfItsIslands) {
  const int ranks = GetParam();
  constexpr int kIslands = 300;
  // Island k: host k*7 mod ranks; held by a random set of ranks (at least one).
  std::mt19937 rng(17u + static_cast<unsigned>(ranks));
  std::vector<int> host(kIslands);
  std::vector<std::set<int>> holders(kIslands);
  for (int k = 0; k < kIslands; ++k) {
    host[k] = (k * 7) % ranks;
    for (int r = 0; r < ranks; ++r)
      if (rng() % 3 == 0) holders[k].insert(r);
    if (holders[k].empty()) holders[k].insert(static_cast<int>(rng() % ranks));
  }
  const auto root = [](int k) { return static_cast<std::int64_t>(1000 + 3 * k); };
  std::vector<std::vector<GatheredIsland>> got(ranks);
  std::vector<long> messages(ranks), remote_hosts(ranks);
  std::vector<std::vector<IslandPart>> sent(ranks), expected_sent(ranks);
  run_local_ranks(ranks, [&](Transport& t) {
    const int me = t.rank();
    std::vector<IslandPart> parts;
    std::set<int> hosts;
    // Parts in descending island order: the result must not depend on it.
    for (int k = kIslands - 1; k >= 0; --k)
      if (holders[k].count(me)) {
        parts.push_back({root(k), host[k], part_text(root(k), me)});
        if (host[k] != me) hosts.insert(host[k]);
      }
    for (const IslandPart& p : parts)
      if (p.host != me) expected_sent[me].push_back(p);
    const long before = t.counters().messages;
    got[me] = gather_islands(std::move(parts), t, &sent[me]);
    messages[me] = t.counters().messages - before;
    remote_hosts[me] = static_cast<long>(hosts.size());
  });
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(messages[r], remote_hosts[r]) << "one message per other host, none to itself";
    ASSERT_EQ(sent[r].size(), expected_sent[r].size()) << "the parts sent elsewhere, handed back";
    for (std::size_t i = 0; i < sent[r].size(); ++i) {
      EXPECT_EQ(sent[r][i].root, expected_sent[r][i].root);
      EXPECT_EQ(sent[r][i].host, expected_sent[r][i].host);
      EXPECT_EQ(sent[r][i].bytes, expected_sent[r][i].bytes);
    }
    std::vector<GatheredIsland> expected;
    for (int k = 0; k < kIslands; ++k) {
      if (host[k] != r) continue;
      GatheredIsland g{root(k), {}, {}};
      for (int from : holders[k]) {
        g.from.push_back(from);
        g.parts.push_back(part_text(root(k), from));
      }
      expected.push_back(g);
    }
    ASSERT_EQ(got[r].size(), expected.size()) << "rank " << r;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(got[r][i].root, expected[i].root);
      EXPECT_EQ(got[r][i].from, expected[i].from);
      EXPECT_EQ(got[r][i].parts, expected[i].parts);
    }
  }
}

TEST_P(IslandGather, ResultsReachTheRanksTheyNameOnly) {
  const int ranks = GetParam();
  constexpr int kGrains = 400;
  // Grain g is "hosted" on rank g mod ranks, which sends its result to a random set of ranks.
  std::mt19937 rng(5u + static_cast<unsigned>(ranks));
  std::vector<std::vector<int>> to(kGrains);
  for (int g = 0; g < kGrains; ++g)
    for (int r = 0; r < ranks; ++r)
      if (rng() % 4 == 0) to[g].push_back(r);
  std::vector<std::vector<Delivered>> got(ranks);
  run_local_ranks(ranks, [&](Transport& t) {
    std::vector<Delivery> out;
    for (int g = 0; g < kGrains; ++g)
      if (g % ranks == t.rank()) out.push_back({g, to[g], "v of " + std::to_string(g)});
    got[t.rank()] = deliver(out, t);
  });
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::int64_t> expected;  // by source rank, then sending order (ascending g)
    for (int from = 0; from < ranks; ++from)
      for (int g = 0; g < kGrains; ++g)
        if (g % ranks == from && std::count(to[g].begin(), to[g].end(), r)) expected.push_back(g);
    ASSERT_EQ(got[r].size(), expected.size()) << "rank " << r;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(got[r][i].gid, expected[i]);
      EXPECT_EQ(got[r][i].from, expected[i] % ranks);
      EXPECT_EQ(got[r][i].bytes, "v of " + std::to_string(expected[i]));
    }
  }
}

TEST_P(IslandGather, APartForEveryRankReachesEveryOtherRankAndComesBack) {
  // Island 5: every rank but the last holds some of it and sends its part to every rank; island
  // 9 goes to its host, rank 0, from every rank.
  const int ranks = GetParam();
  std::vector<std::vector<GatheredIsland>> got(ranks);
  std::vector<std::vector<IslandPart>> sent(ranks);
  run_local_ranks(ranks, [&](Transport& t) {
    const int me = t.rank();
    std::vector<IslandPart> parts;
    if (me + 1 < ranks || ranks == 1) parts.push_back({5, kEveryRank, part_text(5, me)});
    parts.push_back({9, 0, part_text(9, me)});
    got[me] = gather_islands(std::move(parts), t, &sent[me]);
  });
  for (int r = 0; r < ranks; ++r) {
    const bool holds = r + 1 < ranks || ranks == 1;
    GatheredIsland every{5, {}, {}}, hosted{9, {}, {}};
    for (int from = 0; from < ranks; ++from) {
      if (from != r && (from + 1 < ranks || ranks == 1)) {
        every.from.push_back(from);
        every.parts.push_back(part_text(5, from));
      }
      hosted.from.push_back(from);
      hosted.parts.push_back(part_text(9, from));
    }
    std::vector<GatheredIsland> expected;
    if (!every.from.empty()) expected.push_back(every);  // never its own part
    if (r == 0) expected.push_back(hosted);
    ASSERT_EQ(got[r].size(), expected.size()) << "rank " << r;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(got[r][i].root, expected[i].root);
      EXPECT_EQ(got[r][i].from, expected[i].from);
      EXPECT_EQ(got[r][i].parts, expected[i].parts);
    }
    // Handed back: the part for every rank (even alone) and the part hosted elsewhere.
    std::vector<std::int64_t> back;
    for (const IslandPart& p : sent[r]) {
      back.push_back(p.root);
      EXPECT_EQ(p.bytes, part_text(p.root, r));
    }
    std::vector<std::int64_t> want;
    if (holds) want.push_back(5);
    if (r != 0) want.push_back(9);
    EXPECT_EQ(back, want) << "rank " << r;
  }
}

TEST(IslandGather, TwoPartsOfOneIslandFromOneRankFailOnEveryRank) {
  EXPECT_THROW(run_local_ranks(3,
                               [](Transport& t) {
                                 std::vector<IslandPart> parts;
                                 if (t.rank() == 1) parts = {{7, 0, "a"}, {7, 0, "b"}};
                                 gather_islands(std::move(parts), t);
                               }),
               std::logic_error);
  EXPECT_THROW(run_local_ranks(2,
                               [](Transport& t) {
                                 gather_islands({{7, 2, "a"}}, t);  // no rank 2 of 2
                               }),
               std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Ranks, IslandGather, ::testing::Values(1, 2, 3, 4, 5));

}  // namespace
}  // namespace etdem::distributed
