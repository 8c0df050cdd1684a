// Tetrahedral meshes from files, read (or generated) with the Gmsh library (Debian libgmsh-dev):
//   - a volume mesh in any format Gmsh reads (.msh versions 2 and 4, ASCII or binary, .vtk,
//     .mesh, .inp, .unv, ...): its linear tetrahedra (a quadratic tetrahedron gives its corners);
//   - a closed surface (.stl ASCII or binary, .obj; read with assimp as mesh walls are, and
//     checked closed and manifold by TriangleMesh): tetrahedralised by Gmsh's Delaunay mesher
//     without refinement (mesh size larger than the body), so the surface triangles are kept and
//     few interior nodes are added.
// Gmsh keeps global state and is not thread-safe: calls are serialised by a mutex, and Gmsh is
// initialised and finalised around each one. Its terminal output is switched off.
#pragma once

#include <string>
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

/// Tetrahedralises a closed surface (what import_tet_mesh does for .stl/.obj).
TetMesh tetrahedralise(const MeshData& surface);

}  // namespace etdem
