// Sleeping regions (WorldSettings::sleep_unit = region; docs/design.md "Sleep"). A region is
// the set of dynamic bodies whose centres lie in one cube of edge sleep_region_ (the resting
// pass's block edge, four largest bounding radii) on a grid anchored at the origin: it depends
// on the positions only, never on the thread or rank count.
//
// - A region all of whose awake bodies stayed slower than sleep_velocity for sleep_time falls
//   asleep at the end of a step: velocities set to zero (booked as damping), and each body keeps
//   the resting contacts' force and torque on it of that step as its reference load.
// - A sleeping body is held: it leaves the islands (a moving body's contact with it is one with
//   a support, as with a wall), gets no kick, no projection and no motion. Contacts between held
//   bodies or a held body and a wall are not solved; they keep their impulses.
// - A region wakes whole (1) before the solve, when a moving body's contact closes on one of its
//   bodies, beyond the gravity kick of the step, faster than sleep_velocity or with more
//   momentum than sleep_wake_load times the body's weight over the step, with the kick its
//   bodies missed; (2) after the solve, when the resting contacts' force on one of its bodies
//   differs from its reference by more than sleep_wake_load times its weight, or the torque by
//   as much at its bounding radius (a load added, a support taken away); (3) on an event.
//   A woken region does not wake its neighbours: they wake by the same rules when its bodies
//   move into them or stop holding them.
//
// Every decision is taken in body and contact order on one thread: the same bits on any number
// of threads. On the ranks of a split run every decision is the serial one: the regions listed
// to wake are joined over the ranks that may hold a grain of them, a region falls asleep when
// every rank's awake grains in it are ready (Domain::agree_regions), a held grain's load is
// summed on its owner in the serial contact order (Domain::contact_loads), and whether any
// grain is held or any region loaded is asked of every rank (Domain::any).
#include <algorithm>
#include <bit>

#include "etdem/core/exact_sum.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

namespace {

/// One coordinate of a region on the grid of edge `cell`, clamped to 21 bits either side of 0
/// (a body a million regions away shares the last region with those beyond it).
std::int64_t region_coordinate(double x, double cell) {
  const double q = std::floor(x / cell);
  constexpr double kLimit = (1 << 20) - 1;
  return static_cast<std::int64_t>(std::clamp(q, -kLimit, kLimit)) + (1 << 20);
}

}  // namespace

std::optional<Vec3> World::region_centre(std::int64_t key) const {
  constexpr std::int64_t kMask = (std::int64_t{1} << 21) - 1;
  constexpr std::int64_t kLimit = (1 << 20) - 1;
  Vec3 centre;
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t q = ((key >> (21 * axis)) & kMask) - (1 << 20);
    if (q <= -kLimit || q >= kLimit) return std::nullopt;
    centre[axis] = (static_cast<double>(q) + 0.5) * sleep_region_;
  }
  return centre;
}

std::int64_t World::region_of(int i) const {
  const Vec3& x = bodies.position[i];
  return region_coordinate(x[0], sleep_region_) | (region_coordinate(x[1], sleep_region_) << 21) |
         (region_coordinate(x[2], sleep_region_) << 42);
}

bool World::sleeps_by_regions() const {
  return settings.sleep_velocity > 0.0 && settings.sleep_unit == SleepUnit::kRegion;
}

void RegionTable::reset(std::size_t expected) {
  const std::size_t size = std::bit_ceil(std::max<std::size_t>(16, 2 * expected));
  if (keys_.size() != size) {
    keys_.assign(size, 0);
    values_.assign(size, 0);
    used_.assign(size, 0);
  } else {
    std::fill(used_.begin(), used_.end(), 0);
  }
}

std::size_t RegionTable::slot(std::int64_t key) const {
  // Fibonacci hashing of the key; linear probing (the table is at most half full).
  return static_cast<std::size_t>(static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull >>
                                  (64 - std::countr_zero(keys_.size())));
}

const std::uint8_t* RegionTable::find(std::int64_t key) const {
  const std::size_t mask = keys_.size() - 1;
  std::size_t s = slot(key);
  for (std::size_t probe = 0; probe <= mask && used_[s]; ++probe, s = (s + 1) & mask)
    if (keys_[s] == key) return &values_[s];
  return nullptr;
}

std::uint8_t& RegionTable::at(std::int64_t key, std::uint8_t initial) {
  const std::size_t mask = keys_.size() - 1;
  std::size_t s = slot(key);
  for (std::size_t probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
    if (!used_[s]) {
      used_[s] = 1;
      keys_[s] = key;
      values_[s] = initial;
      return values_[s];
    }
    if (keys_[s] == key) return values_[s];
  }
  throw std::logic_error("region table full");  // reset() sizes it to twice the bodies
}

void World::wake_regions(const StepBodies& sb, StepContacts& sc) {
  sleeping_contacts_.clear();  // the contacts kept this step, by regions or islands
  sleeping_impulses_.clear();
  holding_ = false;
  if (!sleeps_by_regions()) return;
  bool any_asleep = false;
  for (int i : sb.dynamic_ids) any_asleep = any_asleep || bodies.is_asleep(i);
  if (!(domain_ ? domain_->any_asleep(any_asleep) : any_asleep)) return;
  // (1) A moving body closing on a sleeper, beyond the step's kick, faster than sleep_velocity
  //     or with more momentum than sleep_wake_load times the sleeper's weight over the step
  //     (the impulse a support would need to stop it).
  const double kick_speed = h_ * settings.gravity.norm();
  regions_to_wake_.clear();
  for (const Contact& c : sc.contacts) {
    const bool sa = sb.dynamic[c.a] && bodies.is_asleep(c.a);
    const bool sb_ = sb.dynamic[c.b] && bodies.is_asleep(c.b);
    if (sa == sb_) continue;  // both held, or neither
    const int sleeper = sa ? c.a : c.b, other = sa ? c.b : c.a;
    if (!sb.dynamic[other]) continue;  // a sleeper against a wall
    const double beyond = -c.normal.dot(contact_velocity(c, sb.dynamic)) - kick_speed;
    if (!(beyond > 0.0)) continue;
    if (beyond > settings.sleep_velocity ||
        bodies.mass[other] * beyond > settings.sleep_wake_load * bodies.mass[sleeper] * kick_speed)
      regions_to_wake_.push_back(region_of(sleeper));
  }
  wake_listed_regions(true);
  all_candidates_ = sc.candidates;
  last_.asleep_steps += hold_sleepers(sb, sc);
}

long World::hold_sleepers(const StepBodies& sb, StepContacts& sc) {
  // The sleepers are held: out of the islands, and their contacts with each other and with
  // walls out of the solve (they keep their impulses, World::keep_sleeping_impulses).
  sleeping_contacts_.clear();
  sleeping_impulses_.clear();
  moving_.assign(bodies.count(), 0);
  long held = 0;  // counted here (a split run's ghosts are held by their owners too)
  for (int i = 0; i < bodies.count(); ++i) {
    if (!sb.dynamic[i]) continue;
    moving_[i] = !bodies.is_asleep(i);
    held += !moving_[i] && counted(i) ? 1 : 0;
  }
  holding_ = on_any_rank(held > 0);
  sc.candidates.clear();
  for (const int ci : all_candidates_) {
    const Contact& c = sc.contacts[ci];
    if (!holding_ || moving_[c.a] || moving_[c.b]) {
      sc.candidates.push_back(ci);
      continue;
    }
    sleeping_contacts_.push_back(ci);
    sleeping_impulses_.push_back({c.normal_impulse, c.tangent_impulse, c.rolling_impulse});
  }
  return held;
}

void World::contact_loads(const std::vector<Contact>& contacts, const std::vector<char>& wanted) {
  if (domain_)
    domain_->contact_loads(*this, contacts, wanted, load_force_, load_torque_);
  else
    add_contact_loads(contacts, wanted);
  const double per_step = 1.0 / h_;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!wanted[i]) continue;
    load_force_[i] *= per_step;
    load_torque_[i] *= per_step;
  }
}

void World::add_contact_loads(const std::vector<Contact>& contacts,
                              const std::vector<char>& wanted) {
  // The resting contacts' force and torque impulses on the dynamic bodies flagged in `wanted`
  // [N s], [N m s], in the contact order; zero elsewhere. (Most steps flag none: a region that
  // falls asleep, or the held bodies of the steps some region sleeps in.)
  const int n = bodies.count();
  load_force_.assign(n, Vec3::Zero());
  load_torque_.assign(n, Vec3::Zero());
  if (std::find(wanted.begin(), wanted.begin() + n, char{1}) == wanted.begin() + n) return;
  for (const Contact& c : contacts) {
    const bool to_a = wanted[c.a] && bodies.is_dynamic(c.a);
    const bool to_b = wanted[c.b] && bodies.is_dynamic(c.b);
    if (!to_a && !to_b) continue;
    const Vec3 p = c.normal_impulse * c.normal + c.tangent_impulse;
    if (to_a) {
      load_force_[c.a] += p;
      load_torque_[c.a] += c.ra.cross(p) + c.rolling_impulse;
    }
    if (to_b) {
      load_force_[c.b] -= p;
      load_torque_[c.b] -= c.rb.cross(p) + c.rolling_impulse;
    }
  }
}

void World::agree_regions(std::vector<RegionVote>& votes) {
  if (domain_) domain_->agree_regions(*this, votes);  // a serial world's votes are the verdict
}

bool World::find_loaded_regions(const std::vector<Contact>& contacts) {
  // (2) The regions of held bodies whose load changed (into regions_to_wake_).
  std::vector<char>& wanted = sleep_blocked_;  // scratch: the held bodies
  wanted.assign(bodies.count(), 0);
  for (int i = 0; i < bodies.count(); ++i) wanted[i] = bodies.is_dynamic(i) && bodies.is_asleep(i);
  contact_loads(contacts, wanted);
  const double g = settings.gravity.norm() > 0.0 ? settings.gravity.norm()
                                                 : settings.sleep_velocity / settings.sleep_time;
  regions_to_wake_.clear();
  for (int i = 0; i < bodies.count(); ++i) {
    if (!wanted[i] || !counted(i)) continue;
    const double allowed = settings.sleep_wake_load * bodies.mass[i] * g;
    const double lever = shapes.bounding_radius[bodies.shape[i]];
    if ((load_force_[i] - sleep_force_[i]).norm() > allowed ||
        (load_torque_[i] - sleep_torque_[i]).norm() > allowed * lever)
      regions_to_wake_.push_back(region_of(i));
  }
  return on_any_rank(!regions_to_wake_.empty());
}

void World::wake_listed_regions(bool kick_them) {
  std::sort(regions_to_wake_.begin(), regions_to_wake_.end());
  regions_to_wake_.erase(std::unique(regions_to_wake_.begin(), regions_to_wake_.end()),
                         regions_to_wake_.end());
  // Joined with the regions the other ranks listed where a grain held here may lie.
  std::vector<RegionVote>& votes = region_votes_;
  votes.clear();
  for (const std::int64_t key : regions_to_wake_) votes.push_back({key, true, true});
  agree_regions(votes);
  if (votes.empty()) return;
  regions_to_wake_.clear();
  for (const RegionVote& v : votes) {
    regions_to_wake_.push_back(v.key);
    last_.woken += v.counted ? 1 : 0;
  }
  const Vec3 dv = h_ * settings.gravity;
  ExactSum kick;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_dynamic(i) || !bodies.is_asleep(i) ||
        !std::binary_search(regions_to_wake_.begin(), regions_to_wake_.end(), region_of(i)))
      continue;
    wake_body(i);  // a ghost too: it takes part in this step's islands as its owner's grain
    if (!kick_them) continue;
    if (counted(i)) kick += kick_energy(bodies.mass[i], bodies.velocity[i], dv);
    bodies.velocity[i] += dv;  // as the others were
  }
  sums_.wake_kick.add(kick);  // booked as gravity's kick is
}

void World::save_solve_start() {
  solve_start_.velocity = bodies.velocity;
  solve_start_.angular_velocity = bodies.angular_velocity;
  solve_start_.sums = sums_;
  if (!nets.empty()) solve_start_.nets = nets;
  solve_start_stats_ = last_;
}

void World::restore_solve_start() {
  // What the solve changed: velocities, the sub-step's sums (the nets' bookings among them) and
  // the statistics (the regions woken since are woken after this, by wake_listed_regions).
  bodies.velocity = solve_start_.velocity;
  bodies.angular_velocity = solve_start_.angular_velocity;
  sums_ = solve_start_.sums;
  if (!nets.empty()) nets = solve_start_.nets;
  last_ = solve_start_stats_;
}

void World::solve_islands_here(SubstepLists lists) {
  if (domain_)
    domain_->solve_islands(*this, lists);
  else
    resolve_islands(lists.bodies, islands_, lists.contacts.contacts, lists.motion);
}

void World::solve_holding(SubstepLists lists) {
  const StepBodies& sb = lists.bodies;
  StepContacts& sc = lists.contacts;
  // A held region is a support as rigid as a wall. Where the solve asked it for a force it did
  // not carry when it fell asleep (an impact passed on through woken grains, a push, a support
  // gone), it wakes and the solve is taken again from the same start, so the woken grains take
  // part in it: a heavy ball rolled into a held bed pushes it on rather than stopping dead.
  for (int round = 0;; ++round) {
    save_solve_start();
    solve_islands_here(lists);
    keep_sleeping_impulses(sc.contacts);
    if (!find_loaded_regions(sc.contacts)) return;
    if (round == settings.sleep_wake_rounds) {  // awake from the next step on (kicked by it)
      last_.sleep_wake_bound_reached += !domain_ || domain_->lead() ? 1 : 0;
      wake_listed_regions(false);
      return;
    }
    restore_solve_start();
    wake_listed_regions(true);
    for (Contact& c : sc.contacts) {  // the impulses the solve started from
      c.normal_impulse = 0.0;
      c.tangent_impulse = Vec3::Zero();
      c.rolling_impulse = Vec3::Zero();
    }
    warm_start(sc.contacts);
    hold_sleepers(sb, sc);
    if (!domain_) build_islands(sb, sc, islands_);  // a domain labels them in its solve
  }
}

void World::update_region_sleep(const std::vector<Contact>& contacts, const Islands& islands) {
  update_rest_times();
  bool any_ready = false;  // an awake body ready to sleep
  for (int i = 0; i < bodies.count(); ++i)
    any_ready =
        any_ready || (bodies.is_awake(i) && counted(i) && rest_time_[i] >= settings.sleep_time);
  if (!on_any_rank(any_ready)) return;
  // Falling asleep: a region sleeps when every awake body in it is ready. The nets' nodes never
  // sleep (their links pull on them), nor does an island holding one.
  const int n = bodies.count();
  std::vector<char>& blocked = sleep_blocked_;
  blocked.assign(n, 0);
  if (domain_) {
    if (domain_->has_nets()) domain_->block_net_islands(*this, blocked);
  } else if (!nets.empty()) {
    for (int k = 0; k < islands.count(); ++k) {
      const auto first = islands.body_order.begin() + islands.body_start[k];
      const auto last = islands.body_order.begin() + islands.body_start[k + 1];
      if (std::any_of(first, last, [&](int i) { return is_net_node(i); }))
        for (auto it = first; it != last; ++it) blocked[*it] = 1;
    }
    for (int i = 0; i < n; ++i) blocked[i] = blocked[i] || is_net_node(i);
  }
  enum : std::uint8_t { kNotReady = 0, kReady = 1 };
  region_table_.reset(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (!bodies.is_awake(i) || !counted(i)) continue;
    std::uint8_t& state = region_table_.at(region_of(i), kReady);
    if (rest_time_[i] < settings.sleep_time || blocked[i]) state = kNotReady;
  }
  // The regions' verdicts, over the ranks whose grains may lie in them.
  std::vector<RegionVote>& votes = region_votes_;
  votes.clear();
  region_table_.for_each([&](std::int64_t key, std::uint8_t state) {
    votes.push_back({key, state == kReady, true});
  });
  std::sort(votes.begin(), votes.end(),
            [](const RegionVote& x, const RegionVote& y) { return x.key < y.key; });
  agree_regions(votes);
  region_table_.reset(votes.size());
  for (const RegionVote& v : votes) {
    if (!v.yes) continue;
    region_table_.at(v.key, kReady);
    last_.fell_asleep += v.counted ? 1 : 0;
  }
  // The bodies that fall asleep keep the load they rest under (its sums need their contacts on
  // every rank: ghosts are flagged as their owners).
  std::vector<char>& falling = blocked;  // reused: the blocked bodies are in no ready region
  for (int i = 0; i < n; ++i)
    falling[i] = bodies.is_dynamic(i) && bodies.is_awake(i) && region_table_.find(region_of(i));
  contact_loads(contacts, falling);
  ExactSum energy;  // the same bits in any order
  for (int i = 0; i < n; ++i) {
    if (!falling[i] || !counted(i)) continue;
    sleep_force_[i] = load_force_[i];
    sleep_torque_[i] = load_torque_[i];
    energy += put_to_sleep(i);
  }
  sums_.sleep_energy.add(energy);
}

}  // namespace etdem
