#include "etdem/world/collision_groups.hpp"

#include <algorithm>
#include <numeric>

#include <omp.h>

#include "etdem/core/parallel.hpp"

namespace etdem {
namespace {

/// Groups fewer than this stay on the calling thread (waking the team costs more).
constexpr int kParallelGroups = 64;

}  // namespace

void CollisionGroups::prepare(int threads) {
  const auto n = static_cast<std::size_t>(std::max(threads, 1));
  if (local_.size() < n) local_.resize(n);
}

SolverStats CollisionGroups::resolve(Solver& solver, std::span<Contact> collisions,
                                     IslandBodies& bodies, int thread) {
  groups_ = collisions.empty() ? 0 : 1;
  const auto nb = static_cast<std::size_t>(bodies.count);
  if (collisions.size() < 2 || nb == 0) return solver.resolve(collisions, bodies, thread);
  // The groups are the islands the collisions alone form (World's IslandBuilder: contacts and
  // bodies of each in ascending order, numbered by their smallest body).
  dynamic_.assign(nb, 1);
  all_.resize(collisions.size());
  std::iota(all_.begin(), all_.end(), 0);
  builder_.build(collisions, all_, dynamic_, groups_of_);
  const int groups = groups_of_.count();
  groups_ = groups;
  if (groups == 1) return solver.resolve(collisions, bodies, thread);
  local_id_.resize(nb);
  for (int g = 0; g < groups; ++g)
    for (int s = groups_of_.body_start[g]; s < groups_of_.body_start[g + 1]; ++s)
      local_id_[groups_of_.body_order[s]] = s - groups_of_.body_start[g];
  stats_.assign(static_cast<std::size_t>(groups), SolverStats{});
  const bool parallel = groups >= kParallelGroups && !inside_parallel() &&
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
  const std::span<const int> members(
      groups_of_.contact_order.data() + groups_of_.contact_start[g],
      static_cast<std::size_t>(groups_of_.contact_start[g + 1] - groups_of_.contact_start[g]));
  const std::span<const int> group_bodies(
      groups_of_.body_order.data() + groups_of_.body_start[g],
      static_cast<std::size_t>(groups_of_.body_start[g + 1] - groups_of_.body_start[g]));
  const std::size_t nb = group_bodies.size();
  l.v.resize(nb), l.w.resize(nb), l.x.resize(nb), l.inv_mass.resize(nb), l.inv_inertia.resize(nb);
  for (std::size_t s = 0; s < nb; ++s) {
    const int i = group_bodies[s];
    l.v[s] = bodies.v[i];
    l.w[s] = bodies.w[i];
    l.inv_mass[s] = bodies.inv_mass[i];
    l.inv_inertia[s] = bodies.inv_inertia[i];
    l.x[s] = bodies.x ? bodies.x[i] : Vec3::Zero();
  }
  l.contacts.resize(members.size());
  for (std::size_t m = 0; m < members.size(); ++m) {
    Contact& c = l.contacts[m];
    c = collisions[members[m]];
    c.a = c.a >= 0 ? local_id_[c.a] : -1;
    c.b = c.b >= 0 ? local_id_[c.b] : -1;
  }
  IslandBodies view{static_cast<int>(nb), l.v.data(),           l.w.data(),
                    l.inv_mass.data(),    l.inv_inertia.data(), bodies.x ? l.x.data() : nullptr};
  SolverStats st = solver.resolve(l.contacts, view, thread);
  st.net_dissipation();
  // Back: velocities, and the contacts as the solver left them (with island ids).
  for (std::size_t s = 0; s < nb; ++s) {
    bodies.v[group_bodies[s]] = l.v[s];
    bodies.w[group_bodies[s]] = l.w[s];
  }
  for (std::size_t m = 0; m < members.size(); ++m) {
    Contact& c = collisions[members[m]];
    const int a = c.a, b = c.b;
    c = l.contacts[m];
    c.a = a;
    c.b = b;
  }
  return st;
}

}  // namespace etdem
