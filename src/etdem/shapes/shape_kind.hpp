// The shape kinds: one record per shape type holding what the engine asks of a shape outside its
// own geometry code and its pair functions (collision/collide.cpp): its name, its mass
// properties and thinnest extent, whether it is tested apart from the broad-phase grid, whether
// it is a ball or a flat wall (the rules of sleep, sub-steps, rolling and missed pairs that
// depend on it), whether its pairs keep near-node lists, and the plain data input and output
// read from it: the frame its input was written in, a box's half extents, its surface nodes and
// the pieces that draw it. The file formats stay in io: the [[shape]] readers
// (io/shape_kinds.cpp) and the VTK blocks (io/vtk_writer.cpp). A new shape type is its files in
// shapes/, its value of ShapeType (at the end, before Count) and its record in shape_kind.cpp,
// its array and add_ function in the shape table (shape.hpp), its pair functions in collision/,
// and in io its reader and its blocks (docs/design.md "Where to add ...").
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "etdem/core/mass_properties.hpp"
#include "etdem/core/math.hpp"

namespace etdem {

struct ShapeTable;
struct ConvexPolyhedron;
struct SurfaceMesh;

enum class ShapeType : int {
  Sphere = 0,
  Plane,
  Box,
  Polyhedron,
  Compound,
  Mesh,
  LevelSet,
  Terrain,
  Count
};
inline constexpr int kShapeTypeCount = static_cast<int>(ShapeType::Count);

/// Surface nodes of a grain placed in some frame: points, and (centre, radius) for the round
/// parts, which have no corner to stand for them (io/shape_nodes.hpp).
struct SurfaceNodes {
  std::vector<Vec3> nodes;                     // m
  std::vector<std::pair<Vec3, double>> balls;  // centre [m], radius [m]
};

/// The pieces that draw a grain, posed in the world (io/vtk_writer.cpp puts each list of each
/// shape type in a block of its own).
struct ShapeDrawing {
  struct Ball {
    Vec3 centre;
    double radius;
  };
  struct Box {
    Vec3 position;
    Mat3 rotation;
    Vec3 half_extents;
  };
  struct Hull {
    const ConvexPolyhedron* hull;  // body frame of the piece
    Vec3 position;
    Mat3 rotation;
  };
  struct Surface {
    const SurfaceMesh* mesh;  // body frame
    Vec3 position;
    Mat3 rotation;
  };
  std::vector<Ball> balls;
  std::vector<Box> boxes;
  std::vector<Hull> hulls;
  std::vector<Surface> surfaces;

  void clear() {
    balls.clear();
    boxes.clear();
    hulls.clear();
    surfaces.clear();
  }
};

struct ShapeKind {
  ShapeType type;
  /// "sphere", "box", ...: the [[shape]] and [[wall]] type, state.csv's shape column, messages.
  const char* name = nullptr;
  /// Mass properties at the given density (ShapeTable::mass_properties); nullptr: a static wall
  /// only (planes, meshes, terrains).
  MassProperties (*mass_properties)(const ShapeTable& t, int s, double density) = nullptr;
  /// [m] smallest thickness (ShapeTable::min_thickness); nullptr: none, as a wall (infinite).
  double (*min_thickness)(const ShapeTable& t, int s) = nullptr;
  /// Non-null for a static wall as large as the scene, kept out of the broad-phase grid and
  /// tested against every grain apart (ShapeTable::tested_apart): placed at `position` turned
  /// by `orientation`, false when no point within `reach` of `centre` can touch it (the cheap
  /// reject before the narrow phase).
  bool (*may_reach)(const ShapeTable& t, int s, const Vec3& position, const Quat& orientation,
                    const Vec3& centre, double reach) = nullptr;
  /// Non-null for a ball, the same at every orientation about its centre, with its radius.
  /// What follows from it: its rest for sleep is its centre's speed (a ball spinning in place
  /// moves nothing; docs/design.md "Sleep"), its turning asks for no sub-step ("Sub-steps"), its
  /// rolling radius is its radius ("Rolling resistance"), and its one contact point with
  /// another ball or a flat wall closes at -n.(v_a - v_b), at most the sum of the two speeds
  /// (the missed pairs' shortcut, world/substeps.cpp). Other shapes count their fastest surface
  /// point, their turning, and the lever arm to the contact point.
  double (*ball_radius)(const ShapeTable& t, int s) = nullptr;
  /// A flat wall (a plane): a ball's gap to it is its centre's distance less its radius, so a
  /// ball closes on it at most at the ball's own speed.
  bool flat = false;
  /// Pairs of two grains of this kind keep near-node lists from one narrow phase to the next
  /// (docs/design.md "Near-node lists").
  bool node_lists = false;
  /// May be a part of a compound (shapes/compound.hpp).
  bool part = false;
  /// Rotation from the body frame to the frame the input (vertices, parts) was written in.
  Quat (*input_rotation)(const ShapeTable& t, int s) = nullptr;
  /// A box's half extents along its body axes (state.csv hx, hy, hz); nullptr: zero.
  Vec3 (*half_extents)(const ShapeTable& t, int s) = nullptr;
  /// Surface nodes of shape s placed at `at`, turned by `turn` (shapes.json, the angle of
  /// repose); nullptr for walls, which have none: what makes a shape a grain's.
  void (*nodes)(const ShapeTable& t, int s, const Vec3& at, const Mat3& turn,
                SurfaceNodes& out) = nullptr;
  /// The pieces drawing shape s at position x and rotation r; nullptr for walls, which their own
  /// blocks draw whole.
  void (*draw)(const ShapeTable& t, int s, const Vec3& x, const Mat3& r,
               ShapeDrawing& out) = nullptr;
};

/// The records, in ShapeType order (shape_kind.cpp).
extern const std::array<ShapeKind, kShapeTypeCount> kShapeKinds;

/// The record of shape type t.
inline const ShapeKind& shape_kind(ShapeType t) {
  return kShapeKinds[static_cast<std::size_t>(t)];
}

/// "sphere", "box", ...; "unknown" for a value out of range.
const char* shape_type_name(ShapeType t);

}  // namespace etdem
