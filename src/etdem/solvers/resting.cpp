#include "etdem/solvers/resting.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <parallel/algorithm>
#include <stdexcept>

#include <omp.h>

#include "etdem/core/group_by_key.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/solvers/impulse.hpp"

namespace etdem {

void RestingSolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
}

namespace {

/// A tangential impulse whose square is below this share of the disc's squared radius lies
/// inside the disc whatever the rounding of the square and its root (margin 1e-9 against
/// round-off of about 1e-16).
constexpr double kInsideDisc = 1.0 - 1e-9;

/// What a run over the contacts gathers: updates applied, the largest impulse change and the
/// largest accumulated normal impulse. A sum of integers and two maxima: the same values
/// whatever order the contacts' partial results are merged in.
struct Sweep {
  long updates = 0;
  double change = 0.0, impulse = 0.0;
  double change_squared = 0.0;  // the largest squared change of a 2-vector impulse
  void merge(const Sweep& o) {
    updates += o.updates;
    change = std::max(change, o.change);
    impulse = std::max(impulse, o.impulse);
    change_squared = std::max(change_squared, o.change_squared);
  }
  /// The largest change of any impulse: a norm's square root taken once, of the largest square
  /// (the rounded square root is monotonic, so the same bits as the largest root).
  double largest_change() const { return std::max(change, std::sqrt(change_squared)); }
};

/// How far ahead a sweep over some of the contacts fetches their data (run_subset).
constexpr std::size_t kSubsetAhead = 8;

/// An accumulated impulse moved onto the disc of radius `radius` (as it is when inside).
Eigen::Vector2d onto_disc(const Eigen::Vector2d& p, double radius) {
  const double norm = p.norm();
  return norm > radius ? Eigen::Vector2d(p * (radius / norm)) : p;
}

/// Calls f(i, sweep) for every contact slot i < n: in slot order on this thread, or with
/// `blocks` colour by colour, the blocks of a colour in parallel (each block's slots in order),
/// then the leftovers in order. Blocks of one colour share no body, so the result does not
/// depend on the number of threads.
template <class F>
Sweep run_contacts(const BlockOrder* blocks, std::size_t n, F&& f) {
  Sweep total;
  if (!blocks) {
    for (std::size_t i = 0; i < n; ++i) f(i, total);
    return total;
  }
  const BlockOrder& o = *blocks;
#pragma omp parallel
  {
    Sweep mine;
    for (int colour = 0; colour < BlockOrder::kColours; ++colour) {
#pragma omp for schedule(dynamic, 4)
      for (int k = o.colour_start[colour]; k < o.colour_start[colour + 1]; ++k)
        for (int i = o.block_start[k]; i < o.block_start[k + 1]; ++i)
          f(static_cast<std::size_t>(i), mine);
    }
#pragma omp critical(etdem_resting_sweep)
    total.merge(mine);
  }
  for (std::size_t i = o.leftover_start; i < n; ++i) f(i, total);
  return total;
}

/// Calls f(i, sweep) for the contacts `which` (ascending) as run_contacts does for all of them:
/// in their order, or with `blocks` a colour's blocks on every thread, colour after colour, then
/// the leftovers. Ascending contact slots are the blocked order (colour, block, island order)
/// and blocks of one colour share no body, so both give the same bits. The contacts lie apart in
/// memory: ahead(j, far) is called for the contact kSubsetAhead places on (far = true) and for
/// the one half as far (false) before each f, to fetch their data into the cache.
template <class F, class A>
Sweep run_subset(const BlockOrder* blocks, std::span<const int> which, F&& f, A&& ahead) {
  Sweep total;
  const std::size_t m = which.size();
  auto visit = [&](std::size_t p, Sweep& sw) {
    if (p + kSubsetAhead < m) ahead(static_cast<std::size_t>(which[p + kSubsetAhead]), true);
    if (p + kSubsetAhead / 2 < m)
      ahead(static_cast<std::size_t>(which[p + kSubsetAhead / 2]), false);
    f(static_cast<std::size_t>(which[p]), sw);
  };
  if (!blocks) {
    for (std::size_t p = 0; p < m; ++p) visit(p, total);
    return total;
  }
  const BlockOrder& o = *blocks;
  auto first_at = [&](int slot) {
    return static_cast<std::size_t>(std::lower_bound(which.begin(), which.end(), slot) -
                                    which.begin());
  };
#pragma omp parallel
  {
    Sweep mine;
    for (int colour = 0; colour < BlockOrder::kColours; ++colour) {
#pragma omp for schedule(dynamic, 4)
      for (int k = o.colour_start[colour]; k < o.colour_start[colour + 1]; ++k)
        for (std::size_t p = first_at(o.block_start[k]);
             p < which.size() && which[p] < o.block_start[k + 1]; ++p)
          visit(p, mine);
    }
#pragma omp critical(etdem_resting_subset)
    total.merge(mine);
  }
  for (std::size_t p = first_at(o.leftover_start); p < which.size(); ++p) visit(p, total);
  return total;
}

/// Calls f(i) for i < n, on every thread when `parallel` (f independent per i).
template <class F>
void for_each_index(bool parallel, std::size_t n, F&& f) {
  if (!parallel) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  const long count = static_cast<long>(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
}

}  // namespace

SolverStats RestingSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  Scratch& s = scratch_[thread];
  if (!sweeps_by_blocks(cs.size(), b)) return solve(cs, b, s, nullptr);
  return resolve_blocked(cs, {}, b, s);
}

SolverStats RestingSolver::resolve_in_order(std::span<Contact> serial, std::span<const int> order,
                                            IslandBodies& b, int thread) {
  if (!sweeps_by_blocks(order.size(), b))
    throw std::logic_error("RestingSolver::resolve_in_order: an island not swept by blocks");
  return resolve_blocked(serial, order, b, scratch_[thread]);
}

SolverStats RestingSolver::resolve_blocked(std::span<Contact> cs, std::span<const int> order,
                                           IslandBodies& b, Scratch& s) {
  // Blocked sweeps: the island's contacts and bodies are gathered in the blocked order (so a
  // block's contacts and bodies lie together in memory), solved, and scattered back.
  const std::size_t n = order.empty() ? cs.size() : order.size();
  auto contact = [&](std::size_t k) -> Contact& {
    return order.empty() ? cs[k] : cs[static_cast<std::size_t>(order[k])];
  };
  const int nb = b.count;
  s.blocks.build(cs, b.x, nb, settings_.block_size, order);
  s.sorted.resize(n);
  s.v.resize(nb);
  s.w.resize(nb);
  s.inv_mass.resize(nb);
  s.inv_inertia.resize(nb);
  parallel_for(static_cast<std::size_t>(nb), [&](std::size_t k) {
    const int from = s.blocks.body_order[k];
    s.v[k] = b.v[from];
    s.w[k] = b.w[from];
    s.inv_mass[k] = b.inv_mass[from];
    s.inv_inertia[k] = b.inv_inertia[from];
  });
  parallel_for(n, [&](std::size_t j) {
    Contact& c = s.sorted[j];
    c = contact(static_cast<std::size_t>(s.blocks.contact_order[j]));
    c.a = c.a >= 0 ? s.blocks.body_slot[c.a] : -1;
    c.b = c.b >= 0 ? s.blocks.body_slot[c.b] : -1;
  });
  IslandBodies view{nb, s.v.data(), s.w.data(), s.inv_mass.data(), s.inv_inertia.data()};
  SolverStats st = solve(s.sorted, view, s, &s.blocks);
  parallel_for(n, [&](std::size_t j) {
    Contact& c = contact(static_cast<std::size_t>(s.blocks.contact_order[j]));
    c.normal_impulse = s.sorted[j].normal_impulse;
    c.tangent_impulse = s.sorted[j].tangent_impulse;
    c.rolling_impulse = s.sorted[j].rolling_impulse;
  });
  parallel_for(static_cast<std::size_t>(nb), [&](std::size_t k) {
    b.v[s.blocks.body_order[k]] = s.v[k];
    b.w[s.blocks.body_order[k]] = s.w[k];
  });
  ++st.blocked_islands;
  st.block_leftovers += s.blocks.leftovers();
  return st;
}

SolverStats RestingSolver::solve(std::span<Contact> cs, IslandBodies& b, Scratch& s,
                                 const BlockOrder* blocks) {
  SolverStats st;
  const std::size_t n = cs.size();
  if (n == 0) return st;
  const bool parallel = blocks != nullptr;
  s.normal_mass.resize(n);
  s.t1.resize(n);
  s.t2.resize(n);
  s.tangent_mass.resize(n);
  s.turns.resize(3 * n);
  s.pn.assign(n, 0.0);
  s.pt.assign(n, Eigen::Vector2d::Zero());
  s.u0.resize(n);
  s.target.resize(n);
  // Rolling resistance (docs/design.md "Rolling resistance"): two angular rows per contact with
  // c.rolling > 0, about t1 and t2, on the relative angular velocity w_A - w_B; no linear part.
  // Their scratch is only sized when some contact of the island has them, so an island without
  // rolling resistance does exactly what it did before they existed.
  s.rolling = parallel_any(n, [&](std::size_t i) { return cs[i].rolling > 0.0; });
  if (s.rolling) {
    s.roll_rows.resize(2 * n);
    s.roll_mass.resize(n);
    s.pr.assign(n, Eigen::Vector2d::Zero());
    s.wr0.resize(n);
  }
  for_each_index(parallel, n, [&](std::size_t i) {
    const Contact& c = cs[i];
    s.t1[i] = any_orthogonal(c.normal);
    s.t2[i] = c.normal.cross(s.t1[i]);
    const Vec3* dirs[3] = {&c.normal, &s.t1[i], &s.t2[i]};
    Vec3 lever_a[3], lever_b[3];  // r x d of each row
    Turn* turn = &s.turns[3 * i];
    for (int d = 0; d < 3; ++d) {
      lever_a[d] = c.ra.cross(*dirs[d]);
      lever_b[d] = c.rb.cross(*dirs[d]);
      turn[d].ia = c.a >= 0 ? Vec3(b.inv_inertia[c.a] * lever_a[d]) : Vec3::Zero();
      turn[d].ib = c.b >= 0 ? Vec3(b.inv_inertia[c.b] * lever_b[d]) : Vec3::Zero();
    }
    // The collision matrix K along the rows' orthonormal directions, from the rows themselves:
    // d_p.K d_q = (1/m_A + 1/m_B) d_p.d_q + (r_A x d_p).I_A^-1 (r_A x d_q) + (the same for B),
    // without forming K (the two 3x3 triple products were a tenth of the pass's set-up). The
    // inertias are symmetric, so K's tangent block is built symmetric.
    const double linear = impulse::inv_mass(b, c.a) + impulse::inv_mass(b, c.b);
    auto k = [&](int p, int q) {
      return lever_a[p].dot(turn[q].ia) + lever_b[p].dot(turn[q].ib);
    };
    s.normal_mass[i] = 1.0 / (linear + k(0, 0));
    Eigen::Matrix2d kt;
    const double k12 = k(1, 2);
    kt << linear + k(1, 1), k12, k12, linear + k(2, 2);
    s.tangent_mass[i] = kt.inverse();
    s.target[i] = target_speed(c);
    // Velocities before the pass: the net work of its impulses is checked against them below.
    s.u0[i] = impulse::relative_velocity(c, b);
    if (c.rolling > 0.0) {
      // Angular rows: u = t.(w_A - w_B); an angular impulse m t turns w_A by m I_A^-1 t and
      // w_B by -m I_B^-1 t. Mass: the inverse of t_i.(I_A^-1 + I_B^-1) t_j on the tangents.
      Mat3 k = Mat3::Zero();
      if (c.a >= 0) k += b.inv_inertia[c.a];
      if (c.b >= 0) k += b.inv_inertia[c.b];
      s.roll_mass[i] = impulse::tangent_mass(k, s.t1[i], s.t2[i]);
      const Vec3* axes[2] = {&s.t1[i], &s.t2[i]};
      for (int d = 0; d < 2; ++d) {
        Turn& row = s.roll_rows[2 * i + d];
        row.ia = c.a >= 0 ? Vec3(b.inv_inertia[c.a] * *axes[d]) : Vec3::Zero();
        row.ib = c.b >= 0 ? Vec3(b.inv_inertia[c.b] * *axes[d]) : Vec3::Zero();
      }
      s.wr0[i] = impulse::relative_spin(c, b);
    }
  });
  // Relative velocity along direction d, and an impulse along it with the row's turn t (the hot
  // loop; the same numbers as impulse::relative_velocity / impulse::apply). A row's lever r x d
  // is computed where it is used rather than kept per contact: the set-up's own arithmetic, so
  // the same bits, and two cross products cost less than reading 144 bytes more per contact
  // (docs/design.md "Levers computed where used").
  auto speed = [&](const Contact& c, const Vec3& d) {
    double u = 0.0;
    if (c.a >= 0) u += d.dot(b.v[c.a]) + c.ra.cross(d).dot(b.w[c.a]);
    if (c.b >= 0) u -= d.dot(b.v[c.b]) + c.rb.cross(d).dot(b.w[c.b]);
    return u;
  };
  auto push = [&](const Contact& c, const Turn& t, const Vec3& d, double m) {
    if (c.a >= 0) {
      b.v[c.a] += (b.inv_mass[c.a] * m) * d;
      b.w[c.a] += m * t.ia;
    }
    if (c.b >= 0) {
      b.v[c.b] -= (b.inv_mass[c.b] * m) * d;
      b.w[c.b] -= m * t.ib;
    }
  };
  // An update is a normal or a tangential impulse; its work is not booked here: the pass books
  // each contact once from its total impulse (book_and_guard).
  auto apply_normal = [&](const Contact& c, std::size_t i, double dpn, Sweep& sw) {
    push(c, s.turns[3 * i], c.normal, dpn);
    ++sw.updates;
  };
  auto apply_tangent = [&](const Contact& c, std::size_t i, const Eigen::Vector2d& dpt, Sweep& sw) {
    push(c, s.turns[3 * i + 1], s.t1[i], dpt.x());
    push(c, s.turns[3 * i + 2], s.t2[i], dpt.y());
    ++sw.updates;
  };
  // The angular rows: an angular impulse about the tangents.
  auto apply_rolling = [&](const Contact& c, std::size_t i, const Eigen::Vector2d& dpr, Sweep& sw) {
    for (int d = 0; d < 2; ++d) {
      const Turn& row = s.roll_rows[2 * i + d];
      if (c.a >= 0) b.w[c.a] += dpr[d] * row.ia;
      if (c.b >= 0) b.w[c.b] -= dpr[d] * row.ib;
    }
    ++sw.updates;
  };
  s.v0.assign(b.v, b.v + b.count);
  s.w0.assign(b.w, b.w + b.count);
  // Warm start: last step's impulses of the same contacts, projected onto this step's tangent
  // plane and clipped to the friction disc, applied before the first sweep.
  st.iterations +=
      run_contacts(blocks, n, [&](std::size_t i, Sweep& sw) {
        const Contact& c = cs[i];
        if (c.normal_impulse <= 0.0) return;
        s.pn[i] = settings_.warm_start * c.normal_impulse;
        Eigen::Vector2d pt(s.t1[i].dot(c.tangent_impulse), s.t2[i].dot(c.tangent_impulse));
        pt *= settings_.warm_start;
        pt = onto_disc(pt, c.friction * s.pn[i]);
        s.pt[i] = pt;
        apply_normal(c, i, s.pn[i], sw);
        apply_tangent(c, i, pt, sw);
        if (c.rolling <= 0.0) return;
        Eigen::Vector2d pr(s.t1[i].dot(c.rolling_impulse), s.t2[i].dot(c.rolling_impulse));
        pr *= settings_.warm_start;
        pr = onto_disc(pr, c.rolling * s.pn[i]);
        s.pr[i] = pr;
        apply_rolling(c, i, pr, sw);
      }).updates;
  // Rolling resistance: target no relative rolling, the accumulated angular impulse within the
  // disc of radius mu_r R_eff p_n (the rolling torque's bound mu_r R_eff F_n over the step).
  auto relax_rolling = [&](const Contact& c, std::size_t i, Sweep& sw) {
    if (s.pn[i] == 0.0 && s.pr[i].x() == 0.0 && s.pr[i].y() == 0.0) return;
    const Vec3 w = impulse::relative_spin(c, b);
    const Eigen::Vector2d ur(s.t1[i].dot(w), s.t2[i].dot(w));
    const Eigen::Vector2d pr_new = onto_disc(s.pr[i] - s.roll_mass[i] * ur, c.rolling * s.pn[i]);
    const Eigen::Vector2d dpr = pr_new - s.pr[i];
    if (dpr.x() != 0.0 || dpr.y() != 0.0) {
      apply_rolling(c, i, dpr, sw);
      s.pr[i] = pr_new;
    }
    // The convergence test compares impulses: an angular one counts as the force impulse at
    // the contact point with the same moment about A's centre (B's when A is static).
    const double lever = (c.a >= 0 ? c.ra : c.rb).norm();
    if (lever > 0.0) sw.change = std::max(sw.change, dpr.norm() / lever);
  };
  // One projected Gauss-Seidel update of contact i's normal impulse; returns its change.
  // Target u_n = 0 (e = 0), or for a contact still apart by g > 0 the speed that closes the gap
  // within the step, u_n = -g / dt (speculative contact: a grain pushed towards a near
  // neighbour stops at it instead of entering it). Accumulated impulse >= 0.
  auto relax_normal = [&](const Contact& c, std::size_t i, Sweep& sw) {
    const double un = speed(c, c.normal);
    const double pn_new = std::max(0.0, s.pn[i] - s.normal_mass[i] * (un - s.target[i]));
    const double dpn = pn_new - s.pn[i];
    if (dpn != 0.0) {
      apply_normal(c, i, dpn, sw);
      s.pn[i] = pn_new;
    }
    sw.change = std::max(sw.change, std::abs(dpn));
    sw.impulse = std::max(sw.impulse, s.pn[i]);
    return dpn;
  };
  // The rounds after the shock pass update normal impulses only (`close`, see there). A normal
  // impulse that falls shrinks the contact's friction disc (and its rolling disc): the
  // tangential impulses are then scaled back onto them, so Coulomb's law still holds.
  auto onto_discs = [&](const Contact& c, std::size_t i, Sweep& sw) {
    const Eigen::Vector2d pt_new = onto_disc(s.pt[i], c.friction * s.pn[i]);
    const Eigen::Vector2d dpt = pt_new - s.pt[i];
    if (dpt.x() != 0.0 || dpt.y() != 0.0) {
      apply_tangent(c, i, dpt, sw);
      s.pt[i] = pt_new;
      sw.change_squared = std::max(sw.change_squared, dpt.squaredNorm());
    }
    if (c.rolling <= 0.0) return;
    const Eigen::Vector2d pr_new = onto_disc(s.pr[i], c.rolling * s.pn[i]);
    if (pr_new != s.pr[i]) {
      apply_rolling(c, i, pr_new - s.pr[i], sw);
      s.pr[i] = pr_new;
    }
  };
  auto close = [&](std::size_t i, Sweep& sw) {
    const Contact& c = cs[i];
    const double dpn = relax_normal(c, i, sw);
    if (dpn < 0.0) onto_discs(c, i, sw);
    if (dpn == 0.0) return;
    const double m = std::abs(dpn);
    const Turn& t = s.turns[3 * i];
    // A body whose stir crosses its limit is listed, on the list of the thread that sweeps it
    // (the contacts of a body in one colour lie in one block, so one thread crosses it): the
    // bodies the next growth looks at (grow).
    auto stir = [&](int body, double by) {
      double& stirred = s.stirred[static_cast<std::size_t>(body)];
      const double limit = s.stir_limit[static_cast<std::size_t>(body)];
      const bool below = !(stirred > limit);
      stirred += by;
      if (!(below && stirred > limit)) return;
      // (An island swept by blocks is solved outside any other parallel region: its threads are
      // those of run_subset's region, and its leftovers are swept by thread 0 outside it.)
      const int thread = parallel && omp_in_parallel() ? omp_get_thread_num() : 0;
      s.stirred_of_thread[static_cast<std::size_t>(thread)].push_back(body);
    };
    if (c.a >= 0) stir(c.a, m * (b.inv_mass[c.a] + t.ia.norm() * c.ra.norm()));
    if (c.b >= 0) stir(c.b, m * (b.inv_mass[c.b] + t.ib.norm() * c.rb.norm()));
  };
  // One projected Gauss-Seidel update of contact i: its normal impulse, then its friction.
  auto relax = [&](std::size_t i, Sweep& sw) {
    const Contact& c = cs[i];
    relax_normal(c, i, sw);
    // Tangential: target zero slip, accumulated impulse clamped to the Coulomb disc. A contact
    // with no normal and no tangential impulse has a disc of radius 0: its update below would
    // give +-0 and change nothing, so it is skipped (separating contacts cost one speed only).
    if (c.rolling > 0.0) relax_rolling(c, i, sw);
    if (c.friction <= 0.0) return;
    if (s.pn[i] == 0.0 && s.pt[i].x() == 0.0 && s.pt[i].y() == 0.0) return;
    const Eigen::Vector2d ut(speed(c, s.t1[i]), speed(c, s.t2[i]));
    Eigen::Vector2d pt_new = s.pt[i] - s.tangent_mass[i] * ut;
    const double limit = c.friction * s.pn[i];
    // Inside the disc by a margin far above round-off, the root is not needed to know it (a
    // sticking contact, most of a pile's).
    const double norm_squared = pt_new.squaredNorm();
    const double norm =
        norm_squared < kInsideDisc * (limit * limit) ? 0.0 : std::sqrt(norm_squared);
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
      apply_tangent(c, i, dpt, sw);
      s.pt[i] = pt_new;
    }
    sw.change_squared = std::max(sw.change_squared, dpt.squaredNorm());
  };
  // Contact i's normal relative speed now (its target: s.target, set up above).
  auto closing_speed = [&](std::size_t i) {
    return cs[i].normal.dot(impulse::relative_velocity(cs[i], b));
  };
  // The convergence probe (a bench program's diagnostic, RestingProbe): the island's contacts
  // left approaching after a sweep of set `probe_set`.
  int probe_set = 0;
  auto probe = [&](int sweep, long swept, bool converged) {
    RestingProbe p;
    p.set = probe_set;
    p.sweep = sweep;
    p.island = static_cast<long>(n);
    p.swept = swept;
    p.converged = converged;
    for (std::size_t i = 0; i < n; ++i) {
      const double excess = s.target[i] - closing_speed(i);
      if (excess <= kApproachSlack) continue;
      ++p.approaching;
      p.faster_1mm += excess > 1e-3;
      p.fastest = std::max(p.fastest, excess);
    }
    for (std::size_t i = 0; i < n; ++i) p.normal_impulses += s.pn[i];
    resting_probe(p);
  };
  // A contact's data for relax (far), or its bodies' velocities (near: the contact itself was
  // fetched before). A hint to the cache only.
  auto fetch_contact = [&](std::size_t i, bool far) {
    if (!far) {
      const Contact& c = cs[i];
      if (c.a >= 0) {
        prefetch(&b.v[c.a]);
        prefetch(&b.w[c.a]);
      }
      if (c.b >= 0) {
        prefetch(&b.v[c.b]);
        prefetch(&b.w[c.b]);
      }
      return;
    }
    prefetch_range(&cs[i], sizeof(Contact));
    prefetch_range(&s.turns[3 * i], 3 * sizeof(Turn));
    prefetch(&s.t1[i]);
    prefetch(&s.t2[i]);
    prefetch(&s.tangent_mass[i]);
    prefetch(&s.normal_mass[i]);
    prefetch(&s.target[i]);
    prefetch(&s.pn[i]);
    prefetch(&s.pt[i]);
  };
  // One projected Gauss-Seidel sweep, over every contact (in the blocked order when there is
  // one; `relax`) or over the contacts `which` only, in their order, their normal impulses only
  // (`close`: the rounds after the shock pass); returns whether it converged (no
  // impulse changed by more than the tolerance times the largest accumulated normal impulse).
  // The test reads two maxima, which do not depend on the order the blocks were merged in.
  auto sweep_once = [&](std::span<const int> which, int k) {
    ++st.rounds;
    Sweep sw;
    sw = which.empty() ? run_contacts(blocks, n, relax)
                       : run_subset(blocks, which, close, fetch_contact);
    st.iterations += sw.updates;
    const bool converged = sw.largest_change() <= settings_.tolerance * sw.impulse;
    if (resting_probe)
      probe(k, which.empty() ? static_cast<long>(n) : std::ssize(which), converged);
    return converged;
  };
  // Sweeps until converged, at most `bound`; reaching the bound is counted, not silent.
  auto sweeps = [&](std::span<const int> which, int bound) {
    for (int k = 0; k < bound; ++k)
      if (sweep_once(which, k)) return;
    ++st.guards_fired;
  };
  // The square of a contact's shorter lever |r| (over the island's bodies).
  auto lever2 = [](const Contact& c) {
    double r2 = std::numeric_limits<double>::infinity();
    if (c.a >= 0) r2 = c.ra.squaredNorm();
    if (c.b >= 0) r2 = std::min(r2, c.rb.squaredNorm());
    return r2;
  };
  // Whether contact i, closing faster than its target by more than round-off, would close within
  // the step by more than `share` of its shorter lever.
  auto closes_beyond = [&](std::size_t i, double share) {
    const double excess = s.target[i] - closing_speed(i);
    if (!(excess > kApproachSlack)) return false;
    const double depth = excess * settings_.dt;
    return depth * depth > share * share * lever2(cs[i]);
  };
  // Whether contact i is left approaching: it would close by more than approach_tolerance of its
  // lever. In a settled bed the sweeps and the shock pass leave a third of the contacts closing
  // by up to 0.1-0.9 mm/s, most of them by less than the tolerance's 3e-5 m/s (a grain of 1 cm,
  // a step of 1/600 s); sweeping all of them again in every round cost a tenth of the pour's time
  // (docs/design.md, "Left approaching: a depth, not round-off").
  auto left_approaching = [&](std::size_t i) {
    return closes_beyond(i, settings_.approach_tolerance);
  };
  // Marks in `upper` (free outside the shock pass) the contacts left approaching
  // (left_approaching), on every thread when the island is swept by blocks.
  // Once marked, only the contacts of bodies a later pass may have moved (s.moved) are looked
  // at again: the others' velocities are the same bits, so are their marks.
  bool marked = false;
  auto mark_approaching = [&]() {
    if (!marked) {
      s.upper.assign(n, 0);
      for_each_index(parallel, n, [&](std::size_t i) {
        if (left_approaching(i)) s.upper[i] = 1;
      });
      s.moved.assign(static_cast<std::size_t>(b.count), 0);
      marked = true;
      return;
    }
    auto moved = [&](int body) { return body >= 0 && s.moved[static_cast<std::size_t>(body)]; };
    for_each_index(parallel, n, [&](std::size_t i) {
      if (moved(cs[i].a) || moved(cs[i].b)) s.upper[i] = left_approaching(i) ? 1 : 0;
    });
    std::fill(s.moved.begin(), s.moved.end(), 0);
  };
  sweeps({}, settings_.iterations);
  s.all.resize(n);
  for (std::size_t i = 0; i < n; ++i) s.all[i] = static_cast<int>(i);
  s.pn_base.assign(n, 0.0);
  s.pt_base.assign(n, Eigen::Vector2d::Zero());
  if (s.rolling) s.pr_base.assign(n, Eigen::Vector2d::Zero());
  book_and_guard(cs, b, s, st, s.all);
  if (settings_.shock_propagation && settings_.gravity.squaredNorm() > 0.0) {
    shock_propagation(cs, b, s, st, parallel);
    marked = false;  // the pass used `upper` for its own and moved every body
    probe_set = 1;
    if (resting_probe) probe(0, 0, true);
    // The shock pass holds the lower body of each contact fixed, and where that body's point
    // moves towards the upper one (a support rising, or in a settling pile of crosses the arm
    // of a grain whose centre is lower lying across the arm of one whose centre is higher, the
    // contact's normal pointing down) it only stops the upper body's own motion: the lower
    // body's approach is left (docs/design.md, "Crosses creep in deep piles"). Those contacts
    // and every other contact of their bodies get sweeps of their own after it, with both
    // bodies free: momentum is conserved and every normal update towards u_n = 0 dissipates.
    // The rounds update normal impulses only, the friction impulses staying as the sweeps and
    // the shock pass left them (scaled onto a disc that shrinks): their task is to close the
    // contacts left approaching, and without friction projected Gauss-Seidel converges (a
    // convex problem) where with it, in a landing, two sliding contacts of a grain took turns
    // and the rounds ended at their bound with contacts still closing at 0.02-0.09 m/s
    // (docs/design.md, "Closing rounds without friction").
    // (Swept by run_subset: in island order, or an island swept by blocks on every thread.)
    //
    // A round follows its front: after each of its sweeps, the contacts of the bodies it moved
    // that would now close by more than kJoinShare of their lever join its set. Without that,
    // each round pushed bodies into neighbours it did not sweep and left them to the next round,
    // the approach moving one contact a round instead of closing (docs/design.md "Rounds that
    // follow their front").
    // A joining contact had no impulse in the round yet: its booking starts from the velocities
    // at the round's start (v0, w0), so the round's work is still booked exactly.
    bool lists = false;  // each body's contacts, built at the first round that runs
    auto build_lists = [&]() {
      if (lists) return;
      lists = true;
      group_by_key(
          b.count,
          [&](auto emit) {
            for (std::size_t i = 0; i < n; ++i) {
              emit(cs[i].a, static_cast<int>(i));
              emit(cs[i].b, static_cast<int>(i));
            }
          },
          s.contact_start, s.contacts_of, s.fill);
      s.in_round.assign(n, 0);
      // (Each list holds a body at most once: room for every body from the start, so a list
      // never grows by reallocation.)
      s.stirred_of_thread.resize(std::max(omp_get_max_threads(), 1));
      for (std::vector<int>& list : s.stirred_of_thread) list.reserve(b.count);
      s.stirred_bodies.reserve(b.count);
      s.stirred.assign(static_cast<std::size_t>(b.count), 0.0);
      s.stir_limit.assign(static_cast<std::size_t>(b.count),
                          std::numeric_limits<double>::infinity());
      for (std::size_t i = 0; i < n; ++i) {
        const Contact& c = cs[i];
        // (The root of the least square is the least root: the same bits as min |r|.)
        const double limit = kStirShare * (kJoinShare * std::sqrt(lever2(c)) / settings_.dt);
        for (const int body : {c.a, c.b})
          if (body >= 0) s.stir_limit[body] = std::min(s.stir_limit[body], limit);
      }
    };
    // Contact i enters the round's set: its booking starts from the velocities at the round's
    // start (v0, w0) and its impulses then.
    // (Its mark in in_round is set by the caller.)
    auto join = [&](int i) {
      const IslandBodies before{b.count, s.v0.data(), s.w0.data(), b.inv_mass, b.inv_inertia};
      s.u0[i] = impulse::relative_velocity(cs[i], before);
      s.pn_base[i] = s.pn[i];
      s.pt_base[i] = s.pt[i];
      if (s.rolling) {
        s.wr0[i] = impulse::relative_spin(cs[i], before);
        s.pr_base[i] = s.pr[i];
      }
    };
    // The contacts of the bodies the last sweeps stirred (kStirShare) that would now close by
    // more than kJoinShare join the set (kept ascending, the order run_subset sweeps in);
    // returns whether any did. The bodies are those listed by the sweeps as their stir crossed
    // the limit (close): a growth costs what the stirred bodies' contacts cost, not a pass over
    // the set.
    //
    // The set that joins does not depend on the order the bodies are looked at in (nothing is
    // pushed while looking: the velocities are read only), so when the island is swept by blocks
    // and many bodies were stirred, the threads share them and claim the contacts that join
    // (`in_round`, exchanged atomically: a contact of two stirred bodies is found twice). The
    // joined contacts are sorted and merged into the set: the same set, the same bits, on any
    // thread count (docs/design.md "A round's joins: the stirred bodies listed").
    auto grow = [&]() {
      const std::size_t count = s.left.size();
      s.stirred_bodies.clear();
      for (std::vector<int>& list : s.stirred_of_thread) {
        s.stirred_bodies.insert(s.stirred_bodies.end(), list.begin(), list.end());
        list.clear();
      }
      const std::size_t stirred = s.stirred_bodies.size();
      const int team =
          parallel && runs_parallel(stirred, kParallelStirred) ? omp_get_max_threads() : 1;
      // (Every list the merge below reads is emptied here: a region may run fewer threads than
      // asked for, and a list no thread ran on must not hold an earlier growth's contacts.)
      if (s.joined_of_thread.size() < static_cast<std::size_t>(team))
        s.joined_of_thread.resize(team);
      for (int th = 0; th < team; ++th) s.joined_of_thread[th].clear();
      // With `atomic`, a contact another thread may claim at once is read atomically and
      // claimed by exchange.
      auto is_set = [](char& mark, bool atomic) {
        return atomic ? std::atomic_ref<char>(mark).load(std::memory_order_relaxed) != 0
                      : mark != 0;
      };
      auto claim = [](char& mark, bool atomic) {
        if (atomic) return std::atomic_ref<char>(mark).exchange(1, std::memory_order_relaxed) == 0;
        if (mark) return false;
        mark = 1;
        return true;
      };
      auto join_contacts = [&](std::size_t lo, std::size_t hi, std::vector<int>& joined,
                               bool atomic) {
        for (std::size_t k = lo; k < hi; ++k) {
          const int body = s.stirred_bodies[k];
          s.stirred[body] = 0.0;
          for (int j = s.contact_start[body]; j < s.contact_start[body + 1]; ++j) {
            const int i = s.contacts_of[j];
            if (is_set(s.in_round[i], atomic)) continue;
            if (!closes_beyond(static_cast<std::size_t>(i), kJoinShare)) continue;
            if (!claim(s.in_round[i], atomic)) continue;
            join(i);
            joined.push_back(i);
          }
        }
      };
      if (team == 1) {
        join_contacts(0, stirred, s.joined_of_thread[0], false);
      } else {
#pragma omp parallel num_threads(team)
        {
          const std::size_t th = static_cast<std::size_t>(omp_get_thread_num());
          const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
          join_contacts(stirred * th / threads, stirred * (th + 1) / threads,
                        s.joined_of_thread[th], true);
        }
      }
      for (int th = 0; th < team; ++th)
        s.left.insert(s.left.end(), s.joined_of_thread[th].begin(), s.joined_of_thread[th].end());
      if (s.left.size() == count) return false;
      std::sort(s.left.begin() + count, s.left.end());
      std::inplace_merge(s.left.begin(), s.left.begin() + count, s.left.end());
      return true;
    };
    // Sweeps of the round's set until converged with none joining, at most `bound`; reaching
    // the bound is counted.
    auto follow = [&](int bound) {
      for (int k = 0; k < bound; ++k) {
        const bool converged = sweep_once(s.left, k);
        if (k + 1 < bound && grow()) continue;
        if (converged) return;
      }
      ++st.guards_fired;
    };
    for (int round = 0; round < kCloseRounds; ++round) {
      probe_set = 2 + round;
      mark_approaching();
      // A round starts from the contacts left approaching alone; the contacts that answer them
      // (a body's other contacts, an interlocked pair of crosses touching along three normals)
      // join as its sweeps move their bodies. Every contact of a body such a contact can turn
      // was swept from the start before the rounds followed their front: with the joins alone
      // the cubes' repose heap took 15 % less time and its deepest contact halved, and the
      // crosses' and rocks' deepest contacts stayed within their scatter (docs/design.md "A round
      // starts from the contacts left approaching alone").
      s.left.clear();
      auto left = [&](std::size_t i) { return s.upper[i] != 0; };
      parallel_select(n, left, s.left);
      if (s.left.empty()) break;
      build_lists();
      s.v0.assign(b.v, b.v + b.count);
      s.w0.assign(b.w, b.w + b.count);
      parallel_for(s.left.size(), [&](std::size_t k) {
        s.in_round[s.left[k]] = 1;
        join(s.left[k]);
      });
      follow(settings_.iterations);
      // A round the guard takes back whole leaves every velocity and impulse as it found them:
      // the next round would mark the same contacts, sweep them alike and be taken back alike
      // (a replay, bit for bit), so the rounds end here. In a flowing pile this is most steps'
      // first round (docs/design.md "Closing rounds taken back").
      const double kept = book_and_guard(cs, b, s, st, s.left);
      // Only these contacts' bodies moved (the guard's scaling leaves every other body's
      // velocity as it was: v0 + s (v - v0) with v = v0), and only they were stirred.
      for (const int i : s.left) {
        s.in_round[i] = 0;
        for (const int body : {cs[i].a, cs[i].b}) {
          if (body < 0) continue;
          s.stirred[body] = 0.0;
          if (kept != 0.0) s.moved[body] = 1;
        }
      }
      for (std::vector<int>& list : s.stirred_of_thread) list.clear();
      if (kept == 0.0) break;
    }
  }
  // A rigid unilateral contact does no positive work in continuous time; in a step, an impulse
  // on a contact that separates within it can (a grain lifting off as its support pushes). Net
  // negative dissipation of the island's pass is that discretisation effect: it is booked as
  // integration, so the restitution and friction columns never decrease.
  st.net_dissipation();
  st.negative_dissipation_to_integration();
  for_each_index(parallel, n, [&](std::size_t i) {
    Contact& c = cs[i];
    c.normal_impulse = s.pn[i];
    c.tangent_impulse = s.pt[i].x() * s.t1[i] + s.pt[i].y() * s.t2[i];
    if (c.rolling > 0.0) c.rolling_impulse = s.pr[i].x() * s.t1[i] + s.pr[i].y() * s.t2[i];
  });
  // Left approaching: closing faster than the contact's gap allows within the step (a
  // speculative contact apart by g > 0 may approach at g / dt and end touching), by more than
  // approach_tolerance of its lever (left_approaching).
  mark_approaching();
  for (std::size_t i = 0; i < n; ++i) st.approaching_left += s.upper[i];
  return st;
}

double RestingSolver::book_and_guard(std::span<Contact> cs, IslandBodies& b, Scratch& s,
                                     SolverStats& st, std::span<const int> which) {
  // The accumulated impulses P_c of the pass (warm start and sweeps) changed the velocities
  // exactly by M^-1 sum J_c^T P_c, so the kinetic energy changed by
  //   dK = sum_c P_c . (u_c,before + u_c,after) / 2,
  // one term per contact, whatever the order of the updates. Each contact's work is booked
  // once, its normal part as restitution and its tangential part as friction (the updates'
  // own works sum to the same dK, but a warm-started impulse undone by a later sweep showed as
  // a negative friction column).
  //
  // A rigid contact force does no work, yet projected Gauss-Seidel stopped after a few sweeps
  // can leave an impulse on a contact its neighbours have set separating, and that impulse does
  // positive work. Where the pass as a whole would raise the kinetic energy, its impulses are
  // scaled by the one factor s in [0, 1] at which they do no net work: dK(s) = s B + s^2 A with
  // B = sum P.u_before, A = sum P.(u_after - u_before) / 2 >= 0, so s = -B / A. Every impulse is
  // scaled alike, so each pair stays equal and opposite; counted as an energy guard.
  //
  // The same holds for the impulses a later pass adds to some contacts (`which`, from the
  // accumulated impulses pn_base, pt_base and the velocities u0, v0, w0 before it): their
  // increments are booked and guarded alike.
  // The terms per contact on every thread, summed below in the order of `which` (the bits of
  // one loop).
  s.work.resize(which.size());
  parallel_for(which.size(), [&](std::size_t k) {
    const std::size_t i = static_cast<std::size_t>(which[k]);
    const Contact& c = cs[i];
    const Vec3 pn = (s.pn[i] - s.pn_base[i]) * c.normal;
    const Eigen::Vector2d dp = s.pt[i] - s.pt_base[i];
    const Vec3 pt = dp.x() * s.t1[i] + dp.y() * s.t2[i];
    const Vec3 du = impulse::relative_velocity(c, b) - s.u0[i];
    s.work[k] = {pn.dot(s.u0[i]), pt.dot(s.u0[i]), 0.5 * pn.dot(du), 0.5 * pt.dot(du)};
  });
  double b_normal = 0.0, b_tangent = 0.0, a_normal = 0.0, a_tangent = 0.0;
  for (const std::array<double, 4>& t : s.work) {
    b_normal += t[0];
    b_tangent += t[1];
    a_normal += t[2];
    a_tangent += t[3];
  }
  // Rolling resistance: the angular impulse L on A (-L on B) changes the kinetic energy by
  // L.(w_rel,before + w_rel,after) / 2; booked with friction (it is the moment of the contact's
  // tangential traction). Summed apart, and added only when the island has such rows, so an
  // island without them books the same bits as before.
  if (s.rolling) {
    double b_rolling = 0.0, a_rolling = 0.0;
    for (const int k : which) {
      const std::size_t i = static_cast<std::size_t>(k);
      const Contact& c = cs[i];
      if (c.rolling <= 0.0) continue;
      const Eigen::Vector2d dp = s.pr[i] - s.pr_base[i];
      const Vec3 l = dp.x() * s.t1[i] + dp.y() * s.t2[i];
      b_rolling += l.dot(s.wr0[i]);
      a_rolling += 0.5 * l.dot(impulse::relative_spin(c, b) - s.wr0[i]);
    }
    b_tangent += b_rolling;
    a_tangent += a_rolling;
  }
  const double bb = b_normal + b_tangent, aa = a_normal + a_tangent;
  double scale = 1.0;
  if (bb + aa > 1e-12 * (std::abs(bb) + std::abs(aa)) && aa > 0.0) {
    scale = std::clamp(-bb / aa, 0.0, 1.0);
    parallel_for(static_cast<std::size_t>(b.count), [&](std::size_t k) {
      b.v[k] = s.v0[k] + scale * (b.v[k] - s.v0[k]);
      b.w[k] = s.w0[k] + scale * (b.w[k] - s.w0[k]);
    });
    for (const int i : which) {
      s.pn[i] = s.pn_base[i] + scale * (s.pn[i] - s.pn_base[i]);
      s.pt[i] = s.pt_base[i] + scale * (s.pt[i] - s.pt_base[i]);
      if (s.rolling) s.pr[i] = s.pr_base[i] + scale * (s.pr[i] - s.pr_base[i]);
    }
    ++st.energy_guards;
  }
  // dK(s) split: the A term couples normal and tangential impulses; each part of P is booked
  // with the same velocities, so the split is P_n.(u_b + u_a)/2 and P_t.(u_b + u_a)/2.
  //
  // Which velocity "before": these impulses stand for contact forces acting through the step
  // alongside gravity, so their work is P.(u_start + u_after)/2 with u_start the velocity at
  // the start of the step, before the gravity kick g dt that every dynamic body got first (the
  // two forces together change the kinetic energy by exactly (P + m g dt).(v_start + v_after)/2).
  // Booked from the kicked velocity instead, a grain at rest on the floor showed m |g dt|^2 / 2
  // of restitution every step, paid by the same amount of integration: a third of the demo's
  // restitution column was that. The kick changes the relative velocity only at contacts with a
  // static body (both bodies of a grain pair get the same kick), by k = g dt: the shift
  // sum P.k / 2 goes from the dissipation to the time discretisation's `integration`.
  const Vec3 kick = settings_.dt * settings_.gravity;
  double shift_normal = 0.0, shift_tangent = 0.0;
  for (const int i : which) {
    const Contact& c = cs[i];
    if ((c.a >= 0) == (c.b >= 0)) continue;  // a grain pair: both kicked alike
    const Vec3 k = c.a >= 0 ? kick : Vec3(-kick);
    const Eigen::Vector2d dp = s.pt[i] - s.pt_base[i];
    shift_normal += 0.5 * (s.pn[i] - s.pn_base[i]) * c.normal.dot(k);
    shift_tangent += 0.5 * (dp.x() * s.t1[i] + dp.y() * s.t2[i]).dot(k);
  }
  st.dissipated_restitution -= scale * b_normal + scale * scale * a_normal - shift_normal;
  st.dissipated_friction -= scale * b_tangent + scale * scale * a_tangent - shift_tangent;
  st.integration -= shift_normal + shift_tangent;
  return scale;
}

void RestingSolver::shock_propagation(std::span<Contact> cs, IslandBodies& b, Scratch& s,
                                      SolverStats& st, bool parallel) {
  // Guendelman, Bridson & Fedkiw (2003) §7: a final pass from the bottom of the pile up, in
  // which the lower body of each contact is treated as fixed. A body's support is then settled
  // before anything above it is, so the approach the sweeps left in a deep pile (Gauss-Seidel
  // needs about as many sweeps as the pile has layers squared) is removed in one pass instead
  // of accumulating as penetration. The lower body does not take the reaction: momentum goes to
  // the ground, as in a resting pile it does. Normal impulses only; their work is booked as
  // restitution.
  //
  // Bodies, not contacts, are the unit: each contact belongs to its upper body (the one whose
  // centre is higher; a static body is never upper), and bodies are settled in the order of
  // their centres' height, so every support of a body is settled before the body. A body is
  // settled by a small projected Gauss-Seidel on its own support contacts with the supports
  // held fixed (a sphere in the pocket of three: pushing it off one support turns it into
  // another, which one impulse per contact left approaching).
  const Vec3 down = settings_.down();
  const std::size_t n = cs.size();
  const int nb = b.count;
  // Upper body of each contact (-1: none, both static), and each body's height. Each contact
  // on its own (on every thread when the island is swept by blocks), into small arrays the
  // serial passes below read instead of the contacts.
  s.upper.resize(n);
  s.upper_body.resize(n);
  s.lower_body.resize(n);
  s.upper_height.resize(n);
  for_each_index(parallel, n, [&](std::size_t i) {
    const Contact& c = cs[i];
    bool upper_a;
    if (c.b < 0)
      upper_a = true;
    else if (c.a < 0)
      upper_a = false;
    else
      upper_a = (c.point - c.ra).dot(down) < (c.point - c.rb).dot(down);
    const int body = upper_a ? c.a : c.b;
    s.upper[i] = body < 0 ? -1 : upper_a ? 1 : 0;
    s.upper_body[i] = body;
    s.lower_body[i] = upper_a ? c.b : c.a;
    s.upper_height[i] = body < 0 ? 0.0 : -(c.point - (upper_a ? c.ra : c.rb)).dot(down);
  });
  // A body's height is that of its last support contact in island order.
  s.height.assign(nb, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (s.upper_body[i] >= 0) s.height[s.upper_body[i]] = s.upper_height[i];
  group_by_key(
      nb,
      [&](auto emit) {
        for (std::size_t i = 0; i < n; ++i) emit(s.upper_body[i], static_cast<int>(i));
      },
      s.support_start, s.support, s.fill);
  // Lowest body first; ties by index, so the order is deterministic.
  s.order.clear();
  for (int k = 0; k < nb; ++k)
    if (s.support_start[k + 1] > s.support_start[k]) s.order.push_back({s.height[k], k});
  // (Heights with their bodies' indices: distinct keys, so a sort on several threads gives the
  // one order.)
  if (parallel)
    __gnu_parallel::sort(s.order.begin(), s.order.end());
  else
    std::sort(s.order.begin(), s.order.end());
  // Each body is settled from its own velocity and its supports' settled ones, and writes only
  // its own: any order in which every body follows its supports gives the same bits. On several
  // threads the bodies go by level (a body's level exceeds that of every support settled before
  // it in the height order and is below that of every support settled after it, which rounding
  // of the heights can produce), the bodies of a level in parallel; the statistics are summed in
  // the height order either way, so both give the bits of the one-thread pass.
  const int m = static_cast<int>(s.order.size());
  s.settled.resize(m);
  // The bodies go up the pile in height order, and their support contacts lie anywhere in the
  // island's array, so they are fetched ahead (a hint to the cache, no value changes) in two
  // steps: the support contacts of the body at place `far` (kAhead on), then the bodies under
  // the one at place `near` (half as far).
  // -1: none.
  constexpr int kAhead = 4;
  auto fetch_ahead = [&](int far, int near) {
    if (far >= 0) {
      const int body = s.order[far].second;
      for (int j = s.support_start[body]; j < s.support_start[body + 1]; ++j) {
        const std::size_t i = static_cast<std::size_t>(s.support[j]);
        prefetch_range(&cs[i], sizeof(Contact));
        prefetch_range(&s.turns[3 * i], 3 * sizeof(Turn));
        prefetch(&s.t1[i]);
        prefetch(&s.t2[i]);
        prefetch(&s.target[i]);
      }
    }
    if (near < 0) return;
    const int body = s.order[near].second;
    prefetch(&b.inv_inertia[body]);
    for (int j = s.support_start[body]; j < s.support_start[body + 1]; ++j) {
      const int lower = s.lower_body[s.support[j]];
      if (lower < 0) continue;
      prefetch(&b.v[lower]);
      prefetch(&b.w[lower]);
    }
  };
  if (!parallel) {
    for (int k = 0; k < m; ++k) {
      fetch_ahead(k + kAhead < m ? k + kAhead : -1, k + kAhead / 2 < m ? k + kAhead / 2 : -1);
      s.settled[k] = settle_body(s.order[k].second, cs, b, s, s.local);
    }
  } else {
    s.position.assign(nb, -1);
    for (int k = 0; k < m; ++k) s.position[s.order[k].second] = k;
    s.level.assign(nb, 0);
    auto lower_of = [&](int j) {  // the supporting body of support j (-1: static)
      return s.lower_body[s.support[j]];
    };
    int levels = 0;
    for (int k = 0; k < m; ++k) {
      const int body = s.order[k].second;
      int level = s.level[body];
      for (int j = s.support_start[body]; j < s.support_start[body + 1]; ++j) {
        const int lower = lower_of(j);
        if (lower >= 0 && s.position[lower] >= 0 && s.position[lower] < k)
          level = std::max(level, s.level[lower] + 1);
      }
      s.level[body] = level;
      for (int j = s.support_start[body]; j < s.support_start[body + 1]; ++j) {
        const int lower = lower_of(j);
        if (lower >= 0 && s.position[lower] > k)
          s.level[lower] = std::max(s.level[lower], level + 1);
      }
      levels = std::max(levels, level + 1);
    }
    // Bodies of each level in body order (a counting sort). No body of a level supports another
    // of it, so any order within a level gives the same bits; the island's bodies are in the
    // blocked order here, so body order is a walk through space, where height order jumped
    // across the whole bed from one body to the next (at 10^6 grains, a cache miss each).
    group_by_key(
        levels,
        [&](auto emit) {
          for (int body = 0; body < nb; ++body)
            if (s.position[body] >= 0) emit(s.level[body], s.position[body]);
        },
        s.level_start, s.by_level, s.fill);
    s.local_of_thread.resize(std::max(omp_get_max_threads(), 1));
#pragma omp parallel
    {
      std::vector<Support>& local = s.local_of_thread[omp_get_thread_num()];
      for (int l = 0; l < levels; ++l) {
#pragma omp for schedule(dynamic, 8)
        for (int q = s.level_start[l]; q < s.level_start[l + 1]; ++q) {
          const int end = s.level_start[l + 1];
          fetch_ahead(q + kAhead < end ? s.by_level[q + kAhead] : -1,
                      q + kAhead / 2 < end ? s.by_level[q + kAhead / 2] : -1);
          const int k = s.by_level[q];
          s.settled[k] = settle_body(s.order[k].second, cs, b, s, local);
        }
      }
    }
  }
  for (int k = 0; k < m; ++k) {
    const Settled& r = s.settled[k];
    st.iterations += r.iterations;
    st.shock_bound_reached += r.bound_reached;
    st.energy_guards += r.energy_guards;
    st.friction_fallbacks += r.friction_fallbacks;
    st.dissipated_restitution -= r.restitution;
    st.dissipated_friction -= r.friction;
    st.integration -= r.integration;
  }
}

RestingSolver::Settled RestingSolver::settle_body(int body, std::span<Contact> cs, IslandBodies& b,
                                                  const Scratch& s,
                                                  std::vector<Support>& local) const {
  Settled out;
  const int first = s.support_start[body], last = s.support_start[body + 1];
  // Per support contact: direction d from the lower to the upper body, lever arm, the lower
  // body's point velocity and the goal of the upper body's point velocity along d.
  local.clear();
  bool approaching = false;
  for (int j = first; j < last; ++j) {
    const int i = s.support[j];
    const Contact& c = cs[i];
    const bool upper_a = s.upper[i] == 1;
    Support& sp = local.emplace_back();
    sp.d = upper_a ? c.normal : Vec3(-c.normal);
    sp.r = upper_a ? c.ra : c.rb;
    // The lower body's point velocity along d, and the speed that closes the gap within the
    // step (a speculative contact): the upper body must not move along d slower than that.
    const int lower = upper_a ? c.b : c.a;
    const Vec3 r_low = upper_a ? c.rb : c.ra;
    sp.low = lower >= 0 ? Vec3(b.v[lower] + b.w[lower].cross(r_low)) : Vec3::Zero();
    // The pass treats the lower body as the ground. That is only energy-consistent while the
    // lower body's contact point does not move towards the upper one: an infinitely heavy
    // support that rises lifts whatever it carries with work nobody pays for (a tumbling
    // cube's corner at 9 m/s handed 15 m/s up a column of five cubes, +0.95 J in one step).
    // So the goal never exceeds zero: the pass only stops the upper body's own motion into
    // its support, and its work on the upper body is never positive (docs/design.md). What
    // the lower body's rise leaves approaching gets sweeps of its own after this pass, which
    // conserve momentum (solve).
    sp.goal = std::min(sp.d.dot(sp.low) + s.target[i], 0.0);
    const Vec3 v_up = b.v[body] + b.w[body].cross(sp.r);
    approaching = approaching || !(sp.goal - sp.d.dot(v_up) <= 0.0);
  }
  // A body none of whose supports it approaches faster than their goal is left exactly as it
  // is: every impulse of the settle below would start at zero and stay zero (p = max(0,
  // m (goal - u)) with goal - u <= 0, and a friction disc of radius mu p = 0), so nothing
  // would be pushed, no work booked and no guard fired. Skipping it saves setting up the
  // supports' masses of most bodies of a settled pile.
  if (!approaching) return out;
  // The upper body's masses along each support's normal and tangents, and its friction.
  //
  // The sweeps' set-up already holds what the masses are made of: the rows' tangent basis and
  // turns I^-1 (r x d) (the normal row's and the tangent rows'). Along d = -n (B the upper body)
  // they are the same numbers negated, and negation is exact; the tangent basis is the one
  // any_orthogonal(d) gives, t1 negated for d = -n (any_orthogonal(-n) = -any_orthogonal(n) and
  // (-n) x (-t1) = n x t1). So reading them gives the bits of computing them again, and saves
  // three 3x3 products and a normalisation per support (docs/design.md "The shock pass reads the
  // sweeps' set-up").
  const double inv_mass = b.inv_mass[body];
  for (int j = first; j < last; ++j) {
    const int i = s.support[j];
    const bool upper_a = s.upper[i] == 1;
    const Turn* turn = &s.turns[3 * static_cast<std::size_t>(i)];
    Support& sp = local[static_cast<std::size_t>(j - first)];
    // d.K d = 1/m + (r x d).I^-1 (r x d), as in solve's set-up.
    const Vec3 rd = sp.r.cross(sp.d);
    const Vec3 turn_d = upper_a ? turn[0].ia : Vec3(-turn[0].ib);
    sp.mass = 1.0 / (inv_mass + rd.dot(turn_d));
    // Friction: the upper body's slip over the held support, within the Coulomb disc. A
    // frictionless pass let a grain on a tilted support slide down its tangent plane every
    // step (the creep of a sphere heap, docs/design.md).
    // Only against a support at rest (its point slower than the resting velocity): friction
    // against a tumbling support drags the grain into turns that bring other corners in (two
    // tumbling cubes went 5.6 % of a side deep with it, 4.2 % without).
    sp.mu = sp.low.norm() <= settings_.slip_velocity ? cs[i].friction : 0.0;
    sp.t1 = upper_a ? s.t1[i] : Vec3(-s.t1[i]);
    sp.t2 = s.t2[i];
    sp.low_t = Eigen::Vector2d(sp.t1.dot(sp.low), sp.t2.dot(sp.low));
    // Only a support with friction uses its tangential mass (a tumbling support has none).
    sp.tangent_mass.setZero();
    if (sp.mu > 0.0) {
      const Vec3 r1 = sp.r.cross(sp.t1), r2 = sp.r.cross(sp.t2);
      const Vec3 i1 = upper_a ? turn[1].ia : Vec3(-turn[1].ib);  // B's t1 is -t1
      const Vec3 i2 = upper_a ? turn[2].ia : turn[2].ib;
      const double k12 = r1.dot(i2);
      Eigen::Matrix2d kt;
      kt << inv_mass + r1.dot(i1), k12, k12, inv_mass + r2.dot(i2);
      sp.tangent_mass = kt.inverse();
    }
    sp.p = 0.0;
    sp.pt.setZero();
    const Vec3 v_up = b.v[body] + b.w[body].cross(sp.r);
    sp.u0 = Vec3(sp.d.dot(v_up), sp.t1.dot(v_up), sp.t2.dot(v_up));
  }
  const Vec3 v_before = b.v[body], w_before = b.w[body];
  auto push = [&](const Support& sp, const Vec3& q) {
    b.v[body] += b.inv_mass[body] * q;
    b.w[body] += b.inv_inertia[body] * sp.r.cross(q);
    ++out.iterations;
  };
  // Accumulated impulses: normal p >= 0 with u.d >= goal, tangential within mu p towards no
  // slip. At most kShockIterations sweeps over the body's supports; a body that needs them
  // all is counted (shock_bound_reached).
  const double tol = settings_.tolerance * settings_.gravity.norm() * settings_.dt;
  auto settle = [&](bool friction) {
    bool converged = false;
    for (int it = 0; it < kShockIterations && !converged; ++it) {
      converged = true;
      for (Support& sp : local) {
        Vec3 v_up = b.v[body] + b.w[body].cross(sp.r);
        const double p_new = std::max(0.0, sp.p + sp.mass * (sp.goal - sp.d.dot(v_up)));
        const double dp = p_new - sp.p;
        if (dp != 0.0) {
          if (std::abs(dp) / sp.mass > tol) converged = false;
          sp.p = p_new;
          push(sp, dp * sp.d);
          v_up = b.v[body] + b.w[body].cross(sp.r);
        }
        if (!friction || sp.mu <= 0.0) continue;
        const Eigen::Vector2d slip = Eigen::Vector2d(sp.t1.dot(v_up), sp.t2.dot(v_up)) - sp.low_t;
        Eigen::Vector2d pt_new = sp.pt - sp.tangent_mass * slip;
        const double limit = sp.mu * sp.p;
        if (pt_new.norm() > limit) pt_new *= limit / pt_new.norm();
        const Eigen::Vector2d dpt = pt_new - sp.pt;
        if (dpt.x() == 0.0 && dpt.y() == 0.0) continue;
        if (dpt.norm() > tol * sp.mass) converged = false;
        sp.pt = pt_new;
        push(sp, dpt.x() * sp.t1 + dpt.y() * sp.t2);
      }
    }
    if (!converged) ++out.bound_reached;
  };
  // The body's kinetic energy changed by exactly sum_rows p (u_before + u_after) / 2 (one
  // body: its own point velocities along each row): b* = sum p u_before, a* = sum p du / 2.
  double bn = 0.0, bt = 0.0, an = 0.0, at = 0.0;
  auto work = [&]() {
    bn = bt = an = at = 0.0;
    for (const Support& sp : local) {
      const Vec3 v_up = b.v[body] + b.w[body].cross(sp.r);
      const Vec3 du = Vec3(sp.d.dot(v_up), sp.t1.dot(v_up), sp.t2.dot(v_up)) - sp.u0;
      bn += sp.p * sp.u0.x();
      an += 0.5 * sp.p * du.x();
      bt += sp.pt.x() * sp.u0.y() + sp.pt.y() * sp.u0.z();
      at += 0.5 * (sp.pt.x() * du.y() + sp.pt.y() * du.z());
    }
    return bn + bt + an + at;
  };
  auto raises = [&](double dk) {
    return dk > 1e-12 * (std::abs(bn + bt) + std::abs(an + at)) && an + at > 0.0;
  };
  settle(true);
  // The normal part never does positive work (goals <= 0); friction against a moving support
  // could (it drags the body along the support's slow motion). Where the body's whole change
  // would raise its kinetic energy, it is settled again with friction against its own slip
  // (low_t = 0: Coulomb friction that only slows the body's contact points; counted as a
  // friction fallback). Dropping friction there instead let the body slide: in a settled
  // 1000-sphere pour 63 bodies a step lost their friction, and single grains slid off at 2 to
  // 6 cm/s, so the pile never came to rest (docs/design.md "Sleeping islands"). Where that
  // too would raise the energy, it is settled without friction (an energy guard): its
  // approach is still stopped.
  auto restart = [&](bool own_slip) {
    b.v[body] = v_before;
    b.w[body] = w_before;
    for (Support& sp : local) {
      sp.p = 0.0;
      sp.pt.setZero();
      if (own_slip) sp.low_t.setZero();
    }
  };
  if (raises(work())) {
    restart(true);
    settle(true);
    ++out.friction_fallbacks;
  }
  if (raises(work())) {
    restart(false);
    settle(false);
    work();
    ++out.energy_guards;
  }
  // Round-off left: scaled back to no net work, as the sweeps' change is (book_and_guard).
  const double bb = bn + bt, aa = an + at;
  double scale = 1.0;
  if (raises(bb + aa)) {
    scale = std::clamp(-bb / aa, 0.0, 1.0);
    b.v[body] = v_before + scale * (b.v[body] - v_before);
    b.w[body] = w_before + scale * (b.w[body] - w_before);
    ++out.energy_guards;
  }
  // Booked from the velocity before the step's gravity kick, as the sweeps' impulses are
  // (book_and_guard): the shift P.(g dt)/2 is the integration's.
  double shift_n = 0.0, shift_t = 0.0;
  for (const Support& sp : local) {
    shift_n += 0.5 * settings_.dt * scale * sp.p * sp.d.dot(settings_.gravity);
    shift_t +=
        0.5 * settings_.dt * scale * (sp.pt.x() * sp.t1 + sp.pt.y() * sp.t2).dot(settings_.gravity);
  }
  out.restitution = scale * bn + scale * scale * an - shift_n;
  out.friction = scale * bt + scale * scale * at - shift_t;
  out.integration = shift_n + shift_t;
  return out;
}

}  // namespace etdem
