#include "etdem/distributed/grain_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/core/sort_runs.hpp"

namespace etdem::distributed {
namespace {

/// A record; a ghost's copy leaves out what only the owner reads (its warm start and the ranks
/// that hold it as a ghost).
void put(ByteWriter& w, const GrainRecord& g, bool copy) {
  w.put(g.gid);
  w.put(g.position);
  w.put(g.state);
  put_contact_record(w, copy ? std::span<const Contact>() : std::span(g.carried));
  if (copy) return;
  w.put(static_cast<std::int32_t>(g.ghosted_on.size()));
  for (const int r : g.ghosted_on) w.put(static_cast<std::int32_t>(r));
}

bool by_id(const GrainRecord& a, const GrainRecord& b) {
  return a.gid < b.gid;
}

}  // namespace

void exchange_grains(const Decomposition& decomposition, double halo, RankGrains& grains,
                     Transport& transport, GrainExchangeStats* stats, const WriteState& write_state,
                     double keep) {
  if (!(halo >= 0.0) || !std::isfinite(halo))
    throw std::invalid_argument("exchange_grains: halo must be finite and >= 0, not " +
                                std::to_string(halo));
  if (!(keep >= 0.0) || !std::isfinite(keep))
    throw std::invalid_argument("exchange_grains: keep must be finite and >= 0, not " +
                                std::to_string(keep));
  if (decomposition.ranks() != transport.size())
    throw std::invalid_argument("exchange_grains: a decomposition into " +
                                std::to_string(decomposition.ranks()) + " boxes for " +
                                std::to_string(transport.size()) + " ranks");
  const int me = transport.rank();
  GrainExchangeStats st;

  // One exchange: the rank that owns a grain now sends its record to the grain's new owner
  // (the box holding its centre) and a copy to every other rank whose box lies within the halo:
  // the decomposition is the same on every rank, so the old owner knows both. Each record is
  // tagged with the rank that owns it from now on (a ghost's owner); a ghost's copy has no
  // `carried` part.
  std::map<int, ByteWriter> out;
  std::vector<GrainRecord> ghosts;
  std::vector<int> ghost_owner;  // per ghost received or kept: the rank that owns it
  // (Sized for about as many as the rank held: a record grown into place moves every record
  // before it.)
  ghosts.reserve(grains.ghosts.size() + grains.ghosts.size() / 8);
  ghost_owner.reserve(ghosts.capacity());
  // The ghosts held until now are read no more: their states' storage is reused for the ghosts
  // that come (a rank refills thousands of them every step).
  std::vector<std::string> room;
  room.reserve(grains.ghosts.size());
  for (GrainRecord& g : grains.ghosts) room.push_back(std::move(g.state));
  auto reused = [&room]() {
    if (room.empty()) return std::string();
    std::string s = std::move(room.back());
    room.pop_back();
    return s;
  };
  std::vector<int> ranks;
  auto send = [&](int to, int owner, const GrainRecord& g) {
    ByteWriter& w = out[to];
    w.put(static_cast<std::int32_t>(owner));
    put(w, g, to != owner);
  };
  // The grains that stay keep their places (ascending by id), those that leave are closed up.
  std::vector<GrainRecord>& owned = grains.owned;
  std::size_t stay = 0;
  for (std::size_t k = 0; k < owned.size(); ++k) {
    GrainRecord& g = owned[k];
    if (!g.position.allFinite())
      throw std::invalid_argument("exchange_grains: grain " + std::to_string(g.gid) +
                                  " has a non-finite position");
    const int owner = decomposition.owner_of(g.position);
    // Within the halo, or within the band beyond it and held there before (one walk over the
    // boxes within both; each kept in rank order).
    decomposition.ghost_ranks(g.position, halo + keep, owner, ranks);
    if (keep > 0.0)
      std::erase_if(ranks, [&](int r) {
        return decomposition.box(r).distance(g.position) > halo &&
               !std::binary_search(g.ghosted_on.begin(), g.ghosted_on.end(), r);
      });
    g.ghosted_on.assign(ranks.begin(), ranks.end());
    if (g.state.empty() && (owner != me || !ranks.empty())) {
      if (!write_state)
        throw std::invalid_argument("exchange_grains: grain " + std::to_string(g.gid) +
                                    " is sent with no state");
      write_state(g);
    }
    for (int r : ranks) {
      ++st.ghosts_sent;
      if (r == me) {
        std::string state = reused();
        state.assign(g.state);
        ghosts.push_back({g.gid, g.position, std::move(state), {}, {}});
        ghost_owner.push_back(owner);
      } else {
        send(r, owner, g);
      }
    }
    if (owner == me) {
      if (stay != k) owned[stay] = std::move(g);
      ++stay;
    } else {
      send(owner, owner, g);
      ++st.migrated_out;
    }
  }
  owned.resize(stay);
  st.neighbours = static_cast<long>(out.size());
  std::vector<Message> messages;
  for (auto& [peer, w] : out) messages.push_back({peer, w.take()});
  for (const Message& m : transport.exchange(std::move(messages))) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      const int owner = r.get<std::int32_t>();
      GrainRecord g;
      g.gid = r.get<std::int64_t>();
      r.get(g.position);
      g.state = reused();
      r.get(g.state);
      read_contact_record(r.view(), g.carried);
      if (owner == me) {
        const int on = r.get<std::int32_t>();
        if (on < 0 || on > transport.size())
          throw ByteStreamError("exchange_grains: a grain record held as a ghost on " +
                                std::to_string(on) + " ranks");
        g.ghosted_on.resize(static_cast<std::size_t>(on));
        for (int& x : g.ghosted_on) x = r.get<std::int32_t>();
        owned.push_back(std::move(g));
        ++st.migrated_in;
      } else {
        ghosts.push_back(std::move(g));
        ghost_owner.push_back(owner);
      }
    }
  }
  // Both lists ascending by id, a ghost with its owner (a grain comes once: from its old owner).
  // The arrivals are sorted and merged after the grains that stayed; the ghosts are sorted
  // through their indices, each moved once (those kept come in order, the arrivals after them).
  if (stay < owned.size()) {
    const auto arrived = owned.begin() + static_cast<std::ptrdiff_t>(stay);
    std::sort(arrived, owned.end(), by_id);
    std::inplace_merge(owned.begin(), arrived, owned.end(), by_id);
  }
  std::vector<std::size_t> order(ghosts.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  stable_sort_runs(order,
                   [&](std::size_t a, std::size_t b) { return by_id(ghosts[a], ghosts[b]); });
  grains.ghosts.clear();
  grains.ghost_owner.clear();
  grains.ghosts.reserve(ghosts.size());
  grains.ghost_owner.reserve(ghosts.size());
  for (const std::size_t k : order) {
    grains.ghosts.push_back(std::move(ghosts[k]));
    grains.ghost_owner.push_back(ghost_owner[k]);
  }
  st.ghosts_received = static_cast<long>(grains.ghosts.size());
  if (stats) *stats = st;
}

}  // namespace etdem::distributed
