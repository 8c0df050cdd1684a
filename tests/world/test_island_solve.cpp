// The solve of one island alone (world/island_solve): the answer of a two-body impact, and the
// impulses returned to their own contacts whatever the serial order.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include <omp.h>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/world/island_solve.hpp"
#include "island_pairs.hpp"

namespace etdem {
namespace {

using test::make_contact;
using test::Pairs;
using test::TwoSpheres;

/// One island solved with ETM for the collisions and the resting pass (slip velocity 0.1 m/s),
/// a sub-step of h under gravity g along -z, its contacts `cs[(*at)[k]]` (without `at`: cs).
IslandSolution solve_with_resting(double h, double g, std::vector<Contact>& cs,
                                  std::optional<std::span<const int>> at, TwoSpheres& s) {
  EtmSolver etm(EtmSettings{});
  etm.prepare(1);
  RestingSettings rs;
  rs.slip_velocity = 0.1;
  RestingPass resting(rs);
  resting.set_step({h, Vec3(0, 0, -g)});
  resting.prepare(1);
  IslandSolve unit;
  unit.prepare(1);
  return unit.solve(IslandSolveSettings{{h, Vec3(0, 0, -g)}, 0.1}, etm, &resting, s.state(), cs, at,
                    0);
}

TEST(IslandSolve, ElasticHeadOnImpactOfEqualSpheresSwapsVelocities) {
  // Newton's cradle of two: equal masses, e = 1, no friction, no gravity: A and B exchange
  // their velocities, momentum and energy are kept; the impact at gap / closing speed.
  TwoSpheres s(2);
  s.x[0] = Vec3(0, 0, 0.2 + 1e-3);
  s.x[1] = Vec3(0, 0, 0);
  s.v[0] = Vec3(0, 0, -1.0);
  s.v[1] = Vec3(0, 0, 0.25);
  std::vector<Contact> contacts = {
      make_contact(0, 1, Vec3(0, 0, 0.1005), Vec3::UnitZ(), 1e-3, s.x[0], s.x[1], 1.0)};
  EtmSolver etm(EtmSettings{});
  etm.prepare(1);
  IslandSolve unit;
  unit.prepare(1);
  const double h = 1e-3;
  const IslandSolution r = unit.solve(IslandSolveSettings{{h, Vec3::Zero()}, 0.0}, etm, nullptr,
                                      s.state(), contacts, {}, 0);
  EXPECT_EQ(r.collisions, 1);
  EXPECT_NEAR(s.v[0].z(), 0.25, 1e-6);
  EXPECT_NEAR(s.v[1].z(), -1.0, 1e-6);
  EXPECT_NEAR(s.v[0].z() + s.v[1].z(), -0.75, 1e-12);  // momentum
  // Closing at 1.25 m/s over a 1 mm gap: the impact after 0.8 ms, within the 1 ms step.
  EXPECT_NEAR(s.toi[0], 0.8e-3, 1e-12);
  EXPECT_NEAR(s.toi[1], 0.8e-3, 1e-12);
  EXPECT_EQ(r.kick.value(), 0.0);  // no gravity to split
  EXPECT_NEAR(r.stats.dissipated_restitution + r.stats.dissipated_friction, 0.0, 1e-9);
}

TEST(IslandSolve, ImpulsesReturnToTheirOwnContactsWhateverTheSerialOrder) {
  // Sphere 0 rests on a static floor (a slow contact); sphere 1 falls onto it at 2 m/s (a
  // collision). Whichever comes first in the serial order, the solve order is the same
  // (collisions first): the velocities must be the same bits and each impulse must come back
  // on its own contact. Physically: ETM resolves the impact, the resting pass then holds both
  // spheres on the floor: neither moves into what is below it.
  const double h = 1e-3, g = 9.81;
  auto run = [&](bool floor_first, std::vector<Contact>& out, TwoSpheres& s) {
    s.x[0] = Vec3(0, 0, 0.1);
    s.x[1] = Vec3(0, 0, 0.3);
    s.v[0] = Vec3(0, 0, -g * h);  // this step's gravity kick, before the solve
    s.v[1] = Vec3(0, 0, -2.0 - g * h);
    const Contact floor =
        make_contact(0, -1, Vec3(0, 0, 0), Vec3::UnitZ(), 0.0, s.x[0], Vec3::Zero(), 0.5);
    const Contact impact =
        make_contact(1, 0, Vec3(0, 0, 0.2), Vec3::UnitZ(), 0.0, s.x[1], s.x[0], 0.5);
    out = floor_first ? std::vector<Contact>{floor, impact} : std::vector<Contact>{impact, floor};
    return solve_with_resting(h, g, out, {}, s);
  };
  TwoSpheres a(2), b(2);
  std::vector<Contact> ca, cb;
  const IslandSolution ra = run(true, ca, a);
  const IslandSolution rb = run(false, cb, b);
  EXPECT_EQ(ra.collisions, 1);  // only the fast contact
  EXPECT_EQ(rb.collisions, 1);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a.v[i], b.v[i]) << "sphere " << i;
  EXPECT_EQ(ca[0].normal_impulse, cb[1].normal_impulse);  // the floor contact
  EXPECT_EQ(ca[1].normal_impulse, cb[0].normal_impulse);  // the impact
  EXPECT_GT(ca[0].normal_impulse, 0.0);
  EXPECT_GT(ca[1].normal_impulse, 0.0);
  EXPECT_NE(ca[0].normal_impulse, ca[1].normal_impulse);  // so a swap would show
  EXPECT_GE(a.v[0].z(), -1e-9);                           // nothing moves into the floor
  EXPECT_GE(a.v[1].z() - a.v[0].z(), -1e-9);              // nor into sphere 0
  // The impact lost energy (e = 0.5), none was created.
  EXPECT_GT(ra.stats.dissipated_restitution, 0.0);
  EXPECT_GE(ra.resting_stats.dissipated_restitution + ra.resting_stats.dissipated_friction, -1e-12);
}

TEST(IslandSolve, AnIslandReadThroughIndicesGivesTheBitsOfItsContactsInARow) {
  // The same island as above, its two contacts lying among others (`at` names them): the same
  // velocities and impulses, bit for bit, written into the named contacts only.
  const double h = 1e-3, g = 9.81;
  auto place = [&](TwoSpheres& s) {
    s.x[0] = Vec3(0, 0, 0.1);
    s.x[1] = Vec3(0, 0, 0.3);
    s.v[0] = Vec3(0, 0, -g * h);
    s.v[1] = Vec3(0, 0, -2.0 - g * h);
  };
  TwoSpheres a(2), b(2);
  place(a);
  place(b);
  const Contact floor =
      make_contact(0, -1, Vec3(0, 0, 0), Vec3::UnitZ(), 0.0, a.x[0], Vec3::Zero(), 0.5);
  const Contact impact =
      make_contact(1, 0, Vec3(0, 0, 0.2), Vec3::UnitZ(), 0.0, a.x[1], a.x[0], 0.5);
  std::vector<Contact> in_row{floor, impact};
  Contact decoy = make_contact(7, 9, Vec3(5, 5, 5), Vec3::UnitX(), 1.0, Vec3::Zero(), Vec3::Zero(),
                               0.5);  // (bodies no island has: never read)
  decoy.normal_impulse = 3.0;
  std::vector<Contact> spread{decoy, impact, decoy, floor, decoy};
  const std::vector<int> at{3, 1};
  const IslandSolution ra = solve_with_resting(h, g, in_row, {}, a);
  const IslandSolution rb = solve_with_resting(h, g, spread, at, b);
  EXPECT_EQ(ra.collisions, rb.collisions);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a.v[i], b.v[i]) << "sphere " << i;
  EXPECT_EQ(in_row[0].normal_impulse, spread[3].normal_impulse);
  EXPECT_EQ(in_row[1].normal_impulse, spread[1].normal_impulse);
  EXPECT_EQ(in_row[0].tangent_impulse, spread[3].tangent_impulse);
  EXPECT_GT(spread[1].normal_impulse, 0.0);
  for (const int k : {0, 2, 4}) {
    EXPECT_EQ(spread[k].normal_impulse, 3.0);
    EXPECT_EQ(spread[k].a, 7);
  }
  // An empty index list is an island without contacts (a team member that holds none), not
  // every contact of the list: nothing is solved, nothing written.
  TwoSpheres c(2);
  place(c);
  const std::vector<Contact> before = spread;
  const IslandSolution rc = solve_with_resting(h, g, spread, std::span<const int>(), c);
  EXPECT_EQ(rc.collisions, 0);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(c.v[i], Vec3(0, 0, i == 0 ? -g * h : -2.0 - g * h));
  for (std::size_t k = 0; k < spread.size(); ++k)
    EXPECT_EQ(spread[k].normal_impulse, before[k].normal_impulse) << "contact " << k;
}

TEST(IslandSolve, EachCollisionGroupGivesTheBitsOfItsPairSolvedAloneOnAnyNumberOfThreads) {
  // The island's collisions share no body from one pair to the next: each pair is its own
  // collision group (world/collision_groups.hpp), solved alone; with 200 groups they run on
  // every thread. Velocities, spins and energies must be the bits of each pair solved as an
  // island of its own, on one thread and on two.
  const int n = 200;
  const double h = 1e-3;
  auto solve = [&](Pairs& p, std::span<Contact> cs, int threads) {
    omp_set_num_threads(threads);
    EtmSolver etm(EtmSettings{});
    etm.prepare(threads);
    IslandSolve unit;
    unit.prepare(threads);
    const IslandSolution r =
        unit.solve(IslandSolveSettings{{h, Vec3::Zero()}, 0.0}, etm, nullptr, p.state(), cs, {}, 0);
    omp_set_num_threads(1);
    return r;
  };
  SolverStats alone;
  Pairs ref(n);
  for (int k = 0; k < n; ++k) {
    Pairs one(1);
    for (int s = 0; s < 2; ++s) {
      one.x[s] = ref.x[2 * k + s];
      one.v[s] = ref.v[2 * k + s];
    }
    one.contacts[0] = ref.contacts[k];
    one.contacts[0].a = 0;
    one.contacts[0].b = 1;
    const IslandSolution r = solve(one, one.contacts, 1);
    EXPECT_EQ(r.groups, 1);
    alone.add(r.stats);
    for (int s = 0; s < 2; ++s) {
      ref.v[2 * k + s] = one.v[s];
      ref.w[2 * k + s] = one.w[s];
    }
  }
  EXPECT_GT(alone.dissipated_restitution, 0.0);  // e < 1 in half the pairs
  EXPECT_GT(alone.dissipated_friction, 0.0);     // every pair slips
  for (int threads : {1, 2}) {
    SCOPED_TRACE(testing::Message() << threads << " threads");
    Pairs all(n);
    const IslandSolution r = solve(all, all.contacts, threads);
    EXPECT_EQ(r.collisions, n);
    EXPECT_EQ(r.groups, n);
    for (int s = 0; s < 2 * n; ++s) {
      EXPECT_EQ(all.v[s], ref.v[s]) << "sphere " << s;
      EXPECT_EQ(all.w[s], ref.w[s]) << "sphere " << s;
    }
    EXPECT_EQ(r.stats.dissipated_restitution, alone.dissipated_restitution);
    EXPECT_EQ(r.stats.dissipated_friction, alone.dissipated_friction);
    EXPECT_EQ(r.stats.iterations, alone.iterations);
  }
}

TEST(IslandSolve, ASlowImpactBesideAFastOneIsResolvedToItsOwnTolerance) {
  // Two elastic head-on impacts of equal spheres (e = 1, mu = 0) in one island: one closing at
  // 100 m/s, one at 5 mm/s. ETM stops at u_n >= -1e-4 times the fastest approach it is given.
  // Given both at once, that is 1 cm/s and the slow pair would pass through unresolved; as
  // separate collision groups each pair swaps its velocities (to its own tolerance) and the
  // energy is kept.
  Pairs p(2);
  p.v[0] = Vec3(0, 0, -100.0);
  p.v[1] = Vec3::Zero();
  p.v[2] = Vec3(0, 0, -0.005);
  p.v[3] = Vec3::Zero();
  for (Contact& c : p.contacts) {
    c.restitution = 1.0;
    c.friction = 0.0;
    c.gap = 0.0;  // touching: the slow pair closes within the step too
  }
  double before = 0.0;
  for (int s = 0; s < 4; ++s) before += 0.5 * p.v[s].squaredNorm();
  EtmSolver etm(EtmSettings{});
  etm.prepare(1);
  IslandSolve unit;
  unit.prepare(1);
  const IslandSolution r = unit.solve(IslandSolveSettings{{1e-3, Vec3::Zero()}, 0.0}, etm, nullptr,
                                      p.state(), p.contacts, {}, 0);
  EXPECT_EQ(r.groups, 2);
  EXPECT_NEAR(p.v[0].z(), 0.0, 1e-4 * 100.0);
  EXPECT_NEAR(p.v[1].z(), -100.0, 1e-4 * 100.0);
  EXPECT_NEAR(p.v[2].z(), 0.0, 1e-4 * 0.005);  // swapped, not passed through
  EXPECT_NEAR(p.v[3].z(), -0.005, 1e-4 * 0.005);
  double after = 0.0;
  for (int s = 0; s < 4; ++s) after += 0.5 * p.v[s].squaredNorm();
  EXPECT_NEAR(after, before, 1e-12 * before);
}

TEST(IslandSolve, ACollisionIsAContactClosingFasterThanTheRestingVelocityWithinTheStep) {
  // The hybrid treatment's split (2024 §3.3): with v_rest = 0.1 m/s and h = 1 ms a contact goes
  // to the collision solver when it approaches faster than v_rest and closes its gap within the
  // step; slower, or farther than the step carries it, the resting pass takes it. A split run's
  // rank keeps a contact no other rank reads by the same rule (resting_contact), so the count
  // of the solve's collisions must be the rule's.
  const double h = 1e-3, v_rest = 0.1;
  EXPECT_TRUE(resting_contact(-0.05, 0.0, h, v_rest));   // slow
  EXPECT_FALSE(resting_contact(-0.1, 0.0, h, v_rest));   // at v_rest: a collision
  EXPECT_FALSE(resting_contact(-0.5, 0.0, h, v_rest));   // fast, touching
  EXPECT_FALSE(resting_contact(-0.5, 5e-4, h, v_rest));  // closes 0.5 mm exactly in h
  EXPECT_TRUE(resting_contact(-0.5, 6e-4, h, v_rest));   // 0.6 mm: not within h
  EXPECT_TRUE(resting_contact(0.5, 0.0, h, v_rest));     // separating
  EXPECT_FALSE(resting_contact(-0.5, 0.0, h, 0.0));      // no v_rest: every closing one
  // Five pairs, approaching at 0.05, 0.5, 0.5, 0.5 and 2 m/s across gaps of 0, 0, 0.4, 0.6 and
  // 1 mm: the second, third and fifth are collisions.
  const double approach[5] = {0.05, 0.5, 0.5, 0.5, 2.0}, gap[5] = {0.0, 0.0, 4e-4, 6e-4, 1e-3};
  Pairs p(5);
  int expected = 0;
  for (int k = 0; k < 5; ++k) {
    p.v[2 * k] = Vec3(0, 0, -approach[k]);
    p.v[2 * k + 1] = Vec3::Zero();
    p.w[2 * k] = p.w[2 * k + 1] = Vec3::Zero();
    p.contacts[k].gap = gap[k];
    const double un = p.contacts[k].normal.dot(impulse::relative_velocity(
        p.contacts[k], IslandBodies{10, p.v.data(), p.w.data(), nullptr, nullptr, nullptr}));
    EXPECT_DOUBLE_EQ(un, -approach[k]);
    if (!resting_contact(un, gap[k], h, v_rest)) ++expected;
  }
  EXPECT_EQ(expected, 3);
  const IslandSolution r = solve_with_resting(h, 0.0, p.contacts, {}, p);
  EXPECT_EQ(r.collisions, expected);
}

}  // namespace
}  // namespace etdem
