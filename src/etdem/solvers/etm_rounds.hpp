// The round loop of the energy tracking method, shared by etm (ETM 2014 Algorithm 2) and
// etm-priority (2024 Algorithm 1, lines 6-43): compression, restitution (Stronge), separation,
// repeated while any contact approaches; after max_rounds the restitution is set to zero (the
// 300-round guard of ETM 2014 §6), which ends after one more compression.
//
// Between rounds the relative normal velocity of *every* contact is recomputed before the next
// compression builds its queue. The separation stage applies impulses without re-keying the
// neighbours, so u_n is stale for every contact whose bodies it moved; etm used to stop
// refreshing at the first contact still approaching, and its next compression could then start
// without a contact that the separation had set approaching. That breaks Algorithm 2's stage I
// ("while any contact approaches"): the contact's compression slipped into a later round, after
// the restitution of the others. tests/solvers/test_etm_rounds.cpp checks the contract (every u_n
// current when a compression starts).
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "etdem/solvers/body_contacts.hpp"
#include "etdem/solvers/contact_heap.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

/// Per-contact scratch of both ETM solvers for the island being resolved (each solver extends it
/// with its own arrays).
struct EtmScratch {
  std::vector<Mat3> k, k_inv;       // collision matrix and its inverse (inverse only if mu > 0)
  std::vector<double> un;           // relative normal velocity [m/s]
  std::vector<double> elastic;      // W, elastic energy stored at the contact [J]
  std::vector<double> restitution;  // e used this step (0 after the round guard)
  BodyContacts graph;               // body -> contacts
  ContactHeap heap;                 // the solver's queue
  double tolerance = 0.0;           // [m/s] absolute velocity tolerance of this island

  /// Sizes and fills the shared arrays for contacts `cs`; the tolerance is `velocity_tolerance`
  /// times the island's fastest initial approach.
  void setup(std::span<const Contact> cs, const IslandBodies& b, double velocity_tolerance) {
    const std::size_t n = cs.size();
    k.resize(n);
    k_inv.resize(n);
    un.resize(n);
    elastic.assign(n, 0.0);
    restitution.resize(n);
    heap.reset(n);
    double fastest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const Contact& c = cs[i];
      k[i] = impulse::collision_matrix(c, b);
      if (c.friction > 0.0) k_inv[i] = k[i].inverse();
      un[i] = c.normal.dot(impulse::relative_velocity(c, b));
      restitution[i] = c.restitution;
      fastest = std::max(fastest, -un[i]);
    }
    tolerance = velocity_tolerance * fastest;
    // Body -> contact adjacency, so an impulse refreshes only the contacts it changes.
    graph.build(cs, b.count);
  }

  /// Recomputes u_n of every contact sharing a body with `contact` (their queue entries go
  /// stale); with `push`, queues those that approach under key(j).
  template <class Key>
  void refresh_neighbours(std::span<const Contact> cs, const IslandBodies& b, int contact,
                          bool push, Key key) {
    for (const int body : {cs[contact].a, cs[contact].b}) {
      if (body < 0) continue;
      for (const int j : graph.of(body)) {
        un[j] = cs[j].normal.dot(impulse::relative_velocity(cs[j], b));
        heap.touch(j);
        if (push && un[j] < -tolerance) heap.push(j, key(j));
      }
    }
  }
};

/// The per-contact state the round loop reads and writes, owned by the solver's scratch.
struct EtmRoundState {
  std::vector<double>& un;           // relative normal velocity [m/s], current at each compression
  std::vector<double>& elastic;      // W [J]
  std::vector<double>& restitution;  // e per contact (0 after the round guard)
  double tolerance = 0.0;            // [m/s] u_n >= -tolerance does not approach
};

enum class EtmPhase { Compression, Restitution, Separation };

/// Runs rounds until no contact approaches. `compress()` and `separate()` return false when
/// their iteration cap fired; `after(phase, round)` is called after every phase (tracing).
template <class Compress, class Separate, class After>
void run_etm_rounds(std::span<const Contact> cs, IslandBodies& b, EtmRoundState r, int max_rounds,
                    SolverStats& st, Compress compress, Separate separate, After after) {
  bool guard_rounds = false;
  long round = 0;
  // The hard bound only protects against a broken invariant and is counted if it ever fires.
  const long hard_bound = static_cast<long>(max_rounds) + 10;
  bool ok = true;
  for (; round < hard_bound && ok; ++round) {
    if (round == max_rounds && !guard_rounds) {
      guard_rounds = true;
      ++st.guards_fired;
      std::fill(r.restitution.begin(), r.restitution.end(), 0.0);
    }
    ok = compress();
    after(EtmPhase::Compression, round + 1);
    if (!ok) break;
    // Stage II: Stronge's hypothesis, W <- e^2 W (ETM 2014 Eq. 65; docs/errata.md for the
    // 2024 paper's W <- e W).
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (r.elastic[i] <= 0.0) continue;
      const double e = r.restitution[i];
      const double lost = r.elastic[i] * (1.0 - e * e);
      st.dissipated_restitution += lost;
      r.elastic[i] -= lost;
    }
    after(EtmPhase::Restitution, round + 1);
    ok = separate();
    after(EtmPhase::Separation, round + 1);
    if (!ok) break;
    bool approaching = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      r.un[i] = cs[i].normal.dot(impulse::relative_velocity(cs[i], b));
      approaching = approaching || r.un[i] < -r.tolerance;
    }
    if (!approaching) {
      ++round;
      break;
    }
  }
  if (!ok || round >= hard_bound) ++st.guards_fired;
  st.rounds = round;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    st.truncated += r.elastic[i];  // only non-zero when a guard stopped the solver
    if (cs[i].normal.dot(impulse::relative_velocity(cs[i], b)) < -r.tolerance)
      ++st.approaching_left;
  }
}

}  // namespace etdem
