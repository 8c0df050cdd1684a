// Triangle meshes from files: STL (ASCII and binary) and Wavefront OBJ, read with the Open Asset
// Import Library (assimp). Polygons are triangulated and identical vertices joined, so a closed
// surface comes back with shared vertices (what the closedness checks of TriangleMesh need).
// Every mesh of the file is appended to one vertex/triangle list.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct MeshData {
  std::vector<Vec3> vertices;                 // m
  std::vector<std::array<int, 3>> triangles;  // indices into vertices
};

struct MeshImportOptions {
  double scale = 1.0;    // x -> scale * x + offset
  Vec3 offset{0, 0, 0};  // m
};

/// Reads `path`. Throws std::runtime_error "PATH: reason" when the file cannot be read or parsed,
/// holds no triangle, has a non-finite vertex coordinate, or the scale is not finite and > 0.
MeshData import_mesh(const std::string& path, const MeshImportOptions& options = {});

}  // namespace etdem
