// state.csv: the state of every dynamic body, one row each, full precision (%.17g), so a run can
// be analysed (angle of repose, runout) or compared bit for bit. Columns:
//   id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,shape,radius,hx,hy,hz,shape_name
// id is the body index in the world; shape is the shape type (sphere | box | polyhedron |
// compound) and shape_name the [[shape]] name (the key of the run's shapes.json); radius
// is the sphere radius or, for a box or polyhedron, its bounding radius about the centre of mass;
// hx, hy, hz are a box's half extents (0 for other shapes). Fixed and removed bodies are not
// listed.
#pragma once

#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

class World;

extern const char* const kStateCsvHeader;

/// Writes the state of the world's dynamic bodies; throws InputError when it cannot.
void write_state_csv(const std::string& path, const World& world);

/// state.csv read back (arrays of equal length, one entry per row).
struct StateTable {
  std::vector<long> id;
  std::vector<Vec3> position;  // [m]
  std::vector<Quat> orientation;
  std::vector<Vec3> velocity;          // [m/s]
  std::vector<Vec3> angular_velocity;  // [rad/s]
  std::vector<std::string> shape;      // sphere | box | polyhedron | compound
  std::vector<double> radius;          // [m]
  std::vector<Vec3> half_extents;      // [m], zero for spheres
  std::vector<std::string> shape_name;  // [[shape]] name; empty in files written without it

  std::size_t size() const { return id.size(); }
  /// Height of each grain's highest point above its centre [m]: the radius of a sphere, the
  /// support of the rotated box along +z for a box, the bounding radius (an upper bound) for a
  /// polyhedron.
  std::vector<double> top_offsets() const;
};

/// Reads a state.csv written by write_state_csv; throws InputError naming the file and line.
StateTable read_state_csv(const std::string& path);

}  // namespace etdem
