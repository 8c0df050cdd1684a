// A rank's grains and ghosts (distributed/decomposed_world.hpp): the local world rebuilt from
// the records of the grains it holds, the exchange that ends each sub-step, the halo it is
// drawn with, the rank boxes drawn again, and the ghosts' velocities after the solve.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "etdem/core/body_record.hpp"
#include "etdem/core/exact_sum.hpp"
#include "etdem/core/sort_runs.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/rank_records.hpp"

namespace etdem::distributed {

double DecomposedWorld::halo_for(double speed) const {
  // Every pair that can touch in the next step: centres within two bounding radii with the
  // contact skin, plus what both can move (World::find_contacts' margin), with 1 % to spare.
  const WorldSettings& set = local_.settings;
  return 1.01 * (2.0 * (1.0 + set.contact_skin) * largest_radius_ + 2.0 * speed * set.dt);
}

bool DecomposedWorld::refresh_in_place(std::span<const LocalEntry> entries, double h) {
  // The same bodies as now, by global id: the ids and the kept pairs stay. The owned grains that
  // stayed are as they are; the statics and the ghosts are read in place from the world every
  // rank keeps and from their records; a grain that crossed into this rank's box (a ghost here
  // before) from its record, with the warm start it carried; one that crossed out (a ghost here
  // now) takes its warm start with it. The bits of the rebuild below, which this is when no
  // grain came into or left the rank's halo (the ghosts are kept within a band, exchange_grains).
  const std::size_t n = entries.size();
  if (n != gid_.size()) return false;
  for (std::size_t l = 0; l < n; ++l)
    if (entries[l].gid != gid_[l]) return false;
  World& w = local_;
  bool owners_changed = false;
  auto read_record = [&](int at, const GrainRecord& r) {
    ByteReader reader(r.state);
    const std::string_view body = reader.view();
    w.set_sleep_state(at, read_sleep_state(reader));
    read_body_record(body, w.bodies, at);
  };
  for (std::size_t l = 0; l < n; ++l) {
    const LocalEntry& e = entries[l];
    const int at = static_cast<int>(l);
    const auto k = static_cast<std::size_t>(e.index);
    if (e.kind == 0) {
      w.bodies.copy(at, full_.bodies, e.index);
    } else if (e.kind == 2) {
      read_record(at, grains_.ghosts[k]);
      owner_[l] = grains_.ghost_owner[k];
      owners_changed = owners_changed || owned_[l] != 0;
    } else if (!owned_[l]) {  // came in: its record holds its state
      read_record(at, grains_.owned[k]);
      owner_[l] = t_.rank();
      owners_changed = true;
    }
  }
  w.refresh_bodies();
  if (!owners_changed) {
    // (The warm start is as it was, in its order on the same ids; only a sub-step length it
    // lacks is set, as the rebuild would.)
    if (w.warm_start_substep() != h) w.restore_warm_start(w.release_warm_start(), h);
    ++stats_.refreshed_in_place;
    return true;
  }
  // The warm start: the contacts whose first grain was owned here and still is, in their order,
  // then those the grains that came in carried (rebuild_local's, on the same ids).
  std::vector<Contact> previous = w.release_warm_start();
  std::size_t kept = 0;
  for (const Contact& c : previous) {
    const auto first = static_cast<std::size_t>(w.first_grain(c));
    if (!owned_[first] || entries[first].kind != 1) continue;
    previous[kept++] = c;
  }
  previous.resize(kept);
  for (std::size_t l = 0; l < n; ++l) owned_[l] = entries[l].kind == 1 ? 1 : 0;
  take_carried(previous);
  w.restore_warm_start(std::move(previous), h);
  ++stats_.refreshed_in_place;
  return true;
}

void DecomposedWorld::take_carried(std::vector<Contact>& kept) {
  std::vector<Contact>& arrived = arrived_contacts_;
  arrived.clear();
  for (const GrainRecord& r : grains_.owned)
    for (const Contact& c : r.carried) {
      const int a = local_of_[c.a], b = local_of_[c.b];
      if (a < 0 || b < 0) continue;
      Contact& to = arrived.emplace_back(c);
      to.a = a;
      to.b = b;
    }
  merge_arrived(kept, arrived);
}

void DecomposedWorld::rebuild_local(double h, bool keep) {
  // The local bodies in ascending global id: the statics, the owned grains and the ghosts. A
  // static is copied from the world every rank keeps, an owned grain with no record state (it
  // stayed here and went nowhere) from the local world as it was, the others read from their
  // records: every field's bits either way.
  using Entry = LocalEntry;
  std::vector<Entry> entries;
  entries.reserve(statics_.size() + grains_.owned.size() + grains_.ghosts.size());
  for (int s : statics_) entries.push_back({s, 0, s});
  for (std::size_t k = 0; k < grains_.owned.size(); ++k)
    entries.push_back({grains_.owned[k].gid, 1, static_cast<int>(k)});
  for (std::size_t k = 0; k < grains_.ghosts.size(); ++k)
    entries.push_back({grains_.ghosts[k].gid, 2, static_cast<int>(k)});
  stable_sort_runs(entries, [](const Entry& x, const Entry& y) { return x.gid < y.gid; });
  if (keep && refresh_in_place(entries, h)) return;
  const World& old = local_;
  Bodies bodies;
  const int n = static_cast<int>(entries.size());
  bodies.reserve(static_cast<std::size_t>(n));
  std::vector<World::SleepState> sleep(n);
  for (int l = 0; l < n; ++l) {
    const Entry& e = entries[l];
    if (e.kind == 0) {
      bodies.append_copy(full_.bodies, e.index);
      continue;
    }
    const GrainRecord& r = e.kind == 1 ? grains_.owned[e.index] : grains_.ghosts[e.index];
    if (r.state.empty()) {  // an owned grain that stayed: local_of_ is still the old world's
      // (With the owned grains after it that stayed and lie next to it in the old world: one
      // copy of each field.)
      const int was = local_of_[r.gid];
      int run = 1;
      while (l + run < n && entries[l + run].kind == 1 &&
             grains_.owned[entries[l + run].index].state.empty() &&
             local_of_[entries[l + run].gid] == was + run)
        ++run;
      bodies.append_copies(old.bodies, was, run);
      for (int k = 0; k < run; ++k) sleep[l + k] = old.sleep_state(was + k);
      l += run - 1;
      continue;
    }
    ByteReader reader(r.state);
    const std::string_view body = reader.view();
    sleep[l] = read_sleep_state(reader);
    append_body_record(body, bodies);
  }
  std::vector<std::int64_t> before;
  before.swap(gid_);
  gid_.resize(n);
  owner_.resize(n);
  for (const std::int64_t g : before) local_of_[g] = -1;  // sized once (constructor)
  for (int l = 0; l < n; ++l) {
    const Entry& e = entries[l];
    gid_[l] = e.gid;
    local_of_[e.gid] = l;
    owner_[l] = e.kind == 2 ? grains_.ghost_owner[e.index] : t_.rank();
  }
  std::vector<int> new_id(before.size());  // the local bodies' ids, before to now (-1: gone)
  for (std::size_t l = 0; l < before.size(); ++l) new_id[l] = local_of_[before[l]];
  // The warm start: the contacts the grains that stay detected last step (their first grain
  // owned here before and now; a migrant took its own), moved out of the world and renamed to
  // the new ids in place (ids ascend with the global ids, so the serial order holds), then
  // those the grains that arrived carried (global ids, the grains ascending by id). A pair whose
  // other body is no longer held here cannot touch this step (the halo holds every pair that
  // can): its contacts are not needed. (Read while `old` and owned_ are still the old world's.)
  std::vector<Contact> previous = local_.release_warm_start();
  std::size_t kept = 0;
  for (const Contact& c : previous) {
    const int first = old.first_grain(c);
    if (!owned_[static_cast<std::size_t>(first)]) continue;
    const int f = new_id[static_cast<std::size_t>(first)];
    const int a = new_id[c.a], b = new_id[c.b];
    // (The first grain is a grain: owned here now when this rank is its owner.)
    if (f < 0 || owner_[f] != t_.rank() || a < 0 || b < 0) continue;
    Contact& to = previous[kept++];
    if (&to != &c) to = c;
    to.a = a;
    to.b = b;
  }
  previous.resize(kept);
  owned_.assign(n, 0);
  for (int l = 0; l < n; ++l) owned_[l] = entries[l].kind == 1 ? 1 : 0;
  local_.replace_bodies(std::move(bodies), sleep, new_id);
  take_carried(previous);
  local_.restore_warm_start(std::move(previous), h);
}

void DecomposedWorld::merge_arrived(std::vector<Contact>& kept, std::vector<Contact>& arrived) {
  // The kept contacts are in the serial order. The arrived ones (each grain's in order, the
  // grains ascending: a grain's walls after its pairs, so two grains' lists interleave) are
  // taken in a stable order by key and go into their places from the back: only the kept
  // contacts after the first arrived one move. Ties (the points of one pair) stay kept first,
  // as in a stable sort of the two lists laid end to end: a pair's points all come from one
  // side.
  if (arrived.empty()) return;
  const World& w = local_;
  std::vector<ContactOrderKey>& key = arrived_keys_;
  key.resize(arrived.size());
  for (std::size_t k = 0; k < arrived.size(); ++k) key[k] = w.contact_order_key(arrived[k]);
  std::vector<int>& order = arrived_order_;
  stable_order(key, order);
  std::size_t i = kept.size(), j = order.size();
  kept.resize(i + j);
  // (The last kept contact's key, found once for each kept contact that moves.)
  ContactOrderKey kept_key = i > 0 ? w.contact_order_key(kept[i - 1]) : ContactOrderKey{};
  for (std::size_t to = kept.size(); j > 0;) {
    // The last of what is left: the kept one when the arrived one comes before it.
    const auto last = static_cast<std::size_t>(order[j - 1]);
    if (i > 0 && key[last] < kept_key) {
      kept[--to] = kept[--i];
      if (i > 0) kept_key = w.contact_order_key(kept[i - 1]);
    } else {
      kept[--to] = arrived[last];
      --j;
    }
  }
}

void DecomposedWorld::exchange(World&) {
  exchange_grains_now();
}

void DecomposedWorld::exchange_grains_now() {
  // A grain that goes to another owner carries its warm start: last step's contacts whose first
  // grain it is, in the serial order, on global ids. A grain that stays keeps its own in the
  // world (rebuild_local).
  World& w = local_;
  StageTimer exchange_time(&w.stages(), StageProfile::GrainsExchange);
  std::vector<GrainRecord*>& record_of = record_of_;
  record_of.assign(static_cast<std::size_t>(w.bodies.count()), nullptr);
  bool migrants = false;
  for (GrainRecord& r : grains_.owned) {
    const int l = local_of_[r.gid];
    r.position = w.bodies.position[l];
    r.state.clear();  // written only if the grain is sent (exchange_grains)
    r.carried.clear();
    if (decomposition_.owner_of(r.position) == t_.rank()) continue;
    record_of[static_cast<std::size_t>(l)] = &r;
    migrants = true;
  }
  if (migrants)
    for (const Contact& c : w.warm_start_contacts()) {
      GrainRecord* r = record_of[static_cast<std::size_t>(w.first_grain(c))];
      if (!r) continue;
      Contact& kept = r->carried.emplace_back(c);
      kept.a = static_cast<int>(gid_[c.a]);
      kept.b = static_cast<int>(gid_[c.b]);
    }
  const double h = halo();
  last_halo_ = h;
  GrainExchangeStats xs;
  exchange_grains(
      decomposition_, h, grains_, t_, &xs,
      [&](GrainRecord& r) {
        const int l = local_of_[r.gid];
        r.state = grain_state(w.bodies, l, w.sleep_state(l), std::move(r.state));
      },
      kGhostBand * largest_radius_);
  stats_.migrated += xs.migrated_in;
  exchange_time.stop();
  const StageTimer rebuild_time(&w.stages(), StageProfile::WorldRebuild);
  const double substep = w.warm_start_substep();
  rebuild_local(substep > 0.0 ? substep : w.settings.dt, true);
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
  // (Drawn in steps of a quarter of the largest grain radius: every rank draws the same, as the
  // speed and the last halo are the same on every rank.)
  return draw_halo(halo_for(speed), last_halo_, 0.25 * largest_radius_);
}

std::vector<double> DecomposedWorld::owned_work() const {
  // The exchange that ended the step rebuilt the local world: its warm start is the owned
  // grains' carried contacts, on local ids.
  std::vector<double> per_body(local_.bodies.count(), 1.0);
  for (const Contact& c : local_.warm_start_contacts()) per_body[local_.first_grain(c)] += 1.0;
  std::vector<double> work;
  work.reserve(grains_.owned.size());
  for (const GrainRecord& r : grains_.owned) work.push_back(per_body[local_of_[r.gid]]);
  return work;
}

namespace {

/// The rank's work: its grains' (integers, so the sum is exact in any order).
long total_work(const std::vector<double>& work) {
  return static_cast<long>(std::accumulate(work.begin(), work.end(), 0.0));
}

}  // namespace

long DecomposedWorld::work() const {
  return total_work(owned_work());
}

void DecomposedWorld::rebalance() {
  const int ranks = t_.size();
  if (ranks < 2) return;
  // A grain's work is what its owner does for it each step: its narrow phase, warm start and
  // records grow with the contacts it detects. Integers: the sums are exact in any order.
  const std::vector<double> work = owned_work();
  const long mine_work = total_work(work);
  const long total = t_.sum(mine_work);
  // The rank's busy time since the last check: its step phases' wall time less its time in
  // collectives (waits included).
  const double profiled = local_.profile().total(), waited = t_.counters().seconds;
  const double busy = std::max(0.0, (profiled - balance_profiled_) - (waited - balance_waited_));
  balance_profiled_ = profiled;
  balance_waited_ = waited;
  // Islands the ranks solved together since the last check (each counted by its host).
  const long shared = stats_.islands_shared - balance_shared_;
  balance_shared_ = stats_.islands_shared;
  // (One max: the least busy time as the largest of its negatives.)
  double most[4] = {static_cast<double>(mine_work), busy, static_cast<double>(shared), -busy};
  t_.max(most);
  ExactSum busy_sum;
  busy_sum += busy;
  BalanceFigures figures;
  figures.most_work = most[0];
  figures.total_work = static_cast<double>(total);
  figures.most_busy = most[1];
  figures.least_busy = -most[3];
  figures.mean_busy = t_.sum(busy_sum).value() / ranks;
  figures.shared = most[2] > 0.0;
  const Rebalance decision = rebalance_rule(figures, ranks, local_.settings.rebalance_imbalance,
                                            local_.settings.rebalance_busy_imbalance);
  const bool by_time = decision == Rebalance::kByTime;
  if (decision == Rebalance::kNone) return;
  // By time: each grain's work in seconds, at the rate its rank worked since the last check.
  const double rate = by_time && mine_work > 0 ? busy / static_cast<double>(mine_work) : 1.0;
  // Every rank's owned grains (global id, centre, work) to every rank. The new boxes are a
  // function of the grains alone, taken in the order of their ids, not of the ranks that held
  // them: every rank draws the same boxes. (The exchange left each record's position current.)
  ByteWriter mine;
  for (std::size_t k = 0; k < grains_.owned.size(); ++k) {
    mine.put(grains_.owned[k].gid);
    mine.put(grains_.owned[k].position);
    mine.put(work[k] * rate);
  }
  const std::string bytes = mine.take();
  std::vector<Message> out;
  for (int peer = 0; peer < ranks; ++peer) out.push_back({peer, bytes});
  struct Grain {
    std::int64_t gid;
    Vec3 x;
    double work;
  };
  std::vector<Grain> all;
  for (const Message& m : t_.exchange(std::move(out))) {
    ByteReader r(m.bytes);
    while (!r.done()) {
      Grain g;
      r.get(g.gid);
      r.get(g.x);
      r.get(g.work);
      all.push_back(g);
    }
  }
  std::sort(all.begin(), all.end(), [](const Grain& a, const Grain& b) { return a.gid < b.gid; });
  std::vector<Vec3> centres(all.size());
  std::vector<double> weights(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) centres[k] = all[k].x, weights[k] = all[k].work;
  decomposition_ = Decomposition::bisect(centres, weights, ranks);
  ++stats_.rebalances;
  if (by_time) ++stats_.rebalances_by_time;
  exchange_grains_now();  // the grains to their new owners, the ghosts of the new boxes
}

void DecomposedWorld::share_velocities(World& w) {
  // A ghost keeps the velocity of the start of the step until the exchange that ends it; the
  // owner sends its grain's velocities after the solve to the ranks the last exchange made it a
  // ghost on (the grains have not moved since).
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

void DecomposedWorld::restore_velocities(World& w) {
  // Only the ghosts share_velocities wrote, back to what they held (the last write first, so a
  // ghost written twice ends with its first value).
  for (auto g = ghosts_before_.rbegin(); g != ghosts_before_.rend(); ++g) {
    w.bodies.velocity[g->local] = g->velocity;
    w.bodies.angular_velocity[g->local] = g->angular_velocity;
  }
  ghosts_before_.clear();
}

}  // namespace etdem::distributed
