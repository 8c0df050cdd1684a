// A scenario's plain data: what a TOML scenario file becomes (docs/scenario.md lists every key),
// with the few functions of that data alone (step count, the planes of a box wall). The loader
// that reads and validates it and builds its world is io/scenario.hpp; code that only reads a
// scenario includes this header.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/world/net.hpp"
#include "etdem/world/settings.hpp"

namespace etdem {

/// What the file said about a shape beyond its geometry (Scenario::shape_sources, indexed like
/// Scenario::shapes).
/// [m] largest coordinate a position or vertex may have: a scene 10^12 m across has no grain
/// double precision can resolve (positions keep ~16 digits; contacts need the grain's size to
/// many of them).
inline constexpr double kMaxCoordinate = 1e12;

struct ShapeSource {
  std::string file;                // mesh file as given ("" = none): a polyhedron's hull, a
                                   // compound's tetrahedral mesh
  std::vector<std::string> notes;  // compound from a file: what import and merging did
  int line = 0;                    // line of the [[shape]] table (0 = unknown)
};

struct BodySpec {
  int shape = 0;                        // index into Scenario::shapes
  int material = 0;                     // index into Scenario::materials
  Vec3 position{0, 0, 0};               // [m] centre of mass
  Quat orientation = Quat::Identity();  // body -> world (polyhedron, compound: the input frame)
  Vec3 velocity{0, 0, 0};               // [m/s]
  Vec3 angular_velocity{0, 0, 0};       // [rad/s] world frame
  bool fixed = false;
  std::string name;
  int line = 0;
};

/// A generated packing: `count` grains on a lattice inside `region` (see fill.hpp).
struct FillSpec {
  int shape = 0;
  int material = 0;
  long count = 0;
  Vec3 min{0, 0, 0}, max{0, 0, 0};  // [m] region holding the whole grains
  std::uint64_t seed = 1;
  double spacing = 0.0;  // [m] lattice spacing (resolved; default 1.2 x size)
  double jitter = 0.1;   // fraction of the free space of a lattice site, [0, 1]
  bool random_orientation = true;
  Vec3 velocity{0, 0, 0};  // [m/s] of every grain
  int line = 0;
};

struct WallSpec {
  enum class Type { Plane, Box, Mesh, Terrain };
  Type type = Type::Plane;
  std::string name;  // plane: its name; box: prefix of its planes NAME.floor, NAME.left, ...
  int material = 0;
  Vec3 point{0, 0, 0}, normal{0, 0, 1};  // plane; the normal is unit and points to the free side
  Vec3 min{0, 0, 0}, max{0, 0, 0};       // box container [m]
  bool closed = false;                   // box: add NAME.top
  std::string file;                      // mesh, terrain: as given (relative to the scenario)
  double scale = 1.0;                    // mesh: x -> scale x + offset; terrain: z factor
  Vec3 offset{0, 0, 0};                  // mesh, terrain [m]
  bool inward = false;                   // mesh: a closed mesh faces inwards (a closed bin)
  std::shared_ptr<const TriangleMesh> mesh;  // mesh: read and checked, world coordinates
  int raster_band = 1;                       // terrain: GDAL band number
  std::optional<std::array<long, 4>> crop;   // terrain: pixel window [column, row, columns, rows]
  double spacing = 0.0;                      // terrain: grid spacing h [m] (resolved)
  double band = 0.0;                         // terrain: narrow band [m] (resolved)
  std::shared_ptr<const Terrain> terrain;    // terrain: built, world coordinates
  int line = 0;
};

/// A flexible net ([[net]], io/net_input.cpp): nu x nv sphere nodes linked by springs.
struct NetSpec {
  std::string name;
  NetPattern pattern = NetPattern::Square;
  Vec3 origin{0, 0, 0};                   // [m] node (0, 0)
  Vec3 axis_u{1, 0, 0}, axis_v{0, 1, 0};  // unit, orthogonal
  int nu = 0, nv = 0;                     // nodes along u and v
  double spacing = 0.0;                   // [m] node distance (a link's length at the start)
  double node_radius = 0.0;               // [m]
  int material = 0;                       // index into Scenario::materials
  int shape = -1;                         // the nodes' sphere shape ("NAME.node")
  double stiffness = 0.0;                 // [N/m] per link
  double damping = 0.0;                   // damping ratio zeta of a link
  std::array<bool, 4> clamp{};            // edges u0, u1, v0, v1 held fixed
  double prestrain = 0.0;                 // rest length = spacing / (1 + prestrain)
  double break_strain = 0.0;              // 0 = links never break
  int line = 0;
};

struct EventSpec {
  double time = 0.0;   // [s]
  std::string remove;  // name of a wall plane, a container (all its planes) or a named body
  int line = 0;
};

struct OutputSettings {
  std::string directory;  // "" = out/<scenario stem>
  long every = 0;         // VTK frames every N steps, 0 = none
  long state_every = 0;   // state_NNNNNN.csv every N steps, 0 = only the final state.csv
  long energy_every = 1;  // energy.csv row every N steps
  bool vtk = true;        // write VTK frames when every > 0
  enum class VtkFormat { Binary, Ascii };
  enum class VtkCompression { None, Zlib };
  VtkFormat vtk_format = VtkFormat::Binary;               // io/vtk_xml.hpp
  VtkCompression vtk_compression = VtkCompression::None;  // zlib: binary frames only
  long checkpoint_every = 0;  // checkpoints/checkpoint_SSSSSS.bin every N steps, 0 = none
  long checkpoint_keep = 2;   // the last K checkpoints are kept
};

struct Scenario {
  std::string file;  // as given, printed in messages
  std::string stem;  // file name without directory and extension
  WorldSettings settings;
  double duration = 0.0;  // [s]
  std::vector<Material> materials;
  /// The [[shape]]s, built and checked, in file order; a compound from a mesh file is preceded
  /// by its hidden parts "NAME.partK". build_world copies the table, so indices stay valid.
  ShapeTable shapes;
  std::vector<ShapeSource> shape_sources;
  std::vector<BodySpec> bodies;
  std::vector<FillSpec> fills;
  std::vector<WallSpec> walls;
  std::vector<EventSpec> events;
  std::vector<NetSpec> nets;
  OutputSettings output;
  /// Hash of the scenario's content after overrides (scenario_content_hash): a checkpoint
  /// resumes only the scenario it was written from.
  std::uint64_t content_hash = 0;

  /// Number of steps the run takes: duration / dt rounded up (a duration within 1e-9 of a whole
  /// number of steps is not rounded up).
  long steps() const;
  /// Bodies that are not walls: explicit bodies plus every filled grain.
  long grain_count() const;
  /// Bodies the walls create (a plane, a mesh or a terrain makes 1, a box 5, or 6 when closed).
  int plane_count() const;
};

/// Number of steps of `dt` that cover `duration`: rounded up, except that a duration within 1e-9
/// of a whole number of steps is not rounded up; at least 1.
long steps_for(double duration, double dt);

/// Where a body of the built world came from. build_world adds the explicit bodies, then each
/// fill's grains, then the bodies of the walls in file order (a plane or a mesh: one; a box: its
/// planes in box_planes() order), then the nodes of each net (u fastest); ids in the outputs
/// follow that order.
struct BodyOrigin {
  enum class Kind { Body, Fill, Wall, Net };
  Kind kind = Kind::Body;
  int index = 0;  // into Scenario::bodies, fills, walls or nets
  long item = 0;  // fill: grain number; wall: plane number (box_planes order); net: node; body: 0
};

/// One plane of a box container: its name, a point, the normal into the box and the face as a
/// quad (for drawing).
struct BoxPlane {
  std::string name;
  Vec3 point{0, 0, 0}, normal{0, 0, 1};
  std::array<Vec3, 4> quad;
};

/// The planes of a box wall, in the one order used everywhere: floor, left, right, front, back,
/// then top when closed.
std::vector<BoxPlane> box_planes(const WallSpec& wall);

/// Names of the bodies a wall creates (planes, or the one mesh), in the order build_world adds
/// them.
std::vector<std::string> wall_plane_names(const WallSpec& wall);

}  // namespace etdem
