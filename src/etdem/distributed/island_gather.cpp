#include "etdem/distributed/island_gather.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "etdem/core/byte_stream.hpp"

namespace etdem::distributed {

std::vector<GatheredIsland> gather_islands(std::vector<IslandPart> parts, Transport& transport,
                                           std::vector<IslandPart>* sent) {
  const int me = transport.rank(), ranks = transport.size();
  std::map<int, ByteWriter> writers;
  {  // each message's room at once: a large island's part is copied into it once, not regrown
    std::map<int, std::size_t> room;
    auto add = [&](int d, const IslandPart& p) {
      room[d] += 2 * sizeof(std::int64_t) + p.bytes.size();
    };
    for (const IslandPart& p : parts)
      if (p.host == kEveryRank) {
        for (int d = 0; d < ranks; ++d)
          if (d != me) add(d, p);
      } else if (p.host != me && p.host >= 0 && p.host < ranks) {
        add(p.host, p);
      }
    for (const auto& [d, n] : room) writers[d].reserve(n);
  }
  std::vector<std::pair<std::int64_t, std::string>> own;  // parts hosted here: no message
  for (IslandPart& p : parts) {
    if (p.host == kEveryRank) {
      for (int d = 0; d < ranks; ++d) {
        if (d == me) continue;
        writers[d].put(p.root);
        writers[d].put(p.bytes);
      }
      if (sent) sent->push_back(std::move(p));
      continue;
    }
    if (p.host < 0 || p.host >= ranks)
      throw std::invalid_argument("island " + std::to_string(p.root) + ": host " +
                                  std::to_string(p.host) + " is not one of the " +
                                  std::to_string(ranks) + " ranks");
    if (p.host == me) {
      own.emplace_back(p.root, std::move(p.bytes));
      continue;
    }
    ByteWriter& w = writers[p.host];
    w.put(p.root);
    w.put(p.bytes);
    if (sent) sent->push_back(std::move(p));
  }
  std::vector<Message> out;
  for (auto& [peer, w] : writers) out.push_back({peer, w.take()});
  const std::vector<Message> in = transport.exchange(std::move(out));
  // (root, source rank, bytes), then sorted by root and source: the sources below this rank
  // come in message order before the own part, those above after it.
  struct Item {
    std::int64_t root;
    int from;
    std::string bytes;
  };
  std::vector<Item> items;
  for (auto& [root, bytes] : own) items.push_back({root, me, std::move(bytes)});
  for (const Message& m : in) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      Item it{r.get<std::int64_t>(), m.peer, {}};
      r.get(it.bytes);
      items.push_back(std::move(it));
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.root != b.root ? a.root < b.root : a.from < b.from;
  });
  std::vector<GatheredIsland> islands;
  for (Item& it : items) {
    if (islands.empty() || islands.back().root != it.root) islands.push_back({it.root, {}, {}});
    GatheredIsland& g = islands.back();
    if (!g.from.empty() && g.from.back() == it.from)
      throw std::logic_error("island " + std::to_string(it.root) + ": two parts from rank " +
                             std::to_string(it.from));
    g.from.push_back(it.from);
    g.parts.push_back(std::move(it.bytes));
  }
  return islands;
}

std::vector<Delivered> deliver(const std::vector<Delivery>& deliveries, Transport& transport) {
  const int ranks = transport.size();
  std::map<int, ByteWriter> writers;
  for (const Delivery& d : deliveries)
    for (int r : d.ranks) {
      if (r < 0 || r >= ranks)
        throw std::invalid_argument("grain " + std::to_string(d.gid) + ": rank " +
                                    std::to_string(r) + " is not one of the " +
                                    std::to_string(ranks) + " ranks");
      ByteWriter& w = writers[r];
      w.put(d.gid);
      w.put(d.bytes);
    }
  std::vector<Message> out;
  for (auto& [peer, w] : writers) out.push_back({peer, w.take()});
  std::vector<Delivered> got;
  for (const Message& m : transport.exchange(std::move(out))) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      Delivered d{r.get<std::int64_t>(), m.peer, {}};
      r.get(d.bytes);
      got.push_back(std::move(d));
    }
  }
  return got;
}

}  // namespace etdem::distributed
