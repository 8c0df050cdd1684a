#include "etdem/io/tet_mesh_import.hpp"

#include <array>
#include <cmath>
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

/// Nodes of Gmsh element types 1..31 (0: unknown). The corners of a tetrahedron come first.
int gmsh_element_nodes(long long type) {
  static constexpr int kNodes[32] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                                     8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
  return type >= 1 && type <= 31 ? kNodes[type] : 0;
}

bool is_gmsh_tetrahedron(long long type) {
  return type == 4 || type == 11 || type == 29 || type == 30;
}

/// Collects nodes by tag and tetrahedra by node tags, then resolves the tags.
class TagMesh {
 public:
  void add_node(TextCursor& c, long long tag, const Vec3& x) {
    if (!index_.emplace(tag, static_cast<int>(mesh_.nodes.size())).second)
      c.fail(fmt::format("node {} is defined twice", tag));
    mesh_.nodes.push_back(x);
  }
  void add_tet(TextCursor& c, long long element, const std::array<long long, 4>& tags) {
    std::array<int, 4> t{};
    for (int a = 0; a < 4; ++a) {
      const auto it = index_.find(tags[a]);
      if (it == index_.end())
        c.fail(fmt::format("element {} refers to node {}, which $Nodes does not define", element,
                           tags[a]));
      t[a] = it->second;
    }
    mesh_.tets.push_back(t);
  }
  TetMesh take() { return std::move(mesh_); }

 private:
  std::unordered_map<long long, int> index_;
  TetMesh mesh_;
};

constexpr long long kMaxTag = (1LL << 62);

void read_msh_nodes(TextCursor& c, bool v4, TagMesh& m) {
  if (!v4) {
    const long long n = c.integer("the number of nodes", 0, kMaxTag);
    c.check_fits(static_cast<unsigned long long>(n), 8, fmt::format("{} nodes", n));
    for (long long k = 0; k < n; ++k) {
      const long long tag = c.integer("a node number", 1, kMaxTag);
      Vec3 x;
      for (int a = 0; a < 3; ++a) x[a] = c.number("a node coordinate (3 per node)");
      m.add_node(c, tag, x);
    }
    return;
  }
  const long long blocks = c.integer("the number of node blocks", 0, kMaxTag);
  const long long n = c.integer("the number of nodes", 0, kMaxTag);
  c.integer("the smallest node tag", 0, kMaxTag);
  c.integer("the largest node tag", 0, kMaxTag);
  c.check_fits(static_cast<unsigned long long>(blocks), 8, fmt::format("{} node blocks", blocks));
  c.check_fits(static_cast<unsigned long long>(n), 8, fmt::format("{} nodes", n));
  long long read = 0;
  for (long long b = 0; b < blocks; ++b) {
    const long long dim = c.integer("an entity dimension", 0, 3);
    c.integer("an entity tag", -kMaxTag, kMaxTag);
    const long long parametric = c.integer("the parametric flag", 0, 1);
    const long long count = c.integer("the number of nodes in a block", 0, kMaxTag);
    if (count > n - read)
      c.fail(fmt::format("the node blocks hold more than the {} nodes declared", n));
    c.check_fits(static_cast<unsigned long long>(count), 8, fmt::format("{} nodes", count));
    std::vector<long long> tags(static_cast<std::size_t>(count));
    for (long long& t : tags) t = c.integer("a node tag", 1, kMaxTag);
    for (long long t : tags) {
      Vec3 x;
      for (int a = 0; a < 3; ++a) x[a] = c.number("a node coordinate (3 per node)");
      for (long long p = 0; p < parametric * dim; ++p) (void)c.number("a parametric coordinate");
      m.add_node(c, t, x);
    }
    read += count;
  }
  if (read != n) c.fail(fmt::format("$Nodes declares {} nodes but its blocks hold {}", n, read));
}

void read_msh_elements(TextCursor& c, bool v4, TagMesh& m) {
  auto element = [&](long long tag, long long type) {
    const int nodes = gmsh_element_nodes(type);
    if (nodes == 0)
      c.fail(
          fmt::format("element {} has type {}, which is not a Gmsh type etdem knows "
                      "(1 to 31)",
                      tag, type));
    std::array<long long, 4> corners{};
    for (int a = 0; a < nodes; ++a) {
      const long long id = c.integer("a node of an element", 1, kMaxTag);
      if (a < 4) corners[a] = id;
    }
    if (is_gmsh_tetrahedron(type)) m.add_tet(c, tag, corners);
  };
  if (!v4) {
    const long long n = c.integer("the number of elements", 0, kMaxTag);
    c.check_fits(static_cast<unsigned long long>(n), 10, fmt::format("{} elements", n));
    for (long long k = 0; k < n; ++k) {
      const long long tag = c.integer("an element number", 1, kMaxTag);
      const long long type = c.integer("an element type", 1, kMaxTag);
      const long long tags = c.integer("the number of element tags", 0, 1000);
      for (long long t = 0; t < tags; ++t) c.integer("an element tag", -kMaxTag, kMaxTag);
      element(tag, type);
    }
    return;
  }
  const long long blocks = c.integer("the number of element blocks", 0, kMaxTag);
  const long long n = c.integer("the number of elements", 0, kMaxTag);
  c.integer("the smallest element tag", 0, kMaxTag);
  c.integer("the largest element tag", 0, kMaxTag);
  c.check_fits(static_cast<unsigned long long>(blocks), 8,
               fmt::format("{} element blocks", blocks));
  c.check_fits(static_cast<unsigned long long>(n), 4, fmt::format("{} elements", n));
  long long read = 0;
  for (long long b = 0; b < blocks; ++b) {
    c.integer("an entity dimension", 0, 3);
    c.integer("an entity tag", -kMaxTag, kMaxTag);
    const long long type = c.integer("an element type", 1, kMaxTag);
    const long long count = c.integer("the number of elements in a block", 0, kMaxTag);
    if (count > n - read)
      c.fail(fmt::format("the element blocks hold more than the {} elements declared", n));
    for (long long k = 0; k < count; ++k) element(c.integer("an element tag", 1, kMaxTag), type);
    read += count;
  }
  if (read != n)
    c.fail(fmt::format("$Elements declares {} elements but its blocks hold {}", n, read));
}

/// Gmsh MSH 2.x or 4.1, ASCII: the tetrahedra of $Elements on the nodes of $Nodes. Other
/// sections are skipped to their $End line.
TetMesh parse_msh(std::string_view text) {
  TextCursor c(text);
  c.expect("$MeshFormat");
  const std::string_view version = c.token();
  bool v4 = false;
  if (version == "4.1")
    v4 = true;
  else if (!(version == "2" || version == "2.0" || version == "2.1" || version == "2.2"))
    c.fail(
        fmt::format("MSH version '{}' is not read (2.2 and 4.1 are; gmsh -format msh22 or "
                    "msh41 writes them)",
                    printable(version, 20)));
  if (c.integer("the file type", 0, 1) == 1)
    c.fail("binary MSH is not read: save the mesh as ASCII (gmsh option Mesh.Binary = 0)");
  c.integer("the data size", 0, 64);
  c.expect("$EndMeshFormat");
  TagMesh m;
  bool nodes = false, elements = false;
  for (;;) {
    const std::string_view head = c.token();
    if (head.empty()) break;
    if (head.size() < 2 || head[0] != '$' || head.starts_with("$End"))
      c.fail_found("a section ($Nodes, $Elements, ...)", head);
    const std::string name(head.substr(1));
    if (name == "Nodes" || name == "Elements") {
      bool& seen = name == "Nodes" ? nodes : elements;
      if (seen) c.fail(fmt::format("a second ${} section", name));
      if (name == "Elements" && !nodes) c.fail("$Elements comes before $Nodes");
      seen = true;
      if (name == "Nodes")
        read_msh_nodes(c, v4, m);
      else
        read_msh_elements(c, v4, m);
      const std::string end = "$End" + name;
      const std::string_view t = c.token();
      if (t != end) {
        if (t.empty()) c.fail(fmt::format("the file ends without {}", end));
        c.fail(
            fmt::format("expected {} after the number of {} declared, found '{}' (a wrong "
                        "count, or a truncated section)",
                        end, name == "Nodes" ? "nodes" : "elements", printable(t, 30)));
      }
    } else if (!c.skip_past_line_starting("$End" + name)) {
      c.fail(fmt::format("section ${} has no $End{}", printable(name, 30), printable(name, 30)));
    } else {
      c.rest_of_line();
    }
  }
  if (!nodes) c.fail("no $Nodes section");
  if (!elements) c.fail("no $Elements section");
  return m.take();
}

/// Legacy VTK, ASCII, DATASET UNSTRUCTURED_GRID: tetrahedra (cell type 10; 24, the quadratic
/// tetrahedron, gives its corners). What follows CELL_TYPES (point or cell data) is not read.
TetMesh parse_vtk(std::string_view text) {
  TextCursor c(text);
  c.rest_of_line();  // # vtk DataFile Version x.y
  c.rest_of_line();  // title
  const std::string_view encoding = c.token();
  if (iequals(encoding, "BINARY")) c.fail("binary VTK is not read: save the mesh as ASCII");
  if (!iequals(encoding, "ASCII")) c.fail_found("ASCII", encoding);
  c.expect("DATASET", true);
  const std::string_view dataset = c.token();
  if (!iequals(dataset, "UNSTRUCTURED_GRID"))
    c.fail(fmt::format("DATASET '{}' is not read (UNSTRUCTURED_GRID is)", printable(dataset, 30)));
  c.expect("POINTS", true);
  const long long n = c.integer("the number of points", 0, kMaxTag);
  c.check_fits(static_cast<unsigned long long>(n), 6, fmt::format("{} points", n));
  c.token();  // the data type: float, double, ...
  TetMesh m;  // filled as read, never sized by a declared count
  for (long long k = 0; k < n; ++k) {
    Vec3 x;
    for (int a = 0; a < 3; ++a) x[a] = c.number("a point coordinate (3 per point)");
    m.nodes.push_back(x);
  }
  c.expect("CELLS", true);
  const long long cells = c.integer("the number of cells", 0, kMaxTag);
  const long long size = c.integer("the size of the cell list", 0, kMaxTag);
  if (iequals(c.peek(), "OFFSETS"))
    c.fail("the VTK 5 cell layout (OFFSETS, CONNECTIVITY) is not read: save as legacy VTK 4.2");
  c.check_fits(static_cast<unsigned long long>(size), 2,
               fmt::format("a cell list of {} numbers", size));
  if (cells > size) c.fail(fmt::format("{} cells cannot fit in a list of {} numbers", cells, size));
  std::vector<std::vector<int>> list;
  long long used = 0;
  for (long long e = 0; e < cells; ++e) {
    if (used >= size) c.fail(fmt::format("the cells hold more than the {} numbers declared", size));
    auto& cell = list.emplace_back();
    const long long k = c.integer("the number of points of a cell", 0, size - used - 1);
    used += k + 1;
    for (long long a = 0; a < k; ++a)
      cell.push_back(static_cast<int>(c.integer("a point index", 0, n - 1)));
  }
  if (used != size)
    c.fail(fmt::format("CELLS declares a list of {} numbers, the cells hold {}", size, used));
  c.expect("CELL_TYPES", true);
  const long long types = c.integer("the number of cell types", 0, kMaxTag);
  if (types != cells) c.fail(fmt::format("CELL_TYPES declares {} cells, CELLS {}", types, cells));
  for (long long e = 0; e < cells; ++e) {
    const long long type = c.integer("a cell type", 0, 1000);
    const auto& cell = list[static_cast<std::size_t>(e)];
    if (type != 10 && type != 24) continue;
    if (cell.size() != (type == 10 ? 4u : 10u))
      c.fail(fmt::format("cell {} of type {} has {} points", e, type, cell.size()));
    m.tets.push_back({cell[0], cell[1], cell[2], cell[3]});
  }
  return m;
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

TetMesh parse_volume_mesh(std::string_view bytes, MeshFormat format) {
  switch (format) {
    case MeshFormat::Msh:
      return parse_msh(bytes);
    case MeshFormat::Vtk:
      return parse_vtk(bytes);
    default:
      throw std::invalid_argument(
          fmt::format("{} holds a surface, not a volume mesh", mesh_format_name(format)));
  }
}

TetMeshImport import_tet_mesh(const std::string& path, double scale) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: {}", printable(path, 200), why));
  };
  if (!(std::isfinite(scale) && scale > 0.0)) fail("scale must be finite and > 0");
  const std::string bytes = read_mesh_file(path);
  MeshFormat format{};
  try {
    format = sniff_mesh_format(bytes);
    check_mesh_extension(path, format);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  TetMeshImport out;
  if (format == MeshFormat::StlAscii || format == MeshFormat::StlBinary ||
      format == MeshFormat::Obj) {
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
    try {
      out.mesh = parse_volume_mesh(bytes, format);
    } catch (const std::invalid_argument& e) {
      fail(fmt::format("{}: {}", mesh_format_name(format), e.what()));
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
