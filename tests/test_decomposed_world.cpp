// A world split over ranks (distributed/decomposed_world, docs/distributed.md): on 1-4 ranks
// (threads standing in for ranks) a pour of spheres into a box of planes, and one of spheres and
// boxes (whose spin splits steps into sub-steps, and some steps taken again), step to the
// serial run's bits: every body's state and every ledger column, with the
// step's statistics; grains migrate and islands span ranks on the way; what a split run does not
// carry yet is refused with its name.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/local_transport.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

using distributed::DecomposedStats;
using distributed::DecomposedWorld;
using distributed::Transport;

void pour(TestWorld& t, bool boxes) {
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.threads = 1;
  t.add_container(Vec3(0, 0, 0), Vec3(0.06, 0.06, 1));
  // With the boxes, a fixed block on the floor, of a smaller id than the grains: its pairs
  // (block, grain) are detected and carried by the grain's owner.
  if (boxes)
    t.add_box(Vec3(0.012, 0.012, 0.003), Vec3(0.03, 0.03, 0.003), Quat::Identity(), Vec3::Zero(),
              Vec3::Zero(), true);
  fill_spheres(t, 5, 5, 4, 0.005, 0.012, Vec3(0, 0, boxes ? 0.008 : 0.0), 0.0, 7u, 0.3);
  if (boxes) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        t.add_box(Vec3(0.006, 0.005, 0.004), Vec3(0.012 + 0.018 * i, 0.012 + 0.018 * j, 0.07),
                  Quat(Eigen::AngleAxisd(0.3 * (i + 3 * j), Vec3(0.3, 0.5, 1).normalized())));
  }
  t.world.initialize();
}

bool same_bits(const EnergyLedger& x, const EnergyLedger& y) {
  return std::memcmp(&x, &y, sizeof(EnergyLedger)) == 0;
}

struct SplitRun {
  std::uint64_t hash = 0;
  EnergyLedger ledger;
  RunTotals totals;
  long spanning = 0, migrated = 0, ghosts = 0;
};

SplitRun run_split(int ranks, bool boxes, long steps) {
  SplitRun out;
  std::mutex m;
  distributed::run_local_ranks(ranks, [&](Transport& t) {
    TestWorld full(0.5, 0.5);
    pour(full, boxes);
    DecomposedWorld split(full.world, t);
    for (long s = 0; s < steps; ++s) split.step();
    split.gather(full.world);
    const DecomposedStats& st = split.stats();
    const long spanning = t.sum(st.islands_spanning), migrated = t.sum(st.migrated),
               ghosts = t.sum(st.ghosts);
    if (t.rank() != 0) return;
    std::lock_guard lock(m);
    out.hash = full.state_hash();
    out.ledger = full.world.ledger();
    out.totals = full.world.totals();
    out.spanning = spanning, out.migrated = migrated, out.ghosts = ghosts;
  });
  return out;
}

void expect_serial(bool boxes, long steps) {
  TestWorld serial(0.5, 0.5);
  pour(serial, boxes);
  serial.steps(steps);
  ASSERT_GT(serial.world.totals().contacts, 1000);
  if (boxes) {
    EXPECT_GT(serial.world.totals().split_steps, 0) << "the boxes' spin split steps";
  }
  for (int ranks = 1; ranks <= 4; ++ranks) {
    SCOPED_TRACE(testing::Message() << ranks << " ranks");
    const SplitRun r = run_split(ranks, boxes, steps);
    EXPECT_EQ(r.hash, serial.state_hash());
    EXPECT_TRUE(same_bits(r.ledger, serial.world.ledger()))
        << "kinetic " << r.ledger.kinetic() << " vs " << serial.world.ledger().kinetic()
        << ", correction " << r.ledger.correction << " vs " << serial.world.ledger().correction;
    const RunTotals& a = r.totals;
    const RunTotals& b = serial.world.totals();
    EXPECT_EQ(a.contacts, b.contacts);
    EXPECT_EQ(a.candidates, b.candidates);
    EXPECT_EQ(a.islands, b.islands);
    EXPECT_EQ(a.largest_island, b.largest_island);
    EXPECT_EQ(a.collisions, b.collisions);
    EXPECT_EQ(a.resting.iterations, b.resting.iterations);
    EXPECT_EQ(a.solver.iterations, b.solver.iterations);
    EXPECT_EQ(a.max_penetration, b.max_penetration);
    EXPECT_EQ(a.split_steps, b.split_steps);
    EXPECT_EQ(a.substeps, b.substeps);
    EXPECT_EQ(a.redone_steps, b.redone_steps);
    if (ranks > 1) {
      EXPECT_GT(r.spanning, 0) << "islands spanned ranks";
      EXPECT_GT(r.ghosts, 0);
    }
  }
}

TEST(DecomposedWorld, ASpherePourOnOneToFourRanksIsTheSerialRunBitForBit) {
  expect_serial(false, 400);
}

TEST(DecomposedWorld, SpheresAndBoxesOnOneToFourRanksAreTheSerialRunBitForBit) {
  expect_serial(true, 300);
}

TEST(DecomposedWorld, WhatASplitRunDoesNotCarryIsRefusedByName) {
  auto refused = [](const std::function<void(TestWorld&)>& change, const std::string& name) {
    TestWorld t(0.5, 0.5);
    pour(t, false);
    change(t);
    std::string message;
    try {
      distributed::run_local_ranks(2, [&](Transport& tr) { DecomposedWorld split(t.world, tr); });
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(name), std::string::npos) << message;
  };
  refused([](TestWorld& t) { t.world.settings.sleep_velocity = 1e-3; }, "sleeping islands");
  refused([](TestWorld& t) { t.world.settings.resting = "wall-correction"; }, "wall correction");
  refused([](TestWorld& t) { t.world.events.push_back({0.1, 7}); }, "an event on a grain");
}

}  // namespace
}  // namespace etdem::test
