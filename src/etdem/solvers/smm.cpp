#include "etdem/solvers/smm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "etdem/solvers/impulse.hpp"

namespace etdem {
namespace {

/// Iterates over the dynamic bodies of a contact: f(body, sign, r), sign +1 for A, -1 for B.
template <class F>
void for_each_side(const Contact& c, F&& f) {
  if (c.a >= 0) f(c.a, 1.0, c.ra);
  if (c.b >= 0) f(c.b, -1.0, c.rb);
}

bool finite(const Eigen::VectorXd& x) {
  return x.allFinite();
}

}  // namespace

void SmmSolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
  for (auto& s : scratch_)
    if (!s) s = std::make_unique<Scratch>();
}

bool SmmSolver::solve(std::span<const Contact> cs, const IslandBodies& b, Scratch& s,
                      SolverStats& st) const {
  const std::size_t n = cs.size();
  const int nb = b.count;
  auto sticks = [&](std::size_t i) { return cs[i].friction > 0.0 && !s.sliding[i]; };
  // Unknowns: three local components (n, t1, t2) of a sticking contact, one normal component of
  // a frictionless or sliding one.
  int m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s.column[i] = s.active[i] ? m : -1;
    if (s.active[i]) m += sticks(i) ? 3 : 1;
  }
  for (int k = 0; k < nb; ++k) {
    s.v1[k] = b.v[k];
    s.w1[k] = b.w[k];
  }
  std::fill(s.p.begin(), s.p.end(), Vec3::Zero());
  if (m == 0) {
    s.u1 = s.u0;
    return true;
  }
  ++st.rounds;
  // Row directions R (velocity components constrained) and column directions C (impulse
  // directions) of contact i's unknown k.
  auto row_dir = [&](std::size_t i, int k) -> Vec3 {
    return k == 0 ? cs[i].normal : (k == 1 ? s.t1[i] : s.t2[i]);
  };
  auto col_dir = [&](std::size_t i, int k) -> Vec3 {
    if (sticks(i)) return row_dir(i, k);
    return s.sliding[i] ? Vec3(cs[i].normal + cs[i].friction * s.q[i]) : cs[i].normal;
  };
  // R^T J (m x 6 nb): row of unknown (i, k) on body j: sign [rho, r x rho] (u = v + w x r, so
  // rho.u = rho.v + (r x rho).w). M^-1 J^T C (6 nb x m): the velocity change of body j per unit
  // of unknown (i, k): sign [d / m, I^-1 (r x d)] (Eqs. 78-81, 95, 99).
  s.triplets.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.active[i]) continue;
    const int nk = sticks(i) ? 3 : 1;
    for (int k = 0; k < nk; ++k) {
      const Vec3 rho = row_dir(i, k);
      const int row = s.column[i] + k;
      for_each_side(cs[i], [&](int j, double sign, const Vec3& r) {
        const Vec3 ang = r.cross(rho);
        for (int d = 0; d < 3; ++d) {
          s.triplets.emplace_back(row, 6 * j + d, sign * rho[d]);
          s.triplets.emplace_back(row, 6 * j + 3 + d, sign * ang[d]);
        }
      });
    }
  }
  s.jr.resize(m, 6 * nb);
  s.jr.setFromTriplets(s.triplets.begin(), s.triplets.end());
  s.triplets.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.active[i]) continue;
    const int nk = sticks(i) ? 3 : 1;
    for (int k = 0; k < nk; ++k) {
      const Vec3 dir = col_dir(i, k);
      const int col = s.column[i] + k;
      for_each_side(cs[i], [&](int j, double sign, const Vec3& r) {
        const Vec3 lin = (sign * b.inv_mass[j]) * dir;
        const Vec3 ang = sign * (b.inv_inertia[j] * r.cross(dir));
        for (int d = 0; d < 3; ++d) {
          s.triplets.emplace_back(6 * j + d, col, lin[d]);
          s.triplets.emplace_back(6 * j + 3 + d, col, ang[d]);
        }
      });
    }
  }
  s.g.resize(6 * nb, m);
  s.g.setFromTriplets(s.triplets.begin(), s.triplets.end());
  s.a = s.jr * s.g;  // the Delassus matrix in the chosen directions
  // Right-hand side: target minus initial velocity along each row (Eqs. 73, 83, 86, 108).
  s.b.resize(m);
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.active[i]) continue;
    const int c = s.column[i];
    s.b[c] = s.target[i] - cs[i].normal.dot(s.u0[i]);
    if (sticks(i)) {
      s.b[c + 1] = -s.t1[i].dot(s.u0[i]);
      s.b[c + 2] = -s.t2[i].dot(s.u0[i]);
    }
  }
  // Least squares of least norm. Columns are scaled to unit norm (x = S y), and y solves
  // min |A S y - b|^2 + eps |y|^2 by iterated Tikhonov regularisation:
  //   y += dy,  (S A^T A S + eps 1) dy = S A^T (b - A S y),
  // which converges to the least-squares solution of least norm in the metric diag(A^T A).
  // Each dy comes from the quasi-definite augmented system [1 A S; S A^T -eps 1] [s; dy] =
  // [r; 0] (the same equations without forming A^T A, whose fill-in doubled the cost on a cubic
  // lattice of spheres), factored once by Eigen::SimplicialLDLT.
  s.scale.resize(m);
  for (int k = 0; k < m; ++k) {
    double sq = 0.0;
    for (SparseMatrix::InnerIterator it(s.a, k); it; ++it) sq += it.value() * it.value();
    s.scale[k] = sq > 0.0 ? 1.0 / std::sqrt(sq) : 1.0;
    for (SparseMatrix::InnerIterator it(s.a, k); it; ++it) it.valueRef() *= s.scale[k];
  }
  s.triplets.clear();
  for (int k = 0; k < m; ++k) {
    s.triplets.emplace_back(k, k, 1.0);
    s.triplets.emplace_back(m + k, m + k, -settings_.regularisation);
    for (SparseMatrix::InnerIterator it(s.a, k); it; ++it) {
      s.triplets.emplace_back(it.row(), m + k, it.value());
      s.triplets.emplace_back(m + k, it.row(), it.value());
    }
  }
  s.augmented.resize(2 * m, 2 * m);
  s.augmented.setFromTriplets(s.triplets.begin(), s.triplets.end());
  s.ldlt.compute(s.augmented);
  if (s.ldlt.info() != Eigen::Success) return false;
  // Stops at round-off (update below 1e-12 of y) or when an update shrinks by less than 4x:
  // the components still moving have scaled singular values s^2 < eps / 3 and are treated as
  // null space. With 4x per update, 20 updates reach 1e-12, so the bound (counted) only fires
  // when the updates do not shrink steadily.
  s.x.setZero(m);
  s.r = s.b;
  s.rhs.setZero(2 * m);
  double previous = std::numeric_limits<double>::infinity();
  bool stopped = false;
  for (int it = 0; it < settings_.max_refinements; ++it) {
    s.rhs.head(m) = s.r;
    s.rhs.tail(m).setZero();
    s.dx = s.ldlt.solve(s.rhs).tail(m);
    s.x += s.dx;
    s.r = s.b - s.a * s.x;
    const double step = s.dx.lpNorm<Eigen::Infinity>();
    if (!(step > 1e-12 * s.x.lpNorm<Eigen::Infinity>()) || step > 0.25 * previous) {
      stopped = true;
      break;
    }
    previous = step;
  }
  if (!stopped) ++st.guards_fired;
  s.x = s.x.cwiseProduct(s.scale);
  if (!finite(s.x)) return false;
  // Impulses, body velocities and contact velocities after the solve.
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.active[i]) continue;
    const int nk = sticks(i) ? 3 : 1;
    for (int k = 0; k < nk; ++k) s.p[i] += s.x[s.column[i] + k] * col_dir(i, k);
  }
  s.dv = s.g * s.x;
  for (int k = 0; k < nb; ++k) {
    s.v1[k] += s.dv.segment<3>(6 * k);
    s.w1[k] += s.dv.segment<3>(6 * k + 3);
  }
  IslandBodies after = b;
  after.v = s.v1.data();
  after.w = s.w1.data();
  for (std::size_t i = 0; i < n; ++i) s.u1[i] = impulse::relative_velocity(cs[i], after);
  return true;
}

SolverStats SmmSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  const std::size_t n = cs.size();
  if (n == 0) return st;
  Scratch& s = *scratch_[thread];
  s.u0.resize(n);
  s.u1.resize(n);
  s.t1.resize(n);
  s.t2.resize(n);
  s.target.resize(n);
  s.q.assign(n, Vec3::Zero());
  s.p.assign(n, Vec3::Zero());
  s.active.assign(n, 0);
  s.sliding.assign(n, 0);
  s.column.assign(n, -1);
  s.v1.resize(b.count);
  s.w1.resize(b.count);
  double fastest = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const Contact& c = cs[i];
    s.u0[i] = impulse::relative_velocity(c, b);
    const double un = c.normal.dot(s.u0[i]);
    s.t1[i] = any_orthogonal(c.normal);
    s.t2[i] = c.normal.cross(s.t1[i]);
    s.target[i] = -c.restitution * std::min(un, 0.0);
    fastest = std::max(fastest, -un);
  }
  if (!(fastest > 0.0)) return st;  // nothing approaches: no impulse
  const double tol_v = settings_.tolerance * fastest;
  for (std::size_t i = 0; i < n; ++i) s.active[i] = cs[i].normal.dot(s.u0[i]) < -tol_v;

  bool ok = true, settled = false, single = false;
  int fewest = static_cast<int>(n) + 1, stalls = 0;
  int fallback_short = static_cast<int>(n) + 1;
  s.flip.assign(n, 0);
  for (int outer = 0; outer < settings_.max_active_set_iterations && ok; ++outer) {
    // Stick-slip classification (Eqs. 72-76, 87): solve, let contacts whose impulse leaves the
    // cone slide, solve again. Sliding is never undone, so this ends after at most one pass per
    // frictional contact; the bound below only guards that invariant.
    double tol_p = 0.0;
    for (std::size_t pass = 0;; ++pass) {
      ok = solve(cs, b, s, st);
      if (!ok) break;
      double largest = 0.0;
      for (std::size_t i = 0; i < n; ++i)
        if (s.active[i]) largest = std::max(largest, cs[i].normal.dot(s.p[i]));
      tol_p = settings_.tolerance * largest;
      bool changed = false;
      for (std::size_t i = 0; i < n; ++i) {
        const Contact& c = cs[i];
        if (!s.active[i] || c.friction <= 0.0 || s.sliding[i]) continue;
        const double pn = c.normal.dot(s.p[i]);
        const Vec3 pt = s.p[i] - pn * c.normal;
        const double ptn = pt.norm();
        if (ptn <= c.friction * std::max(pn, 0.0) + tol_p) continue;  // Eq. 74
        s.sliding[i] = 1;
        changed = true;
        // Friction opposes the slip at s0; without slip it lies along the trial impulse.
        const Vec3 ut = s.u0[i] - c.normal.dot(s.u0[i]) * c.normal;
        const double utn = ut.norm();
        s.q[i] = utn > 1e-12 * s.u0[i].norm() ? Vec3(-ut / utn) : Vec3(pt / ptn);
      }
      if (!changed) break;
      if (pass > n) {  // unreachable while sliding is monotone
        ++st.guards_fired;
        break;
      }
    }
    if (!ok) break;
    // Active set (block principal pivoting, Judice & Pires 1994): flip every infeasible
    // contact at once: drop those pulled by a tensile normal impulse, add those that fall short
    // of their target normal velocity. When three block steps in a row fail to lower the number
    // of infeasible contacts, flip only the first infeasible one from then on (Murty's
    // least-index rule, finite for the P-matrix of frictionless full-rank systems).
    int infeasible = 0, tensile = 0, first = -1;
    for (std::size_t i = 0; i < n; ++i) {
      const bool pulled = s.active[i] && cs[i].normal.dot(s.p[i]) < -tol_p;
      s.flip[i] = pulled || (!s.active[i] && cs[i].normal.dot(s.u1[i]) < s.target[i] - tol_v);
      tensile += pulled;
      if (s.flip[i]) {
        ++infeasible;
        if (first < 0) first = static_cast<int>(i);
      }
    }
    if (infeasible == 0) {
      settled = true;
      break;
    }
    // Fallback for the bound: the solve without tensile impulses that leaves the fewest
    // contacts short of their target.
    if (tensile == 0 && infeasible < fallback_short) {
      fallback_short = infeasible;
      s.fallback_v = s.v1;
      s.fallback_w = s.w1;
      s.fallback_p = s.p;
      s.fallback_u = s.u1;
    }
    if (!single) {
      if (infeasible < fewest) {
        fewest = infeasible;
        stalls = 0;
      } else if (++stalls >= 3) {
        single = true;
      }
    }
    if (single) {
      s.active[first] = !s.active[first];
    } else {
      for (std::size_t i = 0; i < n; ++i)
        if (s.flip[i]) s.active[i] = !s.active[i];
    }
  }
  if (!ok) {
    // The factorisation failed or produced a non-finite result: no impulse is applied (counted).
    ++st.guards_fired;
    for (std::size_t i = 0; i < n; ++i)
      if (cs[i].normal.dot(s.u0[i]) < -tol_v) ++st.approaching_left;
    return st;
  }
  if (!settled) {
    // Active-set bound (counted): apply the fallback if there is one, else the last solve.
    ++st.guards_fired;
    if (fallback_short <= static_cast<int>(n)) {
      s.v1.swap(s.fallback_v);
      s.w1.swap(s.fallback_w);
      s.p.swap(s.fallback_p);
      s.u1.swap(s.fallback_u);
    }
  }
  // Energy guard: the simultaneous solve with friction can raise the kinetic energy (a sliding
  // impulse along -slip on coupled contacts; docs/solvers.md). The impulses change the velocities
  // linearly, so scaled by s they change the kinetic energy by dK(s) = s B + s^2 A with
  // B = sum p.u(s0) and A = sum p.(u(s1) - u(s0)) / 2 >= 0; where dK(1) > 0 the impulses are
  // scaled to s = -B / A, at which they do no net work (counted, as the resting pass does).
  double bb = 0.0, aa = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    bb += s.p[i].dot(s.u0[i]);
    aa += 0.5 * s.p[i].dot(s.u1[i] - s.u0[i]);
  }
  if (bb + aa > 1e-12 * (std::abs(bb) + std::abs(aa)) && aa > 0.0) {
    const double scale = std::clamp(-bb / aa, 0.0, 1.0);
    for (int k = 0; k < b.count; ++k) {
      s.v1[k] = b.v[k] + scale * (s.v1[k] - b.v[k]);
      s.w1[k] = b.w[k] + scale * (s.w1[k] - b.w[k]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      s.p[i] *= scale;
      s.u1[i] = s.u0[i] + scale * (s.u1[i] - s.u0[i]);
    }
    ++st.energy_guards;
  }
  for (int k = 0; k < b.count; ++k) {
    b.v[k] = s.v1[k];
    b.w[k] = s.w1[k];
  }
  // Energy: the change of kinetic energy is exactly the work of the impulses,
  // sum_i 1/2 (u_i(s0) + u_i(s1)) . p_i (Eq. 16 for simultaneous impulses); its normal part
  // (Eq. 18) is booked as restitution, the tangential part as friction. A part can be
  // negative where the coupled solve moves energy between normal and tangential directions;
  // the world nets the two (World::resolve_islands), the guard above keeps their sum >= 0.
  for (std::size_t i = 0; i < n; ++i) {
    const Contact& c = cs[i];
    if (cs[i].normal.dot(s.u1[i]) < -tol_v) ++st.approaching_left;
    if (s.p[i].isZero(0.0)) continue;
    ++st.iterations;
    const Vec3 mean = 0.5 * (s.u0[i] + s.u1[i]);
    const double pn = c.normal.dot(s.p[i]);
    const double wn = c.normal.dot(mean) * pn;
    const double w = mean.dot(s.p[i]);
    st.dissipated_restitution -= wn;
    st.dissipated_friction -= w - wn;
  }
  return st;
}

std::vector<Setting<SmmSettings>> smm_setting_keys() {
  using namespace setting;
  using M = SmmSettings;
  std::vector<Setting<M>> v;
  v.push_back(field<M>(
      "regularisation", "1", setting::open(0, 1),
      "Tikhonov weight eps of the least-norm least-squares solve, relative to the diagonal of "
      "A^T A (docs/solvers.md, SMM)",
      &M::regularisation));
  v.push_back(field<M>("max_refinements", "", closed(1, 1000),
                       "refinement updates per linear system (a guard, counted)",
                       &M::max_refinements));
  v.push_back(field<M>(
      "max_active_set_iterations", "", closed(1, 1e6),
      "bound on the loop that drops tensile contacts and adds contacts short of their target (a "
      "guard, counted)",
      &M::max_active_set_iterations));
  v.push_back(field<M>(
      "tolerance", "1", half_open(0, 1),
      "relative tolerance of the active-set and stick-slip tests: velocities relative to the "
      "collision group's fastest approach, impulses relative to its largest normal impulse",
      &M::tolerance));
  return v;
}

}  // namespace etdem
