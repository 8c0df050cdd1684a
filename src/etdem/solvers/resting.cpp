// The resting pass: its entry points, the list of stages, and the stages that move data in and
// out (prepare_rows, warm_start, store). The other stages: resting_sweeps.cpp,
// resting_booking.cpp, resting_shock.cpp, resting_rounds.cpp.
#include "etdem/solvers/resting.hpp"

#include <cmath>

#include "etdem/core/parallel.hpp"
#include "etdem/core/prefetch.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/resting_work.hpp"

namespace etdem {

namespace {

Contact& contact_of_row(std::span<Contact> cs, std::span<const int> order, const RestingWork& w,
                        std::size_t j) {
  return cs[static_cast<std::size_t>(contact_index(order, w, j))];
}

}  // namespace

RestingPass::RestingPass(const RestingSettings& s) : settings_(s) {}
RestingPass::~RestingPass() = default;

void RestingPass::prepare(int threads) {
  const std::size_t count = static_cast<std::size_t>(std::max(threads, 1));
  while (work_.size() < count) work_.push_back(std::make_unique<RestingWork>());
  if (!blocked_work_) blocked_work_ = std::make_unique<RestingWork>();
}

RestingWork& RestingPass::work_for(bool blocked, int thread) {
  return blocked ? *blocked_work_ : *work_[static_cast<std::size_t>(thread)];
}

SolverStats RestingPass::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  const bool blocked = sweeps_by_blocks(cs.size(), b);
  return run(cs, {}, b, work_for(blocked, thread), blocked);
}

SolverStats RestingPass::resolve_in_order(std::span<Contact> serial, std::span<const int> order,
                                          IslandBodies& b, int thread) {
  // (A team's member may hold only some of the island's contacts: the team counts them all.)
  const std::size_t contacts =
      team_ && team_->members() > 1 ? static_cast<std::size_t>(team_->contacts()) : order.size();
  const bool blocked = sweeps_by_blocks(contacts, b);
  return run(serial, order, b, work_for(blocked, thread), blocked);
}

SolverStats RestingPass::run(std::span<Contact> cs, std::span<const int> order, IslandBodies& b,
                             RestingWork& w, bool blocked) {
  const std::size_t n = order.empty() ? cs.size() : order.size();
  w.stats = SolverStats{};
  // (A team's member may hold none of a blocked island's contacts; it still takes its part in
  // the team's exchanges.)
  const bool team = blocked && team_ && team_->members() > 1;
  if (n == 0 && !team) return w.stats;
  w.probe_set = 0;
  w.marked = false;
  w.lists = false;
  w.parallel = blocked;
  w.blocks = nullptr;
  w.bodies = b;
  // (The stages of an island swept by blocks are timed: one at a time, from one caller.)
  StageProfile* const stages = blocked ? stages_ : nullptr;
  using S = StageProfile;
  StageTimer order_time(stages, S::RestingOrder);
  if (blocked) {
    // A block's rows and bodies lie together in memory: the bodies are gathered in the blocked
    // order (and scattered back below), the rows built in it. A team's member gathers only the
    // bodies it holds: those of its contacts and those it settles (its messages name bodies by
    // their island index, each member's slots being its own); every body where the team syncs
    // every body to every member.
    const std::vector<int>* own = team ? team_->own_bodies() : nullptr;
    const bool some =
        own && settings_.colouring == BlockOrder::Colouring::kBlocks && !team_->syncs_every_body();
    if (some) {
      w.held_mark.assign(static_cast<std::size_t>(b.count), 0);
      for (std::size_t k = 0; k < n; ++k) {
        const Contact& c = order.empty() ? cs[k] : cs[static_cast<std::size_t>(order[k])];
        for (const int body : {c.a, c.b})
          if (body >= 0) w.held_mark[static_cast<std::size_t>(body)] = 1;
      }
      for (const int body : *own) w.held_mark[static_cast<std::size_t>(body)] = 1;
      w.held.clear();
      for (int body = 0; body < b.count; ++body)
        if (w.held_mark[static_cast<std::size_t>(body)]) w.held.push_back(body);
    }
    w.order.build(cs, b.x, b.count, settings_.block_size, order, settings_.colouring,
                  some ? &w.held : nullptr);
    w.blocks = &w.order;
    const int nb = static_cast<int>(w.order.body_order.size());
    w.v.resize(nb);
    w.w.resize(nb);
    w.inv_mass.resize(nb);
    w.inv_inertia.resize(nb);
    parallel_for(static_cast<std::size_t>(nb), [&](std::size_t k) {
      const int from = w.order.body_order[k];
      w.v[k] = b.v[from];
      w.w[k] = b.w[from];
      w.inv_mass[k] = b.inv_mass[from];
      w.inv_inertia[k] = b.inv_inertia[from];
    });
    w.bodies = IslandBodies{nb, w.v.data(), w.w.data(), w.inv_mass.data(), w.inv_inertia.data()};
  }

  order_time.stop();
  // A team's member builds only the rows it relaxes or settles a body on.
  w.share.team = nullptr;
  if (team) {
    const StageTimer t(stages, S::RestingTeam);
    share_assign(w, team_, settings_.block_size);
  }
  {
    const StageTimer t(stages, S::RestingRows);
    prepare_rows(cs, order, w);
  }
  if (team) {
    const StageTimer t(stages, S::RestingTeam);
    share_setup(w);
  }
  {
    const StageTimer t(stages, S::RestingWarmStart);
    warm_start(w);
  }
  {
    const StageTimer t(stages, S::RestingSweeps);
    sweep_all(w);
  }
  if (w.share.team) {
    const StageTimer t(stages, S::RestingTeam);
    share_sync(w);  // the bodies each member reads
  }
  StageTimer booking_time(stages, S::RestingBooking);
  // 0, 1, ..., n - 1: every row (kept from island to island, extended when an island is larger).
  for (std::size_t i = w.all.size(); i < n; ++i) w.all.push_back(static_cast<int>(i));
  w.pn_base.assign(n, 0.0);
  w.pt_base.assign(n, Eigen::Vector2d::Zero());
  if (w.rows.any_rolling) w.pr_base.assign(n, Eigen::Vector2d::Zero());
  book_and_guard(w, std::span<const int>(w.all).first(n));
  booking_time.stop();
  if (shocks()) {
    {
      const StageTimer t(stages, S::RestingShockPass);
      shock_pass(w);
    }
    const StageTimer t(stages, S::RestingClosingRounds);
    close_rounds(w);
  }
  // A rigid unilateral contact does no positive work in continuous time; in a step, an impulse
  // on a contact that separates within it can (a grain lifting off as its support pushes). Net
  // negative dissipation of the island's pass is that discretisation effect: it is booked as
  // integration, so the restitution and friction columns never decrease.
  w.stats.net_dissipation();
  w.stats.negative_dissipation_to_integration();
  if (w.share.team) {  // the impulses of the rows swept here to the members that keep them
    const StageTimer t(stages, S::RestingTeam);
    share_impulses(w, order);
  }
  const StageTimer store_time(stages, S::RestingStore);
  store(cs, order, w);
  count_left_approaching(w);

  if (blocked) {
    parallel_for(w.order.body_order.size(), [&](std::size_t k) {
      b.v[w.order.body_order[k]] = w.v[k];
      b.w[w.order.body_order[k]] = w.w[k];
    });
    ++w.stats.blocked_islands;
    w.stats.block_leftovers += w.order.leftovers();
  }
  return w.stats;
}

void RestingPass::prepare_rows(std::span<Contact> cs, std::span<const int> order,
                               RestingWork& w) const {
  RestingRows& r = w.rows;
  const RestingShare& s = w.share;
  const IslandBodies& b = w.bodies;
  const std::size_t n = order.empty() ? cs.size() : order.size();
  auto contact = [&](std::size_t j) -> const Contact& { return contact_of_row(cs, order, w, j); };
  auto body = [&](int i) { return w.blocks && i >= 0 ? w.order.body_slot[i] : i; };
  // Rolling resistance (docs/design.md "Rolling resistance"): two angular rows per contact with
  // rolling > 0, about t1 and t2, on the relative angular velocity w_A - w_B; no linear part.
  // Sized only when some contact of the island has them. The shock pass's view of each contact
  // (which body is upper: its centre higher, a static body never; that centre's height) only
  // when the pass runs.
  bool rolling =
      rolling_possible_ && parallel_any(n, [&](std::size_t j) { return contact(j).rolling > 0.0; });
  // (A team's members hold different contacts: the rows have rolling resistance on every member
  // when some member's have.)
  if (s.team && rolling_possible_) rolling = share_any(w, rolling);
  const bool shock = shocks();
  const bool room = shock && settings_.shock_depth > 0.0;
  r.resize(n, rolling, shock);
  r.shock_target.resize(room ? n : 0);
  w.u0.resize(n);
  if (rolling) w.wr0.resize(n);
  const Vec3 down = step_.down();
  const double warm = settings_.warm_start;
  for_each_row(w.parallel, n, [&](std::size_t i) {
    // In the blocked order the rows' contacts lie anywhere in the island's: each is fetched
    // ahead (a hint to the cache, no value changes).
    if (w.blocks && i + kContactsAhead < n)
      prefetch_range(&contact(i + kContactsAhead), sizeof(Contact));
    const Contact& c = contact(i);
    const int a = body(c.a), bb = body(c.b);
    r.a[i] = a;
    r.b[i] = bb;
    r.ra[i] = c.ra;
    r.rb[i] = c.rb;
    int up = -1;
    if (shock) {
      bool upper_a;
      if (c.b < 0)
        upper_a = true;
      else if (c.a < 0)
        upper_a = false;
      else
        upper_a = (c.point - c.ra).dot(down) < (c.point - c.rb).dot(down);
      up = upper_a ? a : bb;
      r.upper_body[i] = up;
      r.lower_body[i] = upper_a ? bb : a;
      r.upper_height[i] = up < 0 ? 0.0 : -(c.point - (upper_a ? c.ra : c.rb)).dot(down);
    }
    // A team's member reads and builds only the rows it relaxes (its blocks' and the leftovers)
    // and the support rows of the bodies it settles in the shock pass: of the other rows it
    // holds the bodies, their levers (the closing rounds' stir limits of the bodies) and the
    // upper body (their impulses come from their members, their bookings are summed there, and
    // the store takes a contact's tangents from its normal).
    if (!s.builds(i, up)) return;
    r.normal[i] = c.normal;
    r.friction[i] = c.friction;
    r.rolling[i] = c.rolling;
    r.t1[i] = any_orthogonal(c.normal);
    r.t2[i] = c.normal.cross(r.t1[i]);
    r.target[i] = target_speed(c.gap);
    // Warm start: last step's impulses of the same contact, projected onto this step's tangent
    // plane and clipped to the friction disc (applied by warm_start).
    r.warm[i] = !(c.normal_impulse <= 0.0);
    r.pn[i] = 0.0;
    r.pt[i].setZero();
    if (r.warm[i]) {
      r.pn[i] = warm * c.normal_impulse;
      Eigen::Vector2d pt(r.t1[i].dot(c.tangent_impulse), r.t2[i].dot(c.tangent_impulse));
      pt *= warm;
      r.pt[i] = onto_disc(pt, c.friction * r.pn[i]);
    }
    if (r.any_rolling) {
      r.pr[i].setZero();
      if (c.rolling > 0.0 && r.warm[i]) {
        Eigen::Vector2d pr(r.t1[i].dot(c.rolling_impulse), r.t2[i].dot(c.rolling_impulse));
        pr *= warm;
        r.pr[i] = onto_disc(pr, c.rolling * r.pn[i]);
      }
    }
    build_row(i, c, w);
  });
  w.v0.assign(b.v, b.v + b.count);
  w.w0.assign(b.w, b.w + b.count);
}

void RestingPass::build_row(std::size_t i, const Contact& c, RestingWork& w) const {
  RestingRows& r = w.rows;
  const IslandBodies& b = w.bodies;
  const int a = r.a[i], bb = r.b[i];
  const Vec3* dirs[3] = {&c.normal, &r.t1[i], &r.t2[i]};
  Vec3 lever_a[3], lever_b[3];  // r x d of each row
  RestingTurn* turn = &r.turns[3 * i];
  for (int d = 0; d < 3; ++d) {
    lever_a[d] = c.ra.cross(*dirs[d]);
    lever_b[d] = c.rb.cross(*dirs[d]);
    turn[d].ia = a >= 0 ? Vec3(b.inv_inertia[a] * lever_a[d]) : Vec3::Zero();
    turn[d].ib = bb >= 0 ? Vec3(b.inv_inertia[bb] * lever_b[d]) : Vec3::Zero();
  }
  // The collision matrix K along the rows' orthonormal directions, from the rows themselves:
  // d_p.K d_q = (1/m_A + 1/m_B) d_p.d_q + (r_A x d_p).I_A^-1 (r_A x d_q) + (the same for B),
  // without forming K. The inertias are symmetric, so K's tangent block is built symmetric.
  const double linear = impulse::inv_mass(b, a) + impulse::inv_mass(b, bb);
  auto k = [&](int p, int q) { return lever_a[p].dot(turn[q].ia) + lever_b[p].dot(turn[q].ib); };
  r.normal_mass[i] = 1.0 / (linear + k(0, 0));
  Eigen::Matrix2d kt;
  const double k12 = k(1, 2);
  kt << linear + k(1, 1), k12, k12, linear + k(2, 2);
  r.tangent_mass[i] = kt.inverse();
  // Velocities before the pass: the net work of its impulses is checked against them.
  w.u0[i] = w.relative_velocity(i);
  if (r.any_rolling && c.rolling > 0.0) {
    // Angular rows: u = t.(w_A - w_B); an angular impulse m t turns w_A by m I_A^-1 t and
    // w_B by -m I_B^-1 t. Mass: the inverse of t_i.(I_A^-1 + I_B^-1) t_j on the tangents.
    Mat3 kr = Mat3::Zero();
    if (a >= 0) kr += b.inv_inertia[a];
    if (bb >= 0) kr += b.inv_inertia[bb];
    r.roll_mass[i] = impulse::tangent_mass(kr, r.t1[i], r.t2[i]);
    const Vec3* axes[2] = {&r.t1[i], &r.t2[i]};
    for (int d = 0; d < 2; ++d) {
      RestingTurn& row = r.roll_rows[2 * i + d];
      row.ia = a >= 0 ? Vec3(b.inv_inertia[a] * *axes[d]) : Vec3::Zero();
      row.ib = bb >= 0 ? Vec3(b.inv_inertia[bb] * *axes[d]) : Vec3::Zero();
    }
    w.wr0[i] = w.relative_spin(i, b);
  }
  // With a room, the shock pass's target: the contact may close by shock_depth of its shorter
  // lever, less the depth it already has, beyond the gap (docs/design.md "The resting pass").
  // Only rows with a dynamic upper body are read, and their lever is finite.
  if (!r.shock_target.empty() && r.upper_body[i] >= 0) {
    const double depth = std::max(0.0, -c.gap);
    const double allowed = std::max(0.0, settings_.shock_depth * std::sqrt(w.lever2(i)) - depth);
    r.shock_target[i] = r.target[i] - allowed / step_.h;
  }
}

void RestingPass::warm_start(RestingWork& w) const {
  // The impulses prepare_rows carried over, applied in the sweeps' order before the first sweep.
  // No stopping test reads its maxima: a team does not share them.
  const RestingSweep sw = run_rows(
      w, w.rows.size(),
      [&](std::size_t i, RestingSweep& mine) {
        const RestingRows& r = w.rows;
        if (!r.warm[i]) return;
        w.apply_normal(i, r.pn[i], mine);
        w.apply_tangent(i, r.pt[i], mine);
        if (r.rolling[i] <= 0.0) return;
        w.apply_rolling(i, r.pr[i], mine);
      },
      false);
  w.stats.iterations += sw.updates;
}

void RestingPass::store(std::span<Contact> cs, std::span<const int> order, RestingWork& w) const {
  // Each row's impulses into its contact (a team member's into the contacts it keeps: their
  // rows' members sent it their impulses, share_impulses).
  const RestingRows& r = w.rows;
  const RestingShare& s = w.share;
  const std::size_t n = r.size();
  const bool shock = shocks();
  const std::span<const int> keepers = s.team ? s.team->keepers() : std::span<const int>();
  for_each_row(w.parallel, n, [&](std::size_t i) {
    const int at = contact_index(order, w, i);
    if (s.team && keepers[static_cast<std::size_t>(at)] != s.me) return;
    Contact& c = cs[static_cast<std::size_t>(at)];
    c.normal_impulse = r.pn[i];
    if (s.builds(i, shock ? r.upper_body[i] : -1)) {
      c.tangent_impulse = r.pt[i].x() * r.t1[i] + r.pt[i].y() * r.t2[i];
      if (r.rolling[i] > 0.0) c.rolling_impulse = r.pr[i].x() * r.t1[i] + r.pr[i].y() * r.t2[i];
      return;
    }
    // (A row another member built: its tangents from the contact's normal, as prepare_rows
    // makes them.)
    const Vec3 t1 = any_orthogonal(c.normal), t2 = c.normal.cross(t1);
    c.tangent_impulse = r.pt[i].x() * t1 + r.pt[i].y() * t2;
    if (c.rolling > 0.0) c.rolling_impulse = r.pr[i].x() * t1 + r.pr[i].y() * t2;
  });
}

void RestingPass::count_left_approaching(RestingWork& w) const {
  // Left approaching: closing faster than the contact's gap allows within the step (a
  // speculative contact apart by g > 0 may approach at g / dt and end touching), by more than
  // approach_tolerance of its lever.
  mark_approaching(w);
  const RestingShare& s = w.share;
  std::int64_t counts[2] = {0, s.updates};  // the rows left approaching; a team member's updates
  for (std::size_t i = 0; i < w.marks.size(); ++i)
    if (w.marks[i] && s.counts(i)) ++counts[0];
  // A team marks each row on its member (the leftovers on every member, counted on the first),
  // and counts its updates apart: both summed in one reduction.
  if (s.team) {
    s.team->member_updates += static_cast<long>(s.updates);
    share_sums(w, {}, counts);
    w.stats.iterations += static_cast<long>(counts[1]);
  }
  w.stats.approaching_left += static_cast<long>(counts[0]);
}

}  // namespace etdem
