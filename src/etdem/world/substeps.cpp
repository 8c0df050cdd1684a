// Sub-steps (World::step): a step is split when a grain other than a sphere turns so fast that
// its bounding radius sweeps more than settings.substep_sweep of its thinnest extent within the
// step, and taken again split when the first solve makes one turn that fast (docs/design.md,
// "Deep contacts come from grains turning within a step").
#include <algorithm>
#include <cmath>

#include "etdem/world/world.hpp"

namespace etdem {

void World::prepare_substeps() {
  // Rotation only: a translating grain's surface points move along straight lines, which the
  // speculative contacts (gap + u_n dt) follow; a turning grain brings other features in.
  // Spheres look the same at any orientation. Bodies never change shape or become dynamic
  // after the build, so the list is made once.
  turning_.clear();
  if (settings.substep_sweep <= 0.0) return;
  for (int i = 0; i < bodies.count(); ++i) {
    const int s = bodies.shape[i];
    if (!bodies.is_dynamic(i) || shapes.type[s] == ShapeType::Sphere) continue;
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

void World::save_step_start() {
  start_.velocity = bodies.velocity;
  start_.angular_velocity = bodies.angular_velocity;
  start_.flags = bodies.flags;
  start_.rest_time = rest_time_;
  start_.ledger = ledger_;
  start_.net_elastic = net_elastic_;
  start_.nets = nets;
}

void World::restore_step_start() {
  // Only velocities, the ledger, the nets' links and the islands woken (their flags and rest
  // times) have changed before the motion (apply_external_forces, wake_or_skip,
  // resolve_islands); positions and orientations have not. The step taken again wakes them
  // again, as the step it replaces would have.
  bodies.velocity = start_.velocity;
  bodies.angular_velocity = start_.angular_velocity;
  bodies.flags = start_.flags;
  rest_time_ = start_.rest_time;
  ledger_ = start_.ledger;
  net_elastic_ = start_.net_elastic;
  nets = start_.nets;
}

}  // namespace etdem
