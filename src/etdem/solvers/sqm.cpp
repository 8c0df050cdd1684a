#include "etdem/solvers/sqm.hpp"

#include <algorithm>
#include <cmath>

#include "etdem/solvers/impulse.hpp"

namespace etdem {
namespace {

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
  s.heap.reset(n);
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

  // The most approaching contact first (solvers/contact_heap.hpp).
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const double un = normal_velocity(cs[i], b);
    if (un < -tol) s.heap.append(static_cast<int>(i), un);
  }
  s.heap.make();

  // Re-keys every contact of `body`, skipping those that also touch `skip` (already re-keyed).
  auto rekey = [&](int body, int skip) {
    if (body < 0) return;
    for (const int j : s.graph.of(body)) {
      if (skip >= 0 && (cs[j].a == skip || cs[j].b == skip)) continue;
      s.heap.touch(j);
      const double un = normal_velocity(cs[j], b);
      if (un < -tol) s.heap.push(j, un);
    }
  };

  ContactHeap::Entry top;
  while (s.heap.pop(top)) {
    if (st.iterations >= settings_.max_iterations) {  // an approaching contact is left
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
    // Friction guard (impulse::friction_dissipates). Where the collision matrix couples normal
    // and tangential directions (a box corner), Newton's law with the one-shot Coulomb impulse
    // can make friction do positive work (Kane's paradox: the slip reverses during the impulse
    // while the friction impulse keeps its direction), and a sliding impulse is undefined when
    // n.K(n + mu q) <= 0. Such an impulse is replaced by the frictionless one, which still gives
    // u_n -> -e u_n; counted. (The guard once accepted friction's positive work while the
    // normal loss outweighed it; the tangential work is now never positive, as in etm.)
    const impulse::GuardedImpulse g =
        impulse::guarded_frictional_impulse(s.k[i], s.k_inv[i], c.normal, u, du_n, c.friction);
    if (g.fallback) ++st.friction_fallbacks;
    const Vec3& p = g.p;
    const double wn = g.normal_work, w = g.work;
    st.dissipated_restitution -= wn;   // Newton's loss, (1 - e^2) of the compression work
    st.dissipated_friction -= w - wn;  // minus the work of the tangential part
    impulse::apply(c, b, p);
    ++st.iterations;
    ++s.impulses[i];
    rekey(c.a, -1);
    rekey(c.b, c.a);
  }

  for (std::size_t i = 0; i < cs.size(); ++i) {
    st.rounds = std::max(st.rounds, s.impulses[i]);
    if (normal_velocity(cs[i], b) < -tol) ++st.approaching_left;
  }
  return st;
}

std::vector<Setting<SqmSettings>> sqm_setting_keys() {
  using namespace setting;
  std::vector<Setting<SqmSettings>> v;
  v.push_back(field<SqmSettings>("velocity_tolerance", "1", at_least(0),
                                 "a contact stops approaching at u_n >= -tol, tol relative to the "
                                 "collision group's largest initial approach speed",
                                 &SqmSettings::velocity_tolerance));
  v.push_back(field<SqmSettings>("max_iterations", "", at_least(1),
                                 "cap on impulses per collision group and step (a guard, counted)",
                                 &SqmSettings::max_iterations));
  return v;
}

}  // namespace etdem
