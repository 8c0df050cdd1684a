// An island gathered on the ranks that solve it in a split run (decomposed_world.hpp): solved
// by its host alone, or by every rank that holds some of it as a team of the resting
// pass; its grains and contacts assembled in the serial order from its parts
// (island_parts.hpp), solved by world/island_solve as the serial step solves it, and its
// results and position sums written for the grains' owners and the contacts' ranks.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/host_scratch.hpp"
#include "etdem/distributed/island_parts.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/world/projection.hpp"

namespace etdem::distributed {
namespace {

/// The ranks as a team of the resting pass (solvers/resting_team.hpp): every rank a member.
class TransportTeam final : public RestingTeam {
 public:
  /// A block to the rank whose box holds its centre; a body to the owner of its grain (`owner`
  /// per island body, set for each island).
  TransportTeam(Transport& t, const Decomposition& d) : t_(t), d_(d) {}
  int member() const override { return t_.rank(); }
  int members() const override { return t_.size(); }
  int block_member(const Vec3& centre) const override { return d_.owner_of(centre); }
  int body_member(int body) const override { return (*owner)[static_cast<std::size_t>(body)]; }
  const std::vector<int>* own_bodies() const override { return own; }
  std::span<const int> keepers() const override { return *source; }
  std::span<const int> keeper_places() const override { return *source_index; }
  int kept_contact(int index) const override {
    return index >= 0 && static_cast<std::size_t>(index) < kept->size()
               ? (*kept)[static_cast<std::size_t>(index)]
               : -1;
  }
  long contacts() const override { return island_contacts; }
  Kept kept_collisions() const override { return kept_elsewhere; }
  /// The island's host books the nets' nodes from every body's result (World::book_net_island).
  bool syncs_every_body() const override { return nets; }
  /// (Asked for the bodies of the collision groups this rank solves only: looked up by global id.)
  bool quiet(int body) const override {
    if (!quiet_here) return false;
    const auto gid = static_cast<std::size_t>((*gids)[static_cast<std::size_t>(body)]);
    const int l = gid < local_of->size() ? (*local_of)[gid] : -1;
    return l >= 0 && (*quiet_grains)[static_cast<std::size_t>(l)] != 0;
  }
  const std::vector<int>* owner = nullptr;
  const std::vector<int>* own = nullptr;  // the island's grains this rank owns (its places)
  // Per contact, by its index in the list the island is read from (solve_hosted): the rank
  // that detected it and its place in that rank's part; per contact of this rank's part, that
  // index.
  const std::vector<int>* source = nullptr;
  const std::vector<int>* source_index = nullptr;
  const std::vector<int>* kept = nullptr;
  // Whether this rank's part of the island marked its quiet grains (solve_islands), and what
  // quiet() reads: the island's global ids, this rank's local index per global id, the marks.
  bool quiet_here = false;
  const std::vector<std::int64_t>* gids = nullptr;
  const std::vector<int>* local_of = nullptr;
  const std::vector<char>* quiet_grains = nullptr;
  long island_contacts = 0;  // over every rank
  Kept kept_elsewhere;       // the collision groups other ranks keep whole (their parts' headers)
  bool nets = false;         // the world has nets
  std::vector<std::string> exchange(std::vector<std::string> to) override {
    std::vector<Message> out;
    for (int m = 0; m < t_.size(); ++m)
      if (m != t_.rank() && !to[static_cast<std::size_t>(m)].empty())
        out.push_back({m, std::move(to[static_cast<std::size_t>(m)])});
    std::vector<std::string> got(static_cast<std::size_t>(t_.size()));
    for (Message& msg : t_.exchange(std::move(out))) {
      std::string& to_me = got[static_cast<std::size_t>(msg.peer)];
      if (to_me.empty())
        to_me = std::move(msg.bytes);
      else
        to_me += msg.bytes;
    }
    return got;
  }
  void post(std::vector<std::string> to, std::uint64_t members_to) override {
    std::vector<Message> out;
    for (int m = 0; m < t_.size(); ++m)
      if (m != t_.rank() && (members_to >> m & 1U) != 0)
        out.push_back({m, std::move(to[static_cast<std::size_t>(m)])});
    t_.post(std::move(out));
  }
  std::vector<std::string> collect(std::uint64_t from) override {
    std::vector<int> sources;
    for (int m = 0; m < t_.size(); ++m)
      if (m != t_.rank() && (from >> m & 1U) != 0) sources.push_back(m);
    std::vector<std::string> got(static_cast<std::size_t>(t_.size()));
    for (Message& msg : t_.collect(sources))
      got[static_cast<std::size_t>(msg.peer)] = std::move(msg.bytes);
    return got;
  }
  void max(std::span<double> values) override { t_.max(values); }
  void sum(std::span<std::int64_t> values) override { t_.sum(values); }

 private:
  Transport& t_;
  const Decomposition& d_;
};

/// correct_positions' sums for the grains of a solved hosted island (all awake: one a moving
/// grain joined woke whole). Every contact of a grain is in its island, so walking `serial` (the
/// island's contacts in the serial order, `contacts[serial[k]]`, island-local ids, -1 for a
/// wall) adds each grain's
/// shares in the order World::correct_positions adds them, from zero: its bits. Each grain's
/// owner gets one record of its sums; the host keeps its own grains'. Counts the penetrating
/// contacts into `penetrating`; `sum` and `weight` are scratch.
///
/// `own_only` (an island every rank solved): this rank sums only its own grains' shares, from
/// the contacts that touch one, and counts the penetrating contacts whose first island body
/// (the first grain, or the second where the first is a wall) it owns: over the ranks, every
/// contact once, as the ledger's sum of the counts needs. The walk reads each grain's owner and
/// inverse mass from `owner` and `inv_mass` (the island's, packed: a pile's grains' records
/// would be read at random).
void project_hosted(const WorldSettings& set, std::span<const std::int64_t> gid,
                    std::span<const int> owner, const double* inv_mass,
                    std::span<const Contact> contacts, std::span<const int> serial, int me,
                    bool own_only, std::map<int, ByteWriter>& to_owner,
                    std::vector<DecomposedWorld::GrainSum>& mine, std::vector<Vec3>& sum,
                    std::vector<double>& weight, long& penetrating) {
  const double kp = set.projection;
  sum.assign(gid.size(), Vec3::Zero());
  weight.assign(gid.size(), 0.0);
  auto owned = [&](int body) { return body >= 0 && owner[static_cast<std::size_t>(body)] == me; };
  for (std::size_t k = 0; k < serial.size(); ++k) {
    if (k + kContactsAhead < serial.size())
      prefetch(&contacts[static_cast<std::size_t>(serial[k + kContactsAhead])]);
    const Contact& c = contacts[static_cast<std::size_t>(serial[k])];
    if (own_only && !owned(c.a) && !owned(c.b)) continue;
    const double ia = c.a >= 0 ? inv_mass[c.a] : 0.0;
    const double ib = c.b >= 0 ? inv_mass[c.b] : 0.0;
    const ProjectionShare s = projection_share(c.gap, c.normal, ia, ib, kp, set.penetration_slop);
    if (!s.moves) continue;
    if (!own_only || owned(c.a >= 0 ? c.a : c.b)) ++penetrating;
    add_share(s, c.a, ia, c.b, ib, sum, weight);
  }
  for (std::size_t k = 0; k < gid.size(); ++k) {
    if (own_only && owner[k] != me) continue;
    if (!(weight[k] > 0.0)) continue;  // nothing, or a weight that underflowed: nothing moves
    if (owner[k] == me) {
      mine.push_back({gid[k], sum[k], weight[k]});
    } else {
      ByteWriter& o = to_owner[owner[k]];  // a grain's sums: no key, no point
      o.put(gid[k]);
      o.put(sum[k]);
      o.put(weight[k]);
    }
  }
}

}  // namespace

/// A shared island's solve on one rank (share_islands).
struct DecomposedWorld::Sharing {
  int host = -1;  // the island's host, which books it
  TransportTeam* team = nullptr;
  std::optional<std::span<const int>> mine;  // this rank's contacts of it (its part's), if any
};

bool DecomposedWorld::may_share_islands(const World& w) const {
  // (Only once an island twice the last sub-step's largest, reduced over the ranks, would be
  // swept by blocks: the forwarding exchange is not made for small islands. The choice moves
  // no bit: an island solved by its host alone gives the same.)
  return shared_islands_ && t_.size() <= RestingTeam::kMostMembers &&
         w.sweeps_by_blocks(static_cast<std::size_t>(2 * last_largest_island_));
}

void DecomposedWorld::fill_slim_grains(IslandGrains& grains) const {
  IslandArrays& a = grains.state;
  const Bodies& b = local_.bodies;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const int k : grains.slim) {
    const auto at = static_cast<std::size_t>(k);
    const auto gid = static_cast<std::size_t>(grains.gid[at]);
    const int l = gid < local_of_.size() ? local_of_[gid] : -1;
    if (l < 0) {
      a.x[at] = a.v[at] = a.w[at] = Vec3::Constant(nan);
      a.inv_mass[at] = nan;
      a.inv_inertia[at] = Mat3::Constant(nan);
      continue;
    }
    a.x[at] = b.position[l];
    a.v[at] = b.velocity[l];
    a.w[at] = b.angular_velocity[l];
    a.inv_mass[at] = b.inv_mass[l];
    a.inv_inertia[at] = b.inv_inertia_world[l];
  }
}

void DecomposedWorld::send_whole_again(std::vector<GatheredIsland>& direct,
                                       const RootLists& part_contacts, const SubstepLists& lists) {
  // An island sent to every rank without the contacts only their senders read that the resting
  // pass no longer sweeps by blocks (it shrank below pgs.block_contacts) runs its pass whole on
  // every rank, which then reads every contact: each rank that kept some sends its part again
  // whole. Every
  // rank reads the same headers, so every rank knows which islands and parts; the exchange is
  // made only in the sub-steps that have one.
  const World& w = local_;
  const int me = t_.rank();
  std::vector<GatheredIsland*> again;
  for (GatheredIsland& g : direct) {
    const PartHeader sum = island_header(g);
    if (sum.kept > 0 && !w.sweeps_by_blocks(static_cast<std::size_t>(sum.contacts)))
      again.push_back(&g);
  }
  if (again.empty()) return;
  ByteWriter whole;
  for (GatheredIsland* g : again) {
    if (g->from.front() == me) ++stats_.islands_sent_whole;
    const auto at = std::find(g->from.begin(), g->from.end(), me);
    if (at == g->from.end()) continue;
    // This rank's part as kept (its header, with the count of contacts it did not send, then its
    // grains), its contacts written whole.
    const std::string& kept = g->parts[static_cast<std::size_t>(at - g->from.begin())];
    ByteReader in(kept);
    PartHeader header = read_part_header(in);
    if (header.kept == 0) continue;
    header.kind = PartContactsKind::kWhole;
    header.kept = 0;
    header.kept_collisions = header.kept_groups = 0;
    ByteWriter part;
    put_part_header(part, header);
    // Its grains all whole (the slim ones are this rank's own: here, by local id).
    GrainRun runs[2];
    read_part_grains(in, runs);
    std::vector<int> ids;
    for (const GrainRun& run : runs)
      for (std::size_t k = 0; k < run.size(); ++k) {
        const auto gid = static_cast<std::size_t>(run.gid(k));
        const int l = gid < local_of_.size() ? local_of_[gid] : -1;
        if (l < 0)
          throw std::logic_error(fmt::format(
              "rank {}: island {} kept a part with grain {}, not held here", me, g->root, gid));
        ids.push_back(l);
      }
    std::sort(ids.begin(), ids.end());  // (local ids ascend with the global ids)
    put_part_grains(part, w.bodies, ids, gid_, owner_);
    put_contact_record(part, lists.contacts.contacts, part_contacts.at(g->root), gid_);
    whole.put(g->root);
    whole.put(part.take());
  }
  std::vector<Message> out;
  const std::string bytes = whole.take();
  if (!bytes.empty())
    for (int d = 0; d < t_.size(); ++d)
      if (d != me) out.push_back({d, bytes});
  for (const Message& m : t_.exchange(std::move(out))) {
    ByteReader in(m.bytes);
    while (!in.done()) {
      const auto root = in.get<std::int64_t>();
      const auto g = std::find_if(again.begin(), again.end(),
                                  [&](const GatheredIsland* x) { return x->root == root; });
      auto not_asked = [&]() {
        return std::logic_error(
            fmt::format("rank {}: island {} sent again whole by rank {}, which was not asked", me,
                        root, m.peer));
      };
      if (g == again.end()) throw not_asked();
      const std::vector<int>& from = (*g)->from;
      const auto at = std::find(from.begin(), from.end(), m.peer);
      if (at == from.end()) throw not_asked();
      in.get((*g)->parts[static_cast<std::size_t>(at - from.begin())]);
    }
  }
}

void DecomposedWorld::share_islands(std::vector<GatheredIsland>& direct,
                                    const std::vector<GatheredIsland>& hosted,
                                    std::map<std::int64_t, std::string>& kept,
                                    const RootLists& part_contacts, SubstepLists& lists,
                                    std::vector<char>& shared) {
  // Each host reads its islands' headers: one the resting pass sweeps by blocks, and that is
  // solved (not a sleeping one), goes to every rank, without the parts the rank sent.
  send_whole_again(direct, part_contacts, lists);
  const World& w = local_;
  const int me = t_.rank(), ranks = t_.size();
  auto worth_sharing = [&](const GatheredIsland& g) {
    const PartHeader sum = island_header(g);
    const bool sleeping = w.settings.sleep_velocity > 0.0 && sum.asleep && !sum.awake;
    return !sleeping && w.sweeps_by_blocks(static_cast<std::size_t>(sum.contacts));
  };
  std::vector<std::int64_t> now_shared;
  std::vector<ByteWriter> out(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < hosted.size(); ++k) {
    const GatheredIsland& g = hosted[k];
    if (!worth_sharing(g)) continue;
    shared[k] = 1;
    now_shared.push_back(g.root);
    for (int d = 0; d < ranks; ++d) {
      if (d == me) continue;
      ByteWriter& o = out[static_cast<std::size_t>(d)];
      o.put(g.root);
      o.put(static_cast<std::int32_t>(g.parts.size()));
      for (std::size_t p = 0; p < g.parts.size(); ++p) {
        o.put(static_cast<std::int32_t>(g.from[p]));
        o.put(g.from[p] == d ? std::string() : g.parts[p]);
      }
    }
  }
  std::vector<Message> outgoing;
  for (int d = 0; d < ranks; ++d) {
    std::string bytes = out[static_cast<std::size_t>(d)].take();
    if (!bytes.empty()) outgoing.push_back({d, std::move(bytes)});
  }
  StageTimer gather_time(&local_.stages(), StageProfile::IslandsGather);
  const std::vector<Message> received = t_.exchange(std::move(outgoing));
  gather_time.stop();
  // Host after host (this rank's own in its place), root after root: the same order and the
  // same collectives on every rank.
  TransportTeam team(t_, decomposition_);
  team.nets = !full_.nets.empty();
  std::map<int, ByteWriter> none_owner, none_source, none_correction;  // (nothing is sent)
  auto solve = [&](const GatheredIsland& g, int host) {
    const std::size_t k = part_contacts.find(g.root);
    Sharing sharing{host, &team, std::nullopt};
    if (k < part_contacts.size()) sharing.mine = part_contacts.list(k);
    solve_hosted(g, lists, none_owner, none_source, none_correction, &sharing);
  };
  auto solve_own = [&]() {
    for (std::size_t k = 0; k < hosted.size(); ++k)
      if (shared[k]) solve(hosted[k], me);
  };
  // The islands every rank received whole: solved together even where one no longer needs it
  // (grown small, fallen asleep: the same bits), booked by the first rank that holds some of
  // it, and sent this way again next sub-step while worth it.
  for (const GatheredIsland& g : direct) {
    if (worth_sharing(g)) now_shared.push_back(g.root);
    if (g.from.front() == me) ++stats_.islands_shared_direct;
    solve(g, g.from.front());
  }
  bool own_done = false;
  GatheredIsland g;
  for (const Message& m : received) {
    if (!own_done && m.peer > me) {
      solve_own();
      own_done = true;
    }
    ByteReader in(m.bytes);
    while (!in.done()) {
      in.get(g.root);
      const int parts = in.get<std::int32_t>();
      g.from.assign(static_cast<std::size_t>(parts), -1);
      g.parts.assign(static_cast<std::size_t>(parts), std::string());
      for (int p = 0; p < parts; ++p) {
        g.from[static_cast<std::size_t>(p)] = in.get<std::int32_t>();
        in.get(g.parts[static_cast<std::size_t>(p)]);
        if (g.from[static_cast<std::size_t>(p)] != me) continue;
        const auto it = kept.find(g.root);
        if (it == kept.end())
          throw std::logic_error(fmt::format(
              "rank {}: island {} came back with a part of this rank it did not send", me, g.root));
        g.parts[static_cast<std::size_t>(p)] = std::move(it->second);  // (each part comes once)
      }
      solve(g, m.peer);
      now_shared.push_back(g.root);
    }
  }
  if (!own_done) solve_own();
  stats_.shared_row_updates += team.member_updates;
  std::sort(now_shared.begin(), now_shared.end());
  shared_roots_ = std::move(now_shared);
}

void DecomposedWorld::solve_hosted(const GatheredIsland& g, SubstepLists& lists,
                                   std::map<int, ByteWriter>& to_owner,
                                   std::map<int, ByteWriter>& to_source,
                                   std::map<int, ByteWriter>& to_correction, const Sharing* sharing,
                                   std::optional<std::span<const int>> own) {
  // The island's grains ascending by global id and its contacts in the serial order (a stable
  // sort by the contact-order key: each pair's points came together, in order, from one rank),
  // then world/island_solve, the function the serial step calls. The contacts are read where
  // they lie: this rank's own (a shared island's part kept here) in its contact list, renamed
  // to the island's ids while it is solved; those that came in records after them, in the same
  // list until the island is done. `at` lists them in the serial order.
  World& w = local_;
  HostScratch& h = *host_;
  StageTimer assembly_time(&w.stages(), StageProfile::IslandsAssembly);
  // (References, not a structured binding: lambdas below use them, which clang 14 refuses.)
  std::vector<PartContacts>& parts = h.parts;
  std::vector<Contact>& contacts = lists.contacts.contacts;
  const std::size_t detected = contacts.size();
  std::vector<std::pair<int, int>>& origin = h.origin;
  std::vector<int>& order = h.order;
  std::vector<int>& place = h.place;
  IslandGrains& grains = h.grains;
  IslandArrays& a = grains.state;
  std::vector<Vec3>& v = a.v;
  std::vector<GrainRun>& runs = h.grain_runs;
  runs.assign(2 * g.parts.size(), {});
  parts.resize(g.parts.size());  // (each part's view reset below, its room kept)
  origin.clear();
  std::size_t from_records = 0;  // (the contacts that came in records)
  // The parts' headers summed: all of them, and those of the other ranks' parts.
  PartHeader island, others;
  for (std::size_t s = 0; s < g.parts.size(); ++s) {
    ByteReader in(g.parts[s]);
    const PartHeader header = read_part_header(in);
    add_part_header(island, header);
    if (g.from[s] != t_.rank()) add_part_header(others, header);
    read_part_grains(in, &runs[2 * s]);
    PartContacts& part = parts[s];
    part.which.reset();
    part.places.clear();  // (all of them, in their order, unless the record lists its places)
    if (header.kind == PartContactsKind::kLocal) {  // this rank's own contacts, where they lie
      const std::optional<std::span<const int>> mine = sharing ? sharing->mine : own;
      if (!mine || g.from[s] != t_.rank() || static_cast<long>(mine->size()) != header.contacts)
        throw std::logic_error(
            fmt::format("rank {}: island {} holds a part of rank {} whose contacts are not here",
                        t_.rank(), g.root, g.from[s]));
      part.which = mine;
    } else {
      part.record.reset(in.view());
      from_records += part.record.size();
      if (header.kind == PartContactsKind::kSome) {
        in.get(part.places, sizeof(std::int32_t));
        if (part.places.size() != part.record.size())
          throw ByteStreamError(fmt::format("an island part of {} contacts with {} places",
                                            part.record.size(), part.places.size()));
      }
    }
    for (std::size_t k = 0; k < part.size(); ++k)
      origin.emplace_back(static_cast<int>(s), static_cast<int>(k));
  }
  merge_part_grains(runs, grains, h.grain_next, g.root, t_.rank());
  fill_slim_grains(grains);
  const std::vector<std::int64_t>& gids = grains.gid;
  const int nb = static_cast<int>(gids.size());
  // Each grain's place by its global id; a body not in the island (static, or a grain held
  // asleep as a support) has none: -1.
  std::vector<int>& local = h.local;
  if (nb > 0 && static_cast<std::size_t>(gids.back()) >= local.size())
    local.resize(static_cast<std::size_t>(gids.back()) + 1, -1);
  for (int k = 0; k < nb; ++k) local[static_cast<std::size_t>(gids[k])] = k;
  auto local_index = [&](int gid) {
    return gid >= 0 && static_cast<std::size_t>(gid) < local.size()
               ? local[static_cast<std::size_t>(gid)]
               : -1;
  };
  // The gathered contacts carry global ids: the whole world's key (its bodies are global ids).
  // A contact of this rank's own part is renamed to the island's ids where it lies as its key
  // is read (its names before kept in `renamed`, in the part's order), in one touch of it.
  std::vector<ContactOrderKey>& key = h.key;
  std::vector<std::array<int, 3>>& renamed = h.renamed;
  renamed.clear();
  key.resize(origin.size());
  for (std::size_t k = 0; k < origin.size(); ++k) {
    const PartContacts& part = parts[static_cast<std::size_t>(origin[k].first)];
    const auto j = static_cast<std::size_t>(origin[k].second);
    if (!part.which) {
      key[k] = full_.contact_order_key(part.record.a(j), part.record.b(j));
      continue;
    }
    if (j + kContactsAhead < part.which->size())
      prefetch(&contacts[static_cast<std::size_t>((*part.which)[j + kContactsAhead])]);
    const int at_k = (*part.which)[j];
    Contact& c = contacts[static_cast<std::size_t>(at_k)];
    const auto ga = static_cast<int>(gid_[static_cast<std::size_t>(c.a)]);
    const auto gb = static_cast<int>(gid_[static_cast<std::size_t>(c.b)]);
    key[k] = full_.contact_order_key(ga, gb);
    renamed.push_back({at_k, c.a, c.b});
    c.a = local_index(ga);
    c.b = local_index(gb);
  }
  stable_order(key, order);
  // (Room first: the parts kept here are read by index below, not through their views. It grows
  // by half at least: a pile that grows from one sub-step to the next does not copy the list
  // each time.)
  const std::size_t room = detected + from_records;
  if (contacts.capacity() < room) contacts.reserve(std::max(room, contacts.capacity() * 3 / 2));
  std::vector<int>& at = h.at;
  at.resize(order.size());
  Contact read;
  for (std::size_t s = 0; s < order.size(); ++s) {
    const std::pair<int, int>& from = origin[static_cast<std::size_t>(order[s])];
    const PartContacts& part = parts[static_cast<std::size_t>(from.first)];
    if (part.which) {
      at[s] = (*part.which)[static_cast<std::size_t>(from.second)];
      continue;
    }
    part.record.get(static_cast<std::size_t>(from.second), read);
    read.a = local_index(read.a);
    read.b = local_index(read.b);
    at[s] = static_cast<int>(contacts.size());
    contacts.push_back(read);
  }
  for (const std::int64_t gid : gids) local[static_cast<std::size_t>(gid)] = -1;
  // The host books the island (a shared one: every rank solves it, the host alone books it).
  const bool books = !sharing || sharing->host == t_.rank();
  if (books) {
    ++lists.stats.islands;
    ++stats_.islands_hosted;
    if (g.from.size() > 1) ++stats_.islands_spanning;
    if (sharing) ++stats_.islands_shared;
    stats_.most_ranks_spanned =
        std::max(stats_.most_ranks_spanned, static_cast<long>(g.from.size()));
  }
  // Sleeping islands (World::wake_or_skip): an island of sleepers only is not solved (its
  // contacts keep the impulses the warm start gave them, which came here with them); one a
  // moving grain joined wakes whole, its sleepers kicked as the others were.
  bool sleeper = false, moving = false;
  if (w.settings.sleep_velocity > 0.0)
    for (const char asleep : grains.asleep) (asleep ? sleeper : moving) = true;
  const bool solve = !sleeper || moving;
  std::vector<std::int64_t>& woken = h.woken;
  woken.clear();
  if (sleeper && moving) {
    const Vec3 dv = w.substep_length() * w.settings.gravity;
    for (int k = 0; k < nb; ++k) {
      if (!grains.asleep[static_cast<std::size_t>(k)]) continue;
      const std::int64_t gid = gids[static_cast<std::size_t>(k)];
      if (books) lists.sums.wake_kick += kick_energy(full_.bodies.mass[gid], v[k], dv);
      v[k] += dv;
      woken.push_back(gid);
    }
    if (books) ++lists.stats.woken;
  }
  // (A shared island's rank holds the contacts it reads: the headers count them all.)
  const long island_contacts = sharing ? island.contacts : static_cast<long>(at.size());
  assembly_time.stop();
  IslandSolution r;
  if (sharing && at.empty()) ++stats_.islands_shared_empty;
  if (sharing) {  // the shock pass's bodies to their grains' owners; the contacts kept here
    // (The team names a contact by its index in the list, as the pass reads it.)
    sharing->team->owner = &grains.owner;
    sharing->team->own = &grains.own;
    // The grains of this rank's part that no other rank reads (solve_islands); none where the
    // island's pass is not swept by blocks (every member then reads every contact: it shrank
    // since its parts were sent, send_whole_again).
    TransportTeam& team = *sharing->team;
    const bool quiet_parts =
        !team.nets && w.sweeps_by_blocks(static_cast<std::size_t>(island_contacts));
    team.quiet_here = quiet_parts && sharing->mine;
    // The collision groups the parts kept whole (each rank's part's header counts its own); where
    // the parts were sent again whole, none (this rank's own part, read where it lies, holds all
    // its collisions then).
    team.kept_elsewhere = {};
    if (quiet_parts)
      team.kept_elsewhere = {others.kept_collisions, others.kept_groups, island.kept_groups > 0};
    team.gids = &gids;
    team.local_of = &local_of_;
    team.quiet_grains = &h.quiet;
    if (h.source.size() < contacts.size()) h.source.resize(contacts.size());
    if (h.source_index.size() < contacts.size()) h.source_index.resize(contacts.size());
    h.kept.assign(sharing->mine ? sharing->mine->size() : 0, -1);
    for (std::size_t s = 0; s < at.size(); ++s) {
      const std::pair<int, int>& from = origin[static_cast<std::size_t>(order[s])];
      const auto k = static_cast<std::size_t>(at[s]);
      h.source[k] = g.from[static_cast<std::size_t>(from.first)];
      h.source_index[k] =
          parts[static_cast<std::size_t>(from.first)].place(static_cast<std::size_t>(from.second));
      // (This rank's part is its own contacts, all of them: its places are its indices.)
      if (h.source[k] != t_.rank()) continue;
      if (static_cast<std::size_t>(from.second) >= h.kept.size())
        throw std::logic_error(fmt::format(
            "rank {}: island {} holds more of its contacts than it has", t_.rank(), g.root));
      h.kept[static_cast<std::size_t>(from.second)] = at[s];
    }
    sharing->team->source = &h.source;
    sharing->team->source_index = &h.source_index;
    sharing->team->kept = &h.kept;
    sharing->team->island_contacts = island_contacts;
  }
  if (solve) {
    const StageTimer t(&w.stages(), StageProfile::IslandsSolves);
    r = w.solve_island(a.state(0, nb), contacts, std::span<const int>(at),
                       sharing ? sharing->team : nullptr);
  }
  const StageTimer results_time(&w.stages(), StageProfile::IslandsResults);
  if (solve && sharing)  // every rank holds the results: each takes its own grains'
    for (const int k : grains.own)
      take_result(w, local_of_[gids[static_cast<std::size_t>(k)]],
                  GrainResult{v[k], a.w[k], a.toi[k], a.v0[k],
                              grains.asleep[static_cast<std::size_t>(k)] != 0},
                  lists.motion);
  // (A shared island's kick is each member's share: of the grains it settles.)
  if (solve && (books || sharing)) lists.sums.island_kick.add(r.kick);
  if (solve && books) {
    if (!full_.nets.empty()) {  // the island's share of the nets' kick (World::book_net_contacts)
      NetShare share;
      bool any = false;
      for (int k = 0; k < nb; ++k) {
        const auto gid = static_cast<int>(gids[static_cast<std::size_t>(k)]);
        if (!full_.is_net_node(gid)) continue;
        any = true;
        full_.add_net_node(gid, v[k], share);
      }
      if (any) World::book_net_island(share, r, lists.sums.nets);
    }
    lists.sums.solver.add(r.stats);
    lists.sums.resting.add(r.resting_stats);
    lists.stats.collisions += r.collisions;
    stats_.groups_shared += r.groups_shared;
    lists.stats.largest_island = std::max<long>(lists.stats.largest_island, island_contacts);
    ++lists.sums.solved;
    if (!sharing) {
      if (island_contacts > largest_alone_) {
        largest_alone_ = island_contacts;
        largest_alone_root_ = g.root;
      }
      // (Grains ascend by id: the first is the root, whose owner hosts unless offloaded.)
      if (nb > 0 && grains.owner.front() != t_.rank()) ++stats_.islands_offloaded;
    }
    // New velocities to the owners (and whether each woke), unless each took its own.
    Hosted& hosted = hosted_.emplace_back(Hosted{g.root, {}});
    std::vector<char>& seen = h.seen_owner;  // (each owner once, ascending)
    seen.assign(static_cast<std::size_t>(t_.size()), 0);
    for (int k = 0; k < nb; ++k) {
      const auto at = static_cast<std::size_t>(k);
      seen[static_cast<std::size_t>(grains.owner[at])] = 1;
      if (sharing) continue;
      if (grains.owner[at] == t_.rank()) {  // (each grain is in one island: in any order)
        take_result(w, local_of_[gids[at]],
                    GrainResult{v[k], a.w[k], a.toi[k], a.v0[k], grains.asleep[at] != 0},
                    lists.motion);
        continue;
      }
      ByteWriter& out = to_owner[grains.owner[at]];
      out.put(gids[at]);
      out.put(v[k]);
      out.put(a.w[k]);
      out.put(a.toi[k]);
      out.put(a.v0[k]);
      out.put(static_cast<std::int8_t>(grains.asleep[at]));
    }
    for (int rank = 0; rank < t_.size(); ++rank)
      if (seen[static_cast<std::size_t>(rank)]) hosted.owners.push_back(rank);
  } else if (!solve && books) {
    ++lists.stats.asleep_steps;
  }
  if (contributions_hosted_ && solve) {  // an island left asleep is held where it fell asleep
    // (Shared: every rank sums its own grains' shares and counts its part of the contacts.)
    project_hosted(w.settings, gids, grains.owner, a.inv_mass.data(), contacts, at, t_.rank(),
                   sharing != nullptr, to_correction, hosted_sums_, h.sum, h.weight,
                   hosted_penetrating_);
  }
  // Impulses to the ranks that detected the contacts, each part's in the order it came, and
  // the sleepers woken (the projection holds a sleeper in place); shared: this rank's part's
  // written here (a part kept here holds them already).
  place.resize(at.size());
  for (std::size_t s = 0; s < order.size(); ++s) place[order[s]] = static_cast<int>(s);
  std::size_t k = 0;
  for (std::size_t s = 0; s < g.parts.size(); ++s) {
    std::size_t end = k;
    while (end < origin.size() && origin[end].first == static_cast<int>(s)) ++end;
    if (sharing) {
      if (g.from[s] == t_.rank()) {
        const std::optional<std::span<const int>>& mine = sharing->mine;
        if (!mine || mine->size() != end - k)
          throw std::logic_error(fmt::format("rank {}: {} contacts of island {} came back, {} sent",
                                             t_.rank(), end - k, g.root, mine ? mine->size() : 0));
        if (!parts[s].which)
          for (std::size_t j = 0; k < end; ++k, ++j) {
            const Contact& c = contacts[static_cast<std::size_t>(at[place[k]])];
            Contact& to = contacts[static_cast<std::size_t>((*mine)[j])];
            to.normal_impulse = c.normal_impulse;
            to.tangent_impulse = c.tangent_impulse;
            to.rolling_impulse = c.rolling_impulse;
          }
        for (const std::int64_t gid : woken)
          if (local_of_[gid] >= 0) w.wake_body(local_of_[gid]);
      }
      k = end;
      continue;
    }
    if (parts[s].which) {  // this rank's contacts, solved where they lie
      for (const std::int64_t gid : woken)
        if (local_of_[gid] >= 0) w.wake_body(local_of_[gid]);
      k = end;
      continue;
    }
    ByteWriter& out = to_source[g.from[s]];
    out.put(g.root);
    out.put(static_cast<std::int32_t>(end - k));
    for (; k < end; ++k) {
      const Contact& c = contacts[static_cast<std::size_t>(at[place[k]])];
      out.put(c.normal_impulse);
      out.put(c.tangent_impulse);
      out.put(c.rolling_impulse);
    }
    out.put(static_cast<std::int32_t>(woken.size()));
    for (const std::int64_t gid : woken) out.put(gid);
  }
  // The list as the narrow phase left it: this rank's contacts on its own ids again, without
  // those that came in records.
  for (std::size_t k = 0; k < renamed.size(); ++k) {
    if (k + kContactsAhead < renamed.size())
      prefetch(&contacts[static_cast<std::size_t>(renamed[k + kContactsAhead][0])]);
    contacts[static_cast<std::size_t>(renamed[k][0])].a = renamed[k][1];
    contacts[static_cast<std::size_t>(renamed[k][0])].b = renamed[k][2];
  }
  contacts.resize(detected);
}

}  // namespace etdem::distributed
