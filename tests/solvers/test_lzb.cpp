// LZB (Liu, Zhao & Brogliato 2009) on ball chains: the three-ball chains of balls A-D (Tables 2
// and 3, mono- and bi-stiffness, eta = 3/2) and the five-ball chains of Table 4 (e = 1, eta = 1,
// mass ratio alpha and stiffness ratio gamma), with the compliant model of Table 5 computed by the
// test-side reference integrator. Every printed number is asserted; where the paper's own digits
// are off (its discretization), the tolerance says so and docs/validation.md lists the case.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "chains.hpp"
#include "compliant_reference.hpp"
#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/lzb.hpp"
#include "etdem/validation/lzb_tables.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

using test::Balls;
using test::chain;
using validation::BallType;
using validation::FiveBallRow;
using validation::kBalls;
using validation::kBi;
using validation::kFive;
using validation::kMono;
using validation::ThreeBallRow;

constexpr int kSteps = 50'000;  // N of Eq. 2.2: within 2e-5 of N = 2e5 (measured 6e-6 / 1.8e-5)

LzbSettings lzb(double eta, LzbSettings::Model model = LzbSettings::Model::Mono,
                int steps = kSteps) {
  LzbSettings s;
  s.eta = eta;
  s.model = model;
  s.steps = steps;
  return s;
}

/// Runs LZB on `b` and checks what every run must satisfy: momentum to 1e-12 relative, the
/// ledger (kinetic energy lost = restitution + truncation) to 1e-10 of the initial energy, no
/// guard, nothing left approaching.
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
    EXPECT_GE(b.normal_velocity(k), -1e-9) << "contact " << k << " still approaching";
  return st;
}

// ---------------------------------------------------------------------------------------------
// Three-ball chains (§3b(i)). Ball data of Ceanga & Hurmuzlu as the paper's Table 1 and text:
// masses 45, 53, 53, 166 g; energetic restitution 0.97, 0.36, 0.27, 0.85 (docs/errata.md: Table 1's
// layout is garbled). v0 = 1 m/s, eta = 3/2, gamma = 1.

Balls three_balls(const BallType& t) {
  return chain({t.mass, t.mass, t.mass}, {1.0}, {t.e}, {1.0});
}

double sum_of_squares(const Balls& b) {
  double s = 0.0;
  for (const Vec3& v : b.v) s += v.x() * v.x();
  return s;
}

void check_three_ball_table(const ThreeBallRow (&rows)[4], LzbSettings::Model model) {
  for (const ThreeBallRow& row : rows) {
    const BallType& t = kBalls[row.ball];
    SCOPED_TRACE(std::string("ball type ") + t.name);
    Balls b = three_balls(t);
    solve_checked(b, lzb(1.5, model));
    EXPECT_NEAR(b.v[0].x(), row.v1.value, row.v1.tol);
    EXPECT_NEAR(b.v[1].x(), row.v2.value, row.v2.tol);
    EXPECT_NEAR(b.v[2].x(), row.v3.value, row.v3.tol);
    EXPECT_NEAR(sum_of_squares(b), row.sum.value, row.sum.tol);
    // Frictionless balls on a line: nothing leaves the x-axis, nothing spins.
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(b.v[i].y(), 0.0);
      EXPECT_EQ(b.w[i].norm(), 0.0);
    }
    // The compliant model of the same contact law, integrated in time, agrees to 1e-4.
    Balls c = three_balls(t);
    test::CompliantSettings cs;
    cs.eta = 1.5;
    cs.bi = model == LzbSettings::Model::Bi;
    cs.dt_fraction = 1e-4;
    ASSERT_TRUE(test::compliant_impact(c, cs).finished);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.v[i].x(), c.v[i].x(), 1e-4) << "ball " << i;
  }
}

TEST(LzbThreeBalls, Table2And3MonoStiffness) {
  check_three_ball_table(kMono, LzbSettings::Model::Mono);
}

TEST(LzbThreeBalls, Table3BiStiffness) {
  check_three_ball_table(kBi, LzbSettings::Model::Bi);
}

// Table 2 (left): the outcomes Ceanga & Hurmuzlu's experiments give through their impulse
// correlation ratio. The paper finds LZB "fairly" close (at most 0.057 apart in its table); the
// impulse methods without wave effects: ETM (one velocity increment at a time), the modified
// ETM, SQM (the velocity handed down the chain, Newton's cradle) and SMM (both contacts at
// once). For the nearly elastic balls (A, e = 0.97; D, e = 0.85), where the dispersion of the
// wave decides the outcome, LZB is the closest by a factor of 3 or more; for the dissipative
// balls B and C (e = 0.36, 0.27) SQM is as close (0.068 and 0.059 against LZB's 0.070 and
// 0.055). Over the four types LZB has the smallest mean distance. Distances are printed for
// docs/validation.md ("Multiple impacts", the comparison table).
TEST(LzbThreeBalls, Table2ExperimentsClosestWithLzb) {
  std::map<std::string, double> mean;
  const double icr[4][3] = {
      {-0.075, 0.112, 0.963}, {0.195, 0.313, 0.492}, {0.236, 0.323, 0.441}, {0.036, 0.106, 0.857}};
  for (int t = 0; t < 4; ++t) {
    SCOPED_TRACE(std::string("ball type ") + kBalls[t].name);
    Balls lz = three_balls(kBalls[t]);
    solve_checked(lz, lzb(1.5));
    double d_lzb = 0.0;
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(lz.v[i].x(), icr[t][i], 0.06) << "ball " << i;
      d_lzb += std::pow(lz.v[i].x() - icr[t][i], 2);
    }
    d_lzb = std::sqrt(d_lzb);
    mean["lzb"] += d_lzb / 4;
    std::printf("ball %c: lzb v = (%.3f, %.3f, %.3f) distance %.3f\n", kBalls[t].name, lz.v[0].x(),
                lz.v[1].x(), lz.v[2].x(), d_lzb);
    for (const char* name : {"etm", "etm-priority", "sqm", "smm"}) {
      WorldSettings ws;
      ws.solver = name;
      const std::unique_ptr<Solver> solver = make_solver(ws);
      solver->prepare(1);
      Balls b = three_balls(kBalls[t]);
      b.solve(*solver);
      EXPECT_LE((b.momentum() - Vec3(kBalls[t].mass, 0, 0)).norm(), 1e-12 * kBalls[t].mass) << name;
      double d = 0.0;
      for (int i = 0; i < 3; ++i) d += std::pow(b.v[i].x() - icr[t][i], 2);
      d = std::sqrt(d);
      mean[name] += d / 4;
      if (kBalls[t].name == 'A' || kBalls[t].name == 'D') {
        EXPECT_LT(3.0 * d_lzb, d) << name;
      }
      std::printf("ball %c: %s v = (%.3f, %.3f, %.3f) distance %.3f\n", kBalls[t].name, name,
                  b.v[0].x(), b.v[1].x(), b.v[2].x(), d);
    }
  }
  for (const auto& [name, d] : mean) {
    std::printf("mean distance to the experiments: %s %.3f\n", name.c_str(), d);
    if (name != "lzb") {
      EXPECT_LT(mean["lzb"], d) << name;
    }
  }
}

// With e = 1 the trapezoidal work of Eq. 2.9 equals the kinetic energy change of every Euler
// step and the terminations are located exactly, so energy is conserved to round-off whatever N
// (the step size changes how the impulses are distributed, not the energy).
TEST(LzbThreeBalls, ElasticChainConservesEnergyForEveryStepCount) {
  for (int n : {10, 100, 1000, 10000}) {
    for (double eta : {1.0, 1.5}) {
      Balls b = chain({1.0, 1.0, 1.0}, {1.0}, {1.0}, {1.0});
      const SolverStats st = solve_checked(b, lzb(eta, LzbSettings::Model::Mono, n));
      EXPECT_NEAR(b.kinetic(), 0.5, 1e-12) << "N " << n << " eta " << eta;
      EXPECT_EQ(st.dissipated_restitution, 0.0);
    }
  }
}

// Explicit Euler in impulse time (Eq. 2.5): the error falls with N. Measured for ball type A
// (mono): |v - v(N = 1e5)| = 3e-4 at N = 1000, 2e-5 at 10 000.
TEST(LzbThreeBalls, ConvergesWithTheStepCount) {
  Balls ref = three_balls(kBalls[0]);
  solve_checked(ref, lzb(1.5, LzbSettings::Model::Mono, 100'000));
  double previous = 1e9;
  for (int n : {100, 1000, 10'000}) {
    Balls b = three_balls(kBalls[0]);
    solve_checked(b, lzb(1.5, LzbSettings::Model::Mono, n));
    double err = 0.0;
    for (int i = 0; i < 3; ++i) err = std::max(err, std::abs(b.v[i].x() - ref.v[i].x()));
    std::printf("N = %d: max |v - v(1e5)| = %.2e\n", n, err);
    EXPECT_LT(err, previous);
    previous = err;
  }
  EXPECT_LT(previous, 5e-5);
}

// ---------------------------------------------------------------------------------------------
// Five-ball chains (§3b(ii)): m1 = 1 kg, the others m1/alpha; contact 1 (B1-B2) gamma times
// stiffer than the others (gamma = K1/Ki); e = 1, eta = 1, v0 = 1 m/s.

Balls five_balls(const FiveBallRow& r) {
  const double m = 1.0 / r.alpha;
  return chain({1.0, m, m, m, m}, {1.0}, {1.0}, {r.gamma, 1.0, 1.0, 1.0});
}

// Table 4. Its rows are not energy-conserving to their printed digits (kinetic energy 0.50025 to
// 0.50034 J for 0.5 J, e = 1): the paper's discretization error is ~5e-4 relative, and its 4th
// decimals move with it. Asserted: our LZB conserves energy to round-off (1e-11 relative: the
// stored energies are sums over ~3e5 steps at N = 50 000; measured 4e-12) and lies within 1e-3
// of every entry (measured: at most 7.8e-4, the (2, 1) row).
TEST(LzbFiveBalls, Table4) {
  for (const FiveBallRow& r : kFive) {
    SCOPED_TRACE(::testing::Message() << "(alpha, gamma) = (" << r.alpha << ", " << r.gamma << ")");
    Balls b = five_balls(r);
    solve_checked(b, lzb(1.0));
    EXPECT_NEAR(b.kinetic(), 0.5, 0.5e-11);
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(b.v[i].x(), r.table4[i], 1e-3) << "ball " << i;
  }
}

// Table 5 with the compliant reference: linear springs, e = 1, stiffness 1 N/m as the paper
// (only ratios matter). Every entry to half a unit of its 4th decimal except (2, 2) B1 and B2,
// 0.9 and 0.51 of a unit off (measured -0.04009 and 0.01595, the same to 5 decimals at dt = 1e-3
// and 1e-4 of the contact time).
TEST(LzbFiveBalls, Table5CompliantReference) {
  for (const FiveBallRow& r : kFive) {
    SCOPED_TRACE(::testing::Message() << "(alpha, gamma) = (" << r.alpha << ", " << r.gamma << ")");
    Balls c = five_balls(r);
    test::CompliantSettings cs;
    cs.eta = 1.0;
    cs.dt_fraction = 1e-4;
    ASSERT_TRUE(test::compliant_impact(c, cs).finished);
    EXPECT_NEAR(c.kinetic(), 0.5, 1e-6);
    for (int i = 0; i < 5; ++i) {
      const double tol = (r.alpha == 2 && r.gamma == 2 && i < 2) ? 1e-4 : 5e-5;
      EXPECT_NEAR(c.v[i].x(), r.table5[i], tol) << "ball " << i;
    }
  }
}

// LZB against the compliant limit. Where no contact opens and closes again the two agree to
// 2e-4 ((1, 1): 1e-5; (2, 1): 1.4e-4). Where a contact separates and is struck again (gamma = 2,
// Fig. 4), LZB restarts it as soon as its relative velocity turns to approach (Eq. 2.16), while
// the compliant contact must first close the gap it opened: the paper's Tables 4 and 5 differ
// there for this reason, and so do ours, by the same amounts ((2, 2) B3: 0.351 vs 0.375).
TEST(LzbFiveBalls, AgreesWithCompliantLimitWithoutReentry) {
  for (const FiveBallRow& r : kFive) {
    SCOPED_TRACE(::testing::Message() << "(alpha, gamma) = (" << r.alpha << ", " << r.gamma << ")");
    Balls b = five_balls(r);
    solve_checked(b, lzb(1.0));
    Balls c = five_balls(r);
    test::CompliantSettings cs;
    cs.eta = 1.0;
    cs.dt_fraction = 1e-4;
    ASSERT_TRUE(test::compliant_impact(c, cs).finished);
    double diff = 0.0, paper = 0.0;
    for (int i = 0; i < 5; ++i) {
      diff = std::max(diff, std::abs(b.v[i].x() - c.v[i].x()));
      paper = std::max(paper, std::abs(r.table4[i] - r.table5[i]));
    }
    std::printf("(%g, %g): max |LZB - compliant| = %.2e (paper's Tables 4-5: %.2e)\n", r.alpha,
                r.gamma, diff, paper);
    if (r.gamma == 1) {
      EXPECT_LT(diff, 2e-4);
    } else {
      // Our difference reproduces the paper's to within its Table 4 error (1e-3).
      EXPECT_NEAR(diff, paper, 1e-3);
    }
  }
}

// The same chains on ETM, the engine's reference solver: momentum and (e = 1) energy hold; its
// sequential increments distribute the impulse differently (distance to the compliant limit
// printed, docs/validation.md).
TEST(LzbFiveBalls, EtmOnTheSameChains) {
  for (const FiveBallRow& r : kFive) {
    SCOPED_TRACE(::testing::Message() << "(alpha, gamma) = (" << r.alpha << ", " << r.gamma << ")");
    Balls et = five_balls(r);
    EtmSolver etm(EtmSettings{});
    et.solve(etm);
    EXPECT_NEAR(et.momentum().x(), 1.0, 1e-12);
    EXPECT_NEAR(et.kinetic(), 0.5, 1e-12);
    Balls c = five_balls(r);
    test::CompliantSettings cs;
    cs.eta = 1.0;
    cs.dt_fraction = 1e-4;
    test::compliant_impact(c, cs);
    double d_etm = 0.0;
    for (int i = 0; i < 5; ++i) d_etm = std::max(d_etm, std::abs(et.v[i].x() - c.v[i].x()));
    std::printf("(%g, %g): ETM (%.4f %.4f %.4f %.4f %.4f), max |ETM - compliant| = %.3f\n", r.alpha,
                r.gamma, et.v[0].x(), et.v[1].x(), et.v[2].x(), et.v[3].x(), et.v[4].x(), d_etm);
  }
}

}  // namespace
}  // namespace etdem
