// The energy ledger books each mechanism truthfully (F13): a column named for a dissipation
// (restitution, friction, damping) never decreases, for every solver, with and without the
// resting pass; a grain at rest books nothing, because the gravity kick its support cancels
// every step is the time discretisation's, not a dissipation; and the ledger still closes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

struct Columns {
  double restitution, friction, damping, integration;
  explicit Columns(const EnergyLedger& l)
      : restitution(l.restitution),
        friction(l.friction),
        damping(l.damping),
        integration(l.integration) {}
};

struct LedgerCase {
  const char* solver;
  const char* resting;
};

class LedgerColumns : public ::testing::TestWithParam<LedgerCase> {};

TEST_P(LedgerColumns, DissipationColumnsNeverDecrease) {
  const LedgerCase lc = GetParam();
  const std::string solver = lc.solver;
  // lzb is frictionless; jolt handles spheres only.
  const double mu = solver == "lzb" ? 0.0 : 0.5;
  TestWorld t(0.3, mu, 2400.0);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.dt = 1.0 / 600.0;
  t.world.settings.solver = solver;
  t.world.settings.resting = lc.resting;
  t.add_container(Vec3(0, 0, 0), Vec3(0.04, 0.04, 1.0));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i)
        t.add_sphere(0.005, Vec3(0.008 + 0.012 * i, 0.008 + 0.012 * j, 0.01 + 0.012 * k) +
                                0.001 * Vec3(u(rng), u(rng), u(rng)));
  t.world.initialize();
  const double e0 = t.world.ledger().initial;
  const double tol = 1e-14 * e0;  // round-off of the sums
  double worst[3] = {0.0, 0.0, 0.0};
  // 0.5 s: the fall, the impacts, the settled pile (0.25 s when ETM holds the pile: slow).
  const int steps = std::string(lc.resting) == "pgs" ? 300 : 150;
  for (int step = 0; step < steps; ++step) {
    const Columns before(t.world.ledger());
    t.world.step();
    const Columns after(t.world.ledger());
    worst[0] = std::min(worst[0], after.restitution - before.restitution);
    worst[1] = std::min(worst[1], after.friction - before.friction);
    worst[2] = std::min(worst[2], after.damping - before.damping);
  }
  SCOPED_TRACE(::testing::Message()
               << solver << " / " << lc.resting << ": restitution " << t.world.ledger().restitution
               << " J, friction " << t.world.ledger().friction << " J of " << e0 << " J");
  EXPECT_GE(worst[0], -tol) << "the restitution column decreased";
  EXPECT_GE(worst[1], -tol) << "the friction column decreased";
  EXPECT_GE(worst[2], -tol) << "the damping column decreased";
  EXPECT_GT(t.world.ledger().restitution, 0.01 * e0);  // it did collide
  EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-12 * e0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, LedgerColumns,
                         ::testing::Values(LedgerCase{"etm", "pgs"}, LedgerCase{"etm", "etm"},
                                           LedgerCase{"etm-priority", "pgs"},
                                           LedgerCase{"sqm", "pgs"}, LedgerCase{"sqm", "etm"},
                                           LedgerCase{"smm", "pgs"}, LedgerCase{"smm", "etm"},
                                           LedgerCase{"lzb", "pgs"}, LedgerCase{"jolt", "pgs"},
                                           LedgerCase{"jolt", "etm"}),
                         [](const ::testing::TestParamInfo<LedgerCase>& info) {
                           std::string s =
                               std::string(info.param.solver) + "_" + info.param.resting;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

/// A sphere left at rest on the floor, and a box at rest on a 20 degree incline with mu = 0.6
/// (tan 20 deg = 0.36: it holds): once settled, no step books restitution, friction or
/// integration beyond the solvers' tolerances. Before, each step booked m |g dt|^2 / 2 of
/// restitution (friction on the incline) paid by as much integration.
struct RestCase {
  const char* resting;
  bool incline;
};

class GrainAtRest : public ::testing::TestWithParam<RestCase> {};

TEST_P(GrainAtRest, BooksNoDissipationAndNoIntegration) {
  const RestCase rc = GetParam();
  TestWorld t(0.3, 0.6, 2650.0);
  t.world.settings.dt = 1.0 / 600.0;
  t.world.settings.resting = rc.resting;
  const double angle = rc.incline ? 20.0 * std::acos(-1.0) / 180.0 : 0.0;
  // The incline is the floor turned about y; gravity turned the other way is the same thing.
  t.world.settings.gravity = 9.81 * Vec3(std::sin(angle), 0.0, -std::cos(angle));
  t.add_floor();
  const double r = 0.01;
  const int body =
      rc.incline ? t.add_box(Vec3::Constant(r), Vec3(0, 0, r)) : t.add_sphere(r, Vec3(0, 0, r));
  t.world.initialize();
  t.steps(60);
  const Columns before(t.world.ledger());
  t.steps(60);
  const Columns after(t.world.ledger());
  const double m = t.world.bodies.mass[body];
  const double g_dt = 9.81 * t.world.settings.dt;
  const double kick = 0.5 * m * g_dt * g_dt;  // what each step booked before [J]
  SCOPED_TRACE(::testing::Message()
               << rc.resting << (rc.incline ? " incline" : " floor") << ": per step restitution "
               << (after.restitution - before.restitution) / 60 << ", friction "
               << (after.friction - before.friction) / 60 << ", integration "
               << (after.integration - before.integration) / 60 << " J; the kick " << kick << " J");
  EXPECT_LT(t.world.bodies.velocity[body].norm(), 1e-4);  // it rests
  // The resting pass holds the grain still. ETM as the resting treatment leaves it jittering at
  // its velocity tolerance, and on the incline a corner lifts by that jitter about every 20 steps,
  // so that step is an impact again (measured: 3.1 kicks of restitution in the 60 steps, where
  // 60 were booked before).
  const double bound = std::string(rc.resting) == "etm" && rc.incline ? 0.1 : 1e-3;
  EXPECT_LT(std::abs(after.restitution - before.restitution), bound * 60 * kick);
  EXPECT_LT(std::abs(after.friction - before.friction), bound * 60 * kick);
  EXPECT_LT(std::abs(after.integration - before.integration), bound * 60 * kick);
}

INSTANTIATE_TEST_SUITE_P(Resting, GrainAtRest,
                         ::testing::Values(RestCase{"pgs", false}, RestCase{"pgs", true},
                                           RestCase{"etm", false}, RestCase{"etm", true}),
                         [](const ::testing::TestParamInfo<RestCase>& info) {
                           return std::string(info.param.resting) +
                                  (info.param.incline ? "_incline" : "_floor");
                         });

}  // namespace
}  // namespace etdem::test
