// Islands across MPI ranks (distributed/island_labels over the MPI transport) against the serial
// union-find, on random contact graphs cut into slabs, one per rank. Run by ctest with 1-4
// ranks (tests/distributed/mpi/run_mpi.sh). With --fail-on-rank R, rank R throws before the
// labelling: every rank must end with exit code 2 and the failed rank's one-line message, none may
// hang. Point-to-point messages are checked too (check_posted).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed_graphs.hpp"
#include "etdem/distributed/mpi/mpi_transport.hpp"

using namespace etdem::distributed;
using namespace etdem::distributed::test_graphs;

namespace {

/// Mismatches with the serial labels on this rank (printed), for one graph.
long check_graph(const GlobalGraph& g, MpiTransport& t, int& max_rounds) {
  const LocalContactGraph view = local_view(g, t.rank());
  IslandLabelStats stats;
  const std::vector<IslandLabel> got = label_islands(view, t, &stats);
  max_rounds = std::max(max_rounds, stats.rounds);
  const std::vector<IslandLabel> expected = serial_labels(g);
  long bad = 0;
  for (std::size_t i = 0; i < view.gid.size(); ++i) {
    if (got[i].root < 0) continue;  // untouched on this rank
    const IslandLabel& e = expected[static_cast<std::size_t>(view.gid[i])];
    if (!(got[i] == e)) {
      if (bad++ < 5)
        std::fprintf(stderr, "rank %d: body %lld labelled (%lld, %d), serial (%lld, %d)\n",
                     t.rank(), static_cast<long long>(view.gid[i]),
                     static_cast<long long>(got[i].root), got[i].host,
                     static_cast<long long>(e.root), e.host);
    }
  }
  // Every body of an island is labelled on its owner.
  for (int b = 0; b < g.bodies; ++b) {
    if (expected[b].root < 0 || g.owner[b] != t.rank()) continue;
    bool found = false;
    for (std::size_t i = 0; i < view.gid.size(); ++i)
      found = found || (view.gid[i] == b && got[i].root >= 0);
    if (!found && bad++ < 5) std::fprintf(stderr, "rank %d: body %d unlabelled\n", t.rank(), b);
  }
  if (stats.rounds > stats.round_bound) ++bad;
  return bad;
}

/// Point-to-point messages (MpiTransport::post and collect): every rank posts three rounds to
/// every other before taking any, one of them empty between odd pairs; each source's messages
/// must arrive whole and in order. Returns the mismatches on this rank.
long check_posted(MpiTransport& t) {
  const int me = t.rank(), ranks = t.size();
  auto text = [](int from, int to, int round) {
    if (round == 1 && (from + to) % 2 == 1) return std::string();
    return std::to_string(from) + ">" + std::to_string(to) + "#" + std::to_string(round) +
           std::string(static_cast<std::size_t>(4000 * round), 'x');  // one over the eager size
  };
  for (int round = 0; round < 3; ++round) {
    std::vector<Message> out;
    for (int to = 0; to < ranks; ++to)
      if (to != me) out.push_back({to, text(me, to, round)});
    t.post(std::move(out));
  }
  std::vector<int> from;
  for (int r = 0; r < ranks; ++r)
    if (r != me) from.push_back(r);
  long bad = 0;
  for (int round = 0; round < 3; ++round) {
    const std::vector<Message> got = t.collect(from);
    if (got.size() != from.size()) ++bad;
    for (std::size_t k = 0; k < got.size() && k < from.size(); ++k)
      if (got[k].peer != from[k] || got[k].bytes != text(from[k], me, round)) ++bad;
  }
  if (bad) std::fprintf(stderr, "rank %d: %ld posted messages wrong\n", me, bad);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession session(argc, argv);
  MpiTransport t;
  int fail_on = -1;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--fail-on-rank") == 0) fail_on = std::atoi(argv[i + 1]);
  try {
    if (t.rank() == fail_on)
      throw std::runtime_error("rank " + std::to_string(fail_on) + ": bad input (on purpose)");
    long bad = 0;
    int rounds = 0;
    for (unsigned seed = 1; seed <= 3; ++seed) {
      bad += check_graph(random_graph(400, 0.04, t.size(), seed), t, rounds);
      bad += check_graph(random_graph(400, 0.09, t.size(), seed + 10), t, rounds);
    }
    bad += check_posted(t);
    // The ledger's reduction: every rank's exact partial sum merged equals the serial sum.
    etdem::ExactSum serial, part;
    for (int i = 0; i < 5000; ++i) {
      const double v = std::ldexp(1.0 + i * 1e-4, (i * 31) % 80 - 40) * (i % 3 ? 1 : -1);
      serial += v;
      if (i % t.size() == t.rank()) part += v;
    }
    if (t.sum(part).value() != serial.value()) {
      std::fprintf(stderr, "rank %d: the exact sum over ranks differs from the serial one\n",
                   t.rank());
      ++bad;
    }
    const long total = t.sum(bad);
    if (t.rank() == 0)
      std::printf(
          "%d ranks: %ld mismatches; rank 0 sent %ld messages, %ld bytes; at most %d "
          "label rounds\n",
          t.size(), total, t.counters().messages, t.counters().bytes, rounds);
    return total == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    t.abort(e.what(), 2);
  }
}
