// The resting pass's sweeps (RestingPass::sweep_all): projected Gauss-Seidel on accumulated
// impulses over every row, in the blocked order on every thread or in island order, until the
// largest change is below the tolerance or the bound is reached (counted); and the convergence
// probe every sweep of the pass reports to.
#include <algorithm>
#include <cmath>

#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {
namespace {

/// One projected Gauss-Seidel update of row i: its normal impulse towards its target (0, or
/// -g / dt for a contact still apart by g: a speculative contact), then its rolling resistance,
/// then its friction towards zero slip within the Coulomb disc.
void relax(RestingWork& w, std::size_t i, RestingSweep& sw, double slip_velocity) {
  RestingRows& r = w.rows;
  w.relax_normal(i, sw);
  if (r.rolling[i] > 0.0 && !(r.pn[i] == 0.0 && r.pr[i].x() == 0.0 && r.pr[i].y() == 0.0)) {
    // Rolling resistance: target no relative rolling, the accumulated angular impulse within
    // the disc of radius mu_r R_eff p_n (the rolling torque's bound over the step).
    const Vec3 spin = w.relative_spin(i, w.bodies);
    const Eigen::Vector2d ur(r.t1[i].dot(spin), r.t2[i].dot(spin));
    const Eigen::Vector2d pr_new = onto_disc(r.pr[i] - r.roll_mass[i] * ur, r.rolling[i] * r.pn[i]);
    const Eigen::Vector2d dpr = pr_new - r.pr[i];
    if (dpr.x() != 0.0 || dpr.y() != 0.0) {
      w.apply_rolling(i, dpr, sw);
      r.pr[i] = pr_new;
    }
    // The convergence test compares impulses: an angular one counts as the force impulse at
    // the contact point with the same moment about A's centre (B's when A is static).
    const double lever = (r.a[i] >= 0 ? r.ra[i] : r.rb[i]).norm();
    if (lever > 0.0) sw.change = std::max(sw.change, dpr.norm() / lever);
  }
  // A row with no normal and no tangential impulse has a disc of radius 0: its update would give
  // +-0 and change nothing, so it is skipped (separating rows cost one speed only).
  if (r.friction[i] <= 0.0) return;
  if (r.pn[i] == 0.0 && r.pt[i].x() == 0.0 && r.pt[i].y() == 0.0) return;
  const Eigen::Vector2d ut(w.speed(i, r.t1[i]), w.speed(i, r.t2[i]));
  Eigen::Vector2d pt_new = r.pt[i] - r.tangent_mass[i] * ut;
  const double limit = r.friction[i] * r.pn[i];
  // Inside the disc by a margin far above round-off, the root is not needed to know it (a
  // sticking row, most of a pile's).
  const double norm_squared = pt_new.squaredNorm();
  const double norm = norm_squared < kInsideDisc * (limit * limit) ? 0.0 : std::sqrt(norm_squared);
  if (norm > limit) {
    // Sliding: the friction impulse opposes the slip (Coulomb), rather than lying along the
    // coupled tangent-mass direction, which at a box corner leans sideways and loses friction
    // (ETM's friction direction, solvers/impulse.hpp). Near sticking (slip below the slip
    // velocity) the projection onto the disc is kept, so a block that should stick converges
    // to zero slip.
    const double slip = ut.norm();
    pt_new = slip > slip_velocity ? Eigen::Vector2d(-limit / slip * ut)
                                  : Eigen::Vector2d(pt_new * (limit / norm));
  }
  const Eigen::Vector2d dpt = pt_new - r.pt[i];
  if (dpt.x() != 0.0 || dpt.y() != 0.0) {
    w.apply_tangent(i, dpt, sw);
    r.pt[i] = pt_new;
  }
  sw.change_squared = std::max(sw.change_squared, dpt.squaredNorm());
}

}  // namespace

void RestingPass::sweep_all(RestingWork& w) const {
  const std::size_t n = w.rows.size();
  const double slip = settings_.slip_velocity;
  for (int k = 0; k < settings_.iterations; ++k) {
    const RestingSweep sw =
        run_rows(w, n, [&](std::size_t i, RestingSweep& mine) { relax(w, i, mine, slip); });
    if (finish_sweep(w, sw, k, static_cast<long>(n))) return;
  }
  ++w.stats.guards_fired;
}

bool RestingPass::finish_sweep(RestingWork& w, const RestingSweep& sw, int k, long swept) const {
  // Converged: no impulse changed by more than the tolerance times the largest accumulated normal
  // impulse (two maxima: independent of the order the blocks were merged in).
  ++w.stats.rounds;
  w.stats.iterations += sw.updates;
  const bool converged = sw.largest_change() <= settings_.tolerance * sw.impulse;
  if (resting_probe && !w.share.team) probe(w, k, swept, converged);
  return converged;
}

void RestingPass::probe(const RestingWork& w, int sweep, long swept, bool converged) const {
  const std::size_t n = w.rows.size();
  RestingProbe p;
  p.set = w.probe_set;
  p.sweep = sweep;
  p.island = static_cast<long>(n);
  p.swept = swept;
  p.converged = converged;
  for (std::size_t i = 0; i < n; ++i) {
    const double excess = w.rows.target[i] - w.closing_speed(i);
    if (excess <= kApproachSlack) continue;
    ++p.approaching;
    p.faster_1mm += excess > 1e-3;
    p.fastest = std::max(p.fastest, excess);
  }
  for (std::size_t i = 0; i < n; ++i) p.normal_impulses += w.rows.pn[i];
  resting_probe(p);
}

}  // namespace etdem
