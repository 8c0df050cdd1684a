#include "etdem/world/net.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace etdem {

NetLayout net_layout(NetPattern pattern, const Vec3& origin, const Vec3& u, const Vec3& v, int nu,
                     int nv, double spacing) {
  NetLayout out;
  const bool hex = pattern == NetPattern::Hexagonal;
  const double row = hex ? 0.5 * std::sqrt(3.0) * spacing : spacing;
  auto id = [nu](int i, int j) { return j * nu + i; };
  for (auto& e : out.on_edge) e.assign(static_cast<std::size_t>(nu) * nv, 0);
  for (int j = 0; j < nv; ++j)
    for (int i = 0; i < nu; ++i) {
      const double shift = hex && (j % 2 == 1) ? 0.5 * spacing : 0.0;
      out.positions.push_back(origin + (i * spacing + shift) * u + (j * row) * v);
      const int k = id(i, j);
      out.on_edge[0][k] = i == 0;
      out.on_edge[1][k] = i == nu - 1;
      out.on_edge[2][k] = j == 0;
      out.on_edge[3][k] = j == nv - 1;
    }
  for (int j = 0; j < nv; ++j)
    for (int i = 0; i < nu; ++i) {
      if (i + 1 < nu) out.links.emplace_back(id(i, j), id(i + 1, j));
      if (j + 1 >= nv) continue;
      out.links.emplace_back(id(i, j), id(i, j + 1));
      if (!hex) continue;
      // The row above an even row is shifted by +spacing/2: its neighbours are i - 1 and i;
      // above an odd row they are i and i + 1.
      const int other = j % 2 == 0 ? i - 1 : i + 1;
      if (other >= 0 && other < nu) out.links.emplace_back(id(i, j), id(other, j + 1));
    }
  return out;
}

int net_coordination(NetPattern pattern) {
  return pattern == NetPattern::Hexagonal ? 6 : 4;
}

double net_opening_radius(NetPattern pattern, double spacing, double node_radius) {
  const double circumradius =
      pattern == NetPattern::Hexagonal ? spacing / std::sqrt(3.0) : spacing / std::sqrt(2.0);
  return circumradius - node_radius;
}

double net_shortest_period(NetPattern pattern, double stiffness, double node_mass) {
  const double z = net_coordination(pattern);
  const double omega = 2.0 * std::sqrt(z * stiffness / (2.0 * node_mass));
  return 2.0 * std::numbers::pi / omega;
}

double net_elastic_energy(const Net& net, const Bodies& bodies) {
  double e = 0.0;
  for (const NetLink& l : net.links) {
    if (l.broken) continue;
    const double stretch = (bodies.position[l.b] - bodies.position[l.a]).norm() - l.rest;
    e += 0.5 * l.stiffness * stretch * stretch;
  }
  return e;
}

NetKick apply_net_forces(Net& net, Bodies& bodies, double dt, std::vector<Vec3>* after_springs) {
  NetKick kick;
  auto inverse_mass = [&](int i) { return bodies.is_dynamic(i) ? bodies.inv_mass[i] : 0.0; };
  // Kinetic energy a change dv of body i's velocity adds.
  auto push = [&](int i, const Vec3& dv, double& energy) {
    if (inverse_mass(i) == 0.0) return;
    Vec3& v = bodies.velocity[i];
    energy += kick_energy(bodies.mass[i], v, dv);
    v += dv;
  };
  net.clamp_force = Vec3::Zero();
  net.max_strain = 0.0;
  // Springs, from the positions at the start of the step (order does not matter).
  for (NetLink& l : net.links) {
    if (l.broken) continue;
    const Vec3 d = bodies.position[l.b] - bodies.position[l.a];
    const double length = d.norm();
    l.strain = (length - l.rest) / l.rest;
    const double spring = l.stiffness * (length - l.rest);
    if (net.break_strain > 0.0 && l.strain > net.break_strain) {
      l.broken = true;
      l.tension = 0.0;
      ++net.broken_links;
      kick.released += 0.5 * spring * (length - l.rest);
      continue;
    }
    net.max_strain = std::max(net.max_strain, l.strain);
    l.direction = length > 0.0 ? Vec3(d / length) : Vec3::Zero();
    const Vec3& e = l.direction;
    push(l.a, (dt * spring * inverse_mass(l.a)) * e, kick.spring);  // a pulled towards b
    push(l.b, (-dt * spring * inverse_mass(l.b)) * e, kick.spring);
    l.tension = spring;
  }
  if (after_springs)
    for (int i : net.nodes) (*after_springs)[i] = bodies.velocity[i];
  // Dashpots, link by link on the current velocities (the positions, and so each link's
  // direction, are the springs'), each exactly dissipative: half the decay in link order, then
  // half in reverse order, so the order leaves no bias to first order (a symmetric net sags
  // symmetrically).
  auto dashpot = [&](NetLink& l) {
    if (l.broken || l.damping <= 0.0) return;
    const double ia = inverse_mass(l.a), ib = inverse_mass(l.b);
    if (ia + ib <= 0.0) return;
    const Vec3& e = l.direction;
    if (e.squaredNorm() == 0.0) return;  // coincident nodes: no line to act along
    const double w = (bodies.velocity[l.b] - bodies.velocity[l.a]).dot(e);  // elongation rate
    const double w_after = w * std::exp(-0.5 * l.damping * dt * (ia + ib));
    const double p = (w - w_after) / (ia + ib);  // impulse pulling the nodes together
    double gained = 0.0;
    push(l.a, (p * ia) * e, gained);
    push(l.b, (-p * ib) * e, gained);
    kick.damped -= gained;
    l.tension += p / dt;
  };
  for (NetLink& l : net.links) dashpot(l);
  for (auto it = net.links.rbegin(); it != net.links.rend(); ++it) dashpot(*it);
  for (const NetLink& l : net.links) {
    if (l.broken) continue;
    const double ia = inverse_mass(l.a), ib = inverse_mass(l.b);
    if (ia != 0.0 && ib != 0.0) continue;
    const Vec3& e = l.direction;
    if (ia == 0.0) net.clamp_force += l.tension * e;  // a clamped node is pulled towards b
    if (ib == 0.0) net.clamp_force -= l.tension * e;
  }
  return kick;
}

}  // namespace etdem
