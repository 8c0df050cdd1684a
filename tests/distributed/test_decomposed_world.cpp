// A world split over ranks (distributed/decomposed_world, docs/distributed.md): on 1-4 ranks
// (threads standing in for ranks), pours step to the serial run's bits: every body's state and
// every ledger column, with the step's statistics. Spheres into a box of planes; with boxes whose
// spin splits steps into sub-steps (some steps taken again); with those boxes falling into a net
// that tears; with the wall correction; with islands that fall asleep and wake, and a grain
// removed by an event. Grains migrate and islands span ranks on the way; a solver of the user's
// own, which a split run does not carry, is refused with its name; an error on one rank in the
// middle of a step ends every rank.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "etdem/core/stage_profile.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/local_transport.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/world/solver_registry.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

using distributed::DecomposedStats;
using distributed::DecomposedWorld;
using distributed::Transport;
using distributed::TransportCounters;

/// A clamped net of 7 x 7 nodes across the container at height z: 25 free nodes, grains of
/// the fill, linked across the ranks' boxes; its links break beyond a strain of 0.3.
void add_net(TestWorld& t, double z) {
  World& w = t.world;
  const int shape = w.shapes.add_sphere("node", 0.003);
  const int n = 7;
  const double spacing = 0.01, k = 5.0, zeta = 0.3;
  Net net;
  net.name = "catcher";
  net.nu = net.nv = n;
  net.break_strain = 0.3;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      const Vec3 x(i * spacing, j * spacing, z);
      net.nodes.push_back(
          w.add_body(shape, t.material, x, Quat::Identity(), Vec3::Zero(), Vec3::Zero(), edge));
      net.clamped.push_back(edge);
      net.start.push_back(x);
    }
  auto link = [&](int a, int b) {
    NetLink l;
    l.a = net.nodes[a];
    l.b = net.nodes[b];
    l.rest = spacing;
    l.stiffness = k;
    const double inv = w.bodies.inv_mass[l.a] + w.bodies.inv_mass[l.b];
    l.damping = inv > 0.0 ? 2.0 * zeta * std::sqrt(k / inv) : 0.0;
    net.links.push_back(l);
  };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (i + 1 < n) link(j * n + i, j * n + i + 1);
      if (j + 1 < n) link(j * n + i, (j + 1) * n + i);
    }
  w.nets.push_back(std::move(net));
}

/// What the pour holds besides its spheres.
struct Options {
  bool boxes = false;         // boxes dropped on the spheres (and a fixed block on the floor)
  bool net = false;           // the boxes fall into a net above the spheres
  double net_height = 0.064;  // [m] the net's plane (it sags onto the spheres' pile)
  // Islands at rest fall asleep; a late sphere thrown up lands on the sleeping pile at about
  // 0.8 s and wakes it; a grain removed at 0.9 s wakes every island.
  bool sleep = false;
  SleepUnit sleep_unit = SleepUnit::kIsland;  // what falls asleep and wakes as one
  bool wall_correction = false;  // resting = "wall-correction" (grains predicted into walls)
  // The rank boxes drawn again every 10 steps whenever the largest rank owns more than 1.05
  // times the mean (the pour falls out of the boxes drawn around its start).
  bool rebalance = false;
  // The rank boxes drawn again at every check (every 5 steps) for the ranks' measured busy
  // times, and never for their work: boxes that depend on the machine's timing.
  bool rebalance_by_time = false;
  // Islands of 100 contacts or more swept by blocks (pgs.block_contacts): the pile's resting
  // pass solved by every rank together.
  bool blocks = false;
  // A fixed wall splits the box in two, with a pile on either side: on two ranks each pile lies
  // in one rank's box, and the other rank solves it with the team holding none of its contacts.
  bool halves = false;
  // An island of this many contacts or more solved alone moves its host's other islands to
  // another rank (DecomposedWorld::set_offload_contacts; 0: the default).
  long offload_contacts = 0;
  int threads = 1;      // per rank (and of the serial run)
  int least_ranks = 1;  // split over this many ranks
  int most_ranks = 4;   // to this many
};

/// The pour: spheres into a box of planes, with what `o` asks for.
void pour(TestWorld& t, const Options& o) {
  const bool boxes = o.boxes, net = o.net;
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.threads = o.threads;
  t.add_container(Vec3(0, 0, 0), Vec3(o.halves ? 0.126 : 0.06, 0.06, 1));
  if (o.halves) {  // the wall, then the second pile's spheres
    t.add_box(Vec3(0.003, 0.03, 0.06), Vec3(0.063, 0.03, 0.06), Quat::Identity(), Vec3::Zero(),
              Vec3::Zero(), true);
    fill_spheres(t, 5, 5, 4, 0.005, 0.012, Vec3(0.066, 0, 0), 0.0, 11u, 0.3);
    // (A contact with the floor approaches at g h after the kick: below half of this resting
    // velocity it stays with the rank that detected it, as the grains' contacts do.)
    t.world.settings.resting_velocity = 0.1;
  }
  // With the boxes, a fixed block on the floor, of a smaller id than the grains: its pairs
  // (block, grain) are detected and carried by the grain's owner.
  if (boxes)
    t.add_box(Vec3(0.012, 0.012, 0.003), Vec3(0.03, 0.03, 0.003), Quat::Identity(), Vec3::Zero(),
              Vec3::Zero(), true);
  fill_spheres(t, 5, 5, 4, 0.005, 0.012, Vec3(0, 0, boxes ? 0.008 : 0.0), 0.0, 7u, 0.3);
  const int top_sphere = t.world.bodies.count() - 3;  // a sphere near the top
  if (net) add_net(t, o.net_height);
  if (boxes) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        t.add_box(Vec3(0.006, 0.005, 0.004),
                  Vec3(0.012 + 0.018 * i, 0.012 + 0.018 * j, net ? o.net_height + 0.021 : 0.07),
                  Quat(Eigen::AngleAxisd(0.3 * (i + 3 * j), Vec3(0.3, 0.5, 1).normalized())));
  }
  if (o.wall_correction) t.world.settings.resting = "wall-correction";
  if (o.blocks) t.world.settings.resting_pass.block_contacts = 100;
  if (o.rebalance) {
    t.world.settings.rebalance_every = 10;
    t.world.settings.rebalance_imbalance = 1.05;
    t.world.settings.rebalance_busy_imbalance = 0.0;  // by work alone: the test's bound holds
  } else if (o.rebalance_by_time) {
    t.world.settings.rebalance_every = 5;
    t.world.settings.rebalance_imbalance = 1e9;
    t.world.settings.rebalance_busy_imbalance = 0.5;  // below 1: at every check
  } else {
    t.world.settings.rebalance_every = 0;
  }
  if (o.sleep) {
    t.world.settings.sleep_velocity = 0.05;
    t.world.settings.sleep_unit = o.sleep_unit;
    t.world.settings.sleep_time = 0.05;
    t.world.events.push_back({0.9, top_sphere});
    t.add_sphere(0.005, Vec3(0.031, 0.029, 0.9), Vec3(0, 0, 3));  // lands at about 0.8 s
  }
  t.world.initialize();
}

bool same_bits(const EnergyLedger& x, const EnergyLedger& y) {
  return std::memcmp(&x, &y, sizeof(EnergyLedger)) == 0;
}

struct SplitRun {
  std::uint64_t hash = 0;
  EnergyLedger ledger;
  RunTotals totals;
  long spanning = 0, migrated = 0, ghosts = 0;
  long shared = 0;           // islands every rank solved together
  long groups_shared = 0;    // their collision groups, split over the ranks
  long shared_direct = 0;    // of the islands shared, those every rank sent its part of itself
  long collects = 0;         // point-to-point waits over the ranks (the team's colour phases)
  long kept = 0;             // contacts of shared piles no other rank reads: not sent
  long collisions_kept = 0;  // of those, collisions (whole collision groups)
  long slim = 0;             // grains of shared piles only their sender reads: sent slim
  long empty = 0;            // shared piles a rank solved holding none of their contacts
  long refreshed = 0;        // sub-steps a rank's world kept its bodies (refreshed in place)
  long sent_whole = 0;       // shared piles sent again whole (no longer swept by blocks)
  long offloaded = 0;        // islands solved for the host of a large one (not their root's owner)
  long most_spanned = 0;     // the most ranks one island came from
  long rebalances = 0, rebalances_by_time = 0;
  long most_owned = 0, all_owned = 0;  // owned grains at the end: the largest rank's, all ranks'
  long most_work = 0, all_work = 0;    // the same of the ranks' work (DecomposedWorld::work)
  // The stages (core/stage_profile.hpp) over the ranks: ranks on which the resting pass's
  // stages took longer than the island solves they nest in, and the fewest calls of each stage
  // on a rank.
  long stages_not_nested = 0;
  std::array<long, StageProfile::kStages> least_stage_calls{};
  std::vector<Net> nets;
};

SplitRun run_split(int ranks, const Options& o, long steps) {
  SplitRun out;
  std::mutex m;
  distributed::run_local_ranks(ranks, [&](Transport& t) {
    TestWorld full(0.5, 0.5);
    pour(full, o);
    DecomposedWorld split(full.world, t);
    split.set_shared_islands(o.blocks);
    if (o.offload_contacts > 0) split.set_offload_contacts(o.offload_contacts);
    for (long s = 0; s < steps; ++s) split.step();
    split.gather(full.world);
    const DecomposedStats& st = split.stats();
    const long most_spanned = static_cast<long>(t.max(static_cast<double>(st.most_ranks_spanned)));
    const long shared = t.sum(st.islands_shared);
    const long groups_shared = t.sum(st.groups_shared);
    const long shared_direct = t.sum(st.islands_shared_direct);
    const long collects = t.sum(t.counters().collects);
    const long kept = t.sum(st.contacts_kept_local), sent_whole = t.sum(st.islands_sent_whole);
    const long slim = t.sum(st.grains_sent_slim);
    const long collisions_kept = t.sum(st.collisions_kept_local);
    const long empty = t.sum(st.islands_shared_empty);
    const long refreshed = t.sum(st.refreshed_in_place);
    const long offloaded = t.sum(st.islands_offloaded);
    const long spanning = t.sum(st.islands_spanning), migrated = t.sum(st.migrated),
               ghosts = t.sum(st.ghosts);
    const long most_owned = static_cast<long>(t.max(split.owned_count())),
               all_owned = t.sum(static_cast<long>(split.owned_count()));
    const long most_work = static_cast<long>(t.max(static_cast<double>(split.work()))),
               all_work = t.sum(split.work());
    const StageProfile& stages = split.stages();
    double resting = 0.0;
    for (int k = StageProfile::RestingOrder; k <= StageProfile::RestingTeam; ++k)
      resting += stages.seconds[k];
    const long not_nested = t.sum(resting > stages.seconds[StageProfile::IslandsSolves] ? 1L : 0L);
    std::array<double, StageProfile::kStages> fewest_calls{};
    for (int k = 0; k < StageProfile::kStages; ++k)
      fewest_calls[k] = -static_cast<double>(stages.calls[k]);  // (the max of the negatives)
    t.max(std::span<double>(fewest_calls));
    if (t.rank() != 0) return;
    std::lock_guard lock(m);
    out.hash = full.state_hash();
    out.ledger = full.world.ledger();
    out.totals = full.world.totals();
    out.nets = full.world.nets;
    out.spanning = spanning, out.migrated = migrated, out.ghosts = ghosts;
    out.shared = shared;
    out.groups_shared = groups_shared;
    out.shared_direct = shared_direct;
    out.collects = collects;
    out.kept = kept, out.sent_whole = sent_whole, out.slim = slim;
    out.collisions_kept = collisions_kept;
    out.empty = empty;
    out.refreshed = refreshed;
    out.offloaded = offloaded;
    out.most_spanned = most_spanned;
    out.rebalances = st.rebalances;
    out.rebalances_by_time = st.rebalances_by_time;
    out.most_owned = most_owned, out.all_owned = all_owned;
    out.most_work = most_work, out.all_work = all_work;
    out.stages_not_nested = not_nested;
    for (int k = 0; k < StageProfile::kStages; ++k)
      out.least_stage_calls[k] = -static_cast<long>(fewest_calls[k]);
  });
  return out;
}

/// The serial run against split runs on 1 to o.most_ranks ranks; `most` (when given) receives
/// the split run on the most ranks.
void expect_serial(const Options& o, long steps, SplitRun* most = nullptr) {
  const bool boxes = o.boxes, net = o.net;
  TestWorld serial(0.5, 0.5);
  pour(serial, o);
  serial.steps(steps);
  ASSERT_GT(serial.world.totals().contacts, 1000);
  if (boxes) {
    EXPECT_GT(serial.world.totals().split_steps, 0) << "the boxes' spin split steps";
  }
  if (o.wall_correction) {  // grains were predicted into the walls, in more than one round
    const RunTotals& t = serial.world.totals();
    EXPECT_GT(t.wall_corrections, 0);
    EXPECT_GT(t.wall_rounds, serial.world.step_count());
    std::printf("wall correction: %ld corrections in %ld rounds, bound reached %ld times\n",
                t.wall_corrections, t.wall_rounds, t.wall_bound_reached);
  }
  if (o.sleep) {  // units fell asleep, slept, and woke (a sphere landing, the grain removed)
    const RunTotals& t = serial.world.totals();
    EXPECT_GT(t.fell_asleep, 0);
    EXPECT_GT(t.asleep_steps, 0);
    EXPECT_GT(t.woken, 0);
    std::printf("sleep by %s: %ld fell asleep, %ld %s-steps slept, %ld woken, bound %ld\n",
                o.sleep_unit == SleepUnit::kRegion ? "regions" : "islands", t.fell_asleep,
                t.asleep_steps, o.sleep_unit == SleepUnit::kRegion ? "body" : "island", t.woken,
                t.sleep_wake_bound_reached);
  }
  if (net && o.sleep) {  // the nets' nodes never sleep
    for (const Net& n : serial.world.nets)
      for (const int i : n.nodes)
        if (serial.world.bodies.is_dynamic(i)) {
          EXPECT_FALSE(serial.world.bodies.is_asleep(i));
        }
  }
  if (net && boxes) {  // the boxes landed in the net: it sagged and carried them
    const Net& n = serial.world.nets.front();
    double sag = 0.0;
    for (std::size_t j = 0; j < n.nodes.size(); ++j)
      sag = std::max(sag, n.start[j].z() - serial.world.bodies.position[n.nodes[j]].z());
    EXPECT_GT(sag, 0.003);
    EXPECT_GT(n.max_strain, 0.01);
    EXPECT_GT(n.broken_links, 0);
    EXPECT_GT(serial.world.totals().redone_steps, 0) << "a step with the net's kick taken again";
    std::printf("net: sag %.4g m, largest strain %.3g, %ld links broken, %ld steps redone\n", sag,
                n.max_strain, n.broken_links, serial.world.totals().redone_steps);
  }
  for (int ranks = o.least_ranks; ranks <= o.most_ranks; ++ranks) {
    SCOPED_TRACE(testing::Message() << ranks << " ranks");
    const SplitRun r = run_split(ranks, o, steps);
    if (most && ranks == o.most_ranks) *most = r;
    EXPECT_EQ(r.hash, serial.state_hash());
    EXPECT_TRUE(same_bits(r.ledger, serial.world.ledger()))
        << "kinetic " << r.ledger.kinetic() << " vs " << serial.world.ledger().kinetic()
        << ", correction " << r.ledger.correction << " vs " << serial.world.ledger().correction;
    const RunTotals& a = r.totals;
    const RunTotals& b = serial.world.totals();
    EXPECT_EQ(a.contacts, b.contacts);
    EXPECT_EQ(a.candidates, b.candidates);
    EXPECT_EQ(a.islands, b.islands);
    EXPECT_EQ(a.largest_island, b.largest_island);
    EXPECT_EQ(a.collisions, b.collisions);
    EXPECT_EQ(a.resting.iterations, b.resting.iterations);
    EXPECT_EQ(a.resting.rounds, b.resting.rounds);
    EXPECT_EQ(a.resting.guards_fired, b.resting.guards_fired);
    EXPECT_EQ(a.resting.approaching_left, b.resting.approaching_left);
    EXPECT_EQ(a.resting.shock_bound_reached, b.resting.shock_bound_reached);
    EXPECT_EQ(a.resting.energy_guards, b.resting.energy_guards);
    EXPECT_EQ(a.solver.iterations, b.solver.iterations);
    EXPECT_EQ(a.max_penetration, b.max_penetration);
    EXPECT_EQ(a.split_steps, b.split_steps);
    EXPECT_EQ(a.substeps, b.substeps);
    EXPECT_EQ(a.redone_steps, b.redone_steps);
    EXPECT_EQ(a.asleep_steps, b.asleep_steps);
    EXPECT_EQ(a.fell_asleep, b.fell_asleep);
    EXPECT_EQ(a.woken, b.woken);
    EXPECT_EQ(a.sleep_energy, b.sleep_energy);
    EXPECT_EQ(a.sleep_wake_bound_reached, b.sleep_wake_bound_reached);
    EXPECT_EQ(a.wall_corrections, b.wall_corrections);
    EXPECT_EQ(a.wall_rounds, b.wall_rounds);
    EXPECT_EQ(a.wall_bound_reached, b.wall_bound_reached);
    ASSERT_EQ(r.nets.size(), serial.world.nets.size());
    for (std::size_t k = 0; k < r.nets.size(); ++k) {  // the links' state, bit for bit
      const Net& x = r.nets[k];
      const Net& y = serial.world.nets[k];
      EXPECT_EQ(x.broken_links, y.broken_links);
      EXPECT_EQ(x.max_strain, y.max_strain);
      EXPECT_EQ(x.clamp_force, y.clamp_force);
      for (std::size_t l = 0; l < x.links.size(); ++l) {
        EXPECT_EQ(x.links[l].tension, y.links[l].tension) << "link " << l;
        EXPECT_EQ(x.links[l].broken, y.links[l].broken) << "link " << l;
      }
    }
    if (ranks > 1 && !o.halves) {
      EXPECT_GT(r.spanning, 0) << "islands spanned ranks";
      EXPECT_GT(r.ghosts, 0);
    }
    if (ranks > 1) {  // sub-steps in which no grain came or went: the bodies refreshed in place
      EXPECT_GT(r.refreshed, 0);
    }
    // Every rank timed its islands' flow and its grains' exchange, the resting pass's stages
    // inside its island solves; the team's own stage only where a pile was shared.
    EXPECT_EQ(r.stages_not_nested, 0);
    // (Labels, parts, gather and results, the exchange and the rebuild once a sub-step; an
    // island assembled and solved where it is hosted.)
    for (const StageProfile::Stage s :
         {StageProfile::IslandsLabels, StageProfile::IslandsParts, StageProfile::IslandsGather,
          StageProfile::IslandsResults, StageProfile::GrainsExchange, StageProfile::WorldRebuild})
      EXPECT_GE(r.least_stage_calls[s], steps) << StageProfile::kNames[s];
    for (const StageProfile::Stage s : {StageProfile::IslandsAssembly, StageProfile::IslandsSolves})
      EXPECT_GT(r.least_stage_calls[s], 0) << StageProfile::kNames[s];
    if (o.blocks) {
      EXPECT_GT(r.least_stage_calls[StageProfile::RestingSweeps], 0);
    }
    if (o.blocks && ranks > 1) {
      EXPECT_GT(r.least_stage_calls[StageProfile::RestingTeam], 0);
      EXPECT_GT(r.shared, 0) << "the pile's resting pass solved by every rank together";
      EXPECT_GT(r.groups_shared, 0) << "grains landing on the shared pile: groups split";
      EXPECT_GT(r.shared_direct, 0) << "a pile shared again: its parts straight to every rank";
      EXPECT_LT(r.shared_direct, r.shared) << "each pile first shared through its host";
      if (o.halves)  // (each pile's bodies are read on the rank that holds it alone)
        EXPECT_EQ(r.collects, 0) << "no member waits for a pile it does not read";
      else
        EXPECT_GT(r.collects, 0) << "the colours' phases point to point";
      EXPECT_GT(r.kept, 0) << "a pile's contacts no other rank reads kept by their rank";
      if (o.net) {  // (the island's host books the nets' nodes from every grain's result)
        EXPECT_EQ(r.slim, 0) << "with nets every grain of a shared pile goes whole";
        EXPECT_EQ(r.collisions_kept, 0) << "with nets every collision of a shared pile is sent";
      } else {
        EXPECT_GT(r.slim, 0) << "a pile's grains no other rank reads sent with their position only";
        if (!o.boxes) {  // (the boxes' pile: too few landings away from the ranks' borders)
          EXPECT_GT(r.collisions_kept, 0) << "grains landing where no other rank reads them: "
                                             "their collision groups kept by their rank";
        }
        EXPECT_LT(r.collisions_kept, r.kept);
      }
      if (o.boxes && o.sleep) {  // (the pile's island shrinks below pgs.block_contacts once)
        EXPECT_GT(r.sent_whole, 0) << "a pile no longer swept by blocks: its parts sent whole";
      }
      std::printf(
          "%d ranks: %ld islands solved by every rank together (%ld sent straight to every "
          "rank, %ld contacts of them kept by their rank, %ld of them collisions, %ld sent "
          "again whole), %ld collision groups\n",
          ranks, r.shared, r.shared_direct, r.kept, r.collisions_kept, r.sent_whole,
          r.groups_shared);
    } else {
      EXPECT_EQ(r.shared, 0);
      EXPECT_EQ(r.groups_shared, 0);
      EXPECT_EQ(r.shared_direct, 0);
      EXPECT_EQ(r.collects, 0) << "no team, no point-to-point phase";
      EXPECT_EQ(r.kept, 0);
      EXPECT_EQ(r.collisions_kept, 0);
      EXPECT_EQ(r.sent_whole, 0);
    }
    // A rank that solved alone an island of kOffloadContacts or more (the pile, where the ranks
    // do not share it) hands its other islands to another rank in the next sub-step.
    const long offload_at =
        o.offload_contacts > 0 ? o.offload_contacts : DecomposedWorld::kOffloadContacts;
    if (ranks > 1 && !o.blocks && b.largest_island >= offload_at) {
      EXPECT_GT(r.offloaded, 0) << "the largest island's host: its other islands solved elsewhere";
    }
    if (o.offload_contacts > 0)
      std::printf("%d ranks: largest island %ld contacts, %ld islands offloaded\n", ranks,
                  b.largest_island, r.offloaded);
    if (!o.boxes && !o.net && !o.sleep && !o.wall_correction && !o.rebalance && !o.blocks) {
      // The settled pour is one pile across every rank: one island came from all of them.
      EXPECT_EQ(r.most_spanned, ranks) << "the pile spans every rank";
    }
    if (o.rebalance && ranks > 1) {
      // Boxes drawn again, and at the end (a check falls on the last step) no rank has more
      // than 1.05 times the mean work: a weighted bisection splits to within a grain per cut.
      EXPECT_GT(r.rebalances, 0);
      EXPECT_LE(static_cast<double>(r.most_work), 1.05 * static_cast<double>(r.all_work) / ranks);
      std::printf(
          "%d ranks: %ld rebalances, %ld migrations, largest rank %ld of %ld grains, "
          "work %ld of %ld\n",
          ranks, r.rebalances, r.migrated, r.most_owned, r.all_owned, r.most_work, r.all_work);
    }
    if (o.rebalance_by_time && ranks > 1) {
      // 400 steps, a check every 5 (those after the pile formed share its island): the boxes
      // were drawn again for the busy times alone.
      EXPECT_GT(r.rebalances_by_time, 40);
      EXPECT_EQ(r.rebalances, r.rebalances_by_time);
      std::printf("%d ranks: %ld rebalances for the busy times, %ld migrations\n", ranks,
                  r.rebalances_by_time, r.migrated);
    }
    if (o.rebalance && ranks > 1) {
      EXPECT_EQ(r.rebalances_by_time, 0);
    }
    if (!o.rebalance && !o.rebalance_by_time) {
      EXPECT_EQ(r.rebalances, 0);
    }
  }
}

TEST(DecomposedWorld, ASpherePourOnOneToFourRanksIsTheSerialRunBitForBit) {
  expect_serial({}, 400);
}

TEST(DecomposedWorld, APileSweptByBlocksIsSolvedByEveryRankAsTheSerialRunBitForBit) {
  // The pile's island is swept by blocks; every rank holds it and sweeps its own blocks'
  // columns, passing on the velocities after each colour, and settles its own grains in the
  // shock pass, passing on those the others' grains rest on.
  expect_serial({.blocks = true}, 400);
}

TEST(DecomposedWorld, APileSolvedByFiveRanksIsTheSerialRunBitForBit) {
  // Past kMaximaWithStirredMembers a closing round's sweep takes the team's maxima in a
  // reduction of their own, not with the stirred bodies: the same bits.
  static_assert(kMaximaWithStirredMembers < 5);
  expect_serial({.blocks = true, .least_ranks = 5, .most_ranks = 5}, 400);
}

TEST(DecomposedWorld, APileSolvedByEveryRankOnTwoThreadsEachIsTheSerialRunBitForBit) {
  // Each rank sweeps its blocks of a colour on two threads and settles its bodies in the shock
  // pass on one (on 1 and 2 ranks: more threads than cores only wait at the colours' barriers).
  expect_serial({.blocks = true, .threads = 2, .most_ranks = 2}, 400);
}

TEST(DecomposedWorld, TwoPilesEachInOneRanksBoxAreSolvedByEveryRankAsTheSerialRun) {
  // Each pile is shared with a rank that holds none of its grains and none of its contacts: that
  // rank still takes its part in every exchange of the team's pass.
  const Options o{.blocks = true, .halves = true, .most_ranks = 2};
  SplitRun two;
  expect_serial(o, 300, &two);
  const long empty = two.empty;
  EXPECT_GT(empty, 0) << "a pile solved by a rank that holds none of it";
  std::printf("two piles on 2 ranks: %ld solved by a rank holding none of their contacts\n", empty);
}

TEST(DecomposedWorld, BoxesAndSleepingRegionsOnAPileSolvedByEveryRankAreTheSerialRun) {
  // The same with collisions of boxes, rolling and woken sleepers in the shared islands, and a
  // shared island that shrinks below pgs.block_contacts: the ranks that kept some of its
  // contacts send them again whole.
  expect_serial({.boxes = true, .sleep = true, .sleep_unit = SleepUnit::kRegion, .blocks = true},
                660);
}

TEST(DecomposedWorld, RebalancedRankBoxesKeepTheSerialRunBitForBit) {
  Options o;
  o.boxes = true;
  o.rebalance = true;
  expect_serial(o, 400);
}
TEST(DecomposedWorld, IslandsBesideTheLargestSolvedOnAnotherRankKeepTheSerialRunBitForBit) {
  // Islands are solved alone by their hosts (none is shared); from 20 contacts on, the rank
  // with the largest hands its other islands to another rank in the next sub-step (the pour's
  // first clusters while others still form; the pile later has no other island beside it).
  expect_serial({.offload_contacts = 20}, 400);
}
TEST(DecomposedWorld, RankBoxesDrawnForTheMeasuredBusyTimesKeepTheSerialRunBitForBit) {
  expect_serial({.rebalance_by_time = true, .blocks = true}, 400);
}

TEST(DecomposedWorld, SpheresAndBoxesOnOneToFourRanksAreTheSerialRunBitForBit) {
  expect_serial({.boxes = true}, 300);
}

TEST(DecomposedWorld, BoxesIntoANetOnOneToFourRanksAreTheSerialRunBitForBit) {
  expect_serial({.boxes = true, .net = true}, 300);
}

TEST(DecomposedWorld, BoxesIntoANetOnAPileSolvedByEveryRankAreTheSerialRunBitForBit) {
  // The net sags onto the spheres' pile, which every rank solves together: each stage of the
  // team's pass ends with every body on every member, and every grain goes whole, for the
  // island's host books the nets' nodes from every grain's result.
  expect_serial({.boxes = true, .net = true, .blocks = true}, 300);
}

TEST(DecomposedWorld, TheWallCorrectionOnOneToFourRanksIsTheSerialRunBitForBit) {
  expect_serial({.wall_correction = true}, 150);
}

TEST(DecomposedWorld, SleepingIslandsAndAGrainRemovedOnOneToFourRanksAreTheSerialRunBitForBit) {
  expect_serial({.sleep = true}, 660);
}

TEST(DecomposedWorld, SleepingRegionsAndAGrainRemovedOnOneToFourRanksAreTheSerialRunBitForBit) {
  // Regions fall asleep across rank boxes, are held as supports of the grains still moving,
  // wake when the late sphere lands or a held grain's load changes, and all wake on the event.
  expect_serial({.sleep = true, .sleep_unit = SleepUnit::kRegion}, 660);
}

TEST(DecomposedWorld, ANetOverSleepingRegionsOnOneToFourRanksIsTheSerialRunBitForBit) {
  // A net hangs above the spheres' pile (the late sphere tears through it): the pile falls
  // asleep by regions while the net's nodes stay awake, on every rank.
  expect_serial({.net = true, .net_height = 0.12, .sleep = true, .sleep_unit = SleepUnit::kRegion},
                660);
}

TEST(DecomposedWorld, AStepOfThePourTakesThreeExchangesAndTwoReductionsBesidesItsLabelRounds) {
  // The collectives of a split step with the resting pass (docs/distributed.md): per label
  // round two exchanges and a sum (the round bound rides on it); then the island parts,
  // the results (with the projection's contributions) and the grains; the ledger's sum (with
  // the stop flag) and one max for the deepest contact, the largest island, the halo's speed
  // and the next step's sub-steps. Only the first step counts its sub-steps apart. The check
  // for pairs the narrow phase missed (substep_missed) adds an exchange of the boundary grains'
  // velocities and a max to every step; it is off here, so the count is the step's own.
  // Sleep by regions adds one reduction to every sub-step (is any grain ready to sleep) and one
  // to the first (is any grain asleep: the ledger's max carries it to the sub-steps after); in
  // these 200 steps (a third of a second) no grain has rested the half second it needs, so it
  // adds nothing more.
  const long steps = 200;
  for (const bool sleep : {false, true})
    for (int ranks : {2, 3}) {
      SCOPED_TRACE(testing::Message() << ranks << " ranks" << (sleep ? ", sleep" : ""));
      std::mutex m;
      long exchanges = 0, reductions = 0, rounds = 0, spanning = 0;
      distributed::run_local_ranks(ranks, [&](Transport& t) {
        TestWorld mine(0.5, 0.5);
        pour(mine, {});
        mine.world.settings.substep_missed = false;
        mine.world.settings.sleep_velocity = sleep ? 0.01 : 0.0;
        DecomposedWorld split(mine.world, t);
        const TransportCounters before = t.counters();
        const long rounds_before = split.stats().label_rounds;
        for (long s = 0; s < steps; ++s) split.step();
        const TransportCounters after = t.counters();
        const long all_spanning = t.sum(split.stats().islands_spanning);  // after the count
        if (t.rank() != 0) return;
        std::lock_guard lock(m);
        exchanges = after.exchanges - before.exchanges;
        reductions = after.reductions - before.reductions;
        rounds = split.stats().label_rounds - rounds_before;
        spanning = all_spanning;
      });
      // Islands spanned the ranks in most steps, so the labels had boundaries to cross; a round
      // that leaves nothing to send ends them, so they settle in one or two rounds a step (not
      // in a last round confirming that nothing changed, which made it two or more).
      ASSERT_GT(spanning, steps / 2);
      EXPECT_LT(rounds, 2 * steps);
      EXPECT_EQ(exchanges, 2 * rounds + 3 * steps);
      EXPECT_EQ(reductions, rounds + (sleep ? 3 : 2) * steps + (sleep ? 2 : 1));
    }
}

/// A rank's transport that fails on rank `rank` at its `at`-th exchange: an error on one rank in
/// the middle of a step, while the others are inside its collectives.
class FailingTransport final : public Transport {
 public:
  FailingTransport(Transport& inner, int rank, long at) : inner_(inner), rank_(rank), at_(at) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }

 protected:
  std::vector<distributed::Message> do_exchange(std::vector<distributed::Message> out) override {
    if (inner_.rank() == rank_ && ++count_ == at_)
      throw std::runtime_error("non-finite state of body 7 on rank " + std::to_string(rank_));
    return inner_.exchange(std::move(out));
  }
  void do_post(std::vector<distributed::Message> out) override { inner_.post(std::move(out)); }
  std::vector<distributed::Message> do_collect(std::span<const int> from) override {
    return inner_.collect(from);
  }
  long do_sum(long v) override { return inner_.sum(v); }
  void do_sum(std::span<std::int64_t> v) override { inner_.sum(v); }
  double do_max(double v) override { return inner_.max(v); }
  void do_max(std::span<double> v) override { inner_.max(v); }

 private:
  Transport& inner_;
  int rank_;
  long at_, count_ = 0;
};

TEST(DecomposedWorld, AnErrorOnOneRankMidStepEndsEveryRankWithThatError) {
  // Three ranks; rank 1 fails at its 40th exchange (the pour's sixth step or so, inside the
  // step). Every other rank leaves its collective instead of waiting, and the run ends with
  // rank 1's error, once.
  std::vector<long> steps(3, -1);
  std::string message;
  int errors = 0;
  try {
    distributed::run_local_ranks(3, [&](Transport& inner) {
      FailingTransport t(inner, 1, 40);
      TestWorld full(0.5, 0.5);
      pour(full, {});
      DecomposedWorld split(full.world, t);
      for (long s = 0; s < 60; ++s) {
        split.step();
        steps[inner.rank()] = s + 1;
      }
    });
  } catch (const std::runtime_error& e) {
    message = e.what();
    ++errors;
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(message, "non-finite state of body 7 on rank 1");
  // Mid-run: some steps were taken, and no rank finished the run.
  for (long s : steps) {
    EXPECT_GE(s, 1);
    EXPECT_LT(s, 60);
  }
}

TEST(DecomposedWorld, WhatASplitRunDoesNotCarryIsRefusedByName) {
  auto refused = [](const std::function<void(TestWorld&)>& change, const std::string& name) {
    TestWorld t(0.5, 0.5);
    pour(t, {});
    change(t);
    std::string message;
    try {
      distributed::run_local_ranks(2, [&](Transport& tr) { DecomposedWorld split(t.world, tr); });
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(name), std::string::npos) << message;
  };
  refused([](TestWorld& t) { t.world.set_solver(make_solver(t.world.settings)); },
          "a solver of the user's own");
}

TEST(DecomposedWorld, PilesAreSolvedByEveryRankTogetherOnTwoToFourRanksByDefault) {
  // share_islands = "auto": every rank solves a pile together on 2 to kAutoShareRanks ranks,
  // where each holding the whole island costs less than one rank solving it; on more ranks a
  // pile is hosted unless "on". One rank has nothing to share.
  using Sharing = WorldSettings::IslandSharing;
  auto shares = [](int ranks, Sharing sharing) {
    TestWorld t(0.5, 0.5);
    pour(t, {});
    t.world.settings.share_islands = sharing;
    std::atomic<int> yes = 0;
    distributed::run_local_ranks(ranks, [&](Transport& tr) {
      DecomposedWorld split(t.world, tr);
      if (split.shared_islands()) ++yes;
    });
    EXPECT_TRUE(yes == 0 || yes == ranks) << ranks << " ranks disagree";
    return yes == ranks;
  };
  static_assert(DecomposedWorld::kAutoShareRanks == 4);
  EXPECT_FALSE(shares(1, Sharing::kAuto));
  EXPECT_TRUE(shares(2, Sharing::kAuto));
  EXPECT_TRUE(shares(4, Sharing::kAuto));
  EXPECT_FALSE(shares(5, Sharing::kAuto));
  EXPECT_FALSE(shares(1, Sharing::kOn));
  EXPECT_TRUE(shares(5, Sharing::kOn));
  EXPECT_FALSE(shares(2, Sharing::kOff));
}

}  // namespace
}  // namespace etdem::test
