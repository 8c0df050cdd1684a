// Contact islands across ranks without gathering the contact graph anywhere (a limit of the
// 2024 paper's Alg. 3, whose rank 0 receives every contact list and builds every island).
//
// Each rank holds its own bodies and ghost copies of bodies owned by other ranks, and knows the
// contacts it detected (each pair once, on one rank). Union-find joins them into local
// components; then labels travel only along shared bodies: a rank holding a ghost tells the
// owner the smallest label it knows for the ghost's component, the owner takes the smallest it
// hears and tells every rank that reported the body. Rounds repeat until no label falls anywhere.
// An island's label is its smallest global body id (the serial IslandBuilder numbers islands by
// their smallest body too), and its host, the rank that will resolve it whole, is the owner of
// that body: chosen the same on every rank without asking anyone.
#pragma once

#include <cstdint>
#include <vector>

#include "etdem/distributed/transport.hpp"

namespace etdem::distributed {

/// What one rank knows before the labelling. Local index = position in `gid`.
struct LocalContactGraph {
  std::vector<std::int64_t> gid;  // global body id of each local body (owned or ghost)
  std::vector<int> owner;         // rank owning each local body (this rank: owned)
  std::vector<char> touched;      // in a contact this step (a dynamic body)
  /// Contacts detected here between two dynamic local bodies (local indices).
  std::vector<std::pair<int, int>> edges;
};

struct IslandLabel {
  std::int64_t root = -1;  // smallest global id of the island; -1: not in an island
  int host = -1;           // rank owning `root`: where the island is resolved
  friend bool operator==(const IslandLabel&, const IslandLabel&) = default;
};

struct IslandLabelStats {
  int rounds = 0;             // label rounds until nothing changed
  int round_bound = 0;        // rounds allowed (the number of local components everywhere + 2)
  long local_components = 0;  // on this rank
  long shared_bodies = 0;     // touched ghosts on this rank
};

/// Collective. Returns, per local body, the label of its island (root -1 for untouched bodies).
/// Throws std::logic_error if the round bound is reached (it cannot be for a consistent input:
/// each round lowers at least one component's label).
std::vector<IslandLabel> label_islands(const LocalContactGraph& graph, Transport& transport,
                                       IslandLabelStats* stats = nullptr);

}  // namespace etdem::distributed
