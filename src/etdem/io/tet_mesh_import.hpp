// Tetrahedral meshes from files, read by the strict readers here (docs/scenario.md, "Mesh files";
// the format is decided by the content, mesh_format.hpp):
//   - a volume mesh, Gmsh MSH 2.2 or 4.1 ASCII or legacy VTK ASCII unstructured grid: its linear
//     tetrahedra (a quadratic tetrahedron gives its corners);
//   - a closed surface (.stl ASCII or binary, .obj; read as mesh walls are, and checked closed
//     and manifold by TriangleMesh): tetrahedralised by Gmsh's Delaunay mesher, which is handed
//     the validated triangles through its API (never a user file), without refinement (mesh size
//     larger than the body), so the surface triangles are kept and few interior nodes are added.
// Gmsh keeps global state and is not thread-safe: calls are serialised by a mutex, and Gmsh is
// initialised and finalised around each one. Its terminal output is switched off.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "etdem/io/mesh_import.hpp"
#include "etdem/shapes/tet_merge.hpp"

namespace etdem {

struct TetMeshImport {
  TetMesh mesh;                    // m, after scale
  bool generated = false;          // tetrahedralised from a surface
  std::vector<std::string> notes;  // what was done to the input (surface turned, nodes added)
};

/// Reads `path` (scale multiplies every coordinate). Throws std::runtime_error "PATH: reason" for
/// a missing or unreadable file, a volume file without tetrahedra, an open, non-manifold or flat
/// surface, a failed tetrahedralisation, or a bad mesh (check_tet_mesh's reasons).
TetMeshImport import_tet_mesh(const std::string& path, double scale = 1.0);

/// The tetrahedra and nodes held by `bytes` in `format` (Msh or Vtk), unchecked (see
/// check_tet_mesh). Throws std::invalid_argument "line N: reason".
TetMesh parse_volume_mesh(std::string_view bytes, MeshFormat format);

/// Tetrahedralises a closed surface (what import_tet_mesh does for .stl/.obj).
TetMesh tetrahedralise(const MeshData& surface);

}  // namespace etdem
