// Properties of the LZB solver on 3-D rigid bodies: a single contact is resolved exactly for any
// step count (u_n -> -e u_n, loss (1 - e^2) W_c) with rotation; momentum (linear and angular) to
// 1e-12; energy never created and, with e = 1, kept to round-off; the ledger closes; results do
// not depend on the order of the contacts, on which body is A, or on the frame (Galilean);
// rotational coupling through the Delassus matrix agrees with the compliant reference; the step
// guard fires, is counted and leaves a closed ledger; the solver runs from scenario files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "chains.hpp"
#include "compliant_reference.hpp"
#include "etdem/io/scenario.hpp"
#include "etdem/io/scenario_error.hpp"
#include "etdem/solvers/lzb.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

using test::Balls;
using Model = LzbSettings::Model;

LzbSettings lzb(double eta, Model model, int steps) {
  LzbSettings s;
  s.eta = eta;
  s.model = model;
  s.steps = steps;
  return s;
}

/// Angular momentum about the origin: sum of I w + x x m v.
Vec3 angular_momentum(const Balls& b) {
  Vec3 l = Vec3::Zero();
  for (int i = 0; i < b.count(); ++i)
    l += b.inv_inertia[i].inverse() * b.w[i] + b.x[i].cross(b.mass[i] * b.v[i]);
  return l;
}

/// Replaces body i's inertia by that of a box of half extents h (world-aligned).
void make_box(Balls& b, int i, const Vec3& h) {
  const double m = b.mass[i];
  const Vec3 inertia(m / 3 * (h.y() * h.y() + h.z() * h.z()),
                     m / 3 * (h.x() * h.x() + h.z() * h.z()),
                     m / 3 * (h.x() * h.x() + h.y() * h.y()));
  b.inv_inertia[i] = inertia.cwiseInverse().asDiagonal();
}

/// A plain contact at `point` between bodies a (or -1) and b (or -1), normal from b to a.
Contact contact(const Balls& bs, int a, int b, const Vec3& point, const Vec3& normal, double e) {
  Contact c;
  c.a = a;
  c.b = b;
  c.point = point;
  c.normal = normal.normalized();
  if (a >= 0) c.ra = point - bs.x[a];
  if (b >= 0) c.rb = point - bs.x[b];
  c.restitution = e;
  return c;
}

// A box corner struck off-centre by a spinning ball: one contact with lever arms on both sides.
// For every e, both models, eta and step count (even N = 1): u_n after = -e u_n before, the
// energy lost is (1 - e^2) of the compression work u_n^2 / (2 n.K n), and linear and angular
// momentum are kept.
TEST(LzbProperties, SingleContactIsExactForAnyStepCount) {
  for (double e : {0.0, 0.3, 0.7, 1.0})
    for (Model model : {Model::Mono, Model::Bi})
      for (double eta : {1.0, 1.5})
        for (int n : {1, 7, 1000}) {
          SCOPED_TRACE(::testing::Message() << "e " << e << " bi " << (model == Model::Bi)
                                            << " eta " << eta << " N " << n);
          Balls b;
          b.add_ball(2.0, 0.5, Vec3(0, 0, 0), Vec3(0.3, -0.2, 0.1));
          make_box(b, 0, Vec3(0.5, 0.3, 0.2));
          b.add_ball(0.7, 0.2, Vec3(0.62, 0.5, 0.4), Vec3(-1.5, -0.4, 0.2));
          b.w[0] = Vec3(0.5, -1.0, 2.0);
          b.w[1] = Vec3(-3.0, 1.0, 0.5);
          const Vec3 point(0.5, 0.3, 0.2);  // the box's corner
          b.contacts.push_back(contact(b, 1, 0, point, Vec3(0.8, 0.36, 0.48), e));
          const double un0 = b.normal_velocity(0);
          ASSERT_LT(un0, 0.0);
          const Mat3 k = impulse::collision_matrix(b.contacts[0], b.view());
          const double d = b.contacts[0].normal.dot(k * b.contacts[0].normal);
          const double k0 = b.kinetic();
          const Vec3 p0 = b.momentum(), l0 = angular_momentum(b);
          LzbSolver solver(lzb(eta, model, n));
          const SolverStats st = b.solve(solver);
          EXPECT_NEAR(b.normal_velocity(0), -e * un0, 1e-12 * std::abs(un0));
          const double wc = 0.5 * un0 * un0 / d;
          EXPECT_NEAR(k0 - b.kinetic(), (1.0 - e * e) * wc, 1e-12 * k0);
          EXPECT_NEAR(st.dissipated_restitution, (1.0 - e * e) * wc, 1e-12 * k0);
          EXPECT_NEAR(k0 - b.kinetic(), st.dissipated_restitution + st.truncated, 1e-13 * k0);
          EXPECT_LE((b.momentum() - p0).norm(), 1e-12 * p0.norm());
          EXPECT_LE((angular_momentum(b) - l0).norm(), 1e-12 * l0.norm());
          EXPECT_EQ(st.guards_fired, 0);
        }
}

// A ball driven into the corner of two static walls: the two contacts do not couple (orthogonal
// normals, D_12 = 0), so each velocity component reverses on its own, v -> -e v, whatever the
// stiffness ratio.
TEST(LzbProperties, BallIntoACornerOfTwoWalls) {
  for (double e : {1.0, 0.5}) {
    for (double ratio : {1.0, 4.0}) {
      Balls b;
      b.add_ball(1.0, 0.1, Vec3(0.1, 0.1, 0.0), Vec3(-2.0, -0.5, 0.0));
      b.contacts.push_back(contact(b, 0, -1, Vec3(0.0, 0.1, 0.0), Vec3::UnitX(), e));
      b.contacts.push_back(contact(b, 0, -1, Vec3(0.1, 0.0, 0.0), Vec3::UnitY(), e));
      b.contacts[1].stiffness = ratio;
      LzbSolver solver(lzb(1.5, Model::Mono, 1000));
      const SolverStats st = b.solve(solver);
      EXPECT_NEAR(b.v[0].x(), 2.0 * e, 1e-12);
      EXPECT_NEAR(b.v[0].y(), 0.5 * e, 1e-12);
      EXPECT_EQ(st.guards_fired, 0);
    }
  }
}

/// A random tree of touching spheres in 3-D: each new ball touches one earlier ball in a random
/// direction; random masses, radii, velocities, restitutions and stiffnesses.
Balls random_cluster(std::mt19937_64& rng, int n, bool elastic) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.2, 1.0);
  Balls b;
  b.add_ball(pos(rng), 0.05 + 0.05 * pos(rng), Vec3::Zero(), Vec3(u(rng), u(rng), u(rng)));
  for (int i = 1; i < n; ++i) {
    const int parent = static_cast<int>(rng() % static_cast<unsigned>(i));
    const Vec3 dir = Vec3(u(rng), u(rng), u(rng)).normalized();
    const double r = 0.05 + 0.05 * pos(rng);
    b.add_ball(pos(rng), r, b.x[parent] + (b.radius[parent] + r) * dir,
               Vec3(u(rng), u(rng), u(rng)));
    b.touch(i, parent, elastic ? 1.0 : pos(rng), pos(rng));
  }
  return b;
}

// Random 3-D clusters: momentum to 1e-12, the ledger to 1e-10, energy never created (e = 1: kept
// to 1e-11), no contact left approaching, no guard.
TEST(LzbProperties, RandomClustersConserveMomentumAndNeverCreateEnergy) {
  std::mt19937_64 rng(7);
  long steps = 0, contacts = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const bool elastic = trial % 2 == 0;
    const Model model = trial % 4 < 2 ? Model::Mono : Model::Bi;
    const double eta = trial % 3 == 0 ? 1.0 : 1.5;
    Balls b = random_cluster(rng, 3 + trial % 8, elastic);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    const double k0 = b.kinetic();
    const Vec3 p0 = b.momentum(), l0 = angular_momentum(b);
    LzbSolver solver(lzb(eta, model, 2000));
    const SolverStats st = b.solve(solver);
    EXPECT_LE((b.momentum() - p0).norm(), 1e-12 * p0.norm());
    EXPECT_LE((angular_momentum(b) - l0).norm(), 1e-12 * std::max(l0.norm(), p0.norm()));
    EXPECT_NEAR(k0 - b.kinetic(), st.dissipated_restitution + st.truncated, 1e-10 * k0);
    EXPECT_LE(b.kinetic(), k0 * (1.0 + 1e-12));
    if (elastic) {
      EXPECT_NEAR(b.kinetic(), k0, 1e-11 * k0);
    }
    EXPECT_GE(st.dissipated_restitution, 0.0);
    EXPECT_EQ(st.guards_fired, 0);
    EXPECT_EQ(st.approaching_left, 0);
    for (int k = 0; k < static_cast<int>(b.contacts.size()); ++k)
      EXPECT_GE(b.normal_velocity(k), -1e-9 * std::sqrt(k0)) << "contact " << k;
    steps += st.rounds;
    contacts += static_cast<long>(b.contacts.size());
  }
  std::printf("%ld contacts, %ld impulse steps\n", contacts, steps);
  EXPECT_GT(steps, 40 * 1000);  // the clusters do collide
}

// The same clusters with the contact span shuffled, some contacts turned round (A and B swapped,
// normal negated) and every velocity shifted by one constant velocity: the outcome is the same
// to round-off (1e-9), shifted back. The primary contact is chosen by energy, ties by index, so
// only exact ties could depend on the order, and equal energies distribute equally (ratio 1).
TEST(LzbProperties, IndependentOfContactOrderOrientationAndFrame) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    Balls b = random_cluster(rng, 4 + trial % 6, trial % 2 == 0);
    Balls c = b;
    std::shuffle(c.contacts.begin(), c.contacts.end(), rng);
    for (std::size_t k = 0; k < c.contacts.size(); k += 2) {
      Contact& ct = c.contacts[k];
      std::swap(ct.a, ct.b);
      std::swap(ct.ra, ct.rb);
      ct.normal = -ct.normal;
    }
    const Vec3 shift(3.0, -1.0, 0.5);
    for (Vec3& v : c.v) v += shift;
    const LzbSettings s = lzb(1.5, trial % 4 < 2 ? Model::Mono : Model::Bi, 1000);
    LzbSolver s1(s), s2(s);
    b.solve(s1);
    c.solve(s2);
    for (int i = 0; i < b.count(); ++i) {
      EXPECT_LE((b.v[i] - (c.v[i] - shift)).norm(), 1e-9) << "trial " << trial << " ball " << i;
      EXPECT_LE((b.w[i] - c.w[i]).norm(), 1e-9) << "trial " << trial << " ball " << i;
    }
  }
}

// Rotational coupling: a box (anisotropic inertia) struck at three off-centre points on two faces
// at once. The Delassus matrix couples the contacts through the box's rotation; the compliant
// reference integrates the same contact laws in time with full rigid-body dynamics. They agree
// to 1e-3 (measured: below 1e-4) for e = 1 and for e < 1 in both models.
TEST(LzbProperties, RotationalCouplingAgreesWithCompliantReference) {
  for (double e : {1.0, 0.6}) {
    for (Model model : {Model::Mono, Model::Bi}) {
      Balls b;
      b.add_ball(2.0, 0.5, Vec3::Zero());
      make_box(b, 0, Vec3(0.5, 0.3, 0.2));
      b.add_ball(0.5, 0.1, Vec3(0.6, 0.2, 0.1), Vec3(-1.0, 0.0, 0.0));
      b.add_ball(0.3, 0.1, Vec3(0.6, -0.25, -0.15), Vec3(-0.7, 0.1, 0.0));
      b.add_ball(0.4, 0.1, Vec3(0.1, 0.4, 0.05), Vec3(0.0, -0.5, 0.0));
      b.contacts.push_back(contact(b, 1, 0, Vec3(0.5, 0.2, 0.1), Vec3::UnitX(), e));
      b.contacts.push_back(contact(b, 2, 0, Vec3(0.5, -0.25, -0.15), Vec3::UnitX(), e));
      b.contacts.push_back(contact(b, 3, 0, Vec3(0.1, 0.3, 0.05), Vec3::UnitY(), e));
      Balls c = b;
      const Vec3 p0 = b.momentum(), l0 = angular_momentum(b);
      LzbSolver solver(lzb(1.5, model, 20000));
      const SolverStats st = b.solve(solver);
      EXPECT_EQ(st.guards_fired, 0);
      EXPECT_LE((b.momentum() - p0).norm(), 1e-12 * p0.norm());
      EXPECT_LE((angular_momentum(b) - l0).norm(), 1e-12 * l0.norm());
      EXPECT_GT(b.w[0].norm(), 0.1);  // the box spins
      test::CompliantSettings cs;
      cs.eta = 1.5;
      cs.bi = model == Model::Bi;
      cs.dt_fraction = 1e-4;
      ASSERT_TRUE(test::compliant_impact(c, cs).finished);
      double diff = 0.0;
      for (int i = 0; i < b.count(); ++i)
        diff = std::max({diff, (b.v[i] - c.v[i]).norm(), (b.w[i] - c.w[i]).norm() * 0.5});
      std::printf("e %.1f %s: max |LZB - compliant| = %.2e (box w = %.4f %.4f %.4f)\n", e,
                  model == Model::Bi ? "bi" : "mono", diff, b.w[0].x(), b.w[0].y(), b.w[0].z());
      EXPECT_LT(diff, 1e-3);
    }
  }
}

// The step guard: a chain given far too few steps stops, counts the guard, books the energy
// still stored as truncation (the ledger closes) and leaves finite velocities.
TEST(LzbProperties, StepGuardIsCountedAndTheLedgerStillCloses) {
  Balls b = test::chain({1.0, 1.0, 1.0, 1.0}, {1.0}, {0.8}, {1.0});
  LzbSettings s = lzb(1.5, Model::Mono, 1000);
  s.max_steps = 50;
  const double k0 = b.kinetic();
  LzbSolver solver(s);
  const SolverStats st = b.solve(solver);
  EXPECT_EQ(st.guards_fired, 1);
  EXPECT_EQ(st.rounds, 50);
  EXPECT_GT(st.truncated, 0.0);
  EXPECT_NEAR(k0 - b.kinetic(), st.dissipated_restitution + st.truncated, 1e-12 * k0);
  EXPECT_NEAR(b.momentum().x(), 1.0, 1e-12);
  for (const Vec3& v : b.v) EXPECT_TRUE(v.allFinite());
}

// Nothing approaching: no impulse, no step.
TEST(LzbProperties, SeparatingContactsAreLeftAlone) {
  Balls b = test::chain({1.0, 1.0}, {-1.0, 0.5}, {1.0}, {1.0});
  LzbSolver solver(lzb(1.5, Model::Mono, 1000));
  const SolverStats st = b.solve(solver);
  EXPECT_EQ(st.rounds, 0);
  EXPECT_EQ(b.v[0].x(), -1.0);
  EXPECT_EQ(b.v[1].x(), 0.5);
}

// ---------------------------------------------------------------------------------------------
// From scenario files: the examples run through the whole engine (narrow phase, islands, the
// solver chosen by name, material stiffness and restitution into the contacts) and end with the
// velocities the paper gives.

World& run_example(const std::string& name, World& world) {
  const Scenario sc = load_scenario(std::string(ETDEM_SOURCE_DIR) + "/examples/" + name);
  build_world(sc, world);
  world.initialize();
  for (long i = 0; i < sc.steps(); ++i) world.step();
  EXPECT_EQ(world.totals().solver.guards_fired, 0);
  EXPECT_EQ(world.solver().name(), std::string("lzb"));
  return world;
}

TEST(LzbScenario, ExamplesEndWithThePapersVelocities) {
  {
    World w;
    run_example("lzb_three_ball_chain.toml", w);
    const auto& v = w.bodies.velocity;
    EXPECT_NEAR(v[0].x(), -0.047, 0.0005);  // Table 2, ball type A
    EXPECT_NEAR(v[1].x(), 0.078, 0.0007);
    EXPECT_NEAR(v[2].x(), 0.968, 0.0005);
  }
  {
    World w;
    run_example("lzb_five_ball_chain.toml", w);
    const double table5[5] = {0.0139, 0.0192, 0.1463, 0.4875, 1.3192};
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(w.bodies.velocity[i].x(), table5[i], 2e-4) << i;
    const double k = w.ledger().kinetic_translational + w.ledger().kinetic_rotational;
    EXPECT_NEAR(k, w.ledger().initial, 1e-9 * w.ledger().initial);
  }
  {
    World w;
    run_example("lzb_bernoulli.toml", w);
    const auto& v = w.bodies.velocity;
    EXPECT_LE((v[0] - Vec3(0.5, 0.5, 0)).norm(), 1e-6);  // Eq. 4.2 at pi/4
    EXPECT_LE(v[1].norm(), 1e-6);
    EXPECT_LE((v[2] - Vec3(0.5, -0.5, 0)).norm(), 1e-6);
  }
  {
    World w;
    run_example("lzb_four_balls.toml", w);
    const auto& v = w.bodies.velocity;
    EXPECT_NEAR(v[1].x(), -0.197, 0.0005);
    EXPECT_NEAR(v[3].x(), 0.84, 0.005);
    EXPECT_NEAR(v[0].x(), 0.178, 0.0005);
    EXPECT_NEAR(v[0].y(), 0.308, 0.0005);
  }
}

const std::string kScenario = R"([simulation]
dt = 0.001
duration = 0.01
gravity = [0.0, 0.0, 0.0]
solver = "lzb"
[simulation.lzb]
eta = 1.5
model = "bi"
steps = 500
max_steps = 100000
velocity_tolerance = 1e-8

[[material]]
name = "steel"
density = 7800.0
restitution = 0.9
friction = 0.0
stiffness = 2.0

[[shape]]
name = "ball"
type = "sphere"
radius = 0.01

[[body]]
shape = "ball"
material = "steel"
position = [0.0, 0.0, 0.0]
)";

TEST(LzbScenario, SettingsAreRead) {
  const Scenario sc = parse_scenario(kScenario, "lzb.toml");
  EXPECT_EQ(sc.settings.solver, "lzb");
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().eta, 1.5);
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().model, LzbSettings::Model::Bi);
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().steps, 500);
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().max_steps, 100000);
  EXPECT_EQ(sc.settings.solver_settings<LzbSettings>().velocity_tolerance, 1e-8);
  EXPECT_EQ(sc.materials[0].stiffness, 2.0);
  // Two materials' springs in series.
  Material soft = sc.materials[0];
  soft.stiffness = 6.0;
  EXPECT_DOUBLE_EQ(pair_stiffness(sc.materials[0], soft), 1.5);
}

TEST(LzbScenario, BadValuesNameKeyAndValue) {
  struct Bad {
    const char* from;
    const char* to;
    const char* key;
  };
  const Bad cases[] = {
      {"eta = 1.5", "eta = 0.0", "simulation.lzb.eta"},
      {"eta = 1.5", "eta = 11.0", "simulation.lzb.eta"},
      {"model = \"bi\"", "model = \"tri\"", "simulation.lzb.model"},
      {"steps = 500", "steps = 0", "simulation.lzb.steps"},
      {"steps = 500", "steps = 500.5", "simulation.lzb.steps"},
      {"max_steps = 100000", "max_steps = 0", "simulation.lzb.max_steps"},
      {"velocity_tolerance = 1e-8", "velocity_tolerance = -1.0",
       "simulation.lzb.velocity_tolerance"},
      {"steps = 500", "steps = 500\nstep = 3", "simulation.lzb.step"},
      {"stiffness = 2.0", "stiffness = 0.0", "material[0].stiffness"},
  };
  for (const Bad& c : cases) {
    std::string text = kScenario;
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, std::string(c.from).size(), c.to);
    try {
      (void)parse_scenario(text, "lzb.toml");
      ADD_FAILURE() << "accepted: " << c.to;
    } catch (const ScenarioError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
      EXPECT_NE(msg.find("lzb.toml"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace etdem
