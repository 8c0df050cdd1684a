#include "etdem/world/collision_groups.hpp"

#include <algorithm>

#include <omp.h>

namespace etdem {
namespace {

/// Groups fewer than this stay on the calling thread (waking the team costs more).
constexpr int kParallelGroups = 64;

}  // namespace

void CollisionGroups::prepare(int threads) {
  const auto n = static_cast<std::size_t>(std::max(threads, 1));
  if (local_.size() < n) local_.resize(n);
  if (slots_.size() < n) slots_.resize(n);
}

SolverStats CollisionGroups::resolve(Solver& solver, std::span<Contact> collisions,
                                     IslandBodies& bodies, int thread) {
  groups_ = collisions.empty() ? 0 : 1;
  const auto nb = static_cast<std::size_t>(bodies.count);
  if (collisions.size() < 2 || nb == 0) return solver.resolve(collisions, bodies, thread);
  // Union-find over the dynamic bodies the collisions join (path halving; static bodies, -1,
  // join nothing).
  parent_.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) parent_[i] = static_cast<int>(i);
  auto root = [&](int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  };
  for (const Contact& c : collisions)
    if (c.a >= 0 && c.b >= 0) {
      const int ra = root(c.a), rb = root(c.b);
      if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
    }
  // Groups numbered in the order of their first collision; a counting sort keeps the serial
  // order within each.
  group_of_.assign(nb, -1);
  const std::size_t n = collisions.size();
  members_.resize(n);
  int groups = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Contact& c = collisions[k];
    const int r = root(c.a >= 0 ? c.a : c.b);
    if (group_of_[r] < 0) group_of_[r] = groups++;
    members_[k] = group_of_[r];
  }
  groups_ = groups;
  if (groups == 1) return solver.resolve(collisions, bodies, thread);
  group_start_.assign(static_cast<std::size_t>(groups) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) ++group_start_[members_[k] + 1];
  for (int g = 0; g < groups; ++g) group_start_[g + 1] += group_start_[g];
  cursor_.assign(group_start_.begin(), group_start_.end() - 1);
  order_.resize(n);
  for (std::size_t k = 0; k < n; ++k) order_[cursor_[members_[k]]++] = static_cast<int>(k);
  members_.swap(order_);
  stats_.assign(static_cast<std::size_t>(groups), SolverStats{});
  const bool parallel = groups >= kParallelGroups && !omp_in_parallel() &&
                        static_cast<int>(local_.size()) > 1 && omp_get_max_threads() > 1;
  if (parallel) {
    const int team = std::min<int>(omp_get_max_threads(), static_cast<int>(local_.size()));
#pragma omp parallel for schedule(dynamic, 8) num_threads(team)
    for (int g = 0; g < groups; ++g)
      stats_[g] = solve_group(solver, collisions, bodies, g, omp_get_thread_num());
  } else {
    for (int g = 0; g < groups; ++g) stats_[g] = solve_group(solver, collisions, bodies, g, thread);
  }
  SolverStats total;
  for (const SolverStats& s : stats_) total.add(s);
  return total;
}

SolverStats CollisionGroups::solve_group(Solver& solver, std::span<Contact> collisions,
                                         IslandBodies& bodies, int g, int thread) {
  Local& l = local_[static_cast<std::size_t>(thread)];
  std::vector<int>& slot = slots_[static_cast<std::size_t>(thread)];
  if (slot.size() < static_cast<std::size_t>(bodies.count))
    slot.assign(static_cast<std::size_t>(bodies.count), -1);
  const int first = group_start_[g], last = group_start_[g + 1];
  // The group's bodies in ascending island order, then its contacts with local ids.
  l.bodies.clear();
  for (int m = first; m < last; ++m) {
    const Contact& c = collisions[members_[m]];
    for (const int body : {c.a, c.b})
      if (body >= 0 && slot[body] < 0) {
        slot[body] = 0;
        l.bodies.push_back(body);
      }
  }
  std::sort(l.bodies.begin(), l.bodies.end());
  const auto nb = l.bodies.size();
  l.v.resize(nb), l.w.resize(nb), l.x.resize(nb), l.inv_mass.resize(nb), l.inv_inertia.resize(nb);
  for (std::size_t s = 0; s < nb; ++s) {
    const int i = l.bodies[s];
    slot[i] = static_cast<int>(s);
    l.v[s] = bodies.v[i];
    l.w[s] = bodies.w[i];
    l.inv_mass[s] = bodies.inv_mass[i];
    l.inv_inertia[s] = bodies.inv_inertia[i];
    l.x[s] = bodies.x ? bodies.x[i] : Vec3::Zero();
  }
  l.contacts.resize(static_cast<std::size_t>(last - first));
  for (int m = first; m < last; ++m) {
    Contact& c = l.contacts[static_cast<std::size_t>(m - first)];
    c = collisions[members_[m]];
    c.a = c.a >= 0 ? slot[c.a] : -1;
    c.b = c.b >= 0 ? slot[c.b] : -1;
  }
  IslandBodies view{static_cast<int>(nb), l.v.data(),           l.w.data(),
                    l.inv_mass.data(),    l.inv_inertia.data(), bodies.x ? l.x.data() : nullptr};
  SolverStats st = solver.resolve(l.contacts, view, thread);
  st.net_dissipation();
  // Back: velocities, and the contacts as the solver left them (with island ids).
  for (std::size_t s = 0; s < nb; ++s) {
    const int i = l.bodies[s];
    bodies.v[i] = l.v[s];
    bodies.w[i] = l.w[s];
    slot[i] = -1;
  }
  for (int m = first; m < last; ++m) {
    Contact& c = collisions[members_[m]];
    const int a = c.a, b = c.b;
    c = l.contacts[static_cast<std::size_t>(m - first)];
    c.a = a;
    c.b = b;
  }
  return st;
}

}  // namespace etdem
