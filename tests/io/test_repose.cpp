// Angle of repose (ETM 2014 §7.4 grid method) on synthetic piles with known answers: a plane
// at 30 degrees, a flat layer, rows of different slopes, the long axis along y, and grains
// outside the container or rows too sparse to fit; the motion of the grains over the floor.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "etdem/analysis/repose.hpp"
#include "etdem/io/shape_nodes.hpp"

namespace etdem {
namespace {

constexpr double kDeg = M_PI / 180.0;
const Vec3 kMin(0.0, 0.0, 0.0), kMax(0.3, 0.1, 0.3);

struct Pile {
  std::vector<Vec3> positions;
  std::vector<double> tops;
  void add(double x, double y, double top, double r) {
    positions.emplace_back(x, y, top - r);
    tops.push_back(r);
  }
};

/// `per_cell` random grains in every cell whose highest top lies on z = surface(x, y).
template <class F>
Pile random_pile(F surface, int per_cell, unsigned seed, const Vec3& lo = kMin,
                 const Vec3& hi = kMax) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Pile p;
  const int n = 16 * 8 * per_cell;
  for (int k = 0; k < n; ++k) {
    const double x = lo.x() + u(rng) * (hi.x() - lo.x());
    const double y = lo.y() + u(rng) * (hi.y() - lo.y());
    p.add(x, y, surface(x, y), 0.002 + 0.003 * u(rng));
  }
  return p;
}

TEST(Repose, PlaneAtThirtyDegrees) {
  const double slope = std::tan(30.0 * kDeg);
  const Pile p = random_pile([&](double x, double) { return 0.01 + slope * x; }, 20, 1);
  const ReposeResult r = repose_angle(p.positions, p.tops, kMin, kMax);
  EXPECT_EQ(r.long_axis, 0);
  ASSERT_EQ(r.angles.size(), 8u);
  EXPECT_EQ(r.rows_used, 8);
  for (double a : r.angles) EXPECT_NEAR(a, 30.0, 0.5);
  EXPECT_NEAR(r.mean, 30.0, 0.5);
  EXPECT_LT(r.spread, 0.5);
}

TEST(Repose, OneGrainPerCellCentreIsExact) {
  const double slope = -std::tan(30.0 * kDeg);  // descending towards +x, as after a dam break
  Pile p;
  for (int row = 0; row < 8; ++row)
    for (int c = 0; c < 16; ++c) {
      const double x = (c + 0.5) * 0.3 / 16, y = (row + 0.5) * 0.1 / 8;
      p.add(x, y, 0.2 + slope * x, 0.004);
    }
  const ReposeResult r = repose_angle(p.positions, p.tops, kMin, kMax);
  for (int row = 0; row < 8; ++row) {
    EXPECT_NEAR(r.angles[row], 30.0, 1e-9);
    EXPECT_NEAR(r.slopes[row], slope, 1e-12);
    EXPECT_EQ(r.points[row], 16);
  }
  EXPECT_NEAR(r.spread, 0.0, 1e-9);
}

TEST(Repose, FlatLayerIsZero) {
  const Pile p = random_pile([](double, double) { return 0.05; }, 4, 2);
  const ReposeResult r = repose_angle(p.positions, p.tops, kMin, kMax);
  EXPECT_EQ(r.rows_used, 8);
  EXPECT_NEAR(r.mean, 0.0, 1e-9);
  EXPECT_NEAR(r.spread, 0.0, 1e-9);
}

TEST(Repose, RowsWithDifferentSlopes) {
  // Row k (y in [k, k+1) * 0.1/8) slopes at 20 + 2k degrees: mean 27, spread (34-27 + 27-20)/2.
  const Pile p = random_pile(
      [](double x, double y) {
        const int row = std::min(7, static_cast<int>(y / (0.1 / 8)));
        return 0.01 + std::tan((20.0 + 2.0 * row) * kDeg) * x;
      },
      20, 3);
  const ReposeResult r = repose_angle(p.positions, p.tops, kMin, kMax);
  for (int row = 0; row < 8; ++row) EXPECT_NEAR(r.angles[row], 20.0 + 2.0 * row, 0.5) << row;
  EXPECT_NEAR(r.mean, 27.0, 0.5);
  EXPECT_NEAR(r.spread, 7.0, 0.5);
  EXPECT_NEAR(r.min, 20.0, 0.5);
  EXPECT_NEAR(r.max, 34.0, 0.5);
}

TEST(Repose, LongAxisAlongY) {
  const Vec3 lo(0.0, 0.0, 0.0), hi(0.1, 0.3, 0.3);
  const double slope = std::tan(25.0 * kDeg);
  const Pile p = random_pile([&](double, double y) { return 0.01 + slope * y; }, 20, 4, lo, hi);
  const ReposeResult r = repose_angle(p.positions, p.tops, lo, hi);
  EXPECT_EQ(r.long_axis, 1);
  EXPECT_NEAR(r.mean, 25.0, 0.5);
}

TEST(Repose, GrainsOutsideTheContainerAndSparseRowsAreLeftOut) {
  Pile p;
  // Row 0: a 10 degree line; row 1: only two cells (no angle); the rest empty.
  for (int c = 0; c < 16; ++c) {
    const double x = (c + 0.5) * 0.3 / 16;
    p.add(x, 0.005, 0.05 + std::tan(10.0 * kDeg) * x, 0.003);
  }
  p.add(0.01, 0.02, 0.05, 0.003);
  p.add(0.2, 0.02, 0.09, 0.003);
  // Grains that ran out of the box: ignored however high they are.
  p.add(0.35, 0.005, 1.0, 0.003);
  p.add(0.1, -0.05, 1.0, 0.003);
  const ReposeResult r = repose_angle(p.positions, p.tops, kMin, kMax);
  EXPECT_NEAR(r.angles[0], 10.0, 1e-9);
  EXPECT_TRUE(std::isnan(r.angles[1]));
  EXPECT_EQ(r.points[1], 2);
  EXPECT_EQ(r.rows_used, 1);
  EXPECT_NEAR(r.mean, 10.0, 1e-9);
  EXPECT_NEAR(r.spread, 0.0, 1e-12);
}

TEST(Repose, SurfaceNodesCoverTheCellsAGrainSpans) {
  // Bars two cells long lying along a 30 degree slope, their centres over every other cell: one
  // node per grain (its top over its centre) leaves half the cells empty; the bars' corners
  // (io/shape_nodes) reach every cell, and all top corners lie on a plane parallel to the slope.
  const double w = 0.3 / 16, theta = 30.0 * kDeg, slope = -std::tan(theta);
  ShapeNodes bar;
  bar.type = "box";
  const Vec3 h(w / std::cos(theta) * 0.999, 0.4 * 0.1 / 8, 0.002);
  for (int k = 0; k < 8; ++k)
    bar.nodes.emplace_back(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(), k & 4 ? h.z() : -h.z());
  const Quat q(Eigen::AngleAxisd(theta, Vec3::UnitY()));  // +x turned down: descends along +x
  std::vector<Vec3> nodes, centres;
  std::vector<double> tops;
  for (int row = 0; row < 8; ++row)
    for (int c = 0; c < 16; c += 2) {
      const double x = (c + 1.0) * w, y = (row + 0.5) * 0.1 / 8;
      const Vec3 centre(x, y, 0.2 + slope * x);
      append_surface_points(bar, centre, q, nodes);
      centres.push_back(centre);
      tops.push_back(h.z() / std::cos(theta) + h.x() * std::sin(theta));
    }
  const ReposeResult by_nodes = repose_angle_of_nodes(nodes, kMin, kMax);
  const ReposeResult by_centres = repose_angle(centres, tops, kMin, kMax);
  for (int row = 0; row < 8; ++row) {
    EXPECT_EQ(by_nodes.points[row], 16);
    EXPECT_EQ(by_centres.points[row], 8);
    // The highest node of a cell is a top corner, at most a cell from the cell's centre, so the
    // fit is exact up to that shift (the same for every cell): 30 degrees.
    EXPECT_NEAR(by_nodes.angles[row], 30.0, 0.5) << row;
  }
}

TEST(Repose, NoGrainsGivesNoAngle) {
  const ReposeResult r = repose_angle({}, {}, kMin, kMax);
  EXPECT_EQ(r.rows_used, 0);
  EXPECT_TRUE(std::isnan(r.mean));
}

TEST(Repose, FloorMotionCountsTheGrainsOverTheFloorOnly) {
  // Three grains over the floor (one on its edge) at 0, 0.3 and 0.5 m/s; two beyond it in x and
  // in y, faster, are left out; the height does not matter.
  const std::vector<Vec3> positions = {
      {0.1, 0.05, 0.01}, {0.3, 0.1, 0.5}, {0.2, 0.02, -1.0}, {0.31, 0.05, 0.0}, {0.1, -0.01, 0.0}};
  const std::vector<Vec3> velocities = {
      {0.0, 0.0, 0.0}, {0.0, 0.3, 0.0}, {0.3, 0.0, -0.4}, {2.0, 0.0, 0.0}, {0.0, 0.0, 3.0}};
  const FloorMotion m = floor_motion(positions, velocities, kMin, kMax);
  EXPECT_EQ(m.grains, 3);
  EXPECT_DOUBLE_EQ(m.max_speed, 0.5);
  EXPECT_DOUBLE_EQ(m.mean_speed, 0.8 / 3.0);
  const FloorMotion none = floor_motion({}, {}, kMin, kMax);
  EXPECT_EQ(none.grains, 0);
  EXPECT_EQ(none.mean_speed, 0.0);
}

}  // namespace
}  // namespace etdem
