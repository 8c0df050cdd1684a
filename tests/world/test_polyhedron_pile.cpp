// Polyhedra through the whole step: random convex rocks, tetrahedra and cubes poured into a box
// settle into a pile with small penetration, stay finite, and the energy ledger closes. And in
// zero gravity, elastic frictionless polyhedra colliding in a closed box keep linear momentum
// (walls absent) and never create energy.
#include <gtest/gtest.h>

#include <random>

#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

/// Adds polyhedral grains of size ~s on a lattice: rocks of 8..18 points, tetrahedra and cubes.
/// (Fewer points can give a wafer 1/10 as thick as it is wide; squeezed under the pile such a
/// light, thin grain keeps rattling in the resting pass's 12 sweeps.)
void add_grains(TestWorld& t, int nx, int ny, int nz, double s, double spacing, const Vec3& lo,
                double vmax, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<int> shapes;
  for (int k = 0; k < 6; ++k)
    shapes.push_back(t.world.shapes.add_polyhedron("rock", random_rock(8 + 2 * k, s, rng)));
  const double a = 0.8 * s;
  shapes.push_back(t.world.shapes.add_polyhedron(
      "tet", std::vector<Vec3>{Vec3(a, a, a), Vec3(a, -a, -a), Vec3(-a, a, -a), Vec3(-a, -a, a)}));
  std::vector<Vec3> cube;
  for (int k = 0; k < 8; ++k)
    cube.emplace_back((k & 1) ? a : -a, (k & 2) ? a : -a, (k & 4) ? a : -a);
  shapes.push_back(t.world.shapes.add_polyhedron("cube", cube));
  int n = 0;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i, ++n) {
        const Vec3 x = lo + spacing * Vec3(i + 0.5, j + 0.5, k + 0.5);
        const Quat q = Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
        t.world.add_body(shapes[n % shapes.size()], t.material, x, q,
                         vmax * Vec3(u(rng), u(rng), u(rng)), Vec3::Zero());
      }
}

TEST(PolyhedronPile, PouredPolyhedraSettleWithSmallPenetrationAndTheLedgerCloses) {
  TestWorld t(0.3, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  const double s = 0.01, spacing = 0.025;
  t.add_container(Vec3(0, 0, 0), Vec3(0.1, 0.1, 1));
  add_grains(t, 4, 4, 4, s, spacing, Vec3(0, 0, 0.005), 0.2, 5);
  t.world.initialize();
  double thinnest = 1e9;
  for (int i = 0; i < t.world.bodies.count(); ++i)
    if (t.world.bodies.is_dynamic(i))
      thinnest = std::min(thinnest, t.world.shapes.min_thickness(t.world.bodies.shape[i]));
  t.simulate(2.0);
  double worst_pen = 0.0, worst_speed = 0.0;
  for (int k = 0; k < 60; ++k) {  // 0.1 s watched
    t.world.step();
    worst_pen = std::max(worst_pen, t.world.last_step().max_penetration);
  }
  double lowest = 1e9;
  for (int i = 0; i < t.world.bodies.count(); ++i) {
    if (!t.world.bodies.is_dynamic(i)) continue;
    worst_speed = std::max(worst_speed, t.world.bodies.velocity[i].norm());
    const ConvexPolyhedron& h = t.world.shapes.polyhedron(t.world.bodies.shape[i]);
    const Quat& q = t.world.bodies.orientation[i];
    lowest = std::min(lowest, t.world.bodies.position[i].z() +
                                  (q * h.support(q.conjugate() * -Vec3::UnitZ())).z());
  }
  const RunTotals& tot = t.world.totals();
  std::printf(
      "64 polyhedra after 2.1 s: max penetration %.3e m (%.2f %% of the thinnest %.4f m), "
      "max speed %.3e m/s, lowest vertex z = %.3e m, %ld contacts/step, guards %ld\n",
      worst_pen, 100 * worst_pen / thinnest, thinnest, worst_speed, lowest,
      tot.contacts / tot.steps, tot.solver.guards_fired);
  EXPECT_LT(worst_pen, 0.02 * thinnest);
  EXPECT_GT(lowest, -0.02 * thinnest);  // nothing fell through the floor
  EXPECT_LT(worst_speed, 0.05);         // at rest (g dt = 0.016 m/s)
  EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
}

TEST(PolyhedronPile, ElasticCloudKeepsMomentumAndNeverCreatesEnergy) {
  // No gravity, no walls, e = 1, mu = 0 then e = 0.5, mu = 0.4: a cloud of polyhedra thrown
  // together. Momentum is kept to 1e-12 of sum |m v|; kinetic energy never rises between steps
  // by more than round-off plus what the rotation update books as integration.
  for (const auto& [e, mu] : {std::pair{1.0, 0.0}, std::pair{0.5, 0.4}}) {
    TestWorld t(e, mu);
    add_grains(t, 4, 4, 3, 0.01, 0.022, Vec3::Zero(), 0.5, 9);
    // Pull everything towards the middle so that it collides.
    const Vec3 centre(0.044, 0.044, 0.033);
    for (int i = 0; i < t.world.bodies.count(); ++i)
      t.world.bodies.velocity[i] += 0.3 * (centre - t.world.bodies.position[i]).normalized();
    t.world.initialize();
    const Vec3 p0 = t.linear_momentum();
    double scale = 0.0;
    for (int i = 0; i < t.world.bodies.count(); ++i)
      scale += t.world.bodies.mass[i] * t.world.bodies.velocity[i].norm();
    double ke = t.kinetic(), worst_rise = 0.0, integration = t.world.ledger().integration;
    long contacts = 0;
    for (int k = 0; k < 300; ++k) {
      t.world.step();
      contacts += t.world.last_step().contacts;
      // Energy the rotation update moved this step (booked as integration) is not a collision's.
      const double booked = -(t.world.ledger().integration - integration);
      integration = t.world.ledger().integration;
      worst_rise = std::max(worst_rise, (t.kinetic() - ke - booked) / ke);
      ke = t.kinetic();
    }
    std::printf(
        "e = %.1f, mu = %.1f: %ld contact points in 300 steps, |dp| / sum|m v| = %.2e, "
        "largest energy rise %.2e\n",
        e, mu, contacts, (t.linear_momentum() - p0).norm() / scale, worst_rise);
    EXPECT_GT(contacts, 100);
    EXPECT_LT((t.linear_momentum() - p0).norm(), 1e-12 * scale);
    EXPECT_LT(worst_rise, 1e-12);
    EXPECT_LT(std::abs(t.world.ledger().residual()), 1e-9 * t.world.ledger().initial);
  }
}

}  // namespace
}  // namespace etdem::test
