#include "etdem/solvers/etm_priority.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/etm_rounds.hpp"
#include "etdem/solvers/impulse.hpp"

namespace etdem {

namespace {
template <class E, std::size_t N>
bool parse_named(const std::string& name, const std::pair<E, const char*> (&table)[N], E& out) {
  for (const auto& [value, text] : table)
    if (name == text) {
      out = value;
      return true;
    }
  return false;
}
template <class E, std::size_t N>
const char* named(E v, const std::pair<E, const char*> (&table)[N]) {
  for (const auto& [value, text] : table)
    if (v == value) return text;
  return "?";
}
using S = EtmPrioritySettings;
constexpr std::pair<S::Ordering, const char*> kOrderingNames[] = {
    {S::Ordering::Velocity, "velocity"}, {S::Ordering::MassWeighted, "mass-weighted"}};
constexpr std::pair<S::Grouping, const char*> kGroupingNames[] = {{S::Grouping::Pair, "pair"},
                                                                  {S::Grouping::Island, "island"}};
constexpr std::pair<S::Release, const char*> kReleaseNames[] = {{S::Release::Full, "full"},
                                                                {S::Release::Gradual, "gradual"}};
}  // namespace

bool parse_setting(const std::string& name, S::Ordering& out) {
  return parse_named(name, kOrderingNames, out);
}
bool parse_setting(const std::string& name, S::Grouping& out) {
  return parse_named(name, kGroupingNames, out);
}
bool parse_setting(const std::string& name, S::Release& out) {
  return parse_named(name, kReleaseNames, out);
}
const char* setting_name(S::Ordering v) {
  return named(v, kOrderingNames);
}
const char* setting_name(S::Grouping v) {
  return named(v, kGroupingNames);
}
const char* setting_name(S::Release v) {
  return named(v, kReleaseNames);
}

void EtmPrioritySolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
}

template <class Joins>
void EtmPrioritySolver::gather_group(std::span<const Contact> cs, Scratch& s,
                                     const ContactHeap::Entry& head, double limit,
                                     Joins joins) const {
  // Lines 9 and 29: the head of the queue and the contacts within beta of it. Pair grouping
  // (§3.3, "adjacent contact points glued together"): the other contacts of the same two bodies
  // that `joins` accepts (their queue entries stay; an impulse makes them stale). Island
  // grouping (the lines read literally): every queued contact whose key is <= limit.
  s.group.clear();
  s.group.push_back(head.contact);
  if (settings_.grouping == EtmPrioritySettings::Grouping::Pair) {
    const Contact& h = cs[head.contact];
    const int body = h.a >= 0 ? h.a : h.b;
    for (const int j : s.graph.of(body)) {
      if (j == head.contact || cs[j].a != h.a || cs[j].b != h.b) continue;
      if (joins(j)) s.group.push_back(j);
    }
  } else {
    ContactHeap::Entry e;
    while (s.heap.pop_if_at_most(limit, e)) s.group.push_back(e.contact);
  }
}

void EtmPrioritySolver::setup(std::span<const Contact> cs, const IslandBodies& b,
                              Scratch& s) const {
  s.EtmScratch::setup(cs, b, settings_.velocity_tolerance);
  const bool weighted = settings_.ordering == EtmPrioritySettings::Ordering::MassWeighted;
  s.weight.resize(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const Contact& c = cs[i];
    // §4.3: m_A m_B / (m_A + m_B) = 1 / (1/m_A + 1/m_B); a static body has 1/m = 0.
    s.weight[i] = weighted ? 1.0 / (impulse::inv_mass(b, c.a) + impulse::inv_mass(b, c.b)) : 1.0;
  }
}

bool EtmPrioritySolver::compress(std::span<const Contact> cs, IslandBodies& b, Scratch& s,
                                 SolverStats& st) const {
  const double tol = s.tolerance;
  const double beta = settings_.beta;
  s.heap.clear();
  // Line 5: the queue of approaching contacts keyed by (weighted) u_n, minimum first.
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (s.un[i] < -tol) s.heap.append(static_cast<int>(i), s.weight[i] * s.un[i]);
  s.heap.make();
  ContactHeap::Entry top;
  while (s.heap.pop(top)) {
    // Line 9: the group of contacts within a relative beta of the minimum key (keys < 0).
    const double key_min = top.key;
    gather_group(cs, s, top, key_min * (1.0 - beta), [&](int j) {
      return s.un[j] < -tol && s.weight[j] * s.un[j] <= key_min * (1.0 - beta);
    });
    // Line 10 (docs/errata.md: positive): the increment of the key, shared by the group.
    const double step = -key_min / (settings_.alpha * static_cast<double>(s.group.size()));
    for (const int i : s.group) {
      const Contact& c = cs[i];
      const Vec3 u = impulse::relative_velocity(c, b);
      const double un = c.normal.dot(u);
      if (un >= -tol) continue;  // an earlier member's impulse already stopped it
      double du = step / s.weight[i];
      // Never beyond zero, and a remainder below the tolerance is truncated to zero.
      if (un + du > -tol) du = -un;
      // Lines 12-16: impulse with Coulomb friction (ETM 2014 Eqs. 50-55), never doing positive
      // work through friction (the guard etm and sqm apply too).
      const impulse::GuardedImpulse g =
          impulse::guarded_frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du, c.friction);
      if (g.fallback) ++st.friction_fallbacks;
      s.elastic[i] -= g.normal_work;                     // line 18 (Eq. 29), W = - normal work
      st.dissipated_friction -= g.work - g.normal_work;  // tangential work
      impulse::apply(c, b, g.p);                         // line 17
      ++st.iterations;
      s.refresh_neighbours(cs, b, i, true,
                           [&](int j) { return s.weight[j] * s.un[j]; });  // line 20
      if (st.iterations >= settings_.max_iterations) return false;
    }
  }
  return true;
}

bool EtmPrioritySolver::separate(std::span<const Contact> cs, IslandBodies& b, Scratch& s,
                                 SolverStats& st) const {
  double peak = 0.0;
  for (double w : s.elastic) peak = std::max(peak, w);
  if (peak <= 0.0) return true;
  const double tol_w = settings_.energy_tolerance * peak;
  const double beta = settings_.beta;

  // The normal increment that releases exactly the contact's W: Eq. 33 (line 30 corrected),
  // with the effective compliance du_n / p_n of the frictional impulse (n.K n when mu = 0).
  // The sticking impulse is affine in du_n, so the compliance is refined from a trial at the
  // frictionless increment (three passes at most; the remaining mismatch is truncated energy).
  // Written without cancellation for a separating contact (u_n > 0, small W), where the
  // printed form rounds to zero and would stall the phase.
  auto eq33 = [](double un, double w, double compliance) {
    const double root = std::sqrt(un * un + 2.0 * w * compliance);
    return un > 0.0 ? 2.0 * w * compliance / (un + root) : root - un;
  };
  auto release_increment = [&](int i, const Vec3& u, double un, double w) {
    const Contact& c = cs[i];
    double du = eq33(un, w, c.normal.dot(s.k[i] * c.normal));
    if (c.friction <= 0.0) return du;
    for (int pass = 0; pass < 3; ++pass) {
      const Vec3 p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du, c.friction);
      const double pn = c.normal.dot(p);
      if (!(pn > 0.0)) break;
      du = eq33(un, w, du / pn);
    }
    return du;
  };

  const bool gradual = settings_.release == EtmPrioritySettings::Release::Gradual;
  if (gradual) {
    s.quantum.resize(cs.size());
    for (std::size_t i = 0; i < cs.size(); ++i) s.quantum[i] = s.elastic[i] / settings_.alpha;
  }

  // Line 27: the queue of contacts holding energy keyed by -W (maximum W first).
  s.heap.clear();
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (s.elastic[i] > tol_w) s.heap.append(static_cast<int>(i), -s.elastic[i]);
  s.heap.make();
  ContactHeap::Entry top;
  while (s.heap.pop(top)) {
    // Line 29: the group of contacts within a relative beta of W^max.
    const double w_max = -top.key;
    gather_group(cs, s, top, -w_max * (1.0 - beta), [&](int j) {
      return s.elastic[j] > tol_w && s.elastic[j] >= w_max * (1.0 - beta);
    });
    // Line 30 (Eq. 33): the increment that releases W^max (full) or the head's quantum
    // (gradual) at the head; the members take it, capped at their own W.
    double du_group = 0.0;
    for (const int i : s.group) {
      const Contact& c = cs[i];
      const Vec3 u = impulse::relative_velocity(c, b);
      const double un = c.normal.dot(u);
      const double du_own = release_increment(i, u, un, s.elastic[i]);
      if (i == top.contact) {
        du_group = du_own;
        // (A contact that held no energy when the phase began has no quantum: it goes at once.)
        if (gradual && s.quantum[i] > tol_w && s.quantum[i] < s.elastic[i])
          du_group = release_increment(i, u, un, s.quantum[i]);
      }
      // Every member takes the group's increment, but never more than releases its own W.
      const double du = std::min(du_group, du_own);
      const Vec3 p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du, c.friction);
      const double wn = impulse::normal_work(c.normal, s.k[i], u, p);
      const double wt = impulse::work(s.k[i], u, p);
      double& w = s.elastic[i];
      w -= wn;  // line 38
      st.dissipated_friction -= (wt - wn);
      impulse::apply(c, b, p);  // line 37
      ++st.iterations;
      if (w <= tol_w) {     // released (|w| round-off) or overshot (w < 0)
        st.truncated += w;  // round-off (frictionless) or the friction compliance's mismatch
        w = 0.0;
      }
      s.heap.touch(i);  // line 40: only this contact's W changed
      if (w > tol_w) s.heap.push(i, -w);
      if (st.iterations >= settings_.max_iterations) return false;
    }
  }
  return true;
}

void EtmPrioritySolver::record(EtmPriorityPhase::Kind kind, long round, const IslandBodies& b,
                               const Scratch& s, const SolverStats& st) const {
  EtmPriorityPhase ph;
  ph.kind = kind;
  ph.round = round;
  ph.iterations = st.iterations;
  for (int i = 0; i < b.count; ++i) {
    if (!(b.inv_mass[i] > 0.0)) continue;
    ph.kinetic += 0.5 * b.v[i].squaredNorm() / b.inv_mass[i] +
                  0.5 * b.w[i].dot(b.inv_inertia[i].inverse() * b.w[i]);
  }
  for (double w : s.elastic) ph.elastic += w;
  trace_->push_back(ph);
}

SolverStats EtmPrioritySolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  if (cs.empty()) return st;
  Scratch& s = scratch_[thread];
  setup(cs, b, s);
  if (trace_) record(EtmPriorityPhase::Kind::Start, 0, b, s, st);
  // Lines 6-43 (line 43: any contact approaching again starts another round); lines 23-25 with
  // Stronge's W <- e^2 W (docs/errata.md).
  run_etm_rounds(
      cs, b, EtmRoundState{s.un, s.elastic, s.restitution, s.tolerance}, settings_.max_rounds, st,
      [&] { return compress(cs, b, s, st); }, [&] { return separate(cs, b, s, st); },
      [&](EtmPhase phase, long round) {
        if (!trace_) return;
        const auto kind = phase == EtmPhase::Compression   ? EtmPriorityPhase::Kind::Compression
                          : phase == EtmPhase::Restitution ? EtmPriorityPhase::Kind::Restitution
                                                           : EtmPriorityPhase::Kind::Separation;
        record(kind, round, b, s, st);
      });
  return st;
}

std::vector<Setting<EtmPrioritySettings>> etm_priority_setting_keys() {
  using namespace setting;
  using P = EtmPrioritySettings;
  std::vector<Setting<P>> v;
  v.push_back(field<P>(
      "alpha", "", closed(1, 1e6),
      "divides the compression increment, `du = |u_n^min| / (alpha |Gamma|)` (2024 Algorithm 1 "
      "line 10); with `release = \"gradual\"` also the number of release steps",
      &P::alpha));
  v.push_back(
      field<P>("beta", "1", half_open(0, 1),
               "contacts within this relative distance of the head's `u_n` (compression) or `W` "
               "(separation) join its group (lines 9, 29; the paper: 1-5 %)",
               &P::beta));
  v.push_back(named<P, P::Ordering>(
      "ordering",
      {{"velocity", P::Ordering::Velocity}, {"mass-weighted", P::Ordering::MassWeighted}},
      "key of the compression queue: `u_n` (Algorithm 1) or `m_A m_B/(m_A + m_B) u_n` (2024 §4.3)",
      &P::ordering));
  v.push_back(named<P, P::Grouping>(
      "grouping", {{"pair", P::Grouping::Pair}, {"island", P::Grouping::Island}},
      "which contacts may join a group: those of the same two bodies (§3.3, \"adjacent contact "
      "points glued together\") or any contact of the island (line 9 literally)",
      &P::grouping));
  v.push_back(named<P, P::Release>(
      "release", {{"gradual", P::Release::Gradual}, {"full", P::Release::Full}},
      "separation: at most 1/alpha of a contact's W per step, or all of it at once (line 30 "
      "literally)",
      &P::release));
  add_etm_guard_keys(v);
  return v;
}

}  // namespace etdem
