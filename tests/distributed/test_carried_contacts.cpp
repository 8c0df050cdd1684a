// The warm start a grain carries when it migrates to another rank (World::carried_contacts,
// World::restore_warm_start, collision/contact_record; docs/distributed.md "Still to do" 1):
// on a pour of spheres and boxes into a box of planes with a fixed block on its floor (a body
// of a smaller id than the grains it touches), last step's contacts split by the grain that
// carries them (its first grain), written as records, read back in a shuffled order of bodies and
// restored are the serial list bit for bit, and the world steps on exactly as the one that kept its
// own; a world that lost its warm start does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "etdem/collision/contact_record.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {
namespace {

void pour(TestWorld& t) {
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.add_container(Vec3(0, 0, 0), Vec3(0.06, 0.06, 1));
  // A fixed block on the floor, added before the grains: its pairs are (block, grain).
  t.add_box(Vec3(0.012, 0.012, 0.003), Vec3(0.03, 0.03, 0.003), Quat::Identity(), Vec3::Zero(),
            Vec3::Zero(), true);
  fill_spheres(t, 5, 5, 3, 0.005, 0.012, Vec3(0, 0, 0.008), 0.0, 7u, 0.3);
  // Boxes on top: manifolds of several points per pair.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t.add_box(Vec3(0.006, 0.005, 0.004), Vec3(0.012 + 0.018 * i, 0.012 + 0.018 * j, 0.06),
                Quat(Eigen::AngleAxisd(0.3 * (i + 3 * j), Vec3(0.3, 0.5, 1).normalized())));
  t.world.initialize();
}

TEST(CarriedContacts, AWorldGivenBackEveryBodysCarriedContactsStepsAsBefore) {
  TestWorld kept(0.5, 0.5), moved(0.5, 0.5), lost(0.5, 0.5);
  pour(kept), pour(moved), pour(lost);
  // Stepped from 0.25 s until boxes touch boxes: pairs of several points, whose order among
  // themselves the records must keep (the boxes' points on spheres are one per pair).
  auto multi_point_pairs = [](std::span<const Contact> serial) {
    long pairs = 0;
    for (std::size_t k = 1; k < serial.size(); ++k)
      pairs += serial[k].a == serial[k - 1].a && serial[k].b == serial[k - 1].b;
    return pairs;
  };
  kept.steps(150), moved.steps(150), lost.steps(150);
  for (int k = 0; k < 150 && multi_point_pairs(kept.world.contacts()) < 2; ++k)
    kept.steps(1), moved.steps(1), lost.steps(1);
  ASSERT_EQ(kept.state_hash(), moved.state_hash());
  const World& w = kept.world;
  const std::span<const Contact> serial = w.contacts();
  ASSERT_GT(serial.size(), 100u);
  EXPECT_GE(multi_point_pairs(serial), 2) << "the boxes' manifolds are in the list";

  // Each body's carried contacts as a record; the records gathered in a shuffled body order.
  std::vector<int> order(static_cast<std::size_t>(w.bodies.count()));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  const World::CarriedContacts by_grain = w.carried_contacts();
  std::vector<Contact> gathered;
  std::size_t carried = 0;
  long fixed_first = 0;  // pairs of the fixed block and a grain, carried by the grain
  for (const int i : order) {
    const std::span<const Contact> mine = by_grain.of(i);
    for (const Contact& c : mine) {
      EXPECT_TRUE(w.bodies.is_dynamic(i)) << "only grains carry contacts";
      EXPECT_TRUE(c.a == i || (c.b == i && !w.bodies.is_dynamic(c.a))) << "its first grain";
      fixed_first += c.b == i;
    }
    carried += mine.size();
    read_contact_record(write_contact_record(mine), gathered);
  }
  EXPECT_EQ(carried, serial.size()) << "every contact is carried by exactly one body";
  EXPECT_GT(fixed_first, 0) << "grains rest on the fixed block";

  // The serial order comes back by the key, bit for bit.
  std::vector<Contact> sorted = gathered;
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Contact& x, const Contact& y) {
    return w.contact_order_key(x) < w.contact_order_key(y);
  });
  EXPECT_EQ(write_contact_record(sorted), write_contact_record(serial));

  moved.world.restore_warm_start(gathered, w.warm_start_substep());
  lost.world.restore_warm_start({}, w.warm_start_substep());
  kept.steps(90), moved.steps(90), lost.steps(90);
  EXPECT_EQ(kept.state_hash(), moved.state_hash()) << "the restored warm start is the kept one";
  EXPECT_NE(kept.state_hash(), lost.state_hash()) << "the warm start matters to the trajectory";
}

TEST(CarriedContacts, BadRecordsAndContactsAreRefused) {
  TestWorld t(0.5, 0.5);
  pour(t);
  t.steps(100);
  std::vector<Contact> cs(t.world.contacts().begin(), t.world.contacts().end());
  ASSERT_FALSE(cs.empty());
  const std::string record = write_contact_record(cs);
  EXPECT_EQ(record.size(), 8 + cs.size() * kContactBytes);
  {  // written in place into a stream: the bytes of the record put as one string value
    ByteWriter copied, in_place;
    copied.put(std::int32_t{7});
    copied.put(record);
    in_place.put(std::int32_t{7});
    put_contact_record(in_place, cs);
    EXPECT_EQ(in_place.bytes(), copied.bytes());
  }
  {  // a chosen list renamed while written: the record of the renamed copies
    std::vector<std::int64_t> name(static_cast<std::size_t>(t.world.bodies.count()));
    for (std::size_t i = 0; i < name.size(); ++i) name[i] = 1000 + 3 * static_cast<long>(i);
    const std::vector<int> which = {static_cast<int>(cs.size()) - 1, 0, 1};
    std::vector<Contact> renamed;
    for (const int k : which) {
      Contact c = cs[static_cast<std::size_t>(k)];
      c.a = static_cast<int>(name[static_cast<std::size_t>(c.a)]);
      c.b = static_cast<int>(name[static_cast<std::size_t>(c.b)]);
      renamed.push_back(c);
    }
    ByteWriter copied, in_place;
    put_contact_record(copied, renamed);
    put_contact_record(in_place, cs, which, name);
    EXPECT_EQ(in_place.bytes(), copied.bytes());
  }
  {  // read in place: the bodies alone, and each contact where it is wanted
    const ContactRecordView view(record);
    ASSERT_EQ(view.size(), cs.size());
    for (const std::size_t k : {std::size_t{0}, cs.size() / 2, cs.size() - 1}) {
      EXPECT_EQ(view.a(k), cs[k].a);
      EXPECT_EQ(view.b(k), cs[k].b);
      Contact c;
      view.get(k, c);
      EXPECT_EQ(write_contact_record(std::span(&c, 1)), write_contact_record(std::span(&cs[k], 1)));
    }
    EXPECT_THROW(ContactRecordView(record.substr(0, record.size() - 1)), ByteStreamError);
    EXPECT_THROW(ContactRecordView(record + "x"), ByteStreamError);
    EXPECT_EQ(ContactRecordView(write_contact_record({})).size(), 0u);
  }
  std::vector<Contact> out(2);
  EXPECT_THROW(read_contact_record(record.substr(0, record.size() - 1), out), ByteStreamError);
  EXPECT_THROW(read_contact_record(record + "x", out), ByteStreamError);
  EXPECT_EQ(out.size(), 2u) << "a refused record appends nothing";
  read_contact_record(record, out);
  EXPECT_EQ(out.size(), 2 + cs.size());

  std::vector<Contact> bad = cs;
  bad[0].b = t.world.bodies.count();
  const std::string before = write_contact_record(t.world.carried_contacts().of(cs[0].a));
  EXPECT_THROW(t.world.restore_warm_start(bad, 1e-3), std::invalid_argument);
  EXPECT_THROW(t.world.restore_warm_start(cs, 0.0), std::invalid_argument);
  EXPECT_EQ(write_contact_record(t.world.carried_contacts().of(cs[0].a)), before) << "unchanged";
}

TEST(CarriedContacts, ARecordOfSomeContactsRenamedReadsBackBitForBitAndAResetViewReusesIt) {
  // put_contact_record(out, cs, which, name): what a rank sends the other members of a team of
  // the contacts of an island they solve together that they read (docs/distributed.md), its
  // bodies renamed to global ids; the members read it in place (ContactRecordView).
  TestWorld t(0.5, 0.5);
  pour(t);
  t.steps(100);
  std::vector<Contact> cs(t.world.contacts().begin(), t.world.contacts().end());
  ASSERT_GE(cs.size(), 10u);
  std::vector<std::int64_t> name(static_cast<std::size_t>(t.world.bodies.count()));
  for (std::size_t i = 0; i < name.size(); ++i) name[i] = 500 + 2 * static_cast<long>(i);
  std::vector<int> which;  // every third contact, last to first
  for (int k = static_cast<int>(cs.size()) - 1; k >= 0; --k)
    if (k % 3 == 1) which.push_back(k);
  ByteWriter out;
  out.put(std::int32_t{7});
  put_contact_record(out, cs, which, name);
  ByteReader in(out.bytes());
  EXPECT_EQ(in.get<std::int32_t>(), 7);
  const std::string_view record = in.view();
  EXPECT_TRUE(in.done());
  EXPECT_EQ(record.size(), 8 + which.size() * kContactBytes);
  ContactRecordView view(record);
  ASSERT_EQ(view.size(), which.size());
  for (std::size_t k = 0; k < which.size(); ++k) {
    Contact want = cs[static_cast<std::size_t>(which[k])];
    want.a = static_cast<int>(name[static_cast<std::size_t>(want.a)]);
    want.b = static_cast<int>(name[static_cast<std::size_t>(want.b)]);
    EXPECT_EQ(view.a(k), want.a);
    EXPECT_EQ(view.b(k), want.b);
    Contact c;
    view.get(k, c);
    EXPECT_EQ(write_contact_record(std::span(&c, 1)), write_contact_record(std::span(&want, 1)));
  }
  EXPECT_THROW(ContactRecordView(record.substr(0, record.size() - 1)), ByteStreamError);
  EXPECT_THROW(ContactRecordView(std::string(record) + "x"), ByteStreamError);
  // A view reset to another record: a damaged one leaves it viewing nothing, a good one after
  // it reads in full.
  EXPECT_THROW(view.reset(record.substr(0, record.size() - 1)), ByteStreamError);
  EXPECT_EQ(view.size(), 0u);
  const std::string whole = write_contact_record(cs);
  view.reset(whole);
  ASSERT_EQ(view.size(), cs.size());
  Contact back;
  view.get(cs.size() - 1, back);
  EXPECT_EQ(write_contact_record(std::span(&back, 1)),
            write_contact_record(std::span(&cs.back(), 1)));
}

}  // namespace
}  // namespace etdem::test
