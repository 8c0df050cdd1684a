#include "etdem/io/shape_kinds.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "etdem/collision/compound_overlap.hpp"
#include "etdem/io/mesh_import.hpp"
#include "etdem/io/tet_mesh_import.hpp"
#include "etdem/shapes/level_set_build.hpp"
#include "etdem/shapes/tet_merge.hpp"

namespace etdem {
namespace {

// ---- reading [[shape]] tables ------------------------------------------------------------

void read_sphere(const TomlReader& r, const std::string& name, ShapeSource&,
                 ShapeReadContext& ctx) {
  const double radius = r.number("radius");
  if (!(radius > 0.0)) r.fail("radius", "must be > 0");
  ctx.shapes.add_sphere(name, radius);
}

void read_box(const TomlReader& r, const std::string& name, ShapeSource&, ShapeReadContext& ctx) {
  const Vec3 half_extents = r.vec3("half_extents");
  if (!(half_extents.array() > 0.0).all()) r.fail("half_extents", "must all be > 0");
  ctx.shapes.add_box(name, half_extents);
}

/// The hull of the given vertices, or of the vertices of a mesh file.
void read_polyhedron(const TomlReader& r, const std::string& name, ShapeSource& src,
                     ShapeReadContext& ctx) {
  const bool from_file = r.has("file");
  if (from_file && r.has("vertices")) r.fail("file", "give either vertices or file, not both");
  std::vector<Vec3> vertices;
  if (from_file) {
    src.file = r.string("file");
    MeshImportOptions o;
    o.scale = r.number("scale", 1.0);
    if (!(o.scale > 0.0 && std::isfinite(o.scale))) r.fail("scale", "must be finite and > 0");
    try {
      vertices = import_mesh(resolve_scenario_path(ctx.scenario_file, src.file), o).vertices;
    } catch (const std::runtime_error& e) {
      r.fail("file", e.what());
    }
  } else {
    vertices = r.vec3_list("vertices");
  }
  // Coordinates beyond kMaxCoordinate are no scene the engine resolves (and squared, as the
  // hull and mass properties square them, they overflow): refused by name, not reported later
  // as a flat hull or a non-finite state.
  for (std::size_t k = 0; k < vertices.size(); ++k)
    if (vertices[k].cwiseAbs().maxCoeff() > kMaxCoordinate)
      r.fail(from_file ? "file" : "vertices",
             fmt::format("vertex {} ({:.3g}, {:.3g}, {:.3g}) lies beyond {:g} m", k,
                         vertices[k].x(), vertices[k].y(), vertices[k].z(), kMaxCoordinate));
  try {
    ctx.shapes.add_polyhedron(name, ConvexPolyhedron::from_points(vertices));
  } catch (const std::invalid_argument& e) {
    r.fail(from_file ? "file" : "vertices", e.what());
  }
}

/// The part types, for messages: "sphere, box or polyhedron".
std::string part_type_names();

/// file = a tetrahedral mesh (or a closed surface Gmsh tetrahedralises), scale, merge: the
/// tetrahedra, merged into convex parts unless merge = false, become hidden polyhedron shapes
/// named "NAME.partK" placed in the mesh's frame, added to the table before the compound.
void read_tetrahedral_compound(const TomlReader& r, const std::string& name, ShapeSource& src,
                               ShapeReadContext& ctx) {
  src.file = r.string("file");
  const double scale = r.number("scale", 1.0);
  if (!(scale > 0.0 && std::isfinite(scale))) r.fail("scale", "must be finite and > 0");
  const bool merge = r.boolean("merge", true);
  TetMeshImport mesh;
  std::vector<std::vector<int>> groups;
  try {
    mesh = import_tet_mesh(resolve_scenario_path(ctx.scenario_file, src.file), scale);
    groups = convex_parts(mesh.mesh, merge);
  } catch (const std::exception& e) {
    r.fail("file", e.what());
  }
  src.notes = mesh.notes;
  src.notes.push_back(fmt::format("{} tetrahedra -> {} convex parts{}", mesh.mesh.tets.size(),
                                  groups.size(), merge ? "" : " (merge = false)"));
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (!ctx.names.insert(fmt::format("{}.part{}", name, g)).second)
      r.fail("name", fmt::format("the part name '{}.part{}' is taken by another shape", name, g));
  std::vector<CompoundPart> parts;
  try {
    parts = add_part_hulls(ctx.shapes, name, mesh.mesh, groups);
  } catch (const std::invalid_argument& e) {
    r.fail("file", e.what());
  }
  try {
    Compound c = make_compound(ctx.shapes, parts);
    check_parts_disjoint(ctx.shapes, c);
    ctx.shapes.add_compound(name, std::move(c));
  } catch (const std::invalid_argument& e) {
    r.fail("file", e.what());
  }
}

/// parts = [{ shape = "NAME", position = [x, y, z], orientation = [w, x, y, z] }, ...]: earlier
/// spheres, boxes or polyhedra placed in the compound's input frame (orientation optional); or
/// file = a tetrahedral mesh.
void read_compound(const TomlReader& r, const std::string& name, ShapeSource& src,
                   ShapeReadContext& ctx) {
  if (r.has("file")) {
    if (r.has("parts")) r.fail("file", "give either parts or file, not both");
    read_tetrahedral_compound(r, name, src, ctx);
    return;
  }
  if (r.has("merge")) r.fail("merge", "only with file (a tetrahedral mesh)");
  if (!r.has("parts"))
    r.fail("parts", "required key is missing (an array of parts, or file = a tetrahedral mesh)");
  const auto tables = r.tables("parts");
  if (tables.empty()) r.fail("parts", "a compound needs at least one part");
  std::vector<CompoundPart> parts;
  for (const TomlReader& t : tables) {
    CompoundPart p;
    p.shape = read_shape_name(ctx.shapes, t, "shape");
    const ShapeType pt = ctx.shapes.type[p.shape];
    if (!shape_kind(pt).part)
      t.fail("shape",
             fmt::format("a part must be a {}, not a {}", part_type_names(), shape_type_name(pt)));
    p.position = t.vec3("position");
    p.orientation = t.unit_quaternion("orientation", p.orientation);
    t.finish();
    parts.push_back(p);
  }
  try {
    Compound c = make_compound(ctx.shapes, parts);
    check_parts_disjoint(ctx.shapes, c);
    ctx.shapes.add_compound(name, std::move(c));
  } catch (const std::invalid_argument& e) {
    r.fail("parts", e.what());
  }
}

/// True when the file starts with OpenVDB's magic number (0x56444220, little endian).
bool is_vdb_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char b[4] = {0, 0, 0, 0};
  const std::size_t got = std::fread(b, 1, 4, f);
  std::fclose(f);
  return got == 4 && b[0] == 0x20 && b[1] == 0x42 && b[2] == 0x44 && b[3] == 0x56;
}

/// spacing, nodes, and one source: file = a closed STL/OBJ surface (with scale) or an OpenVDB
/// level set (with grid), or generator = sphere | ellipsoid | superellipsoid | rock with its
/// parameters.
void read_level_set(const TomlReader& r, const std::string& name, ShapeSource& src,
                    ShapeReadContext& ctx) {
  LevelSetOptions o;
  o.spacing = r.number("spacing");
  if (!(o.spacing > 0.0 && std::isfinite(o.spacing))) r.fail("spacing", "must be finite and > 0");
  const long nodes = r.integer("nodes", 500);
  if (nodes < 4 || nodes > 1000000) r.fail("nodes", "must lie in [4, 1000000]");
  o.nodes = static_cast<int>(nodes);
  // The most points a contact of the grain keeps (docs/design.md "Level-set grains"); 0: a
  // manifold's 16.
  const long points = r.integer("contact_points", 0);
  if (points != 0 && (points < 3 || points > 16))
    r.fail("contact_points", "must be 0 (a manifold's 16) or lie in [3, 16]");
  auto add = [&](LevelSet ls) {
    ls.contact_points = static_cast<int>(points);
    ctx.shapes.add_level_set(name, std::move(ls));
  };
  const bool from_file = r.has("file"), from_generator = r.has("generator");
  if (from_file == from_generator)
    r.fail(from_file ? "generator" : "file",
           "give either file (a closed surface or an OpenVDB grid) or generator");
  std::string key = "generator";
  try {
    if (from_file) {
      key = "file";
      src.file = r.string("file");
      const std::string path = resolve_scenario_path(ctx.scenario_file, src.file);
      if (is_vdb_file(path)) {
        if (r.has("scale")) r.fail("scale", "applies to surface files, not to an OpenVDB grid");
        add(level_set_from_vdb(path, r.string("grid", ""), o));
        return;
      }
      MeshImportOptions mo;
      mo.scale = r.number("scale", 1.0);
      if (!(mo.scale > 0.0 && std::isfinite(mo.scale))) r.fail("scale", "must be finite and > 0");
      MeshData m;
      try {
        m = import_mesh(path, mo);
      } catch (const std::runtime_error& e) {
        r.fail("file", e.what());
      }
      add(level_set_from_surface(m.vertices, m.triangles, o));
      return;
    }
    const std::string g = r.string("generator");
    if (g == "sphere") {
      const double radius = r.number("radius");
      if (!(radius > 0.0 && std::isfinite(radius))) r.fail("radius", "must be finite and > 0");
      add(level_set_sphere(radius, o));
    } else if (g == "ellipsoid" || g == "superellipsoid") {
      const Vec3 axes = r.vec3("semi_axes");
      if (!(axes.array() > 0.0).all()) r.fail("semi_axes", "must all be > 0");
      double e1 = 1.0, e2 = 1.0;
      if (g == "superellipsoid") {
        const std::vector<double> e = r.numbers("exponents", 2);
        e1 = e[0];
        e2 = e[1];
        if (!(e1 > 0.0 && e1 <= 2.0 && e2 > 0.0 && e2 <= 2.0))
          r.fail("exponents", "must both lie in (0, 2]");
      }
      add(level_set_superellipsoid(axes, e1, e2, o));
    } else if (g == "rock") {
      const double radius = r.number("radius");
      if (!(radius > 0.0 && std::isfinite(radius))) r.fail("radius", "must be finite and > 0");
      const double roughness = r.number("roughness", 0.15);
      if (!(roughness >= 0.0 && roughness <= 0.5)) r.fail("roughness", "must lie in [0, 0.5]");
      const double elongation = r.number("elongation", 1.0);
      if (!(elongation >= 1.0 && elongation <= 10.0)) r.fail("elongation", "must lie in [1, 10]");
      const long seed = r.integer("seed", 1);
      if (seed < 0) r.fail("seed", "must be >= 0");
      add(level_set_rock(radius, roughness, elongation, static_cast<std::uint64_t>(seed), o));
    } else {
      r.fail("generator", "must be one of sphere, ellipsoid, superellipsoid, rock");
    }
  } catch (const std::invalid_argument& e) {
    // Messages about the grid name the spacing; the others the source.
    r.fail(std::string_view(e.what()).starts_with("spacing") ? "spacing" : key, e.what());
  }
}

// The readers: one line per [[shape]] type, in ShapeType order.
const ShapeReader kReaders[] = {
    {ShapeType::Sphere, read_sphere},         {ShapeType::Box, read_box},
    {ShapeType::Polyhedron, read_polyhedron}, {ShapeType::Compound, read_compound},
    {ShapeType::LevelSet, read_level_set},
};

std::string part_type_names() {
  std::vector<std::string> names;
  for (const ShapeKind& k : kShapeKinds)
    if (k.part) names.push_back(k.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

const ShapeReader* find_shape_reader(std::string_view name) {
  for (const ShapeReader& r : kReaders)
    if (name == shape_type_name(r.type)) return &r;
  return nullptr;
}

std::vector<std::string> shape_reader_names() {
  std::vector<std::string> names;
  for (const ShapeReader& r : kReaders) names.push_back(shape_type_name(r.type));
  return names;
}

int read_shape_name(const ShapeTable& shapes, const TomlReader& r, std::string_view key) {
  const std::string name = r.string(key);
  if (const int s = shapes.find(name); s >= 0) return s;
  std::vector<std::string> known;
  for (const std::string& n : shapes.name) known.push_back(fmt::format("'{}'", n));
  r.fail(key, known.empty()
                  ? std::string("no shape is defined")
                  : fmt::format("unknown shape name (known: {})", fmt::join(known, ", ")));
}

std::string resolve_scenario_path(const std::string& scenario_file, const std::string& file) {
  const std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  return (std::filesystem::path(scenario_file).parent_path() / p).string();
}

}  // namespace etdem
