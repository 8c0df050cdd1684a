// Sleep on the ranks of a split run (distributed/decomposed_world.hpp). By islands: an island
// hosted here falls asleep when none of its grains' owners found one not ready. By regions
// (world/sleep_regions.cpp, which takes every decision): the calls that join the ranks' views
// of a region. A region's grains lie on the ranks whose boxes come within half its diagonal and
// twice the halo of its centre (a grain moves less than the halo between exchanges, and its
// ghosts lie within the halo of it), so a region's votes go to those ranks only: a region deep
// inside one rank's box costs no message.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "etdem/core/group_by_key.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/rank_records.hpp"

namespace etdem::distributed {

bool DecomposedWorld::any(bool mine) {
  return t_.sum(mine ? 1L : 0L) > 0;
}

bool DecomposedWorld::any_asleep(bool mine) {
  const int carried = asleep_anywhere_;
  if (carried < 0) return any(mine);
  // (Only waking changes sleep between the reduction and here: a grain of this rank asleep now
  // was asleep then, or the carried answer is wrong for every rank.)
  if (mine && carried == 0)
    throw std::logic_error(fmt::format(
        "rank {}: a grain here is asleep, but none was at the last sub-step's end", t_.rank()));
  return carried > 0;
}

bool DecomposedWorld::lead() const {
  return t_.rank() == 0;
}

void DecomposedWorld::agree_regions(World& w, std::vector<RegionVote>& votes) {
  const double reach = 0.5 * std::sqrt(3.0) * w.sleep_region_edge() + 2.0 * last_halo_;
  const int me = t_.rank();
  std::map<int, ByteWriter> out;
  std::vector<int> ranks;
  for (const RegionVote& v : votes) {
    const std::optional<Vec3> centre = w.region_centre(v.key);
    ranks.clear();
    if (centre) {
      decomposition_.ghost_ranks(*centre, reach, me, ranks);
    } else {  // the grid's clamped edge: anywhere
      for (int r = 0; r < t_.size(); ++r)
        if (r != me) ranks.push_back(r);
    }
    for (const int r : ranks) {
      out[r].put(v.key);
      out[r].put(static_cast<std::int8_t>(v.yes ? 1 : 0));
    }
  }
  std::vector<Message> outgoing;
  for (auto& [rank, o] : out) outgoing.push_back({rank, o.take()});
  struct Vote {
    std::int64_t key;
    int rank;
    bool yes;
  };
  std::vector<Vote> all;
  for (const RegionVote& v : votes) all.push_back({v.key, me, v.yes});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) {
      const auto key = in.get<std::int64_t>();
      all.push_back({key, m.peer, in.get<std::int8_t>() != 0});
    }
  }
  std::sort(all.begin(), all.end(), [](const Vote& x, const Vote& y) {
    return std::tie(x.key, x.rank) < std::tie(y.key, y.rank);
  });
  votes.clear();
  for (std::size_t k = 0; k < all.size();) {
    RegionVote agreed{all[k].key, true, all[k].rank == me};
    for (; k < all.size() && all[k].key == agreed.key; ++k) agreed.yes = agreed.yes && all[k].yes;
    votes.push_back(agreed);
  }
}

namespace {

/// One contact's force and torque impulses on one grain, summed on the grain's owner in the
/// serial contact order: by the contact's order key, then by the point's place in its pair.
struct LoadShare {
  std::int64_t gid = -1;
  ContactOrderKey key;
  int point = 0;
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  bool operator<(const LoadShare& o) const {
    return std::tie(gid, key, point) < std::tie(o.gid, o.key, o.point);
  }
};

void put_share(ByteWriter& o, const LoadShare& s) {
  put_contact_place(o, s.gid, s.key, s.point);
  o.put(s.force);
  o.put(s.torque);
}

LoadShare read_share(ByteReader& in) {
  LoadShare s;
  read_contact_place(in, s.gid, s.key, s.point);
  in.get(s.force);
  in.get(s.torque);
  return s;
}

}  // namespace

void DecomposedWorld::contact_loads(World& w, const std::vector<Contact>& contacts,
                                    const std::vector<char>& wanted, std::vector<Vec3>& force,
                                    std::vector<Vec3>& torque) {
  // World::add_contact_loads over ranks: each contact's share from the rank that detected it to
  // its grains' owners. B's share is negated here and added there: x - y and x + (-y) are the
  // same bits.
  const int n = w.bodies.count();
  force.assign(n, Vec3::Zero());
  torque.assign(n, Vec3::Zero());
  // (Most steps flag no body on any rank; the exchange is made all the same, as it is
  // collective.)
  const bool any = std::find(wanted.begin(), wanted.begin() + n, char{1}) != wanted.begin() + n;
  auto loaded = [&](int body) { return any && wanted[body] && w.bodies.is_dynamic(body); };
  auto key_of = [&](const Contact& c) {
    return ContactOrderKey{w.shapes.tested_apart(w.bodies.shape[c.b]), gid_[c.a], gid_[c.b]};
  };
  // One pass over the contacts in their (serial) order: each share of a grain owned here is
  // summed at once, as World::add_contact_loads sums it; a share of a grain owned elsewhere goes
  // to its owner, with its contact's key and its point's place in its pair (the points of one
  // pair lie together). The contacts that loaded a grain here are noted with their points'
  // places, for the grains that get shares from other ranks too.
  std::vector<std::pair<int, int>>& hits = load_hits_;
  hits.clear();
  std::map<int, ByteWriter> out;
  int point = 0;
  for (std::size_t k = 0; any && k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    point = k > 0 && contacts[k - 1].a == c.a && contacts[k - 1].b == c.b ? point + 1 : 0;
    const bool to_a = loaded(c.a), to_b = loaded(c.b);
    if (!to_a && !to_b) continue;
    const Vec3 p = c.normal_impulse * c.normal + c.tangent_impulse;
    bool here = false;
    auto take = [&](int body, const Vec3& f, const Vec3& t) {
      if (!owned_[body]) {
        put_share(out[owner_[body]], {gid_[body], key_of(c), point, f, t});
        return;
      }
      force[body] += f;
      torque[body] += t;
      here = true;
    };
    if (to_a) take(c.a, p, Vec3(c.ra.cross(p) + c.rolling_impulse));
    if (to_b) take(c.b, Vec3(-p), Vec3(-(c.rb.cross(p) + c.rolling_impulse)));
    if (here) hits.emplace_back(static_cast<int>(k), point);
  }
  std::vector<Message> outgoing;
  for (auto& [rank, o] : out) outgoing.push_back({rank, o.take()});
  std::vector<LoadShare> mine;
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) mine.push_back(read_share(in));
  }
  // A grain that got shares from other ranks sums all of its shares again from zero, in one sort
  // by (key, point): its own are read again from the contacts noted.
  if (mine.empty()) return;
  std::vector<char>& merged = load_merged_;
  merged.assign(static_cast<std::size_t>(n), 0);
  for (const LoadShare& s : mine) {
    const int l = local_of_[s.gid];
    merged[static_cast<std::size_t>(l)] = 1;
    force[l] = torque[l] = Vec3::Zero();
  }
  auto again = [&](int body) { return loaded(body) && owned_[body] && merged[body]; };
  for (const auto& [k, at] : hits) {
    const Contact& c = contacts[static_cast<std::size_t>(k)];
    const bool to_a = again(c.a), to_b = again(c.b);
    if (!to_a && !to_b) continue;
    const Vec3 p = c.normal_impulse * c.normal + c.tangent_impulse;
    if (to_a) mine.push_back({gid_[c.a], key_of(c), at, p, c.ra.cross(p) + c.rolling_impulse});
    if (to_b)
      mine.push_back(
          {gid_[c.b], key_of(c), at, Vec3(-p), Vec3(-(c.rb.cross(p) + c.rolling_impulse))});
  }
  group_by_key(
      n,
      [&](auto&& emit) {
        for (std::size_t k = 0; k < mine.size(); ++k)
          emit(local_of_[mine[k].gid], static_cast<int>(k));
      },
      load_start_, load_shares_, load_fill_);
  for (int l = 0; l < n; ++l) {
    const auto first = load_shares_.begin() + load_start_[l];
    const auto last = load_shares_.begin() + load_start_[l + 1];
    if (first == last) continue;
    std::sort(first, last, [&](int p, int q) { return mine[p] < mine[q]; });
    for (auto it = first; it != last; ++it) {
      force[l] += mine[static_cast<std::size_t>(*it)].force;
      torque[l] += mine[static_cast<std::size_t>(*it)].torque;
    }
  }
}

void DecomposedWorld::block_net_islands(World& w, std::vector<char>& blocked) {
  // The islands holding an owned node, to every rank (nets are few and small).
  const int n = w.bodies.count();
  std::vector<std::int64_t> roots;
  for (int l = 0; l < n; ++l)
    if (owned_[l] && full_.is_net_node(static_cast<int>(gid_[l])) && labels_[l].root >= 0)
      roots.push_back(labels_[l].root);
  ByteWriter o;
  for (const std::int64_t r : roots) o.put(r);
  const std::string bytes = o.take();
  std::vector<Message> outgoing;
  for (int r = 0; r < t_.size(); ++r)
    if (r != t_.rank() && !bytes.empty()) outgoing.push_back({r, bytes});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) roots.push_back(in.get<std::int64_t>());
  }
  std::sort(roots.begin(), roots.end());
  for (int l = 0; l < n; ++l) {
    if (!owned_[l]) continue;
    const bool in_net_island =
        labels_[l].root >= 0 && std::binary_search(roots.begin(), roots.end(), labels_[l].root);
    if (full_.is_net_node(static_cast<int>(gid_[l])) || in_net_island) blocked[l] = 1;
  }
}

void DecomposedWorld::update_sleep(World& w, SubstepLists lists) {
  const WorldSettings& set = w.settings;
  if (!(set.sleep_velocity > 0.0)) return;
  const int n = w.bodies.count();
  w.update_rest_times();  // on the owners
  // The islands solved this step with a grain not ready (or a net's node), to their hosts.
  std::map<int, std::vector<std::int64_t>> not_ready;  // host -> roots
  for (int l = 0; l < n; ++l) {
    if (!owned_[l] || lists.motion[l].free || labels_[l].root < 0) continue;  // in no solved island
    if (w.rest_time(l) >= set.sleep_time && !full_.is_net_node(static_cast<int>(gid_[l]))) continue;
    std::vector<std::int64_t>& roots = not_ready[labels_[l].host];
    if (roots.empty() || roots.back() != labels_[l].root) roots.push_back(labels_[l].root);
  }
  std::vector<Message> outgoing;
  for (const auto& [host, roots] : not_ready) {
    ByteWriter out;
    for (const std::int64_t r : roots) out.put(r);
    outgoing.push_back({host, out.take()});
  }
  std::vector<std::int64_t> busy;
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) busy.push_back(in.get<std::int64_t>());
  }
  std::sort(busy.begin(), busy.end());
  // Every other island hosted here falls asleep: the decision to its grains' owners.
  std::map<int, ByteWriter> asleep;
  for (const Hosted& hosted : hosted_) {
    if (std::binary_search(busy.begin(), busy.end(), hosted.root)) continue;
    ++lists.stats.fell_asleep;
    for (const int owner : hosted.owners) asleep[owner].put(hosted.root);
  }
  outgoing.clear();
  for (auto& [owner, out] : asleep) outgoing.push_back({owner, out.take()});
  std::vector<std::int64_t> roots;
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) roots.push_back(in.get<std::int64_t>());
  }
  if (roots.empty()) return;
  std::sort(roots.begin(), roots.end());
  for (int l = 0; l < n; ++l) {
    if (!owned_[l] || lists.motion[l].free || labels_[l].root < 0 ||
        !std::binary_search(roots.begin(), roots.end(), labels_[l].root))
      continue;
    lists.sums.sleep_energy += w.put_to_sleep(l);
  }
}

}  // namespace etdem::distributed
