// The hybrid resting treatment of the impulse-based LS-DEM (Tan, Wijesuriya & Sitar 2024, §4.1,
// Figs. 5-6), `resting = "wall-correction"`: after the collision solver, every grain is moved
// to where its new velocity would take it, x' = x + v dt (and its orientation turned by w dt);
// a grain whose predicted pose penetrates a wall (a plane, a mesh, a terrain, a fixed body: any
// static body the broad phase paired it with) gets an impulse at its deepest point, along that
// point's normal, just large enough for the point to end on the wall's surface: its normal velocity
// rises by depth / dt, and the angular velocity follows from the moment of that impulse. The
// prediction is repeated, since a correction at one wall can push a grain into another, until
// no grain is predicted inside a wall or `wall_iterations` rounds are spent (a step that spends
// them all is counted). Positions then advance with the corrected velocities (the paper's order,
// so that a grain never passes through a wall).
//
// Departure from the paper: the correction is a pseudo-velocity (a split impulse). It moves the
// grain in this step's position update and is then dropped, instead of staying in the grain's
// velocity: kept, it launched a sphere that started 1 mm inside the floor at depth / dt =
// 0.6 m/s (1/600 s steps), 18 mm high. Like position projection it changes only the potential
// energy, booked in the ledger's `correction` column. Contacts between grains stay with the
// collision solver, as with resting = "etm".
#include "etdem/collision/collide.hpp"
#include "etdem/world/world.hpp"

namespace etdem {

void World::correct_wall_velocities(const StepBodies& sb, WallCorrection& out) {
  if (settings.resting != "wall-correction") {
    out.dv.clear();  // a later change of `resting` leaves no stale pseudo-velocities
    out.dw.clear();
    return;
  }
  const double dt = h_;
  Manifold m;
  out.dv.assign(bodies.count(), Vec3::Zero());
  out.dw.assign(bodies.count(), Vec3::Zero());
  // Grain-wall pairs: the broad phase's pairs with one static body, and every grain against
  // every plane and terrain (tested apart from the grid). Walls do not move, so after the first
  // round only the pairs of grains corrected in the round before can still be in a wall.
  std::vector<std::pair<int, int>>& walls = wall_pairs_;
  walls.clear();
  for (const auto& [a, b] : sb.pairs)
    if (sb.dynamic[a] != sb.dynamic[b])
      walls.emplace_back(sb.dynamic[a] ? a : b, sb.dynamic[a] ? b : a);
  for (int i : sb.dynamic_ids)
    for (int p : sb.unbounded) walls.emplace_back(i, p);
  wall_moved_.assign(bodies.count(), 0);
  for (int round = 0; round < settings.wall_iterations && !walls.empty(); ++round) {
    long corrected = 0;
    for (const auto& [i, wall] : walls) {
      const Vec3 v = bodies.velocity[i] + out.dv[i];
      const Vec3 w = bodies.angular_velocity[i] + out.dw[i];
      const Pose predicted(bodies.position[i] + dt * v,
                           integrate_orientation(bodies.orientation[i], w, dt));
      const Pose wall_pose(bodies.position[wall], bodies.orientation[wall]);
      collide(shapes, bodies.shape[i], predicted, bodies.shape[wall], wall_pose, 0.0, m);
      int deepest = -1;
      for (int k = 0; k < m.count; ++k)
        if (m.gap[k] < -settings.penetration_slop && (deepest < 0 || m.gap[k] < m.gap[deepest]))
          deepest = k;
      if (deepest < 0) continue;
      const Vec3 n = m.normal_at(deepest);  // from the wall to the grain
      // The grain's surface point: half the (negative) gap behind the midway point.
      const Vec3 r = m.point[deepest] + 0.5 * m.gap[deepest] * n - predicted.position;
      const Mat3 inv_inertia = world_inverse_inertia(bodies.orientation[i], bodies.inv_inertia[i]);
      const Vec3 rn = r.cross(n);
      const double k_nn = bodies.inv_mass[i] + rn.dot(inv_inertia * rn);
      if (!(k_nn > 0.0)) continue;
      const double impulse = (-m.gap[deepest] / dt) / k_nn;
      out.dv[i] += (impulse * bodies.inv_mass[i]) * n;
      out.dw[i] += inv_inertia * (impulse * rn);
      wall_moved_[i] = 1;
      ++corrected;
    }
    ++last_.wall_rounds;
    last_.wall_corrections += corrected;
    if (corrected == 0) break;
    if (round + 1 == settings.wall_iterations) last_.wall_bound_reached = 1;
    std::erase_if(walls, [&](const std::pair<int, int>& p) { return !wall_moved_[p.first]; });
    for (const auto& p : walls) wall_moved_[p.first] = 0;
  }
}

}  // namespace etdem
