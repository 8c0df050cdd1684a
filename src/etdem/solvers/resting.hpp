// Resting contacts: the hybrid treatment of slow contacts (2024 §4.1, after Guendelman,
// Bridson & Fedkiw 2003: a collision pass, then a separate contact pass with e = 0).
//
// ETM resolves a contact by about lambda small impulses; in a pile at rest every contact is
// reloaded by g dt each step and the compression stage behaves like a Gauss-Seidel sweep with
// steps of |u_n| / lambda: measured 500 impulses per contact per step on a 200-grain heap, which
// makes piles of 10^4 grains impractical. Contacts that approach slower than the resting
// velocity (or not at all) at the start of the step are therefore resolved here, inelastically:
// projected Gauss-Seidel on accumulated impulses (normal >= 0, tangential within the Coulomb
// disc mu * normal), a fixed number of sweeps with an early exit. Every impulse's work is split
// exactly into normal work (booked as restitution, e = 0) and tangential work (friction), so the
// energy ledger still closes to round-off. Collisions (faster approach) go through the chosen
// impulse solver (ETM) first; this pass runs after it on the whole island.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "etdem/solvers/resting_blocks.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

struct RestingSettings {
  int iterations = 12;            // Gauss-Seidel sweeps per island and step (upper bound)
  double tolerance = 1e-3;        // stop when no impulse changed by more than this fraction of the
                                  // largest accumulated normal impulse in a sweep
  double dt = 0.0;                // [s] time step: a contact with gap g > 0 may close at g / dt
                                  // (speculative contact); set by the world
  Vec3 gravity{0, 0, 0};          // [m/s^2] the step's acceleration of every dynamic body, whose
                                  // kick g dt the pass's impulses cancel on resting grains (their
                                  // work is booked from the velocity before it); set by the world
  bool shock_propagation = true;  // final bottom-up pass with the lower body fixed (with gravity)
  /// A contact still closing faster than its target after the shock pass is left approaching
  /// (swept again by the rounds after it, and counted) when within the step it would close by
  /// more than this fraction of its shorter lever, the distance from a dynamic body's centre to
  /// the point (1e-5: 0.05 um, 3e-5 m/s in a step of 1/600 s, for a grain of 1 cm). 0: any
  /// excess beyond round-off (docs/design.md "Left approaching: a depth, not round-off").
  double approach_tolerance = 1e-5;
  double warm_start = 1.0;     // fraction of last step's impulses applied first (0 = cold)
  double slip_velocity = 0.0;  // [m/s] above it a saturated friction impulse opposes the slip;
                               // the world sets it to the resting velocity
  /// Islands with at least this many contacts are swept by spatial blocks (resting_blocks.hpp):
  /// the same bits on any number of threads, the blocks of one colour in parallel; smaller
  /// islands keep the island's contact order. 0 = never.
  long block_contacts = 8192;
  double block_size = 0.0;  // [m] edge of the blocks; set by the world (0: no blocked sweeps)

  /// Unit direction of gravity (zero without gravity: no shock propagation).
  Vec3 down() const {
    return gravity.squaredNorm() > 0.0 ? Vec3(gravity.normalized()) : Vec3::Zero();
  }

  bool operator==(const RestingSettings&) const = default;
};

/// A diagnostic of the pass's convergence, for bench programs (bench/resting_probe.hpp): when set,
/// called after every sweep and after the shock pass with the state of the whole island. Unset
/// in every run of the library and the CLI; it changes no velocity or impulse.
struct RestingProbe {
  int set = 0;      // 0: the sweeps before the shock pass; 1: after the shock pass; 2.. its rounds
  int sweep = 0;    // sweep within the set (0 for the shock pass)
  long island = 0;  // contacts of the island
  long swept = 0;   // contacts the sweep visited
  long approaching = 0;    // closing faster than their gap allows (RestingSolver::kApproachSlack)
  long faster_1mm = 0;     // of them, by more than 1 mm/s
  double fastest = 0.0;    // the largest excess [m/s]
  bool converged = false;  // the sweep met the pass's stopping test
  double normal_impulses = 0.0;  // the island's accumulated normal impulses, summed in order [N s]
};
using RestingProbeHook = void (*)(const RestingProbe&);
inline RestingProbeHook resting_probe = nullptr;

class RestingSolver final : public Solver {
 public:
  /// Rounds of sweeps after the shock pass, each from the contacts still left approaching (those
  /// that answer them join as the round moves their bodies, kJoinShare); they end early when
  /// none is left, or when the energy guard takes a round back whole. Two: since
  /// the rounds follow their front (kJoinShare), a third to fifth round no longer changes the
  /// deepest contact of a landing and costs 8 % of the pour (docs/design.md "Rounds that follow
  /// their front"; five before, "Five closing rounds").
  static constexpr int kCloseRounds = 2;
  /// A round follows its front: a contact of a body its sweeps moved joins the round when within
  /// the step it would close by more than this share of its shorter lever (1e-3: 5 um, 3 mm/s
  /// in a step of 1/600 s, for a grain of 1 cm; docs/design.md "Rounds that follow their
  /// front"). Slower contacts wait for the next round or the next step.
  static constexpr double kJoinShare = 1e-3;
  /// A body's contacts are looked at for joining once the speed its points gained from the
  /// round's impulses since they were last looked at exceeds this share of the slowest joining
  /// speed of its contacts (the speed that closes kJoinShare of the lever in a step). A filter
  /// against looking at every neighbour of every body swept after every sweep (with five rounds,
  /// the pour's solve 16.2 s with it, 18.8 s without), not a bound: a contact already near the
  /// joining speed can cross it by less.
  static constexpr double kStirShare = 0.5;
  /// A growth of a round's set looks at the stirred bodies' contacts on every thread from this
  /// many bodies on (an island swept by blocks only).
  static constexpr std::size_t kParallelStirred = 128;
  /// A contact closing faster than its target by at most this is not approaching [m/s]
  /// (round-off of the sweeps' velocities). The rounds and the count in the statistics ask in
  /// addition for a depth (RestingSettings::approach_tolerance); the convergence probe counts
  /// every contact beyond round-off.
  static constexpr double kApproachSlack = 1e-9;
  explicit RestingSolver(const RestingSettings& s) : settings_(s) {}
  const char* name() const override { return "resting"; }
  /// The step length the next resolve() works with (the world's sub-steps change it).
  void set_dt(double dt) { settings_.dt = dt; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;
  /// resolve() of the contacts serial[order[k]], k < order.size(), in that order, as if they
  /// were gathered into one array first: the same bits, without the array. Only for an island
  /// swept by blocks (sweeps_by_blocks), whose pass gathers its contacts in its own order anyway.
  SolverStats resolve_in_order(std::span<Contact> serial, std::span<const int> order,
                               IslandBodies& bodies, int thread);
  /// Whether resolve() sweeps these contacts of these bodies by blocks.
  bool sweeps_by_blocks(std::size_t contacts, const IslandBodies& bodies) const {
    return blocked(contacts) && bodies.x;
  }
  /// Whether an island of `contacts` contacts is swept by blocks (it then takes every thread:
  /// the world resolves such islands one at a time, before the others).
  bool blocked(std::size_t contacts) const {
    return settings_.block_contacts > 0 && settings_.block_size > 0.0 &&
           static_cast<long>(contacts) >= settings_.block_contacts;
  }

 private:
  /// The normal velocity a contact may end the step with: 0, or for a contact still apart by
  /// g > 0 the speed that closes the gap within the step, -g / dt (a speculative contact).
  double target_speed(const Contact& c) const {
    return c.gap > 0.0 && settings_.dt > 0.0 ? -c.gap / settings_.dt : 0.0;
  }
  /// What an impulse m along one row of a contact turns its two bodies by: w_A += m ia,
  /// w_B -= m ib. A linear row along d (the normal, t1 or t2; u.d = d.(v_A - v_B) +
  /// (r_A x d).w_A - (r_B x d).w_B): ia = I_A^-1 (r_A x d), ib = I_B^-1 (r_B x d). An angular row
  /// of rolling resistance about a tangent t (no linear part): ia = I_A^-1 t, ib = I_B^-1 t.
  struct Turn {
    Vec3 ia, ib;  // [1/(kg m)] for a linear row, [1/(kg m^2)] for an angular one
  };
  /// One support contact of a body in the shock-propagation pass (the lower body held fixed).
  struct Support {
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
  /// Sweeps over one body's supports in the shock-propagation pass (a small problem: a grain
  /// has a few supports); reaching it is counted.
  static constexpr int kShockIterations = 16;
  /// What a shock-propagation settle of one body adds to the island's statistics.
  struct Settled {
    double restitution = 0.0, friction = 0.0, integration = 0.0;  // [J], subtracted
    long iterations = 0, bound_reached = 0, energy_guards = 0, friction_fallbacks = 0;
  };
  struct Scratch {
    std::vector<double> normal_mass;                // 1 / n.K n [kg]
    std::vector<double> target;                     // target_speed of each contact [m/s]
    std::vector<Vec3> t1, t2;                       // tangent basis
    std::vector<Eigen::Matrix2d> tangent_mass;      // its inverse [kg]
    std::vector<double> pn;                         // accumulated normal impulse [N s]
    std::vector<Eigen::Vector2d> pt;                // accumulated tangential impulse [N s]
    std::vector<std::pair<double, int>> order;      // (height, body), bottom of the pile first
    std::vector<signed char> upper;                 // per contact: 1 = A is upper, 0 = B, -1 none
    std::vector<double> height;                     // per body: its centre's height [m]
    std::vector<int> upper_body, lower_body;        // per contact: its upper and lower body (-1)
    std::vector<double> upper_height;               // per contact: its upper body's height [m]
    std::vector<int> support_start, support, fill;  // each body's support contacts (CSR)
    std::vector<Support> local;                     // the supports of the body being settled
    std::vector<Turn> turns;                        // 3 per contact: n, t1, t2
    std::vector<Vec3> u0;                           // relative velocity before the pass [m/s]
    std::vector<Vec3> v0, w0;                       // body velocities before the pass
    // Blocked sweeps: the order, the island's contacts and bodies gathered into it.
    BlockOrder blocks;
    std::vector<Contact> sorted;
    std::vector<Vec3> v, w;
    std::vector<double> inv_mass;
    std::vector<Mat3> inv_inertia;
    // Shock propagation on several threads: bodies by level (no two bodies of a level share a
    // support contact), the supports of the body each thread settles, per body its result.
    std::vector<int> level, position, level_start, by_level;
    std::vector<std::vector<Support>> local_of_thread;
    std::vector<Settled> settled;
    std::vector<int> all;            // 0 .. n-1: the sweeps' contacts
    std::vector<int> left;           // a closing round's contacts, ascending
    std::vector<char> moved;         // per body: moved since the contacts were last marked
    std::vector<double> stirred;     // per body: speed its points gained in a round's sweeps [m/s]
    std::vector<double> stir_limit;  // per body: kStirShare of its slowest joining speed [m/s]
    std::vector<char> in_round;      // per contact: in the round's set (`left`)
    // Bodies whose stir crossed their limit since they were last looked at, listed by the thread
    // that swept them; all of them, gathered for a growth of the set; the contacts each thread
    // joined in it.
    std::vector<std::vector<int>> stirred_of_thread, joined_of_thread;
    std::vector<int> stirred_bodies;
    std::vector<int> contact_start, contacts_of;  // each body's contacts in the island (CSR)
    std::vector<double> pn_base;                  // impulses before a later pass [N s]
    std::vector<Eigen::Vector2d> pt_base;
    std::vector<std::array<double, 4>> work;  // book_and_guard's terms per contact [J]
    // Rolling resistance (only sized when a contact of the island has it): two angular rows
    // per contact (about t1, t2), their 2x2 mass [kg m^2], the accumulated
    // angular impulse [N m s] and before a later pass, the relative spin before the pass.
    bool rolling = false;
    std::vector<Turn> roll_rows;
    std::vector<Eigen::Matrix2d> roll_mass;
    std::vector<Eigen::Vector2d> pr, pr_base;
    std::vector<Vec3> wr0;  // [rad/s]
  };
  /// The pass on one island; with `blocks`, contacts and bodies are in its order and the
  /// sweeps run block by block (in parallel), otherwise in contact order on this thread.
  SolverStats solve(std::span<Contact> cs, IslandBodies& b, Scratch& s, const BlockOrder* blocks);
  /// The blocked pass over contacts cs[order[k]] (order empty: cs[k]): gathered in the blocked
  /// order, solved, scattered back.
  SolverStats resolve_blocked(std::span<Contact> cs, std::span<const int> order, IslandBodies& b,
                              Scratch& s);
  void shock_propagation(std::span<Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st,
                         bool parallel);
  /// Settles one body on its supports (shock propagation), `local` its support scratch.
  Settled settle_body(int body, std::span<Contact> cs, IslandBodies& b, const Scratch& s,
                      std::vector<Support>& local) const;
  /// Books each contact's work from its total impulse and scales the pass back where it would
  /// do positive net work (energy guard); returns the scale the pass kept (1: all of it, 0: none,
  /// every velocity and impulse back to what it was before the pass).
  double book_and_guard(std::span<Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st,
                        std::span<const int> which);
  RestingSettings settings_;
  std::vector<Scratch> scratch_;
};

}  // namespace etdem
