#include "etdem/solvers/resting.hpp"

#include <algorithm>
#include <cmath>

#include "etdem/solvers/impulse.hpp"

namespace etdem {

void RestingSolver::prepare(int threads) { scratch_.resize(std::max(threads, 1)); }

SolverStats RestingSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  const std::size_t n = cs.size();
  if (n == 0) return st;
  Scratch& s = scratch_[thread];
  s.k.resize(n);
  s.normal_mass.resize(n);
  s.t1.resize(n);
  s.t2.resize(n);
  s.tangent_mass.resize(n);
  s.pn.assign(n, 0.0);
  s.pt.assign(n, Eigen::Vector2d::Zero());
  for (std::size_t i = 0; i < n; ++i) {
    const Contact& c = cs[i];
    s.k[i] = impulse::collision_matrix(c, b);
    s.normal_mass[i] = 1.0 / c.normal.dot(s.k[i] * c.normal);
    s.t1[i] = any_orthogonal(c.normal);
    s.t2[i] = c.normal.cross(s.t1[i]);
    Eigen::Matrix2d kt;
    kt << s.t1[i].dot(s.k[i] * s.t1[i]), s.t1[i].dot(s.k[i] * s.t2[i]),  //
        s.t2[i].dot(s.k[i] * s.t1[i]), s.t2[i].dot(s.k[i] * s.t2[i]);
    s.tangent_mass[i] = kt.inverse();
  }
  // Each update is either a normal or a tangential impulse; its whole work (Eq. 16, exactly the
  // change of kinetic energy) is booked to restitution (normal, e = 0) or friction (tangential).
  auto book = [&](const Contact& c, const Mat3& k, const Vec3& u, const Vec3& p, bool normal) {
    const double w = impulse::work(k, u, p);
    (normal ? st.dissipated_restitution : st.dissipated_friction) -= w;
    impulse::apply(c, b, p);
    ++st.iterations;
  };
  // Warm start: last step's impulses of the same contacts, projected onto this step's tangent
  // plane and clipped to the friction disc, applied before the first sweep. Their work is booked
  // like any other impulse's.
  for (std::size_t i = 0; i < n; ++i) {
    const Contact& c = cs[i];
    if (c.normal_impulse <= 0.0) continue;
    s.pn[i] = settings_.warm_start * c.normal_impulse;
    Eigen::Vector2d pt(s.t1[i].dot(c.tangent_impulse), s.t2[i].dot(c.tangent_impulse));
    pt *= settings_.warm_start;
    const double limit = c.friction * s.pn[i];
    if (pt.norm() > limit) pt *= limit / pt.norm();
    s.pt[i] = pt;
    book(c, s.k[i], impulse::relative_velocity(c, b), s.pn[i] * c.normal, true);
    book(c, s.k[i], impulse::relative_velocity(c, b), pt.x() * s.t1[i] + pt.y() * s.t2[i], false);
  }
  for (int sweep = 0; sweep < settings_.iterations; ++sweep) {
    ++st.rounds;
    double largest_change = 0.0, largest_impulse = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const Contact& c = cs[i];
      // Normal: target u_n = 0 (e = 0), or for a contact still apart by g > 0 the speed that
      // closes the gap within the step, u_n = -g / dt (speculative contact: a grain pushed
      // towards a near neighbour stops at it instead of entering it). Accumulated impulse >= 0.
      Vec3 u = impulse::relative_velocity(c, b);
      const double target = c.gap > 0.0 && settings_.dt > 0.0 ? -c.gap / settings_.dt : 0.0;
      const double pn_new =
          std::max(0.0, s.pn[i] - s.normal_mass[i] * (c.normal.dot(u) - target));
      const double dpn = pn_new - s.pn[i];
      if (dpn != 0.0) {
        book(c, s.k[i], u, dpn * c.normal, true);
        s.pn[i] = pn_new;
      }
      largest_change = std::max(largest_change, std::abs(dpn));
      largest_impulse = std::max(largest_impulse, s.pn[i]);
      // Tangential: target zero slip, accumulated impulse clamped to the Coulomb disc.
      if (c.friction <= 0.0) continue;
      u = impulse::relative_velocity(c, b);
      const Eigen::Vector2d ut(s.t1[i].dot(u), s.t2[i].dot(u));
      Eigen::Vector2d pt_new = s.pt[i] - s.tangent_mass[i] * ut;
      const double limit = c.friction * s.pn[i];
      const double norm = pt_new.norm();
      if (norm > limit) {
        // Sliding: the friction impulse opposes the slip (Coulomb), rather than lying along
        // the coupled tangent-mass direction, which at a box corner leans sideways and loses
        // friction (the same choice as ETM's friction direction, solvers/impulse.hpp).
        // Near sticking (slip below the slip velocity) the usual projection onto the disc is
        // kept, so a block that should stick converges to zero slip.
        const double slip = ut.norm();
        pt_new = slip > settings_.slip_velocity ? Eigen::Vector2d(-limit / slip * ut)
                                                : Eigen::Vector2d(pt_new * (limit / norm));
      }
      const Eigen::Vector2d dpt = pt_new - s.pt[i];
      if (dpt.x() != 0.0 || dpt.y() != 0.0) {
        book(c, s.k[i], u, dpt.x() * s.t1[i] + dpt.y() * s.t2[i], false);
        s.pt[i] = pt_new;
      }
      largest_change = std::max(largest_change, dpt.norm());
    }
    if (largest_change <= settings_.tolerance * largest_impulse) break;
    if (sweep + 1 == settings_.iterations && largest_change > settings_.tolerance * largest_impulse)
      ++st.guards_fired;  // sweep bound reached before the tolerance: counted, not silent
  }
  for (std::size_t i = 0; i < n; ++i) {
    Contact& c = cs[i];
    c.normal_impulse = s.pn[i];
    c.tangent_impulse = s.pt[i].x() * s.t1[i] + s.pt[i].y() * s.t2[i];
    if (c.normal.dot(impulse::relative_velocity(c, b)) < -1e-9) ++st.approaching_left;
  }
  return st;
}

}  // namespace etdem
