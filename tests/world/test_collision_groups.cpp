// The collisions of one island solved group by group (world/collision_groups) by a team whose
// members hold different collisions: a member keeps whole the groups of bodies no other member
// reads (RestingTeam::kept_collisions), the others hold every other group. Each member must end
// with the one-process bits: the statistics summed in group order, the island's group count,
// and the velocities of every group it holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/world/collision_groups.hpp"
#include "island_pairs.hpp"

namespace etdem {
namespace {

using test::Pairs;

/// The bodies of pairs `p` as the collision solver reads them.
IslandBodies bodies_of(test::Pairs& p) {
  return p.state().bodies;
}

/// Two members on two threads: messages through a shared mailbox between two barriers. Pair k's
/// bodies are settled by member k % 2; the pairs `kept` are member 0's alone (quiet there).
class TwoThreads {
 public:
  std::barrier<> sync{2};
  std::vector<std::string> box[2];  // box[to][from]
  std::vector<int> kept;
  TwoThreads() {
    box[0].resize(2);
    box[1].resize(2);
  }
};

class ThreadMember final : public RestingTeam {
 public:
  ThreadMember(TwoThreads& t, int me) : t_(t), me_(me) {}
  int member() const override { return me_; }
  int members() const override { return 2; }
  int block_member(const Vec3& /*centre*/) const override { return 0; }
  int body_member(int body) const override { return (body / 2) % 2; }
  std::span<const int> keepers() const override { return {}; }
  std::span<const int> keeper_places() const override { return {}; }
  int kept_contact(int /*index*/) const override { return -1; }
  bool quiet(int body) const override {
    return me_ == 0 && std::count(t_.kept.begin(), t_.kept.end(), body / 2) > 0;
  }
  Kept kept_collisions() const override {
    const auto n = static_cast<long>(t_.kept.size());
    return {me_ == 0 ? 0 : n, me_ == 0 ? 0 : n, n > 0};
  }
  bool syncs_every_body() const override { return false; }
  long contacts() const override { return 0; }
  std::vector<std::string> exchange(std::vector<std::string> to) override {
    t_.box[1 - me_][me_] = std::move(to[static_cast<std::size_t>(1 - me_)]);
    t_.sync.arrive_and_wait();
    std::vector<std::string> got(2);
    got[static_cast<std::size_t>(1 - me_)] = std::move(t_.box[me_][1 - me_]);
    t_.sync.arrive_and_wait();
    return got;
  }
  void post(std::vector<std::string> /*to*/, std::uint64_t /*members_to*/) override {}
  std::vector<std::string> collect(std::uint64_t /*from*/) override { return {}; }
  void max(std::span<double> /*values*/) override {}
  void sum(std::span<std::int64_t> /*values*/) override {}

 private:
  TwoThreads& t_;
  int me_;
};

/// The one-process solve of `n` pairs (test::Pairs: pair k is bodies 2k and 2k + 1 and collision
/// k, a group of its own), then the team's, member 0 keeping the pairs `kept`
/// (member 1 holds every other pair's collision only); both members' statistics, group counts
/// and the velocities of the pairs each holds are compared with the one-process bits.
void expect_one_process_bits(int n, const std::vector<int>& kept) {
  Pairs one(n);
  EtmSolver etm(EtmSettings{});
  etm.prepare(1);
  CollisionGroups alone;
  alone.prepare(1);
  IslandBodies view = bodies_of(one);
  const SolverStats reference = alone.resolve(etm, one.contacts, view, 0);
  ASSERT_EQ(alone.groups(), n);
  ASSERT_GT(reference.dissipated_restitution, 0.0);

  TwoThreads team;
  team.kept = kept;
  Pairs held[2] = {Pairs(n), Pairs(n)};
  std::vector<Contact> collisions[2];
  for (int k = 0; k < n; ++k) {
    collisions[0].push_back(held[0].contacts[static_cast<std::size_t>(k)]);
    if (std::count(kept.begin(), kept.end(), k) == 0)
      collisions[1].push_back(held[1].contacts[static_cast<std::size_t>(k)]);
  }
  SolverStats stats[2];
  int groups[2] = {0, 0};
  auto run = [&](int m) {
    EtmSolver solver(EtmSettings{});
    solver.prepare(1);
    CollisionGroups cg;
    cg.prepare(1);
    ThreadMember member(team, m);
    IslandBodies b = bodies_of(held[m]);
    stats[m] = cg.resolve(solver, collisions[m], b, 0, &member);
    groups[m] = cg.groups();
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  for (int m = 0; m < 2; ++m) {
    SCOPED_TRACE(testing::Message() << "member " << m);
    EXPECT_EQ(groups[m], n) << "the island's groups, those kept elsewhere included";
    EXPECT_EQ(stats[m].dissipated_restitution, reference.dissipated_restitution);
    EXPECT_EQ(stats[m].dissipated_friction, reference.dissipated_friction);
    EXPECT_EQ(stats[m].iterations, reference.iterations);
    EXPECT_EQ(stats[m].truncated, reference.truncated);
    for (int k = 0; k < n; ++k) {
      if (m == 1 && std::count(kept.begin(), kept.end(), k) > 0) continue;  // not held there
      for (int s = 2 * k; s < 2 * k + 2; ++s) {
        EXPECT_EQ(held[m].v[static_cast<std::size_t>(s)], one.v[static_cast<std::size_t>(s)])
            << "sphere " << s;
        EXPECT_EQ(held[m].w[static_cast<std::size_t>(s)], one.w[static_cast<std::size_t>(s)])
            << "sphere " << s;
      }
    }
  }
  // A kept pair's spheres stay as they were on the member that does not hold it.
  const Pairs before(n);
  for (const int k : kept)
    for (int s = 2 * k; s < 2 * k + 2; ++s)
      EXPECT_EQ(held[1].v[static_cast<std::size_t>(s)], before.v[static_cast<std::size_t>(s)]);
}

TEST(CollisionGroups, GroupsKeptByOneMemberGiveEveryMemberTheOneProcessBits) {
  // Twelve pairs: member 0 keeps three of its own (pairs 0, 4, 8: settled by it); the groups of
  // both members are solved by the settler of their least body, their results exchanged.
  expect_one_process_bits(12, {0, 4, 8});
  // Nothing kept: every member holds every group (the groups named by their least body).
  expect_one_process_bits(12, {});
}

TEST(CollisionGroups, AnIslandsOneGroupKeptByOneMemberSendsItsStatisticsToTheOther) {
  // One pair, kept by member 0: member 1 holds no collision and still books the group's
  // statistics; so too when the kept group is one of two, the other held by both.
  expect_one_process_bits(1, {0});
  expect_one_process_bits(2, {0});
}

}  // namespace
}  // namespace etdem
