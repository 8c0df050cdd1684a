// The ledger of a link kick that contacts take back within the step (World::book_net_contacts).
//
// The links act as a kick before the collisions (world/net.hpp). A node pressed by a grain gets
// the kick and the contact solver takes it back in the same step: booked as it happens, the
// spring kick's kinetic energy appears as created (integration, negative) and the solver's
// removal of it as dissipated (restitution, friction), both growing as F^2 dt / m every step
// while nothing moves; the dashpots likewise "remove" energy from a velocity the node never
// had. For a node in an island the links' work is therefore measured on the velocities it
// really had, at the start of the step (v0, before gravity's kick, which the contacts take back
// as well) and after the solver (v2), as the resting pass books a contact's work
// (P.(u_start + u_after) / 2):
//   springs   W_s = m s.(v0 + v2) / 2,  s = the springs' velocity change,
//   dashpots  W_d = m d.(v0 + v2) / 2,  d = the dashpots' velocity change,
// in place of the kinetic energy each changed in sequence (a node at rest under a grain: both
// zero). The difference, summed over the island's nodes, is what the solver booked for taking
// the kick back; it is taken from the island's restitution (then friction), never below zero,
// the rest from integration. Nodes in no island are booked the same way, as one group whose
// difference is the discretisation's (integration): a free neighbour of a pressed node gets a
// dashpot kick from its neighbour's velocity that the contacts then take back, and would show
// it as dissipated while nothing moves. The dashpots' column is kept from falling (per group,
// and over the step): what a dashpot's kick gives back on velocities the contacts reversed is
// the discretisation's. Booking only: no velocity or position changes, so trajectories are
// unchanged.
#include <algorithm>

#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// Takes up to `amount` (> 0) out of the dissipation parts of `st`, restitution first, never
/// below zero; returns what is left to take.
double take_dissipation(SolverStats& st, double amount) {
  for (double* d : {&st.dissipated_restitution, &st.dissipated_friction}) {
    const double t = std::clamp(*d, 0.0, amount);
    *d -= t;
    amount -= t;
  }
  return amount;
}

/// One group of nodes: the kick's kinetic energy against the links' work on the real velocities.
struct KickShare {
  double spring = 0.0;     // [J] the springs' kinetic energy minus their work: dK_s - W_s
  double removed = 0.0;    // [J] what the dashpots removed, as booked: -dK_d
  double dashpot_w = 0.0;  // [J] the dashpots' work on the real velocities: W_d
};

}  // namespace

void World::book_net_contacts(const Islands& islands) {
  const Vec3 gravity_kick = h_ * settings.gravity;  // the (sub-)step's kick
  auto add_node = [&](int i, KickShare& share) {
    const Vec3& v0 = net_before_[i];
    const Vec3 sp = net_springs_[i] - v0, dp = net_kicked_[i] - net_springs_[i];
    // (v_start + v2) / 2, v_start before gravity's kick (which the contacts take back too).
    const Vec3 mean = 0.5 * (v0 - gravity_kick + bodies.velocity[i]);
    const double m = bodies.mass[i];
    share.spring += m * (sp.dot(v0 + 0.5 * sp) - sp.dot(mean));
    share.removed -= m * dp.dot(net_springs_[i] + 0.5 * dp);
    share.dashpot_w += m * dp.dot(mean);
  };
  // Books a group's share: the kick's columns keep only the links' work on the real velocities,
  // the springs' (integration) and the dashpots' (net_damping, never below zero); returns what
  // the other columns must give back (> 0: booked as dissipation by the solver).
  auto book = [&](const KickShare& share) {
    const double dissipated = std::max(-share.dashpot_w, 0.0);
    ledger_.integration += share.spring - (dissipated + share.dashpot_w);
    ledger_.net_damping += dissipated - share.removed;
    return share.spring - share.dashpot_w - share.removed;
  };
  in_island_.assign(bodies.count(), 0);
  for (int k = 0; k < islands.count(); ++k) {
    KickShare share;
    bool any = false;
    for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s) {
      const int i = islands.body_order[s];
      if (!net_node_[i]) continue;
      any = true;
      in_island_[i] = 1;
      add_node(i, share);
    }
    if (!any) continue;
    const double delta = book(share);
    IslandSolution& r = isl_.solution[k];
    SolverStats& first = r.collisions > 0 ? r.stats : r.resting_stats;
    if (delta < 0.0) {  // the contacts pushed along the kick: the solver booked too little
      first.dissipated_restitution -= delta;
      continue;
    }
    double left = take_dissipation(r.stats, delta);
    left = take_dissipation(r.resting_stats, left);
    ledger_.integration -= left;
  }
  KickShare free;
  for (const Net& n : nets)
    for (int i : n.nodes)
      if (bodies.is_dynamic(i) && !in_island_[i]) add_node(i, free);
  ledger_.integration -= book(free);
  // The dashpots' column never decreases over a step (their kick removed energy; the split
  // above only moves it between nodes): a shortfall is the discretisation's.
  if (const double drop = net_damping_start_ - ledger_.net_damping; drop > 0.0) {
    ledger_.net_damping += drop;
    ledger_.integration -= drop;
  }
}

}  // namespace etdem
