// The ETM round driver shared by etm and etm-priority (solvers/etm_rounds.hpp): every contact's
// u_n is current when a compression starts, the restitution stage follows Stronge (W <- e^2 W),
// and the loop ends when nothing approaches.
#include <gtest/gtest.h>

#include <vector>

#include "etdem/solvers/etm_rounds.hpp"

namespace etdem {
namespace {

struct TwoBodies {
  Vec3 v[2] = {Vec3::Zero(), Vec3::Zero()};
  Vec3 w[2] = {Vec3::Zero(), Vec3::Zero()};
  double inv_mass[2] = {1.0, 1.0};
  Mat3 inv_inertia[2] = {Mat3::Identity(), Mat3::Identity()};
  IslandBodies view() {
    IslandBodies b;
    b.count = 2;
    b.v = v;
    b.w = w;
    b.inv_mass = inv_mass;
    b.inv_inertia = inv_inertia;
    return b;
  }
};

TEST(EtmRounds, EveryNormalVelocityIsCurrentWhenACompressionStarts) {
  // Body 0 rests on the ground (contact 0) and carries body 1 (contact 1), normals up.
  std::vector<Contact> cs(2);
  cs[0].a = 0, cs[0].b = -1, cs[0].normal = Vec3::UnitZ();
  cs[1].a = 1, cs[1].b = 0, cs[1].normal = Vec3::UnitZ();
  TwoBodies tb;
  IslandBodies b = tb.view();
  std::vector<double> un(2, 0.0), elastic(2, 0.0), e(2, 0.5);
  for (int i = 0; i < 2; ++i) un[i] = cs[i].normal.dot(impulse::relative_velocity(cs[i], b));
  int compressions = 0, separations = 0;
  SolverStats st;
  run_etm_rounds(
      cs, b, EtmRoundState{un, elastic, e, 1e-9}, 300, st,
      [&] {
        ++compressions;
        for (int i = 0; i < 2; ++i)
          EXPECT_EQ(un[i], cs[i].normal.dot(impulse::relative_velocity(cs[i], b)))
              << "contact " << i << " stale at compression " << compressions;
        tb.v[0] = tb.v[1] = Vec3::Zero();  // the compression stops every approach
        elastic[1] = 1.0;
        return true;
      },
      [&] {
        // The first separation leaves both contacts approaching (as a neighbour's release
        // can): body 0 moving down, body 1 down faster. Contact 0 comes first in the order, so
        // a refresh that stops at the first approaching contact leaves contact 1 stale.
        if (++separations == 1) tb.v[0] = Vec3(0, 0, -1), tb.v[1] = Vec3(0, 0, -3);
        elastic[1] = 0.0;
        return true;
      },
      [](EtmPhase, long) {});
  EXPECT_EQ(compressions, 2);
  EXPECT_EQ(st.rounds, 2);
  EXPECT_EQ(st.guards_fired, 0);
  EXPECT_EQ(st.approaching_left, 0);
  // Stronge: W <- e^2 W at each restitution stage, the loss booked as restitution.
  EXPECT_DOUBLE_EQ(st.dissipated_restitution, 2 * (1.0 - 0.25));
}

TEST(EtmRounds, TheRoundGuardSetsRestitutionToZeroAndIsCounted) {
  std::vector<Contact> cs(1);
  cs[0].a = 0, cs[0].b = -1, cs[0].normal = Vec3::UnitZ();
  TwoBodies tb;
  IslandBodies b = tb.view();
  std::vector<double> un(1, 0.0), elastic(1, 0.0), e(1, 1.0);
  int rounds = 0;
  SolverStats st;
  run_etm_rounds(
      cs, b, EtmRoundState{un, elastic, e, 1e-9}, 3, st,
      [&] {
        elastic[0] = 1.0;
        tb.v[0] = Vec3::Zero();
        return true;
      },
      [&] {
        ++rounds;
        // Keeps approaching while restitution returns energy; stops once e = 0 took it all.
        tb.v[0] = elastic[0] > 0.0 ? Vec3(0, 0, -1) : Vec3::Zero();
        elastic[0] = 0.0;
        return true;
      },
      [](EtmPhase, long) {});
  EXPECT_EQ(rounds, 4);  // three with e = 1, one more with e = 0
  EXPECT_EQ(st.guards_fired, 1);
  EXPECT_EQ(e[0], 0.0);
  EXPECT_EQ(st.approaching_left, 0);
}

}  // namespace
}  // namespace etdem
