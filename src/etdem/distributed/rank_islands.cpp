// Islands on the ranks of a split run (distributed/decomposed_world.hpp): labelled across
// ranks without a gather (island_labels), each gathered whole on its host and solved there as
// the serial step solves it (World::solve_island), the results sent back to the grains' owners
// and to the ranks that detected its contacts; the position projection across ranks.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/host_scratch.hpp"
#include "etdem/distributed/rank_records.hpp"
#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/world/projection.hpp"

namespace etdem::distributed {
/// One contact's position correction of one grain (World::correct_positions), sent to the
/// grain's owner, which sums them in the serial contact order: by the contact's order key, then
/// by the point's place among its pair's points.
struct DecomposedWorld::Contribution {
  std::int64_t gid = -1;
  ContactOrderKey key;
  int point = 0;
  Vec3 d = Vec3::Zero();  // weighted correction [m]
  double weight = 0.0;
  bool operator<(const Contribution& o) const {
    return std::tie(gid, key, point) < std::tie(o.gid, o.key, o.point);
  }
};

namespace {

/// How many places ahead a pass over some of a list's contacts (which lie apart in it) fetches
/// the one it will read (a hint to the cache, no value changes).
constexpr std::size_t kContactsAhead = 8;

void put_contribution(ByteWriter& o, std::int64_t gid, const ContactOrderKey& key, int point,
                      const Vec3& d, double weight) {
  put_contact_place(o, gid, key, point);
  o.put(d);
  o.put(weight);
}

DecomposedWorld::Contribution read_contribution(ByteReader& in) {
  DecomposedWorld::Contribution c;
  read_contact_place(in, c.gid, c.key, c.point);
  in.get(c.d);
  in.get(c.weight);
  return c;
}

/// How an island's part holds its contacts: a record of all of them; a record of those other
/// ranks read, each with its place in the part (an island every rank solved together last
/// sub-step, sent to the other ranks: the contacts only the sender reads stay with it); none,
/// the contacts being the rank's own (the part a rank keeps of such an island, read from its
/// contacts where they lie).
enum class PartContactsKind : std::int8_t { kWhole = 0, kSome = 1, kLocal = 2 };

/// The header of an island's part, which its host reads before the rest (share_islands): the
/// part's contacts, of them those not sent (only the sender reads them: `kept`), whether some
/// grain of it is asleep and some awake, and how it holds its contacts.
struct PartHeader {
  long contacts = 0, kept = 0;
  bool asleep = false, awake = false;
  PartContactsKind kind = PartContactsKind::kWhole;
};

/// Where put_part_header writes the kind (after the two counts and the two flags), and the
/// bytes it writes.
constexpr std::size_t kPartKindAt = 2 * sizeof(std::int32_t) + 2 * sizeof(std::int8_t);
constexpr std::size_t kPartHeaderBytes = kPartKindAt + sizeof(std::int8_t);
void put_part_header(ByteWriter& o, const PartHeader& h) {
  o.put(static_cast<std::int32_t>(h.contacts));
  o.put(static_cast<std::int32_t>(h.kept));
  o.put(static_cast<std::int8_t>(h.asleep ? 1 : 0));
  o.put(static_cast<std::int8_t>(h.awake ? 1 : 0));
  o.put(static_cast<std::int8_t>(h.kind));
}

/// A written part's kind set to `kind`.
void set_part_kind(std::string& part, PartContactsKind kind) {
  if (part.size() <= kPartKindAt)
    throw std::logic_error(fmt::format("an island part of {} bytes has no header", part.size()));
  part[kPartKindAt] = static_cast<char>(kind);
}

PartHeader read_part_header(ByteReader& in) {
  PartHeader h;
  h.contacts = in.get<std::int32_t>();
  h.kept = in.get<std::int32_t>();
  h.asleep = in.get<std::int8_t>() != 0;
  h.awake = in.get<std::int8_t>() != 0;
  const auto kind = in.get<std::int8_t>();
  if (kind < 0 || kind > static_cast<std::int8_t>(PartContactsKind::kLocal))
    throw ByteStreamError("an island part's contacts of kind " + std::to_string(kind));
  h.kind = static_cast<PartContactsKind>(kind);
  return h;
}

/// An island's parts' headers summed: its contacts, of them those not sent, and whether some
/// grain of it is asleep and some awake.
PartHeader island_header(const GatheredIsland& g) {
  PartHeader sum;
  for (const std::string& part : g.parts) {
    ByteReader in(part);
    const PartHeader h = read_part_header(in);
    sum.contacts += h.contacts;
    sum.kept += h.kept;
    sum.asleep = sum.asleep || h.asleep;
    sum.awake = sum.awake || h.awake;
  }
  return sum;
}

/// A part grain's fields in record order, but its asleep byte (FieldBlock, either way).
template <class B, class G>
void part_grain_fields(B& k, G& g) {
  static_assert(sizeof g.owner == sizeof(std::int32_t));
  auto vec = [&](auto& v) { k.field(v.data(), 3 * sizeof(double)); };
  k.field(&g.gid, sizeof g.gid), k.field(&g.owner, sizeof g.owner);
  vec(g.v), vec(g.w), vec(g.x), k.field(&g.inv_mass, sizeof(double));
  k.field(g.inv_inertia.data(), 9 * sizeof(double));
}

/// A slim grain's fields in record order.
template <class B, class G>
void slim_grain_fields(B& k, G& g) {
  k.field(&g.gid, sizeof g.gid), k.field(&g.owner, sizeof g.owner);
  k.field(g.x.data(), 3 * sizeof(double));
}

/// The bytes put_part_grains writes for `whole` grains whole and `slim` slim.
constexpr std::size_t part_grains_bytes(std::size_t whole, std::size_t slim) {
  return 2 * sizeof(std::int32_t) + whole * kPartGrainBytes + slim * kSlimGrainBytes;
}

/// Grains `grains` of `bodies` (ascending local ids, so ascending global ids) as an island part
/// lists them: those `read_elsewhere` marks (all, where it is empty) whole, kPartGrainBytes each
/// (global id, owner, velocities, position, inverse mass and world inverse inertia, asleep),
/// then the others slim, kSlimGrainBytes each (global id, owner, position): each run counted and
/// ascending. Returns the slim ones' count.
std::size_t put_part_grains(ByteWriter& out, const Bodies& bodies, std::span<const int> grains,
                            const std::vector<std::int64_t>& gid, const std::vector<int>& owner,
                            std::span<const char> read_elsewhere = {}) {
  auto whole = [&](int i) {
    return read_elsewhere.empty() || read_elsewhere[static_cast<std::size_t>(i)] != 0;
  };
  std::size_t count = 0;
  for (int i : grains) count += whole(i) ? 1 : 0;
  const std::size_t slim = grains.size() - count;
  out.reserve(out.bytes().size() + part_grains_bytes(count, slim));
  out.put(static_cast<std::int32_t>(count));
  char record[kPartGrainBytes];
  for (int i : grains) {
    if (!whole(i)) continue;
    const PartGrain g{gid[i],
                      owner[i],
                      bodies.velocity[i],
                      bodies.angular_velocity[i],
                      bodies.position[i],
                      bodies.inv_mass[i],
                      bodies.inv_inertia_world[i],
                      bodies.is_asleep(i)};
    FieldBlock<char*> k{record};
    part_grain_fields(k, g);
    const auto asleep = static_cast<std::int8_t>(g.asleep ? 1 : 0);
    k.field(&asleep, sizeof asleep);
    out.put_bytes(record, kPartGrainBytes);
  }
  out.put(static_cast<std::int32_t>(slim));
  for (int i : grains) {
    if (whole(i)) continue;
    PartGrain g;
    g.gid = gid[i], g.owner = owner[i], g.x = bodies.position[i];
    FieldBlock<char*> k{record};
    slim_grain_fields(k, g);
    out.put_bytes(record, kSlimGrainBytes);
  }
  return slim;
}

/// The k-th grain of `run`, as put_part_grains wrote it (a slim one: its id, owner and
/// position).
PartGrain run_grain(const GrainRun& run, std::size_t k) {
  PartGrain g;
  FieldBlock<const char*> f{run.bytes.data() + k * run.stride};
  if (!run.whole()) {
    slim_grain_fields(f, g);
    return g;
  }
  part_grain_fields(f, g);
  std::int8_t asleep = 0;
  f.field(&asleep, sizeof asleep);
  g.asleep = asleep != 0;
  return g;
}

/// A part's two runs of grains (put_part_grains), whole then slim, read from `in`.
void read_part_grains(ByteReader& in, GrainRun* runs) {
  for (const std::size_t stride : {kPartGrainBytes, kSlimGrainBytes}) {
    const auto count = in.get<std::int32_t>();
    if (count < 0 || static_cast<std::size_t>(count) > in.left() / stride)
      throw ByteStreamError(fmt::format("an island part of {} grains", count));
    *runs++ = GrainRun{in.take(static_cast<std::size_t>(count) * stride), stride};
  }
}

/// An island's grains ascending by global id into `h` (its ids, owners, sleep and state, the
/// places of rank `me`'s grains, and which came slim only), from its parts' grains `runs` (each
/// ascending): merged, each grain read once. A grain held by several ranks came from each, the
/// same bits: the first part's whole copy is kept, else its first slim one, whose velocities,
/// inverse mass and inertia are left as they were. Throws std::logic_error for a run whose
/// grains do not ascend. `next` is scratch.
void merge_part_grains(std::span<const GrainRun> runs, IslandGrains& h,
                       std::vector<std::size_t>& next, std::int64_t root, int me) {
  std::size_t total = 0;
  for (const GrainRun& run : runs) total += run.size();
  IslandArrays& a = h.state;
  a.resize(total);
  h.gid.resize(total);
  h.owner.resize(total);
  h.asleep.resize(total);
  h.own.clear();
  h.slim.clear();
  std::size_t count = 0;
  // (A few runs: the least next id found by looking at each run's; ties to the first run, the
  // whole runs before the slim.)
  next.assign(runs.size(), 0);
  auto take = [&](std::size_t at, const GrainRun& run, std::size_t k) {
    const PartGrain g = run_grain(run, k);
    h.gid[at] = g.gid, h.owner[at] = g.owner, h.asleep[at] = g.asleep ? 1 : 0;
    a.x[at] = g.x;
    if (!run.whole()) return;
    a.v[at] = g.v, a.w[at] = g.w;
    a.inv_mass[at] = g.inv_mass, a.inv_inertia[at] = g.inv_inertia;
  };
  for (;;) {
    std::size_t from = runs.size();
    std::int64_t least = 0;
    for (std::size_t s = 0; s < runs.size(); ++s) {
      if (next[s] == runs[s].size()) continue;
      const std::int64_t gid = runs[s].gid(next[s]);
      if (from == runs.size() || gid < least ||
          (gid == least && !runs[from].whole() && runs[s].whole()))
        from = s, least = gid;
    }
    if (from == runs.size()) break;
    const GrainRun& run = runs[from];
    const std::size_t k = next[from]++;
    if (k > 0 && !(run.gid(k - 1) < least))
      throw std::logic_error(
          fmt::format("island {}: a part's grains do not ascend by id at grain {}", root, least));
    if (count > 0 && h.gid[count - 1] == least) continue;  // (a whole copy came first)
    take(count, run, k);
    if (!run.whole()) h.slim.push_back(static_cast<int>(count));
    if (h.owner[count] == me) h.own.push_back(static_cast<int>(count));
    ++count;
  }
  a.resize(count);
  h.gid.resize(count);
  h.owner.resize(count);
  h.asleep.resize(count);
}

/// Whether no other rank reads a contact of an island every rank solves together: such a
/// contact stays with the rank that detected it. Another rank builds the row of a contact in a
/// block it sweeps, of a leftover (every rank sweeps those) and of a contact whose upper body it
/// settles (its grain's owner, solvers/resting_team.hpp); every rank reads a collision; and a
/// rank reads every contact of its grains (their times of impact, their projection). So a
/// contact stays here when its island bodies are this rank's own and awake (the sleepers a
/// waking island kicks change their contacts' approach), its block is this rank's (the block
/// and its centre by the resting pass's own rule, contact_block and block_centre, from the same
/// positions), and it approaches slower than half the resting velocity, where the island's
/// solve takes it for a resting contact whatever the last bits of its approach. What the other
/// ranks derive from such contacts (who reads which body, the shock pass's heights and
/// supports, the stir limits, the times of impact) the team exchanges (resting_team.hpp).
class UnsharedContacts {
 public:
  UnsharedContacts(const World& w, const std::vector<char>& owned, const Decomposition& d, int me)
      : d_(d), me_(me) {
    const RestingSettings* pgs = w.resting_pass_settings();
    v_rest_ = w.settings.effective_resting_velocity();
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
  /// Contact c (this rank's local ids) stays here; `moves(i)`: body i is in its island.
  template <class Moves>
  bool operator()(const Contact& c, Moves&& moves) const {
    const int body[2] = {moves(c.a) ? c.a : -1, moves(c.b) ? c.b : -1};
    if (body[0] < 0 && body[1] < 0) return false;
    const BlockCell* cell[2] = {nullptr, nullptr};
    Vec3 u = Vec3::Zero();
    for (int e = 0; e < 2; ++e) {
      const int i = body[e];
      if (i < 0) continue;
      const Body& b = bodies_[static_cast<std::size_t>(i)];
      if (!b.stays) return false;
      cell[e] = &b.cell;
      const Vec3 at_point = b.v + b.w.cross(e == 0 ? c.ra : c.rb);
      u += e == 0 ? at_point : Vec3(-at_point);
    }
    if (!(c.normal.dot(u) > -0.5 * v_rest_)) return false;
    BlockCell at;
    if (!contact_block(cell[0], cell[1], at)) return false;  // a leftover: every rank sweeps it
    return d_.owner_of(block_centre(at, cell_)) == me_;
  }

 private:
  const Decomposition& d_;
  int me_ = 0;
  double v_rest_ = 0.0, cell_ = 0.0;
  struct Body {
    Vec3 v = Vec3::Zero(), w = Vec3::Zero();  // [m/s], [rad/s]
    BlockCell cell{};
    bool stays = false;  // an awake grain of this rank's (the rest is read only then)
  };
  std::vector<Body> bodies_;  // per local body
};

/// An island's result for one grain.
struct GrainResult {
  Vec3 v, w;          // velocity [m/s], angular velocity [rad/s]
  double toi = 0.0;   // time of impact within the sub-step [s], 0 none
  Vec3 v0;            // velocity at that impact [m/s]
  bool woke = false;  // the grain was asleep and its island woke
};

/// Grain l's result written into the world and its motion.
void take_result(World& w, int l, const GrainResult& r, std::vector<Motion>& motion) {
  Motion& mo = motion[l];
  w.bodies.velocity[l] = r.v;
  w.bodies.angular_velocity[l] = r.w;
  mo.impact_time = r.toi;
  mo.impact_velocity = r.v0;
  mo.free = false;
  if (!(mo.impact_time > 0.0)) mo.impact_time = 0.0, mo.impact_velocity = Vec3::Zero();
  if (r.woke) w.wake_body(l);
}

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
  int keeper(int contact) const override { return (*source)[static_cast<std::size_t>(contact)]; }
  int keeper_index(int contact) const override {
    return (*source_index)[static_cast<std::size_t>(contact)];
  }
  int kept_contact(int index) const override {
    return index >= 0 && static_cast<std::size_t>(index) < kept->size()
               ? (*kept)[static_cast<std::size_t>(index)]
               : -1;
  }
  long contacts() const override { return island_contacts; }
  /// The island's host books the nets' nodes from every body's result (World::book_net_island).
  bool syncs_every_body() const override { return nets; }
  const std::vector<int>* owner = nullptr;
  // Per contact, by its index in the list the island is read from (solve_hosted): the rank
  // that detected it and its place in that rank's part; per contact of this rank's part, that
  // index.
  const std::vector<int>* source = nullptr;
  const std::vector<int>* source_index = nullptr;
  const std::vector<int>* kept = nullptr;
  long island_contacts = 0;  // over every rank
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
  const std::vector<IslandLabel>& labels = labels_;
  stats_.label_rounds += label_stats.rounds;
  labels_time.stop();

  // 2. What this rank holds of each island to the island's host: the candidates it detected,
  //    in their (serial) order, and the grains they touch, with global ids.
  StageTimer parts_time(stages, S::IslandsParts);
  // Each island's candidates here and the moving grains they touch (graph.touched; each in one
  // island), ascending. (Consecutive ones mostly lie in one island: its list is kept at hand.)
  auto by_root = [&labels](std::map<std::int64_t, std::vector<int>>& lists, std::size_t count,
                           auto&& item_of, auto&& body_of) {
    std::int64_t last_root = -1;
    std::vector<int>* last = nullptr;
    for (std::size_t j = 0; j < count; ++j) {
      const std::int64_t root = labels[static_cast<std::size_t>(body_of(j))].root;
      if (!last || root != last_root) last = &lists[root], last_root = root;
      last->push_back(item_of(j));
    }
  };
  std::map<std::int64_t, std::vector<int>> part_contacts, part_grains;  // by root
  by_root(
      part_contacts, sc.candidates.size(), [&](std::size_t j) { return sc.candidates[j]; },
      [&](std::size_t j) { return island_body[j]; });
  std::vector<int>& touched = host_->touched;
  touched.clear();
  for (int i = 0; i < n; ++i)
    if (graph.touched[static_cast<std::size_t>(i)]) touched.push_back(i);
  auto touched_grain = [&](std::size_t j) { return touched[j]; };  // (its own island body)
  by_root(part_grains, touched.size(), touched_grain, touched_grain);
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
  std::vector<int> sent_contacts;  // (a part's contacts sent, and their places)
  // Per body: in a contact sent. Marked for one part and cleared after it, so all zero between
  // parts and sub-steps: only sized here.
  std::vector<char>& read_elsewhere = host_->read_elsewhere;
  read_elsewhere.resize(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> sent_places;
  for (const auto& [root, list] : part_contacts) {
    const std::vector<int>& grains = part_grains.at(root);
    PartHeader header{static_cast<long>(list.size())};
    for (int i : grains) (w.bodies.is_asleep(i) ? header.asleep : header.awake) = true;
    const int host = labels[static_cast<std::size_t>(grains.front())].host;
    const bool direct = shared_before(root);
    const bool some = direct && unshared->any();
    if (some) {  // the contacts other ranks read, and their places in the part
      header.kind = PartContactsKind::kSome;
      sent_contacts.clear();
      sent_places.clear();
      for (std::size_t j = 0; j < list.size(); ++j) {
        if (j + kContactsAhead < list.size())
          prefetch_range(&sc.contacts[static_cast<std::size_t>(list[j + kContactsAhead])],
                         sizeof(Contact));
        const Contact& c = sc.contacts[static_cast<std::size_t>(list[j])];
        if ((*unshared)(c, moves)) continue;
        sent_contacts.push_back(list[j]);
        sent_places.push_back(static_cast<std::int32_t>(j));
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
    // one of them, UnsharedContacts) is read by this rank alone: the others get it slim. (With
    // nets, the host books the nets' nodes from every grain's result: all go whole.)
    const bool slim = some && full_.nets.empty();
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
  // contacts of an island sent to every rank keep theirs: this rank reads them there for the
  // island's solve, which writes every one of them.)
  motion.assign(n, Motion{});
  std::vector<char>& read_here = host_->read_here;
  read_here.assign(sc.contacts.size(), 0);
  for (const auto& kept_part : own_direct)
    for (const int k : part_contacts.at(kept_part.first))
      read_here[static_cast<std::size_t>(k)] = 1;
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
  for (std::size_t k = 0; k < hosted.size(); ++k)
    if (!shared[k]) solve_hosted(hosted[k], lists, to_owner, to_source, to_correction);
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
      const auto it = part_contacts.find(root);
      if (it == part_contacts.end() || static_cast<int>(it->second.size()) != count)
        throw std::logic_error(
            fmt::format("rank {}: impulses for {} contacts of island {}", t_.rank(), count, root));
      for (int k : it->second) {
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

namespace {

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
  const std::vector<int>* mine = nullptr;  // this rank's contacts of it (its part's), or null
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
      a.v[at] = a.w[at] = Vec3::Constant(nan);
      a.inv_mass[at] = nan;
      a.inv_inertia[at] = Mat3::Constant(nan);
      continue;
    }
    a.v[at] = b.velocity[l];
    a.w[at] = b.angular_velocity[l];
    a.inv_mass[at] = b.inv_mass[l];
    a.inv_inertia[at] = b.inv_inertia_world[l];
  }
}

void DecomposedWorld::send_whole_again(
    std::vector<GatheredIsland>& direct,
    const std::map<std::int64_t, std::vector<int>>& part_contacts, const SubstepLists& lists) {
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
                                    const std::map<std::int64_t, std::vector<int>>& part_contacts,
                                    SubstepLists& lists, std::vector<char>& shared) {
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
    const auto it = part_contacts.find(g.root);
    const Sharing sharing{host, &team, it == part_contacts.end() ? nullptr : &it->second};
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
  std::sort(now_shared.begin(), now_shared.end());
  shared_roots_ = std::move(now_shared);
}

void DecomposedWorld::solve_hosted(const GatheredIsland& g, SubstepLists& lists,
                                   std::map<int, ByteWriter>& to_owner,
                                   std::map<int, ByteWriter>& to_source,
                                   std::map<int, ByteWriter>& to_correction,
                                   const Sharing* sharing) {
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
  for (std::size_t s = 0; s < g.parts.size(); ++s) {
    ByteReader in(g.parts[s]);
    const PartHeader header = read_part_header(in);
    read_part_grains(in, &runs[2 * s]);
    PartContacts& part = parts[s];
    part.which = nullptr;
    part.places.clear();  // (all of them, in their order, unless the record lists its places)
    if (header.kind == PartContactsKind::kLocal) {  // this rank's own contacts, where they lie
      const std::vector<int>* mine = sharing ? sharing->mine : nullptr;
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
  const long island_contacts = sharing ? island_header(g).contacts : static_cast<long>(at.size());
  assembly_time.stop();
  IslandSolution r;
  if (sharing && at.empty()) ++stats_.islands_shared_empty;
  if (sharing) {  // the shock pass's bodies to their grains' owners; the contacts kept here
    // (The team names a contact by its index in the list, as the pass reads it.)
    sharing->team->owner = &grains.owner;
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
    // New velocities to the owners (and whether each woke), unless each took its own.
    Hosted& hosted = hosted_.emplace_back(Hosted{g.root, {}});
    std::vector<char>& seen = h.seen_owner;  // (each owner once, ascending)
    seen.assign(static_cast<std::size_t>(t_.size()), 0);
    for (int k = 0; k < nb; ++k) {
      const auto at = static_cast<std::size_t>(k);
      seen[static_cast<std::size_t>(grains.owner[at])] = 1;
      if (sharing) continue;
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
        const std::vector<int>* mine = sharing->mine;
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

void DecomposedWorld::collect_contributions(std::vector<Contribution>& mine, long& penetrating) {
  // Every contact's contributions from the rank that detected it, after the results (its
  // grains' sleep flags as the hosts left them); those of other ranks' grains to their owners.
  World& w = local_;
  const double kp = w.settings.projection;
  const std::span<const Contact> contacts = w.contacts();  // the narrow phase's, this rank's
  std::map<int, ByteWriter> out;
  auto send = [&](int body, const Contribution& c) {
    if (owned_[body])
      mine.push_back(c);
    else
      put_contribution(out[owner_[body]], c.gid, c.key, c.point, c.d, c.weight);
  };
  int point = 0;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    point = k > 0 && contacts[k - 1].a == c.a && contacts[k - 1].b == c.b ? point + 1 : 0;
    const double ia = w.bodies.is_awake(c.a) ? w.bodies.inv_mass[c.a] : 0.0;
    const double ib = w.bodies.is_awake(c.b) ? w.bodies.inv_mass[c.b] : 0.0;
    const ProjectionShare s =
        projection_share(c.gap, c.normal, ia, ib, kp, w.settings.penetration_slop);
    if (!s.moves) continue;
    ++penetrating;
    const ContactOrderKey key{w.shapes.tested_apart(w.bodies.shape[c.b]), gid_[c.a], gid_[c.b]};
    // a - x and a + (-x) are the same bits: the owner only adds.
    if (ia > 0.0) send(c.a, {gid_[c.a], key, point, s.to_a, s.weight});
    if (ib > 0.0) send(c.b, {gid_[c.b], key, point, -s.to_b, s.weight});
  }
  std::vector<Message> outgoing;
  for (auto& [rank, o] : out) outgoing.push_back({rank, o.take()});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) mine.push_back(read_contribution(in));
  }
}

void DecomposedWorld::correct_positions(World& w, SubstepLists lists) {
  // World::correct_positions over ranks: a grain moves by its corrections' weighted mean, summed
  // in the serial contact order (by the contact's order key, then by its place among its pair's
  // points): the serial sums' bits.
  if (w.settings.projection <= 0.0) return;
  auto move = [&](std::int64_t gid, const Vec3& sum, double weight) {
    if (!(weight > 0.0)) return;  // a weight that underflowed moves nothing
    const int l = local_of_[gid];
    const Vec3 dx = sum / weight;
    w.bodies.position[l] += dx;
    lists.sums.correction_work += w.bodies.mass[l] * w.settings.gravity.dot(dx);
  };
  // Whether any contact anywhere penetrated decides whether the serial step books the work.
  if (contributions_hosted_) {  // the hosts summed them: one record per grain owned here
    for (const GrainSum& g : hosted_sums_) move(g.gid, g.sum, g.weight);
    lists.sums.penetrating = hosted_penetrating_;
    return;
  }
  std::vector<Contribution> mine;
  long penetrating = 0;
  collect_contributions(mine, penetrating);
  std::sort(mine.begin(), mine.end());
  for (std::size_t k = 0; k < mine.size();) {
    Vec3 sum = Vec3::Zero();
    double weight = 0.0;
    const std::int64_t gid = mine[k].gid;
    for (; k < mine.size() && mine[k].gid == gid; ++k) {
      sum += mine[k].d;
      weight += mine[k].weight;
    }
    move(gid, sum, weight);
  }
  lists.sums.penetrating = penetrating;
}

}  // namespace etdem::distributed
