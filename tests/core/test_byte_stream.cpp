// The byte streams the ranks' messages are written in (core/byte_stream.hpp).
#include "etdem/core/byte_stream.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace etdem {
namespace {

TEST(ByteStream, AWriterRefilledEachPhaseHandsOutCopiesAndKeepsItsRoom) {
  ByteWriter out;
  std::size_t room = 0;
  for (int phase = 0; phase < 3; ++phase) {
    for (std::int32_t k = 0; k < 1000; ++k) out.put(k + phase);
    out.put(Vec3(1.0, 2.0, 3.0 + phase));
    const std::size_t written = out.bytes().size();
    const std::string message = out.take_copy();
    // The copy holds what was written, at its own size; the writer is empty with its room.
    ASSERT_EQ(message.size(), written);
    EXPECT_TRUE(out.bytes().empty());
    EXPECT_GE(out.bytes().capacity(), written);
    if (phase > 0) {
      EXPECT_EQ(out.bytes().capacity(), room) << "grown once, in the first phase";
    }
    room = out.bytes().capacity();
    ByteReader in(message);
    for (std::int32_t k = 0; k < 1000; ++k) ASSERT_EQ(in.get<std::int32_t>(), k + phase);
    Vec3 v;
    in.get(v);
    EXPECT_EQ(v, Vec3(1.0, 2.0, 3.0 + phase));
    EXPECT_TRUE(in.done());
  }
  // take() hands over the bytes themselves, room and all.
  out.put(std::int32_t{7});
  const std::string taken = out.take();
  EXPECT_EQ(taken.size(), sizeof(std::int32_t));
}

TEST(ByteStream, AVectorIsItsLengthThenEachElementAsPutAlone) {
  // A vector of numbers goes in one append: the same bytes as its elements put one by one.
  const std::vector<std::int32_t> places = {3, -1, 70000, 0, 12};
  const std::vector<double> values = {0.1, -2.5e-300, 1e300, -0.0};
  const std::vector<Vec3> points = {Vec3(1.0, 2.0, 3.0), Vec3(-4.0, 0.5, 1e-9)};
  ByteWriter whole, one_by_one;
  whole.put(places), whole.put(values), whole.put(points), whole.put(std::vector<double>{});
  one_by_one.put(static_cast<std::uint64_t>(places.size()));
  for (const std::int32_t p : places) one_by_one.put(p);
  one_by_one.put(static_cast<std::uint64_t>(values.size()));
  for (const double v : values) one_by_one.put(v);
  one_by_one.put(static_cast<std::uint64_t>(points.size()));
  for (const Vec3& v : points) one_by_one.put(v);
  one_by_one.put(std::uint64_t{0});
  EXPECT_EQ(whole.bytes(), one_by_one.bytes());
  EXPECT_EQ(whole.bytes().size(),
            4 * sizeof(std::uint64_t) + places.size() * 4 + values.size() * 8 + points.size() * 24);
}

}  // namespace
}  // namespace etdem
