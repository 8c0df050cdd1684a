// shapes.json: the surface nodes of every grain shape in its body frame (centre of mass at the
// origin, principal axes), so a run's state.csv can be turned back into surface points without
// the scenario: the angle of repose takes the highest node over each grid cell (ETM 2014 §7.4,
// "the highest nodes identified in each of the sixteen cells"). Nodes are a box's 8 corners, a
// polyhedron's vertices and a compound's parts' nodes; a sphere has no corner, so its top point
// (centre + radius along world +z) stands for it and it is kept as a (centre, radius) pair.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/shapes/shape_kind.hpp"

namespace etdem {

/// A shape's entry of shapes.json: its type and its surface nodes in its body frame (nodes [m];
/// balls: sphere parts' centre [m] and radius [m]).
struct ShapeNodes : SurfaceNodes {
  std::string type;     // sphere | box | polyhedron | compound | levelset
  double volume = 0.0;  // [m^3] of the shape (0: unknown, shapes.json written before it was)
  std::string net;      // the [[net]] whose nodes have this shape; empty for a grain shape
};

/// The nodes of shape `s` of the table (planes and meshes have none).
ShapeNodes shape_nodes(const ShapeTable& shapes, int s);

/// Writes every grain shape's nodes, keyed by shape name; throws InputError when it cannot.
/// `net_of[s]`, when given, names the [[net]] whose nodes have shape s (written as "net", so
/// the deposit analyses can leave a net's nodes out); empty for grain shapes.
void write_shapes_json(const std::string& path, const ShapeTable& shapes,
                       const std::vector<std::string>& net_of = {});

/// Reads shapes.json back; throws InputError naming the file and the shape when malformed.
std::map<std::string, ShapeNodes> read_shapes_json(const std::string& path);

/// World points of a grain: each node turned by q and moved to x; each ball's top point.
void append_surface_points(const ShapeNodes& shape, const Vec3& x, const Quat& q,
                           std::vector<Vec3>& out);

}  // namespace etdem
