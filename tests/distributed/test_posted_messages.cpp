// Point-to-point messages with known peers (Transport::post and collect) on 1-5 thread-ranks:
// each message reaches its peer whole, one source's messages in the order it posted them, an
// empty one too; a rank waits only for the sources it names; and a rank that fails while
// another waits for its message ends the run with its error, without a hang.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "etdem/distributed/local_transport.hpp"

namespace etdem::distributed {
namespace {

std::string text(int from, int to, int round) {
  // Round 1 is empty between odd pairs: an empty message still arrives.
  if (round == 1 && (from + to) % 2 == 1) return "";
  return std::to_string(from) + ">" + std::to_string(to) + "#" + std::to_string(round) +
         std::string(static_cast<std::size_t>(37 * round), 'x');
}

TEST(PostedMessages, EachSourcesMessagesArriveWholeAndInTheOrderPosted) {
  for (int ranks = 1; ranks <= 5; ++ranks) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    std::vector<int> wrong(ranks, 0);
    run_local_ranks(ranks, [&](Transport& t) {
      const int me = t.rank();
      // Three rounds posted before any is taken: the sends do not wait for the receivers.
      for (int round = 0; round < 3; ++round) {
        std::vector<Message> out;
        for (int to = ranks - 1; to >= 0; --to)  // any order of peers
          if (to != me) out.push_back({to, text(me, to, round)});
        t.post(std::move(out));
      }
      std::vector<int> from;
      for (int r = 0; r < ranks; ++r)
        if (r != me) from.push_back(r);
      for (int round = 0; round < 3; ++round) {
        const std::vector<Message> got = t.collect(from);
        if (got.size() != from.size()) ++wrong[me];
        for (std::size_t k = 0; k < got.size() && k < from.size(); ++k)
          if (got[k].peer != from[k] || got[k].bytes != text(from[k], me, round)) ++wrong[me];
      }
      // A rank that names no source does not wait.
      if (!t.collect({}).empty()) ++wrong[me];
    });
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(wrong[r], 0) << "rank " << r;
  }
}

TEST(PostedMessages, ARankWaitingForAFailedRanksMessageEndsWithItsError) {
  std::string message;
  try {
    run_local_ranks(3, [&](Transport& t) {
      if (t.rank() == 1) throw std::runtime_error("rank 1 failed before posting");
      const std::vector<int> from{1};
      t.collect(from);  // waits for rank 1, which never posts
    });
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "rank 1 failed before posting");
}

TEST(PostedMessages, APostToItselfOrNoRankIsRefused) {
  EXPECT_THROW(run_local_ranks(2,
                               [&](Transport& t) {
                                 t.post({{t.rank(), "x"}});
                               }),
               std::invalid_argument);
  EXPECT_THROW(run_local_ranks(2,
                               [&](Transport& t) {
                                 t.post({{5, "x"}});
                               }),
               std::invalid_argument);
}

}  // namespace
}  // namespace etdem::distributed
