// Triangle meshes from files: STL (ASCII and binary) and Wavefront OBJ, read by the strict readers
// here (docs/scenario.md, "Mesh files"). The format is decided by the file's content
// (mesh_format.hpp) and the extension must agree. Polygons are triangulated as fans and vertices
// at exactly the same position joined, so a closed surface comes back with shared vertices (what
// the closedness checks of TriangleMesh need). Coordinates are single precision, as STL stores
// them. Every solid or object of the file is appended to one vertex/triangle list.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/io/mesh_format.hpp"

namespace etdem {

struct MeshData {
  std::vector<Vec3> vertices;                 // m
  std::vector<std::array<int, 3>> triangles;  // indices into vertices
};

struct MeshImportOptions {
  double scale = 1.0;    // x -> scale * x + offset
  Vec3 offset{0, 0, 0};  // m
};

/// Reads `path`. Throws std::runtime_error "PATH: reason" (one line) when the file cannot be read
/// (read_mesh_file), is not an STL or OBJ file by its content, is named after another format, is
/// malformed (the reason names the line), holds no triangle, has a non-finite vertex coordinate,
/// or the scale is not finite and > 0.
MeshData import_mesh(const std::string& path, const MeshImportOptions& options = {});

/// The surface held by `bytes` in `format` (StlAscii, StlBinary or Obj). Throws
/// std::invalid_argument "line N: reason" (or "triangle K: reason" for binary STL).
MeshData parse_surface_mesh(std::string_view bytes, MeshFormat format,
                            const MeshImportOptions& options = {});

}  // namespace etdem
