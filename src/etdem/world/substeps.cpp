// Sub-steps (World::step): a step is split when a grain other than a ball turns so fast that
// its bounding radius sweeps more than settings.substep_sweep of its thinnest extent within the
// step, and taken again split when the first solve makes one turn that fast (docs/design.md,
// "Sub-steps").
#include <algorithm>
#include <cmath>
#include <limits>

#include <omp.h>

#include "etdem/collision/collide.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

void World::prepare_substeps() {
  // Rotation only: a translating grain's surface points move along straight lines, which the
  // speculative contacts (gap + u_n dt) follow; a turning grain brings other features in.
  // Balls (spheres) look the same at any orientation. Bodies never change shape or become
  // dynamic after the build, so the list is made once.
  turning_.clear();
  if (settings.substep_sweep <= 0.0) return;
  for (int i = 0; i < bodies.count(); ++i) {
    const int s = bodies.shape[i];
    if (!bodies.is_dynamic(i) || shapes.is_ball(s)) continue;
    const double t = shapes.min_thickness(s);
    if (t > 0.0 && std::isfinite(t)) turning_.push_back({i, shapes.bounding_radius[s], t});
  }
}

long World::substep_count_unbounded(double dt, const std::vector<Vec3>& spin) const {
  double most = 0.0;  // largest |w| dt R / t
  for (const Turning& g : turning_)
    // Not removed by an event; on a rank of a split run, owned (a ghost's spin after the solve
    // is its owner's to count).
    if (bodies.is_dynamic(g.body) && counted(g.body))
      most = std::max(most, spin[g.body].norm() * dt * g.radius / g.thickness);
  const double n = std::ceil(most / settings.substep_sweep);
  if (!(n > 1.0)) return 1;  // also NaN: check_finite names the body after the step
  return n >= 1e9 ? 1'000'000'000L : static_cast<long>(n);
}

namespace {
/// Bodies whose speed grew are looked for box by box (missed_substeps) while they are at most
/// this share of the boxes (1 / kFewGrown); more, and a broad phase of all the boxes is cheaper.
constexpr std::size_t kFewGrown = 8;
}  // namespace

long World::missed_substeps(const StepBodies& sb, const StepContacts& sc) {
  // The narrow phase tested each pair with the distance its surfaces could close at the
  // velocities of the start of the step. The solve changes them: a grain an impact stopped is
  // run into by the grain behind it, which was not reported since the two fell together. A
  // pair not reported, whose closing bound after the solve reaches farther than its margin, is
  // collided again with the new bound; a point it closes within this (sub-)step, gap g at c,
  // needs sub-steps of dt / n with c dt / n <= g, so that the second sub-step's narrow phase
  // reports it before it is reached.
  if (!settings.substep_missed) return 1;
  const double dt = settings.dt, h = h_;
  // Balls (spheres) and flat walls (planes): the shortcuts below hold for their one point.
  auto sphere = [&](int i) { return shapes.is_ball(bodies.shape[i]); };
  auto plane = [&](int i) { return shapes.is_flat(bodies.shape[i]); };
  // Each body's spin bound |w| R after the solve, once (the pairs read it many times), and a
  // sphere's |v| + |w| R (infinite for other shapes): two spheres close at most at the sum of
  // theirs, which bounds the pair's closing bound |v_a - v_b| + |w_a| R_a + |w_b| R_b.
  missed_spin_.resize(static_cast<std::size_t>(bodies.count()));
  missed_sphere_speed_.resize(missed_spin_.size());
  parallel_for(missed_spin_.size(), [&](std::size_t k) {
    const int i = static_cast<int>(k);
    missed_spin_[k] = spin_bound(i);
    missed_sphere_speed_[k] =
        sphere(i) ? (sb.dynamic[k] ? bodies.velocity[k].norm() : 0.0) + missed_spin_[k]
                  : std::numeric_limits<double>::infinity();
  });
  // The sub-steps a manifold of a and b needs at the velocities now (1: none closes).
  auto needed = [&](int a, int b, const Manifold& m) {
    double most = 1.0;
    for (int k = 0; k < m.count; ++k) {
      const Vec3& p = m.point[k];
      const Vec3 u =
          point_velocity(a, b, p - bodies.position[a], p - bodies.position[b], sb.dynamic);
      const double closing = -m.normal_at(k).dot(u);  // [m/s], > 0 closing
      const double gap = m.gap[k];
      if (!(closing * h > gap)) continue;  // held open through this (sub-)step
      // gap > 0: the pair had no point within its margin (at least kTouch of a radius).
      most = std::max(most, gap > 0.0 ? std::ceil(closing * dt / gap) : 1e9);
    }
    return most;
  };
  // A pair collided again at the closing bound after the solve, when that reaches farther than
  // the margin it was tested with (`before`; none: -infinity).
  //
  // Two spheres, or a sphere and a plane, are left out sooner, with the same result: their one
  // point's gap is the surfaces' distance from the same positions, not below the `before` it
  // was not reported at, and the point closes at -n.(v_a - v_b) (a sphere's spin moves its
  // surface across the normal, not along it), at most the bound. Unless the bound closes more
  // than `before` within the (sub-)step, the point is held open and collide would give 1; the
  // factor 2 keeps that decision clear of rounding. (In a settled bed this leaves out nearly
  // every pair the bound would collide again.)
  auto test_pair = [&](int a, int b, double before, Manifold& m) {
    const double closing = closing_speed_bound(sb.dynamic, a, b, missed_spin_[a], missed_spin_[b]);
    const double margin = pair_margin(a, b, closing);
    if (!(margin > before)) return 1.0;  // no farther than it was tested
    if (sphere(a) && sphere(b) && !(2.0 * closing * h > before)) return 1.0;  // held open
    collide(shapes, bodies.shape[a], Pose(bodies.position[a], bodies.orientation[a]),
            bodies.shape[b], Pose(bodies.position[b], bodies.orientation[b]), margin, m);
    return needed(a, b, m);
  };
  double most = 1.0;
  const long np = std::ssize(sb.pairs);
#pragma omp parallel reduction(max : most) if (runs_parallel(sb.pairs.size(), kParallelPairs))
  {
    Manifold m;
    // (Most pairs were reported and are skipped: chunks taken as threads free up.)
#pragma omp for schedule(dynamic, 256)
    for (long k = 0; k < np; ++k) {
      const double before = sc.pair_margin[static_cast<std::size_t>(k)];
      if (before < 0.0) continue;  // reported (its points were solved) or not tested
      const auto [a, b] = sb.pairs[static_cast<std::size_t>(k)];
      // Two spheres held open (as in test_pair) by the sum of their speeds, which needs neither
      // body's velocity read again: most kept pairs of a sphere bed end here.
      if (!(2.0 * (missed_sphere_speed_[a] + missed_sphere_speed_[b]) * h > before)) continue;
      most = std::max(most, test_pair(a, b, before, m));
    }
  }
  // Pairs the broad phase did not give: their swept boxes, (1 + skin) R + s h with s the
  // fastest surface point's speed, were apart, so their surfaces were more than
  // skin (R_a + R_b) + (s_a + s_b) h apart and close at most at s'_a + s'_b after the solve.
  // None can close unless some body's s' h grew by more than skin R_min; then the boxes are
  // drawn again at the speeds after the solve and the new pairs are tested (a grain struck
  // towards a neighbour at rest beyond its box).
  const double skin = contact_skin();
  // (Minima, maxima and boxes of each body on its own: on every thread when there are many,
  // the same values on any count.)
  double smallest = std::numeric_limits<double>::infinity(), grown = 0.0;
  const long boxes = std::ssize(box_ids_);
  const bool many = runs_parallel(box_ids_.size());
#pragma omp parallel for schedule(static) reduction(min : smallest) reduction(max : grown) if (many)
  for (long k = 0; k < boxes; ++k) {
    const int i = box_ids_[static_cast<std::size_t>(k)];
    smallest = std::min(smallest, shapes.bounding_radius[bodies.shape[i]]);
    if (sb.dynamic[i]) grown = std::max(grown, (speed_bound(i) - sb.speed[i]) * h);
  }
  if (grown > skin * smallest) {
    missed_boxes_.resize(box_ids_.size());
    parallel_for(box_ids_.size(), [&](std::size_t k) {
      const int i = box_ids_[k];
      const double r = swept_radius(i, sb.dynamic[i] ? speed_bound(i) : 0.0);
      const Vec3& c = bodies.position[i];
      missed_boxes_[k] = {c.array() - r, c.array() + r};
    });
    // The same gate, pair by pair: two surfaces apart by more than skin (R_a + R_b) plus their
    // old reach close within the step only if s'_a h - s_a h + s'_b h - s_b h exceeds
    // skin (R_a + R_b) >= 2 skin R_min, so one of the two grew by more than skin R_min. A pair
    // without such a body would be collided for nothing (1 sub-step), so only the pairs of the
    // bodies that grew are looked for. The same pairs that can need sub-steps, so the same count.
    missed_grown_.clear();
    for (std::size_t k = 0; k < box_ids_.size(); ++k) {
      const int i = box_ids_[k];
      if (sb.dynamic[i] && (speed_bound(i) - sb.speed[i]) * h > skin * smallest)
        missed_grown_.push_back(static_cast<int>(k));
    }
    if (missed_grown_.size() * kFewGrown <= box_ids_.size()) {
      // Few (a landing's struck grains: 1 to 16 of the 10,000-grain pour's bodies, 80 on
      // average of the 100,000-grain bed's when more than 32): every box against the grown
      // ones whose x range can reach it, found by bisection in the grown boxes sorted by their
      // lower x, instead of a broad phase of all the boxes (8 ms a step at 10^4 grains).
      std::sort(missed_grown_.begin(), missed_grown_.end(), [&](int k, int l) {
        return std::pair(missed_boxes_[k].min.x(), k) < std::pair(missed_boxes_[l].min.x(), l);
      });
      missed_grown_x_.resize(missed_grown_.size());
      double widest = 0.0;  // the widest grown box along x
      for (std::size_t j = 0; j < missed_grown_.size(); ++j) {
        const Aabb& g = missed_boxes_[missed_grown_[j]];
        missed_grown_x_[j] = g.min.x();
        widest = std::max(widest, g.max.x() - g.min.x());
      }
      missed_pairs_of_thread_.resize(static_cast<std::size_t>(std::max(omp_get_max_threads(), 1)));
      for (auto& v : missed_pairs_of_thread_) v.clear();
      const long nb = std::ssize(box_ids_);
#pragma omp parallel if (runs_parallel(box_ids_.size()))
      {
        auto& found = missed_pairs_of_thread_[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
        for (long o = 0; o < nb; ++o) {
          const Aabb& box = missed_boxes_[static_cast<std::size_t>(o)];
          // A grown box reaches this one along x only if its lower x lies in
          // [box.min.x - widest, box.max.x] (a NaN box reaches none, as it overlaps none).
          const auto first = std::lower_bound(missed_grown_x_.begin(), missed_grown_x_.end(),
                                              box.min.x() - widest);
          for (auto it = first; it != missed_grown_x_.end() && *it <= box.max.x(); ++it) {
            const int k = missed_grown_[static_cast<std::size_t>(it - missed_grown_x_.begin())];
            if (k == o || !missed_boxes_[k].overlaps(box)) continue;
            const int a = box_ids_[k], b = box_ids_[static_cast<std::size_t>(o)];
            found.push_back({std::min(a, b), std::max(a, b)});
          }
        }
      }
      missed_pairs_.clear();
      for (const auto& v : missed_pairs_of_thread_)
        missed_pairs_.insert(missed_pairs_.end(), v.begin(), v.end());
      std::sort(missed_pairs_.begin(), missed_pairs_.end());  // two grown bodies: found twice
      missed_pairs_.erase(std::unique(missed_pairs_.begin(), missed_pairs_.end()),
                          missed_pairs_.end());
    } else {
      // Many: a broad phase of all the boxes, and of its pairs those of a body that grew.
      missed_broad_.find_pairs(missed_boxes_, box_ids_, missed_pairs_);
      missed_is_grown_.assign(static_cast<std::size_t>(bodies.count()), 0);
      for (const int k : missed_grown_) missed_is_grown_[static_cast<std::size_t>(box_ids_[k])] = 1;
      std::erase_if(missed_pairs_, [&](const std::pair<int, int>& p) {
        return !missed_is_grown_[static_cast<std::size_t>(p.first)] &&
               !missed_is_grown_[static_cast<std::size_t>(p.second)];
      });
    }
    const long nm = std::ssize(missed_pairs_);
    const bool many_pairs = runs_parallel(missed_pairs_.size(), kParallelPairs);
#pragma omp parallel reduction(max : most) if (many_pairs)
    {
      Manifold m;
#pragma omp for schedule(dynamic, 256)
      for (long k = 0; k < nm; ++k) {
        const auto [a, b] = missed_pairs_[static_cast<std::size_t>(k)];
        if (!sb.dynamic[a] && !sb.dynamic[b]) continue;
        if (!counted(first_grain(a, b))) continue;  // a rank of a split run: another's pair
        if (std::binary_search(sb.pairs.begin(), sb.pairs.end(), std::pair<int, int>(a, b)))
          continue;  // given before: tested above
        most = std::max(most, test_pair(a, b, -std::numeric_limits<double>::infinity(), m));
      }
    }
  }
  // Planes and terrains: every dynamic body was tested or left out by its reach.
  // (Each body on its own, on every thread: the largest count does not depend on the order.)
  const std::size_t planes = sb.unbounded.size();
  const long dynamic_count = planes > 0 ? std::ssize(sb.dynamic_ids) : 0;
  const bool many_bodies = runs_parallel(static_cast<std::size_t>(dynamic_count));
#pragma omp parallel for schedule(static) reduction(max : most) if (many_bodies)
  for (long k = 0; k < dynamic_count; ++k) {
    const int a = sb.dynamic_ids[static_cast<std::size_t>(k)];
    const Pose pa(bodies.position[a], bodies.orientation[a]);
    const double speed = speed_bound(a);
    const double margin = plane_margin(a, speed);
    const double reach = swept_radius(a, speed);
    Manifold m;
    for (std::size_t pi = 0; pi < planes; ++pi) {
      const double before = sc.plane_margin[static_cast<std::size_t>(k) * planes + pi];
      if (before < 0.0 || !(margin > before)) continue;
      const int b = sb.unbounded[pi];
      // A sphere held open by a plane (as in test_pair): it closes at most at its own speed.
      if (plane(b) && !(2.0 * missed_sphere_speed_[a] * h > before)) continue;
      if (!shapes.may_reach(bodies.shape[b], bodies.position[b], bodies.orientation[b], pa.position,
                            reach))
        continue;
      collide(shapes, bodies.shape[a], pa, bodies.shape[b],
              Pose(bodies.position[b], bodies.orientation[b]), margin, m);
      most = std::max(most, needed(a, b, m));
    }
  }
  return most >= 1e9 ? 1'000'000'000L : static_cast<long>(most);
}

void World::save_step_start() {
  start_.velocity = bodies.velocity;
  start_.angular_velocity = bodies.angular_velocity;
  start_.flags = bodies.flags;
  start_.rest_time = rest_time_;
  start_.nets = nets;
}

void World::restore_step_start() {
  // Only velocities, the nets' links and the islands woken (their flags and rest times) have
  // changed before the motion (apply_external_forces, wake_or_skip, resolve_islands);
  // positions and orientations have not, and the ledger is booked at the sub-step's end. The
  // step taken again wakes them again, as the step it replaces would have.
  bodies.velocity = start_.velocity;
  bodies.angular_velocity = start_.angular_velocity;
  bodies.flags = start_.flags;
  rest_time_ = start_.rest_time;
  nets = start_.nets;
}

}  // namespace etdem
