// Pairs the narrow phase did not report, closed by the solve's velocities (World::missed_substeps,
// WorldSettings::substep_missed; docs/design.md, "Pairs the narrow phase missed"). The narrow
// phase tests a pair with the distance the velocities of the start of the step can close; a
// grain an impact turns round within the step is then run into by a neighbour that moved with it
// (a falling column) or was at rest beside it (a wall). Without gravity, so the depths are those
// of straight paths: d = c dt - g for a pair at gap g closing at c after the solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

constexpr double kR = 0.005;    // [m] sphere radius
constexpr double kDt = 1e-3;    // [s]
constexpr double kGap = 8e-4;   // [m] beyond the contact skin (0.1 R = 0.5 mm): not reported
constexpr double kHeld = 1e-9;  // [m] what the solve may leave of an overlap it was shown

struct Outcome {
  double overlap = 0.0;   // [m] the pair's overlap after the step (> 0: inside each other)
  double residual = 0.0;  // [J] the ledger's unexplained energy
  double scale = 0.0;     // [J] kinetic energy at the start
  long redone = 0, substeps = 0;
};

/// Two spheres falling together at 1 m/s, kGap apart along z; the lower one touches the floor.
/// It bounces (e = 0.5) at +0.5 m/s and the upper one closes on it at 1.5 m/s: 1.5 mm in the
/// step against a gap of 0.8 mm.
Outcome column(bool missed) {
  TestWorld t(0.5, 0.0);
  t.world.settings.gravity = Vec3::Zero();
  t.world.settings.dt = kDt;
  t.world.settings.projection = 0.0;  // the depth the motion leaves, uncorrected
  t.world.settings.substep_missed = missed;
  t.add_floor();
  const Vec3 v(0.0, 0.0, -1.0);
  const int a = t.add_sphere(kR, Vec3(0, 0, kR), v);
  const int b = t.add_sphere(kR, Vec3(0, 0, 3.0 * kR + kGap), v);
  t.world.initialize();
  Outcome o;
  o.scale = t.kinetic();
  t.world.step();
  const World& w = t.world;
  o.overlap = 2.0 * kR - (w.bodies.position[b] - w.bodies.position[a]).norm();
  o.residual = w.ledger().residual();
  o.redone = w.totals().redone_steps;
  o.substeps = w.totals().substeps;
  return o;
}

/// A sphere at 2 m/s strikes one at rest (e = 1: they exchange velocities) which stands kGap
/// from a wall: 2 mm in the step against 0.8 mm.
Outcome wall(bool missed) {
  TestWorld t(1.0, 0.0);
  t.world.settings.gravity = Vec3::Zero();
  t.world.settings.dt = kDt;
  t.world.settings.projection = 0.0;
  t.world.settings.substep_missed = missed;
  const double x_wall = 3.0 * kR + kGap;
  t.add_plane(Vec3(x_wall, 0, 0), -Vec3::UnitX());
  t.add_sphere(kR, Vec3(0, 0, 0), Vec3(2.0, 0, 0));
  const int b = t.add_sphere(kR, Vec3(2.0 * kR, 0, 0));
  t.world.initialize();
  Outcome o;
  o.scale = t.kinetic();
  t.world.step();
  const World& w = t.world;
  o.overlap = w.bodies.position[b].x() + kR - x_wall;
  o.residual = w.ledger().residual();
  o.redone = w.totals().redone_steps;
  o.substeps = w.totals().substeps;
  return o;
}

void report(const char* name, bool missed, const Outcome& o) {
  std::printf("%s, substep_missed %d: overlap %.4e m, redone %ld, sub-steps %ld\n", name,
              missed ? 1 : 0, o.overlap, o.redone, o.substeps);
}

TEST(MissedPairs, AColumnThatLandsIsNotEnteredByItsUpperGrain) {
  const Outcome plain = column(false);
  report("column", false, plain);
  // Closing at 1.5 m/s for the whole step against 0.8 mm: 0.7 mm deep (7 % of the diameter).
  EXPECT_NEAR(plain.overlap, 1.5 * kDt - kGap, 1e-9);
  const Outcome split = column(true);
  report("column", true, split);
  // Taken again as ceil(1.5 dt / g) = 2 sub-steps: the second one's narrow phase reports the
  // pair at 0.05 mm and its solve stops it.
  EXPECT_EQ(split.redone, 1);
  EXPECT_EQ(split.substeps, 2);
  EXPECT_LT(split.overlap, kHeld);
  EXPECT_LT(std::abs(split.residual), 1e-12 * split.scale);
}

TEST(MissedPairs, AGrainStruckTowardsAWallStopsAtIt) {
  const Outcome plain = wall(false);
  report("wall", false, plain);
  EXPECT_NEAR(plain.overlap, 2.0 * kDt - kGap, 1e-9);  // 1.2 mm into the wall
  const Outcome split = wall(true);
  report("wall", true, split);
  EXPECT_EQ(split.redone, 1);
  EXPECT_EQ(split.substeps, 3);  // ceil(2 dt / g)
  EXPECT_LT(split.overlap, kHeld);
  EXPECT_LT(std::abs(split.residual), 1e-12 * split.scale);
}

TEST(MissedPairs, AStruckGrainFindsANeighbourBeyondItsBox) {
  // Three spheres on the x axis: the first at 2 m/s strikes the second (e = 1), which stands
  // 1.5 mm from the third. Their boxes, (1 + skin) R each at rest, were 0.5 mm apart, so the
  // broad phase did not give the pair; after the solve the second closes 2 mm in the step.
  for (const bool missed : {false, true}) {
    TestWorld t(1.0, 0.0);
    t.world.settings.gravity = Vec3::Zero();
    t.world.settings.dt = kDt;
    t.world.settings.projection = 0.0;
    t.world.settings.substep_missed = missed;
    const double gap = 1.5e-3;
    t.add_sphere(kR, Vec3(0, 0, 0), Vec3(2.0, 0, 0));
    const int b = t.add_sphere(kR, Vec3(2.0 * kR, 0, 0));
    const int c = t.add_sphere(kR, Vec3(4.0 * kR + gap, 0, 0));
    t.world.initialize();
    t.world.step();
    const World& w = t.world;
    const double overlap = 2.0 * kR - (w.bodies.position[c] - w.bodies.position[b]).norm();
    std::printf("beyond the box, substep_missed %d: overlap %.4e m, sub-steps %ld\n",
                missed ? 1 : 0, overlap, w.totals().substeps);
    if (missed) {
      EXPECT_EQ(w.totals().substeps, 2);  // ceil(2 dt / 1.5 mm)
      EXPECT_LT(overlap, kHeld);
    } else {
      EXPECT_NEAR(overlap, 2.0 * kDt - gap, 1e-9);
    }
  }
}

TEST(MissedPairs, ManyStruckGrainsFindTheirNeighboursAlike) {
  // The row of the test above, repeated side by side, beside 100 grains at rest far away: the
  // struck grains are the bodies whose speed grew in the solve. While they are at most an
  // eighth of the boxes each box is looked at against them (World::missed_substeps,
  // kFewGrown), otherwise through a broad phase of all the boxes; both must find every row's
  // pair and split the step alike. 1 and 8 rows take the first way, 40 the second.
  for (const int rows : {1, 8, 40}) {
    TestWorld t(1.0, 0.0);
    t.world.settings.gravity = Vec3::Zero();
    t.world.settings.dt = kDt;
    t.world.settings.projection = 0.0;
    const double gap = 1.5e-3, pitch = 3.0 * kR;  // rows 5 mm apart: no row reaches another
    std::vector<int> struck, third;
    for (int r = 0; r < rows; ++r) {
      // Every other row shifted along x, so the grown boxes' x ranges differ.
      const double x = (r % 2) * 7.0 * kR, y = r * pitch;
      t.add_sphere(kR, Vec3(x, y, 0), Vec3(2.0, 0, 0));
      struck.push_back(t.add_sphere(kR, Vec3(x + 2.0 * kR, y, 0)));
      third.push_back(t.add_sphere(kR, Vec3(x + 4.0 * kR + gap, y, 0)));
    }
    for (int k = 0; k < 100; ++k)
      t.add_sphere(kR, Vec3((k % 10) * pitch - 0.05, (k / 10) * pitch, 1.0));
    t.world.initialize();
    t.world.step();
    const World& w = t.world;
    EXPECT_EQ(w.totals().substeps, 2) << rows << " rows";  // ceil(2 dt / 1.5 mm)
    double deepest = -1.0;
    for (int r = 0; r < rows; ++r)
      deepest = std::max(deepest, 2.0 * kR - (w.bodies.position[third[r]] -
                                              w.bodies.position[struck[r]]).norm());
    std::printf("%d rows struck at once: sub-steps %ld, deepest overlap %.4e m\n", rows,
                w.totals().substeps, deepest);
    EXPECT_LT(deepest, kHeld) << rows << " rows";
  }
}

TEST(MissedPairs, PairsLandingTogetherSplitNothing) {
  // Two spheres side by side, apart by less than their fall in a step, land on the floor in the
  // same step: the solve turns both round alike, so their relative motion stays zero and
  // nothing brings them nearer. The check tests the pair at its velocities after the solve,
  // not the distance fallen, and takes no step again.
  TestWorld t(0.5, 0.0);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.dt = kDt;
  t.world.settings.substep_missed = true;
  t.add_floor();
  const Vec3 v(0.0, 0.0, -2.0);  // 2 mm a step against their 0.8 mm gap
  t.add_sphere(kR, Vec3(0, 0, kR + 1e-3), v);
  t.add_sphere(kR, Vec3(2.0 * kR + kGap, 0, kR + 1e-3), v);
  t.world.initialize();
  const double before = t.world.bodies.velocity[1].z();
  for (int k = 0; k < 20; ++k) t.world.step();
  EXPECT_GT(t.world.bodies.velocity[1].z(), before + 1.0);  // they landed and bounced
  EXPECT_EQ(t.world.totals().redone_steps, 0);
  EXPECT_EQ(t.world.totals().split_steps, 0);
}

}  // namespace
}  // namespace etdem::test
