// Grains between ranks: migration (a grain whose centre left its owner's box moves to the new
// owner) and the ghost refresh (each owned grain copied to every other rank whose box lies within
// the halo of its centre). The state travels as an opaque byte string the world writes and
// reads, so this layer knows nothing of shapes or solvers; the contacts a grain carries (plain
// data) move with it, as they are, until the grain changes owner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/core/math.hpp"
#include "etdem/distributed/decomposition.hpp"
#include "etdem/distributed/transport.hpp"

namespace etdem::distributed {

struct GrainRecord {
  std::int64_t gid = -1;         // global body id
  Vec3 position = Vec3::Zero();  // its centre [m]: decides owner and ghost ranks
  /// Everything else a ghost needs, written by the owner. Empty for an owned grain no other
  /// rank needs (its owner holds it in its world): exchange_grains asks for it only to send it.
  std::string state;
  /// The warm start of the pairs the grain detects (global ids): only its owner reads it, so it
  /// moves with the grain and is left out of a ghost's copy.
  std::vector<Contact> carried;
  /// The ranks that hold the grain as a ghost since the last exchange, ascending (an owned
  /// record's; it moves with the grain): the ghosts kept within the halo's `keep` band.
  std::vector<int> ghosted_on;
};

/// What a rank holds: its own grains and copies of others' (ghosts), each ascending by id.
struct RankGrains {
  std::vector<GrainRecord> owned;
  std::vector<GrainRecord> ghosts;
  std::vector<int> ghost_owner;  // per ghost: the rank that owns it
};

struct GrainExchangeStats {
  long migrated_out = 0, migrated_in = 0;  // grains that changed owner
  long ghosts_sent = 0, ghosts_received = 0;
  long neighbours = 0;  // distinct ranks this rank sent ghosts to
};

/// Collective, one exchange. Sends every owned grain that `decomposition` gives to another rank
/// there, and rebuilds every rank's ghosts from the same records (the rank that owned a grain
/// sends the copies, for the owner the decomposition gives it now): afterwards rank r owns exactly
/// the grains whose centre lies in box r and holds as ghosts the other grains whose centre lies
/// within `halo` of box r, and of those it held as ghosts before, the ones still within
/// `halo + keep` of it (keep = 0: exactly the grains within the halo). A grain that moves to and
/// fro across the halo's edge so stays a ghost, and a rank's bodies stay the same from one
/// exchange to the next. Orders are by id, so the result does not depend on message timing. An
/// owned record whose state is empty gets it from `write_state` the first time it is sent (a grain
/// that stays, copied nowhere, keeps it empty). Throws std::invalid_argument for a negative or
/// non-finite halo or keep, a non-finite position, a decomposition for another number of ranks, or
/// a record to send with no state and no `write_state`.
using WriteState = std::function<void(GrainRecord&)>;
void exchange_grains(const Decomposition& decomposition, double halo, RankGrains& grains,
                     Transport& transport, GrainExchangeStats* stats = nullptr,
                     const WriteState& write_state = {}, double keep = 0.0);

}  // namespace etdem::distributed
