#include "etdem/distributed/island_gather.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "etdem/core/byte_stream.hpp"

namespace etdem::distributed {

namespace {

/// A part in a message: its bytes, then their length and the island's root (a trailer, so that
/// the part a message begins with can be kept as the message itself, cut to its length).
void put_part(ByteWriter& out, std::int64_t root, const std::string& bytes) {
  out.put_bytes(bytes.data(), bytes.size());
  out.put(static_cast<std::uint64_t>(bytes.size()));
  out.put(root);
}

}  // namespace

std::vector<GatheredIsland> gather_islands(std::vector<IslandPart> parts, Transport& transport,
                                           std::vector<IslandPart>* sent) {
  const int me = transport.rank(), ranks = transport.size();
  // The parts to each other rank, largest first: a message's first part is taken on arrival
  // without a copy (a pile's part is tens of megabytes), the others copied out.
  std::map<int, std::vector<const IslandPart*>> to;
  std::vector<std::pair<std::int64_t, std::string>> own;  // parts hosted here: no message
  for (IslandPart& p : parts) {
    if (p.host == kEveryRank) {
      for (int d = 0; d < ranks; ++d)
        if (d != me) to[d].push_back(&p);
      continue;
    }
    if (p.host < 0 || p.host >= ranks)
      throw std::invalid_argument("island " + std::to_string(p.root) + ": host " +
                                  std::to_string(p.host) + " is not one of the " +
                                  std::to_string(ranks) + " ranks");
    if (p.host != me) to[p.host].push_back(&p);
  }
  std::vector<Message> out;
  for (auto& [peer, list] : to) {
    std::stable_sort(list.begin(), list.end(), [](const IslandPart* x, const IslandPart* y) {
      return x->bytes.size() > y->bytes.size();
    });
    std::size_t room = 0;
    for (const IslandPart* p : list) room += p->bytes.size() + 2 * sizeof(std::int64_t);
    ByteWriter w;
    w.reserve(room);  // written once, not regrown
    for (const IslandPart* p : list) put_part(w, p->root, p->bytes);
    out.push_back({peer, w.take()});
  }
  for (IslandPart& p : parts) {
    if (p.host == me)
      own.emplace_back(p.root, std::move(p.bytes));
    else if (sent)
      sent->push_back(std::move(p));
  }
  std::vector<Message> in = transport.exchange(std::move(out));
  // (root, source rank, bytes), then sorted by root and source: the sources below this rank
  // come in message order before the own part, those above after it.
  struct Item {
    std::int64_t root;
    int from;
    std::string bytes;
  };
  std::vector<Item> items;
  for (auto& [root, bytes] : own) items.push_back({root, me, std::move(bytes)});
  constexpr std::size_t kTrailer = sizeof(std::uint64_t) + sizeof(std::int64_t);
  for (Message& m : in) {
    // From the end: each part's trailer, then its bytes before it.
    std::size_t end = m.bytes.size();
    while (end > 0) {
      if (end < kTrailer) throw ByteStreamError("an island message ends inside a part's trailer");
      ByteReader trailer(std::string_view(m.bytes).substr(end - kTrailer, kTrailer));
      const auto length = trailer.get<std::uint64_t>();
      const auto root = trailer.get<std::int64_t>();
      if (length > end - kTrailer)
        throw ByteStreamError("an island part of " + std::to_string(length) +
                              " bytes runs past the start of its message");
      const std::size_t begin = end - kTrailer - static_cast<std::size_t>(length);
      Item it{root, m.peer, {}};
      if (begin == 0) {
        it.bytes = std::move(m.bytes);
        it.bytes.resize(static_cast<std::size_t>(length));
      } else {
        it.bytes.assign(m.bytes, begin, static_cast<std::size_t>(length));
      }
      items.push_back(std::move(it));
      end = begin;
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
