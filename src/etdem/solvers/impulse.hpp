// Shared impulse mathematics used by every solver: the collision matrix, relative velocity,
// applying an impulse, the frictional impulse of ETM 2014 Eqs. 50-55 and the work of an impulse
// (Eqs. 16 and 18).
#pragma once

#include "etdem/collision/contact.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem::impulse {

inline double inv_mass(const IslandBodies& b, int i) {
  return i < 0 ? 0.0 : b.inv_mass[i];
}

/// Collision matrix K = (1/m_A + 1/m_B) 1 - (r~_A I_A^-1 r~_A + r~_B I_B^-1 r~_B), ETM 2014 Eq. 9.
/// Maps an impulse p (applied +p to A, -p to B) to the change of relative velocity: du = K p.
inline Mat3 collision_matrix(const Contact& c, const IslandBodies& b) {
  Mat3 k = (inv_mass(b, c.a) + inv_mass(b, c.b)) * Mat3::Identity();
  if (c.a >= 0) {
    const Mat3 ra = skew(c.ra);
    k -= ra * b.inv_inertia[c.a] * ra;
  }
  if (c.b >= 0) {
    const Mat3 rb = skew(c.rb);
    k -= rb * b.inv_inertia[c.b] * rb;
  }
  return k;
}

/// Inverse of K restricted to the tangent plane spanned by t1, t2: the 2x2 mass that maps a
/// tangential slip (along t1, t2) to the impulse that stops it.
inline Eigen::Matrix2d tangent_mass(const Mat3& k, const Vec3& t1, const Vec3& t2) {
  Eigen::Matrix2d kt;
  kt << t1.dot(k * t1), t1.dot(k * t2), t2.dot(k * t1), t2.dot(k * t2);
  return kt.inverse();
}

/// u = (v_A + w_A x r_A) - (v_B + w_B x r_B), ETM 2014 Eqs. 1-2, of contact c's levers between
/// bodies a and b (-1: a static body, no velocity), whose velocities v(i) and w(i) give. Every
/// caller reads it through here, so the same state gives the same bits wherever it is held.
template <class V, class W>
Vec3 relative_velocity(const Contact& c, int a, int b, V&& v, W&& w) {
  Vec3 u = Vec3::Zero();
  if (a >= 0) u += v(a) + w(a).cross(c.ra);
  if (b >= 0) u -= v(b) + w(b).cross(c.rb);
  return u;
}

inline Vec3 relative_velocity(const Contact& c, const IslandBodies& b) {
  return relative_velocity(
      c, c.a, c.b, [&](int i) -> const Vec3& { return b.v[i]; },
      [&](int i) -> const Vec3& { return b.w[i]; });
}

/// Relative angular velocity w_A - w_B (the rolling and twisting of a contact).
inline Vec3 relative_spin(const Contact& c, const IslandBodies& b) {
  Vec3 w = Vec3::Zero();
  if (c.a >= 0) w += b.w[c.a];
  if (c.b >= 0) w -= b.w[c.b];
  return w;
}

/// Applies +p to A and -p to B at the contact point, Eqs. 4-5.
inline void apply(const Contact& c, IslandBodies& b, const Vec3& p) {
  if (c.a >= 0) {
    b.v[c.a] += b.inv_mass[c.a] * p;
    b.w[c.a] += b.inv_inertia[c.a] * c.ra.cross(p);
  }
  if (c.b >= 0) {
    b.v[c.b] -= b.inv_mass[c.b] * p;
    b.w[c.b] -= b.inv_inertia[c.b] * c.rb.cross(p);
  }
}

/// Impulse that changes the relative normal velocity by du_n with Coulomb friction, ETM 2014
/// Eqs. 50-55. First the sticking impulse that also zeroes the tangential relative velocity
/// (Eq. 50, p = K^-1 du). If it violates |p_t| <= mu |p_n| (Eq. 53), the sliding impulse
/// p = p_n (n + mu q) with p_n = du_n / (n.K(n + mu q)) (Eqs. 54-55).
/// The friction direction q: Eq. 13 as printed is not a unit vector; the paper's q lies along the
/// tangential part of the trial impulse. Where the bodies slip we take q opposite to the slip
/// velocity instead (Coulomb: sliding friction opposes slip). The two agree for a sphere; for a
/// box corner the collision matrix couples normal and tangential directions, the trial impulse
/// leans sideways, and the paper's reading loses 14 % of the friction of a block sliding on an
/// incline (V6, measured). Without slip the trial impulse's direction is used (docs/solvers.md).
/// With mu = 0 this is the pure normal impulse p = du_n / (n.K n) n.
inline Vec3 frictional_impulse(const Mat3& k, const Mat3& k_inv, const Vec3& n, const Vec3& u,
                               double du_n, double mu, bool* sliding = nullptr) {
  if (mu <= 0.0) {
    if (sliding) *sliding = true;
    return (du_n / n.dot(k * n)) * n;
  }
  const double un = n.dot(u);
  const Vec3 du = (un + du_n) * n - u;  // target: u_t = 0, u_n + du_n
  const Vec3 p = k_inv * du;
  const double pn = n.dot(p);
  const Vec3 pt = p - pn * n;
  const double ptn = pt.norm();
  if (ptn <= mu * std::abs(pn)) {
    if (sliding) *sliding = false;
    return p;
  }
  if (sliding) *sliding = true;
  const Vec3 ut = u - un * n;
  const double utn = ut.norm();
  const Vec3 q = utn > 1e-12 * u.norm() ? Vec3(-ut / utn) : Vec3(pt / ptn);
  const Vec3 dir = n + mu * q;
  const double pn_slide = du_n / n.dot(k * dir);
  return pn_slide * dir;
}

/// Whether a frictional impulse is admissible: it pushes (p.n > 0), is finite, and its
/// tangential part does no positive work beyond round-off (1e-9 of the normal work). With a
/// coupled collision matrix (a box corner) and large mu the sliding impulse of Eqs. 54-55 (SQM's
/// Eqs. 75-76 alike) can violate either: n.K(n + mu q) <= 0 makes it pull, and the slip can
/// reverse within one impulse (Kane's paradox), so friction would add energy. `wn` is the normal
/// work (Eq. 18), `w` the whole work (Eq. 16).
inline bool friction_dissipates(const Vec3& n, const Vec3& p, double wn, double w) {
  if (!(n.dot(p) > 0.0) || !p.allFinite()) return false;
  return w - wn <= 1e-9 * std::abs(wn);
}

/// The impulse every heap-ordered solver applies: frictional_impulse(), replaced by the
/// frictionless impulse of the same du_n when friction would do positive work or pull
/// (friction_dissipates); the replacement is reported so the solver counts it.
struct GuardedImpulse {
  Vec3 p{0, 0, 0};           // impulse on A (-p on B) [N s]
  double normal_work = 0.0;  // Eq. 18 [J]
  double work = 0.0;         // Eq. 16, normal and tangential [J]
  bool fallback = false;     // friction was dropped
};
inline GuardedImpulse guarded_frictional_impulse(const Mat3& k, const Mat3& k_inv, const Vec3& n,
                                                 const Vec3& u, double du_n, double mu);

/// Work of impulse p on the relative motion, Eq. 16/21: dW = 1/2 (u_before + u_after) . p,
/// with u_after = u + K p. Equals the change of kinetic energy of the two bodies.
inline double work(const Mat3& k, const Vec3& u, const Vec3& p) {
  return 0.5 * (2.0 * u + k * p).dot(p);
}

/// Work of the normal component, Eq. 18: dW_n = 1/2 (2 u_n + du_n) p_n.
inline double normal_work(const Vec3& n, const Mat3& k, const Vec3& u, const Vec3& p) {
  const double pn = n.dot(p);
  const double du_n = n.dot(k * p);
  return 0.5 * (2.0 * n.dot(u) + du_n) * pn;
}

inline GuardedImpulse guarded_frictional_impulse(const Mat3& k, const Mat3& k_inv, const Vec3& n,
                                                 const Vec3& u, double du_n, double mu) {
  GuardedImpulse g;
  g.p = frictional_impulse(k, k_inv, n, u, du_n, mu);
  g.normal_work = normal_work(n, k, u, g.p);
  g.work = work(k, u, g.p);
  if (mu > 0.0 && !friction_dissipates(n, g.p, g.normal_work, g.work)) {
    g.p = frictional_impulse(k, k_inv, n, u, du_n, 0.0);
    g.normal_work = normal_work(n, k, u, g.p);
    g.work = g.normal_work;
    g.fallback = true;
  }
  return g;
}

}  // namespace etdem::impulse
