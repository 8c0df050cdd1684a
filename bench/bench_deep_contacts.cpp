// Where deep contacts come from (a diagnostic program, not a Google Benchmark): runs a scenario
// and, for every contact deeper than a fraction of the thinner shape's thickness at the start of
// a step, looks at the step before, which made it:
//   missed     the pair had no contact point in the step before (the narrow phase never saw it);
//   held-open  a point of the pair the step before was left approaching: its gap plus its
//              normal velocity after the solve times dt (what the solve promised) was already
//              at least half the depth found (the solvers or the resting pass did not stop it);
//   unseen     the points of the step before were all held (predicted gap above -depth / 2):
//              the depth is at a feature the manifold did not carry (rotation within the step
//              brings a corner in, or the manifold lacked the feature).
// For each it prints the spin of the two bodies in that step (|w| dt, rad, and |w| dt R as a
// fraction of the thickness), their speeds and the pair's shape types.
//
//   bench_deep_contacts SCENARIO DURATION_S [FRACTION=0.05] [key=value ...]
//
// Prints a summary per class and the 15 deepest events. Threads: OpenMP's default.
// DEEP_PAIR=a,b prints that pair's history step by step; with DEEP_FROM=t (seconds) also, from t
// on, the pair's points (in A's frame), normals, gaps, normal velocities and impulses after each
// step, and the other contacts of the two bodies, the two bodies' poses to the last bit (a unit
// test can place the pair where the next step's narrow phase found it) and the step's solver
// statistics (sweep bounds reached, contacts left approaching, energy guards).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "etdem/io/scenario.hpp"
#include "etdem/world/world.hpp"
#include "resting_probe.hpp"

namespace {

struct DeepEvent {
  double t = 0.0;
  int a = 0, b = 0;
  double depth = 0.0;        // [of the thickness]
  const char* kind = "";     // missed, held-open, unseen
  double gap_before = 0.0;   // [of the thickness] smallest gap of the pair the step before
  double pred_before = 0.0;  // [of the thickness] smallest gap + u_n dt after that step's solve
  double spin_a = 0.0, spin_b = 0.0;  // |w| dt [rad] in the step that made it
  double sweep = 0.0;                 // max |w| dt R over the two bodies [of the thickness]
  double sweep0 = 0.0;  // the same with the spin the bodies had at the start of that step
  double speed_a = 0.0, speed_b = 0.0;  // [m/s]
  int points_before = 0;                // the pair's contact points the step before
  std::string types;
};

}  // namespace

int main(int argc, char** argv) try {
  using namespace etdem;
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_deep_contacts SCENARIO DURATION_S [FRACTION] [k=v ...]\n");
    return 2;
  }
  const double duration = std::atof(argv[2]);
  const double fraction = argc > 3 ? std::atof(argv[3]) : 0.05;
  std::vector<std::string> overrides;
  for (int k = 4; k < argc; ++k) overrides.emplace_back(argv[k]);
  const Scenario sc = load_scenario(argv[1], overrides);
  World w;
  build_world(sc, w);
  w.initialize();
  resting_probe_bench::install();
  const double dt = w.settings.dt;
  const long steps = std::lround(duration / dt);
  // DEEP_PAIR=a,b in the environment prints that pair's history step by step.
  int watch_a = -1, watch_b = -1;
  if (const char* env = std::getenv("DEEP_PAIR")) std::sscanf(env, "%d,%d", &watch_a, &watch_b);
  auto thick = [&](int body) {
    const double t = w.shapes.min_thickness(w.bodies.shape[body]);
    return std::isfinite(t) && t > 0.0 ? t : 1e300;
  };
  std::vector<Contact> before;  // the contacts of the step before, with this step's velocities
  std::vector<Vec3> v_after, w_after, w_start, w_pre;
  std::vector<DeepEvent> events;
  std::map<std::string, std::pair<long, double>> by_kind;  // count, deepest
  double deepest = 0.0, deepest_t = 0.0;
  std::pair<int, int> deepest_at{-1, -1};
  // Steps whose largest rotation sweep |w| dt R (of the thickness, spheres left out) at their
  // start exceeds 5, 10, 20 %, and the sub-steps a bound of 5 or 10 % would take.
  long over5 = 0, over10 = 0, over20 = 0, sub5 = 0, sub10 = 0;
  for (long k = 0; k < steps; ++k) {
    w_pre = w.bodies.angular_velocity;
    double most = 0.0;
    for (int i = 0; i < w.bodies.count(); ++i) {
      if (!w.bodies.is_dynamic(i) || w.shapes.type[w.bodies.shape[i]] == ShapeType::Sphere)
        continue;
      most = std::max(
          most, w_pre[i].norm() * dt * w.shapes.bounding_radius[w.bodies.shape[i]] / thick(i));
    }
    over5 += most > 0.05;
    over10 += most > 0.1;
    over20 += most > 0.2;
    sub5 += std::max(1.0, std::ceil(most / 0.05));
    sub10 += std::max(1.0, std::ceil(most / 0.1));
    resting_probe_bench::probe_step(w.time());
    w.step();
    // The contacts now were found at the start of this step: the state the step before left.
    // Index the step before's contacts by pair.
    std::map<std::pair<int, int>, std::pair<double, double>> prev;  // min gap, min predicted
    std::map<std::pair<int, int>, int> prev_points;
    for (const Contact& c : before) {
      ++prev_points[{c.a, c.b}];
      Vec3 u = Vec3::Zero();
      if (w.bodies.is_dynamic(c.a)) u += v_after[c.a] + w_after[c.a].cross(c.ra);
      if (w.bodies.is_dynamic(c.b)) u -= v_after[c.b] + w_after[c.b].cross(c.rb);
      const double pred = c.gap + c.normal.dot(u) * dt;
      auto [it, fresh] = prev.try_emplace({c.a, c.b}, c.gap, pred);
      if (!fresh) {
        it->second.first = std::min(it->second.first, c.gap);
        it->second.second = std::min(it->second.second, pred);
      }
    }
    if (watch_a >= 0) {  // the watched pair's history: points, deepest gap, prediction
      int points = 0;
      double gap = 1e300;
      for (const Contact& c : w.contacts())
        if (c.a == watch_a && c.b == watch_b) ++points, gap = std::min(gap, c.gap);
      auto it = prev.find({watch_a, watch_b});
      const double th = std::min(thick(watch_a), thick(watch_b));
      if (points > 0)
        std::printf(
            "watch t %.4f points %d depth %.4f pred_before %.4f spin %.4f %.4f substeps %d "
            "resting sweeps %ld\n",
            w.time() - dt, points, -gap / th, it == prev.end() ? 0.0 : -it->second.second / th,
            w.bodies.angular_velocity[watch_a].norm() * dt,
            w.bodies.angular_velocity[watch_b].norm() * dt, w.last_step().substeps,
            w.last_step().resting.rounds);
      static const double verbose_from =
          std::getenv("DEEP_FROM") ? std::atof(std::getenv("DEEP_FROM")) : 1e300;
      if (points > 0 && w.time() - dt >= verbose_from) {
        const StepStats& st = w.last_step();
        std::printf(
            "  step: collisions %ld, solver guards %ld approaching %ld; resting sweep bounds %ld "
            "approaching %ld energy guards %ld shock unsettled %ld fallbacks %ld\n",
            st.collisions, st.solver.guards_fired, st.solver.approaching_left,
            st.resting.guards_fired, st.resting.approaching_left, st.resting.energy_guards,
            st.resting.shock_bound_reached, st.resting.friction_fallbacks);
        const Mat3 ra = w.bodies.orientation[watch_a].toRotationMatrix();
        const Vec3 xa = w.bodies.position[watch_a];
        const Vec3 rel = ra.transpose() * (w.bodies.position[watch_b] - xa);
        const Mat3 rr = ra.transpose() * w.bodies.orientation[watch_b].toRotationMatrix();
        std::printf(
            "  B centre in A frame (%.3f %.3f %.3f) mm, R_rel rows (%.2f %.2f %.2f | %.2f %.2f "
            "%.2f | %.2f %.2f %.2f)\n",
            1e3 * rel.x(), 1e3 * rel.y(), 1e3 * rel.z(), rr(0, 0), rr(0, 1), rr(0, 2), rr(1, 0),
            rr(1, 1), rr(1, 2), rr(2, 0), rr(2, 1), rr(2, 2));
        // The poses the next step's narrow phase starts from, to the last bit (a unit test
        // can place the pair there).
        for (int body : {watch_a, watch_b}) {
          const Vec3& x = w.bodies.position[body];
          const Quat& q = w.bodies.orientation[body];
          std::printf("  pose %d x (%.17g, %.17g, %.17g) q (%.17g, %.17g, %.17g, %.17g)\n", body,
                      x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z());
        }
        const Vec3 va = w.bodies.velocity[watch_a], vb = w.bodies.velocity[watch_b];
        const Vec3 dv = ra.transpose() * (va - vb);
        std::printf("  v_A - v_B in A frame (%.4f %.4f %.4f) m/s, v_A %.4f %.4f %.4f\n", dv.x(),
                    dv.y(), dv.z(), va.x(), va.y(), va.z());
        for (const Contact& c : w.contacts()) {
          if (c.a != watch_a || c.b != watch_b) continue;
          const Vec3 p = ra.transpose() * (c.point - xa);
          const Vec3 n = ra.transpose() * c.normal;
          const Vec3 u = w.bodies.velocity[c.a] + w.bodies.angular_velocity[c.a].cross(c.ra) -
                         w.bodies.velocity[c.b] - w.bodies.angular_velocity[c.b].cross(c.rb);
          std::printf("  p (%.3f %.3f %.3f) mm n (%.3f %.3f %.3f) gap %.4f un_after %.4f P %.3g\n",
                      1e3 * p.x(), 1e3 * p.y(), 1e3 * p.z(), n.x(), n.y(), n.z(), c.gap / th,
                      c.normal.dot(u), c.normal_impulse);
        }
        // The other contacts of A and of B this step.
        for (const Contact& c : w.contacts()) {
          if (c.a == watch_a && c.b == watch_b) continue;
          if (c.a != watch_a && c.b != watch_a && c.a != watch_b && c.b != watch_b) continue;
          std::printf("    other %d-%d gap %.4f n (%.2f %.2f %.2f) P %.3g\n", c.a, c.b, c.gap / th,
                      c.normal.x(), c.normal.y(), c.normal.z(), c.normal_impulse);
        }
      }
    }
    std::map<std::pair<int, int>, DeepEvent> worst;  // per pair this step
    for (const Contact& c : w.contacts()) {
      const double th = std::min(thick(c.a), thick(c.b));
      const double depth = -c.gap / th;
      if (depth > deepest) {
        deepest = depth;
        deepest_at = {c.a, c.b};
        deepest_t = w.time() - dt;
      }
      if (depth < fraction || k == 0) continue;
      DeepEvent e;
      e.t = w.time() - dt;  // the start of this step = the end of the one that made it
      e.a = c.a;
      e.b = c.b;
      e.depth = depth;
      auto it = prev.find({c.a, c.b});
      if (it == prev.end()) {
        e.kind = "missed";
      } else {
        e.gap_before = it->second.first / th;
        e.points_before = prev_points[{c.a, c.b}];
        e.pred_before = it->second.second / th;
        // Deeper than the solve left it (beyond 2 % of the thickness): a feature or a motion the
        // step before did not hold; else the solve left the contact that deep.
        e.kind = depth > -e.pred_before + 0.02 ? "unseen" : "held-open";
      }
      for (int s = 0; s < 2; ++s) {
        const int body = s == 0 ? c.a : c.b;
        if (!w.bodies.is_dynamic(body)) continue;
        const double spin = w_after[body].norm() * dt;
        (s == 0 ? e.spin_a : e.spin_b) = spin;
        (s == 0 ? e.speed_a : e.speed_b) = v_after[body].norm();
        const double r = w.shapes.bounding_radius[w.bodies.shape[body]];
        e.sweep = std::max(e.sweep, spin * r / th);
        e.sweep0 = std::max(e.sweep0, w_start[body].norm() * dt * r / th);
      }
      e.types = std::string(shape_type_name(w.shapes.type[w.bodies.shape[c.a]])) + "-" +
                shape_type_name(w.shapes.type[w.bodies.shape[c.b]]);
      auto [slot, fresh] = worst.try_emplace({c.a, c.b}, e);
      if (!fresh && e.depth > slot->second.depth) slot->second = e;
    }
    for (auto& [pair, e] : worst) {
      // Counted where the pair got deeper by more than 1 % of the thickness in one step.
      if (std::string(e.kind) != "missed" && e.depth < -e.gap_before + 0.01) continue;
      auto& [count, deep] = by_kind[e.kind];
      ++count;
      deep = std::max(deep, e.depth);
      events.push_back(e);
    }
    before.assign(w.contacts().begin(), w.contacts().end());
    v_after = w.bodies.velocity;
    w_start = w_pre;
    w_after = w.bodies.angular_velocity;
  }
  std::printf(
      "deepest %.4f of the thickness over %ld steps (bodies %d, %d at t = %.4f s); "
      "contacts deeper than %.3f formed:\n",
      deepest, steps, deepest_at.first, deepest_at.second, deepest_t, fraction);
  std::printf(
      "  steps with a sweep above 5/10/20 %%: %ld / %ld / %ld; sub-steps at 5 %%: %ld, "
      "at 10 %%: %ld\n",
      over5, over10, over20, sub5, sub10);
  for (const auto& [kind, cd] : by_kind)
    std::printf("  %-10s %6ld  deepest %.4f\n", kind.c_str(), cd.first, cd.second);
  std::sort(events.begin(), events.end(),
            [](const DeepEvent& x, const DeepEvent& y) { return x.depth > y.depth; });
  // Spin of the events: how many had a sweep |w| dt R above 5, 10, 20 % of the thickness.
  long s5 = 0, s10 = 0, s20 = 0, p5 = 0, p10 = 0, p20 = 0;
  for (const DeepEvent& e : events) {
    s5 += e.sweep > 0.05;
    s10 += e.sweep > 0.10;
    s20 += e.sweep > 0.20;
    p5 += e.sweep0 > 0.05;
    p10 += e.sweep0 > 0.10;
    p20 += e.sweep0 > 0.20;
  }
  std::printf("  sweep |w| dt R above 5/10/20 %% of the thickness: %ld / %ld / %ld of %zu\n", s5,
              s10, s20, events.size());
  std::printf("  the same with the spin at the start of the step: %ld / %ld / %ld\n", p5, p10, p20);
  std::printf("%9s %5s %5s %7s %-9s %8s %8s %7s %7s %6s %6s %6s %6s %4s %s\n", "t", "a", "b",
              "depth", "kind", "gap_bef", "pred", "spin_a", "spin_b", "sweep", "sweep0", "v_a",
              "v_b", "pts", "types");
  for (std::size_t k = 0; k < std::min<std::size_t>(15, events.size()); ++k) {
    const DeepEvent& e = events[k];
    std::printf("%9.4f %5d %5d %7.4f %-9s %8.4f %8.4f %7.4f %7.4f %6.3f %6.3f %6.3f %6.3f %4d %s\n",
                e.t, e.a, e.b, e.depth, e.kind, e.gap_before, e.pred_before, e.spin_a, e.spin_b,
                e.sweep, e.sweep0, e.speed_a, e.speed_b, e.points_before, e.types.c_str());
  }
  resting_probe_bench::report();
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_deep_contacts: %s\n", e.what());
  return 1;
}
