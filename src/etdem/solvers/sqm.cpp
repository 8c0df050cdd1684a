#include "etdem/solvers/sqm.hpp"

#include <algorithm>
#include <cmath>

#include "etdem/solvers/impulse.hpp"

namespace etdem {
namespace {

// Min-heap order on (u_n, contact id): the most approaching contact first, ties broken by id so
// the order is deterministic.
struct HeapGreater {
  template <class E>
  bool operator()(const E& x, const E& y) const {
    return x.un > y.un || (x.un == y.un && x.contact > y.contact);
  }
};

// Round-off allowance on the work of an impulse (energy it may add), relative to the contact's
// compression energy 1/2 u_n^2 / n.K n.
constexpr double kWorkTolerance = 1e-12;

double normal_velocity(const Contact& c, const IslandBodies& b) {
  return c.normal.dot(impulse::relative_velocity(c, b));
}

}  // namespace

void SqmSolver::prepare(int threads) {
  scratch_.resize(std::max(threads, 1));
}

void SqmSolver::setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const {
  const std::size_t n = cs.size();
  s.k.resize(n);
  s.k_inv.resize(n);
  s.version.assign(n, 0);
  s.impulses.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    s.k[i] = impulse::collision_matrix(cs[i], b);
    if (cs[i].friction > 0.0) s.k_inv[i] = s.k[i].inverse();
  }
  // Body -> contact adjacency, so an impulse re-keys only the contacts it changes.
  s.graph.build(cs, b.count);
}

SolverStats SqmSolver::resolve(std::span<Contact> cs, IslandBodies& b, int thread) {
  SolverStats st;
  if (cs.empty()) return st;
  Scratch& s = scratch_[thread];
  setup(cs, b, s);
  double fastest = 0.0;
  for (const Contact& c : cs) fastest = std::max(fastest, -normal_velocity(c, b));
  const double tol = settings_.velocity_tolerance * fastest;

  // (Re)builds the heap from the current velocities: every approaching contact once.
  auto build_heap = [&] {
    s.heap.clear();
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const double un = normal_velocity(cs[i], b);
      if (un < -tol) s.heap.push_back({un, static_cast<int>(i), s.version[i]});
    }
    std::make_heap(s.heap.begin(), s.heap.end(), HeapGreater{});
  };
  build_heap();
  // Stale entries accumulate (each impulse re-keys every contact of two bodies); past this size
  // the heap is rebuilt, so its memory stays proportional to the island.
  const std::size_t heap_limit = 4 * cs.size() + 64;

  // Re-keys every contact of `body`, skipping those that also touch `skip` (already re-keyed).
  auto rekey = [&](int body, int skip) {
    if (body < 0) return;
    for (const int j : s.graph.of(body)) {
      if (skip >= 0 && (cs[j].a == skip || cs[j].b == skip)) continue;
      ++s.version[j];
      const double un = normal_velocity(cs[j], b);
      if (un < -tol) {
        s.heap.push_back({un, j, s.version[j]});
        std::push_heap(s.heap.begin(), s.heap.end(), HeapGreater{});
      }
    }
  };

  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), HeapGreater{});
    const HeapEntry top = s.heap.back();
    s.heap.pop_back();
    if (top.version != s.version[top.contact]) continue;  // re-keyed since
    if (st.iterations >= settings_.max_iterations) {      // an approaching contact is left
      ++st.guards_fired;
      break;
    }
    const int i = top.contact;
    const Contact& c = cs[i];
    const Vec3 u = impulse::relative_velocity(c, b);
    const double un = c.normal.dot(u);
    // Newton's law at this contact alone: u_n -> -e u_n (Eqs. 71-73), Coulomb friction by the
    // sticking test (Eq. 74) and the sliding impulse along n + mu q (Eqs. 75-76).
    const double du_n = -(1.0 + c.restitution) * un;
    Vec3 p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du_n, c.friction);
    double wn = impulse::normal_work(c.normal, s.k[i], u, p);
    double w = impulse::work(s.k[i], u, p);
    // Energy guard. Where the collision matrix couples normal and tangential directions (a box
    // corner), Newton's law with the one-shot Coulomb impulse can create kinetic energy (Kane's
    // paradox: the slip reverses during the impulse while the friction impulse keeps its
    // direction), and a sliding impulse is undefined when n.K(n + mu q) <= 0. Such an impulse is
    // replaced by the frictionless one, which still gives u_n -> -e u_n and never creates
    // energy; counted as a guard.
    if (c.friction > 0.0) {
      const double scale = 0.5 * un * un / c.normal.dot(s.k[i] * c.normal);  // compression energy
      if (!(c.normal.dot(p) > 0.0) || !all_finite(p) || w > kWorkTolerance * scale) {
        p = impulse::frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du_n, 0.0);
        wn = impulse::normal_work(c.normal, s.k[i], u, p);
        w = impulse::work(s.k[i], u, p);
        ++st.friction_fallbacks;
      }
    }
    st.dissipated_restitution -= wn;   // Newton's loss, (1 - e^2) of the compression work
    st.dissipated_friction -= w - wn;  // minus the work of the tangential part
    impulse::apply(c, b, p);
    ++st.iterations;
    ++s.impulses[i];
    rekey(c.a, -1);
    rekey(c.b, c.a);
    if (s.heap.size() > heap_limit) build_heap();
  }

  for (std::size_t i = 0; i < cs.size(); ++i) {
    st.rounds = std::max(st.rounds, s.impulses[i]);
    if (normal_velocity(cs[i], b) < -tol) ++st.approaching_left;
  }
  return st;
}

}  // namespace etdem
