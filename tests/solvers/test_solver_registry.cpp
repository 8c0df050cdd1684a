// Every collision solver of the registry (world/solver_registry), built from it by name with its
// default settings, on the same hand-built islands of spheres: single contacts (two spheres head
// on, off centre and spinning, a sphere onto a plane) for six pairs of restitution and friction,
// random clusters of 27 touching spheres, and Newton's cradles of 3 and 5 balls with their
// contacts listed in both orders. For each: momentum kept, kinetic energy never created, the
// solver's statistics close the energy balance, nothing left approaching (smm's clusters aside);
// on the cradles the outcome of the solver's kind. kExpected holds what is particular to each
// solver: a solver added to the registry is run here as it is, and must have its row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "etdem/world/settings.hpp"
#include "etdem/world/solver_registry.hpp"
#include "solver_checks.hpp"

namespace etdem {
namespace {

using test::Before;
using test::Conserved;
using test::Island;
using test::normal_velocity;
using test::record;

/// What a Newton's cradle (equal balls in a row, e = 1, the first moving) ends in.
enum class Cradle {
  Sequential,    // one contact at a time in the velocities' order: the last ball leaves with v
  Simultaneous,  // Newton's law at every contact at once: (2/n - 1, 2/n, ..., 2/n) v
  InOrder,       // the impulse spread along the row: the balls leave in order, none overlapping
};

/// What each registered solver is asserted to do beyond what every solver does.
struct Expected {
  const char* solver;
  Cradle cradle;
  bool bitwise = false;              // the cradle's velocities and energy to the bit
  long cradle_rounds_listed = -1;    // the cradle's rounds (sweeps), contacts listed from the
  long cradle_rounds_reversed = -1;  // moving ball on and reversed; -1: not a property,
                                     // -2: n - 1
  double cradle_energy = 1e-12;      // |E1 - E0| / E0 on the cradle (e = 1)
  bool angular_momentum = true;      // impulses at the contact points (jolt: at the centres)
  bool truncates = false;            // books truncated energy (see SolverStats::truncated)
  double energy_rise = 1e-14;        // round-off allowed in "no energy created"
  bool clusters_settle = true;       // random clusters: nothing approaching, no column negative
};

const Expected kExpected[] = {
    // The energy cut below the velocity tolerance (and round-off) is booked as truncated.
    {.solver = "etm", .cradle = Cradle::InOrder, .truncates = true},
    {.solver = "etm-priority", .cradle = Cradle::InOrder, .truncates = true},
    // The heap's order, whatever the listing: one round.
    {.solver = "sqm",
     .cradle = Cradle::Sequential,
     .cradle_rounds_listed = 1,
     .cradle_rounds_reversed = 1},
    // Simultaneous sticking can make the tangential impulses do positive work, booked as a
    // negative friction column (their sum with restitution never negative), and a cluster with
    // friction can reach the active set's bound and leave contacts approaching (docs/solvers.md,
    // "smm"; measured: 3 of these 40 clusters).
    {.solver = "smm", .cradle = Cradle::Simultaneous, .clusters_settle = false},
    // The impact integrated in impulse steps: its round-off is booked as truncated, and the
    // kinetic energy is kept to 1e-12 (as test_lzb_properties.cpp asserts).
    {.solver = "lzb",
     .cradle = Cradle::InOrder,
     .cradle_energy = 1e-9,
     .truncates = true,
     .energy_rise = 1e-12},
    // Sweeps in the listed order: one listed from the moving ball on, n - 1 reversed (-2).
    {.solver = "jolt",
     .cradle = Cradle::Sequential,
     .bitwise = true,
     .cradle_rounds_listed = 1,
     .cradle_rounds_reversed = -2,
     .angular_momentum = false},
};

const Expected* expected(const SolverInfo& info) {
  for (const Expected& e : kExpected)
    if (std::string(e.solver) == info.name) return &e;
  return nullptr;
}

class EverySolver : public ::testing::TestWithParam<const SolverInfo*> {
 protected:
  SolverStats solve(Island& is, std::vector<Contact>& cs) const {
    WorldSettings s;
    s.solver = GetParam()->name;
    const std::unique_ptr<Solver> solver = make_solver(s);
    solver->prepare(1);
    IslandBodies view = is.view();
    return solver->resolve(cs, view, 0);
  }
  const Expected& want() const { return *expected(*GetParam()); }
  Conserved conserved(bool all_dynamic) const {
    return {.momentum = all_dynamic,
            .angular_momentum = all_dynamic && want().angular_momentum,
            .nothing_truncated = !want().truncates,
            .energy_rise = want().energy_rise};
  }
};

TEST_P(EverySolver, IsBuiltByNameAndNamesItsCradle) {
  WorldSettings s;
  s.solver = GetParam()->name;
  const std::unique_ptr<Solver> solver = make_solver(s);
  ASSERT_NE(solver, nullptr);
  EXPECT_STREQ(solver->name(), GetParam()->name);
  EXPECT_TRUE(GetParam()->supports(ShapeType::Sphere) && GetParam()->supports(ShapeType::Plane));
  ASSERT_NE(expected(*GetParam()), nullptr) << GetParam()->name << ": add it to kExpected";
}

// One contact approaching: u_n -> -e u_n (spheres: the normal direction is not coupled to the
// tangential ones, so friction leaves it alone), nothing approaching left, no guard, no column
// of the ledger negative, energy and momentum as expect_conservation says.
TEST_P(EverySolver, SingleContactsReverseTheNormalVelocityAndCreateNoEnergy) {
  ASSERT_NE(expected(*GetParam()), nullptr);
  for (const test::SingleContact kind : test::kSingleContacts)
    for (const test::RestitutionFriction& rf : test::kRestitutionFriction) {
      const std::string what =
          std::string(test::single_contact_name(kind)) + ", " + test::restitution_friction_name(rf);
      std::vector<Contact> cs;
      Island is = test::single_contact(kind, rf.e, rf.mu, cs);
      const Before b = record(is, cs);
      ASSERT_LT(b.un[0], 0.0) << what;
      const SolverStats st = solve(is, cs);
      IslandBodies view = is.view();
      EXPECT_NEAR(normal_velocity(cs[0], view), -rf.e * b.un[0], 1e-12 * std::abs(b.un[0])) << what;
      EXPECT_EQ(st.guards_fired, 0) << what;
      EXPECT_EQ(st.approaching_left, 0) << what;
      EXPECT_GE(st.dissipated_restitution, -1e-14 * b.energy) << what;
      EXPECT_GE(st.dissipated_friction, -1e-14 * b.energy) << what;
      test::expect_conservation(is, b, st, conserved(kind != test::SingleContact::OnPlane), what);
    }
}

// 27 spheres on a 3x3x3 lattice, neighbours touching, random densities, velocities, spins, e and
// mu; a floor under the bottom layer in every other trial. No guard fires, restitution is never
// negative; nothing is left approaching beyond 1e-4 of the fastest approach and between spheres
// no friction impulse does positive work (every solver but smm: kExpected says why).
TEST_P(EverySolver, RandomSphereClustersConserveMomentumAndCreateNoEnergy) {
  ASSERT_NE(expected(*GetParam()), nullptr);
  for (const unsigned seed : {12u, 21u}) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 20; ++trial) {
      const std::string what = "seed " + std::to_string(seed) + ", trial " + std::to_string(trial);
      const bool floor = trial % 2 == 1;
      std::vector<Contact> cs;
      Island is = test::random_sphere_cluster(rng, floor, cs);
      const Before b = record(is, cs);
      const SolverStats st = solve(is, cs);
      EXPECT_EQ(st.guards_fired, 0) << what;
      EXPECT_GE(st.dissipated_restitution, -1e-12 * b.energy) << what;
      if (want().clusters_settle) {
        EXPECT_EQ(st.approaching_left, 0) << what;
        EXPECT_GE(st.dissipated_friction, -1e-12 * b.energy) << what;
        IslandBodies view = is.view();
        double fastest = 0.0;
        for (double un : b.un) fastest = std::max(fastest, -un);
        for (const Contact& c : cs) {
          EXPECT_GE(normal_velocity(c, view), -1e-4 * fastest) << what;
        }
      } else {
        EXPECT_GE(st.dissipated_restitution + st.dissipated_friction, -1e-12 * b.energy) << what;
      }
      test::expect_conservation(is, b, st, conserved(!floor), what);
    }
  }
}

// n equal steel balls (r = 0.1 m) in a row, touching, the first at 1 m/s, e = 1, mu = 0; the
// contacts listed from the moving ball on, then reversed. Every solver keeps momentum and (e = 1)
// energy and leaves nothing approaching; what the balls do depends on the kind of solver.
TEST_P(EverySolver, NewtonsCradleEndsAsTheSolversKindSays) {
  ASSERT_NE(expected(*GetParam()), nullptr);
  const Expected& x = want();
  const double v = 1.0;
  for (const int n : {3, 5})
    for (const bool reversed : {false, true}) {
      const std::string what =
          std::to_string(n) + " balls" + (reversed ? ", contacts reversed" : "");
      std::vector<Contact> cs;
      Island is = test::cradle(n, v, cs);
      if (reversed) std::reverse(cs.begin(), cs.end());
      const Before b = record(is, cs);
      const SolverStats st = solve(is, cs);
      std::printf("cradle %d %-12s %s v_x =", n, GetParam()->name,
                  reversed ? "reversed" : "listed  ");
      for (const Vec3& vk : is.v) std::printf(" %+.6f", vk.x());
      std::printf("  E/E0 = %.15f, %ld impulses, %ld rounds\n", is.energy() / b.energy,
                  st.iterations, st.rounds);
      EXPECT_EQ(st.guards_fired, 0) << what;
      EXPECT_EQ(st.approaching_left, 0) << what;
      IslandBodies view = is.view();
      for (const Contact& c : cs) {
        EXPECT_GE(normal_velocity(c, view), -1e-4 * v) << what << ": contacts still approach";
      }
      test::expect_conservation(is, b, st, conserved(true), what);
      if (x.bitwise) {
        EXPECT_EQ(is.energy(), b.energy) << what;
      } else {
        EXPECT_NEAR(is.energy(), b.energy, x.cradle_energy * b.energy) << what;
      }
      switch (x.cradle) {
        case Cradle::Sequential:
          // Each contact once: the velocity handed down the row, the last ball leaves with it.
          for (int k = 0; k < n; ++k) {
            const Vec3 want_v(k == n - 1 ? v : 0, 0, 0);
            if (x.bitwise) {
              EXPECT_EQ(is.v[k], want_v) << what << ", ball " << k;
            } else {
              EXPECT_NEAR((is.v[k] - want_v).norm(), 0.0, 1e-12 * v) << what << ", ball " << k;
            }
          }
          EXPECT_EQ(st.iterations, n - 1) << what;
          break;
        case Cradle::Simultaneous: {
          // Contact 1-2 separates at v, every other one ends at 0: v_2..n = 2 v / n.
          const double rest = 2.0 * v / n;
          EXPECT_NEAR(is.v[0].x(), rest - v, 1e-12 * v) << what;
          for (int k = 1; k < n; ++k) {
            EXPECT_NEAR(is.v[k].x(), rest, 1e-12 * v) << what << ", ball " << k;
          }
          EXPECT_EQ(st.iterations, n - 1) << what << ": every contact ends active";
          break;
        }
        case Cradle::InOrder:
          for (int k = 1; k < n; ++k) {
            EXPECT_GE(is.v[k].x(), is.v[k - 1].x() - 1e-4 * v) << what << ", ball " << k;
          }
          EXPECT_GT(is.v[n - 1].x(), 0.5 * v) << what << ": the last ball leaves fastest";
          break;
      }
      const long rounds = reversed ? x.cradle_rounds_reversed : x.cradle_rounds_listed;
      if (rounds != -1) {
        EXPECT_EQ(st.rounds, rounds == -2 ? n - 1 : rounds) << what;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, EverySolver, ::testing::ValuesIn([] {
                           std::vector<const SolverInfo*> all;
                           for (const SolverInfo& s : solver_registry()) all.push_back(&s);
                           return all;
                         }()),
                         [](const auto& info) {
                           std::string name = info.param->name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace etdem
