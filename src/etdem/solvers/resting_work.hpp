// The resting pass's working state for one island (solvers/resting.hpp): the island's contacts as
// rows, built once at the prepare stage, and the scratch of each later stage. Internal to the
// pass's files (resting*.cpp): the world sees only RestingPass.
//
// Rows are structure-of-arrays: entry i of every array is the i-th contact in the pass's order
// (the island's order, or the blocked order of resting_blocks.hpp). The stages read rows and the
// bodies' velocities only; the Contact records are read at prepare and written at store.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include <omp.h>

#include "etdem/core/byte_stream.hpp"
#include "etdem/core/exact_sum.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/solvers/resting.hpp"
#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/solvers/resting_team.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

/// What an impulse m along one row of a contact turns its two bodies by: w_A += m ia,
/// w_B -= m ib. A linear row along d (the normal, t1 or t2; u.d = d.(v_A - v_B) +
/// (r_A x d).w_A - (r_B x d).w_B): ia = I_A^-1 (r_A x d), ib = I_B^-1 (r_B x d). An angular row
/// of rolling resistance about a tangent t (no linear part): ia = I_A^-1 t, ib = I_B^-1 t.
struct RestingTurn {
  Vec3 ia, ib;  // [1/(kg m)] for a linear row, [1/(kg m^2)] for an angular one
};

/// The island's contacts as the stages read them.
struct RestingRows {
  // Copied from the contact.
  std::vector<int> a, b;             // island-local bodies (slots when blocked), -1 static
  std::vector<Vec3> normal, ra, rb;  // unit normal (from B to A), levers [m]
  std::vector<double> friction;      // Coulomb coefficient
  std::vector<double> rolling;       // rolling coefficient mu_r R_eff [m], 0 none
  // Built at prepare.
  std::vector<Vec3> t1, t2;                   // tangent basis
  std::vector<RestingTurn> turns;             // 3 per row: n, t1, t2
  std::vector<double> normal_mass;            // 1 / n.K n [kg]
  std::vector<Eigen::Matrix2d> tangent_mass;  // (t.K t)^-1 [kg]
  std::vector<double> target;                 // least normal velocity at the end [m/s], <= 0
  std::vector<char> warm;                     // whether the contact had a normal impulse
  // Accumulated impulses: the warm start's at prepare, then each stage's.
  std::vector<double> pn;           // normal [N s]
  std::vector<Eigen::Vector2d> pt;  // tangential along t1, t2 [N s]
  // Rolling resistance (sized only when some row has it): two angular rows about t1 and t2.
  bool any_rolling = false;
  std::vector<RestingTurn> roll_rows;      // 2 per row
  std::vector<Eigen::Matrix2d> roll_mass;  // [kg m^2]
  std::vector<Eigen::Vector2d> pr;         // accumulated angular impulse [N m s]
  // Shock pass (built only when it runs): the upper body (-1: none, both static; A is upper
  // when upper_body == a) and the lower one, and the height of the upper body's centre [m].
  std::vector<int> upper_body, lower_body;
  std::vector<double> upper_height;
  // With a shock room (RestingSettings::shock_depth > 0; else empty): the shock pass's least
  // normal velocity [m/s], <= target.
  std::vector<double> shock_target;

  std::size_t size() const { return a.size(); }
  /// n rows: the arrays every island has; those of rolling resistance and of the shock pass
  /// only when asked for.
  void resize(std::size_t n, bool rolling_rows, bool shock_rows) {
    for (auto* v : {&a, &b}) v->resize(n);
    for (auto* v : {&normal, &ra, &rb, &t1, &t2}) v->resize(n);
    for (auto* v : {&friction, &rolling, &normal_mass, &target}) v->resize(n);
    turns.resize(3 * n);
    tangent_mass.resize(n);
    warm.resize(n);
    pn.resize(n);
    pt.resize(n);
    any_rolling = rolling_rows;
    if (rolling_rows) {
      roll_rows.resize(2 * n);
      roll_mass.resize(n);
      pr.resize(n);
    }
    if (shock_rows) {
      upper_body.resize(n);
      lower_body.resize(n);
      upper_height.resize(n);
    }
  }
};

/// What a run over the contacts gathers: updates applied, the largest impulse change and the
/// largest accumulated normal impulse. A sum of integers and maxima: the same values whatever
/// order the contacts' partial results are merged in.
struct RestingSweep {
  long updates = 0;
  double change = 0.0, impulse = 0.0;
  double change_squared = 0.0;  // the largest squared change of a 2-vector impulse
  void merge(const RestingSweep& o) {
    updates += o.updates;
    change = std::max(change, o.change);
    impulse = std::max(impulse, o.impulse);
    change_squared = std::max(change_squared, o.change_squared);
  }
  /// The largest change of any impulse: a norm's square root taken once, of the largest square
  /// (the rounded square root is monotonic, so the same bits as the largest root).
  double largest_change() const { return std::max(change, std::sqrt(change_squared)); }
};

/// One support contact of a body in the shock pass (the lower body held fixed).
struct RestingSupport {
  Vec3 d;                        // unit direction from the lower to the upper body
  Vec3 r;                        // contact point from the upper body's centre [m]
  double mass = 0.0;             // 1 / d.K d [kg]
  Vec3 low;                      // the lower body's velocity at the point [m/s]
  double goal = 0.0;             // least velocity of the point along d [m/s], <= 0
  double p = 0.0;                // accumulated normal impulse [N s]
  double mu = 0.0;               // Coulomb coefficient
  Vec3 t1, t2;                   // tangent basis
  Eigen::Vector2d low_t;         // the support's point velocity along t1, t2 [m/s]
  Eigen::Matrix2d tangent_mass;  // (t.K t)^-1 [kg]
  Eigen::Vector2d pt;            // accumulated tangential impulse [N s]
  Vec3 u0;                       // the upper body's point velocity along d, t1, t2 before
};

/// What the shock pass's settle of one body adds to the island's statistics.
struct RestingSettled {
  double restitution = 0.0, friction = 0.0, integration = 0.0;  // [J], subtracted
  long iterations = 0, bound_reached = 0, energy_guards = 0, friction_fallbacks = 0;
};

/// A tangential impulse whose square is below this share of the disc's squared radius lies
/// inside the disc whatever the rounding of the square and its root (margin 1e-9 against
/// round-off of about 1e-16).
inline constexpr double kInsideDisc = 1.0 - 1e-9;

/// An accumulated impulse moved onto the disc of radius `radius` (as it is when inside).
inline Eigen::Vector2d onto_disc(const Eigen::Vector2d& p, double radius) {
  const double norm = p.norm();
  return norm > radius ? Eigen::Vector2d(p * (radius / norm)) : p;
}

/// What a team's shock pass heard of another member's body (RestingShare::heard).
inline constexpr char kHeardSettled = 1, kHeardHeld = 2, kHeardArrived = 3;

/// A body another member settled in the shock pass, as it arrived: its place in the height
/// order and its velocities.
struct RestingArrival {
  std::pair<double, int> key;  // (height, body)
  Vec3 v, w;
};

/// A blocked island solved by a team (resting_team.hpp): which member sweeps which block and
/// settles which body, who reads each body, and what this member changed since the team last
/// shared it (resting_team.cpp).
struct RestingShare {
  RestingTeam* team = nullptr;  // null: this process alone
  int me = 0, members = 1;
  std::vector<int> block_member;            // per block
  std::vector<int> row_member;              // per row: its block's member, -1 a leftover
  std::vector<std::vector<int>> my_blocks;  // per colour: this member's blocks
  std::vector<std::uint64_t> readers;       // per body slot: members whose rows move it
  std::vector<std::vector<int>> boundary;   // per colour: bodies this member's blocks of it
                                            // move that another member's rows move too
  // A colour's phase is point to point: this member posts what its rows of colour c moved to
  // the members colour_to[c], and takes what colour_from[c] posted before it sweeps the first
  // of its later blocks that reads those bodies. The messages not yet taken are pending; where
  // a block of colour c reads a body another member moved in a pending colour (takes[c]), all
  // pending messages are taken, in their order, before that block. Of my_blocks[c], the first
  // early[c] read none of the bodies moved in a pending colour (swept while those messages
  // travel), and the first posted[c] hold every row of colour c whose bodies another member
  // reads (the message goes after them; the blocks after it move no body another member reads).
  std::vector<std::uint64_t> colour_to, colour_from;  // per colour
  std::vector<int> early, posted;                     // per colour
  std::vector<char> takes;                            // per colour
  std::array<std::vector<int>, 4> block_runs;         // share_setup's scratch
  std::vector<int> body_member;                       // per body slot: the member that settles it
  // Per body slot: the other members settling a body that rests on it (each member tells the
  // bodies it rests its own on, share_setup).
  std::vector<std::uint64_t> shock_readers;
  std::vector<char> rests_on;  // per body slot: a body this member's settled bodies rest on
  // Per body slot: the other members a sync sends it to when this member moved it (its readers,
  // its settler, the settlers of the bodies resting on it; every member when the team asks).
  std::vector<std::uint64_t> sync_to;
  std::vector<int> stamp;    // per body slot: the phase this member last moved it in, -1 never
  std::vector<int> known;    // per body slot: the phase of the value held here, -1 the start
  int phase = 0;             // phases (a colour of a sweep, the shock pass) so far
  int shared_from = 0;       // the first phase since the last sync (share_sync)
  long updates = 0;          // this member's updates in the stages over rows
  bool stir = false;         // the bodies' stir travels with their velocities (closing rounds)
  std::vector<int> scratch;  // share_impulses: each contact's row
  std::vector<char> listed;  // per body slot: share_stirred's mark, all zero between its calls
  // Shock pass (share_heights, RestingPass::settle_team): the members this one posts its
  // settled bodies to and those that post theirs here; per body slot, what this member heard
  // of another member's body its bodies rest on (kHeardSettled: that member settles it,
  // kHeardHeld: it keeps its velocity; kHeardArrived once its settled value came).
  std::uint64_t shock_to = 0, shock_from = 0;
  std::vector<char> heard;
  // Per member, the bodies it posted here, in its settling order, and the first not yet taken.
  std::vector<std::vector<RestingArrival>> arrivals;
  std::vector<std::size_t> arrivals_taken;
  std::vector<std::uint32_t> moves;  // per body slot: colours this member moves it in
  // The bodies this member moves, each with the last colour it moves it in (share_setup).
  std::vector<std::pair<int, int>> last_moves;
  std::vector<std::uint32_t> moved_by_other;  // per body slot read here: colours others move it in
  std::vector<ByteWriter> out;                // per member, a phase's message

  /// Whether this member sweeps row i: its blocks' rows and the leftovers (every row alone).
  bool sweeps(std::size_t i) const { return !team || row_member[i] < 0 || row_member[i] == me; }
  /// Whether row i is counted here: each row once over the team, a leftover on the first.
  bool counts(std::size_t i) const { return sweeps(i) && (row_member[i] >= 0 || me == 0 || !team); }
  /// Whether this member builds row i whose upper body is `upper` (-1 none, or no shock pass):
  /// a row it sweeps, or a support row of a body it settles. Of another row it holds only the
  /// bodies and the upper body's height; the row's impulses come from its member.
  bool builds(std::size_t i, int upper) const {
    return sweeps(i) || (upper >= 0 && body_member[static_cast<std::size_t>(upper)] == me);
  }
};

/// The rows of a sweep over some rows (`which`, ascending) block by block: block k's are
/// `which[first[k], end[k])`, first[k] = -1 for a block with none, and the leftovers' are
/// `which[leftovers, size)`. Found by walking `which` once, each row's block read from a table
/// of the blocks' rows (`block_of`, drawn once per layout of the blocks: a round sweeps its set
/// many times), so a sweep visits its blocks without searching `which` for each.
struct SubsetBlocks {
  std::vector<int> first, end, listed;  // (listed: the blocks whose `first` is set)
  int leftovers = 0;
  std::vector<int> block_of;              // per row of a block: its block
  const BlockOrder* drawn_for = nullptr;  // the order and layout block_of was drawn for
  std::uint64_t drawn_layout = 0;
  void find(const BlockOrder& o, std::span<const int> which) {
    const int blocks = o.colour_start[static_cast<std::size_t>(o.colours())];
    if (first.size() != static_cast<std::size_t>(blocks)) {
      first.assign(static_cast<std::size_t>(blocks), -1);
      end.resize(static_cast<std::size_t>(blocks));
      listed.clear();
    }
    for (const int k : listed) first[static_cast<std::size_t>(k)] = -1;
    listed.clear();
    if (drawn_for != &o || drawn_layout != o.layout) {
      block_of.resize(static_cast<std::size_t>(o.leftover_start));
      for (int k = 0; k < blocks; ++k)
        std::fill(block_of.begin() + o.block_start[static_cast<std::size_t>(k)],
                  block_of.begin() + o.block_start[static_cast<std::size_t>(k) + 1], k);
      drawn_for = &o;
      drawn_layout = o.layout;
    }
    const int m = static_cast<int>(which.size());
    int p = 0;
    while (p < m && which[static_cast<std::size_t>(p)] < o.leftover_start) {
      const auto k = static_cast<std::size_t>(
          block_of[static_cast<std::size_t>(which[static_cast<std::size_t>(p)])]);
      const int last = o.block_start[k + 1];
      int q = p + 1;
      while (q < m && which[static_cast<std::size_t>(q)] < last) ++q;
      first[k] = p, end[k] = q;
      listed.push_back(static_cast<int>(k));
      p = q;
    }
    leftovers = p;
  }
};

struct RestingWork {
  RestingRows rows;
  IslandBodies bodies;  // the island's bodies (gathered in the blocked order when blocked)
  const BlockOrder* blocks = nullptr;  // the blocked order, null: island order on this thread
  bool parallel = false;               // blocked: the stages run on every thread
  RestingShare share;                  // blocked and solved by a team: its part here
  SubsetBlocks subset;                 // (a sweep over some of the rows: theirs by block)
  SolverStats stats;
  int probe_set = 0;  // RestingProbe::set of the next probe

  // Velocities at the start of the pass, or of the closing round that runs [m/s], [rad/s].
  std::vector<Vec3> v0, w0;
  // Each row's relative velocity and spin at that start (a row that joins a round later: at the
  // round's start), and its impulses then: the booking's base.
  std::vector<Vec3> u0, wr0;
  std::vector<double> pn_base;
  std::vector<Eigen::Vector2d> pt_base, pr_base;
  std::vector<std::array<double, 4>> work;  // the booking's terms per row [J]

  // Blocked islands: the order and the bodies gathered into it (a team's member: the bodies it
  // holds, `held`, ascending island bodies, marked per island body in `held_mark`).
  BlockOrder order;
  std::vector<int> held;
  std::vector<char> held_mark;
  std::vector<Vec3> v, w;
  std::vector<double> inv_mass;
  std::vector<Mat3> inv_inertia;

  // Shock pass: bodies in height order, each body's support rows (CSR), levels for threads.
  // (height, body), bottom of the pile first; a team's member: the bodies it settles.
  std::vector<std::pair<double, int>> by_height;
  std::vector<double> height;  // per body [m]
  std::vector<int> support_start, support, fill;
  std::vector<RestingSupport> local;  // the supports of the body being settled (one thread)
  std::vector<int> level, position, level_start, by_level;
  std::vector<std::vector<RestingSupport>> local_of_thread;
  std::vector<RestingSettled> settled;

  // Marks of the rows left approaching (mark_approaching), and per body whether a later stage
  // moved it since they were taken.
  std::vector<char> marks;
  std::vector<char> moved;
  bool marked = false;

  // Closing rounds: the round's set (ascending rows), each body's rows (CSR), the stir of each
  // body and its limit, the bodies whose stir crossed it listed per thread, the rows each
  // thread joined.
  std::vector<int> all;
  std::vector<int> left;
  std::vector<char> in_round;
  bool lists = false;
  std::vector<int> contact_start, contacts_of;
  std::vector<double> stirred, stir_limit;
  std::vector<std::vector<int>> stirred_of_thread, joined_of_thread;
  std::vector<int> stirred_bodies;

  // ---- What the stages compute per row (the same arithmetic in every stage) ----

  /// Relative velocity of row i's bodies at the point, (v_A + w_A x r_A) - (v_B + w_B x r_B)
  /// (ETM 2014 Eqs. 1-2), for bodies `bs`.
  Vec3 relative_velocity(std::size_t i, const IslandBodies& bs) const {
    Vec3 u = Vec3::Zero();
    const int a = rows.a[i], b = rows.b[i];
    if (a >= 0) u += bs.v[a] + bs.w[a].cross(rows.ra[i]);
    if (b >= 0) u -= bs.v[b] + bs.w[b].cross(rows.rb[i]);
    return u;
  }
  Vec3 relative_velocity(std::size_t i) const { return relative_velocity(i, bodies); }
  /// Relative angular velocity w_A - w_B.
  Vec3 relative_spin(std::size_t i, const IslandBodies& bs) const {
    Vec3 w = Vec3::Zero();
    if (rows.a[i] >= 0) w += bs.w[rows.a[i]];
    if (rows.b[i] >= 0) w -= bs.w[rows.b[i]];
    return w;
  }
  /// Row i's normal relative speed now.
  double closing_speed(std::size_t i) const { return rows.normal[i].dot(relative_velocity(i)); }
  /// Relative velocity of row i along the unit direction d (the hot loop's; r x d is computed
  /// here rather than kept per row).
  double speed(std::size_t i, const Vec3& d) const {
    double u = 0.0;
    const int a = rows.a[i], b = rows.b[i];
    if (a >= 0) u += d.dot(bodies.v[a]) + rows.ra[i].cross(d).dot(bodies.w[a]);
    if (b >= 0) u -= d.dot(bodies.v[b]) + rows.rb[i].cross(d).dot(bodies.w[b]);
    return u;
  }
  /// An impulse m along d of row i, with the row's turn t.
  void push(std::size_t i, const RestingTurn& t, const Vec3& d, double m) {
    const int a = rows.a[i], b = rows.b[i];
    if (a >= 0) {
      bodies.v[a] += (bodies.inv_mass[a] * m) * d;
      bodies.w[a] += m * t.ia;
    }
    if (b >= 0) {
      bodies.v[b] -= (bodies.inv_mass[b] * m) * d;
      bodies.w[b] -= m * t.ib;
    }
  }
  // An update is a normal or a tangential (or rolling) impulse; its work is booked later, per
  // row from its total impulse (RestingPass::book_and_guard).
  void apply_normal(std::size_t i, double dpn, RestingSweep& sw) {
    push(i, rows.turns[3 * i], rows.normal[i], dpn);
    ++sw.updates;
  }
  void apply_tangent(std::size_t i, const Eigen::Vector2d& dpt, RestingSweep& sw) {
    push(i, rows.turns[3 * i + 1], rows.t1[i], dpt.x());
    push(i, rows.turns[3 * i + 2], rows.t2[i], dpt.y());
    ++sw.updates;
  }
  void apply_rolling(std::size_t i, const Eigen::Vector2d& dpr, RestingSweep& sw) {
    const int a = rows.a[i], b = rows.b[i];
    for (int d = 0; d < 2; ++d) {
      const RestingTurn& row = rows.roll_rows[2 * i + d];
      if (a >= 0) bodies.w[a] += dpr[d] * row.ia;
      if (b >= 0) bodies.w[b] -= dpr[d] * row.ib;
    }
    ++sw.updates;
  }
  /// One projected Gauss-Seidel update of row i's normal impulse towards its target, accumulated
  /// impulse >= 0; returns its change.
  double relax_normal(std::size_t i, RestingSweep& sw) {
    const double un = speed(i, rows.normal[i]);
    const double pn_new = std::max(0.0, rows.pn[i] - rows.normal_mass[i] * (un - rows.target[i]));
    const double dpn = pn_new - rows.pn[i];
    if (dpn != 0.0) {
      apply_normal(i, dpn, sw);
      rows.pn[i] = pn_new;
    }
    sw.change = std::max(sw.change, std::abs(dpn));
    sw.impulse = std::max(sw.impulse, rows.pn[i]);
    return dpn;
  }
  /// Row i's tangential (and rolling) impulses scaled back onto discs that a fallen normal
  /// impulse shrank, so that Coulomb's law still holds.
  void onto_discs(std::size_t i, RestingSweep& sw) {
    const Eigen::Vector2d pt_new = onto_disc(rows.pt[i], rows.friction[i] * rows.pn[i]);
    const Eigen::Vector2d dpt = pt_new - rows.pt[i];
    if (dpt.x() != 0.0 || dpt.y() != 0.0) {
      apply_tangent(i, dpt, sw);
      rows.pt[i] = pt_new;
      sw.change_squared = std::max(sw.change_squared, dpt.squaredNorm());
    }
    if (rows.rolling[i] <= 0.0) return;
    const Eigen::Vector2d pr_new = onto_disc(rows.pr[i], rows.rolling[i] * rows.pn[i]);
    if (pr_new != rows.pr[i]) {
      apply_rolling(i, pr_new - rows.pr[i], sw);
      rows.pr[i] = pr_new;
    }
  }
  /// The square of row i's shorter lever |r| (over the island's bodies).
  double lever2(std::size_t i) const {
    double r2 = std::numeric_limits<double>::infinity();
    if (rows.a[i] >= 0) r2 = rows.ra[i].squaredNorm();
    if (rows.b[i] >= 0) r2 = std::min(r2, rows.rb[i].squaredNorm());
    return r2;
  }
  /// Whether row i, closing faster than its target by more than round-off, would close within a
  /// step dt by more than `share` of its shorter lever.
  bool closes_beyond(std::size_t i, double share, double dt) const {
    const double excess = rows.target[i] - closing_speed(i);
    if (!(excess > RestingPass::kApproachSlack)) return false;
    const double depth = excess * dt;
    return depth * depth > share * share * lever2(i);
  }
};

/// A body's name in a team's messages: its island index (each member slots only the bodies it
/// holds, RestingPass::run, in an order of its own).
inline std::int32_t body_name(const RestingWork& w, int slot) {
  return w.order.body_order[static_cast<std::size_t>(slot)];
}
/// The slot here of the body another member named `name`, -1 for a body this member does not
/// hold; throws std::logic_error for a name that is no island body.
inline int named_body(const RestingWork& w, std::int32_t name) {
  if (name < 0 || static_cast<std::size_t>(name) >= w.order.body_slot.size())
    throw std::logic_error("a team member named no island body");
  return w.order.body_slot[static_cast<std::size_t>(name)];
}
/// The same for a body this member must hold (a message sent to the members that hold it).
inline int held_body(const RestingWork& w, std::int32_t name) {
  const int body = named_body(w, name);
  if (body < 0) throw std::logic_error("a team member sent a body this member does not hold");
  return body;
}

// The team's parts of the stages over rows (resting_team.cpp).
/// The team's split of this island (w.blocks built, before the rows are prepared; `cell` the
/// blocks' edge): who sweeps each block and settles each body.
void share_assign(RestingWork& w, RestingTeam* team, double cell);
/// The rest of the team's data for this island (the rows prepared): who reads each body, the
/// colours' messages.
void share_setup(RestingWork& w);
/// After a colour of a sweep, point to point: share_post sends the bodies of `moved` this member
/// moved in the phase (stamp) to the other members `readers` lists for them, among the members
/// of `to` (each of them gets a message, empty or not), and starts the next phase; share_collect
/// takes the messages of the members of `from` for phase `phase` (posted, and every earlier
/// phase's messages of those members taken).
void share_post(RestingWork& w, std::span<const int> moved,
                const std::vector<std::uint64_t>& readers, std::uint64_t to);
void share_collect(RestingWork& w, std::uint64_t from, int phase);
/// The shock pass over a team (the support rows grouped by upper body and the heights taken
/// from the rows here): w.by_height this member's bodies that rest on something, in height
/// order; each member tells the members settling bodies that rest on its bodies their heights
/// (w.height; RestingShare::heard), and which members post to which (shock_to, shock_from).
void share_heights(RestingWork& w);
/// This member's messages to each member (RestingShare::out), as the team's begin_messages and
/// take_messages (resting_team.hpp).
std::vector<ByteWriter>& begin_messages(RestingShare& s);
std::vector<std::string> take_messages(RestingShare& s);
/// The largest changes over the team (the sweep's stopping test).
void share_maxima(RestingWork& w, RestingSweep& total);
/// Each member's latest bodies, each to the members that need it (RestingShare::sync_to; a
/// body's value here is replaced by a later phase's). A row's impulses stay with the member that
/// sweeps it.
void share_sync(RestingWork& w);
/// Row j's index in the island's contacts: the j-th of the pass's order, order[k] (order empty:
/// k) with k = j, or with the blocked order the contact it maps row j to.
inline int contact_index(std::span<const int> order, const RestingWork& w, std::size_t j) {
  const std::size_t k = w.blocks ? static_cast<std::size_t>(w.order.contact_order[j]) : j;
  return order.empty() ? static_cast<int>(k) : order[k];
}
/// At the end of the pass: the impulses of the rows this member sweeps (not the leftovers, which
/// every member sweeps) to the members that keep their contacts (RestingTeam::keepers), and
/// theirs here; `order` is the pass's (contact_index).
void share_impulses(RestingWork& w, std::span<const int> order);
/// After a sweep of a closing round: the bodies whose stir crossed its limit here to the other
/// members whose rows move them (readers), and theirs here; every list of stirred bodies ends
/// merged into the first thread's, each body once, in no set order (grow reads them in any).
/// With `maxima`, the sweep's largest changes go to every member in the same exchange and come
/// back the team's, as share_maxima leaves them.
void share_stirred(RestingWork& w, RestingSweep* maxima);
/// Each body's stir limit, the least over the team's rows of it (collective): a member sends its
/// finite limits to the members it syncs each body to (sync_to: every member that reads it holds
/// one of them, and every row of a body is swept by a member that reads it) and keeps the least.
void share_stir_limits(RestingWork& w);
/// Each member's exact sums and integer counts, summed over the team in place (collective).
void share_sums(RestingWork& w, std::span<ExactSum> sums, std::span<std::int64_t> counts);
/// Whether `here` holds on any member (collective).
bool share_any(RestingWork& w, bool here);

/// How far ahead a sweep over some of the rows fetches their data (run_shared, and run_subset in
/// resting_rounds.cpp).
constexpr std::size_t kSubsetAhead = 8;

/// Before the row at place p of `which` is swept: ahead(j, far) for the row kSubsetAhead places
/// on (far = true) and for the one half as far (false), to fetch their data into the cache.
template <class A>
void fetch_subset(std::span<const int> which, std::size_t p, A&& ahead) {
  if (p + kSubsetAhead < which.size())
    ahead(static_cast<std::size_t>(which[p + kSubsetAhead]), true);
  if (p + kSubsetAhead / 2 < which.size())
    ahead(static_cast<std::size_t>(which[p + kSubsetAhead / 2]), false);
}

/// The bodies of `moved`, moved by this member in `phase`: stamped with it.
inline void stamp_moves(RestingShare& s, std::span<const int> moved, int phase) {
  for (const int body : moved)
    s.stamp[static_cast<std::size_t>(body)] = s.known[static_cast<std::size_t>(body)] = phase;
}

/// After a sweep of every row of this member's blocks that began at `first_phase` (colour c in
/// phase first_phase + c): each body its rows move stamped with the phase of the last colour
/// they move it in, as a stamp per row would leave it. A value another member sent in a later
/// phase stays the one known (blocks of one colour share no body, so no phase is taken twice).
inline void stamp_sweep(RestingShare& s, int first_phase) {
  for (const auto& [body, colour] : s.last_moves) {
    const auto at = static_cast<std::size_t>(body);
    s.stamp[at] = first_phase + colour;
    s.known[at] = std::max(s.known[at], first_phase + colour);
  }
}

/// Calls f(i, sweep) for the rows `which` (all rows when `all`, else ascending) of the blocks of
/// this team member, colour by colour, sharing what each colour moved, then for the leftovers on
/// every member; the sweep's maxima are the team's (with `maxima`; otherwise this member's, for
/// the caller to share), and its updates are this member's, counted apart (RestingShare::updates,
/// summed at the end of the pass: the sweep returned counts none). Over some of the rows, which lie
/// apart in memory, ahead(j, far) is called before each f for the row of `which` kSubsetAhead
/// places on (far = true) and for the one half as far (false), to fetch their data into the cache.
template <class F, class A = void (*)(std::size_t, bool)>
RestingSweep run_shared(
    RestingWork& w, std::span<const int> which, bool all, F&& f,
    A&& ahead = [](std::size_t, bool) {}, bool maxima = true) {
  const BlockOrder& o = *w.blocks;
  RestingShare& s = w.share;
  RestingSweep total;
  const SubsetBlocks& sub = w.subset;
  if (!all) w.subset.find(o, which);
  // A colour's blocks of this member [first, last), in parallel; the bodies they move stamped
  // with the colour's phase (`phase`).
  auto sweep = [&](const std::vector<int>& mine, long first, long last, int phase) {
    auto visit = [&](int i, RestingSweep& sw) {
      f(static_cast<std::size_t>(i), sw);
      if (all) return;  // (a sweep of every row stamps by colour: stamp_moves, stamp_sweep)
      for (const int body :
           {w.rows.a[static_cast<std::size_t>(i)], w.rows.b[static_cast<std::size_t>(i)]})
        if (body >= 0)
          s.stamp[static_cast<std::size_t>(body)] = s.known[static_cast<std::size_t>(body)] = phase;
    };
    auto block = [&](long q, RestingSweep& part) {
      const int k = mine[static_cast<std::size_t>(q)];
      if (all) {
        for (int i = o.block_start[k]; i < o.block_start[k + 1]; ++i) visit(i, part);
      } else {
        const auto at = static_cast<std::size_t>(k);
        for (int p = sub.first[at]; p >= 0 && p < sub.end[at]; ++p) {
          fetch_subset(which, static_cast<std::size_t>(p), ahead);
          visit(which[static_cast<std::size_t>(p)], part);
        }
      }
    };
    // (On one thread no OpenMP region is entered: a colour is swept in three calls, and a
    // region, even of one thread, allocates its team.)
    if (!w.parallel || last - first <= 1 || !threads_here()) {
      RestingSweep part;
      for (long q = first; q < last; ++q) block(q, part);
      total.merge(part);
      return;
    }
#pragma omp parallel
    {
      RestingSweep part;
#pragma omp for schedule(dynamic, 4)
      for (long q = first; q < last; ++q) block(q, part);
#pragma omp critical(etdem_resting_shared)
      total.merge(part);
    }
  };
  // Colour by colour: the blocks that read nothing the others moved in a pending colour first,
  // then (where some block does) the pending colours' messages, then the rest of the blocks
  // whose bodies others read, then what this colour moved is posted, and the blocks no other
  // member reads are swept after. The messages still pending are taken after the last colour.
  const std::size_t colours = static_cast<std::size_t>(o.colours());
  const int first_phase = s.phase;
  std::size_t taken = 0;  // the colours whose messages are taken
  auto take_pending = [&](std::size_t until) {
    for (; taken < until; ++taken)
      if (s.colour_from[taken] != 0)
        share_collect(w, s.colour_from[taken], first_phase + static_cast<int>(taken));
  };
  for (std::size_t c = 0; c < colours; ++c) {
    const std::vector<int>& mine = s.my_blocks[c];
    const int phase = s.phase;
    sweep(mine, 0, s.early[c], phase);
    if (s.takes[c]) take_pending(c);
    sweep(mine, s.early[c], s.posted[c], phase);
    if (all) stamp_moves(s, s.boundary[c], phase);
    share_post(w, s.boundary[c], s.readers, s.colour_to[c]);
    sweep(mine, s.posted[c], static_cast<long>(mine.size()), phase);
  }
  take_pending(colours);
  if (all) stamp_sweep(s, first_phase);
  // The leftovers: on every member alike (their bodies are read by every member), counted once.
  RestingSweep left;
  if (all) {
    for (std::size_t i = static_cast<std::size_t>(o.leftover_start); i < w.rows.size(); ++i)
      f(i, left);
  } else {
    for (auto p = static_cast<std::size_t>(sub.leftovers); p < which.size(); ++p) {
      fetch_subset(which, p, ahead);
      f(static_cast<std::size_t>(which[p]), left);
    }
  }
  if (s.me != 0) left.updates = 0;
  total.merge(left);
  s.updates += total.updates;  // (counted apart, summed at the end of the pass)
  total.updates = 0;
  if (maxima) share_maxima(w, total);
  return total;
}

/// Calls f(i, sweep) for every row i < n: in row order on this thread, or with `blocks` colour by
/// colour, the blocks of a colour in parallel (each block's rows in order), then the leftovers
/// in order. Blocks of one colour share no body, so the result does not depend on the number of
/// threads; a team (w.share) splits the blocks over its members (run_shared), and with `maxima`
/// the sweep's maxima are the team's (otherwise a member's own).
template <class F>
RestingSweep run_rows(RestingWork& w, std::size_t n, F&& f, bool maxima = true) {
  RestingSweep total;
  if (!w.blocks) {
    for (std::size_t i = 0; i < n; ++i) f(i, total);
    return total;
  }
  if (w.share.team)
    return run_shared(
        w, {}, true, f, [](std::size_t, bool) {}, maxima);
  const BlockOrder& o = *w.blocks;
#pragma omp parallel
  {
    RestingSweep mine;
    for (int colour = 0; colour < o.colours(); ++colour) {
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

/// Calls f(i) for i < n, on every thread when `parallel` (f independent per i).
template <class F>
void for_each_row(bool parallel, std::size_t n, F&& f) {
  if (!parallel) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  const long count = static_cast<long>(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) f(static_cast<std::size_t>(i));
}

}  // namespace etdem
