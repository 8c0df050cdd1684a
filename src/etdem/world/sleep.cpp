// Sleeping islands (sleep_unit = island, as Box2D and Jolt do; docs/design.md "Sleep"; the
// regions are world/sleep_regions.cpp). An island whose
// every body's fastest surface point stayed below settings.sleep_velocity for settings.sleep_time
// falls asleep at the end of a step: its velocities are set to zero (the kinetic energy they
// held, at most half m v_sleep^2 per body, is booked as damping) and its bodies carry
// kBodyAsleep. A sleeping body keeps its place in the broad and narrow phases, so a moving body
// that comes near joins its island as a candidate contact before it can touch it; such an
// island wakes whole in that step, before the solve, with the gravity kick its sleepers missed.
// An island with no moving body is not solved: its contacts keep the impulses the warm start
// gave them, so the pile is warm-started from its last solve when it wakes. Decisions are taken
// per island in island order: the same on any number of threads.
#include <algorithm>

#include "etdem/core/exact_sum.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

void World::wake_or_skip(const StepContacts& sc, Islands& islands) {
  // (The kept contacts were emptied by wake_regions, the step's first call of sleep.)
  if (!(settings.sleep_velocity > 0.0) || settings.sleep_unit != SleepUnit::kIsland) return;
  const int ni = islands.count();
  const Vec3 dv = h_ * settings.gravity;
  ExactSum kick;  // the same bits in any island order (a split run wakes islands on their hosts)
  bool skipped = false;
  std::vector<char>& keep = sleep_keep_;
  keep.assign(ni, 1);
  for (int k = 0; k < ni; ++k) {
    bool sleeper = false, moving = false;
    for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s)
      (bodies.is_asleep(islands.body_order[s]) ? sleeper : moving) = true;
    if (!sleeper) continue;
    if (moving) {  // a moving body joined: the island wakes whole, kicked as the others were
      for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s) {
        const int i = islands.body_order[s];
        if (!bodies.is_asleep(i)) continue;
        wake_body(i);
        kick += kick_energy(bodies.mass[i], bodies.velocity[i], dv);
        bodies.velocity[i] += dv;
      }
      ++last_.woken;
      continue;
    }
    keep[k] = 0;
    skipped = true;
    ++last_.asleep_steps;
    for (int s = islands.contact_start[k]; s < islands.contact_start[k + 1]; ++s) {
      const int c = islands.contact_order[s];
      sleeping_contacts_.push_back(c);
      sleeping_impulses_.push_back({sc.contacts[c].normal_impulse, sc.contacts[c].tangent_impulse,
                                    sc.contacts[c].rolling_impulse});
    }
  }
  sums_.wake_kick.add(kick);  // booked as gravity's kick is
  if (!skipped) return;
  // The islands that stay asleep leave the list; the others keep their order.
  Islands& out = awake_scratch_;
  out.contact_start.assign(1, 0);
  out.body_start.assign(1, 0);
  out.contact_order.clear();
  out.body_order.clear();
  for (int k = 0; k < ni; ++k) {
    if (!keep[k]) continue;
    out.contact_order.insert(out.contact_order.end(),
                             islands.contact_order.begin() + islands.contact_start[k],
                             islands.contact_order.begin() + islands.contact_start[k + 1]);
    out.body_order.insert(out.body_order.end(), islands.body_order.begin() + islands.body_start[k],
                          islands.body_order.begin() + islands.body_start[k + 1]);
    out.contact_start.push_back(static_cast<int>(out.contact_order.size()));
    out.body_start.push_back(static_cast<int>(out.body_order.size()));
  }
  std::swap(islands, out);
}

void World::keep_sleeping_impulses(std::vector<Contact>& contacts) const {
  for (std::size_t s = 0; s < sleeping_contacts_.size(); ++s) {
    Contact& c = contacts[sleeping_contacts_[s]];
    c.normal_impulse = sleeping_impulses_[s].normal;
    c.tangent_impulse = sleeping_impulses_[s].tangent;
    c.rolling_impulse = sleeping_impulses_[s].rolling;
  }
}

double World::sleep_speed(int i) const {
  // A ball (a sphere) spinning in place moves nothing: only its centre counts (a spin about the
  // contact normal meets no friction and would keep a pile of spheres awake for ever). Other
  // shapes count their fastest surface point (the rule is the shape's record, ShapeKind).
  if (shapes.is_ball(bodies.shape[i])) return bodies.velocity[i].norm();
  return speed_bound(i);
}

void World::update_sleep(const Islands& islands, const std::vector<Contact>& contacts) {
  if (!(settings.sleep_velocity > 0.0)) return;
  if (settings.sleep_unit == SleepUnit::kRegion) {
    update_region_sleep(contacts, islands);
    return;
  }
  update_rest_times();
  ExactSum energy;  // the same bits in any order of the islands
  for (int k = 0; k < islands.count(); ++k) {
    const auto first = islands.body_order.begin() + islands.body_start[k];
    const auto last = islands.body_order.begin() + islands.body_start[k + 1];
    // The nets' nodes never sleep (their links pull on them); nor does an island holding one.
    const bool ready = std::all_of(first, last, [&](int i) {
      return rest_time_[i] >= settings.sleep_time && !is_net_node(i);
    });
    if (!ready) continue;
    for (auto it = first; it != last; ++it) energy += put_to_sleep(*it);
    ++last_.fell_asleep;
  }
  sums_.sleep_energy.add(energy);
}

bool World::reuse_sleeping(int a, int b, std::vector<Contact>& out) const {
  // Two bodies that do not move (asleep or static) now and at the narrow phase that found
  // previous_ have the same poses and the same margin (their speeds are zero), so the narrow
  // phase would find the same points again: they are copied from previous_ instead (impulses
  // cleared, as a fresh contact's; the warm start then gives them back). A cache: the result is
  // the same bit for bit with or without it (tests/world/test_sleep.cpp).
  if (!reuse_sleeping_contacts || asleep_at_previous_.empty()) return false;
  for (const int i : {a, b})
    if (bodies.is_dynamic(i) && (!bodies.is_asleep(i) || !asleep_at_previous_[i])) return false;
  const std::uint64_t key = pair_key(a, b);
  auto it = std::lower_bound(previous_order_.begin(), previous_order_.end(), key,
                             [&](int x, std::uint64_t k) { return previous_key_[x] < k; });
  if (it == previous_order_.end() || previous_key_[*it] != key) return true;  // none then
  // A pair's points lie together in previous_, in the order the narrow phase gave them.
  int first = *it;
  for (auto p = it; p != previous_order_.end() && previous_key_[*p] == key; ++p)
    first = std::min(first, *p);
  for (auto k = static_cast<std::size_t>(first);
       k < previous_.size() && previous_[k].a == a && previous_[k].b == b; ++k) {
    Contact c = previous_[k];
    c.normal_impulse = 0.0;
    c.tangent_impulse = Vec3::Zero();
    c.rolling_impulse = Vec3::Zero();
    out.push_back(c);
  }
  return true;
}

void World::update_rest_times() {
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_awake(i) || !counted(i)) continue;
    rest_time_[i] = sleep_speed(i) < settings.sleep_velocity ? rest_time_[i] + h_ : 0.0;
  }
}

void World::wake_body(int i) {
  bodies.flags[i] &= static_cast<std::uint8_t>(~kBodyAsleep);
  rest_time_[i] = 0.0;
}

double World::put_to_sleep(int i) {
  const double energy = bodies.kinetic_energy(i);
  bodies.velocity[i] = Vec3::Zero();
  bodies.angular_velocity[i] = Vec3::Zero();
  bodies.flags[i] |= kBodyAsleep;
  return energy;
}

void World::wake_all() {
  for (int i = 0; i < bodies.count(); ++i)
    bodies.flags[i] &= static_cast<std::uint8_t>(~kBodyAsleep);
  rest_time_.assign(bodies.count(), 0.0);
  sleep_force_.assign(bodies.count(), Vec3::Zero());
  sleep_torque_.assign(bodies.count(), Vec3::Zero());
}

}  // namespace etdem
