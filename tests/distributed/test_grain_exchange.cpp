// Migration and ghost refresh (distributed/grain_exchange) on 1-6 thread-ranks: from any initial
// spread, every grain ends on exactly one owner (the box holding its centre), every rank holds
// as ghosts exactly the others' grains within the halo of its box (and, with a band kept, those
// it held before within the band beyond it), states travel intact (the part only an owner reads
// with the grain, never in a ghost's copy), and after the grains move the same holds again.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "etdem/distributed/grain_exchange.hpp"
#include "etdem/distributed/local_transport.hpp"

namespace etdem::distributed {
namespace {

std::string state_of(std::int64_t gid, const Vec3& x) {
  return "grain " + std::to_string(gid) + " at " + std::to_string(x.x());
}

std::vector<Contact> carried_of(std::int64_t gid) {
  Contact c;
  c.a = static_cast<int>(gid);
  c.b = static_cast<int>(gid) + 1;
  c.normal_impulse = 1e-3 * static_cast<double>(gid);
  return {c, c};
}

void expect_carried(const std::vector<Contact>& got, std::int64_t gid) {
  const std::vector<Contact> want = carried_of(gid);
  ASSERT_EQ(got.size(), want.size()) << "grain " << gid;
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].a, want[k].a);
    EXPECT_EQ(got[k].b, want[k].b);
    EXPECT_EQ(got[k].normal_impulse, want[k].normal_impulse);
  }
}

/// Per rank, the ghosts' global ids.
using GhostSets = std::vector<std::vector<std::int64_t>>;

GhostSets ghost_sets(const std::vector<RankGrains>& held) {
  GhostSets sets(held.size());
  for (std::size_t r = 0; r < held.size(); ++r)
    for (const GrainRecord& g : held[r].ghosts) sets[r].push_back(g.gid);
  return sets;
}

/// `before` (with `keep` > 0): the ghosts each rank held before the exchange, of which those
/// within `halo + keep` of its box stay.
void expect_consistent(const std::vector<RankGrains>& held, const Decomposition& d,
                       const std::vector<Vec3>& x, double halo, const GhostSets* before = nullptr,
                       double keep = 0.0) {
  const int ranks = d.ranks();
  std::vector<int> owners(x.size(), 0);
  for (int r = 0; r < ranks; ++r) {
    std::int64_t last = -1;
    for (const GrainRecord& g : held[r].owned) {
      EXPECT_GT(g.gid, last);  // ascending
      last = g.gid;
      ++owners[g.gid];
      EXPECT_EQ(d.owner_of(g.position), r);
      EXPECT_EQ(g.position, x[g.gid]);
      EXPECT_EQ(g.state, state_of(g.gid, x[g.gid]));
      expect_carried(g.carried, g.gid);
    }
    // Ghosts: exactly the others' grains within the halo of box r (and the band's), ascending,
    // with their owner.
    std::vector<std::int64_t> expected;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (d.owner_of(x[i]) == r) continue;
      const double at = d.box(r).distance(x[i]);
      const auto gid = static_cast<std::int64_t>(i);
      const bool held_before =
          before && std::binary_search((*before)[r].begin(), (*before)[r].end(), gid);
      if (at <= halo || (held_before && at <= halo + keep)) expected.push_back(gid);
    }
    std::vector<std::int64_t> got;
    for (std::size_t k = 0; k < held[r].ghosts.size(); ++k) {
      const GrainRecord& g = held[r].ghosts[k];
      got.push_back(g.gid);
      EXPECT_EQ(held[r].ghost_owner[k], d.owner_of(x[g.gid]));
      EXPECT_EQ(g.state, state_of(g.gid, x[g.gid]));
      EXPECT_TRUE(g.carried.empty());
    }
    EXPECT_EQ(got, expected) << "rank " << r;
  }
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(owners[i], 1) << "grain " << i;
}

TEST(GrainExchange, GrainsEndOnTheirOwnersWithExactlyTheGhostsOfTheHalo) {
  for (int ranks = 1; ranks <= 6; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::mt19937 rng(ranks);
    std::uniform_real_distribution<double> u(0, 1), step(-0.05, 0.05);
    const int n = 600;
    std::vector<Vec3> x(n);
    for (Vec3& p : x) p = Vec3(u(rng), u(rng), 0.3 * u(rng));
    const Decomposition d = Decomposition::bisect(x, {}, ranks);
    const double halo = 0.06;
    // Start from a spread that ignores space (round robin): nearly every grain migrates.
    std::vector<RankGrains> held(ranks);
    for (int i = 0; i < n; ++i)
      held[i % ranks].owned.push_back({i, x[i], state_of(i, x[i]), carried_of(i), {}});
    std::vector<GrainExchangeStats> st(ranks);
    run_local_ranks(
        ranks, [&](Transport& t) { exchange_grains(d, halo, held[t.rank()], t, &st[t.rank()]); });
    expect_consistent(held, d, x, halo);
    long out = 0, in = 0;
    for (auto& s : st) out += s.migrated_out, in += s.migrated_in;
    EXPECT_EQ(out, in);
    // The grains move (the decomposition stays): owners and ghosts follow.
    for (int r = 0; r < ranks; ++r)
      for (GrainRecord& g : held[r].owned) {
        x[g.gid] += Vec3(step(rng), step(rng), step(rng));
        g.position = x[g.gid];
        g.state = state_of(g.gid, x[g.gid]);
      }
    run_local_ranks(ranks, [&](Transport& t) { exchange_grains(d, halo, held[t.rank()], t); });
    expect_consistent(held, d, x, halo);
  }
}

TEST(GrainExchange, AGhostKeptWithinTheBandStaysOneUntilItLeavesTheBand) {
  // With a band kept, the ghosts of a rank are the grains within the halo of its box and those
  // it held before that lie within the halo and the band: a grain that moves to and fro across
  // the halo's edge stays, one beyond the band goes, one that changes owner keeps the ranks it
  // was a ghost on. More ranks hold a grain than the halo alone gives, never one beyond the band.
  for (int ranks = 2; ranks <= 4; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::mt19937 rng(30 + ranks);
    std::uniform_real_distribution<double> u(0, 1), step(-0.03, 0.03);
    const int n = 600;
    std::vector<Vec3> x(n);
    for (Vec3& p : x) p = Vec3(u(rng), u(rng), 0.3 * u(rng));
    const Decomposition d = Decomposition::bisect(x, {}, ranks);
    const double halo = 0.05, keep = 0.04;
    std::vector<RankGrains> held(ranks);
    for (int i = 0; i < n; ++i)
      held[i % ranks].owned.push_back({i, x[i], state_of(i, x[i]), carried_of(i), {}});
    run_local_ranks(ranks, [&](Transport& t) {
      exchange_grains(d, halo, held[t.rank()], t, nullptr, {}, keep);
    });
    expect_consistent(held, d, x, halo);  // (none held before: the halo's alone)
    long kept_in_band = 0, migrated = 0;
    for (int round = 0; round < 4; ++round) {
      const GhostSets before = ghost_sets(held);
      for (int r = 0; r < ranks; ++r)
        for (GrainRecord& g : held[r].owned) {
          x[g.gid] += Vec3(step(rng), step(rng), step(rng));
          g.position = x[g.gid];
          g.state = state_of(g.gid, x[g.gid]);
          g.carried = carried_of(g.gid);  // (as the world writes them: each exchange anew)
          migrated += d.owner_of(x[g.gid]) != r;
        }
      run_local_ranks(ranks, [&](Transport& t) {
        exchange_grains(d, halo, held[t.rank()], t, nullptr, {}, keep);
      });
      expect_consistent(held, d, x, halo, &before, keep);
      for (int r = 0; r < ranks; ++r)
        for (const GrainRecord& g : held[r].ghosts)
          kept_in_band += d.box(r).distance(g.position) > halo;
    }
    EXPECT_GT(kept_in_band, 0);  // the band was exercised
    EXPECT_GT(migrated, 0);
  }
  const Decomposition d =
      Decomposition::bisect(std::vector<Vec3>{Vec3::Zero(), Vec3::Ones()}, {}, 2);
  std::vector<RankGrains> held(2);
  EXPECT_THROW(
      run_local_ranks(
          2, [&](Transport& t) { exchange_grains(d, 0.1, held[t.rank()], t, nullptr, {}, -1.0); }),
      std::invalid_argument);
}

TEST(GrainExchange, AStateIsWrittenOnlyForTheGrainsSentAndEveryRecordArrivesWithIt) {
  // An owned record may come without its state: the exchange asks for it only for the grains it
  // sends (to a new owner or as a ghost); a grain kept here and copied nowhere stays without.
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::mt19937 rng(10 + ranks);
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 400;
    std::vector<Vec3> x(n);
    for (Vec3& p : x) p = Vec3(u(rng), u(rng), 0.3 * u(rng));
    const Decomposition d = Decomposition::bisect(x, {}, ranks);
    const double halo = 0.05;
    std::vector<RankGrains> held(ranks);
    for (int i = 0; i < n; ++i) held[i % ranks].owned.push_back({i, x[i], "", carried_of(i), {}});
    std::vector<std::vector<std::int64_t>> written(ranks);
    run_local_ranks(ranks, [&](Transport& t) {
      exchange_grains(d, halo, held[t.rank()], t, nullptr, [&](GrainRecord& g) {
        written[t.rank()].push_back(g.gid);
        g.state = state_of(g.gid, g.position);
      });
    });
    long kept_without = 0;
    for (int r = 0; r < ranks; ++r) {
      for (const std::int64_t gid : written[r]) {  // each was sent: it left or is a ghost
        const int owner = d.owner_of(x[gid]);
        std::vector<int> ghost_of;
        d.ghost_ranks(x[gid], halo, owner, ghost_of);
        EXPECT_TRUE(owner != r || !ghost_of.empty()) << "grain " << gid;
      }
      for (const GrainRecord& g : held[r].owned) {
        expect_carried(g.carried, g.gid);
        if (g.state.empty()) {
          ++kept_without;
          EXPECT_EQ(g.gid % ranks, r) << "grain " << g.gid;  // it started here
        } else {
          EXPECT_EQ(g.state, state_of(g.gid, x[g.gid]));
        }
      }
      for (const GrainRecord& g : held[r].ghosts) EXPECT_EQ(g.state, state_of(g.gid, x[g.gid]));
    }
    if (ranks == 1)
      EXPECT_EQ(kept_without, n);  // nothing goes anywhere
    else
      EXPECT_GT(kept_without, 0);
  }
  // A grain to send with no state and nothing to write it: refused.
  const Decomposition d =
      Decomposition::bisect(std::vector<Vec3>{Vec3::Zero(), Vec3::Ones()}, {}, 2);
  std::vector<RankGrains> held(2);
  held[0].owned.push_back({0, Vec3::Zero(), "", {}, {}});  // one of the two is box 1's: it migrates
  held[0].owned.push_back({1, Vec3::Ones(), "", {}, {}});
  EXPECT_THROW(
      run_local_ranks(2, [&](Transport& t) { exchange_grains(d, 0.1, held[t.rank()], t); }),
      std::invalid_argument);
}

TEST(GrainExchange, BadInputIsRefusedOnEveryRank) {
  const Decomposition d =
      Decomposition::bisect(std::vector<Vec3>{Vec3::Zero(), Vec3::Ones()}, {}, 2);
  std::vector<RankGrains> held(2);
  held[1].owned.push_back({7, Vec3(std::nan(""), 0, 0), "", {}, {}});
  EXPECT_THROW(
      run_local_ranks(2, [&](Transport& t) { exchange_grains(d, 0.1, held[t.rank()], t); }),
      std::invalid_argument);
  EXPECT_THROW(run_local_ranks(3, [&](Transport& t) { exchange_grains(d, 0.1, held[0], t); }),
               std::invalid_argument);
  EXPECT_THROW(run_local_ranks(2, [&](Transport& t) { exchange_grains(d, -1.0, held[0], t); }),
               std::invalid_argument);
}

}  // namespace
}  // namespace etdem::distributed
