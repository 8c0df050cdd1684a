#include "etdem/solvers/lzb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/solvers/impulse.hpp"

namespace etdem {
namespace {

constexpr double kNoEvent = 2.0;  // a fraction of the step beyond its end

/// First tau >= 0 at which c0 + a tau + b tau^2 falls to zero, given c0 > 0; kNoEvent if never.
/// Written without cancellation for either sign of a.
double first_descending_root(double c0, double a, double b) {
  const double disc = a * a - 4.0 * b * c0;
  if (disc < 0.0) return kNoEvent;  // stays positive (b > 0)
  const double s = std::sqrt(disc);
  if (a <= 0.0) return s - a > 0.0 ? 2.0 * c0 / (s - a) : kNoEvent;
  if (b < 0.0) return (a + s) / (-2.0 * b);
  return kNoEvent;  // rising and convex: never reaches zero
}

/// Sign-split of the trapezoidal work of one step, Eq. 2.9: the part done while compressing
/// (delta_dot > 0, >= 0) and while expanding (<= 0). delta_dot is linear in the impulse within an
/// Euler step, so the split at its zero is exact.
void split_work(double d0, double d1, double dp, double& compression, double& expansion) {
  compression = expansion = 0.0;
  if (d0 > 0.0 && d1 < 0.0) {
    const double f = d0 / (d0 - d1);
    compression = 0.5 * dp * f * d0;
    expansion = 0.5 * dp * (1.0 - f) * d1;
  } else if (d0 < 0.0 && d1 > 0.0) {
    const double f = -d0 / (d1 - d0);
    expansion = 0.5 * dp * f * d0;
    compression = 0.5 * dp * (1.0 - f) * d1;
  } else {
    const double w = 0.5 * dp * (d0 + d1);
    (w > 0.0 ? compression : expansion) = w;
  }
}

}  // namespace

void LzbSolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
}

void LzbSolver::setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const {
  const int n = static_cast<int>(cs.size());
  // Body -> contacts adjacency.
  s.graph.build(cs, b.count);
  // Delassus rows D_jk = sum over the bodies shared by j and k of
  //   s_j s_k (1/m n_j.n_k + (r_j x n_j) . I^-1 (r_k x n_k)),
  // s = +1 where the body is A of the contact, -1 where it is B: the change of contact j's u_n
  // per unit normal impulse at contact k (W^T M^-1 W).
  s.row_start.assign(n + 1, 0);
  s.col.clear();
  s.val.clear();
  s.diag.assign(n, 0.0);
  s.cursor.assign(n, -1);  // position of column k in the current row, or -1
  for (int j = 0; j < n; ++j) {
    const Contact& cj = cs[j];
    const int row0 = static_cast<int>(s.col.size());
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? cj.a : cj.b;
      if (body < 0) continue;
      const double sj = side == 0 ? 1.0 : -1.0;
      const Vec3 tj = (side == 0 ? cj.ra : cj.rb).cross(cj.normal);
      const Vec3 itj = b.inv_inertia[body] * tj;
      for (const int k : s.graph.of(body)) {
        const Contact& ck = cs[k];
        // Contact k may touch this body as A, as B, or (degenerate) both; sum both sides.
        double d = 0.0;
        for (int kside = 0; kside < 2; ++kside) {
          if ((kside == 0 ? ck.a : ck.b) != body) continue;
          const double sk = kside == 0 ? 1.0 : -1.0;
          const Vec3 tk = (kside == 0 ? ck.ra : ck.rb).cross(ck.normal);
          d += sj * sk * (b.inv_mass[body] * cj.normal.dot(ck.normal) + itj.dot(tk));
        }
        if (s.cursor[k] < 0) {
          s.cursor[k] = static_cast<int>(s.col.size());
          s.col.push_back(k);
          s.val.push_back(d);
        } else {
          s.val[s.cursor[k]] += d;
        }
      }
      // A body listed twice in its contact list (contact with itself as A and B) is summed twice
      // above and over both sides: such a contact cannot occur (the narrow phase never pairs a body
      // with itself).
    }
    for (int q = row0; q < static_cast<int>(s.col.size()); ++q) {
      if (s.col[q] == j) s.diag[j] = s.val[q];
      s.cursor[s.col[q]] = -1;
    }
    s.row_start[j + 1] = static_cast<int>(s.col.size());
  }
  s.dd.resize(n);
  for (int j = 0; j < n; ++j) s.dd[j] = -cs[j].normal.dot(impulse::relative_velocity(cs[j], b));
  s.change.assign(n, 0.0);
  s.energy.assign(n, 0.0);
  s.work_c.assign(n, 0.0);
  s.impulse.assign(n, 0.0);
  s.increment.assign(n, 0.0);
  s.event.assign(n, kNoEvent);
}

double LzbSolver::termination_fraction(const Contact& c, const Scratch& s, int j) const {
  const double dp = s.increment[j];
  if (dp <= 0.0) return kNoEvent;
  const double d0 = s.dd[j], dd = s.change[j], e0 = s.energy[j];
  const double e = c.restitution;
  const bool bi = settings_.model == LzbSettings::Model::Bi;
  if (d0 > 0.0) {
    // Compressing: an event is possible only after the turning point theta_c.
    if (dd >= 0.0 || d0 > -dd) return kNoEvent;
    const double tc = -d0 / dd;
    if (e <= 0.0) return tc;  // no expansion (e = 0)
    const double peak = e0 + dp * (d0 * tc + 0.5 * dd * tc * tc);
    // From theta_c on, delta_dot = dd (theta - theta_c) and E = peak + dp dd tau^2 / 2 [/ e^2].
    const double c0 = bi ? peak : e * e * peak;  // above the target (1 - e^2) W_c resp. 0
    const double b2 = 0.5 * dp * dd / (bi ? e * e : 1.0);
    const double tau = first_descending_root(c0, 0.0, b2);
    return tau == kNoEvent ? kNoEvent : tc + tau;
  }
  // Expanding (or at rest) with energy stored.
  if (e <= 0.0) return 0.0;
  const double f = bi ? 1.0 / (e * e) : 1.0;
  const double c0 = bi ? e0 : e0 - (1.0 - e * e) * s.work_c[j];
  if (c0 <= 0.0) return 0.0;
  return first_descending_root(c0, dp * d0 * f, 0.5 * dp * dd * f);
}

SolverStats LzbSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  if (cs.empty()) return st;
  Scratch& s = scratch_[thread];
  setup(cs, b, s);
  const int n = static_cast<int>(cs.size());
  const bool bi = settings_.model == LzbSettings::Model::Bi;
  const double eta = settings_.eta;
  const double exp_k = 1.0 / (eta + 1.0);  // stiffness-ratio exponent, Eq. 1.2
  const double exp_e = eta / (eta + 1.0);  // energy-ratio exponent (docs/errata.md), Eqs. 1.2, 2.15

  double fastest = 0.0;
  for (int j = 0; j < n; ++j) fastest = std::max(fastest, s.dd[j]);
  if (fastest <= 0.0) return st;
  const double tol = settings_.velocity_tolerance * fastest;
  // Eqs. 2.1-2.2 with the momentum of the relative motion at each approaching contact.
  double p_est = 0.0;
  for (int j = 0; j < n; ++j)
    if (s.dd[j] > tol && s.diag[j] > 0.0) p_est += s.dd[j] / s.diag[j];
  if (!(p_est > 0.0)) return st;
  const double dp = p_est / std::max(settings_.steps, 1);

  long step = 0;
  bool guard = false;
  const long max_steps = std::max(settings_.max_steps, 1L);
  for (;; ++step) {
    // Primary contact: the highest stored energy (Eq. 2.11); ties go to the lower index.
    int primary = -1;
    for (int j = 0; j < n; ++j)
      if (s.energy[j] > 0.0 && (primary < 0 || s.energy[j] > s.energy[primary])) primary = j;
    std::fill(s.increment.begin(), s.increment.end(), 0.0);
    if (primary < 0) {
      // Start of an impact: the fastest approaching contact leads (Eq. 2.3), the other
      // approaching contacts follow by their velocity ratios (Eq. 2.4).
      for (int j = 0; j < n; ++j)
        if (s.dd[j] > tol && s.diag[j] > 0.0 && (primary < 0 || s.dd[j] > s.dd[primary]))
          primary = j;
      if (primary < 0) break;  // nothing stored, nothing approaching: the impact is over
      const double ki = cs[primary].stiffness, di = s.dd[primary];
      for (int j = 0; j < n; ++j) {
        if (s.dd[j] <= tol || s.diag[j] <= 0.0) continue;
        s.increment[j] =
            j == primary ? dp : (cs[j].stiffness / ki) * std::pow(s.dd[j] / di, eta) * dp;
      }
    } else {
      const double ki = cs[primary].stiffness, ei = s.energy[primary];
      for (int j = 0; j < n; ++j) {
        if (j == primary) {
          s.increment[j] = dp;
        } else if (s.energy[j] > 0.0) {  // distributing law, Eqs. 1.2, 2.7
          s.increment[j] =
              std::pow(cs[j].stiffness / ki, exp_k) * std::pow(s.energy[j] / ei, exp_e) * dp;
        } else if (s.dd[j] > tol && s.diag[j] > 0.0) {  // entering contact, Eq. 2.16
          const double start =
              (cs[j].stiffness / ki) * std::pow(s.dd[j] / ei, eta) * std::pow(dp, eta + 1.0);
          s.increment[j] = std::min(start, dp);
        }
      }
    }
    if (step >= max_steps) {
      guard = true;
      break;
    }
    // Change of every delta_dot over the full step, Eqs. 2.5 and 2.8: -D dP.
    std::fill(s.change.begin(), s.change.end(), 0.0);
    for (int k = 0; k < n; ++k) {
      const double pk = s.increment[k];
      if (pk == 0.0) continue;
      for (int q = s.row_start[k]; q < s.row_start[k + 1]; ++q) s.change[s.col[q]] -= s.val[q] * pk;
    }
    // Shorten the step to the first termination inside it (the paper's critical points).
    double theta = 1.0;
    for (int j = 0; j < n; ++j) {
      s.event[j] = termination_fraction(cs[j], s, j);
      theta = std::min(theta, s.event[j]);
    }
    theta = std::max(theta, 0.0);
    ++st.rounds;
    for (int j = 0; j < n; ++j) {
      const double pj = theta * s.increment[j];
      const double d0 = s.dd[j];
      const double d1 = d0 + theta * s.change[j];
      s.dd[j] = d1;
      if (s.increment[j] <= 0.0) continue;
      if (pj > 0.0) ++st.iterations;
      s.impulse[j] += pj;
      double wc, we;
      split_work(d0, d1, pj, wc, we);
      const double e_old = s.energy[j];
      const double e = cs[j].restitution;
      if (bi && e > 0.0) {
        // Eq. 2.10: the expansion releases 1/e^2 times its work; the difference is lost.
        s.energy[j] = e_old + wc + we / (e * e);
        st.dissipated_restitution -= we * (1.0 / (e * e) - 1.0);
      } else {
        s.energy[j] = e_old + wc + we;  // Eq. 2.9
      }
      // W_c: the energy at the end of the last compression (Eq. 1.4).
      if (d1 > 0.0)
        s.work_c[j] = s.energy[j];
      else if (d0 > 0.0)
        s.work_c[j] = e_old + wc;
      // Termination, Eqs. 2.12 and 2.13: at the located event, or when the condition holds.
      const double target = bi ? 0.0 : (1.0 - e * e) * s.work_c[j];
      const double slack = 1e-12 * std::max(s.work_c[j], s.energy[j]);
      const bool ends = s.event[j] <= theta + 1e-12 || (d1 <= 0.0 && s.energy[j] <= target + slack);
      if (!ends) continue;
      if (e <= 0.0) {
        st.dissipated_restitution += s.energy[j];  // e = 0: everything stored is lost
      } else if (bi) {
        st.truncated += s.energy[j];  // round-off of the located event
      } else {
        st.dissipated_restitution += target;
        st.truncated += s.energy[j] - target;
      }
      s.energy[j] = 0.0;
      s.work_c[j] = 0.0;
    }
  }
  if (guard) {
    ++st.guards_fired;
    for (int j = 0; j < n; ++j) {
      st.truncated += s.energy[j];  // energy still stored when the guard stopped the impact
      s.energy[j] = 0.0;
    }
  }
  // The accumulated impulses, applied once: v += M^-1 W P.
  for (int j = 0; j < n; ++j) {
    if (s.impulse[j] == 0.0) continue;
    impulse::apply(cs[j], b, s.impulse[j] * cs[j].normal);
  }
  for (int j = 0; j < n; ++j)
    if (cs[j].normal.dot(impulse::relative_velocity(cs[j], b)) < -tol) ++st.approaching_left;
  return st;
}

std::vector<Setting<LzbSettings>> lzb_setting_keys() {
  using namespace setting;
  using L = LzbSettings;
  std::vector<Setting<L>> v;
  v.push_back(field<L>("eta", "", left_open(0, 10),
                       "force-indentation exponent: 1 linear, 1.5 Hertz", &L::eta));
  v.push_back(named<L, L::Model>(
      "model", {{"mono", L::Model::Mono}, {"bi", L::Model::Bi}},
      "mono-stiffness (energy discarded at the end of expansion, LZB Eq. 2.13) or bi-stiffness "
      "(stiffer unloading, Eq. 2.10)",
      &L::model));
  v.push_back(field<L>("steps", "", closed(1, 1e8), "N of LZB Eq. 2.2: impulse step = P_est / N",
                       &L::steps));
  v.push_back(field<L>("max_steps", "", at_least(1),
                       "cap on impulse steps per collision group and step (a guard, counted)",
                       &L::max_steps));
  v.push_back(field<L>(
      "velocity_tolerance", "1", half_open(0, 1),
      "a contact with no stored energy takes part only while it approaches faster than this "
      "times the collision group's fastest initial approach",
      &L::velocity_tolerance));
  return v;
}

}  // namespace etdem
