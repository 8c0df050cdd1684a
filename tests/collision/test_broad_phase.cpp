// The broad phase finds exactly the overlapping pairs a brute-force test finds, whatever the
// scene's extent: a body 1e18 m or 1e308 m away, or one with a non-finite box, neither crashes
// it nor makes its memory grow with the distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>

#include "etdem/collision/broad_phase.hpp"
#include "etdem/collision/pair_list.hpp"

namespace etdem {
namespace {

std::vector<std::pair<int, int>> brute_force(const std::vector<Aabb>& boxes) {
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i)
    for (int j = i + 1; j < static_cast<int>(boxes.size()); ++j)
      if (boxes[i].overlaps(boxes[j])) pairs.push_back({i, j});
  return pairs;
}

std::vector<Aabb> random_boxes(int n, double span, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Aabb> boxes;
  for (int k = 0; k < n; ++k) {
    const Vec3 c = span * Vec3(u(rng), u(rng), u(rng));
    const double r = 0.01 * (0.5 + u(rng));
    boxes.push_back({c.array() - r, c.array() + r});
  }
  return boxes;
}

TEST(BroadPhase, PairsEqualBruteForceWithFarAndNonFiniteBodies) {
  for (const double far : {0.0, 1e6, 1e18, 1e308, std::numeric_limits<double>::infinity()}) {
    std::vector<Aabb> boxes = random_boxes(2000, 0.3, 7);
    if (far != 0.0) {
      boxes[10] = {Vec3(far, 0, 0), Vec3(far, 0.01, 0.01)};
      boxes[20] = {Vec3(-far, -far, 0), Vec3(-far, -far, 0.01)};
      boxes[30] = {Vec3(0.1, 0.1, far), Vec3(0.11, 0.11, far)};
    }
    std::vector<int> ids(boxes.size());
    for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int>(k);
    BroadPhase bp;
    std::vector<std::pair<int, int>> pairs;
    bp.find_pairs(boxes, ids, pairs);
    EXPECT_EQ(pairs, brute_force(boxes)) << "far = " << far;
  }
  // A NaN box overlaps nothing and is skipped, not a crash.
  std::vector<Aabb> boxes = random_boxes(500, 0.2, 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  boxes[5] = {Vec3(nan, 0, 0), Vec3(nan, 1, 1)};
  std::vector<int> ids(boxes.size());
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = static_cast<int>(k);
  BroadPhase bp;
  std::vector<std::pair<int, int>> pairs;
  bp.find_pairs(boxes, ids, pairs);
  EXPECT_EQ(pairs, brute_force(boxes));
}

// The kept pairs give, every step, exactly the pairs the grid finds on that step's boxes (body
// ids mapped back, sorted), while boxes wander about; they are rebuilt only when a box leaves its
// reach, another body set arrives or a box is NaN.
TEST(PairList, SelectsExactlyTheOverlappingPairsWhileBoxesMove) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> jiggle(0.0, 5e-5);
  std::vector<Aabb> boxes = random_boxes(1500, 0.25, 5);
  std::vector<int> ids(boxes.size());
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = 3 * static_cast<int>(k) + 1;
  auto as_ids = [&](std::vector<std::pair<int, int>> slot_pairs) {
    for (auto& [i, j] : slot_pairs) i = ids[i], j = ids[j];
    return slot_pairs;
  };
  auto grown = [](const std::vector<Aabb>& b) {
    std::vector<Aabb> r(b);
    for (Aabb& x : r) x = {x.min.array() - 1e-3, x.max.array() + 1e-3};
    return r;
  };
  BroadPhase bp;
  PairList list;
  std::vector<std::pair<int, int>> pairs;
  const int steps = 60;
  for (int step = 0; step < steps; ++step) {
    for (Aabb& b : boxes) {
      const Vec3 d(jiggle(rng), jiggle(rng), jiggle(rng));
      b = {b.min + d, b.max + d};
    }
    if (list.ids != ids || !list.outside(boxes).empty()) list.rebuild(bp, grown(boxes), ids);
    list.select(boxes, pairs);
    ASSERT_EQ(pairs, as_ids(brute_force(boxes))) << "step " << step;
  }
  // A random walk of 0.09 mm per step and axis leaves a 1 mm reach now and then, not every step.
  EXPECT_GT(list.builds, 1);
  EXPECT_LT(list.builds, steps / 2);
  // A NaN box is never inside its reach.
  list.rebuild(bp, grown(boxes), ids);
  EXPECT_TRUE(list.outside(boxes).empty());
  boxes[7].min.x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(list.outside(boxes), std::vector<int>{7});
}

// Boxes outside their reach get new reach boxes and their pairs found again through the last
// build's grid (PairList::update), the others' pairs kept: after every update the list must be
// what a rebuild from the same reach boxes gives, pair for pair and in order, and the step's
// pairs those of brute force. Most boxes jiggle; a few jump (a grain falling past its reach),
// now and then one jumps across the scene (beyond what the grid answers) or goes NaN.
TEST(PairList, UpdatesGiveTheRebuildsPairsInOrder) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> jiggle(0.0, 2e-5);
  std::uniform_int_distribution<int> pick(0, 1499);
  std::uniform_real_distribution<double> jump(-4e-3, 4e-3), anywhere(0.0, 0.25);
  std::vector<Aabb> boxes = random_boxes(1500, 0.25, 5);
  std::vector<int> ids(boxes.size());
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = 2 * static_cast<int>(k);
  auto as_ids = [&](std::vector<std::pair<int, int>> slot_pairs) {
    for (auto& [i, j] : slot_pairs) i = ids[i], j = ids[j];
    return slot_pairs;
  };
  auto grow = [](const Aabb& x) { return Aabb{x.min.array() - 1e-3, x.max.array() + 1e-3}; };
  BroadPhase bp, fresh_bp;
  PairList list, fresh;
  std::vector<std::pair<int, int>> pairs;
  const int steps = 200;
  long moved_slots = 0;
  for (int step = 0; step < steps; ++step) {
    for (Aabb& b : boxes) {
      const Vec3 d(jiggle(rng), jiggle(rng), jiggle(rng));
      b = {b.min + d, b.max + d};
    }
    for (int j = 0; j < 3; ++j) {  // a few jumps out of the reach
      Aabb& b = boxes[pick(rng)];
      const Vec3 d(jump(rng), jump(rng), jump(rng));
      b = {b.min + d, b.max + d};
    }
    if (step % 50 == 25) {  // one box across the scene
      Aabb& b = boxes[pick(rng)];
      const Vec3 d = Vec3(anywhere(rng), anywhere(rng), anywhere(rng)) - b.min;
      b = {b.min + d, b.max + d};
    }
    const bool nan = step == 120;
    const Aabb kept = boxes[9];
    if (nan) boxes[9].min.y() = std::numeric_limits<double>::quiet_NaN();
    bool updated = false;
    if (list.ids == ids) {
      const std::vector<int> moved = list.outside(boxes);
      if (moved.empty()) continue;
      std::vector<Aabb> grown;
      for (const int k : moved) grown.push_back(grow(boxes[k]));
      updated = list.update(bp, moved, grown);
      if (updated) moved_slots += static_cast<long>(moved.size());
    }
    if (!updated) {
      std::vector<Aabb> reach(boxes);
      for (Aabb& x : reach) x = grow(x);
      list.rebuild(bp, reach, ids);
    }
    if (nan) {
      EXPECT_FALSE(updated) << "a NaN box is not updated, the list is rebuilt";
      boxes[9] = kept;
      list.clear();
      continue;
    }
    fresh.rebuild(fresh_bp, list.reach, ids);
    ASSERT_EQ(list.pairs, fresh.pairs) << "step " << step;
    list.select(boxes, pairs);
    ASSERT_EQ(pairs, as_ids(brute_force(boxes))) << "step " << step;
  }
  // Updates did most of the work; the builds are the first, the NaN's, the one after it and
  // those forced by boxes across the scene or too many displaced reach boxes.
  EXPECT_GT(list.updates, steps / 2);
  EXPECT_GT(moved_slots, list.updates);
  EXPECT_LT(list.builds, steps / 10);
  std::printf("%ld updates (%ld slots), %ld builds\n", list.updates, moved_slots, list.builds);
}

// Another set of bodies, renumbered (a rank whose ghosts come and go every step): the bodies in
// both sets keep their reach boxes and pairs (PairList::renumber, PairList::adopt), the new ones
// are found through the last build's grid. After every step the list must be what a rebuild from
// the same reach boxes gives, pair for pair and in order, and the step's pairs those of brute
// force on the bodies present, while rebuilds stay rare.
TEST(PairList, AnotherSetOfBodiesKeepsThePairsOfThoseInBoth) {
  std::mt19937_64 rng(31);
  std::normal_distribution<double> jiggle(0.0, 2e-5);
  std::uniform_int_distribution<int> pick(0, 1499);
  std::vector<Aabb> all = random_boxes(1500, 0.25, 9);
  std::vector<char> present(all.size(), 1);
  for (int u = 0; u < 1500; u += 5) present[u] = 0;
  auto grow = [](const Aabb& x) { return Aabb{x.min.array() - 1e-3, x.max.array() + 1e-3}; };
  BroadPhase bp, fresh_bp;
  PairList list, fresh;
  std::vector<int> local;  // per body present, ascending: its index in `all`
  std::vector<std::pair<int, int>> pairs;
  const int steps = 200;
  for (int step = 0; step < steps; ++step) {
    for (Aabb& b : all) {
      const Vec3 d(jiggle(rng), jiggle(rng), jiggle(rng));
      b = {b.min + d, b.max + d};
    }
    // Eight bodies come or go; the ids are renumbered to the order of the bodies present.
    for (int k = 0; k < 8; ++k) present[static_cast<std::size_t>(pick(rng))] ^= 1;
    std::vector<int> now, new_id(local.size(), -1);
    for (int u = 0; u < 1500; ++u)
      if (present[static_cast<std::size_t>(u)]) now.push_back(u);
    for (std::size_t l = 0; l < local.size(); ++l) {
      const auto it = std::lower_bound(now.begin(), now.end(), local[l]);
      if (it != now.end() && *it == local[l]) new_id[l] = static_cast<int>(it - now.begin());
    }
    EXPECT_TRUE(list.renumber(new_id));
    local = now;
    std::vector<Aabb> boxes;
    std::vector<int> ids;
    for (std::size_t l = 0; l < local.size(); ++l) {
      boxes.push_back(all[static_cast<std::size_t>(local[l])]);
      ids.push_back(static_cast<int>(l));
    }
    bool covered = false;
    if (list.adopt(ids)) {
      EXPECT_EQ(list.ids, ids);
      const std::vector<int> moved = list.outside(boxes);
      covered = moved.empty();
      if (!covered) {
        std::vector<Aabb> grown;
        for (const int k : moved) grown.push_back(grow(boxes[static_cast<std::size_t>(k)]));
        covered = list.update(bp, moved, grown);
      }
    }
    if (!covered) {
      std::vector<Aabb> reach(boxes);
      for (Aabb& x : reach) x = grow(x);
      list.rebuild(bp, reach, ids);
    }
    fresh.rebuild(fresh_bp, list.reach, ids);
    ASSERT_EQ(list.pairs, fresh.pairs) << "step " << step;
    list.select(boxes, pairs);
    ASSERT_EQ(pairs, brute_force(boxes)) << "step " << step;
  }
  // About four new bodies a step are displaced reach boxes until they pass one in
  // kMostDisplaced of the list: a rebuild about every 20 steps, and updates otherwise.
  EXPECT_GT(list.updates, steps * 8 / 10);
  EXPECT_LE(list.builds, steps / 10);
  std::printf("%ld updates, %ld builds\n", list.updates, list.builds);
  // Ids that would no longer ascend are not carried: the list is dropped.
  std::vector<int> swapped(local.size());
  for (std::size_t l = 0; l < local.size(); ++l)
    swapped[l] = static_cast<int>(local.size() - 1 - l);
  EXPECT_FALSE(list.renumber(swapped));
  EXPECT_TRUE(list.ids.empty() && list.pairs.empty());
}

}  // namespace
}  // namespace etdem
