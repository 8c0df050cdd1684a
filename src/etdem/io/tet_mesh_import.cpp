#include "etdem/io/tet_mesh_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>
#include <gmsh.h>

#include "etdem/shapes/triangle_mesh.hpp"

namespace etdem {

namespace {

std::mutex gmsh_mutex;

/// Gmsh initialised for one call, quiet, errors thrown (as std::string), finalised on exit.
class GmshSession {
 public:
  GmshSession() : lock_(gmsh_mutex) {
    gmsh::initialize(0, nullptr, false);
    gmsh::option::setNumber("General.Terminal", 0);
    gmsh::option::setNumber("General.Verbosity", 0);
    gmsh::option::setNumber("General.AbortOnError", 2);
  }
  ~GmshSession() { gmsh::finalize(); }
  GmshSession(const GmshSession&) = delete;
  GmshSession& operator=(const GmshSession&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
};

/// The current model's tetrahedra (linear; a quadratic one gives its 4 corners) and their nodes.
TetMesh model_tetrahedra() {
  std::vector<std::size_t> node_tags;
  std::vector<double> coords, parametric;
  gmsh::model::mesh::getNodes(node_tags, coords, parametric, -1, -1, false, false);
  TetMesh m;
  std::unordered_map<std::size_t, int> index;
  for (std::size_t k = 0; k < node_tags.size(); ++k) {
    index.emplace(node_tags[k], static_cast<int>(m.nodes.size()));
    m.nodes.emplace_back(coords[3 * k], coords[3 * k + 1], coords[3 * k + 2]);
  }
  // Gmsh element types: 4 = 4-node tetrahedron, 11 = 10-node, 29 = 20-node, 30 = 35-node; the
  // corners come first in each.
  for (const auto& [type, per] : {std::pair{4, 4}, {11, 10}, {29, 20}, {30, 35}}) {
    std::vector<std::size_t> tags, nodes;
    gmsh::model::mesh::getElementsByType(type, tags, nodes);
    for (std::size_t e = 0; e < tags.size(); ++e) {
      std::array<int, 4> t{};
      for (int a = 0; a < 4; ++a) {
        const auto it = index.find(nodes[per * e + a]);
        if (it == index.end())
          throw std::runtime_error(fmt::format("tetrahedron {} refers to a missing node", tags[e]));
        t[a] = it->second;
      }
      m.tets.push_back(t);
    }
  }
  return m;
}

/// Drops the nodes no tetrahedron uses (Gmsh files often hold surface-only or geometry nodes).
void drop_unused_nodes(TetMesh& m) {
  std::vector<int> id(m.nodes.size(), -1);
  std::vector<Vec3> kept;
  for (auto& t : m.tets)
    for (int& k : t) {
      if (id[k] < 0) {
        id[k] = static_cast<int>(kept.size());
        kept.push_back(m.nodes[k]);
      }
      k = id[k];
    }
  m.nodes = std::move(kept);
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

TetMesh tetrahedralise(const MeshData& surface) {
  // The surface must bound a solid: closed, manifold, consistently oriented, with volume.
  const TriangleMesh closed =
      TriangleMesh::build(surface.vertices, surface.triangles, TriangleMesh::Facing::Outward);
  if (!closed.closed)
    throw std::invalid_argument(
        "the surface is not closed (an edge belongs to one triangle only): a solid needs a closed "
        "surface");
  const double size = (closed.hi - closed.lo).norm();
  GmshSession session;
  try {
    gmsh::model::add("etdem");
    gmsh::model::addDiscreteEntity(2, 1);
    std::vector<std::size_t> tags(closed.vertices.size());
    std::vector<double> coords;
    coords.reserve(3 * closed.vertices.size());
    for (std::size_t k = 0; k < closed.vertices.size(); ++k) {
      tags[k] = k + 1;
      coords.insert(coords.end(),
                    {closed.vertices[k].x(), closed.vertices[k].y(), closed.vertices[k].z()});
    }
    gmsh::model::mesh::addNodes(2, 1, tags, coords);
    std::vector<std::size_t> tri;
    tri.reserve(3 * closed.triangles.size());
    for (const auto& t : closed.triangles)
      for (int k : t) tri.push_back(static_cast<std::size_t>(k) + 1);
    gmsh::model::mesh::addElementsByType(1, 2, {}, tri);
    const int loop = gmsh::model::geo::addSurfaceLoop({1});
    gmsh::model::geo::addVolume({loop});
    gmsh::model::geo::synchronize();
    // No refinement: the mesh size exceeds the body, so the surface triangles stay as they are
    // and the Delaunay mesher adds only the interior nodes it needs.
    gmsh::option::setNumber("Mesh.MeshSizeMin", 10.0 * size);
    gmsh::option::setNumber("Mesh.MeshSizeMax", 10.0 * size);
    gmsh::option::setNumber("Mesh.MeshSizeExtendFromBoundary", 0);
    gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
    gmsh::option::setNumber("Mesh.Optimize", 0);
    gmsh::model::mesh::generate(3);
    TetMesh m = model_tetrahedra();
    drop_unused_nodes(m);
    if (m.tets.empty()) throw std::invalid_argument("Gmsh made no tetrahedra of the surface");
    return m;
  } catch (const std::string& gmsh_error) {
    throw std::invalid_argument("Gmsh could not tetrahedralise the surface: " + gmsh_error);
  }
}

TetMeshImport import_tet_mesh(const std::string& path, double scale) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: {}", path, why));
  };
  if (!(std::isfinite(scale) && scale > 0.0)) fail("scale must be finite and > 0");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail("no such file");
  TetMeshImport out;
  const std::string ext = lower_extension(path);
  if (ext == ".stl" || ext == ".obj") {
    const MeshData surface = import_mesh(path, {scale, Vec3::Zero()});
    try {
      out.mesh = tetrahedralise(surface);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    out.generated = true;
    out.notes.push_back(
        fmt::format("tetrahedralised by Gmsh: {} triangles -> {} tetrahedra, {} "
                    "nodes ({} added inside)",
                    surface.triangles.size(), out.mesh.tets.size(), out.mesh.nodes.size(),
                    out.mesh.nodes.size() - surface.vertices.size()));
  } else {
    GmshSession session;
    try {
      gmsh::open(path);
      out.mesh = model_tetrahedra();
    } catch (const std::string& gmsh_error) {
      fail("not a mesh Gmsh can read: " + gmsh_error);
    } catch (const std::runtime_error& e) {
      fail(e.what());
    }
    if (out.mesh.tets.empty())
      fail(
          "the file holds no tetrahedra (a volume mesh is needed; a closed surface can be given "
          "as .stl or .obj)");
    drop_unused_nodes(out.mesh);
    for (Vec3& v : out.mesh.nodes) v *= scale;
  }
  try {
    check_tet_mesh(out.mesh);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  return out;
}

}  // namespace etdem
