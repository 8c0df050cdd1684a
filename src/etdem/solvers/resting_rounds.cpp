// The resting pass's closing rounds (RestingPass::close_rounds), after the shock pass: sweeps of
// the normal impulses of the rows left approaching, with both bodies free, each round following
// its front as its sweeps move bodies into their neighbours; and the marks of the rows left
// approaching, which the rounds start from and the statistics count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include <omp.h>

#include "etdem/core/group_by_key.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {
namespace {

/// Calls f(i, sweep) for the rows `which` (ascending) as run_rows does for all of them: in
/// their order, or with `blocks` a colour's blocks on every thread, colour after colour, then
/// the leftovers. Ascending rows are the blocked order (colour, block, island order) and blocks
/// of one colour share no body, so both give the same bits. The rows lie apart in memory: their
/// data is fetched ahead with `ahead` (fetch_subset).
template <class F, class A>
RestingSweep run_subset(const BlockOrder* blocks, std::span<const int> which, SubsetBlocks& sub,
                        F&& f, A&& ahead) {
  RestingSweep total;
  const std::size_t m = which.size();
  auto visit = [&](std::size_t p, RestingSweep& sw) {
    fetch_subset(which, p, ahead);
    f(static_cast<std::size_t>(which[p]), sw);
  };
  if (!blocks) {
    for (std::size_t p = 0; p < m; ++p) visit(p, total);
    return total;
  }
  const BlockOrder& o = *blocks;
  sub.find(o, which);
#pragma omp parallel
  {
    RestingSweep mine;
    for (int colour = 0; colour < o.colours(); ++colour) {
#pragma omp for schedule(dynamic, 4)
      for (int k = o.colour_start[colour]; k < o.colour_start[colour + 1]; ++k)
        for (int p = sub.first[static_cast<std::size_t>(k)];
             p >= 0 && p < sub.end[static_cast<std::size_t>(k)]; ++p)
          visit(static_cast<std::size_t>(p), mine);
    }
#pragma omp critical(etdem_resting_subset)
    total.merge(mine);
  }
  for (auto p = static_cast<std::size_t>(sub.leftovers); p < which.size(); ++p) visit(p, total);
  return total;
}

/// Row i's data for a round's update (far), or its bodies' velocities (near: the row itself was
/// fetched before). A hint to the cache only.
void fetch_row(const RestingWork& w, std::size_t i, bool far) {
  const RestingRows& r = w.rows;
  if (!far) {
    if (r.a[i] >= 0) {
      prefetch(&w.bodies.v[r.a[i]]);
      prefetch(&w.bodies.w[r.a[i]]);
    }
    if (r.b[i] >= 0) {
      prefetch(&w.bodies.v[r.b[i]]);
      prefetch(&w.bodies.w[r.b[i]]);
    }
    return;
  }
  prefetch(&r.a[i]);
  prefetch(&r.b[i]);
  prefetch(&r.normal[i]);
  prefetch(&r.ra[i]);
  prefetch(&r.rb[i]);
  prefetch(&r.friction[i]);
  prefetch_range(&r.turns[3 * i], sizeof(RestingTurn));
  prefetch(&r.normal_mass[i]);
  prefetch(&r.target[i]);
  prefetch(&r.pn[i]);
  prefetch(&r.pt[i]);
}

/// One update of a round: row i's normal impulse towards its target, its tangential impulses
/// scaled onto a disc that shrank, and the stir of its bodies: a body whose stir crosses its
/// limit is listed on the list of the thread that swept it (the rows of a body in one colour lie
/// in one block, so one thread crosses it), for the next growth of the set (grow).
void close(RestingWork& w, std::size_t i, RestingSweep& sw) {
  const double dpn = w.relax_normal(i, sw);
  if (dpn < 0.0) w.onto_discs(i, sw);
  if (dpn == 0.0) return;
  const RestingRows& r = w.rows;
  const double m = std::abs(dpn);
  const RestingTurn& t = r.turns[3 * i];
  auto stir = [&](int body, double by) {
    double& stirred = w.stirred[static_cast<std::size_t>(body)];
    const double limit = w.stir_limit[static_cast<std::size_t>(body)];
    const bool below = !(stirred > limit);
    stirred += by;
    if (!(below && stirred > limit)) return;
    // (An island swept by blocks is solved outside any other parallel region: its threads are
    // those of run_subset's region, and its leftovers are swept by thread 0 outside it.)
    const int thread = w.parallel && omp_in_parallel() ? omp_get_thread_num() : 0;
    w.stirred_of_thread[static_cast<std::size_t>(thread)].push_back(body);
  };
  if (r.a[i] >= 0) stir(r.a[i], m * (w.bodies.inv_mass[r.a[i]] + t.ia.norm() * r.ra[i].norm()));
  if (r.b[i] >= 0) stir(r.b[i], m * (w.bodies.inv_mass[r.b[i]] + t.ib.norm() * r.rb[i].norm()));
}

}  // namespace

void RestingPass::mark_approaching(RestingWork& w) const {
  // Once marked, only the rows of bodies a later stage may have moved (moved) are looked at
  // again: the others' velocities are the same bits, so are their marks.
  // A team member marks only the rows it sweeps (its blocks' and the leftovers).
  const std::size_t n = w.rows.size();
  const double share = settings_.approach_tolerance, dt = step_.h;
  const RestingShare& s = w.share;
  if (!w.marked) {
    w.marks.assign(n, 0);
    for_each_row(w.parallel, n, [&](std::size_t i) {
      if (s.sweeps(i) && w.closes_beyond(i, share, dt)) w.marks[i] = 1;
    });
    w.moved.assign(static_cast<std::size_t>(w.bodies.count), 0);
    w.marked = true;
    return;
  }
  auto moved = [&](int body) { return body >= 0 && w.moved[static_cast<std::size_t>(body)]; };
  for_each_row(w.parallel, n, [&](std::size_t i) {
    if (s.sweeps(i) && (moved(w.rows.a[i]) || moved(w.rows.b[i])))
      w.marks[i] = w.closes_beyond(i, share, dt);
  });
  std::fill(w.moved.begin(), w.moved.end(), 0);
}

void RestingPass::build_lists(RestingWork& w) const {
  // Each body's rows, built at the first round that runs.
  if (w.lists) return;
  w.lists = true;
  const std::size_t n = w.rows.size();
  const int nb = w.bodies.count;
  group_by_key(
      nb,
      [&](auto emit) {
        for (std::size_t i = 0; i < n; ++i) {
          emit(w.rows.a[i], static_cast<int>(i));
          emit(w.rows.b[i], static_cast<int>(i));
        }
      },
      w.contact_start, w.contacts_of, w.fill);
  w.in_round.assign(n, 0);
  // (Each list holds a body at most once: room for every body from the start, so a list never
  // grows by reallocation.)
  w.stirred_of_thread.resize(std::max(omp_get_max_threads(), 1));
  for (std::vector<int>& list : w.stirred_of_thread) list.reserve(nb);
  w.stirred_bodies.reserve(nb);
  w.stirred.assign(static_cast<std::size_t>(nb), 0.0);
  w.stir_limit.assign(static_cast<std::size_t>(nb), std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i) {
    // (The root of the least square is the least root: the same bits as min |r|.)
    const double limit = kStirShare * (kJoinShare * std::sqrt(w.lever2(i)) / step_.h);
    for (const int body : {w.rows.a[i], w.rows.b[i]})
      if (body >= 0) w.stir_limit[body] = std::min(w.stir_limit[body], limit);
  }
  // A team's member holds some rows only: each body's least limit over the team's rows.
  if (w.share.team) share_stir_limits(w);
}

void RestingPass::join(RestingWork& w, int i) const {
  // Row i enters the round's set: its booking starts from the velocities at the round's start
  // (v0, w0) and its impulses then. (Its mark in in_round is set by the caller.)
  const IslandBodies before{w.bodies.count, w.v0.data(), w.w0.data(), w.bodies.inv_mass,
                            w.bodies.inv_inertia};
  const std::size_t k = static_cast<std::size_t>(i);
  w.u0[k] = w.relative_velocity(k, before);
  w.pn_base[k] = w.rows.pn[k];
  w.pt_base[k] = w.rows.pt[k];
  if (w.rows.any_rolling) {
    w.wr0[k] = w.relative_spin(k, before);
    w.pr_base[k] = w.rows.pr[k];
  }
}

bool RestingPass::grow(RestingWork& w, bool asked) const {
  // The rows of the bodies the last sweeps stirred (kStirShare) that would now close by more
  // than kJoinShare join the set (kept ascending, the order run_subset sweeps in); returns
  // whether any did. A growth costs what the stirred bodies' rows cost, not a pass over the set.
  //
  // The set that joins does not depend on the order the bodies are looked at in (nothing is
  // pushed while looking: the velocities are read only), so when the island is swept by blocks
  // and many bodies were stirred, the threads share them and claim the rows that join
  // (`in_round`, exchanged atomically: a row of two stirred bodies is found twice). The joined
  // rows are sorted and merged into the set: the same set, the same bits, on any thread count.
  // A team: each member joins its own rows of the bodies stirred anywhere (shared after the
  // sweep, sweep_round) and the leftovers' alike, so the set's rows are joined where they are
  // swept; whether any joined is the team's answer when asked.
  RestingShare& s = w.share;
  const std::size_t count = w.left.size();
  w.stirred_bodies.clear();
  for (std::vector<int>& list : w.stirred_of_thread) {
    w.stirred_bodies.insert(w.stirred_bodies.end(), list.begin(), list.end());
    list.clear();
  }
  const std::size_t stirred = w.stirred_bodies.size();
  const int team =
      w.parallel && runs_parallel(stirred, kParallelStirred) ? omp_get_max_threads() : 1;
  // (Every list the merge below reads is emptied here: a region may run fewer threads than
  // asked for, and a list no thread ran on must not hold an earlier growth's rows.)
  if (w.joined_of_thread.size() < static_cast<std::size_t>(team)) w.joined_of_thread.resize(team);
  for (int th = 0; th < team; ++th) w.joined_of_thread[th].clear();
  // With `atomic`, a row another thread may claim at once is read atomically and claimed by
  // exchange.
  auto is_set = [](char& mark, bool atomic) {
    return atomic ? std::atomic_ref<char>(mark).load(std::memory_order_relaxed) != 0 : mark != 0;
  };
  auto claim = [](char& mark, bool atomic) {
    if (atomic) return std::atomic_ref<char>(mark).exchange(1, std::memory_order_relaxed) == 0;
    if (mark) return false;
    mark = 1;
    return true;
  };
  const double dt = step_.h;
  auto join_rows = [&](std::size_t lo, std::size_t hi, std::vector<int>& joined, bool atomic) {
    for (std::size_t k = lo; k < hi; ++k) {
      const int body = w.stirred_bodies[k];
      w.stirred[body] = 0.0;
      for (int j = w.contact_start[body]; j < w.contact_start[body + 1]; ++j) {
        const int i = w.contacts_of[j];
        if (!s.sweeps(static_cast<std::size_t>(i))) continue;
        if (is_set(w.in_round[i], atomic)) continue;
        if (!w.closes_beyond(static_cast<std::size_t>(i), kJoinShare, dt)) continue;
        if (!claim(w.in_round[i], atomic)) continue;
        join(w, i);
        joined.push_back(i);
      }
    }
  };
  if (team == 1) {
    join_rows(0, stirred, w.joined_of_thread[0], false);
  } else {
#pragma omp parallel num_threads(team)
    {
      const std::size_t th = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
      join_rows(stirred * th / threads, stirred * (th + 1) / threads, w.joined_of_thread[th], true);
    }
  }
  for (int th = 0; th < team; ++th)
    w.left.insert(w.left.end(), w.joined_of_thread[th].begin(), w.joined_of_thread[th].end());
  const bool grew = w.left.size() != count;
  if (grew) {
    std::sort(w.left.begin() + count, w.left.end());
    std::inplace_merge(w.left.begin(), w.left.begin() + count, w.left.end());
  }
  return s.team && asked ? share_any(w, grew) : grew;
}

bool RestingPass::sweep_round(RestingWork& w, int k, bool grows) const {
  if (w.share.team) {
    // A team: this member's rows of the set, colour by colour, each colour's moves passed to
    // the members whose rows read them (their stir with them), then the leftovers; the sweep's
    // maxima are the team's, sent with the stirred bodies when a growth follows (on a few
    // members, kMaximaWithStirredMembers).
    w.share.stir = true;
    const bool with_stirred = grows && w.share.members <= kMaximaWithStirredMembers;
    RestingSweep sw = run_shared(
        w, w.left, false, [&](std::size_t i, RestingSweep& mine) { close(w, i, mine); },
        [&](std::size_t i, bool far) { fetch_row(w, i, far); }, !with_stirred);
    if (grows) share_stirred(w, with_stirred ? &sw : nullptr);
    return finish_sweep(w, sw, k, std::ssize(w.left));
  }
  const RestingSweep sw = run_subset(
      w.blocks, w.left, w.subset, [&](std::size_t i, RestingSweep& mine) { close(w, i, mine); },
      [&](std::size_t i, bool far) { fetch_row(w, i, far); });
  return finish_sweep(w, sw, k, std::ssize(w.left));
}

void RestingPass::follow(RestingWork& w, int bound) const {
  // Sweeps of the round's set until converged with none joining, at most `bound`; reaching the
  // bound is counted.
  bool converged = false;
  for (int k = 0; k < bound && !converged; ++k) {
    const bool grows = k + 1 < bound;
    converged = sweep_round(w, k, grows);
    if (grows && grow(w, converged)) converged = false;
  }
  if (!converged) ++w.stats.guards_fired;
  // A team: each member grew the set by its own rows (and the leftovers, alike), and books and
  // guards them; every member now takes the latest velocity of each body it reads.
  if (w.share.team) share_sync(w);
}

void RestingPass::close_rounds(RestingWork& w) const {
  // The shock pass holds the lower body of each row fixed, and where that body's point moves
  // towards the upper one (a support rising, or in a settling pile of crosses the arm of a grain
  // whose centre is lower lying across the arm of one whose centre is higher) it only stops the
  // upper body's own motion: the lower body's approach is left. Those rows and every row of
  // their bodies get sweeps of their own after it, with both bodies free: momentum is conserved
  // and every normal update towards u_n = 0 dissipates. The rounds update normal impulses only,
  // the friction impulses staying as the sweeps and the shock pass left them (scaled onto a disc
  // that shrinks): without friction projected Gauss-Seidel converges (a convex problem).
  //
  // A round follows its front: after each of its sweeps, the rows of the bodies it moved that
  // would now close by more than kJoinShare of their lever join its set. A joining row had no
  // impulse in the round yet: its booking starts from the velocities at the round's start (v0,
  // w0), so the round's work is still booked exactly.
  const std::size_t n = w.rows.size();
  for (int round = 0; round < kCloseRounds; ++round) {
    w.probe_set = 2 + round;
    mark_approaching(w);
    // A round starts from the rows left approaching alone; the rows that answer them (a body's
    // other rows, an interlocked pair of crosses touching along three normals) join as its
    // sweeps move their bodies.
    w.left.clear();
    parallel_select(
        n, [&](std::size_t i) { return w.marks[i] != 0; }, w.left);
    // (A team: each member's rows; the round runs if any member marked one.)
    if (w.share.team ? !share_any(w, !w.left.empty()) : w.left.empty()) break;
    build_lists(w);
    w.v0.assign(w.bodies.v, w.bodies.v + w.bodies.count);
    w.w0.assign(w.bodies.w, w.bodies.w + w.bodies.count);
    parallel_for(w.left.size(), [&](std::size_t k) {
      w.in_round[w.left[k]] = 1;
      join(w, w.left[k]);
    });
    const int first_phase = w.share.phase;
    follow(w, settings_.iterations);
    // A round the guard takes back whole leaves every velocity and impulse as it found them: the
    // next round would mark the same rows, sweep them alike and be taken back alike, so the
    // rounds end here.
    const double kept = book_and_guard(w, w.left);
    // Only these rows' bodies moved (the guard's scaling leaves every other body's velocity as
    // it was), and only they were stirred.
    for (const int i : w.left) {
      w.in_round[i] = 0;
      for (const int body : {w.rows.a[i], w.rows.b[i]}) {
        if (body < 0) continue;
        w.stirred[body] = 0.0;
        if (kept != 0.0) w.moved[body] = 1;
      }
    }
    // A team member's set holds its own rows: the bodies the others' rows moved in the round are
    // those whose value came from another member since it started.
    if (w.share.team)
      for (int body = 0; body < w.bodies.count; ++body) {
        if (w.share.known[static_cast<std::size_t>(body)] < first_phase) continue;
        w.stirred[static_cast<std::size_t>(body)] = 0.0;
        if (kept != 0.0) w.moved[static_cast<std::size_t>(body)] = 1;
      }
    for (std::vector<int>& list : w.stirred_of_thread) list.clear();
    if (kept == 0.0) break;
  }
}

}  // namespace etdem
