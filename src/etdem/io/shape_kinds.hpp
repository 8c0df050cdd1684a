// The [[shape]] readers: one per shape type a body can have, reading its table into the shape
// table. Everything else the engine asks of a shape type (mass properties, thinnest extent, the
// frame its input was written in, its surface nodes, what draws it, ...) is its record,
// shapes/shape_kind.hpp; its contacts are the pair table's (collision/collide.cpp); its VTK block
// is a line of io/vtk_writer.cpp. A new shape type here is its reader and one line in
// shape_kinds.cpp.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/io/scenario_spec.hpp"
#include "etdem/io/toml_reader.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

/// What the reader of a [[shape]] table is given.
struct ShapeReadContext {
  ShapeTable& shapes;            // the shapes so far (parts refer to them); the reader adds to it
  std::set<std::string>& names;  // shape names taken (hidden parts add theirs)
  std::string scenario_file;     // files named in the table are relative to its directory
};

/// The reader of the [[shape]] tables of one shape type.
struct ShapeReader {
  ShapeType type;  // the table's `type` is its name, shape_type_name(type)
  /// Reads the keys of a [[shape]] table of this type (`type` and `name` are read) and adds the
  /// shape to ctx.shapes; fails through `r`.
  void (*read)(const TomlReader& r, const std::string& name, ShapeSource& source,
               ShapeReadContext& ctx);
};

/// The reader of the [[shape]] tables whose `type` is `name`; nullptr for none (walls: planes,
/// meshes and terrains are [[wall]] types).
const ShapeReader* find_shape_reader(std::string_view name);
/// The [[shape]] types, in ShapeType order.
std::vector<std::string> shape_reader_names();

/// The shape named by `key` of table `r` ([[shape]] names and hidden compound parts); an unknown
/// name fails through `r`, listing the known.
int read_shape_name(const ShapeTable& shapes, const TomlReader& r, std::string_view key);

/// `file` as named in a scenario: relative to the scenario file's directory unless absolute.
std::string resolve_scenario_path(const std::string& scenario_file, const std::string& file);

}  // namespace etdem
