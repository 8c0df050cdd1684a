// The deposit analyses on synthetic deposits with known answers: a cone of known height and
// radius (mound height, spread, reach, profile), a rectangle of known area (deposit area,
// runout, width), a fan of known opening (fan angle), and weights that change the spread.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "etdem/analysis/footprint.hpp"
#include "etdem/analysis/mound.hpp"
#include "etdem/analysis/runout.hpp"

namespace etdem {
namespace {

constexpr double kDeg = M_PI / 180.0;

/// Surface nodes of a cone z = base + H (1 - r / R) on a polar grid of step h, and grain
/// centres on a square lattice of step h inside the disc r < R (uniform by area).
struct Cone {
  std::vector<Vec3> nodes, centres;
  std::vector<double> weights;
};

Cone make_cone(double height, double radius, double base, double h) {
  Cone c;
  c.nodes.emplace_back(0.0, 0.0, base + height);
  for (double r = h; r <= radius + 1e-12; r += h) {
    const int n = static_cast<int>(std::ceil(2.0 * M_PI * r / h));
    for (int k = 0; k < n; ++k) {
      const double a = 2.0 * M_PI * k / n;
      c.nodes.emplace_back(r * std::cos(a), r * std::sin(a), base + height * (1.0 - r / radius));
    }
  }
  for (double x = -radius + 0.5 * h; x < radius; x += h)
    for (double y = -radius + 0.5 * h; y < radius; y += h)
      if (std::hypot(x, y) < radius) {
        c.centres.emplace_back(x, y, base + 0.1 * height);
        c.weights.push_back(1.0);
      }
  return c;
}

TEST(Mound, ConeOfKnownHeightAndRadius) {
  const double H = 0.2, R = 1.0, base = 0.05, h = 0.005;
  const Cone c = make_cone(H, R, base, h);
  const MoundResult m = analyze_mound(c.nodes, c.centres, c.weights, base, {0.95, 0.1});
  EXPECT_NEAR(m.axis_x, 0.0, 1e-12);
  EXPECT_NEAR(m.axis_y, 0.0, 1e-12);
  EXPECT_NEAR(m.height, H, 1e-12);  // the apex node
  EXPECT_NEAR(m.reach, R, 1e-9);
  // Uniform by area: the radius holding 95 % of the grains is sqrt(0.95) R, to the lattice step.
  EXPECT_NEAR(m.spread, std::sqrt(0.95) * R, 0.2 * h);
  EXPECT_NEAR(m.spread_count, m.spread, 1e-12);
  // Profile: the highest node of each annulus lies at its inner edge, H (1 - r_inner / R), to
  // the node step; the weight shares of annuli grow with r and add up to 1.
  ASSERT_EQ(m.profile.size(), 11u);  // the 11th holds the nodes at exactly r = R
  double share = 0.0;
  for (std::size_t b = 0; b < 10; ++b) {
    EXPECT_NEAR(m.profile[b].top, H * (1.0 - m.profile[b].r_inner / R), H * h / R + 1e-12) << b;
    EXPECT_GT(m.profile[b].nodes, 0);
    // Annulus area share (r_o^2 - r_i^2) / R^2, to the lattice.
    const double expected =
        (std::pow(m.profile[b].r_outer, 2) - std::pow(m.profile[b].r_inner, 2)) / (R * R);
    EXPECT_NEAR(m.profile[b].share, expected, 0.01) << b;
    share += m.profile[b].share;
  }
  EXPECT_NEAR(share + m.profile[10].share, 1.0, 1e-12);
}

TEST(Mound, SpreadFollowsTheWeights) {
  // Ten heavy grains on a ring of radius 0.5, ten light ones on a ring of radius 1: 95 % of
  // the weight lies within 0.5, 95 % of the grains within 1.
  std::vector<Vec3> centres;
  std::vector<double> weights;
  for (int k = 0; k < 10; ++k) {
    const double a = 2.0 * M_PI * k / 10;
    centres.emplace_back(3.0 + 0.5 * std::cos(a), -2.0 + 0.5 * std::sin(a), 0.0);
    weights.push_back(1.0);
    centres.emplace_back(3.0 + std::cos(a + 0.1), -2.0 + std::sin(a + 0.1), 0.0);
    weights.push_back(0.01);
  }
  const MoundResult m = analyze_mound(centres, centres, weights, 0.0, {0.95, 0.1});
  EXPECT_NEAR(m.axis_x, 3.0, 1e-12);
  EXPECT_NEAR(m.axis_y, -2.0, 1e-12);
  EXPECT_NEAR(m.spread, 0.5, 1e-12);
  EXPECT_NEAR(m.spread_count, 1.0, 1e-12);
}

TEST(Mound, RefusesBadInput) {
  const std::vector<Vec3> p = {Vec3(0, 0, 0)};
  const std::vector<double> w = {1.0}, zero = {0.0};
  EXPECT_THROW(analyze_mound(p, {}, {}, 0.0), std::invalid_argument);
  EXPECT_THROW(analyze_mound(p, p, zero, 0.0), std::invalid_argument);
  EXPECT_THROW(analyze_mound(p, p, w, 0.0, {0.0, 0.1}), std::invalid_argument);
  EXPECT_THROW(analyze_mound(p, p, w, 0.0, {1.5, 0.1}), std::invalid_argument);
  EXPECT_THROW(analyze_mound(p, p, w, 0.0, {0.95, 0.0}), std::invalid_argument);
  const std::vector<Vec3> far = {Vec3(0, 0, 0), Vec3(1e3, 0, 0)};
  EXPECT_THROW(analyze_mound(far, p, w, 0.0, {0.95, 1e-4}), std::invalid_argument);  // 1e7 bins
}

TEST(Footprint, HullOfPointsInASquareIsItsCorners) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec2> p = {Vec2(0, 0),   Vec2(1, 0),  Vec2(1, 1), Vec2(0, 1),
                         Vec2(0.5, 0), Vec2(1, 0.5)};  // two on edges (collinear: dropped)
  for (int k = 0; k < 200; ++k) p.emplace_back(u(rng), u(rng));
  const std::vector<Vec2> h = convex_hull_2d(p);
  ASSERT_EQ(h.size(), 4u);
  double area = 0.0;
  for (std::size_t k = 0; k < h.size(); ++k)
    area += h[k].x() * h[(k + 1) % 4].y() - h[(k + 1) % 4].x() * h[k].y();
  EXPECT_NEAR(0.5 * area, 1.0, 1e-15);  // counter-clockwise: positive
  EXPECT_TRUE(inside_convex(h, Vec2(0.5, 0.5)));
  EXPECT_TRUE(inside_convex(h, Vec2(1.0, 0.3)));  // boundary
  EXPECT_FALSE(inside_convex(h, Vec2(1.0 + 1e-12, 0.3)));
}

/// A rectangle [0, L] x [-W/2, W/2] tiled by square grains of side s (corner nodes), turned by
/// `angle` about the origin.
std::vector<GrainFootprint> rectangle(double L, double W, double s, double angle) {
  const Eigen::Rotation2Dd rot(angle);
  std::vector<GrainFootprint> out;
  for (double x = 0.0; x < L - 1e-9; x += s)
    for (double y = -0.5 * W; y < 0.5 * W - 1e-9; y += s) {
      std::vector<Vec3> corners;
      for (const Vec2& c : {Vec2(x, y), Vec2(x + s, y), Vec2(x + s, y + s), Vec2(x, y + s)}) {
        const Vec2 q = rot * c;
        corners.emplace_back(q.x(), q.y(), 0.1);
      }
      const Vec2 m = rot * Vec2(x + 0.5 * s, y + 0.5 * s);
      out.push_back(make_footprint(corners, {}, Vec3(m.x(), m.y(), 0.05), 1.0));
    }
  return out;
}

TEST(Runout, RectangleOfKnownArea) {
  const std::vector<GrainFootprint> g = rectangle(2.0, 1.0, 0.1, 0.0);
  ASSERT_EQ(g.size(), 200u);
  RunoutSettings st;
  st.direction = Vec2(3.0, 0.0);  // any length
  st.cell = 0.01;
  const RunoutResult r = analyze_runout(g, st);
  EXPECT_NEAR(r.area, 2.0, 1e-9);  // cells aligned with the tiles: every centre is inside
  EXPECT_NEAR(r.runout, 2.0, 1e-12);
  EXPECT_NEAR(r.rear, 0.0, 1e-12);
  EXPECT_NEAR(r.width, 1.0, 1e-12);
  // 20 columns of 10 equal grains: 95 % of them lie up to the 19th column, centre 1.85.
  EXPECT_NEAR(r.runout_fraction, 1.85, 1e-12);
  for (int k = 0; k < r.map.nx * r.map.ny; ++k) {
    if (r.map.grains[k] > 0) {
      EXPECT_DOUBLE_EQ(r.map.top[k], 0.1);
    }
  }

  // Along the diagonal: the farthest corner (2, 0.5) lies at 2.5 / sqrt(2).
  st.direction = Vec2(1.0, 1.0);
  EXPECT_NEAR(analyze_runout(g, st).runout, 2.5 / std::sqrt(2.0), 1e-12);
}

TEST(Runout, TurnedRectangleKeepsItsArea) {
  // Cells stay aligned with the axes; at 30 degrees the border cells in and out balance.
  const std::vector<GrainFootprint> g = rectangle(2.0, 1.0, 0.1, 30.0 * kDeg);
  RunoutSettings st;
  st.direction = Vec2(std::cos(30.0 * kDeg), std::sin(30.0 * kDeg));
  st.cell = 0.01;
  const RunoutResult r = analyze_runout(g, st);
  EXPECT_NEAR(r.area, 2.0, 0.002 * 2.0);
  EXPECT_NEAR(r.runout, 2.0, 1e-12);
  EXPECT_NEAR(r.width, 1.0, 1e-12);
}

TEST(Runout, FanOfKnownOpening) {
  // An annular sector from r = 0.3 to 2 m, opening 60 degrees about d = (0, 1), apex (1, -1),
  // tiled by quadrilateral grains between polar grid lines (their corners on the sector).
  const Vec2 apex(1.0, -1.0);
  const double open = 60.0, r0 = 0.3, r1 = 2.0;
  std::vector<GrainFootprint> g;
  for (double r = r0; r < r1 - 1e-9; r += 0.1)
    for (double b = -0.5 * open; b < 0.5 * open - 1e-9; b += 5.0) {
      std::vector<Vec3> corners;
      for (const auto& [rr, bb] :
           {std::pair{r, b}, {r + 0.1, b}, {r + 0.1, b + 5.0}, {r, b + 5.0}}) {
        // bearing bb from d = (0, 1), positive to the left (towards -x).
        const Vec2 p = apex + rr * Vec2(-std::sin(bb * kDeg), std::cos(bb * kDeg));
        corners.emplace_back(p.x(), p.y(), 0.0);
      }
      const Vec2 m =
          apex + (r + 0.05) * Vec2(-std::sin((b + 2.5) * kDeg), std::cos((b + 2.5) * kDeg));
      g.push_back(make_footprint(corners, {}, Vec3(m.x(), m.y(), 0.0), 1.0));
    }
  RunoutSettings st;
  st.direction = Vec2(0.0, 1.0);
  st.origin = apex;
  st.cell = 0.005;
  const RunoutResult r = analyze_runout(g, st);
  const double sector = 0.5 * open * kDeg * (r1 * r1 - r0 * r0);
  EXPECT_NEAR(r.area, sector, 0.005 * sector);  // chords of 5 degrees lose 0.13 %
  EXPECT_NEAR(r.runout, r1, 1e-12);
  // Every covered cell centre lies in the sector; the outermost within a cell of its edges at
  // r >= 0.3 m: less than 0.005 / 0.3 rad = 1 degree each side.
  EXPECT_LE(r.fan_angle_full, open + 1e-9);
  EXPECT_GE(r.fan_angle_full, open - 1.0);
  // Uniform cover: bearings uniform by area, so the central 95 % spans 0.95 of the opening.
  EXPECT_NEAR(r.fan_angle, 0.95 * open, 0.2);
  EXPECT_NEAR(r.fan_left, -r.fan_right, 0.1);
}

TEST(Runout, DiscsCoverTheirArea) {
  // One sphere of radius 0.5 seen from above: pi r^2 to the cell.
  const std::vector<std::pair<Vec3, double>> ball = {{Vec3(2.0, 3.0, 0.5), 0.5}};
  const std::vector<GrainFootprint> g = {make_footprint({}, ball, Vec3(2.0, 3.0, 0.5), 1.0)};
  RunoutSettings st;
  st.origin = Vec2(0.0, 3.0);
  st.cell = 0.005;
  const RunoutResult r = analyze_runout(g, st);
  EXPECT_NEAR(r.area, M_PI * 0.25, 0.001 * M_PI * 0.25);
  EXPECT_NEAR(r.runout, 2.5, 1e-12);
  EXPECT_NEAR(r.width, 1.0, 1e-12);
  EXPECT_NEAR(g[0].top, 1.0, 1e-12);
}

TEST(Runout, RefusesBadInput) {
  const std::vector<GrainFootprint> g = rectangle(1.0, 1.0, 0.5, 0.0);
  RunoutSettings st;
  st.direction = Vec2(0.0, 0.0);
  EXPECT_THROW(analyze_runout(g, st), std::invalid_argument);
  st.direction = Vec2(1.0, 0.0);
  st.cell = 0.0;
  EXPECT_THROW(analyze_runout(g, st), std::invalid_argument);
  st.cell = 1e-6;  // 1e12 cells
  EXPECT_THROW(analyze_runout(g, st), std::invalid_argument);
  st.cell = 0.01;
  st.fraction = 0.0;
  EXPECT_THROW(analyze_runout(g, st), std::invalid_argument);
  EXPECT_THROW(analyze_runout({}, RunoutSettings{}), std::invalid_argument);
}

}  // namespace
}  // namespace etdem
