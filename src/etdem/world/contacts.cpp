// The step's contact phases (World::advance steps 2-4): candidate pairs from swept boxes (kept
// while the bodies stay in their reach), contact points from the narrow phase, last step's
// impulses onto the same contacts (warm start), and the contact islands.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <parallel/algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/near_node_list.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/core/sort_runs.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// Contacts per chunk of the warm start's matching (each chunk starts with a binary search).
constexpr std::size_t kWarmStartChunk = 1024;

/// Relative to the smaller bounding radius: the reach added to every contact margin so that
/// bodies exactly touching at rest are reported (see find_contacts).
constexpr double kTouch = 1e-9;

/// Candidate pairs per moving body beyond which a step is refused (check_pair_count). A sphere
/// in a dense pile has 12 neighbours, a cross about 30 within the contact skin.
constexpr std::size_t kMaxPairsPerBody = 200;

/// Kept pairs (World::reach_box): steps of free flight a reach box holds, and its padding
/// relative to the bounding radius (docs/design.md "Kept candidate pairs"; chosen on the pour,
/// docs/notes/broad-phase.md "Kept candidate pairs").
constexpr double kReachSteps = 8.0;
constexpr double kReachSkin = 0.2;

}  // namespace

Vec3 World::point_velocity(int a, int b, const Vec3& ra, const Vec3& rb,
                           const std::vector<char>& dynamic) const {
  Vec3 u = Vec3::Zero();
  if (dynamic[a]) u += bodies.velocity[a] + bodies.angular_velocity[a].cross(ra);
  if (dynamic[b]) u -= bodies.velocity[b] + bodies.angular_velocity[b].cross(rb);
  return u;
}

Vec3 World::contact_velocity(const Contact& c, const std::vector<char>& dynamic) const {
  return point_velocity(c.a, c.b, c.ra, c.rb, dynamic);
}

double World::spin_bound(int i) const {
  if (!bodies.is_dynamic(i)) return 0.0;
  return bodies.angular_velocity[i].norm() * shapes.bounding_radius[bodies.shape[i]];
}

double World::speed_bound(int i) const {
  return bodies.is_dynamic(i) ? bodies.velocity[i].norm() + spin_bound(i) : 0.0;
}

double World::closing_speed_bound(const std::vector<char>& dynamic, int a, int b, double spin_a,
                                  double spin_b) const {
  // Two surface points of a and b close at most at |v_a - v_b| + |w_a| R_a + |w_b| R_b: the
  // motion the two share (grains falling or flowing together, and the step's gravity kick)
  // brings neither nearer the other.
  auto velocity = [&](int i) -> Vec3 {
    return dynamic[i] ? Vec3(bodies.velocity[i]) : Vec3::Zero();
  };
  return (velocity(a) - velocity(b)).norm() + spin_a + spin_b;
}

double World::closing_speed_bound(const StepBodies& sb, int a, int b) const {
  return closing_speed_bound(sb.dynamic, a, b, sb.spin[a], sb.spin[b]);
}

double World::contact_skin() const {
  return resting_ ? settings.contact_skin : 0.0;
}

double World::swept_radius(int i, double speed) const {
  return (1.0 + contact_skin()) * shapes.bounding_radius[bodies.shape[i]] + speed * h_;
}

double World::pair_margin(int a, int b, double closing) const {
  // Touching pairs (gap exactly 0, at rest) are reported too: kTouch keeps the narrow phase's
  // strict `gap < margin` from dropping them when nothing moves.
  return closing * h_ +
         (contact_skin() + kTouch) * std::min(shapes.bounding_radius[bodies.shape[a]],
                                              shapes.bounding_radius[bodies.shape[b]]);
}

double World::plane_margin(int a, double speed) const {
  return speed * h_ + (contact_skin() + kTouch) * shapes.bounding_radius[bodies.shape[a]];
}

void World::find_pairs(StepBodies& out) {
  boxes_.clear();
  box_ids_.clear();
  out.unbounded.clear();
  out.dynamic_ids.clear();
  out.dynamic.assign(bodies.count(), 0);
  out.speed.assign(bodies.count(), 0.0);
  out.spin.assign(bodies.count(), 0.0);
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_active(i)) continue;
    out.dynamic[i] = bodies.is_dynamic(i);
    out.spin[i] = spin_bound(i);
    out.speed[i] = out.dynamic[i] ? bodies.velocity[i].norm() + out.spin[i] : 0.0;
    // (A grain's tests against the planes and terrains are made by its owner, which carries
    // their warm start: on a rank of a split run, the dynamic bodies listed are its own.)
    if (out.dynamic[i] && counted(i)) out.dynamic_ids.push_back(i);
    if (shapes.tested_apart(bodies.shape[i])) {  // planes and terrains: tested apart
      out.unbounded.push_back(i);
      continue;
    }
    // Box swept by the motion of the step: radius plus the distance any surface point can move.
    const double r = swept_radius(i, out.speed[i]);
    const Vec3 c = bodies.position[i];
    boxes_.push_back({c.array() - r, c.array() + r});
    box_ids_.push_back(i);
  }
  // The kept pairs give exactly the grid's pairs while every box stays in its reach
  // (collision/pair_list.hpp). Boxes that left it grow new reach boxes and find their pairs
  // again through the last build's grid (PairList::update: the same pairs as a rebuild); another
  // set of bodies keeps the pairs of the bodies in both (PairList::adopt; the new ones are
  // outside their reach); an update the grid cannot answer grows every reach box and rebuilds.
  bool covered = false;
  if (pair_list_.adopt(box_ids_)) {
    const std::vector<int>& moved = pair_list_.outside(boxes_);
    covered = moved.empty();
    if (!covered) {
      reach_.resize(moved.size());
      for (std::size_t m = 0; m < moved.size(); ++m)
        reach_[m] = reach_box(box_ids_[moved[m]], boxes_[moved[m]]);
      covered = pair_list_.update(broad_, moved, reach_);
    }
  }
  if (!covered) {
    reach_.resize(boxes_.size());
    for (std::size_t k = 0; k < boxes_.size(); ++k) reach_[k] = reach_box(box_ids_[k], boxes_[k]);
    pair_list_.rebuild(broad_, reach_, box_ids_);
  }
  // Each pair is detected once, by the rank that owns its first grain and carries its warm
  // start: on a rank of a split run only those pairs are kept.
  if (owned_) {
    // (first_grain's rule on slots, read from one byte per slot, whether its body is dynamic
    // and counted here, instead of the bodies' flags and the owners.)
    pair_first_.resize(box_ids_.size());
    for (std::size_t k = 0; k < box_ids_.size(); ++k) {
      const int i = box_ids_[k];
      pair_first_[k] = static_cast<char>((bodies.is_dynamic(i) ? 1 : 0) | (counted(i) ? 2 : 0));
    }
    pair_list_.select(boxes_, out.pairs, [&](int i, int j) {
      const int first = first_grain(i, j, [&](int k) { return (pair_first_[k] & 1) != 0; });
      return (pair_first_[first] & 2) != 0;
    });
  } else {
    pair_list_.select(boxes_, out.pairs);
  }
}

Aabb World::reach_box(int i, const Aabb& box) const {
  // A static body's box does not change. A dynamic body's reach holds its box now and its box
  // after kReachSteps steps of free flight (so a falling grain keeps its list until it lands),
  // the flight capped at one bounding radius, plus kReachSkin of its radius all round (a grain
  // in a pile jiggles). Only the cost depends on these numbers, never a result.
  if (!bodies.is_dynamic(i)) return box;
  const double dt = h_, t = kReachSteps * dt;
  const double radius = shapes.bounding_radius[bodies.shape[i]];
  const Vec3& v = bodies.velocity[i];
  Vec3 move = t * v + 0.5 * t * t * settings.gravity;
  if (move.norm() > radius) move *= radius / move.norm();
  const double half = 0.5 * (box.max - box.min).maxCoeff();
  const double grow = (v + t * settings.gravity).norm() * dt - v.norm() * dt;  // faster later
  const double pad = kReachSkin * radius + std::max(0.0, grow);
  const Vec3 centre = 0.5 * (box.min + box.max) + move;
  const Vec3 lo = centre - Vec3::Constant(half), hi = centre + Vec3::Constant(half);
  return {box.min.cwiseMin(lo) - Vec3::Constant(pad), box.max.cwiseMax(hi) + Vec3::Constant(pad)};
}

void World::check_pair_count(const StepBodies& sb) const {
  // Bodies moving farther than the scene per step (gravity of 1e12 m/s^2, a velocity typed in
  // the wrong unit) sweep boxes over everything: every pair becomes a candidate and the step
  // costs O(N^2) in the narrow phase and the solvers (2 million contacts for 2000 spheres).
  // Such a run has no meaning; it is stopped with the fastest body named instead of crawling.
  const std::size_t bound = kMaxPairsPerBody * sb.dynamic_ids.size() + 100'000;
  if (sb.pairs.size() <= bound) return;
  int fastest = -1;
  for (int i : sb.dynamic_ids)
    if (fastest < 0 || sb.speed[i] > sb.speed[fastest]) fastest = i;
  const double speed = fastest >= 0 ? sb.speed[fastest] : 0.0;
  throw std::runtime_error(fmt::format(
      "step {} (t = {:.6g} s): {} candidate pairs for {} moving bodies (more than {} per body): "
      "bodies move farther than their neighbours per step; the fastest, body {} ('{}'), moves "
      "{:.3g} m in one step of {:.3g} s at {:.3g} m/s",
      steps_, time_, sb.pairs.size(), sb.dynamic_ids.size(), kMaxPairsPerBody, fastest,
      fastest >= 0 ? bodies.name[fastest] : "", speed * h_, h_, speed));
}

void World::match_node_lists(const std::vector<std::pair<int, int>>& pairs) {
  const int np = static_cast<int>(pairs.size());
  node_list_slot_.assign(static_cast<std::size_t>(np), -1);
  node_list_keys_next_.clear();
  node_list_from_.clear();
  if (!shapes.any_node_lists()) return;
  // Both key lists ascend (the broad phase sorts its pairs): one merge finds the continued lists.
  // Pairs out of order would only lose the lists (all built again), never give wrong ones.
  bool ascending = true;
  std::size_t j = 0;
  for (int k = 0; k < np; ++k) {
    const auto [a, b] = pairs[k];
    if (!shapes.keeps_node_lists(bodies.shape[a]) || !shapes.keeps_node_lists(bodies.shape[b]))
      continue;
    const std::uint64_t key = pair_key(a, b);
    if (!node_list_keys_next_.empty() && key <= node_list_keys_next_.back()) ascending = false;
    node_list_slot_[k] = static_cast<int>(node_list_keys_next_.size());
    node_list_keys_next_.push_back(key);
    while (j < node_list_keys_.size() && node_list_keys_[j] < key) ++j;
    node_list_from_.push_back(
        j < node_list_keys_.size() && node_list_keys_[j] == key ? static_cast<int>(j) : -1);
  }
  if (!ascending) std::fill(node_list_from_.begin(), node_list_from_.end(), -1);
  node_lists_next_.resize(node_list_keys_next_.size());
}

void World::find_contacts(const StepBodies& sb, StepContacts& out) {
  const double dt = h_;
  const int threads = omp_get_max_threads();
  per_thread_contacts_.resize(threads);
  const int np = static_cast<int>(sb.pairs.size());
  const int nd = static_cast<int>(sb.dynamic_ids.size());
  const int nplanes = static_cast<int>(sb.unbounded.size());
  auto emit = [&](int a, int b, const Manifold& m, std::vector<Contact>& list) {
    if (m.count == 0) return;
    // The pair's material values once per manifold, not per point.
    const Material& ma = materials[bodies.material[a]];
    const Material& mb = materials[bodies.material[b]];
    const double restitution = pair_restitution(ma, mb), friction = pair_friction(ma, mb),
                 stiffness = pair_stiffness(ma, mb), rolling = pair_rolling_friction(ma, mb);
    for (int k = 0; k < m.count; ++k) {
      Contact c;
      c.a = a;
      c.b = b;
      c.point = m.point[k];
      c.normal = m.normal_at(k);
      c.gap = m.gap[k];
      c.ra = c.point - bodies.position[a];
      c.rb = c.point - bodies.position[b];
      c.restitution = restitution;
      c.friction = friction;
      c.stiffness = stiffness;
      if (rolling > 0.0) c.rolling = rolling * rolling_radius(c);
      list.push_back(c);
    }
  };
  // Thread 0 writes straight into the step's list, the others into their own, appended after
  // it in thread order: the pairs' order (static schedule), without a copy of thread 0's share.
  std::vector<Contact>& contacts = out.contacts;
  contacts.clear();
  auto list_of = [&](int thread) -> std::vector<Contact>& {
    return thread == 0 ? contacts : per_thread_contacts_[thread];
  };
  for (auto& v : per_thread_contacts_) v.clear();
  out.pair_margin.assign(static_cast<std::size_t>(np), -1.0);
  out.plane_margin.assign(static_cast<std::size_t>(nd) * static_cast<std::size_t>(nplanes), -1.0);
  match_node_lists(sb.pairs);
  per_thread_node_counts_.assign(threads, NearNodeCounts{});
  // Small scenes stay on one thread (see broad_phase.cpp).
#pragma omp parallel num_threads(threads) if (runs_parallel(sb.pairs.size(), kParallelPairs))
  {
    auto& list = list_of(omp_get_thread_num());
    NearNodeCounts& node_counts = per_thread_node_counts_[omp_get_thread_num()];
    Manifold m;
#pragma omp for schedule(static) nowait
    for (int k = 0; k < np; ++k) {
      const auto [a, b] = sb.pairs[k];
      // A pair of level-set grains carries its near-node lists on (swapped in, so that the
      // vectors keep their room), or starts them empty: every slot is set here before any use,
      // so whatever the swap leaves behind is never read.
      LevelSetPairLists* lists = nullptr;
      if (const int slot = node_list_slot_[k]; slot >= 0) {
        lists = &node_lists_next_[slot];
        if (const int from = node_list_from_[slot]; from >= 0)
          std::swap(*lists, node_lists_[from]);
        else
          lists->shape_a = lists->shape_b = -1;  // built again at its first test
      }
      if (!sb.dynamic[a] && !sb.dynamic[b]) continue;
      const std::size_t before = list.size();
      if (reuse_sleeping(a, b, list)) {
        // Copied from a narrow phase at rest: none copied, the pair was apart by its margin.
        if (list.size() == before) out.pair_margin[k] = pair_margin(a, b, 0.0);
        continue;
      }
      const double margin = pair_margin(a, b, closing_speed_bound(sb, a, b));
      const Pose pa(bodies.position[a], bodies.orientation[a]);
      const Pose pb(bodies.position[b], bodies.orientation[b]);
      if (lists) {
        const double skin = kNodeListSkin * std::min(shapes.bounding_radius[bodies.shape[a]],
                                                     shapes.bounding_radius[bodies.shape[b]]);
        collide_level_set_level_set_listed(shapes, bodies.shape[a], pa, bodies.shape[b], pb, margin,
                                           skin, *lists, node_counts, m);
      } else {
        collide(shapes, bodies.shape[a], pa, bodies.shape[b], pb, margin, m);
      }
      if (m.count == 0) out.pair_margin[k] = margin;
      emit(a, b, m, list);
    }
  }
  append_thread_contacts(contacts);
  node_lists_.swap(node_lists_next_);
  node_list_keys_.swap(node_list_keys_next_);
  for (const NearNodeCounts& c : per_thread_node_counts_) node_list_counts_.add(c);
  // Every dynamic body against every active plane and terrain (walls are few; infinite planes
  // and huge terrains stay out of the grid).
  for (auto& v : per_thread_contacts_) v.clear();
  const bool many_bodies = runs_parallel(sb.dynamic_ids.size(), kParallelPairs);
#pragma omp parallel num_threads(threads) if (many_bodies)
  {
    auto& list = list_of(omp_get_thread_num());
    Manifold m;
#pragma omp for schedule(static)
    for (int k = 0; k < nd; ++k) {
      const int a = sb.dynamic_ids[k];
      const Pose pa(bodies.position[a], bodies.orientation[a]);
      const double reach = swept_radius(a, sb.speed[a]);
      const double margin = plane_margin(a, sb.speed[a]);
      for (int pi = 0; pi < nplanes; ++pi) {
        const int b = sb.unbounded[pi];
        const std::size_t slot = static_cast<std::size_t>(k) * nplanes + pi;
        if (!shapes.may_reach(bodies.shape[b], bodies.position[b], bodies.orientation[b],
                              pa.position, reach)) {
          out.plane_margin[slot] = margin;  // apart by more than the margin
          continue;
        }
        const std::size_t before = list.size();
        if (reuse_sleeping(a, b, list)) {
          if (list.size() == before) out.plane_margin[slot] = plane_margin(a, 0.0);
          continue;
        }
        collide(shapes, bodies.shape[a], pa, bodies.shape[b],
                Pose(bodies.position[b], bodies.orientation[b]), margin, m);
        if (m.count == 0) out.plane_margin[slot] = margin;
        emit(a, b, m, list);
      }
    }
  }
  append_thread_contacts(contacts);

  // Who sleeps at this narrow phase: the next one may copy these contacts (reuse_sleeping).
  if (settings.sleep_velocity > 0.0) {
    asleep_at_narrow_.resize(bodies.count());
    for (int i = 0; i < bodies.count(); ++i) asleep_at_narrow_[i] = bodies.is_asleep(i);
  }

  // Collision candidates: contacts closed or closing within the step, g + u_n dt <= 0 (a chain
  // of exactly touching balls struck at one end is one multiple impact).
  // With the resting pass every reported contact joins the islands (speculative contacts); the
  // collision solver still only sees contacts that would close within the step.
  // (Each contact on its own, on every thread when many: a maximum and an ascending list.)
  out.candidates.clear();
  last_.contacts = static_cast<long>(contacts.size());
  double deepest = last_.max_penetration;
  const long nc = std::ssize(contacts);
  const bool many = runs_parallel(contacts.size());
#pragma omp parallel for schedule(static) reduction(max : deepest) if (many)
  for (long k = 0; k < nc; ++k)
    deepest = std::max(deepest, -contacts[static_cast<std::size_t>(k)].gap);
  last_.max_penetration = deepest;
  parallel_select(
      contacts.size(),
      [&](std::size_t k) {
        const Contact& c = contacts[k];
        return resting_ || c.gap + c.normal.dot(contact_velocity(c, sb.dynamic)) * dt <= 0.0;
      },
      out.candidates);
  last_.candidates = static_cast<long>(out.candidates.size());
}

void World::append_thread_contacts(std::vector<Contact>& contacts) const {
  // The lists of threads 1, 2, ... one after another (thread 0 wrote into `contacts`), copied
  // in pieces of kPiece contacts, the pieces on every thread when there are many (with two
  // threads there is one list to copy, and it is most of the step's contacts).
  constexpr std::size_t kPiece = 1024;
  const std::size_t lists = per_thread_contacts_.size();
  if (lists < 2) return;
  std::vector<std::size_t> at(lists + 1, contacts.size());
  std::vector<std::size_t> first_piece(lists + 1, 0);
  for (std::size_t t = 1; t < lists; ++t) {
    const std::size_t size = per_thread_contacts_[t].size();
    at[t + 1] = at[t] + size;
    first_piece[t + 1] = first_piece[t] + (size + kPiece - 1) / kPiece;
  }
  contacts.resize(at.back());
  parallel_for(
      first_piece.back(),
      [&](std::size_t piece) {
        const std::size_t t = static_cast<std::size_t>(
            std::upper_bound(first_piece.begin() + 1, first_piece.end(), piece) -
            first_piece.begin() - 1);
        const std::vector<Contact>& list = per_thread_contacts_[t];
        const std::size_t from = (piece - first_piece[t]) * kPiece;
        const std::size_t to = std::min(list.size(), from + kPiece);
        std::copy(list.begin() + static_cast<std::ptrdiff_t>(from),
                  list.begin() + static_cast<std::ptrdiff_t>(to),
                  contacts.begin() + static_cast<std::ptrdiff_t>(at[t] + from));
      },
      2);
}

double World::rolling_radius(const Contact& c) const {
  // Each body's rolling radius: a ball's radius (a sphere's); a wall's (a plane, a mesh, a
  // terrain or any fixed body but a ball) is infinite, as the flat a grain rolls on; any other
  // grain's is the distance from its centre to the contact point, the lever arm about which it
  // rolls there (docs/design.md "Rolling resistance"). R_eff = 1 / (1 / R_A + 1 / R_B).
  auto inverse = [&](int body, const Vec3& r) {
    const int s = bodies.shape[body];
    if (shapes.is_ball(s)) return 1.0 / shapes.ball_radius(s);
    if (!bodies.is_dynamic(body)) return 0.0;
    const double lever = r.norm();
    return lever > 0.0 ? 1.0 / lever : 0.0;
  };
  const double sum = inverse(c.a, c.ra) + inverse(c.b, c.rb);
  return sum > 0.0 ? 1.0 / sum : 0.0;
}

void World::warm_start(std::vector<Contact>& contacts) const {
  // A contact is the same as last step's when it joins the same two bodies and its point moved
  // less than a quarter of the smaller body's bounding radius (manifold points are not numbered
  // stably for boxes, so points are matched by position).
  if (previous_.empty() || !resting_) return;
  // Impulses scale with the step: a sub-step of h carries h / h' of an impulse found over h'
  // (exactly 1 while the step is not split).
  const double scale = previous_h_ > 0.0 && previous_h_ != h_ ? h_ / previous_h_ : 1.0;
  auto less = [&](int x, const std::pair<int, int>& key) {
    return std::make_pair(previous_[x].a, previous_[x].b) < key;
  };
  // The contacts come in runs sorted by (a, b) (pair contacts, then wall contacts): within a
  // run the search goes on from the last contact's place, a new run (or chunk) starts a binary
  // search. Each contact's match depends on it alone, so the chunks run on every thread.
  auto match_chunk = [&](std::size_t chunk) {
    const std::size_t lo = chunk * kWarmStartChunk;
    const std::size_t hi = std::min(contacts.size(), lo + kWarmStartChunk);
    auto it = previous_order_.begin();
    std::pair<int, int> last_key(-1, -1);
    for (std::size_t k = lo; k < hi; ++k) {
      Contact& c = contacts[k];
      const std::pair<int, int> key(c.a, c.b);
      if (k == lo || key < last_key)
        it = std::lower_bound(previous_order_.begin(), previous_order_.end(), key, less);
      else
        while (it != previous_order_.end() && less(*it, key)) ++it;
      last_key = key;
      const double ra = shapes.bounding_radius[bodies.shape[c.a]];
      const double rb = shapes.bounding_radius[bodies.shape[c.b]];
      double best = 0.0625 * std::min(ra, rb) * std::min(ra, rb);
      const Contact* match = nullptr;
      for (auto p = it;
           p != previous_order_.end() && previous_[*p].a == c.a && previous_[*p].b == c.b; ++p) {
        const double d2 = (previous_[*p].point - c.point).squaredNorm();
        if (d2 < best) {
          best = d2;
          match = &previous_[*p];
        }
      }
      if (match) {
        c.normal_impulse = match->normal_impulse;
        c.tangent_impulse = match->tangent_impulse;
        c.rolling_impulse = match->rolling_impulse;
        if (scale != 1.0) {
          c.normal_impulse *= scale;
          c.tangent_impulse *= scale;
          c.rolling_impulse *= scale;
        }
      }
    }
  };
  parallel_for((contacts.size() + kWarmStartChunk - 1) / kWarmStartChunk, match_chunk, 2);
}

void World::remember_contacts(const std::vector<Contact>& contacts) {
  if (!resting_) return;
  previous_.resize(contacts.size());
  parallel_for(contacts.size(), [&](std::size_t k) { previous_[k] = contacts[k]; });
  asleep_at_previous_.swap(asleep_at_narrow_);  // who slept when previous_ was found
  asleep_at_narrow_.clear();
  previous_h_ = h_;
  order_previous();
}

void World::order_previous() {
  previous_order_.resize(previous_.size());
  for (std::size_t k = 0; k < previous_.size(); ++k) previous_order_[k] = static_cast<int>(k);
  // By (a, b), equal pairs in contact order: the warm start takes the first of a pair's equally
  // near points, so this order is part of the trajectory, and a stable sort's is one order
  // whatever the library (std::sort left equal keys to its algorithm).
  // The comparison reads a packed key per contact instead of two fields of each 192-byte
  // contact: the same outcomes, so the same order, with far fewer cache misses.
  // (A stable order is one order: sorted on every thread, it is the same.)
  previous_key_.resize(previous_.size());
  parallel_for(previous_.size(),
               [&](std::size_t k) { previous_key_[k] = pair_key(previous_[k].a, previous_[k].b); });
  // The contacts come in serial order, by pair and then each body's walls: a few sorted runs
  // (merged on one thread), or sorted on every thread.
  auto by_pair = [&](int x, int y) { return previous_key_[x] < previous_key_[y]; };
  if (!merge_sorted_runs(previous_order_, by_pair, previous_scratch_))
    __gnu_parallel::stable_sort(previous_order_.begin(), previous_order_.end(), by_pair);
}

World::CarriedContacts World::carried_contacts() const {
  // A counting sort by first grain, stable: each body's contacts keep the serial order.
  CarriedContacts out;
  out.start.assign(static_cast<std::size_t>(bodies.count()) + 1, 0);
  for (const Contact& c : previous_) ++out.start[static_cast<std::size_t>(first_grain(c)) + 1];
  for (std::size_t i = 1; i < out.start.size(); ++i) out.start[i] += out.start[i - 1];
  out.contacts.resize(previous_.size());
  std::vector<int> next(out.start.begin(), out.start.end() - 1);
  for (const Contact& c : previous_) out.contacts[next[first_grain(c)]++] = c;
  return out;
}

void World::restore_warm_start(std::vector<Contact> contacts, double h) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::invalid_argument(fmt::format("warm start: sub-step length {}", h));
  // One pass checks the bodies and whether the contacts already come in the serial order
  // (usually: each body's contacts in order, bodies ascending); only contacts out of it are
  // sorted, stably (an ordered list's stable order is itself).
  const int n = bodies.count();
  bool in_order = true;
  ContactOrderKey last;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    if (c.a < 0 || c.a >= n || c.b < 0 || c.b >= n)
      throw std::invalid_argument(
          fmt::format("warm start: a contact joins bodies {} and {} of {}", c.a, c.b, n));
    if (!in_order) continue;
    const ContactOrderKey key = contact_order_key(c);
    in_order = k == 0 || !(key < last);
    last = key;
  }
  if (in_order) {
    previous_.swap(contacts);
  } else {
    std::vector<ContactOrderKey>& key = restore_key_;
    key.resize(contacts.size());
    for (std::size_t k = 0; k < contacts.size(); ++k) key[k] = contact_order_key(contacts[k]);
    stable_order(key, restore_order_);
    // Copied into a buffer kept from the call before (no contact constructed empty first, no
    // fresh pages); the given one is kept for the next call.
    std::vector<Contact>& room = restore_room_;
    room.clear();
    room.reserve(contacts.size());
    for (const int k : restore_order_) room.push_back(contacts[static_cast<std::size_t>(k)]);
    previous_.swap(room);
    room.swap(contacts);
  }
  previous_h_ = h;
  order_previous();
}

void World::build_islands(const StepBodies& sb, const StepContacts& sc, Islands& out) {
  // Held sleepers (sleeping regions) join no island: their contacts are with a support.
  island_builder_.build(sc.contacts, sc.candidates, holding_ ? moving_ : sb.dynamic, out);
  last_.islands = out.count();
}

}  // namespace etdem
