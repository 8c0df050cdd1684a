#include "etdem/distributed/decomposed_world.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/body_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/distributed/island_gather.hpp"
#include "etdem/distributed/island_labels.hpp"
#include "etdem/world/projection.hpp"

namespace etdem::distributed {
namespace {

/// Times one phase into the world's profile of the step.
template <class F>
void timed(StepProfile& p, StepProfile::Phase phase, F&& work) {
  const auto t0 = std::chrono::steady_clock::now();
  work();
  p.seconds[phase] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++p.calls[phase];
}

/// A grain's record state: its body, the warm start of the pairs it detects (global ids) and
/// how long it has been slow enough to sleep [s].
std::string grain_state(const Bodies& bodies, int i, std::span<const Contact> contacts,
                        double rest_time) {
  ByteWriter w;
  w.put(write_body_record(bodies, i));
  w.put(write_contact_record(contacts));
  w.put(rest_time);
  return w.take();
}

/// The fastest any surface point of a grain can move in the next step [m/s]: its speed and
/// spin now plus what gravity adds over the step (the broad phase's speed bound after the kick).
double next_speed(const Bodies& b, const ShapeTable& shapes, int i, double kick) {
  return b.velocity[i].norm() + kick +
         b.angular_velocity[i].norm() * shapes.bounding_radius[b.shape[i]];
}

/// The counters of SolverStats, in one order, for a reduction over ranks.
constexpr int kSolverCounts = 9;
void put_counts(const SolverStats& s, std::vector<std::int64_t>& out) {
  for (long v : {s.iterations, s.rounds, s.guards_fired, s.approaching_left, s.shock_bound_reached,
                 s.friction_fallbacks, s.energy_guards, s.blocked_islands, s.block_leftovers})
    out.push_back(v);
}
void get_counts(const std::int64_t* in, SolverStats& s) {
  long* fields[kSolverCounts] = {&s.iterations,          &s.rounds,
                                 &s.guards_fired,        &s.approaching_left,
                                 &s.shock_bound_reached, &s.friction_fallbacks,
                                 &s.energy_guards,       &s.blocked_islands,
                                 &s.block_leftovers};
  for (int k = 0; k < kSolverCounts; ++k) *fields[k] = in[k];
}

/// A grain of an island part: what the host's solve reads of it.
struct PartGrain {
  std::int64_t gid = -1;
  int owner = -1;
  Vec3 v, w, x;
  double inv_mass = 0.0;
  Mat3 inv_inertia;
  bool asleep = false;
};

}  // namespace

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

void put_contribution(ByteWriter& o, std::int64_t gid, const ContactOrderKey& key, int point,
                      const Vec3& d, double weight) {
  o.put(gid);
  o.put(static_cast<std::int8_t>(key.against_unbounded));
  o.put(key.a);
  o.put(key.b);
  o.put(static_cast<std::int32_t>(point));
  o.put(d);
  o.put(weight);
}

DecomposedWorld::Contribution read_contribution(ByteReader& in) {
  DecomposedWorld::Contribution c;
  in.get(c.gid);
  c.key.against_unbounded = in.get<std::int8_t>() != 0;
  in.get(c.key.a);
  in.get(c.key.b);
  c.point = in.get<std::int32_t>();
  in.get(c.d);
  in.get(c.weight);
  return c;
}

}  // namespace

DecomposedWorld::DecomposedWorld(World& full, Transport& transport)
    : full_(full), t_(transport), host_(std::make_unique<HostScratch>()) {
  check_supported(full);
  const Bodies& b = full.bodies;
  std::vector<Vec3> centres;
  std::vector<int> grains;
  for (int i = 0; i < b.count(); ++i) {
    if (b.is_dynamic(i)) {
      grains.push_back(i);
      centres.push_back(b.position[i]);
      largest_radius_ = std::max(largest_radius_, full.shapes.bounding_radius[b.shape[i]]);
    } else {
      statics_.push_back(i);
    }
  }
  decomposition_ = Decomposition::bisect(centres, {}, t_.size());
  // The warm start of a world restored from a checkpoint (empty at the start of a run).
  const World::CarriedContacts carried = full.carried_contacts();
  double speed = 0.0;
  const double kick = full.settings.gravity.norm() * full.settings.dt;
  for (std::size_t k = 0; k < grains.size(); ++k) {
    speed = std::max(speed, next_speed(b, full.shapes, grains[k], kick));
    if (decomposition_.owner_of(centres[k]) != t_.rank()) continue;
    const double rest = full.rest_time_.empty() ? 0.0 : full.rest_time_[grains[k]];
    grains_.owned.push_back(
        {grains[k], centres[k], grain_state(b, grains[k], carried.of(grains[k]), rest)});
  }
  local_of_.assign(b.count(), -1);
  local_.shapes = full.shapes;
  local_.materials = full.materials;
  local_.settings = full.settings;
  local_.largest_radius_ = largest_radius_;
  exchange_grains(decomposition_, halo_for(speed), grains_, t_);
  rebuild_local();
  local_.initialize();  // the solvers; the ledger, the clock and the totals are the world's
  copy_run_state(full, local_);
  local_.previous_h_ = full.previous_h_;
  rebuild_local();  // again: initialize() dropped the warm start
}

DecomposedWorld::~DecomposedWorld() = default;

void DecomposedWorld::copy_run_state(const World& from, World& to) {
  to.ledger_ = from.ledger_;
  to.net_elastic_ = from.net_elastic_;
  to.time_ = from.time_;
  to.steps_ = from.steps_;
  to.totals_ = from.totals_;
  to.last_ = from.last_;
  to.profile_ = from.profile_;
  to.last_profile_ = from.last_profile_;
}

double DecomposedWorld::halo_for(double speed) const {
  // Every pair that can touch in the next step: centres within two bounding radii with the
  // contact skin, plus what both can move (World::find_contacts' margin), with 1 % to spare.
  const WorldSettings& set = local_.settings;
  return 1.01 * (2.0 * (1.0 + set.contact_skin) * largest_radius_ + 2.0 * speed * set.dt);
}

void DecomposedWorld::check_supported(const World& full) const {
  if (full.settings.sleep_velocity > 0.0 && full.settings.sleep_unit != SleepUnit::kIsland)
    throw std::invalid_argument(
        "a run over several ranks sleeps by islands only: set simulation.sleep_unit = "
        "\"island\" (or simulation.sleep_velocity = 0)");
  if (full.custom_solver_)
    throw std::invalid_argument(
        "a run over several ranks does not carry a solver of the user's own yet; run it on one "
        "rank");
}

void DecomposedWorld::rebuild_local() {
  // The local bodies in ascending global id: the statics, the owned grains and the ghosts.
  struct Entry {
    std::int64_t gid;
    int kind;  // 0 static, 1 owned, 2 ghost
    int index;
  };
  std::vector<Entry> entries;
  entries.reserve(statics_.size() + grains_.owned.size() + grains_.ghosts.size());
  for (int s : statics_) entries.push_back({s, 0, s});
  for (std::size_t k = 0; k < grains_.owned.size(); ++k)
    entries.push_back({grains_.owned[k].gid, 1, static_cast<int>(k)});
  for (std::size_t k = 0; k < grains_.ghosts.size(); ++k)
    entries.push_back({grains_.ghosts[k].gid, 2, static_cast<int>(k)});
  std::sort(entries.begin(), entries.end(),
            [](const Entry& x, const Entry& y) { return x.gid < y.gid; });
  Bodies bodies;
  const int n = static_cast<int>(entries.size());
  std::vector<std::int64_t> before;
  before.swap(gid_);
  gid_.resize(n);
  owner_.resize(n);
  owned_.assign(n, 0);
  for (const std::int64_t g : before) local_of_[g] = -1;  // sized once (constructor)
  std::vector<Contact> carried;                           // global ids
  std::vector<double> rest(n, 0.0);
  std::string body;
  std::string contacts;
  for (int l = 0; l < n; ++l) {
    const Entry& e = entries[l];
    gid_[l] = e.gid;
    local_of_[e.gid] = l;
    owner_[l] = t_.rank();
    if (e.kind == 0) {
      append_body_record(write_body_record(full_.bodies, e.index), bodies);
      continue;
    }
    const GrainRecord& r = e.kind == 1 ? grains_.owned[e.index] : grains_.ghosts[e.index];
    ByteReader reader(r.state);
    reader.get(body);
    reader.get(contacts);
    reader.get(rest[l]);
    append_body_record(body, bodies);
    if (e.kind == 1) {
      owned_[l] = 1;
      read_contact_record(contacts, carried);
    } else {
      owner_[l] = grains_.ghost_owner[e.index];
    }
  }
  local_.bodies = std::move(bodies);
  local_.bodies.update_world_inertia();
  local_.rest_time_ = std::move(rest);
  local_.owned_ = &owned_;
  // The kept pairs are a cache on local ids (World::find_pairs): kept while the rank holds the
  // same bodies, the same bits either way.
  if (gid_ != before) local_.pair_list_ = PairList{};
  local_.asleep_at_previous_.clear();
  // The warm start: the contacts the owned grains detected last step, on local ids. A pair
  // whose other body is no longer held here cannot touch this step (the halo holds every pair
  // that can): its contacts are not needed.
  std::vector<Contact> previous;
  previous.reserve(carried.size());
  for (Contact c : carried) {
    c.a = local_of_[c.a];
    c.b = local_of_[c.b];
    if (c.a >= 0 && c.b >= 0) previous.push_back(c);
  }
  local_.prepare_substeps();  // the turning grains, on local ids
  local_.restore_warm_start(std::move(previous),
                            local_.previous_h_ > 0.0 ? local_.previous_h_ : local_.settings.dt);
}

void DecomposedWorld::process_events() {
  // As World::process_events, on the copy every rank keeps of the walls.
  for (Event& e : full_.events) {
    if (e.done || local_.time_ + 0.5 * local_.settings.dt < e.time) continue;
    full_.bodies.flags[e.body] |= kBodyDisabled;
    e.done = true;
    if (local_of_[e.body] >= 0) local_.bodies.flags[local_of_[e.body]] |= kBodyDisabled;
    local_.wake_all();  // what rested on it may fall: every rank wakes what it holds
    event_fired_ = true;
  }
}

void DecomposedWorld::step() {
  // World::step's frame: the same sub-steps, decided by the largest spin over every rank.
  // The count over every rank came with the last step's maxima, unless an event has disabled a
  // grain since or the settings it was counted with changed (every rank alike).
  event_fired_ = false;
  auto most = [&](long n) {
    const WorldSettings& set = local_.settings;
    const bool known = next_substeps_ >= 0.0 && !event_fired_ && set.dt == next_substeps_dt_ &&
                       set.substep_sweep == next_substeps_sweep_;
    const double all = known ? next_substeps_ : t_.max(static_cast<double>(n));
    next_substeps_ = -1.0;
    return static_cast<long>(all);
  };
  local_.step_frame([&] { process_events(); },
                    [&](StepProfile&, long* needed) { return advance(needed); }, most,
                    !full_.turning_.empty());  // any grain of the whole world
  stats_.owned += owned_count();
  stats_.ghosts += ghost_count();
  // Checked at whole steps of the run (a resumed run keeps the count), on every rank alike.
  const int every = local_.settings.rebalance_every;
  if (every > 0 && local_.step_count() % every == 0) rebalance();
}

void DecomposedWorld::rebalance() {
  const int ranks = t_.size();
  if (ranks < 2) return;
  const long owned = static_cast<long>(grains_.owned.size());
  const long total = t_.sum(owned);
  const double most = t_.max(static_cast<double>(owned));
  // Nothing to gain where the largest rank owns no more than a bisection would give it.
  const double mean = static_cast<double>(total) / ranks;
  if (total == 0 || most <= local_.settings.rebalance_imbalance * mean || most <= std::ceil(mean))
    return;
  // Every rank's owned grains (global id, centre) to every rank. The new boxes are a function of
  // the grains alone, taken in the order of their ids, not of the ranks that held them: every
  // rank draws the same boxes. (exchange() left each record's position current.)
  ByteWriter mine;
  for (const GrainRecord& r : grains_.owned) {
    mine.put(r.gid);
    mine.put(r.position);
  }
  const std::string bytes = mine.take();
  std::vector<Message> out;
  for (int peer = 0; peer < ranks; ++peer) out.push_back({peer, bytes});
  std::vector<std::pair<std::int64_t, Vec3>> all;
  all.reserve(static_cast<std::size_t>(total));
  for (const Message& m : t_.exchange(std::move(out))) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      const std::int64_t gid = r.get<std::int64_t>();
      Vec3 x;
      r.get(x);
      all.emplace_back(gid, x);
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Vec3> centres(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) centres[k] = all[k].second;
  decomposition_ = Decomposition::bisect(centres, {}, ranks);
  ++stats_.rebalances;
  exchange();  // the grains to their new owners, the ghosts of the new boxes
}

bool DecomposedWorld::advance(long* needed) {
  World& w = local_;
  StepProfile& p = w.last_profile_;
  using P = StepProfile;
  sums_ = World::BodySums{};
  island_kick_ = ExactSum{};
  correction_work_ = ExactSum{};
  solver_sums_ = SolverSums{};
  resting_sums_ = SolverSums{};
  net_booking_ = NetBooking{};
  wake_kick_ = ExactSum{};
  sleep_energy_ = ExactSum{};
  solved_ = 0;
  hosted_.clear();
  w.body_sums_ = &sums_;
  // The nets' links change in the kick: a step that may be taken again keeps them (the world
  // keeps its own velocities and ledger, World::save_step_start).
  std::vector<Net> nets_at_start;
  if (needed) nets_at_start = full_.nets;
  timed(p, P::Forces, [&] {
    w.apply_external_forces();
    if (!full_.nets.empty()) kick_nets();
  });
  find_contacts();
  timed(p, P::Solve, [&] { resolve_islands(); });
  if (needed) {  // the spin after the solve, and the pairs it closes unreported, every rank's
    long missed = 1;
    if (w.settings.substep_missed) {  // a pair's two grains at their velocities after the solve
      timed(p, P::Checks, [&] {
        share_ghost_velocities();
        missed = w.missed_substeps(w.step_bodies_, w.step_contacts_);
        restore_ghost_velocities();
      });
    }
    const long n = static_cast<long>(t_.max(static_cast<double>(
        std::max(w.substep_count_unbounded(w.settings.dt, w.bodies.angular_velocity), missed))));
    if (n > std::lround(w.settings.dt / w.h_)) {
      *needed = n;
      w.body_sums_ = nullptr;
      full_.nets = std::move(nets_at_start);
      return false;
    }
  }
  timed(p, P::Correct, [&] {
    // The wall correction (world/wall_correction.cpp) of the grains owned here: a grain's
    // rounds depend on its own walls only, which the owner holds, in the serial order.
    w.correct_wall_velocities(w.step_bodies_, w.wall_);
    correct_positions();
  });
  timed(p, P::Integrate, [&] {
    w.damp_and_integrate(w.motion_, w.wall_);
    update_sleep();
  });
  timed(p, P::Ledger, [&] {
    book_ledger();
    w.remember_contacts(w.step_contacts_.contacts);
  });
  w.body_sums_ = nullptr;
  timed(p, P::Broad, [&] { exchange(); });  // ghosts for the next (sub-)step
  return true;
}

void DecomposedWorld::share_net_nodes(bool velocities) {
  World& w = local_;
  ByteWriter out;
  for (int l = 0; l < w.bodies.count(); ++l) {
    if (!owned_[l] || !full_.is_net_node(static_cast<int>(gid_[l]))) continue;
    out.put(gid_[l]);
    out.put(w.bodies.position[l]);
    if (velocities) out.put(w.bodies.velocity[l]);
  }
  const std::string bytes = out.take();
  std::vector<Message> outgoing;
  for (int r = 0; r < t_.size(); ++r) outgoing.push_back({r, bytes});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) {
      const auto gid = in.get<std::int64_t>();
      in.get(full_.bodies.position[gid]);
      if (velocities) in.get(full_.bodies.velocity[gid]);
    }
  }
}

void DecomposedWorld::share_ghost_velocities() {
  // A ghost keeps the velocity of the start of the step until the exchange that ends it; the
  // owner sends its grain's velocities after the solve to the ranks the last exchange made it a
  // ghost on (the grains have not moved since).
  World& w = local_;
  std::vector<ByteWriter> out(static_cast<std::size_t>(t_.size()));
  std::vector<int> ranks;
  for (const GrainRecord& r : grains_.owned) {
    const int l = local_of_[r.gid];
    ranks.clear();
    decomposition_.ghost_ranks(r.position, last_halo_, t_.rank(), ranks);
    for (const int q : ranks) {
      ByteWriter& o = out[static_cast<std::size_t>(q)];
      o.put(r.gid);
      o.put(w.bodies.velocity[l]);
      o.put(w.bodies.angular_velocity[l]);
    }
  }
  std::vector<Message> outgoing;
  for (int q = 0; q < t_.size(); ++q)
    outgoing.push_back({q, out[static_cast<std::size_t>(q)].take()});
  ghosts_before_.clear();
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) {
      const auto gid = in.get<std::int64_t>();
      const int l =
          gid >= 0 && gid < static_cast<std::int64_t>(local_of_.size()) ? local_of_[gid] : -1;
      Vec3 v, av;
      in.get(v);
      in.get(av);
      if (l >= 0 && !owned_[l]) {
        ghosts_before_.push_back({l, w.bodies.velocity[l], w.bodies.angular_velocity[l]});
        w.bodies.velocity[l] = v;
        w.bodies.angular_velocity[l] = av;
      }
    }
  }
}

void DecomposedWorld::restore_ghost_velocities() {
  // Only the ghosts share_ghost_velocities wrote, back to what they held (the last write first,
  // so a ghost written twice ends with its first value).
  World& w = local_;
  for (auto g = ghosts_before_.rbegin(); g != ghosts_before_.rend(); ++g) {
    w.bodies.velocity[g->local] = g->velocity;
    w.bodies.angular_velocity[g->local] = g->angular_velocity;
  }
  ghosts_before_.clear();
}

void DecomposedWorld::kick_nets() {
  // The serial kick (World::kick_nets) on every rank's copy of the whole world: the nodes'
  // positions and velocities after gravity's kick are their owners', the links are the same
  // bits everywhere, so every rank computes the serial kick and the serial links.
  World& w = local_;
  share_net_nodes(true);
  full_.h_ = w.h_;
  net_kicks_ = full_.kick_nets();
  for (int l = 0; l < w.bodies.count(); ++l)
    if (full_.is_net_node(static_cast<int>(gid_[l])))  // ghosts too
      w.bodies.velocity[l] = full_.bodies.velocity[gid_[l]];
}

void DecomposedWorld::find_contacts() {
  World& w = local_;
  StepBodies& sb = w.step_bodies_;
  StepContacts& sc = w.step_contacts_;
  StepProfile& p = w.last_profile_;
  using P = StepProfile;
  timed(p, P::Broad, [&] {
    w.find_pairs(sb);
    // This rank detects the pairs whose first grain it owns (a grain's contacts with the walls
    // included), so each pair is detected once, by the rank that carries its warm start.
    std::erase_if(sb.pairs, [&](const std::pair<int, int>& q) {
      return !owned_[w.first_grain(q.first, q.second)];
    });
    std::erase_if(sb.dynamic_ids, [&](int i) { return !owned_[i]; });
  });
  timed(p, P::Checks, [&] { w.check_pair_count(sb); });
  timed(p, P::Narrow, [&] {
    w.find_contacts(sb, sc);
    w.warm_start(sc.contacts);
  });
}

void DecomposedWorld::resolve_islands() {
  World& w = local_;
  const StepBodies& sb = w.step_bodies_;
  StepContacts& sc = w.step_contacts_;
  const int n = w.bodies.count();
  // 1. Islands across ranks: labelled by their smallest global id, hosted by its owner.
  LocalContactGraph graph;
  graph.gid = gid_;
  graph.owner = owner_;
  graph.touched.assign(n, 0);
  for (int k : sc.candidates) {
    const Contact& c = sc.contacts[k];
    const bool da = sb.dynamic[c.a], db = sb.dynamic[c.b];
    if (da) graph.touched[c.a] = 1;
    if (db) graph.touched[c.b] = 1;
    if (da && db) graph.edges.emplace_back(c.a, c.b);
  }
  IslandLabelStats label_stats;
  labels_ = label_islands(graph, t_, &label_stats);
  const std::vector<IslandLabel>& labels = labels_;
  stats_.label_rounds += label_stats.rounds;

  // 2. What this rank holds of each island to the island's host: the candidates it detected,
  //    in their (serial) order, and the grains they touch, with global ids.
  std::map<std::int64_t, std::vector<int>> part_contacts;  // root -> candidates here
  for (int k : sc.candidates) {
    const Contact& c = sc.contacts[k];
    part_contacts[labels[w.first_grain(c)].root].push_back(k);
  }
  std::vector<IslandPart> parts;
  std::vector<int> grains;
  std::vector<Contact> global;
  for (const auto& [root, list] : part_contacts) {
    grains.clear();
    global.clear();
    for (int k : list) {
      Contact c = sc.contacts[k];
      if (sb.dynamic[c.a]) grains.push_back(c.a);
      if (sb.dynamic[c.b]) grains.push_back(c.b);
      c.a = static_cast<int>(gid_[c.a]);
      c.b = static_cast<int>(gid_[c.b]);
      global.push_back(c);
    }
    std::sort(grains.begin(), grains.end());
    grains.erase(std::unique(grains.begin(), grains.end()), grains.end());
    ByteWriter out;
    out.put(static_cast<std::int32_t>(grains.size()));
    for (int i : grains) {
      out.put(gid_[i]);
      out.put(static_cast<std::int32_t>(owner_[i]));
      out.put(w.bodies.velocity[i]);
      out.put(w.bodies.angular_velocity[i]);
      out.put(w.bodies.position[i]);
      out.put(w.bodies.inv_mass[i]);
      for (int e = 0; e < 9; ++e) out.put(w.bodies.inv_inertia_world[i](e));
      out.put(static_cast<std::int8_t>(w.bodies.is_asleep(i) ? 1 : 0));
    }
    out.put(write_contact_record(global));
    parts.push_back({root, labels[w.first_grain(sc.contacts[list.front()])].host, out.take()});
  }
  const std::vector<GatheredIsland> hosted = gather_islands(std::move(parts), t_);

  // 3. Each hosted island solved whole, as the serial step solves it; the results to the
  //    grains' owners and to the ranks that detected the contacts.
  //    With the resting pass every contact is in an island, so the hosts also compute the
  //    position projection's contributions and send them with the velocities
  //    (project_hosted); without it, a separating contact in no island may penetrate, and
  //    correct_positions sends them from the detecting ranks in an exchange of its own.
  std::map<int, ByteWriter> to_owner, to_source, to_correction;  // by destination rank
  contributions_hosted_ = w.resting_ && w.settings.projection > 0.0;
  hosted_penetrating_ = 0;
  hosted_sums_.clear();
  w.island_solve_.prepare(omp_get_max_threads());
  for (const GatheredIsland& g : hosted) solve_hosted(g, to_owner, to_source, to_correction);
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
  //    detected here (zero for contacts in no island, as in the serial step).
  w.motion_.assign(n, Motion{});
  for (Contact& c : sc.contacts) {
    c.normal_impulse = 0.0;
    c.tangent_impulse = Vec3::Zero();
    c.rolling_impulse = Vec3::Zero();
  }
  std::string grains_text, impulses_text, corrections_text;
  for (const Message& m : received) {
    ByteReader in(m.bytes);
    in.get(grains_text);
    in.get(impulses_text);
    in.get(corrections_text);
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
      Motion& mo = w.motion_[l];
      g.get(w.bodies.velocity[l]);
      g.get(w.bodies.angular_velocity[l]);
      g.get(mo.impact_time);
      g.get(mo.impact_velocity);
      mo.free = false;
      if (!(mo.impact_time > 0.0)) mo.impact_time = 0.0, mo.impact_velocity = Vec3::Zero();
      if (g.get<std::int8_t>() != 0) w.wake_body(l);
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
  // The nets' nodes in no island: their share of the kick's ledger, on their owners.
  if (!full_.nets.empty())
    for (int l = 0; l < n; ++l)
      if (owned_[l] && full_.is_net_node(static_cast<int>(gid_[l])) && w.motion_[l].free)
        full_.add_net_node(static_cast<int>(gid_[l]), w.bodies.velocity[l], net_booking_.free);
}

namespace {

/// correct_positions' sums for the grains of a solved hosted island (all awake: one a moving
/// grain joined woke whole). Every contact of a grain is in its island, so walking `serial` (the
/// island's contacts in the serial order, island-local ids, -1 for a wall) adds each grain's
/// shares in the order World::correct_positions adds them, from zero: its bits. Each grain's
/// owner gets one record of its sums; the host keeps its own grains'. Counts the penetrating
/// contacts into `penetrating`; `sum` and `weight` are scratch.
void project_hosted(const WorldSettings& set, const std::vector<PartGrain>& island,
                    const std::vector<Contact>& serial, int me, std::map<int, ByteWriter>& to_owner,
                    std::vector<DecomposedWorld::GrainSum>& mine, std::vector<Vec3>& sum,
                    std::vector<double>& weight, long& penetrating) {
  const double kp = set.projection;
  sum.assign(island.size(), Vec3::Zero());
  weight.assign(island.size(), 0.0);
  for (const Contact& c : serial) {
    const double ia = c.a >= 0 ? island[c.a].inv_mass : 0.0;
    const double ib = c.b >= 0 ? island[c.b].inv_mass : 0.0;
    const ProjectionShare s = projection_share(c.gap, c.normal, ia, ib, kp, set.penetration_slop);
    if (!s.moves) continue;
    ++penetrating;
    add_share(s, c.a, ia, c.b, ib, sum, weight);
  }
  for (std::size_t k = 0; k < island.size(); ++k) {
    if (!(weight[k] > 0.0)) continue;  // nothing, or a weight that underflowed: nothing moves
    if (island[k].owner == me) {
      mine.push_back({island[k].gid, sum[k], weight[k]});
    } else {
      ByteWriter& o = to_owner[island[k].owner];  // a grain's sums: no key, no point
      o.put(island[k].gid);
      o.put(sum[k]);
      o.put(weight[k]);
    }
  }
}

}  // namespace

/// The host's copies of one gathered island (solve_hosted), kept from island to island.
struct DecomposedWorld::HostScratch {
  std::vector<PartGrain> island;            // its grains, ascending by global id
  std::vector<Contact> contacts, serial;    // as gathered; in the serial order, island-local ids
  std::vector<std::pair<int, int>> origin;  // per gathered contact: (part, place in it)
  std::vector<int> order, place;            // serial place -> gathered, and back
  IslandArrays bodies;                      // the island's grains, ascending by global id
  std::vector<std::int64_t> woken;          // grains of the island a moving grain woke
  std::vector<Vec3> sum;                    // per grain, the projection's sums (project_hosted)
  std::vector<double> weight;
};

void DecomposedWorld::solve_hosted(const GatheredIsland& g, std::map<int, ByteWriter>& to_owner,
                                   std::map<int, ByteWriter>& to_source,
                                   std::map<int, ByteWriter>& to_correction) {
  // The island's grains ascending by global id and its contacts in the serial order (a stable
  // sort by the contact-order key: each pair's points came together, in order, from one rank),
  // then world/island_solve, the function the serial step calls.
  World& w = local_;
  HostScratch& h = *host_;
  // (References, not a structured binding: lambdas below use them, which clang 14 refuses.)
  std::vector<PartGrain>& island = h.island;
  std::vector<Contact>& contacts = h.contacts;
  std::vector<Contact>& serial = h.serial;
  std::vector<std::pair<int, int>>& origin = h.origin;
  std::vector<int>& order = h.order;
  std::vector<int>& place = h.place;
  IslandArrays& a = h.bodies;
  std::vector<Vec3>& v = a.v;
  const IslandSolveSettings set{{w.h_, w.settings.gravity},
                                w.settings.effective_resting_velocity()};
  island.clear();
  contacts.clear();
  origin.clear();
  for (std::size_t s = 0; s < g.parts.size(); ++s) {
    ByteReader in(g.parts[s]);
    const auto count = in.get<std::int32_t>();
    for (int k = 0; k < count; ++k) {
      PartGrain pg;
      in.get(pg.gid);
      pg.owner = in.get<std::int32_t>();
      in.get(pg.v);
      in.get(pg.w);
      in.get(pg.x);
      in.get(pg.inv_mass);
      for (int e = 0; e < 9; ++e) in.get(pg.inv_inertia(e));
      pg.asleep = in.get<std::int8_t>() != 0;
      island.push_back(pg);
    }
    std::string record;
    in.get(record);
    const std::size_t before = contacts.size();
    read_contact_record(record, contacts);
    for (std::size_t k = before; k < contacts.size(); ++k)
      origin.emplace_back(static_cast<int>(s), static_cast<int>(k - before));
  }
  // A grain held by several ranks came from each: the copies are the same bits.
  std::stable_sort(island.begin(), island.end(),
                   [](const PartGrain& a, const PartGrain& b) { return a.gid < b.gid; });
  island.erase(std::unique(island.begin(), island.end(),
                           [](const PartGrain& a, const PartGrain& b) { return a.gid == b.gid; }),
               island.end());
  const int nb = static_cast<int>(island.size());
  auto local_index = [&](int gid) {
    auto it = std::lower_bound(island.begin(), island.end(), gid,
                               [](const PartGrain& pg, std::int64_t id) { return pg.gid < id; });
    return it != island.end() && it->gid == gid ? static_cast<int>(it - island.begin()) : -1;
  };
  order.resize(contacts.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  // The gathered contacts carry global ids: the whole world's key (its bodies are global ids).
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return full_.contact_order_key(contacts[x]) < full_.contact_order_key(contacts[y]);
  });
  serial.resize(contacts.size());
  for (std::size_t s = 0; s < order.size(); ++s) {
    Contact& c = serial[s];
    c = contacts[order[s]];
    c.a = local_index(c.a);
    c.b = local_index(c.b);
  }
  a.resize(nb);
  for (int k = 0; k < nb; ++k) {
    v[k] = island[k].v, a.w[k] = island[k].w, a.x[k] = island[k].x;
    a.inv_mass[k] = island[k].inv_mass, a.inv_inertia[k] = island[k].inv_inertia;
  }
  ++w.last_.islands;
  ++stats_.islands_hosted;
  if (g.from.size() > 1) ++stats_.islands_spanning;
  // Sleeping islands (World::wake_or_skip): an island of sleepers only is not solved (its
  // contacts keep the impulses the warm start gave them, which came here with them); one a
  // moving grain joined wakes whole, its sleepers kicked as the others were.
  bool sleeper = false, moving = false;
  if (w.settings.sleep_velocity > 0.0)
    for (const PartGrain& pg : island) (pg.asleep ? sleeper : moving) = true;
  const bool solve = !sleeper || moving;
  std::vector<std::int64_t>& woken = h.woken;
  woken.clear();
  if (sleeper && moving) {
    const Vec3 dv = w.h_ * w.settings.gravity;
    for (int k = 0; k < nb; ++k) {
      if (!island[k].asleep) continue;
      wake_kick_ += kick_energy(full_.bodies.mass[island[k].gid], v[k], dv);
      v[k] += dv;
      woken.push_back(island[k].gid);
    }
    ++w.last_.woken;
  }
  if (solve) {
    IslandSolution r =
        w.island_solve_.solve(set, *w.solver_, w.resting_pass_, a.state(0, nb), serial, 0);
    if (!full_.nets.empty()) {  // the island's share of the nets' kick (World::book_net_contacts)
      NetShare share;
      bool any = false;
      for (int k = 0; k < nb; ++k) {
        if (!full_.is_net_node(static_cast<int>(island[k].gid))) continue;
        any = true;
        full_.add_net_node(static_cast<int>(island[k].gid), v[k], share);
      }
      if (any) World::book_net_island(share, r, net_booking_);
    }
    island_kick_ += r.kick;
    solver_sums_.add(r.stats);
    resting_sums_.add(r.resting_stats);
    w.last_.collisions += r.collisions;
    w.last_.largest_island =
        std::max<long>(w.last_.largest_island, static_cast<long>(serial.size()));
    ++solved_;
    // New velocities to the owners (and whether each woke).
    Hosted& hosted = hosted_.emplace_back(Hosted{g.root, {}});
    for (int k = 0; k < nb; ++k) {
      ByteWriter& out = to_owner[island[k].owner];
      out.put(island[k].gid);
      out.put(v[k]);
      out.put(a.w[k]);
      out.put(a.toi[k]);
      out.put(a.v0[k]);
      out.put(static_cast<std::int8_t>(island[k].asleep ? 1 : 0));
      hosted.owners.push_back(island[k].owner);
    }
    std::sort(hosted.owners.begin(), hosted.owners.end());
    hosted.owners.erase(std::unique(hosted.owners.begin(), hosted.owners.end()),
                        hosted.owners.end());
  } else {
    ++w.last_.asleep_steps;
  }
  if (contributions_hosted_ && solve)  // an island left asleep is held where it fell asleep
    project_hosted(w.settings, island, serial, t_.rank(), to_correction, hosted_sums_, h.sum,
                   h.weight, hosted_penetrating_);
  // Impulses to the ranks that detected the contacts, each part's in the order it came, and
  // the sleepers woken (the projection holds a sleeper in place).
  place.resize(serial.size());
  for (std::size_t s = 0; s < order.size(); ++s) place[order[s]] = static_cast<int>(s);
  std::size_t k = 0;
  for (std::size_t s = 0; s < g.parts.size(); ++s) {
    ByteWriter& out = to_source[g.from[s]];
    out.put(g.root);
    std::size_t end = k;
    while (end < origin.size() && origin[end].first == static_cast<int>(s)) ++end;
    out.put(static_cast<std::int32_t>(end - k));
    for (; k < end; ++k) {
      const Contact& c = serial[place[k]];
      out.put(c.normal_impulse);
      out.put(c.tangent_impulse);
      out.put(c.rolling_impulse);
    }
    out.put(static_cast<std::int32_t>(woken.size()));
    for (const std::int64_t gid : woken) out.put(gid);
  }
}

void DecomposedWorld::collect_contributions(std::vector<Contribution>& mine, long& penetrating) {
  // Every contact's contributions from the rank that detected it, after the results (its
  // grains' sleep flags as the hosts left them); those of other ranks' grains to their owners.
  World& w = local_;
  const double kp = w.settings.projection;
  const std::vector<Contact>& contacts = w.step_contacts_.contacts;
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

void DecomposedWorld::correct_positions() {
  // World::correct_positions over ranks: a grain moves by its corrections' weighted mean, summed
  // in the serial contact order (by the contact's order key, then by its place among its pair's
  // points): the serial sums' bits.
  World& w = local_;
  if (w.settings.projection <= 0.0) return;
  auto move = [&](std::int64_t gid, const Vec3& sum, double weight) {
    if (!(weight > 0.0)) return;  // a weight that underflowed moves nothing
    const int l = local_of_[gid];
    const Vec3 dx = sum / weight;
    w.bodies.position[l] += dx;
    correction_work_ += w.bodies.mass[l] * w.settings.gravity.dot(dx);
  };
  // Whether any contact anywhere penetrated decides whether the serial step books the work.
  if (contributions_hosted_) {  // the hosts summed them: one record per grain owned here
    for (const GrainSum& g : hosted_sums_) move(g.gid, g.sum, g.weight);
    penetrating_ = hosted_penetrating_;
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
  penetrating_ = penetrating;
}

void DecomposedWorld::update_sleep() {
  World& w = local_;
  const WorldSettings& set = w.settings;
  if (!(set.sleep_velocity > 0.0)) return;
  const int n = w.bodies.count();
  w.update_rest_times();  // on the owners
  // The islands solved this step with a grain not ready (or a net's node), to their hosts.
  std::map<int, std::vector<std::int64_t>> not_ready;  // host -> roots
  for (int l = 0; l < n; ++l) {
    if (!owned_[l] || w.motion_[l].free || labels_[l].root < 0) continue;  // in no solved island
    if (w.rest_time_[l] >= set.sleep_time && !full_.is_net_node(static_cast<int>(gid_[l])))
      continue;
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
    ++w.last_.fell_asleep;
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
    if (!owned_[l] || w.motion_[l].free || labels_[l].root < 0 ||
        !std::binary_search(roots.begin(), roots.end(), labels_[l].root))
      continue;
    sleep_energy_ += w.put_to_sleep(l);
  }
}

void DecomposedWorld::book_ledger() {
  // One reduction: the exact sums' limbs and the step's counters, over every rank.
  World& w = local_;
  ExactSum kt, kr, pe;
  EnergyLedger::measure_sums(w.bodies, w.settings.gravity, &owned_, kt, kr, pe);
  ExactSum* sums[] = {&sums_.kick,
                      &island_kick_,
                      &correction_work_,
                      &sums_.damped,
                      &sums_.integration,
                      &sums_.wall_work,
                      &solver_sums_.restitution,
                      &solver_sums_.friction,
                      &solver_sums_.truncated,
                      &solver_sums_.integration,
                      &resting_sums_.restitution,
                      &resting_sums_.friction,
                      &resting_sums_.truncated,
                      &resting_sums_.integration,
                      &kt,
                      &kr,
                      &pe,
                      &net_booking_.islands_integration,
                      &net_booking_.islands_damping,
                      &net_booking_.free.spring,
                      &net_booking_.free.removed,
                      &net_booking_.free.dashpot_w,
                      &wake_kick_,
                      &sleep_energy_};
  constexpr int kSums = sizeof(sums) / sizeof(sums[0]);
  std::vector<std::int64_t> buffer;
  buffer.reserve(kSums * (ExactSum::kLimbs + 1) + 10 + 2 * kSolverCounts + 1);
  for (ExactSum* s : sums) {
    const auto limbs = s->limbs();
    buffer.insert(buffer.end(), limbs.begin(), limbs.end());
    buffer.push_back(s->nonfinite() ? 1 : 0);
  }
  StepStats& st = w.last_;
  for (long v :
       {st.contacts, st.candidates, st.islands, st.collisions, penetrating_, solved_,
        st.asleep_steps, st.woken, st.fell_asleep, st.wall_corrections})
    buffer.push_back(v);
  put_counts(solver_sums_.counts, buffer);
  put_counts(resting_sums_.counts, buffer);
  buffer.push_back(stop_flag_ && *stop_flag_ ? 1 : 0);
  t_.sum(std::span<std::int64_t>(buffer));
  const std::int64_t* at = buffer.data();
  for (ExactSum* s : sums) {
    std::array<std::int64_t, ExactSum::kLimbs> limbs;
    std::copy(at, at + ExactSum::kLimbs, limbs.begin());
    *s = ExactSum::from_limbs(limbs, at[ExactSum::kLimbs] != 0);
    at += ExactSum::kLimbs + 1;
  }
  st.contacts = at[0], st.candidates = at[1], st.islands = at[2], st.collisions = at[3];
  const long penetrating = at[4], solved = at[5];
  st.asleep_steps = at[6], st.woken = at[7], st.fell_asleep = at[8];
  st.wall_corrections = at[9];
  at += 10;
  get_counts(at, solver_sums_.counts);
  get_counts(at + kSolverCounts, resting_sums_.counts);
  if (at[2 * kSolverCounts] > 0) stop_seen_ = true;
  // The step's maxima in one reduction: the deepest contact, the largest island, the wall
  // correction's rounds (the serial rounds run until no grain anywhere was corrected: as many
  // as the rank that needed most, a rank's grains stopping where the serial grains stop), the
  // speed that sets the halo of the exchange ending the step (the motion is done) and the
  // sub-steps the next step needs at the spins it leaves (the last sub-step's count is read).
  std::array<double, 6> most{
      st.max_penetration,
      static_cast<double>(st.largest_island),
      static_cast<double>(st.wall_rounds),
      static_cast<double>(st.wall_bound_reached),
      owned_next_speed(),
      static_cast<double>(w.substep_count_unbounded(w.settings.dt, w.bodies.angular_velocity))};
  t_.max(std::span<double>(most));
  next_substeps_ = most[5];
  next_substeps_dt_ = w.settings.dt;
  next_substeps_sweep_ = w.settings.substep_sweep;
  st.max_penetration = most[0];
  st.largest_island = static_cast<long>(most[1]);
  if (w.settings.resting == "wall-correction") {
    st.wall_rounds = static_cast<long>(most[2]);
    st.wall_bound_reached = static_cast<long>(most[3]);
  }
  next_speed_ = most[4];

  // Booked in the serial step's order (World::apply_external_forces, resolve_islands,
  // correct_positions, damp_and_integrate, update_ledger).
  EnergyLedger& L = w.ledger_;
  L.integration -= sums_.kick.value();
  const bool sleeping = w.settings.sleep_velocity > 0.0;
  if (!full_.nets.empty()) w.book_net_kicks(net_kicks_);
  if (sleeping) L.integration -= wake_kick_.value();
  if (!full_.nets.empty()) w.book_nets(net_booking_);
  if (solved > 0) {
    L.integration -= island_kick_.value();
    solver_sums_.add_to(st.solver);
    resting_sums_.add_to(st.resting);
  }
  if (penetrating > 0) L.correction += correction_work_.value();
  L.damping += sums_.damped.value();
  L.integration += sums_.integration.value();
  L.correction += sums_.wall_work.value();
  if (sleeping) {
    L.damping += sleep_energy_.value();
    w.totals_.sleep_energy += sleep_energy_.value();
  }
  w.book_solvers();
  L.kinetic_translational = kt.value();
  L.kinetic_rotational = kr.value();
  L.potential = pe.value();
  if (!full_.nets.empty()) {  // the links' elastic energy on the positions of the step's end
    share_net_nodes(false);
    const double elastic = full_.net_elastic_energy();
    L.integration += w.net_elastic_ - elastic;
    L.elastic = w.net_elastic_ = elastic;
  }
}

double DecomposedWorld::owned_next_speed() const {
  const World& w = local_;
  const double kick = w.settings.gravity.norm() * w.settings.dt;
  double speed = 0.0;
  for (int i = 0; i < w.bodies.count(); ++i)
    if (owned_[i]) speed = std::max(speed, next_speed(w.bodies, w.shapes, i, kick));
  return speed;
}

double DecomposedWorld::halo() {
  const double speed = next_speed_ >= 0.0 ? next_speed_ : t_.max(owned_next_speed());
  next_speed_ = -1.0;
  return halo_for(speed);
}

void DecomposedWorld::exchange() {
  // The warm start each owned grain carries: last step's contacts whose first grain it is.
  World& w = local_;
  World::CarriedContacts carried = w.carried_contacts();
  for (GrainRecord& r : grains_.owned) {
    const int l = local_of_[r.gid];
    for (Contact& c : carried.of(l)) {
      c.a = static_cast<int>(gid_[c.a]);
      c.b = static_cast<int>(gid_[c.b]);
    }
    r.position = w.bodies.position[l];
    r.state = grain_state(w.bodies, l, carried.of(l), w.rest_time_[l]);
  }
  const double h = halo();
  last_halo_ = h;
  GrainExchangeStats xs;
  exchange_grains(decomposition_, h, grains_, t_, &xs);
  stats_.migrated += xs.migrated_in;
  rebuild_local();
}

void DecomposedWorld::gather(World& full, bool warm_start) {
  ByteWriter out;
  std::vector<Contact> contacts;
  if (warm_start) {
    contacts = local_.previous_;
    for (Contact& c : contacts) {
      c.a = static_cast<int>(gid_[c.a]);
      c.b = static_cast<int>(gid_[c.b]);
    }
  }
  out.put(write_contact_record(contacts));
  for (const GrainRecord& r : grains_.owned) {
    out.put(r.gid);
    out.put(write_body_record(local_.bodies, local_of_[r.gid]));
    out.put(local_.rest_time_[local_of_[r.gid]]);
  }
  std::vector<Message> outgoing;
  outgoing.push_back({0, out.take()});
  const std::vector<Message> received = t_.exchange(std::move(outgoing));
  if (t_.rank() != 0) return;
  std::string record;
  contacts.clear();
  full.rest_time_.resize(full.bodies.count(), 0.0);
  for (const Message& m : received) {
    ByteReader in(m.bytes);
    in.get(record);
    read_contact_record(record, contacts);
    while (!in.done()) {
      const auto gid = in.get<std::int64_t>();
      in.get(record);
      read_body_record(record, full.bodies, static_cast<int>(gid));
      in.get(full.rest_time_[gid]);
    }
  }
  full.bodies.update_world_inertia();
  copy_run_state(local_, full);
  // The serial warm start: every rank's contacts, put back in the serial order by their key.
  if (warm_start)
    full.restore_warm_start(std::move(contacts),
                            local_.previous_h_ > 0.0 ? local_.previous_h_ : local_.settings.dt);
}

}  // namespace etdem::distributed
