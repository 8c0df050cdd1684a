#include "etdem/solvers/etm.hpp"

#include <algorithm>
#include <cmath>

#include "etdem/solvers/etm_rounds.hpp"
#include "etdem/solvers/impulse.hpp"

namespace etdem {

void EtmSolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
}

void EtmSolver::setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const {
  s.EtmScratch::setup(cs, b, settings_.velocity_tolerance);
  s.increment.resize(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i)
    s.increment[i] = s.un[i] < 0.0 ? -s.un[i] / settings_.lambda : 0.0;
}

bool EtmSolver::compress(std::span<const Contact> cs, IslandBodies& b, Scratch& s,
                         SolverStats& st) const {
  const double tol = s.tolerance;
  s.heap.clear();
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (s.un[i] < -tol) s.heap.append(static_cast<int>(i), s.un[i]);
  s.heap.make();
  ContactHeap::Entry top;
  while (s.heap.pop(top)) {
    const int i = top.contact;
    const Contact& c = cs[i];
    const Vec3 u = impulse::relative_velocity(c, b);
    const double un = c.normal.dot(u);
    if (un >= -tol) continue;
    // The step is |u_n(s0)| / lambda; a contact driven into faster approach than it started
    // with (by its neighbours' impulses) takes |u_n| / lambda instead, so no contact needs more
    // than about lambda impulses per compression however small its initial approach was.
    s.increment[i] = std::max(s.increment[i], -un / settings_.lambda);
    // Eq. 63: the regular increment, or exactly to zero when it would overshoot.
    const double du = un + s.increment[i] < 0.0 ? s.increment[i] : -un;
    const impulse::GuardedImpulse g =
        impulse::guarded_frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du, c.friction);
    if (g.fallback) ++st.friction_fallbacks;
    s.elastic[i] -= g.normal_work;                     // Eq. 64 with W = - normal work
    st.dissipated_friction -= g.work - g.normal_work;  // tangential work (Eqs. 17, 19)
    impulse::apply(c, b, g.p);
    ++st.iterations;
    s.refresh_neighbours(cs, b, i, true, [&](int j) { return s.un[j]; });
    if (st.iterations >= settings_.max_iterations) return false;
  }
  return true;
}

bool EtmSolver::separate(std::span<const Contact> cs, IslandBodies& b, Scratch& s,
                         SolverStats& st) const {
  double peak = 0.0;
  for (double w : s.elastic) peak = std::max(peak, w);
  if (peak <= 0.0) return true;
  const double tol_w = settings_.energy_tolerance * peak;
  bool any = true;
  while (any) {
    any = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      double& w = s.elastic[i];
      if (w <= tol_w) continue;
      const Contact& c = cs[i];
      const Vec3 u = impulse::relative_velocity(c, b);
      const double un = c.normal.dot(u);
      const double inc = s.increment[i];
      Vec3 p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, inc, c.friction);
      // Eq. 49: the largest increment whose normal work releases exactly W, with the
      // effective normal compliance of the impulse (n.K n when frictionless).
      const double pn = c.normal.dot(p);
      const double compliance = pn > 0.0 ? inc / pn : c.normal.dot(s.k[i] * c.normal);
      const double du_max = -un + std::sqrt(un * un + 2.0 * w * compliance);
      const bool capped = inc > du_max;
      if (capped)
        p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du_max, c.friction);
      double wn = impulse::normal_work(c.normal, s.k[i], u, p);
      double wt = impulse::work(s.k[i], u, p);
      if (c.friction > 0.0 && !impulse::friction_dissipates(c.normal, p, wn, wt)) {
        const double n_k_n = c.normal.dot(s.k[i] * c.normal);
        const double du_free = std::min(inc, -un + std::sqrt(un * un + 2.0 * w * n_k_n));
        p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du_free, 0.0);
        wn = impulse::normal_work(c.normal, s.k[i], u, p);
        wt = wn;
        ++st.friction_fallbacks;
      }
      w -= wn;
      st.dissipated_friction -= (wt - wn);
      impulse::apply(c, b, p);
      ++st.iterations;
      if (w <= tol_w) {     // released (|w| round-off) or overshot (w < 0)
        st.truncated += w;  // round-off (frictionless) or the friction cap's inexactness
        w = 0.0;
      }
      any = true;
      if (st.iterations >= settings_.max_iterations) return false;
    }
  }
  return true;
}

SolverStats EtmSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  if (cs.empty()) return st;
  Scratch& s = scratch_[thread];
  setup(cs, b, s);
  run_etm_rounds(
      cs, b, EtmRoundState{s.un, s.elastic, s.restitution, s.tolerance}, settings_.max_rounds, st,
      [&] { return compress(cs, b, s, st); }, [&] { return separate(cs, b, s, st); },
      [](EtmPhase, long) {});
  return st;
}

std::vector<Setting<EtmSettings>> etm_setting_keys() {
  using namespace setting;
  std::vector<Setting<EtmSettings>> v;
  v.push_back(field<EtmSettings>("lambda", "", closed(1, 1e6),
                                 "velocity increments per collision (ETM 2014 Eq. 62)",
                                 &EtmSettings::lambda));
  add_etm_guard_keys(v);
  return v;
}

}  // namespace etdem
