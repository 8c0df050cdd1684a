#include "etdem/distributed/grain_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "etdem/core/byte_stream.hpp"

namespace etdem::distributed {
namespace {

void put(ByteWriter& w, const GrainRecord& g) {
  w.put(g.gid);
  w.put(g.position);
  w.put(g.state);
}

/// Records of the messages, in message order (sources ascending), with their source rank.
std::vector<std::pair<GrainRecord, int>> read(const std::vector<Message>& messages) {
  std::vector<std::pair<GrainRecord, int>> out;
  for (const Message& m : messages) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      GrainRecord g;
      g.gid = r.get<std::int64_t>();
      r.get(g.position);
      r.get(g.state);
      out.emplace_back(std::move(g), m.peer);
    }
  }
  return out;
}

std::vector<Message> to_messages(std::map<int, ByteWriter>& writers) {
  std::vector<Message> out;
  for (auto& [peer, w] : writers) out.push_back({peer, w.take()});
  return out;
}

bool by_id(const GrainRecord& a, const GrainRecord& b) {
  return a.gid < b.gid;
}

}  // namespace

void exchange_grains(const Decomposition& decomposition, double halo, RankGrains& grains,
                     Transport& transport, GrainExchangeStats* stats) {
  if (!(halo >= 0.0) || !std::isfinite(halo))
    throw std::invalid_argument("exchange_grains: halo must be finite and >= 0, not " +
                                std::to_string(halo));
  if (decomposition.ranks() != transport.size())
    throw std::invalid_argument("exchange_grains: a decomposition into " +
                                std::to_string(decomposition.ranks()) + " boxes for " +
                                std::to_string(transport.size()) + " ranks");
  const int me = transport.rank();
  GrainExchangeStats st;

  // 1. Migration.
  std::map<int, ByteWriter> leaving;
  std::vector<GrainRecord> staying;
  for (GrainRecord& g : grains.owned) {
    if (!g.position.allFinite())
      throw std::invalid_argument("exchange_grains: grain " + std::to_string(g.gid) +
                                  " has a non-finite position");
    const int owner = decomposition.owner_of(g.position);
    if (owner == me) {
      staying.push_back(std::move(g));
    } else {
      put(leaving[owner], g);
      ++st.migrated_out;
    }
  }
  for (auto& [g, from] : read(transport.exchange(to_messages(leaving)))) {
    staying.push_back(std::move(g));
    ++st.migrated_in;
  }
  std::sort(staying.begin(), staying.end(), by_id);
  grains.owned = std::move(staying);

  // 2. Ghosts, from the owners' records.
  std::map<int, ByteWriter> copies;
  std::vector<int> ranks;
  for (const GrainRecord& g : grains.owned) {
    decomposition.ghost_ranks(g.position, halo, me, ranks);
    for (int r : ranks) {
      put(copies[r], g);
      ++st.ghosts_sent;
    }
  }
  st.neighbours = static_cast<long>(copies.size());
  auto received = read(transport.exchange(to_messages(copies)));
  std::sort(received.begin(), received.end(),
            [](const auto& a, const auto& b) { return a.first.gid < b.first.gid; });
  grains.ghosts.clear();
  grains.ghost_owner.clear();
  for (auto& [g, from] : received) {
    grains.ghosts.push_back(std::move(g));
    grains.ghost_owner.push_back(from);
  }
  st.ghosts_received = static_cast<long>(grains.ghosts.size());
  if (stats) *stats = st;
}

}  // namespace etdem::distributed
