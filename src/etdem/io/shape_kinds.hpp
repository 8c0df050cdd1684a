// The shape registry of the io layer: one record per shape type with everything input and
// output need to know about it: how a [[shape]] table of that type is read, the frame its input
// was written in, its state.csv columns, its surface nodes (shapes.json, angle of repose) and how
// a VTK frame draws it. The geometry itself (mass properties, bounding radius, thinnest extent)
// is the shape table's (shapes/shape.hpp), the contacts the pair table's (collision/collide.cpp).
// A new shape type is its own files, its pair functions and one line in shape_kinds.cpp.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/shape_nodes.hpp"
#include "etdem/io/toml_reader.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

/// What the reader of a [[shape]] table is given.
struct ShapeReadContext {
  ShapeTable& shapes;            // the shapes so far (parts refer to them); the reader adds to it
  std::set<std::string>& names;  // shape names taken (hidden parts add theirs)
  std::string scenario_file;     // files named in the table are relative to its directory
};

/// What one VTK frame draws (vtk_writer.cpp), each piece carrying the id of its body.
struct DrawPieces {
  struct Sphere {
    int body;
    Vec3 centre;
    double radius;
  };
  struct Hull {
    int body;
    const ConvexPolyhedron* hull;
    Vec3 position;
    Mat3 rotation;
  };
  struct Surface {
    int body;
    const SurfaceMesh* mesh;  // body frame
    Vec3 position;
    Mat3 rotation;
  };
  // One list per block of the frames (io/vtk_writer.hpp).
  std::vector<Sphere> spheres;           // spheres
  std::vector<int> boxes;                // boxes (hexahedra)
  std::vector<Hull> polyhedra;           // polyhedra
  std::vector<Hull> compounds;           // compounds: box and polyhedron parts
  std::vector<Sphere> compound_spheres;  // compound_spheres: sphere parts
  std::vector<Surface> surfaces;         // level_sets (zero contours of level-set grains)
  std::vector<int> meshes;               // meshes (static)
  std::vector<int> terrains;             // terrain (static)
};

struct ShapeKind {
  ShapeType type;
  /// Reads the keys of a [[shape]] table of this type (`type` and `name` are read) and adds the
  /// shape to ctx.shapes; fails through `r`. nullptr: not a [[shape]] type (a wall).
  void (*read)(const TomlReader& r, const std::string& name, ShapeSource& source,
               ShapeReadContext& ctx);
  bool part;  // may be a part of a compound
  /// Rotation from the body frame to the frame the input (vertices, parts) was written in.
  Quat (*input_rotation)(const ShapeTable& shapes, int s);
  /// state.csv: the radius column (a sphere's radius, else the bounding radius) and the half
  /// extents (a box's, else zero).
  void (*state_columns)(const ShapeTable& shapes, int s, double& radius, Vec3& half_extents);
  /// Surface nodes of shape s placed at `at`, turned by `turn` (shape_nodes.hpp); nullptr for
  /// walls, which have none.
  void (*nodes)(const ShapeTable& shapes, int s, const Vec3& at, const Mat3& turn, ShapeNodes& out);
  /// The pieces drawing body `body` of shape s at position x and rotation r; nullptr: not drawn
  /// with the bodies (planes: the container quads).
  void (*draw)(const ShapeTable& shapes, int s, int body, const Vec3& x, const Mat3& r,
               DrawPieces& out);
};

/// The record of a shape type.
const ShapeKind& shape_kind(ShapeType t);
/// The record whose [[shape]] `type` is `name`; nullptr for none.
const ShapeKind* find_shape_kind(std::string_view name);
/// The [[shape]] types, in registry order.
std::vector<std::string> shape_kind_names();

/// The shape named by `key` of table `r` ([[shape]] names and hidden compound parts); an unknown
/// name fails through `r`, listing the known.
int read_shape_name(const ShapeTable& shapes, const TomlReader& r, std::string_view key);

/// `file` as named in a scenario: relative to the scenario file's directory unless absolute.
std::string resolve_scenario_path(const std::string& scenario_file, const std::string& file);

}  // namespace etdem
