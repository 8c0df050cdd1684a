// A solver's statistics as bytes (core/byte_stream.hpp): every field, in one fixed order. A
// checkpoint keeps them; the members of a team solving an island together send each other those
// of the collision groups each solved (world/collision_groups.hpp).
#pragma once

#include "etdem/core/byte_stream.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem {

inline void put_stats(ByteWriter& out, const SolverStats& s) {
  out.put(s.iterations), out.put(s.rounds), out.put(s.guards_fired);
  out.put(s.approaching_left), out.put(s.friction_fallbacks), out.put(s.energy_guards);
  out.put(s.dissipated_restitution), out.put(s.dissipated_friction), out.put(s.truncated);
  out.put(s.integration), out.put(s.shock_bound_reached);
  out.put(s.blocked_islands), out.put(s.block_leftovers);
}

inline void get_stats(ByteReader& in, SolverStats& s) {
  in.get(s.iterations), in.get(s.rounds), in.get(s.guards_fired);
  in.get(s.approaching_left), in.get(s.friction_fallbacks), in.get(s.energy_guards);
  in.get(s.dissipated_restitution), in.get(s.dissipated_friction), in.get(s.truncated);
  in.get(s.integration), in.get(s.shock_bound_reached);
  in.get(s.blocked_islands), in.get(s.block_leftovers);
}

}  // namespace etdem
