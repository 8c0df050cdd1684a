// ETM with friction at a box corner, where the collision matrix couples the normal and the
// tangential directions: with large mu the sliding impulse of Eqs. 54-55 can pull
// (n.K(n + mu q) <= 0) or let the slip reverse within an increment, and then it would create
// energy (measured: with mu in [1, 2] most corner impacts meet a pulling sliding impulse). Those
// increments fall back to the frictionless impulse and are counted
// (SolverStats::friction_fallbacks). Random corner impacts: energy is never created, the ledger
// of the solver closes, u_n ends at -e u_n(s0) within the tolerance.
#include <gtest/gtest.h>

#include <random>

#include "etdem/collision/collide.hpp"
#include "etdem/solvers/etm.hpp"
#include "test_island_fixture.hpp"

namespace etdem::test {
namespace {

TEST(EtmFriction, BoxCornerImpactsNeverCreateEnergyForAnyFriction) {
  ShapeTable shapes;
  const Vec3 half(1.0, 0.5, 0.25);
  const int box = shapes.add_box("box", half);
  const int plane = shapes.add_plane("floor");
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  long impacts = 0, fallbacks = 0;
  double worst_gain = 0.0;
  EtmSettings settings;
  EtmSolver solver(settings);
  solver.prepare(1);
  for (int trial = 0; trial < 4000; ++trial) {
    const Quat q = Quat(Eigen::AngleAxisd(M_PI * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()));
    const double e = std::abs(u(rng)) < 0.5 ? 0.0 : std::abs(u(rng));
    const double mu = 2.0 * std::abs(u(rng));
    // Lowest corner 1 mm above the floor; one contact point only.
    Manifold m;
    collide(shapes, box, Pose(Vec3::Zero(), q), plane, Pose(Vec3(0, 0, -10), Quat::Identity()),
            100.0, m);
    double lowest = 1e9;
    for (int k = 0; k < m.count; ++k) lowest = std::min(lowest, m.gap[k]);
    const Vec3 xa(0, 0, 10.0 - lowest + 1e-3);
    collide(shapes, box, Pose(xa, q), plane, Pose(Vec3::Zero(), Quat::Identity()), 0.01, m);
    if (m.count != 1) continue;
    Island is;
    is.add(box_mass_properties(half, 2650), xa, Vec3(u(rng), u(rng), -0.05 - 2.0 * std::abs(u(rng))),
           3.0 * Vec3(u(rng), u(rng), u(rng)), q);
    Contact c;
    c.a = 0;
    c.b = -1;
    c.point = m.point[0];
    c.normal = m.normal;
    c.ra = c.point - xa;
    c.rb = c.point;
    c.restitution = e;
    c.friction = mu;
    std::vector<Contact> cs = {c};
    IslandBodies view = is.view();
    const double un0 = c.normal.dot(impulse::relative_velocity(c, view));
    if (un0 >= 0.0) continue;
    const double e0 = is.energy();
    const SolverStats st = solver.resolve(cs, view, 0);
    ++impacts;
    fallbacks += st.friction_fallbacks;
    const double e1 = is.energy();
    worst_gain = std::max(worst_gain, (e1 - e0) / e0);
    EXPECT_LE(e1, e0 * (1 + 1e-12)) << "trial " << trial << " mu " << mu << " e " << e;
    EXPECT_NEAR(e0 - e1, st.dissipated_restitution + st.dissipated_friction + st.truncated,
                1e-10 * e0)
        << trial;
    EXPECT_GE(c.normal.dot(impulse::relative_velocity(cs[0], view)), -1e-4 * std::abs(un0)) << trial;
    EXPECT_EQ(st.guards_fired, 0) << trial;
  }
  std::printf("%ld corner impacts, %ld frictionless fallback increments, worst relative gain %.2e\n",
              impacts, fallbacks, worst_gain);
  EXPECT_GT(impacts, 2500);
  EXPECT_GT(fallbacks, 0);  // the fallback is exercised
}

}  // namespace
}  // namespace etdem::test
