#include "etdem/distributed/island_labels.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/sort_runs.hpp"
#include "etdem/core/union_find.hpp"

namespace etdem::distributed {
namespace {

/// Records of one round's messages, grouped by destination rank; each destination gets one
/// message with (global id, root, host) triples.
class Outbox {
 public:
  void add(int peer, std::int64_t gid, const IslandLabel& label) {
    ByteWriter& w = writers_[peer];
    w.put(gid);
    w.put(label.root);
    w.put(static_cast<std::int32_t>(label.host));
  }
  std::vector<Message> take() {
    std::vector<Message> out;
    for (auto& [peer, w] : writers_) out.push_back({peer, w.take()});
    writers_.clear();
    return out;
  }

 private:
  std::map<int, ByteWriter> writers_;  // ordered by peer: the same messages on every run
};

template <class F>
void read_records(const std::vector<Message>& received, F&& f) {
  for (const Message& m : received) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      const auto gid = r.get<std::int64_t>();
      IslandLabel label;
      label.root = r.get<std::int64_t>();
      label.host = r.get<std::int32_t>();
      f(m.peer, gid, label);
    }
  }
}

}  // namespace

std::vector<IslandLabel> label_islands(const LocalContactGraph& graph, Transport& transport,
                                       IslandLabelStats* stats) {
  const int n = static_cast<int>(graph.gid.size());
  if (static_cast<int>(graph.owner.size()) != n || static_cast<int>(graph.touched.size()) != n)
    throw std::invalid_argument("label_islands: gid, owner and touched differ in length");
  const int me = transport.rank();

  std::vector<char> touched = graph.touched;  // owners add bodies only ghosts touched

  // 1. Local components.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (auto [a, b] : graph.edges) {
    if (a < 0 || b < 0 || a >= n || b >= n || !touched[a] || !touched[b])
      throw std::invalid_argument(
          "label_islands: an edge names a local body out of range or "
          "not touched");
    unite(parent, a, b);
  }
  // The component's label starts as its smallest global id and that body's owner.
  std::vector<IslandLabel> comp(n);  // indexed by the component's root (a local index)
  long components = 0;
  for (int i = 0; i < n; ++i) {
    if (!touched[i]) continue;
    IslandLabel& c = comp[find_root(parent, i)];
    if (c.root < 0) ++components;
    if (c.root < 0 || graph.gid[i] < c.root) c = {graph.gid[i], graph.owner[i]};
  }
  auto lower = [&](int body, const IslandLabel& label) {
    IslandLabel& c = comp[find_root(parent, body)];
    if (label.root < c.root) c = label;
  };

  // 2. Rounds along shared bodies. Ghost holders report to owners; owners answer every rank
  //    that reported the body, whenever the owner knows a smaller label than it last sent.
  // Global id -> local index: the ids ascending (a rank's bodies come so: one run to merge),
  // looked up by bisection; -1 for an id not held here.
  std::vector<std::pair<std::int64_t, int>> by_gid(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) by_gid[static_cast<std::size_t>(i)] = {graph.gid[i], i};
  stable_sort_runs(by_gid, [](const auto& x, const auto& y) { return x.first < y.first; });
  auto local_of = [&](std::int64_t gid) {
    const auto it = std::lower_bound(by_gid.begin(), by_gid.end(), gid,
                                     [](const auto& e, std::int64_t g) { return e.first < g; });
    return it != by_gid.end() && it->first == gid ? it->second : -1;
  };
  std::vector<int> ghosts;
  for (int i = 0; i < n; ++i)
    if (touched[i] && graph.owner[i] != me) ghosts.push_back(i);
  std::vector<std::int64_t> reported(n, -1);  // per ghost: the root last sent to its owner
  // Per owned body: the ranks that reported it, and the root last sent to them.
  std::map<int, std::vector<std::pair<int, std::int64_t>>> subscribers;

  // A label moves at least one hop of the graph of components (one per rank and local
  // component, owners' singletons included) per round, so rounds <= their number + 1. Their
  // count travels with each round's reduction (the bound, at least 2, is first needed before
  // the second round).
  long bound = -1;
  int rounds = 0;
  for (;;) {
    if (bound >= 0 && rounds >= bound)
      throw std::logic_error("label_islands: " + std::to_string(bound) +
                             " rounds without settling (inconsistent ghosts or owners)");
    ++rounds;
    // 2a. ghost -> owner
    Outbox up;
    for (int g : ghosts) {
      const IslandLabel& c = comp[find_root(parent, g)];
      if (c.root != reported[g]) {
        up.add(graph.owner[g], graph.gid[g], c);
        reported[g] = c.root;
      }
    }
    read_records(transport.exchange(up.take()), [&](int from, std::int64_t gid, IslandLabel l) {
      const int body = local_of(gid);
      if (body < 0 || graph.owner[body] != me)
        throw std::logic_error("label_islands: rank " + std::to_string(from) + " reported body " +
                               std::to_string(gid) + " to rank " + std::to_string(me) +
                               ", which does not own it");
      auto& subs = subscribers[body];
      auto s = std::find_if(subs.begin(), subs.end(), [&](auto& p) { return p.first == from; });
      if (s == subs.end()) {
        subs.emplace_back(from, l.root);
      } else {
        s->second = std::min(s->second, l.root);
      }
      if (!touched[body]) {  // no contact of it here: it joins as a component of its own
        touched[body] = 1;
        comp[body] = {gid, me};
      }
      lower(body, l);
    });
    // 2b. owner -> ghost holders
    Outbox down;
    for (auto& [body, subs] : subscribers) {
      const IslandLabel label = comp[find_root(parent, body)];
      for (auto& [rank, root] : subs) {
        if (label.root < root) {
          down.add(rank, graph.gid[body], label);
          root = label.root;
        }
      }
    }
    read_records(transport.exchange(down.take()), [&](int, std::int64_t gid, IslandLabel l) {
      const int body = local_of(gid);
      if (body < 0)
        throw std::logic_error("label_islands: an owner answered about body " +
                               std::to_string(gid) + ", which rank " + std::to_string(me) +
                               " does not hold");
      lower(body, l);
      reported[body] = l.root;  // what the owner knows now: no need to report it back
    });
    // 2c. Would the next round send anything? A ghost whose label is not what its owner knows,
    //     an owned body whose label is below what a holder was last told. When no rank would,
    //     the next round is empty, so nothing can change: the labels are final (every shared
    //     body then carries the same label on its owner and on every holder).
    long pending = 0;
    for (int g : ghosts) pending += comp[find_root(parent, g)].root != reported[g];
    for (auto& [body, subs] : subscribers) {
      const std::int64_t root = comp[find_root(parent, body)].root;
      for (const auto& sub : subs) pending += root < sub.second;
    }
    std::int64_t totals[2] = {pending, components + static_cast<std::int64_t>(ghosts.size())};
    transport.sum(std::span<std::int64_t>(totals));
    bound = totals[1] + 2;
    if (totals[0] == 0) break;
  }

  std::vector<IslandLabel> out(n);
  for (int i = 0; i < n; ++i)
    if (touched[i]) out[i] = comp[find_root(parent, i)];
  if (stats) {
    stats->rounds = rounds;
    stats->round_bound = static_cast<int>(bound);
    stats->local_components = components;
    stats->shared_bodies = static_cast<long>(ghosts.size());
  }
  return out;
}

}  // namespace etdem::distributed
