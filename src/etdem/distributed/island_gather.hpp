// Islands to their hosts and results back (docs/distributed.md, design item 4), on opaque
// records: every rank sends what it holds of an island (its contacts, its grains' state) to the
// island's host, the rank that resolves it whole; the host sends each grain's new state to the
// ranks that need it only (its owner and the ranks holding it as a ghost), never to all. A part
// whose host is the sending rank moves no data. Orders are by island label and source rank, so
// what a host sees does not depend on message timing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "etdem/distributed/transport.hpp"

namespace etdem::distributed {

/// An IslandPart's host that sends the part to every other rank, each receiving it as an
/// island it hosts.
inline constexpr int kEveryRank = -2;

/// What one rank holds of one island (distributed/island_labels: its root and host).
struct IslandPart {
  std::int64_t root = -1;
  int host = -1;
  std::string bytes;
};

/// One island on its host: the parts of every rank that held some of it, by source rank.
struct GatheredIsland {
  std::int64_t root = -1;
  std::vector<int> from;           // source ranks, ascending
  std::vector<std::string> parts;  // per source
};

/// Collective. Returns the islands this rank hosts that some rank sent a part of, by root
/// ascending; with `sent`, the parts this rank sent to other hosts are handed back there, in
/// their order. Throws std::invalid_argument for a host outside the ranks, and
/// std::logic_error when one rank sends two parts of one island.
std::vector<GatheredIsland> gather_islands(std::vector<IslandPart> parts, Transport& transport,
                                           std::vector<IslandPart>* sent = nullptr);

/// A result for the ranks listed (owner and ghost holders of a grain).
struct Delivery {
  std::int64_t gid = -1;
  std::vector<int> ranks;  // destinations, this rank allowed
  std::string bytes;
};

struct Delivered {
  std::int64_t gid = -1;
  int from = -1;
  std::string bytes;
};

/// Collective. Sends each delivery to each of its ranks; returns what this rank received, by
/// source rank and, from one source, in sending order.
std::vector<Delivered> deliver(const std::vector<Delivery>& deliveries, Transport& transport);

}  // namespace etdem::distributed
