// A compliant reference for impulse solvers: the same balls and contacts, with explicit contact
// forces integrated in time by velocity Verlet with a step far below the contact time, so the
// outcome of a multiple impact can be compared with its compliant limit (LZB 2009 Table 5).
//
// Contact law (LZB 2009 §3, Eq. 3.1, and part I's mono- and bi-stiffness models), with the
// indentation delta_j = -integral of u_n,j dt along the fixed contact normal (small displacements:
// positions, normals and lever arms stay those of the contact):
//   loading    lambda = K (delta - s)^eta                 s: origin of the loading curve
//   mono       unloading on the same curve; when the stored energy K (delta - s)^(eta+1)/(eta+1)
//              falls to (1 - e^2) W_c the force drops to zero (LZB Eq. 2.13): the contact opens
//              with a permanent set s = delta there
//   bi         unloading lambda = K/e^(2 eta) (delta - r)^eta, r = delta_m - e^2 (delta_m - s),
//              which releases e^2 of the compression work; opens at delta = r with s = r
//   reloading  during unloading: mono continues on its curve; bi follows a loading curve of
//              stiffness K through the current point (LZB Eq. 1.6: Tra = 1 while compressing)
//   open       no force until delta exceeds s again: a contact that separated must close its gap
// With e = 0 the contact opens at its peak. A contact's phase changes with the sign of
// delta_dot at the half step. Only ratios of stiffnesses and masses matter for the outcome
// (power laws), so K = Contact::stiffness as given.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "chains.hpp"

namespace etdem::test {

struct CompliantSettings {
  double eta = 1.5;
  bool bi = false;              // bi-stiffness unloading (else mono-stiffness with Eq. 2.13)
  double dt_fraction = 2e-5;    // time step as a fraction of the contact time scale t*
  long max_steps = 20'000'000;  // bound on time steps; reaching it leaves finished = false
};

struct CompliantOutcome {
  long steps = 0;
  double time = 0.0;      // [s] from first touch until no contact is loaded or approaching
  bool finished = false;  // false: max_steps reached
};

/// Runs the impact of `balls` (velocities updated in place) until every contact is open and none
/// approaches. t* = delta*/v with delta* = (m v^2 / K)^(1/(eta+1)) for the fastest approach v,
/// the lightest effective mass m and the stiffest contact K.
inline CompliantOutcome compliant_impact(Balls& balls, const CompliantSettings& set) {
  enum class Phase { Open, Loading, Unloading };
  struct State {
    Phase phase = Phase::Open;
    double delta = 0.0;  // indentation [m]
    double s = 0.0;      // origin of the loading curve
    double r = 0.0;      // origin of the bi-stiffness unloading curve
    double peak = 0.0;   // delta_m of the current loading
  };
  std::vector<Contact>& cs = balls.contacts;
  const int n = static_cast<int>(cs.size());
  std::vector<State> st(n);
  std::vector<double> force(n, 0.0), dd(n, 0.0);
  const double eta = set.eta;
  IslandBodies view = balls.view();
  auto rate = [&](int j) { return -cs[j].normal.dot(impulse::relative_velocity(cs[j], view)); };

  double v = 0.0, m = 1e300, k = 0.0;
  for (int j = 0; j < n; ++j) {
    v = std::max(v, rate(j));
    m = std::min(m, 1.0 / cs[j].normal.dot(impulse::collision_matrix(cs[j], view) * cs[j].normal));
    k = std::max(k, cs[j].stiffness);
  }
  CompliantOutcome out;
  if (v <= 0.0) {
    out.finished = true;
    return out;
  }
  const double dstar = std::pow(m * v * v / k, 1.0 / (eta + 1.0));
  const double dt = set.dt_fraction * dstar / v;

  auto update_force = [&](int j) {
    State& c = st[j];
    const Contact& ct = cs[j];
    const double kj = ct.stiffness, e = ct.restitution;
    const double d = dd[j];
    switch (c.phase) {
      case Phase::Open:
        if (c.delta > c.s) {
          c.phase = Phase::Loading;
          c.peak = c.delta;
        }
        break;
      case Phase::Loading:
        c.peak = std::max(c.peak, c.delta);
        if (d < 0.0) {
          if (e <= 0.0) {
            c.phase = Phase::Open;
            c.s = c.peak;
          } else if (set.bi) {
            c.phase = Phase::Unloading;
            c.r = c.peak - e * e * (c.peak - c.s);
          } else {
            c.phase = Phase::Unloading;  // W_c = K (delta_m - s)^(eta+1) / (eta+1)
          }
        }
        break;
      case Phase::Unloading:
        if (set.bi) {
          if (c.delta <= c.r) {
            c.phase = Phase::Open;
            c.s = c.r;
          } else if (d > 0.0) {
            c.phase = Phase::Loading;
            c.s = c.delta - (c.delta - c.r) / (e * e);
            c.peak = c.delta;
          }
        } else {
          // E = (1 - e^2) W_c at delta - s = (1 - e^2)^(1/(eta+1)) (delta_m - s).
          const double end = c.s + std::pow(1.0 - e * e, 1.0 / (eta + 1.0)) * (c.peak - c.s);
          if (c.delta <= end) {
            c.phase = Phase::Open;
            c.s = end;
          } else if (d > 0.0) {
            c.phase = Phase::Loading;
            c.peak = c.delta;
          }
        }
        break;
    }
    double f = 0.0;
    if (c.phase == Phase::Loading || (c.phase == Phase::Unloading && !set.bi))
      f = c.delta > c.s ? kj * std::pow(c.delta - c.s, eta) : 0.0;
    else if (c.phase == Phase::Unloading)
      f = c.delta > c.r ? kj / std::pow(ct.restitution, 2.0 * eta) * std::pow(c.delta - c.r, eta)
                        : 0.0;
    force[j] = f;
  };
  auto kick = [&](double h) {
    for (int j = 0; j < n; ++j)
      if (force[j] > 0.0) impulse::apply(cs[j], view, (force[j] * h) * cs[j].normal);
  };

  for (int j = 0; j < n; ++j) {
    dd[j] = rate(j);
    update_force(j);
  }
  for (out.steps = 0; out.steps < set.max_steps; ++out.steps) {
    bool active = false;
    for (int j = 0; j < n; ++j)
      if (st[j].phase != Phase::Open || dd[j] > 0.0) active = true;
    if (!active) {
      out.finished = true;
      break;
    }
    kick(0.5 * dt);
    for (int j = 0; j < n; ++j) {
      dd[j] = rate(j);
      st[j].delta += dd[j] * dt;
    }
    for (int j = 0; j < n; ++j) update_force(j);
    kick(0.5 * dt);
    for (int j = 0; j < n; ++j) dd[j] = rate(j);
    out.time += dt;
  }
  return out;
}

}  // namespace etdem::test
