// A body's state as bytes (core/body_record), as a migrating or ghost grain carries it: read
// back it is the body written, bit for bit (a distributed run is byte-identical to serial only
// if nothing is rounded on the way); a damaged record is refused and leaves the bodies as they
// were.
#include <gtest/gtest.h>

#include <cstring>

#include "etdem/core/body_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "random_bodies.hpp"

namespace etdem {
namespace {

bool same_bits(const Bodies& a, int i, const Bodies& b, int j) {
  auto eq = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof(x)) == 0; };
  return eq(a.position[i], b.position[j]) &&
         eq(a.orientation[i].coeffs(), b.orientation[j].coeffs()) &&
         eq(a.velocity[i], b.velocity[j]) && eq(a.angular_velocity[i], b.angular_velocity[j]) &&
         eq(a.inv_mass[i], b.inv_mass[j]) && eq(a.inv_inertia[i], b.inv_inertia[j]) &&
         eq(a.inv_inertia_world[i], b.inv_inertia_world[j]) && a.shape[i] == b.shape[j] &&
         a.material[i] == b.material[j] && a.flags[i] == b.flags[j] && eq(a.mass[i], b.mass[j]) &&
         eq(a.inertia[i], b.inertia[j]) && a.name[i] == b.name[j];
}

using test::random_bodies;

TEST(BodyRecord, ARecordReadBackIsTheBodyBitForBit) {
  const Bodies a = random_bodies(50, 3);
  Bodies appended;
  Bodies refreshed = random_bodies(50, 4);  // other bodies, overwritten in place
  for (int i = 0; i < a.count(); ++i) {
    const std::string rec = write_body_record(a, i, 0.125 * i);
    double extra = -1.0;
    const int j = append_body_record(rec, appended, &extra);
    EXPECT_EQ(j, i);
    EXPECT_EQ(extra, 0.125 * i);
    EXPECT_TRUE(same_bits(a, i, appended, j)) << "body " << i;
    const int k = a.count() - 1 - i;  // a different slot
    EXPECT_EQ(read_body_record(rec, refreshed, k), 0.125 * i);
    EXPECT_TRUE(same_bits(a, i, refreshed, k)) << "body " << i;
  }
}

TEST(BodyRecord, ARecordWrittenInPlaceIsTheRecordPutAsAString) {
  const Bodies a = random_bodies(20, 5);
  for (int i = 0; i < a.count(); ++i) {
    ByteWriter copied, in_place;
    copied.put(std::int32_t{3});
    copied.put(write_body_record(a, i, 0.5 * i));
    in_place.put(std::int32_t{3});
    put_body_record(in_place, a, i, 0.5 * i);
    EXPECT_EQ(in_place.bytes(), copied.bytes()) << "body " << i;
  }
}

TEST(BodyRecord, ACopyAppendedIsTheBodyAsARecordReadBackGivesIt) {
  // A split run keeps the grains that stay on their rank by copying them (Bodies::append_copy)
  // and reads the others from records: both must give the same bits.
  const Bodies a = random_bodies(30, 6);
  Bodies copied, read;
  copied.reserve(static_cast<std::size_t>(a.count()));
  for (int i = a.count() - 1; i >= 0; --i) {
    const int j = copied.append_copy(a, i);
    EXPECT_EQ(append_body_record(write_body_record(a, i), read), j);
    EXPECT_TRUE(same_bits(a, i, copied, j)) << "body " << i;
    EXPECT_TRUE(same_bits(read, j, copied, j)) << "body " << i;
  }
  EXPECT_EQ(copied.count(), a.count());
  // Copied in place over another body (a split run's walls refreshed): the same bits.
  for (int i = 0; i < a.count(); ++i) {
    copied.copy(i, a, a.count() - 1 - i);
    EXPECT_TRUE(same_bits(a, a.count() - 1 - i, copied, i)) << "body " << i;
  }
}

TEST(BodyRecord, ARunOfCopiesIsEachBodyCopiedInTurn) {
  // A rebuilt world copies the grains that stayed and lie together in the old world as a run
  // (Bodies::append_copies): every field of every body as append_copy gives it, after the bodies
  // already there, the names (not plain data) included.
  const Bodies a = random_bodies(40, 11);
  Bodies by_run = random_bodies(3, 12), one_by_one = by_run;
  for (const auto& [first, n] : {std::pair{0, 7}, std::pair{7, 1}, std::pair{12, 28}}) {
    by_run.append_copies(a, first, n);
    for (int i = first; i < first + n; ++i) one_by_one.append_copy(a, i);
  }
  ASSERT_EQ(by_run.count(), 3 + 36);
  ASSERT_EQ(by_run.name.size(), by_run.position.size());
  ASSERT_EQ(by_run.inertia.size(), by_run.position.size());
  for (int j = 0; j < by_run.count(); ++j)
    EXPECT_TRUE(same_bits(by_run, j, one_by_one, j)) << "body " << j;
  EXPECT_TRUE(same_bits(by_run, 3 + 8, a, 12));  // the third run's first
}

TEST(BodyRecord, ADamagedRecordIsRefusedAndLeavesTheBodiesAsTheyWere) {
  const Bodies a = random_bodies(3, 9);
  const std::string rec = write_body_record(a, 1);
  Bodies b = random_bodies(2, 10);
  EXPECT_THROW(append_body_record(rec.substr(0, rec.size() - 3), b), ByteStreamError);
  EXPECT_THROW(append_body_record(rec + "x", b), ByteStreamError);
  EXPECT_EQ(b.count(), 2);
  EXPECT_EQ(b.position.size(), 2u);
  EXPECT_EQ(b.inv_inertia_world.size(), 2u);
  EXPECT_EQ(b.name.size(), 2u);
}

}  // namespace
}  // namespace etdem
