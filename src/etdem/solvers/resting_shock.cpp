// The resting pass's shock pass (RestingPass::shock_pass; Guendelman, Bridson & Fedkiw 2003 §7):
// from the bottom of the pile up, each body settled on its support rows with the lower bodies
// held fixed. Levels of bodies no two of which support each other run on every thread; a team's
// members each settle their own bodies, passing on those the others' rest on.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <parallel/algorithm>
#include <stdexcept>

#include <omp.h>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/group_by_key.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {

namespace {

/// How many places ahead in the height order the shock pass fetches a body's data.
constexpr int kSettleAhead = 4;

/// A team's member posts the bodies it settled that others read once this many more of its
/// bodies are settled after the first of them (or before it waits, or at the end). Only the
/// messages' count and timing depend on it, never a value.
constexpr int kShockPostAfter = 8;

/// The bodies go up the pile in height order, and their support rows lie anywhere in the
/// island's arrays, so they are fetched ahead (a hint to the cache, no value changes) in two
/// steps: the support rows of the body at place `far` of the height order (kSettleAhead on),
/// then the bodies under the one at place `near` (half as far). -1: none.
void fetch_settle(const RestingWork& w, int far, int near) {
  const RestingRows& r = w.rows;
  if (far >= 0) {
    const int body = w.by_height[static_cast<std::size_t>(far)].second;
    for (int j = w.support_start[body]; j < w.support_start[body + 1]; ++j) {
      const std::size_t i = static_cast<std::size_t>(w.support[j]);
      prefetch(&r.normal[i]);
      prefetch(&r.ra[i]);
      prefetch(&r.rb[i]);
      prefetch_range(&r.turns[3 * i], 3 * sizeof(RestingTurn));
      prefetch(&r.t1[i]);
      prefetch(&r.t2[i]);
      prefetch(&r.target[i]);
    }
  }
  if (near < 0) return;
  const int body = w.by_height[static_cast<std::size_t>(near)].second;
  prefetch(&w.bodies.inv_inertia[body]);
  for (int j = w.support_start[body]; j < w.support_start[body + 1]; ++j) {
    const int lower = r.lower_body[w.support[j]];
    if (lower < 0) continue;
    prefetch(&w.bodies.v[lower]);
    prefetch(&w.bodies.w[lower]);
  }
}

}  // namespace

void RestingPass::shock_pass(RestingWork& w) const {
  // A body's support is settled before anything above it is, so the approach the sweeps left in
  // a deep pile (Gauss-Seidel needs about as many sweeps as the pile has layers squared) is
  // removed in one pass instead of accumulating as penetration. The lower body does not take the
  // reaction: momentum goes to the ground, as in a resting pile it does.
  //
  // Bodies, not rows, are the unit: each row belongs to its upper body (the one whose centre is
  // higher; a static body never is; RestingRows::upper, built at prepare), and bodies are
  // settled in the order of their centres' height, so every support of a body is settled before
  // the body. A body is settled by a small projected Gauss-Seidel on its own support rows with
  // the supports held fixed (a sphere in the pocket of three: pushing it off one support turns
  // it into another, which one impulse per row left approaching).
  const RestingRows& r = w.rows;
  const std::size_t n = r.size();
  const int nb = w.bodies.count;
  // A body's height is that of its last support row in island order.
  w.height.assign(nb, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (r.upper_body[i] >= 0) w.height[r.upper_body[i]] = r.upper_height[i];
  group_by_key(
      nb,
      [&](auto emit) {
        for (std::size_t i = 0; i < n; ++i) emit(r.upper_body[i], static_cast<int>(i));
      },
      w.support_start, w.support, w.fill);
  // Lowest body first; ties by index, so the order is deterministic. A team's member settles
  // its own bodies in this order, each once the bodies it rests on that come before it have
  // come from their members (settle_team).
  if (w.share.team) {
    share_heights(w);
    settle_team(w);
  } else {
    settle_alone(w);
  }
  const int m = static_cast<int>(w.by_height.size());
  SolverStats& st = w.stats;
  if (w.blocks) {
    // A blocked island: the sums exact (any order; in a team each member sums the bodies it
    // settled, one reduction merging them).
    std::array<ExactSum, 3> sum{};
    std::array<std::int64_t, 4> count{};
    for (int k = 0; k < m; ++k) {
      const RestingSettled& s = w.settled[k];
      sum[0].add(s.restitution);
      sum[1].add(s.friction);
      sum[2].add(s.integration);
      count[0] += s.iterations;
      count[1] += s.bound_reached;
      count[2] += s.energy_guards;
      count[3] += s.friction_fallbacks;
    }
    if (w.share.team) share_sums(w, sum, count);
    st.iterations += count[0];
    st.shock_bound_reached += count[1];
    st.energy_guards += count[2];
    st.friction_fallbacks += count[3];
    st.dissipated_restitution -= sum[0].value();
    st.dissipated_friction -= sum[1].value();
    st.integration -= sum[2].value();
  } else {
    for (int k = 0; k < m; ++k) {
      const RestingSettled& s = w.settled[k];
      st.iterations += s.iterations;
      st.shock_bound_reached += s.bound_reached;
      st.energy_guards += s.energy_guards;
      st.friction_fallbacks += s.friction_fallbacks;
      st.dissipated_restitution -= s.restitution;
      st.dissipated_friction -= s.friction;
      st.integration -= s.integration;
    }
  }
  // Every body moved: the rounds' marks are taken afresh.
  w.marked = false;
  w.probe_set = 1;
  if (resting_probe && !w.share.team) probe(w, 0, 0, true);  // (a team member holds its rows)
}

void RestingPass::settle_alone(RestingWork& w) const {
  const RestingRows& r = w.rows;
  const int nb = w.bodies.count;
  w.by_height.clear();
  for (int k = 0; k < nb; ++k)
    if (w.support_start[k + 1] > w.support_start[k]) w.by_height.push_back({w.height[k], k});
  // (Heights with their bodies' indices: distinct keys, so a sort on several threads gives the
  // one order.)
  if (w.parallel)
    __gnu_parallel::sort(w.by_height.begin(), w.by_height.end());
  else
    std::sort(w.by_height.begin(), w.by_height.end());
  // Each body is settled from its own velocity and its supports' settled ones, and writes only
  // its own: any order in which every body follows its supports gives the same bits. On several
  // threads the bodies go by level (a body's level exceeds that of every support settled before
  // it in the height order and is below that of every support settled after it, which rounding
  // of the heights can produce), the bodies of a level in parallel; the statistics are summed in
  // the height order either way, so both give the bits of the one-thread pass.
  const int m = static_cast<int>(w.by_height.size());
  w.settled.resize(m);
  if (!w.parallel) {
    for (int k = 0; k < m; ++k) {
      fetch_settle(w, k + kSettleAhead < m ? k + kSettleAhead : -1,
                   k + kSettleAhead / 2 < m ? k + kSettleAhead / 2 : -1);
      w.settled[k] = settle_body(w.by_height[k].second, w, w.local);
    }
    return;
  }
  w.position.assign(nb, -1);
  for (int k = 0; k < m; ++k) w.position[w.by_height[k].second] = k;
  w.level.assign(nb, 0);
  // Each supporting body of `body` (-1: static).
  auto each_lower = [&](int body, auto&& f) {
    for (int j = w.support_start[body]; j < w.support_start[body + 1]; ++j)
      f(r.lower_body[w.support[j]]);
  };
  int levels = 0;
  for (int k = 0; k < m; ++k) {
    const int body = w.by_height[k].second;
    int level = w.level[body];
    each_lower(body, [&](int lower) {
      if (lower >= 0 && w.position[lower] >= 0 && w.position[lower] < k)
        level = std::max(level, w.level[lower] + 1);
    });
    w.level[body] = level;
    each_lower(body, [&](int lower) {
      if (lower >= 0 && w.position[lower] > k) w.level[lower] = std::max(w.level[lower], level + 1);
    });
    levels = std::max(levels, level + 1);
  }
  // Bodies of each level in body order (a counting sort). No body of a level supports another
  // of it, so any order within a level gives the same bits; the island's bodies are in the
  // blocked order here, so body order is a walk through space.
  group_by_key(
      levels,
      [&](auto emit) {
        for (int body = 0; body < nb; ++body)
          if (w.position[body] >= 0) emit(w.level[body], w.position[body]);
      },
      w.level_start, w.by_level, w.fill);
  w.local_of_thread.resize(std::max(omp_get_max_threads(), 1));
#pragma omp parallel
  {
    std::vector<RestingSupport>& local = w.local_of_thread[omp_get_thread_num()];
    for (int l = 0; l < levels; ++l) {
#pragma omp for schedule(dynamic, 8)
      for (int q = w.level_start[l]; q < w.level_start[l + 1]; ++q) {
        const int end = w.level_start[l + 1];
        fetch_settle(w, q + kSettleAhead < end ? w.by_level[q + kSettleAhead] : -1,
                     q + kSettleAhead / 2 < end ? w.by_level[q + kSettleAhead / 2] : -1);
        const int k = w.by_level[q];
        w.settled[k] = settle_body(w.by_height[k].second, w, local);
      }
    }
  }
}

void RestingPass::settle_team(RestingWork& w) const {
  // A team (resting_team.hpp): each member settles its bodies in height order, and posts each
  // one that another member's bodies rest on to that member. A body is settled once the bodies
  // it rests on that come before it in the height order have arrived; what arrived is taken
  // into the bodies only when this member's order passes it, so every body is settled from the
  // values the one-process pass reads (supports before it settled, supports after it not yet),
  // whatever the timing. Each member's posts go in its height order; a member posts what it has
  // before it waits, so the member holding the lowest body not yet settled is never waiting,
  // and no member waits for ever. A member's last post to another ends with a mark; each takes
  // every post up to it before the pass ends.
  RestingShare& s = w.share;
  const RestingRows& r = w.rows;
  const std::uint64_t mine = std::uint64_t{1} << s.me;
  const int m = static_cast<int>(w.by_height.size());
  w.settled.resize(static_cast<std::size_t>(m));
  const std::size_t members = static_cast<std::size_t>(s.members);
  s.arrivals.resize(members);
  s.arrivals_taken.assign(members, 0);
  for (std::vector<RestingArrival>& a : s.arrivals) a.clear();
  std::vector<ByteWriter>& out = begin_messages(s);
  std::uint64_t ended = 0;    // members whose last post came
  std::uint64_t pending = 0;  // members this one has bodies to post to
  int oldest = -1;            // the place of the first body not yet posted
  auto post = [&](bool last) {
    const std::uint64_t to = last ? s.shock_to : pending;
    if (to == 0) return;
    std::vector<std::string> bytes(members);
    for (std::uint64_t left = to; left != 0; left &= left - 1) {
      const std::size_t member = static_cast<std::size_t>(std::countr_zero(left));
      if (last) out[member].put(std::int32_t{-1});
      bytes[member] = out[member].take_copy();
    }
    s.team->post(std::move(bytes), to);
    pending = 0;
    oldest = -1;
  };
  auto take = [&](int member) {
    const std::uint64_t bit = std::uint64_t{1} << member;
    if ((ended & bit) != 0)
      throw std::logic_error("a team member waits for a body its member never posted");
    const std::vector<std::string> got = s.team->collect(bit);
    ByteReader in(got[static_cast<std::size_t>(member)]);
    std::vector<RestingArrival>& list = s.arrivals[static_cast<std::size_t>(member)];
    while (!in.done()) {
      const int name = in.get<std::int32_t>();
      if (name < 0) {
        ended |= bit;
        break;
      }
      const int body = held_body(w, name);
      RestingArrival& a = list.emplace_back();
      a.key.second = body;
      in.get(a.key.first);
      in.get(a.v);
      in.get(a.w);
      s.heard[static_cast<std::size_t>(body)] = kHeardArrived;
    }
  };
  // Takes into the bodies what arrived before `key` in the height order (all of it: none).
  auto take_in = [&](const std::pair<double, int>* key) {
    for (std::size_t member = 0; member < members; ++member) {
      const std::vector<RestingArrival>& list = s.arrivals[member];
      std::size_t& q = s.arrivals_taken[member];
      for (; q < list.size() && (key == nullptr || list[q].key < *key); ++q) {
        const int body = list[q].key.second;
        w.bodies.v[body] = list[q].v;
        w.bodies.w[body] = list[q].w;
        s.known[static_cast<std::size_t>(body)] = s.phase;
      }
    }
  };
  std::vector<RestingSupport>& local = w.local;
  for (int k = 0; k < m; ++k) {
    const std::pair<double, int>& key = w.by_height[static_cast<std::size_t>(k)];
    const int body = key.second;
    for (int j = w.support_start[body]; j < w.support_start[body + 1]; ++j) {
      const int lower = r.lower_body[w.support[j]];
      if (lower < 0) continue;
      const std::size_t low = static_cast<std::size_t>(lower);
      const int member = s.body_member[low];
      if (member == s.me || s.heard[low] == kHeardHeld) continue;
      if (!(std::pair<double, int>(w.height[low], lower) < key)) continue;
      while (s.heard[low] != kHeardArrived) {
        post(false);
        take(member);
      }
    }
    take_in(&key);
    fetch_settle(w, k + kSettleAhead < m ? k + kSettleAhead : -1,
                 k + kSettleAhead / 2 < m ? k + kSettleAhead / 2 : -1);
    w.settled[static_cast<std::size_t>(k)] = settle_body(body, w, local);
    s.stamp[static_cast<std::size_t>(body)] = s.known[static_cast<std::size_t>(body)] = s.phase;
    const std::uint64_t readers = s.shock_readers[static_cast<std::size_t>(body)] & ~mine;
    for (std::uint64_t left = readers; left != 0; left &= left - 1) {
      ByteWriter& o = out[static_cast<std::size_t>(std::countr_zero(left))];
      o.put(body_name(w, body));
      o.put(key.first);
      o.put(w.bodies.v[body]);
      o.put(w.bodies.w[body]);
    }
    if (readers != 0) {
      pending |= readers;
      if (oldest < 0) oldest = k;
    }
    // Bodies to post go after a few more are settled: fewer messages, and little delay.
    if (oldest >= 0 && k - oldest >= kShockPostAfter) post(false);
  }
  post(true);
  for (std::uint64_t left = s.shock_from; left != 0; left &= left - 1) {
    const int member = std::countr_zero(left);
    while ((ended & (std::uint64_t{1} << member)) == 0) take(member);
  }
  take_in(nullptr);
  // The pass's values carry the phase that is still open: it closes here, so that no later
  // stage moves a body in it (the sync keeps the latest phase's value).
  ++s.phase;
  share_sync(w);
}

RestingSettled RestingPass::settle_body(int body, RestingWork& w,
                                        std::vector<RestingSupport>& local) const {
  RestingSettled out;
  const RestingRows& r = w.rows;
  IslandBodies& b = w.bodies;
  const int first = w.support_start[body], last = w.support_start[body + 1];
  // Per support row: direction d from the lower to the upper body, lever arm, the lower body's
  // point velocity and the goal of the upper body's point velocity along d.
  local.clear();
  bool approaching = false;
  for (int j = first; j < last; ++j) {
    const std::size_t i = static_cast<std::size_t>(w.support[j]);
    const bool upper_a = r.upper_body[i] == r.a[i];
    RestingSupport& sp = local.emplace_back();
    sp.d = upper_a ? r.normal[i] : Vec3(-r.normal[i]);
    sp.r = upper_a ? r.ra[i] : r.rb[i];
    // The lower body's point velocity along d, and the speed that closes the gap within the
    // step (a speculative contact): the upper body must not move along d slower than that.
    const int lower = upper_a ? r.b[i] : r.a[i];
    const Vec3 r_low = upper_a ? r.rb[i] : r.ra[i];
    sp.low = lower >= 0 ? Vec3(b.v[lower] + b.w[lower].cross(r_low)) : Vec3::Zero();
    // The pass treats the lower body as the ground. That is only energy-consistent while the
    // lower body's contact point does not move towards the upper one: an infinitely heavy
    // support that rises lifts whatever it carries with work nobody pays for. So the goal never
    // exceeds zero: the pass only stops the upper body's own motion into its support, and its
    // work on the upper body is never positive. What the lower body's rise leaves approaching
    // gets the closing rounds after this pass, which conserve momentum. The goal also allows
    // the contact's room (pgs.shock_depth): an approach the room holds is likewise left to the
    // rounds, so the pass does not brake a grain flowing over the pile against supports that
    // cannot recoil.
    const double target = r.shock_target.empty() ? r.target[i] : r.shock_target[i];
    sp.goal = std::min(sp.d.dot(sp.low) + target, 0.0);
    const Vec3 v_up = b.v[body] + b.w[body].cross(sp.r);
    approaching = approaching || !(sp.goal - sp.d.dot(v_up) <= 0.0);
  }
  // A body none of whose supports it approaches faster than their goal is left exactly as it
  // is: every impulse of the settle below would start at zero and stay zero (p = max(0,
  // m (goal - u)) with goal - u <= 0, and a friction disc of radius mu p = 0).
  if (!approaching) return out;
  // The upper body's masses along each support's normal and tangents, and its friction, from
  // the rows' tangent basis and turns I^-1 (r x d). Along d = -n (B the upper body) they are the
  // same numbers negated, and negation is exact; the tangent basis is the one any_orthogonal(d)
  // gives, t1 negated for d = -n (any_orthogonal(-n) = -any_orthogonal(n) and (-n) x (-t1) =
  // n x t1).
  const double inv_mass = b.inv_mass[body];
  for (int j = first; j < last; ++j) {
    const std::size_t i = static_cast<std::size_t>(w.support[j]);
    const bool upper_a = r.upper_body[i] == r.a[i];
    const RestingTurn* turn = &r.turns[3 * i];
    RestingSupport& sp = local[static_cast<std::size_t>(j - first)];
    // d.K d = 1/m + (r x d).I^-1 (r x d).
    const Vec3 rd = sp.r.cross(sp.d);
    const Vec3 turn_d = upper_a ? turn[0].ia : Vec3(-turn[0].ib);
    sp.mass = 1.0 / (inv_mass + rd.dot(turn_d));
    // Friction: the upper body's slip over the held support, within the Coulomb disc, only
    // against a support at rest (its point slower than the slip velocity): friction against a
    // tumbling support drags the grain into turns that bring other corners in.
    sp.mu = sp.low.norm() <= settings_.slip_velocity ? r.friction[i] : 0.0;
    sp.t1 = upper_a ? r.t1[i] : Vec3(-r.t1[i]);
    sp.t2 = r.t2[i];
    sp.low_t = Eigen::Vector2d(sp.t1.dot(sp.low), sp.t2.dot(sp.low));
    // Only a support with friction uses its tangential mass.
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
  auto push = [&](const RestingSupport& sp, const Vec3& q) {
    b.v[body] += b.inv_mass[body] * q;
    b.w[body] += b.inv_inertia[body] * sp.r.cross(q);
    ++out.iterations;
  };
  // Accumulated impulses: normal p >= 0 with u.d >= goal, tangential within mu p towards no
  // slip. At most kShockIterations sweeps over the body's supports; a body that needs them all
  // is counted (shock_bound_reached).
  const double tol = settings_.tolerance * step_.gravity.norm() * step_.h;
  auto settle = [&](bool friction) {
    bool converged = false;
    for (int it = 0; it < kShockIterations && !converged; ++it) {
      converged = true;
      for (RestingSupport& sp : local) {
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
  // The body's kinetic energy changed by exactly sum_rows p (u_before + u_after) / 2 (one body:
  // its own point velocities along each row): b* = sum p u_before, a* = sum p du / 2.
  double bn = 0.0, bt = 0.0, an = 0.0, at = 0.0;
  auto work = [&]() {
    bn = bt = an = at = 0.0;
    for (const RestingSupport& sp : local) {
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
  // friction fallback). Where that too would raise the energy, it is settled without friction
  // (an energy guard): its approach is still stopped.
  auto restart = [&](bool own_slip) {
    b.v[body] = v_before;
    b.w[body] = w_before;
    for (RestingSupport& sp : local) {
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
  for (const RestingSupport& sp : local) {
    shift_n += 0.5 * step_.h * scale * sp.p * sp.d.dot(step_.gravity);
    shift_t += 0.5 * step_.h * scale * (sp.pt.x() * sp.t1 + sp.pt.y() * sp.t2).dot(step_.gravity);
  }
  out.restitution = scale * bn + scale * scale * an - shift_n;
  out.friction = scale * bt + scale * scale * at - shift_t;
  out.integration = shift_n + shift_t;
  return out;
}

}  // namespace etdem
