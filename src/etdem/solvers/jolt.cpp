#include "etdem/solvers/jolt.hpp"

#include <algorithm>
#include <cmath>

namespace etdem {
namespace {

/// Velocity of a contact's body, zero for a static one.
Vec3 velocity(const IslandBodies& b, int i) {
  return i >= 0 ? b.v[i] : Vec3::Zero();
}

}  // namespace

SolverStats JoltSolver::resolve(std::span<Contact> cs, IslandBodies& b, int) {
  SolverStats st;
  double fastest = 0.0;
  for (const Contact& c : cs)
    fastest = std::max(fastest, -c.normal.dot(velocity(b, c.a) - velocity(b, c.b)));
  if (!(fastest > 0.0)) return st;
  const double tol = settings_.velocity_tolerance * fastest;

  bool approaching = true;
  for (int sweep = 0; sweep < settings_.max_sweeps && approaching; ++sweep) {
    approaching = false;
    for (const Contact& c : cs) {
      const Vec3 vab = velocity(b, c.a) - velocity(b, c.b);  // a.1, b.2: centre velocities
      const double vn = c.normal.dot(vab);
      if (vn >= -tol) continue;  // b.2: only impacting contacts
      const double ia = c.a >= 0 ? b.inv_mass[c.a] : 0.0;
      const double ib = c.b >= 0 ? b.inv_mass[c.b] : 0.0;
      if (!(ia + ib > 0.0)) continue;
      const double red_a = ia / (ia + ib);  // B.6: m_b / (m_a + m_b); 1 against a static body
      const double red_b = ib / (ia + ib);
      const double m_ab = 1.0 / (ia + ib);  // reduced mass
      const double e = c.restitution;
      const double j = -(1.0 + e) * vn;  // B.9 divided by m_red: the jolt of the relative velocity
      // c.3 / B.13: tangential direction; c.4: the friction term mu j along -t, clipped so that
      // it at most stops the relative tangential velocity.
      const Vec3 vt = vab - vn * c.normal;
      const double vtn = vt.norm();
      double s = 0.0;
      Vec3 t = Vec3::Zero();
      if (c.friction > 0.0 && vtn > 0.0) {
        t = vt / vtn;
        s = std::min(c.friction * j, vtn);
      }
      const Vec3 jolt = j * c.normal - s * t;  // B.15 per unit m_red
      if (c.a >= 0) b.v[c.a] += red_a * jolt;  // c.6
      if (c.b >= 0) b.v[c.b] -= red_b * jolt;
      // Kinetic energy change = 1/2 m_ab (|v_ab'|^2 - |v_ab|^2), split exactly by direction.
      st.dissipated_restitution += 0.5 * m_ab * (1.0 - e * e) * vn * vn;
      st.dissipated_friction += 0.5 * m_ab * s * (2.0 * vtn - s);
      ++st.iterations;
      approaching = true;
    }
    if (approaching) ++st.rounds;
  }
  // The loop ends with a sweep that found nothing, or at the bound: then count what is left.
  if (approaching) {
    for (const Contact& c : cs)
      if (c.normal.dot(velocity(b, c.a) - velocity(b, c.b)) < -tol) ++st.approaching_left;
    if (st.approaching_left > 0) ++st.guards_fired;
  }
  return st;
}

std::vector<Setting<JoltSettings>> jolt_setting_keys() {
  using namespace setting;
  using J = JoltSettings;
  std::vector<Setting<J>> v;
  v.push_back(field<J>(
      "max_sweeps", "", closed(1, 1e9),
      "sweeps over the collision group's contacts per step, until none approaches; 1 = the "
      "appendix's single pass. Reaching it with a contact still approaching is a guard, counted",
      &J::max_sweeps));
  v.push_back(field<J>("velocity_tolerance", "1", at_least(0),
                       "a contact stops approaching at u_n >= -tol, tol relative to the "
                       "collision group's largest initial approach speed",
                       &J::velocity_tolerance));
  return v;
}

}  // namespace etdem
