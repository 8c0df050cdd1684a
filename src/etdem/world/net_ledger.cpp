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
//
// Every group's sums and the islands' shares are summed exactly (core/exact_sum): the same bits
// in any order of nodes and islands, so a run split over ranks (world/domain.hpp)
// books an island's share on the rank that solves it, the free nodes' on their owners, and
// reduces them to the serial run's bits.
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

/// A group's share: what the kick's columns keep, the links' work on the real velocities
/// (`integration`: the springs', `damping`: the dashpots', never below zero); returns what the
/// other columns must give back (> 0: booked as dissipation by the solver).
double group_share(const NetShare& share, double& integration, double& damping) {
  const double spring = share.spring.value(), removed = share.removed.value();
  const double dashpot_w = share.dashpot_w.value();
  const double dissipated = std::max(-dashpot_w, 0.0);
  integration = spring - (dissipated + dashpot_w);
  damping = dissipated - removed;
  return spring - dashpot_w - removed;
}

}  // namespace

void World::add_net_node(int i, const Vec3& v_after, NetShare& share) const {
  const Vec3& v0 = net_before_[i];
  const Vec3 sp = net_springs_[i] - v0, dp = net_kicked_[i] - net_springs_[i];
  // (v_start + v2) / 2, v_start before gravity's kick (which the contacts take back too).
  const Vec3 mean = 0.5 * (v0 - net_kick_h_ * settings.gravity + v_after);
  const double m = bodies.mass[i];
  share.spring += m * (sp.dot(v0 + 0.5 * sp) - sp.dot(mean));
  share.removed += -(m * dp.dot(net_springs_[i] + 0.5 * dp));
  share.dashpot_w += m * dp.dot(mean);
}

void World::book_net_island(const NetShare& share, IslandSolution& r, NetBooking& out) {
  double integration = 0.0, damping = 0.0;
  const double delta = group_share(share, integration, damping);
  out.islands_integration += integration;
  out.islands_damping += damping;
  SolverStats& first = r.collisions > 0 ? r.stats : r.resting_stats;
  if (delta < 0.0) {  // the contacts pushed along the kick: the solver booked too little
    first.dissipated_restitution -= delta;
    return;
  }
  double left = take_dissipation(r.stats, delta);
  left = take_dissipation(r.resting_stats, left);
  out.islands_integration += -left;
}

void World::book_net_contacts(const Islands& islands, const std::vector<Motion>& motion) {
  NetBooking& booking = sums_.nets;
  for (int k = 0; k < islands.count(); ++k) {
    NetShare share;
    bool any = false;
    for (int s = islands.body_start[k]; s < islands.body_start[k + 1]; ++s) {
      const int i = islands.body_order[s];
      if (!net_node_[i]) continue;
      any = true;
      add_net_node(i, bodies.velocity[i], share);
    }
    if (any) book_net_island(share, isl_.solution[k], booking);
  }
  for (const Net& n : nets)
    for (int i : n.nodes)
      if (bodies.is_dynamic(i) && motion[i].free) add_net_node(i, bodies.velocity[i], booking.free);
}

void World::book_nets(const NetBooking& booking) {
  ledger_.integration += booking.islands_integration.value();
  ledger_.net_damping += booking.islands_damping.value();
  double integration = 0.0, damping = 0.0;
  const double delta = group_share(booking.free, integration, damping);
  ledger_.integration += integration;
  ledger_.net_damping += damping;
  ledger_.integration -= delta;
  // The dashpots' column never decreases over a step (their kick removed energy; the split
  // above only moves it between nodes): a shortfall is the discretisation's.
  if (const double drop = net_damping_start_ - ledger_.net_damping; drop > 0.0) {
    ledger_.net_damping += drop;
    ledger_.integration -= drop;
  }
}

}  // namespace etdem
