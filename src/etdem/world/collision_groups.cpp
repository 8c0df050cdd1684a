#include "etdem/world/collision_groups.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include <omp.h>

#include "etdem/collision/contact_record.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/core/parallel.hpp"
#include "etdem/solvers/solver_stats_record.hpp"

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
                                     IslandBodies& bodies, int thread, RestingTeam* team) {
  shared_ = false;
  const auto nb = static_cast<std::size_t>(bodies.count);
  // A team's members may hold different collisions: every member holds each group but those
  // another member keeps whole (RestingTeam::kept_collisions), so the island's groups are the
  // ones here and the ones kept elsewhere.
  const bool teamed = team && team->members() > 1;
  const RestingTeam::Kept kept = teamed ? team->kept_collisions() : RestingTeam::Kept{};
  // The groups are the islands the collisions alone form (World's IslandBuilder: contacts and
  // bodies of each in ascending order, numbered by their smallest body).
  int here = collisions.empty() ? 0 : 1;
  if (nb > 0 && (collisions.size() >= 2 || kept.anywhere)) {
    dynamic_.assign(nb, 1);
    all_.resize(collisions.size());
    std::iota(all_.begin(), all_.end(), 0);
    builder_.build(collisions, all_, dynamic_, groups_of_);
    here = groups_of_.count();
  }
  groups_ = here + static_cast<int>(kept.groups);
  if (groups_ <= 1) {
    // One group goes to the solver as it is, on the member that holds it: a group kept by one
    // member sends its statistics to the others.
    if (!kept.anywhere) return solver.resolve(collisions, bodies, thread);
    SolverStats st = here > 0 ? solver.resolve(collisions, bodies, thread) : SolverStats{};
    share_one(st, here > 0, *team);
    return st;
  }
  local_id_.resize(nb);
  least_.resize(static_cast<std::size_t>(here));
  for (int g = 0; g < here; ++g) {
    least_[static_cast<std::size_t>(g)] = groups_of_.body_order[groups_of_.body_start[g]];
    for (int s = groups_of_.body_start[g]; s < groups_of_.body_start[g + 1]; ++s)
      local_id_[groups_of_.body_order[s]] = s - groups_of_.body_start[g];
  }
  stats_.assign(static_cast<std::size_t>(here), SolverStats{});
  elsewhere_.clear();
  if (teamed) {
    solve_shared(solver, collisions, bodies, thread, *team);
    if (static_cast<long>(elsewhere_.size()) != kept.groups)
      throw std::logic_error("a team member holds " + std::to_string(here) +
                             " collision groups and the statistics of " +
                             std::to_string(elsewhere_.size()) + " kept elsewhere, not " +
                             std::to_string(kept.groups));
  } else {
    which_.resize(static_cast<std::size_t>(here));
    std::iota(which_.begin(), which_.end(), 0);
    solve_groups(solver, collisions, bodies, which_, thread);
  }
  // Summed in group order (by smallest body: the groups here and those kept elsewhere merged):
  // the same bits whoever solved or held each group.
  std::sort(elsewhere_.begin(), elsewhere_.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  SolverStats total;
  std::size_t e = 0;
  for (int g = 0; g < here; ++g) {
    for (; e < elsewhere_.size() && elsewhere_[e].first < least_[static_cast<std::size_t>(g)]; ++e)
      total.add(elsewhere_[e].second);
    total.add(stats_[static_cast<std::size_t>(g)]);
  }
  for (; e < elsewhere_.size(); ++e) total.add(elsewhere_[e].second);
  return total;
}

void CollisionGroups::share_one(SolverStats& st, bool holds, RestingTeam& team) {
  ByteWriter out;
  if (holds) put_stats(out, st);
  const std::string bytes = out.take();
  std::vector<std::string> to(static_cast<std::size_t>(team.members()));
  if (holds)
    for (int m = 0; m < team.members(); ++m)
      if (m != team.member()) to[static_cast<std::size_t>(m)] = bytes;
  for (const std::string& got : team.exchange(std::move(to))) {
    if (got.empty()) continue;
    if (holds) throw ByteStreamError("two team members hold an island's one collision group");
    ByteReader in(got);
    get_stats(in, st);
  }
}

void CollisionGroups::solve_groups(Solver& solver, std::span<Contact> collisions,
                                   IslandBodies& bodies, std::span<const int> which, int thread) {
  const int count = static_cast<int>(which.size());
  const bool parallel = count >= kParallelGroups && !inside_parallel() &&
                        static_cast<int>(local_.size()) > 1 && omp_get_max_threads() > 1;
  if (parallel) {
    const int team = std::min<int>(omp_get_max_threads(), static_cast<int>(local_.size()));
#pragma omp parallel for schedule(dynamic, 8) num_threads(team)
    for (int q = 0; q < count; ++q) {
      const int g = which[static_cast<std::size_t>(q)];
      stats_[g] = solve_group(solver, collisions, bodies, g, omp_get_thread_num());
    }
  } else {
    for (const int g : which) stats_[g] = solve_group(solver, collisions, bodies, g, thread);
  }
}

void CollisionGroups::solve_shared(Solver& solver, std::span<Contact> collisions,
                                   IslandBodies& bodies, int thread, RestingTeam& team) {
  // A group goes to the member that settles its least body (where its grains live); the
  // results of each go to every other member, which all read the whole island next, but for a
  // group of bodies no other member reads (RestingTeam::quiet): its statistics only. A group
  // is named by its least body (a member that keeps some groups whole numbers its groups
  // otherwise than the others).
  shared_ = true;
  const int groups = groups_of_.count(), me = team.member();
  which_.clear();
  for (int g = 0; g < groups; ++g)
    if (team.body_member(least_[static_cast<std::size_t>(g)]) == me) which_.push_back(g);
  solve_groups(solver, collisions, bodies, which_, thread);
  ByteWriter out;
  for (const int g : which_) {
    out.put(static_cast<std::int32_t>(least_[static_cast<std::size_t>(g)]));
    put_stats(out, stats_[g]);
    bool read_elsewhere = false;
    for (int s = groups_of_.body_start[g]; s < groups_of_.body_start[g + 1]; ++s)
      read_elsewhere = read_elsewhere || !team.quiet(groups_of_.body_order[s]);
    out.put(static_cast<std::int8_t>(read_elsewhere ? 1 : 0));
    if (!read_elsewhere) continue;
    for (int s = groups_of_.body_start[g]; s < groups_of_.body_start[g + 1]; ++s) {
      out.put(bodies.v[groups_of_.body_order[s]]);
      out.put(bodies.w[groups_of_.body_order[s]]);
    }
    for (int k = groups_of_.contact_start[g]; k < groups_of_.contact_start[g + 1]; ++k)
      put_contact(out, collisions[groups_of_.contact_order[k]]);
  }
  const std::string bytes = out.take();
  std::vector<std::string> to(static_cast<std::size_t>(team.members()));
  for (int m = 0; m < team.members(); ++m)
    if (m != me) to[static_cast<std::size_t>(m)] = bytes;
  for (const std::string& got : team.exchange(std::move(to))) {
    ByteReader in(got);
    while (!in.done()) {
      const int least = in.get<std::int32_t>();
      const auto it = std::lower_bound(least_.begin(), least_.end(), least);
      const bool held = it != least_.end() && *it == least;
      SolverStats st;
      get_stats(in, st);
      const bool results = in.get<std::int8_t>() != 0;
      if (!held) {  // a group another member keeps whole: its statistics only
        if (results || least < 0 || least >= bodies.count)
          throw ByteStreamError("a team member sent collision group " + std::to_string(least) +
                                ", not held here");
        elsewhere_.emplace_back(least, st);
        continue;
      }
      const auto g = static_cast<int>(it - least_.begin());
      stats_[static_cast<std::size_t>(g)] = st;
      if (!results) continue;  // a group no other member reads
      for (int s = groups_of_.body_start[g]; s < groups_of_.body_start[g + 1]; ++s) {
        in.get(bodies.v[groups_of_.body_order[s]]);
        in.get(bodies.w[groups_of_.body_order[s]]);
      }
      for (int k = groups_of_.contact_start[g]; k < groups_of_.contact_start[g + 1]; ++k)
        get_contact(in, collisions[groups_of_.contact_order[k]]);
    }
  }
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
