// Islands on the ranks of a split run (distributed/decomposed_world.hpp): labelled across
// ranks without a gather (island_labels), each island's parts sent to the ranks that solve it
// (island_parts.hpp), solved there (rank_hosted.cpp), and the results sent back to the grains'
// owners and to the ranks that detected its contacts.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/core/union_find.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/host_scratch.hpp"
#include "etdem/distributed/island_parts.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/world/island_solve.hpp"

namespace etdem::distributed {
namespace {

/// Whether no other rank reads a contact of an island every rank solves together: such a
/// contact stays with the rank that detected it. Another rank builds the row of a contact in a
/// block it sweeps, of a leftover (every rank sweeps those) and of a contact whose upper body it
/// settles (its grain's owner, solvers/resting_team.hpp); every rank reads a collision; and a
/// rank reads every contact of its grains (their times of impact, their projection). So a
/// contact stays here when its island bodies are this rank's own and awake (the sleepers a
/// waking island kicks change their contacts' approach), its block is this rank's (the block
/// and its centre by the resting pass's own rule, contact_block and block_centre, from the same
/// positions), and the island's solve takes it for a resting contact (resting_contact, from the
/// normal velocity the solve computes, in the same operations on the same bits: the island's
/// state is the bodies' own). What the other
/// ranks derive from such contacts (who reads which body, the shock pass's heights and
/// supports, the stir limits, the times of impact) the team exchanges (resting_team.hpp).
class UnsharedContacts {
 public:
  /// What becomes of a contact: it stays here; it is sent only because it is a collision (every
  /// rank reads the island's collisions); or it is sent because another rank reads it whatever
  /// it is (a body of another rank's or asleep, a leftover, a block of another rank's).
  enum class Verdict : std::int8_t { kStays, kCollision, kSent };
  UnsharedContacts(const World& w, const std::vector<char>& owned, const Decomposition& d, int me)
      : d_(d), me_(me) {
    const RestingSettings* pgs = w.resting_pass_settings();
    v_rest_ = w.settings.effective_resting_velocity();
    h_ = w.substep_length();
    if (pgs && pgs->block_contacts > 0 && pgs->colouring == BlockOrder::Colouring::kBlocks &&
        v_rest_ > 0.0)
      cell_ = pgs->block_size;
    if (!any()) return;
    // What the test reads of each body, once and together (a grain has several contacts): whether
    // it is an awake grain of this rank's, and then its velocities and its block cell.
    bodies_.resize(owned.size());
    for (std::size_t i = 0; i < owned.size(); ++i) {
      Body& b = bodies_[i];
      const int l = static_cast<int>(i);
      b.stays = owned[i] && !w.bodies.is_asleep(l);
      if (!b.stays) continue;
      b.v = w.bodies.velocity[l];
      b.w = w.bodies.angular_velocity[l];
      for (int d = 0; d < 3; ++d) b.cell[d] = block_coordinate(w.bodies.position[l][d], cell_);
    }
  }
  /// Whether any contact may stay (a resting pass swept by blocks of the spatial kind).
  bool any() const { return cell_ > 0.0; }
  /// Whether body i (a local id) is an awake grain of this rank's.
  bool own_awake(int i) const { return bodies_[static_cast<std::size_t>(i)].stays; }
  /// Contact c's verdict (this rank's local ids); `moves(i)`: body i is in its island.
  template <class Moves>
  Verdict operator()(const Contact& c, Moves&& moves) const {
    const int body[2] = {moves(c.a) ? c.a : -1, moves(c.b) ? c.b : -1};
    if (body[0] < 0 && body[1] < 0) return Verdict::kSent;
    const BlockCell* cell[2] = {nullptr, nullptr};
    for (int e = 0; e < 2; ++e) {
      const int i = body[e];
      if (i < 0) continue;
      const Body& b = bodies_[static_cast<std::size_t>(i)];
      if (!b.stays) return Verdict::kSent;
      cell[e] = &b.cell;
    }
    BlockCell at;
    if (!contact_block(cell[0], cell[1], at)) return Verdict::kSent;  // a leftover: every rank
    if (d_.owner_of(block_centre(at, cell_)) != me_) return Verdict::kSent;  // sweeps it
    const Vec3 u = impulse::relative_velocity(
        c, body[0], body[1],
        [&](int i) -> const Vec3& { return bodies_[static_cast<std::size_t>(i)].v; },
        [&](int i) -> const Vec3& { return bodies_[static_cast<std::size_t>(i)].w; });
    return resting_contact(c.normal.dot(u), c.gap, h_, v_rest_) ? Verdict::kStays
                                                                : Verdict::kCollision;
  }

 private:
  const Decomposition& d_;
  int me_ = 0;
  double v_rest_ = 0.0, cell_ = 0.0;
  double h_ = 0.0;  // the sub-step [s]
  struct Body {
    Vec3 v = Vec3::Zero(), w = Vec3::Zero();  // [m/s], [rad/s]
    BlockCell cell{};
    bool stays = false;  // an awake grain of this rank's (the rest is read only then)
  };
  std::vector<Body> bodies_;  // per local body
};

/// A part's collisions kept on the rank that detected it: their count and their groups'.
struct QuietGroups {
  long collisions = 0, groups = 0;
};

/// Of the collisions at `places` (ascending) in a part's contact list `list` (this rank's local
/// ids; `moves(i)`: body i is in the island), those whose collision group has only grains
/// `quiet` marks (read by no other rank: every contact of such a grain is this rank's, and none
/// of them is sent but as a collision) stay here, and `places` keeps the others. Such a group
/// is whole here: each collision of a quiet grain is one of these, so the groups these
/// collisions form are the island solve's groups (world/collision_groups.hpp) wherever all
/// their grains are quiet. Their solve needs no other rank (RestingTeam::kept_collisions).
template <class Moves>
QuietGroups keep_quiet_groups(std::span<const Contact> contacts, std::span<const int> list,
                              Moves&& moves, const std::vector<char>& quiet, PartGroups& h,
                              std::vector<std::int32_t>& places) {
  QuietGroups out;
  std::vector<int>& up = h.up;
  std::vector<char>& noisy = h.noisy;
  std::vector<int>& met = h.met;
  if (up.size() < quiet.size()) up.resize(quiet.size(), -1), noisy.resize(quiet.size(), 0);
  met.clear();
  auto first_body = [&](const Contact& c) { return moves(c.a) ? c.a : c.b; };
  for (const std::int32_t j : places) {
    const Contact& c = contacts[static_cast<std::size_t>(list[static_cast<std::size_t>(j)])];
    for (const int i : {c.a, c.b})
      if (moves(i) && up[static_cast<std::size_t>(i)] < 0)
        up[static_cast<std::size_t>(i)] = i, met.push_back(i);
    if (moves(c.a) && moves(c.b)) unite(up, c.a, c.b);
  }
  for (const int i : met)
    if (!quiet[static_cast<std::size_t>(i)]) noisy[static_cast<std::size_t>(find_root(up, i))] = 1;
  for (const int i : met)
    if (find_root(up, i) == i && !noisy[static_cast<std::size_t>(i)]) ++out.groups;
  std::erase_if(places, [&](std::int32_t j) {
    const Contact& c = contacts[static_cast<std::size_t>(list[static_cast<std::size_t>(j)])];
    const bool stays = !noisy[static_cast<std::size_t>(find_root(up, first_body(c)))];
    out.collisions += stays ? 1 : 0;
    return stays;
  });
  for (const int i : met)
    up[static_cast<std::size_t>(i)] = -1, noisy[static_cast<std::size_t>(i)] = 0;
  return out;
}

}  // namespace

void DecomposedWorld::solve_islands(World& w, SubstepLists lists) {
  const StepBodies& sb = lists.bodies;
  StepContacts& sc = lists.contacts;
  std::vector<Motion>& motion = lists.motion;
  stats_.contacts += static_cast<long>(sc.contacts.size());
  const int n = w.bodies.count();
  using S = StageProfile;
  StageProfile* const stages = &w.stages();
  // 1. Islands across ranks: labelled by their smallest global id, hosted by its owner. A grain
  //    held asleep by regions is a support, as a wall (World::hold_sleepers): in no island.
  StageTimer labels_time(stages, S::IslandsLabels);
  const bool holding = w.sleeps_by_regions();
  std::vector<char>& moving = host_->moving;  // (once per body: each is met in several contacts)
  moving.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) moving[i] = sb.dynamic[i] && !(holding && w.bodies.is_asleep(i));
  auto moves = [&](int i) { return moving[static_cast<std::size_t>(i)] != 0; };
  // (The graph's room is kept from one sub-step to the next.) Each candidate's island body (its
  // first moving one) is noted as its contact is read here, for the parts below.
  LocalContactGraph& graph = host_->graph;
  graph.gid.assign(gid_.begin(), gid_.end());
  graph.owner.assign(owner_.begin(), owner_.end());
  graph.touched.assign(n, 0);
  graph.edges.clear();
  std::vector<int>& island_body = host_->island_body;  // per candidate, in their order
  island_body.resize(sc.candidates.size());
  for (std::size_t j = 0; j < sc.candidates.size(); ++j) {
    if (j + kContactsAhead < sc.candidates.size())
      prefetch(&sc.contacts[static_cast<std::size_t>(sc.candidates[j + kContactsAhead])]);
    const Contact& c = sc.contacts[static_cast<std::size_t>(sc.candidates[j])];
    const bool da = moves(c.a), db = moves(c.b);
    if (da) graph.touched[c.a] = 1;
    if (db) graph.touched[c.b] = 1;
    if (da && db) graph.edges.emplace_back(c.a, c.b);
    island_body[j] = da ? c.a : c.b;
  }
  IslandLabelStats label_stats;
  labels_ = label_islands(graph, t_, &label_stats);
  // The islands of a rank busy with a large one move to another (offload_; every rank reads
  // the same offload, so all agree on every island's host).
  if (offload_.from >= 0)
    for (IslandLabel& label : labels_)
      if (label.root >= 0 && label.host == offload_.from && label.root != offload_.keep_root)
        label.host = offload_.to;
  largest_alone_ = 0;
  largest_alone_root_ = -1;
  const std::vector<IslandLabel>& labels = labels_;
  stats_.label_rounds += label_stats.rounds;
  labels_time.stop();

  // 2. What this rank holds of each island to the island's host: the candidates it detected,
  //    in their (serial) order, and the grains they touch, with global ids.
  StageTimer parts_time(stages, S::IslandsParts);
  // Each island's candidates here and the moving grains they touch (graph.touched; each in one
  // island), ascending. Every candidate's island body is a grain it touches and every touched
  // grain is a candidate's, so both hold the same roots in the same places.
  const auto ids = static_cast<std::int64_t>(local_of_.size());
  RootLists& part_contacts = host_->part_contacts;
  part_contacts.build(
      sc.candidates.size(), ids,
      [&](std::size_t j) { return labels[static_cast<std::size_t>(island_body[j])].root; },
      [&](std::size_t j) { return sc.candidates[j]; });
  std::vector<int>& touched = host_->touched;
  touched.clear();
  for (int i = 0; i < n; ++i)
    if (graph.touched[static_cast<std::size_t>(i)]) touched.push_back(i);
  RootLists& part_grains = host_->part_grains;
  part_grains.build(
      touched.size(), ids,
      [&](std::size_t j) { return labels[static_cast<std::size_t>(touched[j])].root; },
      [&](std::size_t j) { return touched[j]; });
  if (part_grains.size() != part_contacts.size())
    throw std::logic_error(fmt::format("rank {}: {} islands with candidates, {} with grains",
                                       t_.rank(), part_contacts.size(), part_grains.size()));
  std::vector<IslandPart> parts;
  // An island every rank solved together last sub-step goes from each rank that holds some of
  // it straight to every other rank (no round through its host); the others to their hosts. A
  // rank keeps its parts of both: a large island comes back from its host to be solved by every
  // rank together (share_islands) without the part the rank sent.
  const bool may_share = may_share_islands(w);
  if (!may_share) shared_roots_.clear();
  auto shared_before = [&](std::int64_t root) {
    return std::binary_search(shared_roots_.begin(), shared_roots_.end(), root);
  };
  // The contacts of an island sent to every rank that no other rank reads stay here (unshared);
  // this rank keeps its part without contacts and reads its own where they lie. (Only an island
  // shared last sub-step is sent so.)
  std::optional<UnsharedContacts> unshared;
  if (!shared_roots_.empty()) unshared.emplace(w, owned_, decomposition_, t_.rank());
  // root -> where the grains end in the part this rank sent of an island whose contacts it
  // partly keeps: it keeps that part's header and grains, as a part of its own contacts
  std::map<std::int64_t, std::size_t> own_direct;
  std::vector<int> sent_contacts;  // (a part's contacts sent, and their places; its collisions'
  std::vector<std::int32_t> collision_places;  // places, then those of them sent)
  // Per body: in a contact sent. Marked for one part and cleared after it, so all zero between
  // parts and sub-steps: only sized here.
  std::vector<char>& read_elsewhere = host_->read_elsewhere;
  read_elsewhere.resize(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> sent_places;
  // Per body: in a contact of a shared part sent for another reason than being a collision
  // (marked and cleared part by part, as read_elsewhere); and a grain no other rank reads,
  // whose collision group's results no other rank needs (RestingTeam::quiet), set for the
  // parts sent with some of their contacts kept, zero elsewhere.
  std::vector<char>& loud = host_->loud;
  loud.resize(static_cast<std::size_t>(n), 0);
  std::vector<char>& quiet = host_->quiet;
  quiet.assign(static_cast<std::size_t>(n), 0);
  // An island hosted here that no rank solves together with this one sends its part to no
  // rank: the part holds no contacts, which its solve reads where they lie (kLocal). Where
  // islands may be shared, only an island no other rank holds some of: its grains this rank's
  // own and a ghost on no rank, and too small to be shared. And, where islands were shared last
  // sub-step (their parts go to every rank), per body: awake and held by every other rank, as its
  // owner or as a ghost (known of a grain owned here from where it was sent, and of a ghost here on
  // two ranks, whose other rank owns it). Every rank's copy of a grain is its owner's, bit for bit,
  // when the islands are solved (the halo carries the state and every rank applies the same step to
  // it), so a part sends such a grain slim even where other ranks read it, and each reads it from
  // its own copy (fill_slim_grains).
  const int me = t_.rank();
  std::vector<char>& alone = host_->alone;  // per body: owned here and a ghost nowhere
  std::vector<char>& everywhere = host_->held_everywhere;
  if (may_share) {
    const bool shared_before_now = !shared_roots_.empty();
    const int others = t_.size() - 1;
    alone.assign(static_cast<std::size_t>(n), 0);
    if (shared_before_now) {
      everywhere.resize(static_cast<std::size_t>(n));
      for (int l = 0; l < n; ++l)  // (the grains owned here are set below)
        everywhere[static_cast<std::size_t>(l)] = others == 1 && !w.bodies.is_asleep(l);
    }
    for (const GrainRecord& r : grains_.owned) {
      const auto l = static_cast<std::size_t>(local_of_[r.gid]);
      alone[l] = r.ghosted_on.empty() ? 1 : 0;
      if (shared_before_now)
        everywhere[l] = static_cast<int>(r.ghosted_on.size()) == others &&
                        !w.bodies.is_asleep(static_cast<int>(l));
    }
  }
  const bool nets = !full_.nets.empty();  // (a world with nets sends every part whole)
  auto solved_here = [&](std::span<const int> grains, std::size_t contacts) {
    if (nets) return false;
    if (!may_share) return true;
    if (w.sweeps_by_blocks(contacts)) return false;
    return std::all_of(grains.begin(), grains.end(),
                       [&](int i) { return alone[static_cast<std::size_t>(i)] != 0; });
  };
  std::vector<std::int64_t> in_place;  // the roots of those islands, ascending
  for (std::size_t island = 0; island < part_contacts.size(); ++island) {
    const std::int64_t root = part_contacts.root(island);
    const std::span<const int> list = part_contacts.list(island);
    if (part_grains.root(island) != root)
      throw std::logic_error(
          fmt::format("rank {}: island {} has candidates here but no grains", t_.rank(), root));
    const std::span<const int> grains = part_grains.list(island);
    PartHeader header{static_cast<long>(list.size())};
    for (int i : grains) (w.bodies.is_asleep(i) ? header.asleep : header.awake) = true;
    const int host = labels[static_cast<std::size_t>(grains.front())].host;
    const bool direct = shared_before(root);
    const bool some = direct && unshared->any();
    const bool here = !direct && host == me && solved_here(grains, list.size());
    if (here) header.kind = PartContactsKind::kLocal;
    if (some) {  // the contacts other ranks read, and their places in the part
      header.kind = PartContactsKind::kSome;
      sent_places.clear();
      collision_places.clear();
      for (std::size_t j = 0; j < list.size(); ++j) {
        if (j + kContactsAhead < list.size())
          prefetch_range(&sc.contacts[static_cast<std::size_t>(list[j + kContactsAhead])],
                         sizeof(Contact));
        const Contact& c = sc.contacts[static_cast<std::size_t>(list[j])];
        const UnsharedContacts::Verdict verdict = (*unshared)(c, moves);
        if (verdict == UnsharedContacts::Verdict::kStays) continue;
        if (verdict == UnsharedContacts::Verdict::kCollision) {
          collision_places.push_back(static_cast<std::int32_t>(j));
          continue;
        }
        loud[static_cast<std::size_t>(c.a)] = 1;
        loud[static_cast<std::size_t>(c.b)] = 1;
        sent_places.push_back(static_cast<std::int32_t>(j));
      }
      // Its grains no other rank reads: awake and this rank's own, a ghost on no rank (no other
      // rank detects a contact of them), no contact of them sent but as a collision.
      for (const int i : grains)
        quiet[static_cast<std::size_t>(i)] = alone[static_cast<std::size_t>(i)] &&
                                             unshared->own_awake(i) &&
                                             !loud[static_cast<std::size_t>(i)];
      for (const std::int32_t j : sent_places) {
        const Contact& c = sc.contacts[static_cast<std::size_t>(list[static_cast<std::size_t>(j)])];
        loud[static_cast<std::size_t>(c.a)] = 0;
        loud[static_cast<std::size_t>(c.b)] = 0;
      }
      // The collisions of the groups among such grains stay here too (but with nets, whose
      // nodes the host books from every grain's result); the others go with the contacts sent,
      // in the part's order.
      const QuietGroups kept_groups = nets
                                          ? QuietGroups{}
                                          : keep_quiet_groups(sc.contacts, list, moves, quiet,
                                                              host_->part_groups, collision_places);
      header.kept_collisions = kept_groups.collisions;
      header.kept_groups = kept_groups.groups;
      stats_.collisions_kept_local += kept_groups.collisions;
      const std::size_t loud_count = sent_places.size();
      sent_places.insert(sent_places.end(), collision_places.begin(), collision_places.end());
      std::inplace_merge(sent_places.begin(),
                         sent_places.begin() + static_cast<std::ptrdiff_t>(loud_count),
                         sent_places.end());
      sent_contacts.clear();
      for (const std::int32_t j : sent_places) {
        const int k = list[static_cast<std::size_t>(j)];
        sent_contacts.push_back(k);
        const Contact& c = sc.contacts[static_cast<std::size_t>(k)];
        read_elsewhere[static_cast<std::size_t>(c.a)] = 1;
        read_elsewhere[static_cast<std::size_t>(c.b)] = 1;
      }
      header.kept = static_cast<long>(list.size() - sent_contacts.size());
      stats_.contacts_kept_local += header.kept;
    }
    // (Room for the whole part first: its grains, then its contacts and their places.)
    const std::size_t sent = some ? sent_contacts.size() : list.size();
    ByteWriter out;
    // (At most: every grain whole.)
    out.reserve(kPartHeaderBytes + part_grains_bytes(grains.size(), 0) +
                contact_record_bytes(sent) +
                (some ? sizeof(std::uint64_t) + sent * sizeof(std::int32_t) : 0));
    put_part_header(out, header);
    // A grain whose contacts here all stay here (its own rank's, awake: no other rank detects
    // one of them, UnsharedContacts) is read by this rank alone, and one every other rank holds
    // awake is read from their own copies: the others get both slim. (With nets, the host books
    // the nets' nodes from every grain's result: all go whole.)
    const bool slim = some && full_.nets.empty();
    if (slim)
      for (const int i : grains)
        if (everywhere[static_cast<std::size_t>(i)])
          read_elsewhere[static_cast<std::size_t>(i)] = 0;
    stats_.grains_sent_slim += static_cast<long>(
        put_part_grains(out, w.bodies, grains, gid_, owner_,
                        slim ? std::span<const char>(read_elsewhere) : std::span<const char>()));
    if (some) {
      for (const int k : sent_contacts) {
        const Contact& c = sc.contacts[static_cast<std::size_t>(k)];
        read_elsewhere[static_cast<std::size_t>(c.a)] = 0;
        read_elsewhere[static_cast<std::size_t>(c.b)] = 0;
      }
    }
    if (here) {
      parts.push_back({root, host, out.take()});
      in_place.push_back(root);
      continue;
    }
    if (!some) {
      put_contact_record(out, sc.contacts, list, gid_);  // on global ids
      parts.push_back({root, direct ? kEveryRank : host, out.take()});
      continue;
    }
    // The part kept here: its header (with the count of contacts not sent) and its grains,
    // cut from the part sent once it comes back from the gather.
    own_direct[root] = out.bytes().size();
    put_contact_record(out, sc.contacts, sent_contacts, gid_);
    out.put(sent_places);
    parts.push_back({root, kEveryRank, out.take()});
  }
  parts_time.stop();
  std::vector<IslandPart> sent;
  StageTimer gather_time(stages, S::IslandsGather);
  std::vector<GatheredIsland> hosted =
      gather_islands(std::move(parts), t_, may_share ? &sent : nullptr);
  gather_time.stop();
  // This rank's parts of the islands hosted elsewhere (kept) and of those sent to every rank.
  std::map<std::int64_t, std::string> kept, direct_own;
  for (IslandPart& p : sent) {
    if (p.host != kEveryRank) {
      kept[p.root] = std::move(p.bytes);
      continue;
    }
    const auto own = own_direct.find(p.root);
    if (own != own_direct.end()) {
      p.bytes.resize(own->second);
      set_part_kind(p.bytes, PartContactsKind::kLocal);
    }
    direct_own[p.root] = std::move(p.bytes);
  }
  std::vector<GatheredIsland> direct;  // whole, by root, on every rank
  if (!shared_roots_.empty()) {
    std::vector<GatheredIsland> rest;
    for (GatheredIsland& g : hosted)
      (shared_before(g.root) ? direct : rest).push_back(std::move(g));
    hosted.swap(rest);
    for (auto& [root, bytes] : direct_own) {  // this rank's part in its place, by source rank
      auto g = std::lower_bound(direct.begin(), direct.end(), root,
                                [](const GatheredIsland& x, std::int64_t r) { return x.root < r; });
      if (g == direct.end() || g->root != root) g = direct.insert(g, GatheredIsland{root, {}, {}});
      const auto at = std::lower_bound(g->from.begin(), g->from.end(), t_.rank());
      g->parts.insert(g->parts.begin() + (at - g->from.begin()), std::move(bytes));
      g->from.insert(at, t_.rank());
    }
  }
  // The results are written below as they come: this rank's grains' motion from zero, the
  // impulses of its contacts zero for contacts in no island, as in the serial step. (The
  // contacts of an island sent to every rank, and of one solved here from its contacts where
  // they lie, keep theirs: the island's solve reads them there and writes every one of them.)
  motion.assign(n, Motion{});
  std::vector<char>& read_here = host_->read_here;
  read_here.assign(sc.contacts.size(), 0);
  for (const auto& kept_part : own_direct)
    for (const int k : part_contacts.at(kept_part.first))
      read_here[static_cast<std::size_t>(k)] = 1;
  for (const std::int64_t root : in_place)
    for (const int k : part_contacts.at(root)) read_here[static_cast<std::size_t>(k)] = 1;
  for (std::size_t k = 0; k < sc.contacts.size(); ++k) {
    if (read_here[k]) continue;
    Contact& c = sc.contacts[k];
    c.normal_impulse = 0.0;
    c.tangent_impulse = Vec3::Zero();
    c.rolling_impulse = Vec3::Zero();
  }

  // 3. Each hosted island solved whole, as the serial step solves it; the results to the
  //    grains' owners and to the ranks that detected the contacts.
  //    With the resting pass every contact is in an island, so the hosts also compute the
  //    position projection's contributions and send them with the velocities
  //    (project_hosted); without it, a separating contact in no island may penetrate, and
  //    correct_positions sends them from the detecting ranks in an exchange of its own.
  std::map<int, ByteWriter> to_owner, to_source, to_correction;  // by destination rank
  contributions_hosted_ = w.has_resting_pass() && w.settings.projection > 0.0;
  hosted_penetrating_ = 0;
  hosted_sums_.clear();
  w.prepare_island_solve();
  std::vector<char> shared(hosted.size(), 0);
  if (may_share) share_islands(direct, hosted, kept, part_contacts, lists, shared);
  for (std::size_t k = 0; k < hosted.size(); ++k) {
    if (shared[k]) continue;
    const bool here = std::binary_search(in_place.begin(), in_place.end(), hosted[k].root);
    solve_hosted(hosted[k], lists, to_owner, to_source, to_correction, nullptr,
                 here ? std::optional(part_contacts.at(hosted[k].root)) : std::nullopt);
  }
  StageTimer results_time(stages, S::IslandsResults);
  std::vector<Message> outgoing;
  {
    std::map<int, std::array<std::string, 3>> joined;
    for (auto& [rank, out] : to_owner) joined[rank][0] = out.take();
    for (auto& [rank, out] : to_source) joined[rank][1] = out.take();
    for (auto& [rank, out] : to_correction) joined[rank][2] = out.take();
    for (auto& [rank, texts] : joined) {
      ByteWriter out;
      for (const std::string& t : texts) out.put(t);
      outgoing.push_back({rank, out.take()});
    }
  }
  const std::vector<Message> received = t_.exchange(std::move(outgoing));

  // 4. The results: the owned grains' velocities and motion, the impulses of the contacts
  //    detected here.
  for (const Message& m : received) {
    ByteReader in(m.bytes);
    const std::string_view grains_text = in.view();
    const std::string_view impulses_text = in.view();
    const std::string_view corrections_text = in.view();
    ByteReader cr(corrections_text);  // project_hosted's sums of grains owned here
    while (!cr.done()) {
      GrainSum g;
      cr.get(g.gid);
      cr.get(g.sum);
      cr.get(g.weight);
      hosted_sums_.push_back(g);
    }
    ByteReader g(grains_text);
    while (!g.done()) {
      const auto gid = g.get<std::int64_t>();
      const int l =
          gid >= 0 && gid < static_cast<std::int64_t>(local_of_.size()) ? local_of_[gid] : -1;
      if (l < 0 || !owned_[l])
        throw std::logic_error(fmt::format(
            "rank {}: an island's result for grain {} it does not own", t_.rank(), gid));
      GrainResult r;
      g.get(r.v);
      g.get(r.w);
      g.get(r.toi);
      g.get(r.v0);
      r.woke = g.get<std::int8_t>() != 0;
      take_result(w, l, r, motion);
    }
    ByteReader im(impulses_text);
    while (!im.done()) {
      const auto root = im.get<std::int64_t>();
      const auto count = im.get<std::int32_t>();
      const std::size_t at = part_contacts.find(root);
      if (at == part_contacts.size() || static_cast<int>(part_contacts.list(at).size()) != count)
        throw std::logic_error(
            fmt::format("rank {}: impulses for {} contacts of island {}", t_.rank(), count, root));
      for (const int k : part_contacts.list(at)) {
        Contact& c = sc.contacts[k];
        im.get(c.normal_impulse);
        im.get(c.tangent_impulse);
        im.get(c.rolling_impulse);
      }
      // The island's sleepers a moving grain woke: awake here too before the projection,
      // which holds a sleeper in place.
      const auto woken = im.get<std::int32_t>();
      for (int k = 0; k < woken; ++k) {
        const auto gid = im.get<std::int64_t>();
        if (local_of_[gid] >= 0) w.wake_body(local_of_[gid]);
      }
    }
  }
  results_time.stop();
  // The nets' nodes in no island: their share of the kick's ledger, on their owners.
  if (!full_.nets.empty())
    for (int l = 0; l < n; ++l)
      if (owned_[l] && full_.is_net_node(static_cast<int>(gid_[l])) && motion[l].free)
        full_.add_net_node(static_cast<int>(gid_[l]), w.bodies.velocity[l], lists.sums.nets.free);
}

}  // namespace etdem::distributed
