// The nets on the ranks of a split run (distributed/decomposed_world.hpp): every rank keeps the
// whole world's nets on its copy of the whole world (`full_`). The nodes' positions and
// velocities come from their owners, the links are the same bits everywhere, so every rank
// computes the serial kick, the serial links and the serial elastic energy.
#include "etdem/distributed/decomposed_world.hpp"

namespace etdem::distributed {

void DecomposedWorld::share_net_nodes(bool velocities) {
  World& w = local_;
  ByteWriter out;
  for (int l = 0; l < w.bodies.count(); ++l) {
    if (!owned_[l] || !full_.is_net_node(static_cast<int>(gid_[l]))) continue;
    out.put(gid_[l]);
    out.put(w.bodies.position[l]);
    if (velocities) out.put(w.bodies.velocity[l]);
  }
  const std::string bytes = out.take();
  std::vector<Message> outgoing;
  for (int r = 0; r < t_.size(); ++r) outgoing.push_back({r, bytes});
  for (const Message& m : t_.exchange(std::move(outgoing))) {
    ByteReader in(m.bytes);
    while (!in.done()) {
      const auto gid = in.get<std::int64_t>();
      in.get(full_.bodies.position[gid]);
      if (velocities) in.get(full_.bodies.velocity[gid]);
    }
  }
}

void DecomposedWorld::kick_nets(World& w, SubstepSums& sums) {
  // The serial kick (World::kick_nets) after gravity's, on the nodes as their owners have them.
  if (full_.nets.empty()) return;
  share_net_nodes(true);
  sums.net_kicks = full_.kick_nets(w.substep_length());
  for (int l = 0; l < w.bodies.count(); ++l)
    if (full_.is_net_node(static_cast<int>(gid_[l])))  // ghosts too
      w.bodies.velocity[l] = full_.bodies.velocity[gid_[l]];
}

double DecomposedWorld::net_elastic_energy(World&) {
  share_net_nodes(false);  // the positions of the sub-step's end
  return full_.net_elastic_energy();
}

}  // namespace etdem::distributed
