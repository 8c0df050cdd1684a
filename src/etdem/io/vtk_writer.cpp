#include "etdem/io/vtk_writer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <fmt/format.h>

#include "etdem/io/scenario_error.hpp"
#include "etdem/io/shape_kinds.hpp"
#include "etdem/world/world.hpp"

namespace etdem {
namespace {

using Buffer = fmt::memory_buffer;

constexpr int kVtkVertex = 1, kVtkTriangle = 5, kVtkPolygon = 7, kVtkQuad = 9, kVtkHexahedron = 12;

void write_file(const std::string& path, const Buffer& b) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot open for writing");
  const std::size_t n = std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
  if (n != b.size()) throw InputError(path + ": write failed (disk full?)");
}

void begin(Buffer& b, std::size_t points, std::size_t cells) {
  fmt::format_to(std::back_inserter(b),
                 "<?xml version=\"1.0\"?>\n"
                 "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                 "header_type=\"UInt64\">\n<UnstructuredGrid>\n"
                 "<Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">\n",
                 points, cells);
}

void end(Buffer& b) {
  fmt::format_to(std::back_inserter(b), "</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
}

/// A Float64 array of `components` values per entry, produced by value(entry, component).
template <class F>
void float_array(Buffer& b, const char* name, int components, std::size_t n, F value) {
  fmt::format_to(std::back_inserter(b),
                 "<DataArray type=\"Float64\" Name=\"{}\" NumberOfComponents=\"{}\" "
                 "format=\"ascii\">\n",
                 name, components);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < components; ++c)
      fmt::format_to(std::back_inserter(b), "{:.10g}{}", value(i, c),
                     c + 1 < components ? " " : "\n");
  }
  fmt::format_to(std::back_inserter(b), "</DataArray>\n");
}

template <class F>
void int_array(Buffer& b, const char* type, const char* name, std::size_t n, F value) {
  fmt::format_to(std::back_inserter(b), "<DataArray type=\"{}\" Name=\"{}\" format=\"ascii\">\n",
                 type, name);
  for (std::size_t i = 0; i < n; ++i)
    fmt::format_to(std::back_inserter(b), "{}{}", value(i),
                   (i + 1) % 16 == 0 || i + 1 == n ? "\n" : " ");
  fmt::format_to(std::back_inserter(b), "</DataArray>\n");
}

void points(Buffer& b, const std::vector<Vec3>& p) {
  fmt::format_to(std::back_inserter(b), "<Points>\n");
  float_array(b, "Points", 3, p.size(), [&](std::size_t i, int c) { return p[i][c]; });
  fmt::format_to(std::back_inserter(b), "</Points>\n");
}

/// Cells of `per_cell` consecutive points each.
void cells(Buffer& b, std::size_t count, int per_cell, int type) {
  fmt::format_to(std::back_inserter(b), "<Cells>\n");
  int_array(b, "Int64", "connectivity", count * per_cell, [](std::size_t i) { return i; });
  int_array(b, "Int64", "offsets", count, [&](std::size_t i) { return (i + 1) * per_cell; });
  int_array(b, "UInt8", "types", count, [&](std::size_t) { return type; });
  fmt::format_to(std::back_inserter(b), "</Cells>\n");
}

/// The <Cells> block of triangles.
void triangle_cells(Buffer& b, const std::vector<std::array<std::int64_t, 3>>& tri) {
  const std::size_t n = tri.size();
  fmt::format_to(std::back_inserter(b), "<Cells>\n");
  int_array(b, "Int64", "connectivity", 3 * n, [&](std::size_t k) { return tri[k / 3][k % 3]; });
  int_array(b, "Int64", "offsets", n, [&](std::size_t k) { return 3 * (k + 1); });
  int_array(b, "UInt8", "types", n, [&](std::size_t) { return kVtkTriangle; });
  fmt::format_to(std::back_inserter(b), "</Cells>\n");
}

/// A static triangle piece (mesh walls, terrains): points, triangles and each one's body id.
void static_triangles(Buffer& b, const std::vector<Vec3>& p,
                      const std::vector<std::array<std::int64_t, 3>>& tri,
                      const std::vector<int>& id) {
  const std::size_t n = tri.size();
  begin(b, p.size(), n);
  fmt::format_to(std::back_inserter(b), "<CellData>\n");
  int_array(b, "Int64", "id", n, [&](std::size_t k) { return id[k]; });
  fmt::format_to(std::back_inserter(b), "</CellData>\n");
  points(b, p);
  triangle_cells(b, tri);
  end(b);
}

}  // namespace

VtkWriter::VtkWriter(std::string directory, std::vector<WallQuad> walls)
    : directory_(std::move(directory)), walls_(std::move(walls)) {}

void VtkWriter::write_frame(const World& world) {
  const Bodies& bodies = world.bodies;
  const ShapeTable& shapes = world.shapes;
  // Each body's pieces come from its shape type (io/shape_kinds.cpp): spheres (a sphere body or
  // a compound's sphere part) go to the particles file, boxes to the boxes file, convex hulls (a
  // polyhedron body or a compound's box or polyhedron part) to the polyhedra file, each piece
  // carrying the id of its body; mesh walls are written once.
  DrawPieces pieces;
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_active(i)) continue;
    const int s = bodies.shape[i];
    if (const auto draw = shape_kind(shapes.type[s]).draw)
      draw(shapes, s, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(), pieces);
  }
  const std::vector<DrawPieces::Sphere>& spheres = pieces.spheres;
  const std::vector<int>& boxes = pieces.boxes;
  const std::vector<DrawPieces::Hull>& polyhedra = pieces.polyhedra;
  const long step = world.step_count();
  const double time = world.time();
  const bool first = frames_ == 0;
  // Parts are decided by the first frame, so every frame has the same parts.
  if (first) {
    has_spheres_ = !spheres.empty();
    has_boxes_ = !boxes.empty();
    has_walls_ = !walls_.empty();
    has_polyhedra_ = !polyhedra.empty();
    has_surfaces_ = !pieces.surfaces.empty();
  }

  if (has_spheres_) {
    Buffer b;
    const std::size_t n = spheres.size();
    begin(b, n, n);
    fmt::format_to(std::back_inserter(b), "<PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    float_array(b, "radius", 1, n, [&](std::size_t k, int) { return spheres[k].radius; });
    // Velocity of the sphere's centre (a compound part's includes the body's rotation).
    float_array(b, "velocity", 3, n, [&](std::size_t k, int c) {
      const int i = spheres[k].body;
      const Vec3 v = bodies.velocity[i] +
                     bodies.angular_velocity[i].cross(spheres[k].centre - bodies.position[i]);
      return v[c];
    });
    float_array(b, "angular_velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.angular_velocity[spheres[k].body][c]; });
    float_array(b, "orientation", 4, n, [&](std::size_t k, int c) {
      const Quat& q = bodies.orientation[spheres[k].body];
      return c == 0 ? q.w() : q.vec()[c - 1];
    });
    int_array(b, "Int64", "id", n, [&](std::size_t k) { return spheres[k].body; });
    fmt::format_to(std::back_inserter(b), "</PointData>\n");
    std::vector<Vec3> p(n);
    for (std::size_t k = 0; k < n; ++k) p[k] = spheres[k].centre;
    points(b, p);
    cells(b, n, 1, kVtkVertex);
    end(b);
    const std::string file = fmt::format("frames/particles_{:06d}.vtu", step);
    write_file(directory_ + "/" + file, b);
    entries_.push_back({time, 0, file});
  }

  if (has_boxes_) {
    Buffer b;
    const std::size_t n = boxes.size();
    begin(b, 8 * n, n);
    fmt::format_to(std::back_inserter(b), "<CellData Vectors=\"velocity\">\n");
    int_array(b, "Int64", "id", n, [&](std::size_t k) { return boxes[k]; });
    float_array(b, "velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.velocity[boxes[k]][c]; });
    float_array(b, "angular_velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.angular_velocity[boxes[k]][c]; });
    fmt::format_to(std::back_inserter(b), "</CellData>\n");
    // VTK_HEXAHEDRON order: the -z face with its right-hand normal towards +z, then the +z face.
    static const double kCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                         {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    std::vector<Vec3> p;
    p.reserve(8 * n);
    for (int i : boxes) {
      const Vec3& h = shapes.box(bodies.shape[i]).half_extents;
      const Mat3 r = bodies.orientation[i].toRotationMatrix();
      for (const auto& c : kCorner)
        p.push_back(bodies.position[i] + r * Vec3(c[0] * h.x(), c[1] * h.y(), c[2] * h.z()));
    }
    points(b, p);
    cells(b, n, 8, kVtkHexahedron);
    end(b);
    const std::string file = fmt::format("frames/boxes_{:06d}.vtu", step);
    write_file(directory_ + "/" + file, b);
    entries_.push_back({time, 1, file});
  }

  if (has_polyhedra_) {
    // One polygon cell per face; each body's vertices once, its faces pointing at them.
    std::vector<Vec3> p;
    std::vector<long> connectivity, offsets;
    std::vector<int> owner;  // body of each cell
    for (const DrawPieces::Hull& piece : polyhedra) {
      const ConvexPolyhedron& h = *piece.hull;
      const long first = static_cast<long>(p.size());
      for (const Vec3& v : h.vertices) p.push_back(piece.position + piece.rotation * v);
      for (int f = 0; f < h.face_count(); ++f) {
        for (int v : h.face(f)) connectivity.push_back(first + v);
        offsets.push_back(static_cast<long>(connectivity.size()));
        owner.push_back(piece.body);
      }
    }
    Buffer b;
    const std::size_t n = owner.size();
    begin(b, p.size(), n);
    fmt::format_to(std::back_inserter(b), "<CellData Vectors=\"velocity\">\n");
    int_array(b, "Int64", "id", n, [&](std::size_t k) { return owner[k]; });
    float_array(b, "velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.velocity[owner[k]][c]; });
    float_array(b, "angular_velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.angular_velocity[owner[k]][c]; });
    fmt::format_to(std::back_inserter(b), "</CellData>\n");
    points(b, p);
    fmt::format_to(std::back_inserter(b), "<Cells>\n");
    int_array(b, "Int64", "connectivity", connectivity.size(),
              [&](std::size_t k) { return connectivity[k]; });
    int_array(b, "Int64", "offsets", n, [&](std::size_t k) { return offsets[k]; });
    int_array(b, "UInt8", "types", n, [&](std::size_t) { return kVtkPolygon; });
    fmt::format_to(std::back_inserter(b), "</Cells>\n");
    end(b);
    const std::string file = fmt::format("frames/polyhedra_{:06d}.vtu", step);
    write_file(directory_ + "/" + file, b);
    entries_.push_back({time, 3, file});
  }

  if (has_surfaces_) {
    // Level-set grains: each grain's zero contour, posed.
    std::vector<Vec3> p;
    std::vector<std::array<std::int64_t, 3>> tri;
    std::vector<int> owner;
    for (const DrawPieces::Surface& piece : pieces.surfaces) {
      const std::int64_t base = static_cast<std::int64_t>(p.size());
      for (const Vec3& v : piece.mesh->vertices) p.push_back(piece.position + piece.rotation * v);
      for (const auto& t : piece.mesh->triangles) {
        tri.push_back({base + t[0], base + t[1], base + t[2]});
        owner.push_back(piece.body);
      }
    }
    Buffer b;
    const std::size_t n = tri.size();
    begin(b, p.size(), n);
    fmt::format_to(std::back_inserter(b), "<CellData Vectors=\"velocity\">\n");
    int_array(b, "Int64", "id", n, [&](std::size_t k) { return owner[k]; });
    float_array(b, "velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.velocity[owner[k]][c]; });
    float_array(b, "angular_velocity", 3, n,
                [&](std::size_t k, int c) { return bodies.angular_velocity[owner[k]][c]; });
    fmt::format_to(std::back_inserter(b), "</CellData>\n");
    points(b, p);
    triangle_cells(b, tri);
    end(b);
    const std::string file = fmt::format("frames/levelsets_{:06d}.vtu", step);
    write_file(directory_ + "/" + file, b);
    entries_.push_back({time, 5, file});
  }

  if (first) {
    // Mesh walls are static: written once, with the first frame.
    std::vector<Vec3> p;
    std::vector<std::array<std::int64_t, 3>> tri;
    std::vector<int> id;
    for (int i : pieces.meshes) {
      const TriangleMesh& m = shapes.mesh(bodies.shape[i]);
      const Mat3 r = bodies.orientation[i].toRotationMatrix();
      const std::int64_t base = static_cast<std::int64_t>(p.size());
      for (const Vec3& v : m.vertices) p.push_back(bodies.position[i] + r * v);
      for (const auto& t : m.triangles) {
        tri.push_back({base + t[0], base + t[1], base + t[2]});
        id.push_back(i);
      }
    }
    if (!tri.empty()) {
      Buffer b;
      static_triangles(b, p, tri, id);
      const std::string file = fmt::format("frames/meshes_{:06d}.vtu", step);
      write_file(directory_ + "/" + file, b);
      entries_.push_back({time, 4, file});
    }
  }

  if (first && !pieces.terrains.empty()) write_terrain(world, pieces.terrains);

  if (has_walls_) {
    std::vector<const WallQuad*> live;
    for (const WallQuad& w : walls_)
      if (bodies.is_active(w.body)) live.push_back(&w);
    Buffer b;
    const std::size_t n = live.size();
    begin(b, 4 * n, n);
    fmt::format_to(std::back_inserter(b), "<CellData>\n");
    int_array(b, "Int64", "id", n, [&](std::size_t k) { return live[k]->body; });
    fmt::format_to(std::back_inserter(b), "</CellData>\n");
    std::vector<Vec3> p;
    for (const WallQuad* w : live) p.insert(p.end(), w->corners.begin(), w->corners.end());
    points(b, p);
    cells(b, n, 4, kVtkQuad);
    end(b);
    const std::string file = fmt::format("frames/walls_{:06d}.vtu", step);
    write_file(directory_ + "/" + file, b);
    entries_.push_back({time, 2, file});
  }
  ++frames_;
}

void VtkWriter::write_terrain(const World& world, const std::vector<int>& bodies_drawn) {
  // Terrains are static: their surface triangles (two per raster cell, split along the
  // diagonal the distance uses), written once with the first frame. A raster of more than
  // kMaxTerrainNodes nodes is drawn every `stride` nodes (the simulation uses all of them).
  const Bodies& bodies = world.bodies;
  std::vector<Vec3> p;
  std::vector<std::array<std::int64_t, 3>> tri;
  std::vector<int> id;
  for (int i : bodies_drawn) {
    const HeightMap& m = world.shapes.terrain(bodies.shape[i]).map;
    const Mat3 r = bodies.orientation[i].toRotationMatrix();
    const double nodes = double(m.nx) * m.ny;
    const int stride =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(nodes / kMaxTerrainNodes))));
    std::vector<int> xs, ys;
    for (int a = 0; a < m.nx - 1; a += stride) xs.push_back(a);
    xs.push_back(m.nx - 1);
    for (int b = 0; b < m.ny - 1; b += stride) ys.push_back(b);
    ys.push_back(m.ny - 1);
    const std::int64_t base = static_cast<std::int64_t>(p.size());
    const std::int64_t nx = static_cast<std::int64_t>(xs.size());
    for (int b : ys)
      for (int a : xs)
        p.push_back(bodies.position[i] + r * Vec3(m.x0 + a * m.dx, m.y0 + b * m.dy, m.at(a, b)));
    for (std::int64_t b = 0; b + 1 < static_cast<std::int64_t>(ys.size()); ++b)
      for (std::int64_t a = 0; a + 1 < nx; ++a) {
        const std::int64_t c00 = base + b * nx + a, c10 = c00 + 1, c01 = c00 + nx, c11 = c01 + 1;
        tri.push_back({c00, c10, c11});
        tri.push_back({c00, c11, c01});
        id.push_back(i);
        id.push_back(i);
      }
  }
  Buffer b;
  static_triangles(b, p, tri, id);
  const std::string file = fmt::format("frames/terrain_{:06d}.vtu", world.step_count());
  write_file(directory_ + "/" + file, b);
  entries_.push_back({world.time(), 6, file});
}

void VtkWriter::write_pvd() const {
  Buffer b;
  fmt::format_to(std::back_inserter(b),
                 "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
                 "byte_order=\"LittleEndian\">\n<Collection>\n");
  for (const Entry& e : entries_)
    fmt::format_to(std::back_inserter(b),
                   "  <DataSet timestep=\"{:.10g}\" group=\"\" part=\"{}\" file=\"{}\"/>\n", e.time,
                   e.part, e.file);
  fmt::format_to(std::back_inserter(b), "</Collection>\n</VTKFile>\n");
  write_file(directory_ + "/particles.pvd", b);
}

}  // namespace etdem
