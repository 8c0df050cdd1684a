// ETM on a single contact (ETM 2014 §7.1, V1 in spirit): with e = 1 and mu = 0 the collision
// conserves energy to round-off for every lambda, and the relative normal velocity is exactly
// reversed. Contacts come from the real narrow phase.
#include <gtest/gtest.h>

#include <vector>

#include "etdem/collision/collide.hpp"
#include "etdem/core/mass_properties.hpp"
#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/validation/island.hpp"

namespace etdem {
namespace {

using validation::add_manifold_contacts;
using validation::Island;

class SingleContactLambda : public ::testing::TestWithParam<int> {};

TEST_P(SingleContactLambda, OffCentreSpheresConserveEnergyAndReverseNormalVelocity) {
  ShapeTable shapes;
  const int s1 = shapes.add_sphere("a", 0.5), s2 = shapes.add_sphere("b", 0.3);
  const Vec3 xa(0.1, -0.2, 0.79), xb(0, 0, 0);
  Manifold m;
  collide(shapes, s1, Pose(xa, Quat::Identity()), s2, Pose(xb, Quat::Identity()), 0.1, m);
  ASSERT_EQ(m.count, 1);
  Island b;
  b.add(sphere_mass_properties(0.5, 2650), xa, Quat::Identity(), Vec3(0, 0, -100), Vec3(5, 10, 3));
  b.add(sphere_mass_properties(0.3, 2650), xb, Quat::Identity(), Vec3::Zero(), Vec3::Zero());
  std::vector<Contact> cs;
  add_manifold_contacts(cs, m, 0, 1, xa, xb, 1.0, 0.0);
  IslandBodies view = b.view();
  const double un0 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  const double e0 = b.energy();
  EtmSettings st;
  st.lambda = GetParam();
  EtmSolver solver(st);
  solver.prepare(1);
  const SolverStats stats = solver.resolve(cs, view, 0);
  const double un1 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  EXPECT_LE(std::abs(b.energy() - e0) / e0, 1e-13) << "lambda " << GetParam();
  EXPECT_NEAR(un1, -un0, 1e-12 * std::abs(un0));
  EXPECT_EQ(stats.guards_fired, 0);
  EXPECT_EQ(stats.approaching_left, 0);
  EXPECT_GE(stats.iterations, GetParam());  // lambda increments in compression at least
}

TEST_P(SingleContactLambda, BoxCornerOnPlaneConservesEnergy) {
  ShapeTable shapes;
  const int box = shapes.add_box("box", Vec3(1.0, 0.5, 0.25));
  const int plane = shapes.add_plane("floor");
  // Tilted so that exactly one corner is within the margin of the floor.
  const Quat q = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0.5).normalized()));
  Pose pa(Vec3(0, 0, 0), q);
  Manifold m;
  // Place the box so its lowest corner is 1 mm above the floor.
  collide(shapes, box, pa, plane, Pose(Vec3(0, 0, -10), Quat::Identity()), 100.0, m);
  double lowest = 1e9;
  for (int k = 0; k < m.count; ++k) lowest = std::min(lowest, m.gap[k]);
  const Vec3 xa(0, 0, 10.0 - lowest + 1e-3);
  collide(shapes, box, Pose(xa, q), plane, Pose(Vec3::Zero(), Quat::Identity()), 0.01, m);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.gap[0], 1e-3, 1e-12);
  Island b;
  b.add(box_mass_properties(Vec3(1.0, 0.5, 0.25), 2650), xa, q, Vec3(0, 0, -100), Vec3(5, 10, 3));
  std::vector<Contact> cs;
  add_manifold_contacts(cs, m, 0, -1, xa, Vec3::Zero(), 1.0, 0.0);
  IslandBodies view = b.view();
  const double un0 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  ASSERT_LT(un0, 0.0);
  const double e0 = b.energy();
  EtmSettings st;
  st.lambda = GetParam();
  EtmSolver solver(st);
  solver.prepare(1);
  solver.resolve(cs, view, 0);
  const double un1 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  EXPECT_LE(std::abs(b.energy() - e0) / e0, 1e-13) << "lambda " << GetParam();
  EXPECT_NEAR(un1, -un0, 1e-12 * std::abs(un0));
}

INSTANTIATE_TEST_SUITE_P(PaperLambdas, SingleContactLambda,
                         ::testing::Values(1, 5, 10, 100, 200, 500));

TEST(EtmSingle, RestitutionFollowsStrongeEnergyRatio) {
  // Frictionless central impact of two equal spheres: u_n after = -e u_n before, and the energy
  // lost equals (1 - e^2) of the compression work (Stronge, Eq. 12/65).
  for (double e : {0.0, 0.3, 0.5, 0.9}) {
    Island b;
    const MassProperties mp = sphere_mass_properties(0.1, 1000);
    b.add(mp, Vec3::Zero(), Quat::Identity(), Vec3(0, 0, -2), Vec3::Zero());
    b.add(mp, Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3::Zero());
    Contact c;
    c.a = 0;
    c.b = 1;
    c.normal = Vec3::UnitZ();
    c.ra = Vec3(0, 0, -0.1);
    c.rb = Vec3(0, 0, 0.1);
    c.restitution = e;
    IslandBodies view = b.view();
    const double e0 = b.energy();
    EtmSolver solver(EtmSettings{});
    solver.prepare(1);
    const SolverStats st = solver.resolve(std::span<Contact>(&c, 1), view, 0);
    EXPECT_NEAR(b.v[0].z() - b.v[1].z(), 2.0 * e, 1e-12);
    // Compression work for the reduced mass m/2 approaching at 2 m/s: 1/2 (m/2) 4 = m.
    EXPECT_NEAR(st.dissipated_restitution, mp.mass * (1 - e * e), 1e-12 * mp.mass);
    EXPECT_NEAR(e0 - b.energy(), st.dissipated_restitution, 1e-12 * e0);
    EXPECT_NEAR(b.v[0].z() + b.v[1].z(), -2.0, 1e-12);  // momentum
  }
}

TEST(EtmSingle, SlidingFrictionOnPlaneRemovesTangentialVelocityAtMuTimesNormalImpulse) {
  // A sphere hitting a plane obliquely, e = 0: the normal impulse is m |v_n| and, while sliding,
  // the tangential impulse is mu times it; energy lost to friction is booked as friction.
  const MassProperties mp = sphere_mass_properties(0.1, 1000);
  const double mu = 0.2;
  Island b;
  b.add(mp, Vec3::Zero(), Quat::Identity(), Vec3(5, 0, -1), Vec3::Zero());
  Contact c;
  c.a = 0;
  c.b = -1;
  c.normal = Vec3::UnitZ();
  c.ra = Vec3(0, 0, -0.1);
  c.friction = mu;
  c.restitution = 0.0;
  IslandBodies view = b.view();
  const double e0 = b.energy();
  EtmSolver solver(EtmSettings{});
  solver.prepare(1);
  const SolverStats st = solver.resolve(std::span<Contact>(&c, 1), view, 0);
  EXPECT_NEAR(b.v[0].z(), 0.0, 1e-12);
  // Tangential velocity change of the centre: mu * 1 m/s; the rest is spin (r x p).
  EXPECT_NEAR(b.v[0].x(), 5.0 - mu * 1.0, 1e-9);
  EXPECT_NEAR(e0 - b.energy(), st.dissipated_restitution + st.dissipated_friction, 1e-12 * e0);
  EXPECT_GT(st.dissipated_friction, 0.0);
}

}  // namespace
}  // namespace etdem
