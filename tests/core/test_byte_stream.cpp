// The byte streams the ranks' messages are written in (core/byte_stream.hpp).
#include "etdem/core/byte_stream.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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

}  // namespace
}  // namespace etdem
