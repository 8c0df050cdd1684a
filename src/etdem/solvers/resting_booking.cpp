// The resting pass's booking (RestingPass::book_and_guard): each row's work from its total
// impulse, split into normal work (restitution, e = 0) and tangential work (friction), and the
// energy guard that scales the pass back where it would raise the kinetic energy.
#include <algorithm>
#include <array>
#include <cmath>

#include "etdem/core/exact_sum.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/core/parallel_sums.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {
namespace {

/// The energy guard: where the pass's impulses (of the rows `which`, from their bases) would
/// raise the kinetic energy by dK(s) = s B + s^2 A at s = 1, the velocities and those impulses
/// scaled back by s = -B / A in [0, 1] (counted); returns s.
double guard(RestingWork& w, std::span<const int> which, double bb, double aa) {
  if (!(bb + aa > 1e-12 * (std::abs(bb) + std::abs(aa)) && aa > 0.0)) return 1.0;
  const double scale = std::clamp(-bb / aa, 0.0, 1.0);
  IslandBodies& b = w.bodies;
  RestingRows& r = w.rows;
  parallel_for(static_cast<std::size_t>(b.count), [&](std::size_t k) {
    b.v[k] = w.v0[k] + scale * (b.v[k] - w.v0[k]);
    b.w[k] = w.w0[k] + scale * (b.w[k] - w.w0[k]);
  });
  parallel_for(which.size(), [&](std::size_t k) {
    const std::size_t i = static_cast<std::size_t>(which[k]);
    r.pn[i] = w.pn_base[i] + scale * (r.pn[i] - w.pn_base[i]);
    r.pt[i] = w.pt_base[i] + scale * (r.pt[i] - w.pt_base[i]);
    if (r.any_rolling) r.pr[i] = w.pr_base[i] + scale * (r.pr[i] - w.pr_base[i]);
  });
  ++w.stats.energy_guards;
  return scale;
}

}  // namespace

double RestingPass::book_and_guard(RestingWork& w, std::span<const int> which) const {
  // The accumulated impulses P_c of the pass (warm start and sweeps) changed the velocities
  // exactly by M^-1 sum J_c^T P_c, so the kinetic energy changed by
  //   dK = sum_c P_c . (u_c,before + u_c,after) / 2,
  // one term per row, whatever the order of the updates. Each row's work is booked once, its
  // normal part as restitution and its tangential part as friction.
  //
  // A rigid contact force does no work, yet projected Gauss-Seidel stopped after a few sweeps
  // can leave an impulse on a contact its neighbours have set separating, and that impulse does
  // positive work. Where the pass as a whole would raise the kinetic energy, its impulses are
  // scaled by the one factor s in [0, 1] at which they do no net work: dK(s) = s B + s^2 A with
  // B = sum P.u_before, A = sum P.(u_after - u_before) / 2 >= 0, so s = -B / A. Every impulse is
  // scaled alike, so each pair stays equal and opposite; counted as an energy guard.
  //
  // The same holds for the impulses a later stage adds to some rows (`which`, from the
  // accumulated impulses pn_base, pt_base and the velocities u0, v0, w0 before it): their
  // increments are booked and guarded alike.
  // The terms per row on every thread, summed below in the order of `which` (the bits of one
  // loop).
  if (w.blocks) return book_blocked(w, which);
  RestingRows& r = w.rows;
  IslandBodies& b = w.bodies;
  SolverStats& st = w.stats;
  w.work.resize(which.size());
  parallel_for(which.size(), [&](std::size_t k) {
    const std::size_t i = static_cast<std::size_t>(which[k]);
    const Vec3 pn = (r.pn[i] - w.pn_base[i]) * r.normal[i];
    const Eigen::Vector2d dp = r.pt[i] - w.pt_base[i];
    const Vec3 pt = dp.x() * r.t1[i] + dp.y() * r.t2[i];
    const Vec3 du = w.relative_velocity(i) - w.u0[i];
    w.work[k] = {pn.dot(w.u0[i]), pt.dot(w.u0[i]), 0.5 * pn.dot(du), 0.5 * pt.dot(du)};
  });
  double b_normal = 0.0, b_tangent = 0.0, a_normal = 0.0, a_tangent = 0.0;
  for (const std::array<double, 4>& t : w.work) {
    b_normal += t[0];
    b_tangent += t[1];
    a_normal += t[2];
    a_tangent += t[3];
  }
  // Rolling resistance: the angular impulse L on A (-L on B) changes the kinetic energy by
  // L.(w_rel,before + w_rel,after) / 2; booked with friction (it is the moment of the contact's
  // tangential traction). Summed apart, and added only when the island has such rows.
  if (r.any_rolling) {
    double b_rolling = 0.0, a_rolling = 0.0;
    for (const int k : which) {
      const std::size_t i = static_cast<std::size_t>(k);
      if (r.rolling[i] <= 0.0) continue;
      const Eigen::Vector2d dp = r.pr[i] - w.pr_base[i];
      const Vec3 l = dp.x() * r.t1[i] + dp.y() * r.t2[i];
      b_rolling += l.dot(w.wr0[i]);
      a_rolling += 0.5 * l.dot(w.relative_spin(i, b) - w.wr0[i]);
    }
    b_tangent += b_rolling;
    a_tangent += a_rolling;
  }
  const double scale = guard(w, which, b_normal + b_tangent, a_normal + a_tangent);
  // dK(s) split: the A term couples normal and tangential impulses; each part of P is booked
  // with the same velocities, so the split is P_n.(u_b + u_a)/2 and P_t.(u_b + u_a)/2.
  //
  // Which velocity "before": these impulses stand for contact forces acting through the step
  // alongside gravity, so their work is P.(u_start + u_after)/2 with u_start the velocity at
  // the start of the step, before the gravity kick g dt that every dynamic body got first (the
  // two forces together change the kinetic energy by exactly (P + m g dt).(v_start + v_after)/2).
  // The kick changes the relative velocity only at contacts with a static body (both bodies of
  // a grain pair get the same kick), by k = g dt: the shift sum P.k / 2 goes from the
  // dissipation to the time discretisation's `integration`.
  const Vec3 kick = step_.h * step_.gravity;
  double shift_normal = 0.0, shift_tangent = 0.0;
  for (const int k : which) {
    const std::size_t i = static_cast<std::size_t>(k);
    if ((r.a[i] >= 0) == (r.b[i] >= 0)) continue;  // a grain pair: both kicked alike
    const Vec3 kk = r.a[i] >= 0 ? kick : Vec3(-kick);
    const Eigen::Vector2d dp = r.pt[i] - w.pt_base[i];
    shift_normal += 0.5 * (r.pn[i] - w.pn_base[i]) * r.normal[i].dot(kk);
    shift_tangent += 0.5 * (dp.x() * r.t1[i] + dp.y() * r.t2[i]).dot(kk);
  }
  st.dissipated_restitution -= scale * b_normal + scale * scale * a_normal - shift_normal;
  st.dissipated_friction -= scale * b_tangent + scale * scale * a_tangent - shift_tangent;
  st.integration -= shift_normal + shift_tangent;
  return scale;
}

double RestingPass::book_blocked(RestingWork& w, std::span<const int> which) const {
  // The booking of book_and_guard with its sums exact over the blocks (core/exact_sum.hpp): the
  // same totals in any order, so the blocks can be summed on every thread and, in a team, by the
  // member that swept them (the leftovers by the first), one reduction merging the members'
  // sums. The kick's shift is summed before the scaling and scaled with it (s times the sum of
  // the unscaled terms: the same work).
  RestingRows& r = w.rows;
  IslandBodies& b = w.bodies;
  SolverStats& st = w.stats;
  RestingShare& share = w.share;
  const Vec3 kick = step_.h * step_.gravity;
  enum { kBn, kBt, kAn, kAt, kShiftN, kShiftT, kTerms };
  // Each row's terms added in its block in the blocked order (plain sums: a block's rows lie on
  // one member), the blocks' sums and the leftovers' terms exactly.
  auto add_row = [&](std::size_t i, std::array<double, kTerms>& t) {
    const Vec3 pn = (r.pn[i] - w.pn_base[i]) * r.normal[i];
    const Eigen::Vector2d dp = r.pt[i] - w.pt_base[i];
    const Vec3 pt = dp.x() * r.t1[i] + dp.y() * r.t2[i];
    const Vec3 du = w.relative_velocity(i) - w.u0[i];
    t[kBn] += pn.dot(w.u0[i]);
    t[kBt] += pt.dot(w.u0[i]);
    t[kAn] += 0.5 * pn.dot(du);
    t[kAt] += 0.5 * pt.dot(du);
    if (r.any_rolling && r.rolling[i] > 0.0) {
      const Eigen::Vector2d dl = r.pr[i] - w.pr_base[i];
      const Vec3 l = dl.x() * r.t1[i] + dl.y() * r.t2[i];
      t[kBt] += l.dot(w.wr0[i]);
      t[kAt] += 0.5 * l.dot(w.relative_spin(i, b) - w.wr0[i]);
    }
    if ((r.a[i] >= 0) != (r.b[i] >= 0)) {  // a grain on a static body: kicked alone
      const Vec3 kk = r.a[i] >= 0 ? kick : Vec3(-kick);
      t[kShiftN] += 0.5 * pn.dot(kk);
      t[kShiftT] += 0.5 * pt.dot(kk);
    }
  };
  const BlockOrder& o = *w.blocks;
  const bool every = which.size() == r.size();  // which is 0, 1, ..., n - 1
  const SubsetBlocks& sub = w.subset;
  if (!every) w.subset.find(o, which);
  // Block k's places in `which`: its rows, or the subset's of them.
  auto places = [&](std::size_t k) -> std::pair<std::size_t, std::size_t> {
    if (every)
      return {static_cast<std::size_t>(o.block_start[k]),
              static_cast<std::size_t>(o.block_start[k + 1])};
    if (sub.first[k] < 0) return {0, 0};
    return {static_cast<std::size_t>(sub.first[k]), static_cast<std::size_t>(sub.end[k])};
  };
  const int blocks = o.colour_start[static_cast<std::size_t>(o.colours())];
  std::array<ExactSum, kTerms> sum = parallel_sums<kTerms>(
      static_cast<std::size_t>(blocks), [&](std::size_t k, std::array<ExactSum, kTerms>& total) {
        if (share.team && share.block_member[k] != share.me) return;
        std::array<double, kTerms> t{};
        const auto [first, end] = places(k);
        for (std::size_t p = first; p < end; ++p) add_row(static_cast<std::size_t>(which[p]), t);
        for (int j = 0; j < kTerms; ++j)
          total[static_cast<std::size_t>(j)].add(t[static_cast<std::size_t>(j)]);
      });
  if (!share.team || share.me == 0)
    for (auto p = static_cast<std::size_t>(every ? o.leftover_start : sub.leftovers);
         p < which.size(); ++p) {
      std::array<double, kTerms> t{};
      add_row(static_cast<std::size_t>(which[p]), t);
      for (int j = 0; j < kTerms; ++j)
        sum[static_cast<std::size_t>(j)].add(t[static_cast<std::size_t>(j)]);
    }
  if (share.team) share_sums(w, sum, {});
  const double b_normal = sum[kBn].value(), b_tangent = sum[kBt].value();
  const double a_normal = sum[kAn].value(), a_tangent = sum[kAt].value();
  const double scale = guard(w, which, b_normal + b_tangent, a_normal + a_tangent);
  const double shift_normal = scale * sum[kShiftN].value();
  const double shift_tangent = scale * sum[kShiftT].value();
  st.dissipated_restitution -= scale * b_normal + scale * scale * a_normal - shift_normal;
  st.dissipated_friction -= scale * b_tangent + scale * scale * a_tangent - shift_tangent;
  st.integration -= shift_normal + shift_tangent;
  return scale;
}

}  // namespace etdem
