// The ledger and the output of a split run (distributed/decomposed_world.hpp): the sub-step's
// exact sums and counters reduced over the ranks before the world books them (one reduction,
// with the stop flag; one of maxima), and every grain gathered to rank 0 for the writers.
#include <algorithm>
#include <array>

#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/rank_records.hpp"

namespace etdem::distributed {
namespace {

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

}  // namespace

void DecomposedWorld::reduce(World& w, SubstepSums& s, StepStats& st) {
  // One reduction: the exact sums packed and the step's counters, over every rank.
  const auto sums = s.exact_sums();
  constexpr int kSums = static_cast<int>(std::tuple_size_v<decltype(sums)>);
  std::vector<std::int64_t> buffer(static_cast<std::size_t>(kSums * ExactSum::kPacked));
  buffer.reserve(buffer.size() + 10 + 2 * kSolverCounts + 1);
  for (std::size_t k = 0; k < sums.size(); ++k) sums[k]->pack(&buffer[k * ExactSum::kPacked]);
  for (long v : {st.contacts, st.candidates, st.islands, st.collisions, s.penetrating, s.solved,
                 st.asleep_steps, st.woken, st.fell_asleep, st.wall_corrections})
    buffer.push_back(v);
  put_counts(s.solver.counts, buffer);
  put_counts(s.resting.counts, buffer);
  buffer.push_back(stop_flag_ && *stop_flag_ ? 1 : 0);
  t_.sum(std::span<std::int64_t>(buffer));
  const std::int64_t* at = buffer.data();
  for (ExactSum* x : sums) {
    *x = ExactSum::unpack(at);
    at += ExactSum::kPacked;
  }
  st.contacts = at[0], st.candidates = at[1], st.islands = at[2], st.collisions = at[3];
  s.penetrating = at[4], s.solved = at[5];
  st.asleep_steps = at[6], st.woken = at[7], st.fell_asleep = at[8];
  st.wall_corrections = at[9];
  at += 10;
  get_counts(at, s.solver.counts);
  get_counts(at + kSolverCounts, s.resting.counts);
  if (at[2 * kSolverCounts] > 0) stop_seen_ = true;
  // The step's maxima in one reduction: the deepest contact, the largest island, the wall
  // correction's rounds (the serial rounds run until no grain anywhere was corrected: as many
  // as the rank that needed most, a rank's grains stopping where the serial grains stop), the
  // speed that sets the halo of the exchange ending the step (the motion is done) and the
  // sub-steps the next step needs at the spins it leaves (the last sub-step's count is read).
  // And whether a grain anywhere is asleep (any_asleep at the next sub-step's start), and each
  // rank's largest island solved alone and its root (offload_; on up to kOffloadMostRanks
  // ranks): rank r's in the places kShared + 2 r and kShared + 2 r + 1.
  bool asleep_here = false;
  for (int l = 0; l < w.bodies.count() && !asleep_here; ++l)
    asleep_here = owned_[l] && w.bodies.is_asleep(l);
  constexpr std::size_t kShared = 7;
  std::array<double, kShared + 2 * kOffloadMostRanks> most{
      st.max_penetration,
      static_cast<double>(st.largest_island),
      static_cast<double>(st.wall_rounds),
      static_cast<double>(st.wall_bound_reached),
      owned_next_speed(),
      static_cast<double>(w.substep_count_unbounded(w.settings.dt, w.bodies.angular_velocity)),
      asleep_here ? 1.0 : 0.0};
  const int ranks = t_.size();
  const bool offloads = ranks > 1 && ranks <= kOffloadMostRanks;
  auto slot = [](int r) { return kShared + 2 * static_cast<std::size_t>(r); };  // rank r's size
  std::fill(most.begin() + kShared, most.end(), -1.0);
  if (offloads) {
    most[slot(t_.rank())] = static_cast<double>(largest_alone_);
    most[slot(t_.rank()) + 1] = static_cast<double>(largest_alone_root_);
  }
  t_.max(std::span<double>(most.data(), offloads ? slot(ranks) : kShared));
  offload_ = {};
  if (offloads) {
    int busiest = 0, least = -1;
    for (int r = 1; r < ranks; ++r)
      if (most[slot(r)] > most[slot(busiest)]) busiest = r;
    for (int r = 0; r < ranks; ++r)
      if (r != busiest && (least < 0 || most[slot(r)] < most[slot(least)])) least = r;
    if (most[slot(busiest)] >= static_cast<double>(offload_contacts_))
      offload_ = {busiest, least, static_cast<std::int64_t>(most[slot(busiest) + 1])};
  }
  next_substeps_ = most[5];
  next_substeps_dt_ = w.settings.dt;
  next_substeps_sweep_ = w.settings.substep_sweep;
  st.max_penetration = most[0];
  st.largest_island = static_cast<long>(most[1]);
  last_largest_island_ = st.largest_island;
  if (w.settings.resting == "wall-correction") {
    st.wall_rounds = static_cast<long>(most[2]);
    st.wall_bound_reached = static_cast<long>(most[3]);
  }
  next_speed_ = most[4];
  asleep_anywhere_ = most[6] > 0.0 ? 1 : 0;
}

void DecomposedWorld::gather(World& full, bool warm_start) {
  ByteWriter out;
  std::vector<Contact> contacts;
  if (warm_start) {
    const std::span<const Contact> previous = local_.warm_start_contacts();
    contacts.assign(previous.begin(), previous.end());
    for (Contact& c : contacts) {
      c.a = static_cast<int>(gid_[c.a]);
      c.b = static_cast<int>(gid_[c.b]);
    }
  }
  put_contact_record(out, contacts);
  for (const GrainRecord& r : grains_.owned) {
    out.put(r.gid);
    put_body_record(out, local_.bodies, local_of_[r.gid]);
    put_sleep_state(out, local_.sleep_state(local_of_[r.gid]));
  }
  std::vector<Message> outgoing;
  outgoing.push_back({0, out.take()});
  const std::vector<Message> received = t_.exchange(std::move(outgoing));
  if (t_.rank() != 0) return;
  std::string record;
  contacts.clear();
  for (const Message& m : received) {
    ByteReader in(m.bytes);
    in.get(record);
    read_contact_record(record, contacts);
    while (!in.done()) {
      const auto gid = in.get<std::int64_t>();
      in.get(record);
      read_body_record(record, full.bodies, static_cast<int>(gid));
      full.set_sleep_state(static_cast<int>(gid), read_sleep_state(in));
    }
  }
  full.bodies.update_world_inertia();
  full.set_run_state(local_.run_state());
  // The serial warm start: every rank's contacts, put back in the serial order by their key.
  if (warm_start) {
    const double h = local_.warm_start_substep();
    full.restore_warm_start(std::move(contacts), h > 0.0 ? h : local_.settings.dt);
  }
}

}  // namespace etdem::distributed
