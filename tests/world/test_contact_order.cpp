// The serial contact order as a key (world/contact_order): on a pile poured into a box of
// planes, every step's contact list is sorted by the key, and contacts handed over in any
// order of pairs (as a host receives them from several ranks) come back to the serial list,
// bit for bit, by a stable sort on the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "etdem/world/contact_order.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

TEST(ContactOrder, AStableSortByTheKeyRestoresTheSerialContactList) {
  TestWorld t(0.5, 0.5);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  const double r = 0.005;
  t.add_container(Vec3(0, 0, 0), Vec3(0.06, 0.06, 1));
  fill_spheres(t, 5, 5, 4, r, 0.012, Vec3(0, 0, 0), 0.0, 21u, 0.3);
  t.world.initialize();
  const World& w = t.world;
  auto key = [&](const Contact& c) { return w.contact_order_key(c); };
  std::mt19937 rng(1);
  long checked = 0, wall_contacts = 0, pair_contacts = 0;
  for (int step = 0; step < 240; ++step) {  // 0.4 s: the grains land and pile up
    t.world.step();
    if (step % 20 != 19) continue;
    const std::span<const Contact> serial = w.contacts();
    for (std::size_t k = 1; k < serial.size(); ++k)
      ASSERT_FALSE(key(serial[k]) < key(serial[k - 1])) << "step " << step << " contact " << k;
    // Split into runs of one pair, shuffle the runs, sort back.
    std::vector<std::vector<Contact>> runs;
    for (std::size_t k = 0; k < serial.size(); ++k) {
      if (k == 0 || key(serial[k - 1]) < key(serial[k])) runs.emplace_back();
      runs.back().push_back(serial[k]);
      (key(serial[k]).against_unbounded ? wall_contacts : pair_contacts) += 1;
    }
    std::shuffle(runs.begin(), runs.end(), rng);
    std::vector<Contact> gathered;
    for (const auto& run : runs) gathered.insert(gathered.end(), run.begin(), run.end());
    std::stable_sort(gathered.begin(), gathered.end(),
                     [&](const Contact& x, const Contact& y) { return key(x) < key(y); });
    ASSERT_EQ(gathered.size(), serial.size());
    for (std::size_t k = 0; k < serial.size(); ++k)
      ASSERT_EQ(std::memcmp(&gathered[k], &serial[k], sizeof(Contact)), 0) << "contact " << k;
    ++checked;
  }
  EXPECT_EQ(checked, 12);
  // Both kinds were there to order: grains on grains and grains on the walls.
  EXPECT_GT(pair_contacts, 100);
  EXPECT_GT(wall_contacts, 100);
}

}  // namespace
}  // namespace etdem::test
