// The velocity-jolt method (sphere-impulse appendix B): single contacts (the clipped tangential
// jolt, Newton's loss, angular velocities untouched), the clipped friction jolt against analytic
// outcomes, a single pass over a reversed cradle, termination by tolerance and by the sweep
// bound, the position projection of B.18, the shape check, and scenarios. What every solver
// does (momentum, energy, the cradle's outcome and sweeps, random clusters) is asserted for jolt
// in tests/solvers/test_solver_registry.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "etdem/io/scenario.hpp"
#include "etdem/solvers/jolt.hpp"
#include "etdem/world/world.hpp"
#include "solver_checks.hpp"
#include "test_world_fixture.hpp"

namespace etdem {
namespace {

using test::Before;
using test::cradle;
using test::Island;
using test::normal_velocity;
using test::record;
using test::RestitutionFriction;
using test::SingleContact;
using test::wedged;

SolverStats solve(Island& is, std::vector<Contact>& cs, const JoltSettings& settings = {}) {
  JoltSolver solver(settings);
  solver.prepare(1);
  IslandBodies view = is.view();
  return solver.resolve(cs, view, 0);
}

/// Relative velocity of the centres of a contact's bodies (the particle velocity v_ab).
Vec3 centre_velocity(const Island& is, const Contact& c) {
  return (c.a >= 0 ? is.v[c.a] : Vec3::Zero()) - (c.b >= 0 ? is.v[c.b] : Vec3::Zero());
}

/// test::expect_conservation (no energy created, a closed ledger, nothing truncated, linear
/// momentum conserved when every body is dynamic; not the angular momentum: the jolts act on the
/// centres), no column of the ledger negative, and angular velocities untouched.
void expect_conservation(const Island& is, const Before& b, const SolverStats& st,
                         bool all_dynamic) {
  test::expect_conservation(is, b, st, {.momentum = all_dynamic});
  EXPECT_GE(st.dissipated_restitution, 0.0);
  EXPECT_GE(st.dissipated_friction, 0.0);
  for (std::size_t i = 0; i < is.w.size(); ++i) {
    EXPECT_EQ(is.w[i], b.w[i]) << "spin of body " << i;
  }
}

/// One contact: u_n -> -e u_n; the relative tangential velocity of the centres shrinks by
/// min(mu (1 + e) |u_n|, |v_t|) without turning; Newton's loss 1/2 m_ab (1 - e^2) u_n^2.
void expect_single_jolt(Island& is, std::vector<Contact>& cs, bool all_dynamic) {
  ASSERT_EQ(cs.size(), 1u);
  const Contact& c = cs[0];
  const Before b = record(is, cs);
  ASSERT_LT(b.un[0], 0.0);
  const Vec3 v0 = centre_velocity(is, c);
  const Vec3 vt0 = v0 - c.normal.dot(v0) * c.normal;
  const SolverStats st = solve(is, cs);
  IslandBodies view = is.view();
  const double e = c.restitution;
  EXPECT_NEAR(normal_velocity(c, view), -e * b.un[0], 1e-12 * std::abs(b.un[0]));
  const Vec3 v1 = centre_velocity(is, c);
  const Vec3 vt1 = v1 - c.normal.dot(v1) * c.normal;
  const double s = std::min(c.friction * (1 + e) * std::abs(b.un[0]), vt0.norm());
  const Vec3 expected_vt = vt0.norm() > 0 ? Vec3(vt0 * (1 - s / vt0.norm())) : Vec3::Zero();
  EXPECT_LE((vt1 - expected_vt).norm(), 1e-12 * v0.norm());
  const double ia = c.a >= 0 ? is.inv_m[c.a] : 0.0, ib = c.b >= 0 ? is.inv_m[c.b] : 0.0;
  const double m_ab = 1.0 / (ia + ib);
  EXPECT_NEAR(st.dissipated_restitution, 0.5 * m_ab * (1 - e * e) * b.un[0] * b.un[0],
              1e-12 * b.energy);
  EXPECT_EQ(st.iterations, 1);
  EXPECT_EQ(st.rounds, 1);
  EXPECT_EQ(st.guards_fired, 0);
  EXPECT_EQ(st.approaching_left, 0);
  expect_conservation(is, b, st, all_dynamic);
}

class JoltSingle : public ::testing::TestWithParam<RestitutionFriction> {};

TEST_P(JoltSingle, TwoSpheresHeadOn) {
  const auto [e, mu] = GetParam();
  std::vector<Contact> cs;
  Island is = test::single_contact(SingleContact::HeadOn, e, mu, cs);
  expect_single_jolt(is, cs, true);
  // B.9 with B.6 per body: v_a changes by (1 + e) m_b / (m_a + m_b) * 3 m/s.
  const double red_a = is.m[1] / (is.m[0] + is.m[1]);
  EXPECT_NEAR(is.v[0].z(), -2 + (1 + e) * red_a * 3, 1e-12);
}

TEST_P(JoltSingle, TwoSpheresOffCentreWithSpin) {
  const auto [e, mu] = GetParam();
  std::vector<Contact> cs;
  Island is = test::single_contact(SingleContact::OffCentre, e, mu, cs);
  expect_single_jolt(is, cs, true);
}

TEST_P(JoltSingle, SphereOnPlane) {
  const auto [e, mu] = GetParam();
  std::vector<Contact> cs;
  Island is = test::single_contact(SingleContact::OnPlane, e, mu, cs);
  expect_single_jolt(is, cs, false);
}

INSTANTIATE_TEST_SUITE_P(RestitutionAndFriction, JoltSingle,
                         ::testing::ValuesIn(test::kRestitutionFriction), [](const auto& info) {
                           return test::restitution_friction_name(info.param);
                         });

// A sphere hits a plane at (vx, 0, -vz). Particle model: the friction jolt mu (1 + e) vz acts on
// the centre against vx and is clipped at vx (c.4): the sphere stops sliding exactly when
// mu (1 + e) vz >= vx, and keeps vx - mu (1 + e) vz otherwise. It never starts to spin.
TEST(JoltFriction, ClippingStopsTheSlipExactlyForLargeMu) {
  const double r = 0.1, vx = 1.0, vz = 2.0, e = 0.5, mu = 1.0;
  ASSERT_GE(mu * (1 + e) * vz, vx);
  Island is;
  is.add_sphere(r, 1000, Vec3(0, 0, r), Vec3(vx, 0, -vz));
  std::vector<Contact> cs{test::plane_contact(is, 0, r, Vec3::UnitZ(), e, mu)};
  const Before b = record(is, cs);
  const SolverStats st = solve(is, cs);
  EXPECT_EQ(is.v[0].x(), 0.0);  // vx - min(3, 1) * 1
  EXPECT_EQ(is.v[0].y(), 0.0);
  EXPECT_NEAR(is.v[0].z(), e * vz, 1e-15);
  EXPECT_EQ(is.w[0], Vec3::Zero());
  const double m = is.m[0];
  EXPECT_NEAR(st.dissipated_friction, 0.5 * m * vx * vx, 1e-12 * b.energy);
  EXPECT_NEAR(st.dissipated_restitution, 0.5 * m * vz * vz * (1 - e * e), 1e-12 * b.energy);
  expect_conservation(is, b, st, false);
}

TEST(JoltFriction, SlidingKeepsTheUnclippedFrictionJolt) {
  const double r = 0.1, vx = 3.0, vz = 1.0, e = 0.5, mu = 0.1;
  ASSERT_LT(mu * (1 + e) * vz, vx);
  Island is;
  is.add_sphere(r, 1000, Vec3(0, 0, r), Vec3(vx, 0, -vz));
  std::vector<Contact> cs{test::plane_contact(is, 0, r, Vec3::UnitZ(), e, mu)};
  const Before b = record(is, cs);
  const SolverStats st = solve(is, cs);
  const double vx1 = vx - mu * (1 + e) * vz;
  EXPECT_NEAR(is.v[0].x(), vx1, 1e-15);
  EXPECT_NEAR(is.v[0].z(), e * vz, 1e-15);
  const double m = is.m[0];
  EXPECT_NEAR(st.dissipated_friction, 0.5 * m * (vx * vx - vx1 * vx1), 1e-12 * b.energy);
  expect_conservation(is, b, st, false);
}

TEST(JoltFriction, TwoUnequalSpheresStopSlippingAndShareTheJoltByReducedMass) {
  // Large mu: the pair's relative tangential velocity is stopped, not reversed; each body takes
  // its m_red share of the relative jolt (B.6), so momentum is conserved.
  const double e = 0.3, mu = 5.0;
  Island is;
  const Vec3 n = Vec3(0.2, 0.1, 1.0).normalized();
  is.add_sphere(0.1, 1000, 0.25 * n, Vec3(2.0, -1.0, -1.0));
  is.add_sphere(0.15, 4000, Vec3::Zero(), Vec3(-0.5, 0.3, 0.5));
  std::vector<Contact> cs{test::sphere_contact(is, 0, 0.1, 1, 0.15, e, mu)};
  const Vec3 va0 = is.v[0], vb0 = is.v[1];
  const Vec3 vab = va0 - vb0;
  const double vn = n.dot(vab);
  ASSERT_LT(vn, 0.0);
  const Vec3 vt = vab - vn * n;
  ASSERT_GT(mu * (1 + e) * -vn, vt.norm());  // the clip is active
  const Before b = record(is, cs);
  const SolverStats st = solve(is, cs);
  const double red_a = is.m[1] / (is.m[0] + is.m[1]), red_b = is.m[0] / (is.m[0] + is.m[1]);
  const Vec3 jolt = -(1 + e) * vn * n - vt;  // relative jolt: normal B.9, tangential clipped
  EXPECT_LE((is.v[0] - (va0 + red_a * jolt)).norm(), 1e-12);
  EXPECT_LE((is.v[1] - (vb0 - red_b * jolt)).norm(), 1e-12);
  const Vec3 v1 = is.v[0] - is.v[1];
  EXPECT_LE((v1 - n.dot(v1) * n).norm(), 1e-12 * vab.norm());
  EXPECT_NEAR(n.dot(v1), -e * vn, 1e-12);
  const double m_ab = 1.0 / (is.inv_m[0] + is.inv_m[1]);
  EXPECT_NEAR(st.dissipated_friction, 0.5 * m_ab * vt.squaredNorm(), 1e-12 * b.energy);
  expect_conservation(is, b, st, true);
}

// Equal masses and e = 1: m_red = 1/2 and the jolt of contact (k, k+1) approaching at -v is
// exactly -v for ball k and +v for ball k+1. Listed from the moving ball on, one sweep passes the
// velocity down the row; listed the other way round, each sweep moves it one ball, n - 1 sweeps
// (asserted with every solver's cradle in test_solver_registry.cpp). A single pass in the
// reversed order (max_sweeps = 1, the appendix's pairwise rule applied once) stops after the
// first pair and leaves one approaching.
class JoltCradle : public ::testing::TestWithParam<int> {};

TEST_P(JoltCradle, ASinglePassInReversedOrderStopsAtTheFirstPair) {
  const int n = GetParam();
  const double v = 1.5;
  std::vector<Contact> cs;
  Island is = cradle(n, v, cs);
  std::reverse(cs.begin(), cs.end());
  const Before b = record(is, cs);
  JoltSettings s;
  s.max_sweeps = 1;
  const SolverStats st = solve(is, cs, s);
  for (int k = 0; k < n; ++k) EXPECT_EQ(is.v[k], Vec3(k == 1 ? v : 0, 0, 0)) << "ball " << k;
  EXPECT_EQ(st.iterations, 1);
  EXPECT_EQ(st.rounds, 1);
  EXPECT_EQ(st.guards_fired, 1);
  EXPECT_EQ(st.approaching_left, 1);
  expect_conservation(is, b, st, true);
}

INSTANTIATE_TEST_SUITE_P(Balls, JoltCradle, ::testing::Values(3, 5));

TEST(JoltTermination, SweepBoundFiresForABallWedgedBetweenWallsWithEOne) {
  // Sweep 1 reverses the ball at the right wall; every later sweep reverses it at both walls:
  // 1 + 2 (5 - 1) = 9 jolts in 5 sweeps, ending towards the left wall.
  std::vector<Contact> cs;
  Island is = wedged(1.0, cs);
  const Before b = record(is, cs);
  JoltSettings s;
  s.max_sweeps = 5;
  const SolverStats st = solve(is, cs, s);
  EXPECT_EQ(st.iterations, 9);
  EXPECT_EQ(st.rounds, 5);
  EXPECT_EQ(st.guards_fired, 1);
  EXPECT_EQ(st.approaching_left, 1);
  EXPECT_EQ(is.v[0], Vec3(-1, 0, 0));
  expect_conservation(is, b, st, false);
}

TEST(JoltTermination, ToleranceEndsAGeometricallyDecayingSequence) {
  // e = 1/2: the speed after k jolts is 2^-k, below tol = 1e-4 x 1 m/s from k = 14 on. The
  // 14 jolts take 8 sweeps (1 in the first, 2 in each of the next six, 1 in the eighth).
  std::vector<Contact> cs;
  Island is = wedged(0.5, cs);
  const Before b = record(is, cs);
  const SolverStats st = solve(is, cs);
  EXPECT_EQ(st.iterations, 14);
  EXPECT_EQ(st.rounds, 8);
  EXPECT_EQ(st.guards_fired, 0);
  EXPECT_EQ(st.approaching_left, 0);
  EXPECT_EQ(std::abs(is.v[0].x()), std::ldexp(1.0, -14));  // halving is exact
  expect_conservation(is, b, st, false);
}

// B.18: a penetrating contact moves body a by k_p m_red_a dx along n (and b by k_p m_red_b dx
// the other way); the engine's position projection (WorldSettings::projection) does this after
// the solvers. Two resting spheres 1 mm into each other, unequal masses, no gravity: one step
// moves each by its share and keeps the centre of mass.
TEST(JoltWorld, PositionProjectionSplitsTheOverlapByReducedMass) {
  test::TestWorld t(0.5, 0.3);
  t.world.settings.solver = "jolt";
  t.world.settings.resting = "etm";  // every contact to the solver (nothing approaches here)
  t.world.settings.projection = 0.3;
  const double ra = 0.1, rb = 0.05, depth = 1e-3;
  const int a = t.add_sphere(ra, Vec3(0, 0, 0));
  const int b = t.add_sphere(rb, Vec3(ra + rb - depth, 0, 0));
  t.world.initialize();
  const Bodies& bodies = t.world.bodies;
  const double ma = bodies.mass[a], mb = bodies.mass[b];
  const Vec3 com0 = (ma * bodies.position[a] + mb * bodies.position[b]) / (ma + mb);
  t.steps(1);
  EXPECT_NEAR(bodies.position[a].x(), -0.3 * depth * mb / (ma + mb), 1e-15);
  EXPECT_NEAR(bodies.position[b].x(), ra + rb - depth + 0.3 * depth * ma / (ma + mb), 1e-15);
  const Vec3 com1 = (ma * bodies.position[a] + mb * bodies.position[b]) / (ma + mb);
  EXPECT_LE((com1 - com0).norm(), 1e-15);
  EXPECT_EQ(bodies.velocity[a], Vec3::Zero());
  // Against a plane m_red = 1: the sphere moves out by k_p dx.
  test::TestWorld p(0.5, 0.3);
  p.world.settings.solver = "jolt";
  p.world.settings.resting = "etm";
  p.add_floor();
  const int s = p.add_sphere(0.1, Vec3(0, 0, 0.1 - depth));
  p.steps(1);
  EXPECT_NEAR(p.world.bodies.position[s].z(), 0.1 - depth + 0.3 * depth, 1e-15);
}

// A body with several penetrating contacts takes the mean of their corrections weighted by the
// square of their depths (docs/design.md, "Position projection"): a sphere 1 mm into
// the floor and 0.1 mm into a side wall moves by (1^2 k_p 1 mm up + 0.1^2 k_p 0.1 mm sideways) /
// (1^2 + 0.1^2); a plain mean would have halved the floor's correction. Equal depths in two
// walls give the plain mean: k_p d along each normal, halved.
TEST(JoltWorld, PositionProjectionWeightsABodysCorrectionsByTheirSquaredDepths) {
  const double r = 0.1, kp = 0.3;
  auto moved = [&](double floor_depth, double wall_depth) {
    test::TestWorld t(0.5, 0.3);
    t.world.settings.resting = "etm";  // nothing approaches: only the projection moves it
    t.world.settings.projection = kp;
    t.add_floor();
    t.add_plane(Vec3(0, 0, 0), Vec3(1, 0, 0));
    const Vec3 x0(r - wall_depth, 0, r - floor_depth);
    const int s = t.add_sphere(r, x0);
    t.steps(1);
    EXPECT_EQ(t.world.bodies.velocity[s], Vec3::Zero());
    return Vec3(t.world.bodies.position[s] - x0);
  };
  const double deep = 1e-3, shallow = 1e-4;
  const double w = deep * deep + shallow * shallow;
  const Vec3 dx = moved(deep, shallow);
  EXPECT_NEAR(dx.z(), deep * deep * kp * deep / w, 1e-15);
  EXPECT_NEAR(dx.x(), shallow * shallow * kp * shallow / w, 1e-15);
  EXPECT_GT(dx.z(), 0.99 * kp * deep) << "the deep contact is not diluted by the shallow one";
  const Vec3 even = moved(deep, deep);
  EXPECT_NEAR(even.z(), 0.5 * kp * deep, 1e-15);
  EXPECT_NEAR(even.x(), 0.5 * kp * deep, 1e-15);
}

TEST(JoltWorld, InitializeRejectsOtherShapesNamingTheShape) {
  test::TestWorld t;
  t.world.settings.solver = "jolt";
  t.add_floor();
  t.add_sphere(0.1, Vec3(0, 0, 0.5));
  t.add_box(Vec3(0.1, 0.1, 0.1), Vec3(1, 0, 0.5));
  try {
    t.world.initialize();
    FAIL() << "a box with the jolt solver must be rejected";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("jolt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'box'"), std::string::npos) << msg;  // the shape's name
    EXPECT_NE(msg.find("type box"), std::string::npos) << msg;
  }
  test::TestWorld ok;
  ok.world.settings.solver = "jolt";
  ok.add_floor();
  ok.add_sphere(0.1, Vec3(0, 0, 0.5));
  EXPECT_NO_THROW(ok.world.initialize());
}

const char* kJoltScenario = R"(
[simulation]
dt = 0.001
duration = 0.05
gravity = [0.0, 0.0, -9.81]
solver = "jolt"
[simulation.jolt]
max_sweeps = 50
velocity_tolerance = 1e-5

[[material]]
name = "glass"
density = 2500.0
restitution = 0.5
friction = 0.4

[[shape]]
name = "grain"
type = "sphere"
radius = 0.01

[[body]]
shape = "grain"
material = "glass"
position = [0.13, 0.05, 0.0105]
velocity = [0.3, 0.0, -1.0]

[[fill]]
shape = "grain"
material = "glass"
count = 30
region = { min = [0.0, 0.0, 0.0], max = [0.1, 0.1, 0.1] }
velocity = [0.0, 0.0, -0.5]
seed = 2

[[wall]]
type = "box"
min = [-0.05, -0.05, 0.0]
max = [0.15, 0.15, 0.3]
material = "glass"
)";

TEST(JoltScenario, LoadsAndRuns) {
  const Scenario sc = parse_scenario(kJoltScenario, "jolt.toml");
  EXPECT_EQ(sc.settings.solver, "jolt");
  EXPECT_EQ(sc.settings.solver_settings<JoltSettings>().max_sweeps, 50);
  EXPECT_DOUBLE_EQ(sc.settings.solver_settings<JoltSettings>().velocity_tolerance, 1e-5);
  World world;
  test::run_scenario(sc, world);
  const RunTotals& t = world.totals();
  EXPECT_EQ(t.solver.approaching_left, 0);
  EXPECT_GT(t.solver.dissipated_restitution, 0.0);
  const EnergyLedger& l = world.ledger();
  std::printf(
      "jolt scenario: %ld steps, %ld collisions, %ld jolts, %ld sweeps, %ld guards, "
      "restitution %.3g J, friction %.3g J, residual %.3g J of %.3g J\n",
      t.steps, t.collisions, t.solver.iterations, t.solver.rounds, t.solver.guards_fired,
      l.restitution, l.friction, l.residual(), l.initial);
}

TEST(JoltScenario, BoxesAreAScenarioErrorNamingFileKeyAndShape) {
  // A box shape used by the explicit body.
  std::string text = kJoltScenario;
  const std::string body = "[[body]]\nshape = \"grain\"";
  const auto at = text.find(body);
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) +
         "[[shape]]\nname = \"cube\"\ntype = \"box\"\nhalf_extents = [0.01, 0.01, 0.01]\n\n"
         "[[body]]\nshape = \"cube\"" +
         text.substr(at + body.size());
  try {
    (void)parse_scenario(text, "jolt_box.toml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("jolt_box.toml:", 0), 0u) << msg;
    EXPECT_NE(msg.find("simulation.solver"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(value \"jolt\")"), std::string::npos) << msg;
    EXPECT_NE(msg.find("body[0]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'cube'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("type box"), std::string::npos) << msg;
  }
  // The same boxes with another solver are fine.
  const auto solver = text.find("solver = \"jolt\"");
  text = text.substr(0, solver) + "solver = \"sqm\"" + text.substr(solver + 15);
  EXPECT_NO_THROW((void)parse_scenario(text, "jolt_box.toml"));
}

TEST(JoltScenario, BadSettingsAreScenarioErrors) {
  for (const auto& [find, replace, key] :
       {std::tuple<std::string, std::string, std::string>{"max_sweeps = 50", "max_sweeps = 0",
                                                          "simulation.jolt.max_sweeps"},
        {"velocity_tolerance = 1e-5", "velocity_tolerance = -1e-5",
         "simulation.jolt.velocity_tolerance"},
        {"max_sweeps = 50", "max_sweep = 50", "simulation.jolt.max_sweep"}}) {
    test::expect_scenario_error(test::replaced(kJoltScenario, find, replace), "bad_jolt.toml",
                                {key});
  }
}

}  // namespace
}  // namespace etdem
