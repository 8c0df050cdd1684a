// LZB (Liu, Zhao & Brogliato 2009) on planar ball systems: Bernoulli's problem (§4a-b, Table 6,
// the closed form Eq. 4.2, the fully plastic and the mixed cases) and the four-ball systems of
// §4c (cases A and B); first the builders are checked against the paper's impulsive equations.
// All balls 1 kg, Hertz contacts (eta = 3/2), v = 1 m/s. The paper's numbers are asserted;
// where a printed number contradicts momentum or the symmetric analytic solution the physics is
// asserted and the comment says so.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "chains.hpp"
#include "compliant_reference.hpp"
#include "etdem/solvers/lzb.hpp"

namespace etdem {
namespace {

using test::Balls;

constexpr double kPi = 3.14159265358979323846;
constexpr int kSteps = 20'000;

LzbSettings hertz(LzbSettings::Model model = LzbSettings::Model::Mono) {
  LzbSettings s;
  s.eta = 1.5;
  s.model = model;
  s.steps = kSteps;
  return s;
}

/// Momentum to 1e-12 of the initial, the ledger, no guard, nothing left approaching.
SolverStats solve_checked(Balls& b, const LzbSettings& s) {
  const Vec3 p0 = b.momentum();
  const double k0 = b.kinetic();
  LzbSolver solver(s);
  const SolverStats st = b.solve(solver);
  EXPECT_LE((b.momentum() - p0).norm(), 1e-12 * p0.norm());
  EXPECT_NEAR(k0 - b.kinetic(), st.dissipated_restitution + st.truncated, 1e-10 * k0);
  EXPECT_EQ(st.guards_fired, 0);
  EXPECT_EQ(st.approaching_left, 0);
  for (int k = 0; k < static_cast<int>(b.contacts.size()); ++k)
    EXPECT_GE(b.normal_velocity(k), -1e-9) << "contact " << k;
  return st;
}

Balls compliant(Balls b, bool bi = false) {
  test::CompliantSettings cs;
  cs.eta = 1.5;
  cs.bi = bi;
  cs.dt_fraction = 2e-4;
  EXPECT_TRUE(test::compliant_impact(b, cs).finished);
  return b;
}

// ---------------------------------------------------------------------------------------------
// The builders against the paper's impulsive equations. Velocity change of every ball per unit
// impulse at each contact, and each contact's approach rate delta_dot = -u_n for arbitrary
// velocities, compared with Eqs. 4.3-4.4 (Bernoulli) and 4.6-4.7 (four balls), with docs/errata.md's
// corrections: in Eq. 4.3 B3's y-impulse is -dP2 sin a (printed -dP1), and in Eq. 4.4 the x-term
// of delta_dot_23 is (x2 - x3) cos a (printed x3 - x2). Eqs. 4.6-4.7 hold as printed.

/// Columns of `jac` are the velocity changes [x1, y1, x2, y2, ...] per unit impulse at each
/// contact; `rates` gives delta_dot of each contact for velocities [x1, y1, ...].
void expect_equations(Balls b, const std::vector<std::vector<double>>& jac,
                      const std::function<std::vector<double>(const std::vector<double>&)>& rates) {
  const int nb = b.count();
  for (std::size_t k = 0; k < b.contacts.size(); ++k) {
    for (int i = 0; i < nb; ++i) b.v[i] = Vec3::Zero();
    IslandBodies view = b.view();
    impulse::apply(b.contacts[k], view, b.contacts[k].normal);
    for (int i = 0; i < nb; ++i) {
      EXPECT_NEAR(b.v[i].x(), jac[2 * i][k], 1e-12) << "ball " << i << " contact " << k;
      EXPECT_NEAR(b.v[i].y(), jac[2 * i + 1][k], 1e-12) << "ball " << i << " contact " << k;
    }
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> q(2 * nb);
  for (double& x : q) x = u(rng);
  for (int i = 0; i < nb; ++i) b.v[i] = Vec3(q[2 * i], q[2 * i + 1], 0.0);
  const std::vector<double> expected = rates(q);
  for (std::size_t k = 0; k < b.contacts.size(); ++k)
    EXPECT_NEAR(-b.normal_velocity(static_cast<int>(k)), expected[k], 1e-12) << "contact " << k;
}

TEST(LzbEquations, BernoulliBuilderIsEq43And44Corrected) {
  const double a = 0.6, c = std::cos(a), s = std::sin(a);
  // Eq. 4.3 (m = 1), columns dP1, dP2; B3's y-row uses dP2 (docs/errata.md).
  const std::vector<std::vector<double>> jac = {{c, 0}, {s, 0}, {-c, -c}, {-s, s}, {0, c}, {0, -s}};
  expect_equations(test::bernoulli(a, 1.0, 1.0), jac, [&](const std::vector<double>& q) {
    const double x1 = q[0], y1 = q[1], x2 = q[2], y2 = q[3], x3 = q[4], y3 = q[5];
    return std::vector<double>{(x2 - x1) * c + (y2 - y1) * s,   // Eq. 4.4
                               (x2 - x3) * c + (y3 - y2) * s};  // Eq. 4.4, x-term corrected
  });
}

TEST(LzbEquations, FourBallBuildersAreEq46To49) {
  {
    const double a = kPi / 5, c = std::cos(a), s = std::sin(a);
    // Eq. 4.6, columns dP1..dP4.
    const std::vector<std::vector<double>> jac = {{c, 0, 0, -c}, {s, 0, 0, s},  {-c, -c, 0, 0},
                                                  {-s, s, 0, 0}, {0, c, -c, 0}, {0, -s, -s, 0},
                                                  {0, 0, c, c},  {0, 0, s, -s}};
    expect_equations(test::four_balls(a, 1.0, 0.0), jac, [&](const std::vector<double>& q) {
      const double x1 = q[0], y1 = q[1], x2 = q[2], y2 = q[3], x3 = q[4], y3 = q[5], x4 = q[6],
                   y4 = q[7];
      return std::vector<double>{(x2 - x1) * c + (y2 - y1) * s, -(x3 - x2) * c + (y3 - y2) * s,
                                 -(x4 - x3) * c + (y3 - y4) * s, (x1 - x4) * c + (y4 - y1) * s};
    });
  }
  {
    const double h = std::sqrt(3.0) / 2.0;
    // Eq. 4.8 (alpha = pi/3), columns dP1..dP5.
    const std::vector<std::vector<double>> jac = {
        {0.5, 0, 0, -0.5, 0}, {h, 0, 0, h, 0},   {-0.5, -0.5, 0, 0, -1}, {-h, h, 0, 0, 0},
        {0, 0.5, -0.5, 0, 0}, {0, -h, -h, 0, 0}, {0, 0, 0.5, 0.5, 1},    {0, 0, h, -h, 0}};
    expect_equations(test::four_balls(kPi / 3, 1.0, 0.0), jac, [&](const std::vector<double>& q) {
      const double x1 = q[0], y1 = q[1], x2 = q[2], y2 = q[3], x3 = q[4], y3 = q[5], x4 = q[6],
                   y4 = q[7];
      return std::vector<double>{(x2 - x1) / 2 + h * (y2 - y1), -(x3 - x2) / 2 + h * (y3 - y2),
                                 -(x4 - x3) / 2 + h * (y3 - y4), (x1 - x4) / 2 + h * (y4 - y1),
                                 x2 - x4};  // Eq. 4.9
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Bernoulli's problem: B2 strikes B1 and B3 along their symmetry line.

/// Eq. 4.2: Bernoulli's symmetric elastic solution for identical balls and v0 = 1,
/// [x1, y1, x2, y2, x3, y3].
std::array<double, 6> bernoulli_closed_form(double a) {
  const double t = std::tan(a), d = 3.0 + t * t;
  return {2.0 / d, 2.0 * t / d, 1.0 - 4.0 / d, 0.0, 2.0 / d, -2.0 * t / d};
}

std::array<double, 6> outcome(const Balls& b) {
  return {b.v[0].x(), b.v[0].y(), b.v[1].x(), b.v[1].y(), b.v[2].x(), b.v[2].y()};
}

// Table 6 (numerical and theoretical columns are printed alike). The last row is labelled pi/8
// but holds the values of pi/3 (docs/errata.md). Our LZB reproduces Eq. 4.2 to 1e-6 (measured) and
// every printed value to half a unit of its 2nd decimal; Eq. 4.2 itself is checked against the
// printed theoretical column to the same digits.
TEST(LzbBernoulli, Table6AndClosedForm) {
  struct Row {
    double alpha;
    std::array<double, 6> printed;
  };
  const Row rows[4] = {
      {kPi / 8, {0.63, 0.26, -0.26, 0.00, 0.63, -0.26}},
      {kPi / 6, {0.60, 0.35, -0.20, 0.00, 0.60, -0.35}},
      {kPi / 4, {0.50, 0.50, -0.00, 0.00, 0.50, -0.50}},
      {kPi / 3, {0.33, 0.58, 0.33, 0.00, 0.33, -0.58}},  // printed as pi/8
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(::testing::Message() << "alpha = pi/" << kPi / r.alpha);
    Balls b = test::bernoulli(r.alpha, 1.0, 1.0);
    solve_checked(b, hertz());
    const auto got = outcome(b);
    const auto exact = bernoulli_closed_form(r.alpha);
    for (int k = 0; k < 6; ++k) {
      EXPECT_NEAR(got[k], exact[k], 1e-6) << "component " << k;
      EXPECT_NEAR(got[k], r.printed[k], 0.005) << "component " << k;
      EXPECT_NEAR(exact[k], r.printed[k], 0.005) << "component " << k;
    }
    EXPECT_NEAR(b.kinetic(), 0.5, 1e-12);
  }
}

// The closed form holds for every angle and both contact models (e = 1 makes them one), and
// with the contacts given in either order.
TEST(LzbBernoulli, ClosedFormAtOtherAnglesAndOrders) {
  for (double a : {0.1, 0.3, 0.7, 1.0, 1.3}) {
    for (auto model : {LzbSettings::Model::Mono, LzbSettings::Model::Bi}) {
      for (bool swap : {false, true}) {
        Balls b = test::bernoulli(a, 1.0, 1.0);
        if (swap) std::swap(b.contacts[0], b.contacts[1]);
        solve_checked(b, hertz(model));
        const auto got = outcome(b);
        const auto exact = bernoulli_closed_form(a);
        for (int k = 0; k < 6; ++k) EXPECT_NEAR(got[k], exact[k], 1e-6) << "alpha " << a;
      }
    }
  }
}

// Fully plastic impacts (e1 = e2 = 0) at pi/6 (Fig. 7). The outcome stays symmetric and both
// contacts end their compression together with zero normal relative velocity, so the outcome is
// that of a perfectly plastic collision: P = v0 cos a / (1 + 2 cos^2 a) at each contact and
// kinetic energy 0.2 J. The paper prints 0.185 J, which no symmetric outcome with both normal
// velocities zero can have (docs/errata.md): asserted is the hand calculation, 0.2 J.
TEST(LzbBernoulli, FullyPlasticKeepsSymmetryAndLeavesHandCalculatedEnergy) {
  const double a = kPi / 6;
  for (auto model : {LzbSettings::Model::Mono, LzbSettings::Model::Bi}) {
    Balls b = test::bernoulli(a, 0.0, 0.0);
    const SolverStats st = solve_checked(b, hertz(model));
    const double p = std::cos(a) / (1.0 + 2.0 * std::cos(a) * std::cos(a));
    EXPECT_NEAR(b.v[0].x(), p * std::cos(a), 1e-9);
    EXPECT_NEAR(b.v[0].y(), p * std::sin(a), 1e-9);
    EXPECT_NEAR(b.v[1].x(), 1.0 - 2.0 * p * std::cos(a), 1e-9);
    EXPECT_NEAR(b.v[1].y(), 0.0, 1e-12);
    EXPECT_NEAR(b.v[2].x(), b.v[0].x(), 1e-12);
    EXPECT_NEAR(b.v[2].y(), -b.v[0].y(), 1e-12);
    EXPECT_NEAR(b.normal_velocity(0), 0.0, 1e-9);
    EXPECT_NEAR(b.normal_velocity(1), 0.0, 1e-9);
    EXPECT_NEAR(b.kinetic(), 0.2, 1e-9);
    EXPECT_NEAR(st.dissipated_restitution, 0.3, 1e-9);
  }
}

// Mixed case (Fig. 8): e1 = 1 between B1 and B2, e2 = 0 between B2 and B3, alpha = pi/3. The
// paper prints no numbers: it describes B2 leaving the symmetry line towards B3 (y2 < 0). Our
// LZB agrees with the compliant reference to 1e-4 (measured 1e-5) in both contact models, which
// coincide for e in {0, 1}.
TEST(LzbBernoulli, MixedElasticPlasticBreaksSymmetryLikeTheCompliantModel) {
  const double a = kPi / 3;
  for (auto model : {LzbSettings::Model::Mono, LzbSettings::Model::Bi}) {
    Balls b = test::bernoulli(a, 1.0, 0.0);
    const SolverStats st = solve_checked(b, hertz(model));
    const Balls c = compliant(test::bernoulli(a, 1.0, 0.0), model == LzbSettings::Model::Bi);
    for (int i = 0; i < 3; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
    EXPECT_LT(b.v[1].y(), -0.1);              // B2 moves towards B3
    EXPECT_GT(b.v[0].norm(), b.v[2].norm());  // the elastic side throws its ball harder
    EXPECT_GT(st.dissipated_restitution, 0.05);
    std::printf("mixed pi/3: B1 (%.5f, %.5f) B2 (%.5f, %.5f) B3 (%.5f, %.5f) KE %.5f J\n",
                b.v[0].x(), b.v[0].y(), b.v[1].x(), b.v[1].y(), b.v[2].x(), b.v[2].y(),
                b.kinetic());
  }
}

// ---------------------------------------------------------------------------------------------
// Four balls (§4c), e = 1. Symmetry about the x-axis is asserted in every case (the section's
// point), and the energy to round-off.

void expect_x_symmetric(const Balls& b) {
  EXPECT_NEAR(b.v[0].x(), b.v[2].x(), 1e-9);
  EXPECT_NEAR(b.v[0].y(), -b.v[2].y(), 1e-9);
  EXPECT_NEAR(b.v[1].y(), 0.0, 1e-9);
  EXPECT_NEAR(b.v[3].y(), 0.0, 1e-9);
}

// Case A, alpha = pi/5, B2 strikes (Fig. 11): printed B2 -0.1363, B4 0.259, B1 (0.4206, 0.52),
// B3 (0.4206, -0.52). These break x-momentum (-0.1363 + 0.259 + 2 x 0.4206 = 0.9639, docs/errata.md); the
// others fix B4 at 1 + 0.1363 - 2 x 0.4206 = 0.2951. Asserted: the printed B2 and B1/B3 to one unit
// of their 4th decimal (measured -0.13623 and 0.42067, which the compliant reference confirms),
// 0.52 to half a unit, and B4 against the momentum value 0.2951 (measured 0.29489).
TEST(LzbFourBalls, CaseAAtPiOver5) {
  Balls b = test::four_balls(kPi / 5, 1.0, 0.0);
  ASSERT_EQ(b.contacts.size(), 4u);
  solve_checked(b, hertz());
  expect_x_symmetric(b);
  EXPECT_NEAR(b.kinetic(), 0.5, 1e-11);
  EXPECT_NEAR(b.v[1].x(), -0.1363, 1e-4);
  EXPECT_NEAR(b.v[0].x(), 0.4206, 1e-4);
  EXPECT_NEAR(b.v[0].y(), 0.52, 0.005);
  EXPECT_NEAR(b.v[3].x(), 1.0 + 0.1363 - 2.0 * 0.4206, 5e-4);
  const Balls c = compliant(test::four_balls(kPi / 5, 1.0, 0.0));
  for (int i = 0; i < 4; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
}

// Case A for pi/4 <= alpha < pi/3 (Fig. 12 at 2 pi/7): B4 receives no impulse, the relative
// velocities at B1-B4 and B3-B4 never approach, and the system behaves as Bernoulli's three
// balls (Eq. 4.2 holds for B1, B2, B3).
TEST(LzbFourBalls, CaseAWideAnglesLeaveB4AtRest) {
  for (double a : {kPi / 4, 2 * kPi / 7, 0.3 * kPi}) {
    SCOPED_TRACE(::testing::Message() << "alpha " << a);
    Balls b = test::four_balls(a, 1.0, 0.0);
    ASSERT_EQ(b.contacts.size(), 4u);
    solve_checked(b, hertz());
    expect_x_symmetric(b);
    EXPECT_EQ(b.v[3].norm(), 0.0);
    const auto exact = bernoulli_closed_form(a);
    EXPECT_NEAR(b.v[0].x(), exact[0], 1e-6);
    EXPECT_NEAR(b.v[0].y(), exact[1], 1e-6);
    EXPECT_NEAR(b.v[1].x(), exact[2], 1e-6);
  }
}

// Case A, alpha = 2 pi/7, B2 and B4 strike from both sides at 1 m/s (Fig. 13): printed B1, B3
// y = +-0.975 and B2, B4 x = +-0.2224. Kinetic energy (1 J) and symmetry in x and y hold; the
// printed pair 0.975/0.2224 is energy-consistent only for y in [0.9745, 0.9755]. Asserted:
// 0.975 to half a unit, 0.2224 to 1.5 units of its 4th decimal (measured 0.97493 and 0.22252,
// as the compliant reference).
TEST(LzbFourBalls, CaseATwoStrikersAt2PiOver7) {
  Balls b = test::four_balls(2 * kPi / 7, 1.0, -1.0);
  solve_checked(b, hertz());
  expect_x_symmetric(b);
  EXPECT_NEAR(b.v[0].x(), 0.0, 1e-12);
  EXPECT_NEAR(b.v[1].x(), -b.v[3].x(), 1e-12);
  EXPECT_NEAR(b.kinetic(), 1.0, 1e-11);
  EXPECT_NEAR(b.v[0].y(), 0.975, 0.0005);
  EXPECT_NEAR(b.v[2].y(), -0.975, 0.0005);
  EXPECT_NEAR(b.v[1].x(), 0.2224, 1.5e-4);
  EXPECT_NEAR(b.v[3].x(), -0.2224, 1.5e-4);
  const Balls c = compliant(test::four_balls(2 * kPi / 7, 1.0, -1.0));
  for (int i = 0; i < 4; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
}

// Case B, alpha = pi/3 (five contacts, B2 touches B4), B2 strikes (Fig. 14): printed B2 -0.197,
// B4 0.84, B1 (0.178, 0.308), B3 (0.178, -0.308). All to half a unit of their last digit.
TEST(LzbFourBalls, CaseBAtPiOver3) {
  Balls b = test::four_balls(kPi / 3, 1.0, 0.0);
  ASSERT_EQ(b.contacts.size(), 5u);
  solve_checked(b, hertz());
  expect_x_symmetric(b);
  EXPECT_NEAR(b.kinetic(), 0.5, 1e-11);
  EXPECT_NEAR(b.v[1].x(), -0.197, 0.0005);
  EXPECT_NEAR(b.v[3].x(), 0.84, 0.005);
  EXPECT_NEAR(b.v[0].x(), 0.178, 0.0005);
  EXPECT_NEAR(b.v[0].y(), 0.308, 0.0005);
  EXPECT_NEAR(b.v[2].y(), -0.308, 0.0005);
  const Balls c = compliant(test::four_balls(kPi / 3, 1.0, 0.0));
  for (int i = 0; i < 4; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
}

// Case B, alpha = pi/3, B2 and B4 strike from both sides (Fig. 15): printed |x2| = |x4| = 0.964
// and y1 = -y3 = 0.266. The text has B2 "change from 1 to 0.964" m/s; B2 and B4 touch (contact
// B2-B4), so after the impact x2 <= x4, and with x2 = -x4 by symmetry B2 must move backwards:
// asserted x2 = -0.964 (the printed magnitude, half a unit), x4 = +0.964.
TEST(LzbFourBalls, CaseBTwoStrikersAtPiOver3) {
  Balls b = test::four_balls(kPi / 3, 1.0, -1.0);
  ASSERT_EQ(b.contacts.size(), 5u);
  solve_checked(b, hertz());
  expect_x_symmetric(b);
  EXPECT_NEAR(b.v[0].x(), 0.0, 1e-12);
  EXPECT_NEAR(b.kinetic(), 1.0, 1e-11);
  EXPECT_NEAR(b.v[1].x(), -0.964, 0.0005);
  EXPECT_NEAR(b.v[3].x(), 0.964, 0.0005);
  EXPECT_NEAR(b.v[0].y(), 0.266, 0.0005);
  EXPECT_NEAR(b.v[2].y(), -0.266, 0.0005);
  EXPECT_LE(b.v[1].x(), b.v[3].x());
  const Balls c = compliant(test::four_balls(kPi / 3, 1.0, -1.0));
  for (int i = 0; i < 4; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
}

// Case B at alpha = pi/6 (B1 touches B3; no numbers printed): symmetric, energy kept, and the
// compliant reference agrees.
TEST(LzbFourBalls, CaseBAtPiOver6AgreesWithCompliant) {
  Balls b = test::four_balls(kPi / 6, 1.0, 0.0);
  ASSERT_EQ(b.contacts.size(), 5u);
  solve_checked(b, hertz());
  expect_x_symmetric(b);
  EXPECT_NEAR(b.kinetic(), 0.5, 1e-11);
  const Balls c = compliant(test::four_balls(kPi / 6, 1.0, 0.0));
  for (int i = 0; i < 4; ++i) EXPECT_LE((b.v[i] - c.v[i]).norm(), 1e-4) << "ball " << i;
}

}  // namespace
}  // namespace etdem
