// Blocked sweeps of a large island in the resting pass (solvers/resting_blocks.hpp): the order's
// invariants, the same bits on 1, 2 and 3 threads, and piles that settle and keep the ledger
// closed as in contact order.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <tuple>

#include "etdem/core/stage_profile.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/solvers/resting_work.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

/// n points drawn uniformly in a 10 cm cube centred at the origin.
std::vector<Vec3> random_points(std::uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  std::vector<Vec3> x(static_cast<std::size_t>(n));
  for (Vec3& p : x) p = Vec3(u(rng), u(rng), u(rng));
  return x;
}

/// Contacts between the points closer than `reach` [m], and between a and a + 1 for every a that
/// is a multiple of `far_every` (pairs that may lie farther apart than a block).
std::vector<Contact> near_pairs(const std::vector<Vec3>& x, double reach, int far_every) {
  std::vector<Contact> cs;
  const int nb = static_cast<int>(x.size());
  for (int a = 0; a < nb; ++a)
    for (int b = a + 1; b < nb; ++b)
      if ((x[a] - x[b]).norm() < reach || (a % far_every == 0 && b == a + 1)) {
        Contact c;
        c.a = a;
        c.b = b;
        cs.push_back(c);
      }
  return cs;
}

// Random bodies in a 10 cm cube and contacts between near pairs (and some with a wall), plus a
// few pairs farther apart than a block: the order's invariants.
TEST(BlockOrder, ColoursShareNoBodyAndEveryContactIsPlacedOnce) {
  const double cell = 0.02;
  const int nb = 400;
  const std::vector<Vec3> x = random_points(3, nb);
  std::vector<Contact> cs = near_pairs(x, 0.018, 97);
  for (int a = 0; a < nb; a += 5) {  // and every fifth body with a wall
    Contact c;
    c.a = a % 10 == 0 ? a : -1;
    c.b = a % 10 == 0 ? -1 : a;
    cs.push_back(c);
  }
  BlockOrder o;
  o.build(cs, x.data(), nb, cell);
  const int n = static_cast<int>(cs.size());
  ASSERT_EQ(static_cast<int>(o.contact_order.size()), n);
  std::vector<int> seen(n, 0);
  for (int i : o.contact_order) ++seen[i];
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
  std::vector<int> body_seen(nb, 0);
  for (int s = 0; s < nb; ++s) {
    ++body_seen[o.body_order[s]];
    EXPECT_EQ(o.body_slot[o.body_order[s]], s);
  }
  EXPECT_TRUE(std::all_of(body_seen.begin(), body_seen.end(), [](int k) { return k == 1; }));
  auto block = [&](int body) {
    return std::array<long, 3>{static_cast<long>(std::floor(x[body].x() / cell)),
                               static_cast<long>(std::floor(x[body].y() / cell)),
                               static_cast<long>(std::floor(x[body].z() / cell))};
  };
  // Leftovers: exactly the pairs more than one block apart along some axis.
  long wide = 0;
  for (const Contact& c : cs) {
    if (c.a < 0 || c.b < 0) continue;
    const auto p = block(c.a), q = block(c.b);
    bool far = false;
    for (int d = 0; d < 3; ++d) far = far || std::abs(p[d] - q[d]) > 1;
    wide += far ? 1 : 0;
  }
  EXPECT_GT(wide, 0);
  EXPECT_EQ(o.leftovers(), wide);
  int blocks = 0;
  for (int colour = 0; colour < BlockOrder::kBlockColours; ++colour) {
    std::set<int> bodies_of_colour;
    for (int k = o.colour_start[colour]; k < o.colour_start[colour + 1]; ++k, ++blocks) {
      std::set<int> bodies_of_block;
      for (int s = o.block_start[k]; s < o.block_start[k + 1]; ++s) {
        const Contact& c = cs[o.contact_order[s]];
        if (s > o.block_start[k]) {
          EXPECT_LT(o.contact_order[s - 1], o.contact_order[s]);
        }
        for (int body : {c.a, c.b})
          if (body >= 0) bodies_of_block.insert(body);
        // The block is the component-wise minimum of its bodies' blocks, of this colour.
        const int first = c.a >= 0 ? c.a : c.b;
        auto at = block(first);
        if (c.a >= 0 && c.b >= 0)
          for (int d = 0; d < 3; ++d) at[d] = std::min(at[d], block(c.b)[d]);
        EXPECT_EQ((at[0] & 1) | ((at[1] & 1) << 1) | ((at[2] & 1) << 2), colour);
      }
      for (int body : bodies_of_block)
        EXPECT_TRUE(bodies_of_colour.insert(body).second)
            << "body " << body << " in two blocks of colour " << colour;
    }
  }
  EXPECT_GT(blocks, 50);
  EXPECT_EQ(o.block_start[o.colour_start[BlockOrder::kBlockColours]], o.leftover_start);
}

/// The blocked order (cells of 2 cm) of the near pairs of 300 random bodies (`seed`), every
/// 53rd pair a far one (a leftover).
BlockOrder order_of_random_pairs(std::uint64_t seed) {
  const int nb = 300;
  const std::vector<Vec3> x = random_points(seed, nb);
  BlockOrder o;
  o.build(near_pairs(x, 0.02, 53), x.data(), nb, 0.02);
  return o;
}

// A team member's rows together (BlockOrder::group_blocks): each colour's blocks reordered by
// their group, ascending and otherwise as they were, each block's rows with it, the leftovers and
// the colours' bounds untouched; the groups permuted with the blocks.
// A team's member slots only the bodies it holds (those of its contacts, and some more): the
// contacts' order is the one every body slotted gives, and the held bodies' slots keep that
// order's relative order (the shock pass breaks equal heights by slot).
TEST(BlockOrder, SomeBodiesSlottedKeepTheOrderOfAllSlotted) {
  const double cell = 0.02;
  const int nb = 400;
  const std::vector<Vec3> x = random_points(5, nb);
  const std::vector<Contact> all_contacts = near_pairs(x, 0.018, 97);
  // A member's contacts: those whose block's first coordinate is even; the bodies it holds:
  // theirs and every seventh body besides.
  std::vector<Contact> mine;
  for (const Contact& c : all_contacts)
    if (block_coordinate(std::min(x[c.a][0], x[c.b][0]), cell) % 2 == 0) mine.push_back(c);
  std::vector<char> held_mark(nb, 0);
  for (const Contact& c : mine) held_mark[c.a] = held_mark[c.b] = 1;
  for (int b = 0; b < nb; b += 7) held_mark[b] = 1;
  std::vector<int> held;
  for (int b = 0; b < nb; ++b)
    if (held_mark[b]) held.push_back(b);
  ASSERT_LT(held.size(), static_cast<std::size_t>(nb));
  BlockOrder every, some;
  every.build(mine, x.data(), nb, cell);
  some.build(mine, x.data(), nb, cell, {}, BlockOrder::Colouring::kBlocks, &held);
  EXPECT_EQ(some.contact_order, every.contact_order);
  EXPECT_EQ(some.block_start, every.block_start);
  EXPECT_EQ(some.colour_start, every.colour_start);
  std::vector<int> every_held;
  for (const int b : every.body_order)
    if (held_mark[b]) every_held.push_back(b);
  EXPECT_EQ(some.body_order, every_held);
  for (int b = 0; b < nb; ++b) {
    if (!held_mark[b]) {
      EXPECT_EQ(some.body_slot[b], -1);
      continue;
    }
    EXPECT_EQ(some.body_order[some.body_slot[b]], b);
  }
  // Some bodies slotted is for blocks only.
  BlockOrder graph;
  EXPECT_THROW(graph.build(mine, x.data(), nb, cell, {}, BlockOrder::Colouring::kGraph, &held),
               std::logic_error);
}

TEST(BlockOrder, BlocksGroupedKeepTheirRowsAndColours) {
  BlockOrder o = order_of_random_pairs(5);
  const BlockOrder before = o;
  const int blocks = o.colour_start[BlockOrder::kBlockColours];
  ASSERT_GT(blocks, 40);
  ASSERT_GT(o.leftovers(), 0);
  // Members by the block's cell along x, as a team's rank boxes would split them.
  std::vector<int> group(blocks);
  for (int k = 0; k < blocks; ++k) group[k] = o.block_cell(k)[0] >= 0 ? 0 : 1;
  const std::vector<int> given = group;
  o.group_blocks(group);
  EXPECT_EQ(o.colour_start, before.colour_start);
  EXPECT_EQ(o.leftover_start, before.leftover_start);
  EXPECT_EQ(o.body_order, before.body_order);
  ASSERT_EQ(o.block_start.size(), before.block_start.size());
  EXPECT_EQ(o.block_start.back(), before.block_start.back());
  EXPECT_TRUE(std::equal(o.contact_order.begin() + o.leftover_start, o.contact_order.end(),
                         before.contact_order.begin() + before.leftover_start));
  auto rows = [](const BlockOrder& b, int k) {
    return std::vector<int>(b.contact_order.begin() + b.block_start[k],
                            b.contact_order.begin() + b.block_start[k + 1]);
  };
  bool moved = false;
  for (int colour = 0; colour < BlockOrder::kBlockColours; ++colour) {
    // The expected order: the colour's blocks stably sorted by their group.
    std::vector<int> expect;
    for (int k = before.colour_start[colour]; k < before.colour_start[colour + 1]; ++k)
      expect.push_back(k);
    std::stable_sort(expect.begin(), expect.end(),
                     [&](int p, int q) { return given[p] < given[q]; });
    for (std::size_t q = 0; q < expect.size(); ++q) {
      const int now = before.colour_start[colour] + static_cast<int>(q);
      EXPECT_EQ(rows(o, now), rows(before, expect[q]));
      EXPECT_EQ(o.block_cell(now), before.block_cell(expect[q]));
      EXPECT_EQ(group[now], given[expect[q]]);
      moved = moved || expect[q] != now;
    }
  }
  EXPECT_TRUE(moved);  // the case is not one the grouping leaves as it was
}

// A sweep over some of the rows finds each block's run of them (SubsetBlocks, the pass's own
// helper): the runs are the rows of `which` in each block, ascending, the leftovers after them,
// and after the blocks are regrouped (a new layout) the runs follow the new blocks.
TEST(BlockOrder, ASubsetsRowsAreFoundBlockByBlockInEveryLayout) {
  BlockOrder o = order_of_random_pairs(7);
  const int blocks = o.colour_start[BlockOrder::kBlockColours];
  const int n = static_cast<int>(o.contact_order.size());
  ASSERT_GT(o.leftovers(), 0);
  std::mt19937 rng(11);
  SubsetBlocks sub;
  auto check = [&]() {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int> which;
      for (int i = 0; i < n; ++i)
        if (rng() % 4 == 0) which.push_back(i);
      sub.find(o, which);
      std::size_t seen = 0;
      for (int k = 0; k < blocks; ++k) {
        std::vector<int> expect;
        for (const int i : which)
          if (i >= o.block_start[k] && i < o.block_start[k + 1]) expect.push_back(i);
        std::vector<int> found;
        for (int p = sub.first[k]; p >= 0 && p < sub.end[k]; ++p) found.push_back(which[p]);
        ASSERT_EQ(found, expect) << "block " << k;
        seen += found.size();
      }
      ASSERT_EQ(static_cast<std::size_t>(sub.leftovers), seen);
      for (std::size_t p = seen; p < which.size(); ++p) ASSERT_GE(which[p], o.leftover_start);
    }
  };
  check();
  std::vector<int> group(blocks);
  for (int k = 0; k < blocks; ++k) group[k] = o.block_cell(k)[1] >= 0 ? 0 : 1;
  const std::vector<int> starts = o.block_start;
  o.group_blocks(group);
  ASSERT_NE(o.block_start, starts);  // a layout the table drawn before would get wrong
  check();
}

// Graph colours (Box2D v3's constraint graph, greedy in the blocks' spatial order): every contact
// placed once; no dynamic body twice in one colour; chunks of at most kChunk contacts of one
// colour, ascending within a colour; a body with more contacts than colours sends the rest to the
// leftovers (a hub of 30 contacts: at least 6); wall contacts (one dynamic body) are coloured.
TEST(BlockOrder, GraphColoursShareNoBodyAndEveryContactIsPlacedOnce) {
  const int nb = 400;
  const std::vector<Vec3> x = random_points(3, nb);
  std::vector<Contact> cs;
  auto add = [&](int a, int b) {
    Contact c;
    c.a = a;
    c.b = b;
    cs.push_back(c);
  };
  for (int a = 0; a < nb; ++a) {
    for (int b = a + 1; b < nb; ++b)
      if ((x[a] - x[b]).norm() < 0.018) add(a, b);
    if (a % 5 == 0) add(a % 10 == 0 ? a : -1, a % 10 == 0 ? -1 : a);
  }
  for (int b = 1; b <= 30; ++b) add(0, b);  // a hub: more contacts than colours
  BlockOrder o;
  o.build(cs, x.data(), nb, 0.02, {}, BlockOrder::Colouring::kGraph);
  const int n = static_cast<int>(cs.size());
  ASSERT_EQ(static_cast<int>(o.contact_order.size()), n);
  std::vector<int> seen(n, 0);
  for (int i : o.contact_order) ++seen[i];
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
  EXPECT_LE(o.colours(), BlockOrder::kGraphColours);
  EXPECT_GE(o.colours(), 10) << "a hub of 30 contacts needs every colour it can have";
  EXPECT_GE(o.leftovers(), 6);
  for (int s = o.leftover_start; s < n; ++s) {
    const Contact& c = cs[o.contact_order[s]];
    EXPECT_TRUE(c.a == 0 || c.b == 0) << "only the hub's contacts are left over";
  }
  for (int colour = 0; colour < o.colours(); ++colour) {
    std::set<int> bodies_of_colour;
    for (int k = o.colour_start[colour]; k < o.colour_start[colour + 1]; ++k) {
      EXPECT_LE(o.block_start[k + 1] - o.block_start[k], BlockOrder::kChunk);
      EXPECT_GT(o.block_start[k + 1], o.block_start[k]);
      for (int s = o.block_start[k]; s < o.block_start[k + 1]; ++s) {
        const Contact& c = cs[o.contact_order[s]];
        for (int body : {c.a, c.b}) {
          if (body >= 0) {
            EXPECT_TRUE(bodies_of_colour.insert(body).second)
                << "body " << body << " twice in colour " << colour;
          }
        }
      }
    }
  }
  EXPECT_EQ(o.block_start[o.colour_start[o.colours()]], o.leftover_start);
}

// The order is (colour, block k, j, i, island order) for contacts and (block k, j, i, index) for
// bodies, whichever sort builds it: a compact island takes the counting sort, an island spread
// over more blocks than a table allows the comparison sort. Both against the order sorted here.
TEST(BlockOrder, CountingAndComparisonSortsGiveTheDefinedOrder) {
  for (const bool spread : {false, true}) {
    std::mt19937_64 rng(spread ? 11 : 7);
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    const double cell = 0.02;
    const int nb = 300;
    std::vector<Vec3> x(nb);
    for (int b = 0; b < nb; ++b) {
      x[b] = Vec3(u(rng), u(rng), u(rng));
      // Two clusters a million blocks apart: no table of that box.
      if (spread && b >= nb / 2) x[b] += Vec3(2e4, 0, 0);
    }
    std::vector<Contact> cs;
    for (int a = 0; a < nb; ++a)
      for (int b = a + 1; b < nb; ++b)
        if ((x[a] - x[b]).norm() < 0.02) {
          Contact c;
          c.a = a;
          c.b = b;
          cs.push_back(c);
        }
    ASSERT_GT(cs.size(), 200u);
    BlockOrder o;
    o.build(cs, x.data(), nb, cell);
    auto block = [&](int body) {
      return std::array<long, 3>{static_cast<long>(std::floor(x[body].z() / cell)),
                                 static_cast<long>(std::floor(x[body].y() / cell)),
                                 static_cast<long>(std::floor(x[body].x() / cell))};
    };
    std::vector<std::tuple<long, long, long, int>> bodies;
    for (int b = 0; b < nb; ++b) bodies.push_back({block(b)[0], block(b)[1], block(b)[2], b});
    std::sort(bodies.begin(), bodies.end());
    for (int s = 0; s < nb; ++s) EXPECT_EQ(o.body_order[s], std::get<3>(bodies[s])) << s;
    std::vector<std::tuple<int, long, long, long, int>> contacts;
    for (int c = 0; c < static_cast<int>(cs.size()); ++c) {
      auto at = block(cs[c].a);
      const auto other = block(cs[c].b);
      bool near = true;
      for (int d = 0; d < 3; ++d) {
        near = near && std::abs(at[d] - other[d]) <= 1;
        at[d] = std::min(at[d], other[d]);
      }
      if (!near) continue;
      const int colour = static_cast<int>((at[2] & 1) | ((at[1] & 1) << 1) | ((at[0] & 1) << 2));
      contacts.push_back({colour, at[0], at[1], at[2], c});
    }
    std::sort(contacts.begin(), contacts.end());
    ASSERT_EQ(o.leftover_start, static_cast<int>(contacts.size()));
    for (std::size_t s = 0; s < contacts.size(); ++s)
      EXPECT_EQ(o.contact_order[s], std::get<4>(contacts[s])) << "slot " << s;
  }
}

/// A side x side x side lattice of 1 cm spheres, touching, falling onto a floor (static: -1),
/// with random velocities (`seed`); contacts between lattice neighbours and with the floor,
/// each with a warm start.
struct Lattice {
  static constexpr double d = 0.01;
  int nb = 0;
  std::vector<Vec3> x, v, w;
  std::vector<double> inv_mass;
  std::vector<Mat3> inv_inertia;
  std::vector<Contact> contacts;
  std::mt19937_64 rng;
  IslandBodies bodies() {
    return {nb, v.data(), w.data(), inv_mass.data(), inv_inertia.data(), x.data()};
  }
};

Lattice lattice(int side, std::uint64_t seed) {
  Lattice l;
  l.nb = side * side * side;
  const double d = Lattice::d, mass = 2650.0 * M_PI / 6.0 * d * d * d;
  l.rng.seed(seed);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  l.x.resize(l.nb);
  l.v.resize(l.nb);
  l.w.resize(l.nb);
  l.inv_mass.assign(l.nb, 1.0 / mass);
  l.inv_inertia.assign(l.nb, Mat3::Identity() / (0.1 * mass * d * d));
  auto id = [&](int i, int j, int k) { return (k * side + j) * side + i; };
  for (int k = 0; k < side; ++k)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) {
        const int b = id(i, j, k);
        l.x[b] = Vec3(i * d, j * d, 0.5 * d + k * d);
        l.v[b] = Vec3(u(l.rng), u(l.rng), -0.1 + u(l.rng));
        l.w[b] = Vec3(u(l.rng), u(l.rng), u(l.rng)) * 10.0;
      }
  auto add = [&](int a, int b, const Vec3& point, const Vec3& normal) {
    Contact c;
    c.a = a;
    c.b = b;
    c.point = point;
    c.normal = normal;
    c.gap = -1e-6 * (1.0 + u(l.rng) * 10.0);
    c.ra = point - l.x[a];
    if (b >= 0) c.rb = point - l.x[b];
    c.friction = 0.5;
    c.normal_impulse = 1e-6 * (0.5 + u(l.rng) * 10.0);  // a warm start
    l.contacts.push_back(c);
  };
  for (int k = 0; k < side; ++k)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) {
        const int a = id(i, j, k);
        const Vec3& xa = l.x[a];
        if (k == 0) add(a, -1, xa - Vec3(0, 0, 0.5 * d), Vec3::UnitZ());
        if (k + 1 < side) add(id(i, j, k + 1), a, xa + Vec3(0, 0, 0.5 * d), Vec3::UnitZ());
        if (j + 1 < side) add(id(i, j + 1, k), a, xa + Vec3(0, 0.5 * d, 0), Vec3::UnitY());
        if (i + 1 < side) add(id(i + 1, j, k), a, xa + Vec3(0.5 * d, 0, 0), Vec3::UnitX());
      }
  return l;
}

RestingSettings lattice_settings() {
  RestingSettings rs;
  rs.slip_velocity = 0.01;
  rs.block_contacts = 100;
  rs.block_size = 2.0 * Lattice::d;
  return rs;
}

// An island's contacts resolved where they lie, in a given order (what the island solve does
// for an island swept by blocks, without copying it), against the same contacts gathered into
// one array in that order: the same bits, velocities and impulses.
TEST(BlockedSweeps, ResolveInOrderIsTheGatheredResolve) {
  Lattice l = lattice(6, 5);
  const int nb = l.nb;
  std::vector<Vec3>& x = l.x;
  std::vector<Vec3>& v = l.v;
  std::vector<Vec3>& w = l.w;
  std::vector<Contact>& serial = l.contacts;
  std::mt19937_64& rng = l.rng;
  const int n = static_cast<int>(serial.size());
  std::vector<int> order(n);
  for (int k = 0; k < n; ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), rng);
  const RestingSettings rs = lattice_settings();
  RestingPass gathered_pass(rs), in_order_pass(rs);
  gathered_pass.set_step({1e-3, Vec3(0, 0, -9.81)});
  in_order_pass.set_step({1e-3, Vec3(0, 0, -9.81)});
  gathered_pass.prepare(1);
  in_order_pass.prepare(1);
  std::vector<Vec3> v2 = v, w2 = w;
  IslandBodies b1 = l.bodies();
  IslandBodies b2{nb, v2.data(), w2.data(), l.inv_mass.data(), l.inv_inertia.data(), x.data()};
  ASSERT_TRUE(in_order_pass.sweeps_by_blocks(order.size(), b2));
  std::vector<Contact> gathered(n);
  for (int k = 0; k < n; ++k) gathered[k] = serial[order[k]];
  const SolverStats s1 = gathered_pass.resolve(gathered, b1, 0);
  const SolverStats s2 = in_order_pass.resolve_in_order(serial, order, b2, 0);
  EXPECT_EQ(s1.blocked_islands, 1);
  EXPECT_GT(s1.iterations, n);
  EXPECT_EQ(s1.iterations, s2.iterations);
  EXPECT_EQ(s1.dissipated_restitution, s2.dissipated_restitution);
  EXPECT_EQ(s1.dissipated_friction, s2.dissipated_friction);
  for (int b = 0; b < nb; ++b) {
    EXPECT_EQ(v[b], v2[b]) << "body " << b;
    EXPECT_EQ(w[b], w2[b]) << "body " << b;
  }
  int loaded = 0;
  for (int k = 0; k < n; ++k) {
    const Contact& c = serial[order[k]];
    EXPECT_EQ(gathered[k].normal_impulse, c.normal_impulse) << "contact " << k;
    EXPECT_EQ(gathered[k].tangent_impulse, c.tangent_impulse) << "contact " << k;
    loaded += c.normal_impulse > 0.0 ? 1 : 0;
  }
  EXPECT_GT(loaded, n / 4);  // the pass held the lattice: impulses to compare
}

TEST(BlockedSweeps, AnIslandGivesTheSameBitsWhateverThePassSolvedBefore) {
  // A pass keeps its working state from island to island (the blocked islands' apart from the
  // others'): what a larger pile and a small island left in it must not reach the next pile.
  const RestingSettings rs = lattice_settings();
  auto solve = [&](RestingPass& pass, Lattice& l) {
    IslandBodies b = l.bodies();
    return pass.resolve(l.contacts, b, 0);
  };
  RestingPass fresh(rs), used(rs);
  for (RestingPass* p : {&fresh, &used}) {
    p->set_step({1e-3, Vec3(0, 0, -9.81)});
    p->prepare(1);
  }
  Lattice alone = lattice(6, 5), again = lattice(6, 5), larger = lattice(7, 9),
          small = lattice(2, 3);
  ASSERT_TRUE(used.sweeps_by_blocks(larger.contacts.size(), larger.bodies()));
  ASSERT_FALSE(used.sweeps_by_blocks(small.contacts.size(), small.bodies()));
  const SolverStats first = solve(fresh, alone);
  solve(used, larger);
  solve(used, small);
  const SolverStats later = solve(used, again);
  EXPECT_EQ(first.blocked_islands, 1);
  EXPECT_EQ(first.iterations, later.iterations);
  EXPECT_EQ(first.dissipated_restitution, later.dissipated_restitution);
  EXPECT_EQ(first.dissipated_friction, later.dissipated_friction);
  for (int b = 0; b < alone.nb; ++b) {
    EXPECT_EQ(alone.v[b], again.v[b]) << "body " << b;
    EXPECT_EQ(alone.w[b], again.w[b]) << "body " << b;
  }
  for (std::size_t k = 0; k < alone.contacts.size(); ++k) {
    EXPECT_EQ(alone.contacts[k].normal_impulse, again.contacts[k].normal_impulse) << k;
    EXPECT_EQ(alone.contacts[k].tangent_impulse, again.contacts[k].tangent_impulse) << k;
  }
}

struct PileRun {
  std::uint64_t hash = 0;
  long blocked = 0, leftovers = 0, approaching_left = 0;
  double residual = 0.0, initial = 0.0, top = 0.0, penetration = 0.0;
  double mean_speed = 0.0;     // [m/s] over the grains at the end
  long fast = 0;               // grains faster than 0.05 m/s at the end
  long fast_inside_steps = 0;  // of the last 50 steps, those after which a grain below the
                               // highest tenth of the grains moved faster than 0.05 m/s
  StageProfile stages;         // the world's (core/stage_profile.hpp)
  double solve_seconds = 0.0;  // the solve phase's, over the run
};

/// Grains faster than 0.05 m/s below the highest tenth of the grains.
long fast_inside(const World& w) {
  std::vector<double> z, fast_z;
  for (int i = 0; i < w.bodies.count(); ++i)
    if (w.bodies.is_dynamic(i)) {
      z.push_back(w.bodies.position[i].z());
      if (w.bodies.velocity[i].norm() > 0.05) fast_z.push_back(z.back());
    }
  const std::size_t tenth = std::max<std::size_t>(1, z.size() / 10);
  std::nth_element(z.begin(), z.begin() + static_cast<long>(tenth - 1), z.end(), std::greater<>());
  long n = 0;
  for (const double h : fast_z) n += h < z[tenth - 1] ? 1 : 0;
  return n;
}

// 1152 spheres of 1 cm poured into a 14.4 cm box: one island of a few thousand contacts.
PileRun pile(int threads, long block_contacts, int steps = 150, unsigned seed = 5,
             BlockOrder::Colouring colouring = BlockOrder::Colouring::kBlocks) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.resting_pass.block_contacts = block_contacts;
  t.world.settings.resting_pass.colouring = colouring;
  t.add_container(Vec3(0, 0, 0), Vec3(0.144, 0.144, 1));
  fill_spheres(t, 12, 12, 8, 0.005, 0.012, Vec3(0, 0, 0), 0.0, seed, 0.3);
  t.world.initialize();
  PileRun r;
  for (int k = 0; k < steps; ++k) {
    t.world.step();
    r.penetration = std::max(r.penetration, t.world.last_step().max_penetration);
    if (k >= steps - 50) r.fast_inside_steps += fast_inside(t.world) > 0 ? 1 : 0;
  }
  r.hash = t.state_hash();
  r.blocked = t.world.totals().resting.blocked_islands;
  r.leftovers = t.world.totals().resting.block_leftovers;
  r.approaching_left = t.world.last_step().resting.approaching_left;
  r.residual = t.world.ledger().residual();
  r.initial = t.world.ledger().initial;
  r.stages = t.world.stages();
  r.solve_seconds = t.world.profile()[StepProfile::Solve];
  // The top of the pile: the mean height of its highest tenth of grains (the single highest
  // grain is one chaotic grain perched or not, and moved by a millimetre between orders).
  std::vector<double> z;
  for (int i = 0; i < t.world.bodies.count(); ++i)
    if (t.world.bodies.is_dynamic(i)) {
      z.push_back(t.world.bodies.position[i].z());
      const double v = t.world.bodies.velocity[i].norm();
      r.mean_speed += v;
      r.fast += v > 0.05 ? 1 : 0;
    }
  r.mean_speed /= static_cast<double>(z.size());
  std::sort(z.begin(), z.end(), std::greater<>());
  const std::size_t tenth = std::max<std::size_t>(1, z.size() / 10);
  for (std::size_t k = 0; k < tenth; ++k) r.top += z[k] / static_cast<double>(tenth);
  omp_set_num_threads(saved);
  return r;
}

TEST(BlockedSweeps, SameBitsOnOneTwoAndThreeThreads) {
  const PileRun one = pile(1, 1000);
  EXPECT_GT(one.blocked, 50) << "the pile's island was swept by blocks";
  // Each stage of the pass timed once per island swept by blocks, inside the solve phase; no
  // team, and no stage of a split run.
  double resting = 0.0;
  for (int k = 0; k < StageProfile::kStages; ++k) {
    const char* name = StageProfile::kNames[k];
    const bool pass = k <= StageProfile::RestingStore;
    EXPECT_EQ(one.stages.calls[k], pass ? one.blocked : 0) << name;
    EXPECT_GE(one.stages.seconds[k], 0.0) << name;
    if (k <= StageProfile::RestingTeam) resting += one.stages.seconds[k];
  }
  EXPECT_GT(one.stages.seconds[StageProfile::RestingSweeps], 0.0);
  EXPECT_LE(resting, one.solve_seconds);
  EXPECT_EQ(one.hash, pile(2, 1000).hash) << "1 vs 2 threads";
  EXPECT_EQ(one.hash, pile(3, 1000).hash) << "1 vs 3 threads";
}

TEST(BlockedSweeps, GraphColoursSameBitsOnOneTwoAndThreeThreads) {
  const auto graph = BlockOrder::Colouring::kGraph;
  const PileRun one = pile(1, 1000, 150, 5, graph);
  EXPECT_GT(one.blocked, 50) << "the pile's island was swept in colours";
  EXPECT_EQ(one.hash, pile(2, 1000, 150, 5, graph).hash) << "1 vs 2 threads";
  EXPECT_EQ(one.hash, pile(3, 1000, 150, 5, graph).hash) << "1 vs 3 threads";
  EXPECT_NE(one.hash, pile(1, 1000, 150, 5).hash) << "another Gauss-Seidel order than blocks";
}

// Graph colours are another Gauss-Seidel order: the pile settles as with blocks (the top within
// a millimetre, a tenth of a grain), no deeper than 5 % of d, the ledger closed, at rest.
TEST(BlockedSweeps, GraphColouredPileSettlesAsWithBlocks) {
  const PileRun blocks = pile(2, 1000, 300);
  const PileRun graph = pile(2, 1000, 300, 5, BlockOrder::Colouring::kGraph);
  EXPECT_GT(graph.blocked, 100);
  EXPECT_NEAR(graph.top, blocks.top, 1e-3);
  EXPECT_LT(graph.penetration, 0.05 * 0.01);
  EXPECT_LT(std::abs(graph.residual), 1e-9 * graph.initial);
  EXPECT_LT(graph.mean_speed, 1e-3) << "at rest after 0.5 s";
}

TEST(BlockedSweeps, BelowTheThresholdTheContactOrderIsKept) {
  const PileRun off = pile(1, 0, 60);
  const PileRun high = pile(2, 1'000'000, 60);
  EXPECT_EQ(off.blocked, 0);
  EXPECT_EQ(high.blocked, 0);
  EXPECT_EQ(off.hash, high.hash);
  for (int k = 0; k < StageProfile::kStages; ++k)  // no island swept by blocks: none timed
    EXPECT_EQ(off.stages.calls[k] + high.stages.calls[k], 0) << StageProfile::kNames[k];
}

// The blocked order is another Gauss-Seidel order: the pile must settle as in contact order
// (the same top, the mean height of the highest tenth of the grains, within a millimetre, a
// tenth of a grain; no deeper contacts than 5 % of d), the
// ledger must close to round-off and no contact may be left approaching at the end. At rest
// after 0.5 s: the mean speed below 1 mm/s and at most 1 % of the grains faster than 5 cm/s.
// (Not the fastest grain: without rolling resistance a few spheres on the top roll on, and the
// fastest of them at one instant is 0.02-0.2 m/s in either order, step to step;
// docs/notes/resting-pass.md "Neighbour rounds only where a contact can turn a body".
// Inside the pile (below the highest tenth) a grain is kicked faster than 5 cm/s now and then:
// over steps 250-299 such a grain is seen after 0 to 48 of the 50 steps, depending on the fill
// seed, the order and round-off (one seed's count moved from 17 to 35 when the pass's masses
// were computed another way, exact to round-off). So the count is asserted on the mean of four
// seeds and both orders: 16.8 and 16.5 of the 50 steps before and after that change (24.9 and
// 21.8 for seeds 1-4); at most 30 is asserted. With the rounds after the shock pass sweeping
// only contacts that would close by more than 1e-5 of their lever in the step
// (RestingSettings::approach_tolerance), 14.3 (9.4 with the tolerance 0 on the same build, 25.5
// with 1e-4); with two rounds that follow their front, 13.0. Measured on one seed, a variant with
// the friction of the sweeps projected instead of set against the slip saw one in 41 and 45 of
// them; docs/notes/resting-pass.md "Projected friction on contacts".)
TEST(BlockedSweeps, PileSettlesAsInContactOrderAndTheLedgerCloses) {
  const PileRun contact_order = pile(2, 0, 300);
  const PileRun blocked = pile(2, 1000, 300);
  EXPECT_GT(blocked.blocked, 100);
  EXPECT_EQ(blocked.leftovers, 0) << "every contact within adjacent blocks";
  EXPECT_NEAR(blocked.top, contact_order.top, 1e-3);
  EXPECT_LT(blocked.penetration, 0.05 * 0.01);
  EXPECT_LT(blocked.penetration, 1.5 * contact_order.penetration + 1e-5);
  EXPECT_LT(std::abs(blocked.residual), 1e-9 * blocked.initial);
  EXPECT_LT(blocked.approaching_left, 1.5 * contact_order.approaching_left + 10);
  EXPECT_LT(blocked.mean_speed, 1e-3) << "at rest after 0.5 s";
  EXPECT_LE(blocked.fast, 12) << "grains faster than 5 cm/s after 0.5 s (of 1152)";
  std::printf("fast grains at 0.5 s: %ld blocked, %ld in contact order\n", blocked.fast,
              contact_order.fast);
  long fast_inside_steps = blocked.fast_inside_steps + contact_order.fast_inside_steps;
  std::printf("steps 250-299 with a fast grain inside, seed 5: %ld blocked, %ld in contact order\n",
              blocked.fast_inside_steps, contact_order.fast_inside_steps);
  for (const unsigned seed : {6u, 7u, 8u}) {
    const long b = pile(2, 1000, 300, seed).fast_inside_steps;
    const long c = pile(2, 0, 300, seed).fast_inside_steps;
    std::printf("seed %u: %ld blocked, %ld in contact order\n", seed, b, c);
    fast_inside_steps += b + c;
  }
  EXPECT_LE(static_cast<double>(fast_inside_steps) / 8.0, 30.0)
      << "a fast grain inside the pile, mean over four seeds and both orders";
}

}  // namespace
}  // namespace etdem::test
