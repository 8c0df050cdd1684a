#include "etdem/io/vtk_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// What a block holds: one kind of the pieces that draw the grains of its shape type
/// (ShapeDrawing, shapes/shape_kind.hpp), or the walls of its type whole, or the nets.
enum class Drawn { Balls, Boxes, Hulls, Surfaces, Walls, Meshes, Terrain, Nets };

struct Block {
  std::string_view name;  // in the .vtm files, and the prefix of its files
  ShapeType shape;        // the shape type it draws (nets: none, ShapeType::Count)
  Drawn drawn;
};

/// The blocks, in file order (docs/scenario.md "ParaView"). Every list of pieces a shape type's
/// record draws goes to the block of that type and kind; a shape type with pieces of its own is
/// one line here, at the end (block indices stay what they were).
constexpr Block kBlocks[] = {
    // 0: sphere grains as points (VTK_VERTEX); point data radius, velocity, speed,
    // angular_velocity, orientation (w, x, y, z), id.
    {"spheres", ShapeType::Sphere, Drawn::Balls},
    // 1: box grains as hexahedra; cell data id, velocity, speed, angular_velocity.
    {"boxes", ShapeType::Box, Drawn::Boxes},
    // 2: every face of every polyhedron grain as a polygon cell (each body's vertices once);
    // cell data as boxes.
    {"polyhedra", ShapeType::Polyhedron, Drawn::Hulls},
    // 3: the box and polyhedron parts of compound grains, as polyhedra, each face with its
    // body's id.
    {"compounds", ShapeType::Compound, Drawn::Hulls},
    // 4: the sphere parts of compound grains, as spheres (id of the body, velocity of the part).
    {"compound_spheres", ShapeType::Compound, Drawn::Balls},
    // 5: the zero contours of level-set grains (triangles); cell data as boxes.
    {"level_sets", ShapeType::LevelSet, Drawn::Surfaces},
    // 6: the planes still present as quads (counter-clockwise about the normal to the free
    // side), cell data id: a container's faces, and floors (a container's floor, every plain
    // plane) grown to cover every grain the frames showed over the whole run.
    {"walls", ShapeType::Plane, Drawn::Walls},
    // 7: the triangles of the mesh walls still present, cell data id.
    {"meshes", ShapeType::Mesh, Drawn::Meshes},
    // 8: the surface of every terrain (two triangles per raster cell; above kMaxTerrainNodes
    // raster nodes every few nodes), cell data id; static, like meshes.
    {"terrain", ShapeType::Terrain, Drawn::Terrain},
    // 9: the links of every net as lines between node centres (broken links left out), cell
    // data tension [N], strain, net; point data id. The nodes themselves are spheres, drawn in
    // `spheres`.
    {"nets", ShapeType::Count, Drawn::Nets},
};
constexpr int kBlockCount = static_cast<int>(std::size(kBlocks));

/// The block of shape type t holding pieces drawn as d; -1 for none.
constexpr int block_of(ShapeType t, Drawn d) {
  for (int b = 0; b < kBlockCount; ++b)
    if (kBlocks[b].shape == t && kBlocks[b].drawn == d) return b;
  return -1;
}

/// The block drawn as d (walls, nets: one each).
constexpr int block_of(Drawn d) {
  for (int b = 0; b < kBlockCount; ++b)
    if (kBlocks[b].drawn == d) return b;
  return -1;
}

/// File prefixes of earlier versions of the output (one file per part, listed in the .pvd).
constexpr std::string_view kOldPrefixes[] = {"particles", "levelsets"};

std::string block_file(int b, long step) {
  return fmt::format("{}_{:06d}.vtu", kBlocks[b].name, step);
}

/// One block's pieces of a frame, each with the id of its body (`body`, parallel to the one
/// list the block's kind fills; for wall blocks the bodies themselves).
struct BlockPieces {
  std::vector<int> body;
  std::vector<ShapeDrawing::Ball> balls;
  std::vector<ShapeDrawing::Box> boxes;
  std::vector<ShapeDrawing::Hull> hulls;
  std::vector<ShapeDrawing::Surface> surfaces;
};

void append(std::vector<double>& out, const Vec3& v) {
  out.insert(out.end(), {v.x(), v.y(), v.z()});
}

/// Per-body data of a cell block: the body id, its velocity, speed and angular velocity.
void body_cell_data(VtuPiece& piece, const std::vector<int>& owner, const Bodies& bodies) {
  const std::size_t n = owner.size();
  std::vector<std::int64_t> id(n);
  std::vector<double> v(3 * n), speed(n), w(3 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const int i = owner[k];
    id[k] = i;
    speed[k] = bodies.velocity[i].norm();
    for (int c = 0; c < 3; ++c) {
      v[3 * k + c] = bodies.velocity[i][c];
      w[3 * k + c] = bodies.angular_velocity[i][c];
    }
  }
  piece.cell_data.vectors = "velocity";
  piece.cell_data.add("id", std::move(id));
  piece.cell_data.add("velocity", 3, std::move(v));
  piece.cell_data.add("speed", 1, std::move(speed));
  piece.cell_data.add("angular_velocity", 3, std::move(w));
}

/// Balls as points with their radius and the motion of their centre (a compound part's
/// velocity includes its body's rotation).
VtuPiece sphere_piece(const BlockPieces& p, const Bodies& bodies) {
  VtuPiece piece;
  const std::size_t n = p.balls.size();
  std::vector<double> radius(n), v(3 * n), speed(n), w(3 * n), q(4 * n);
  std::vector<std::int64_t> id(n);
  for (std::size_t k = 0; k < n; ++k) {
    const ShapeDrawing::Ball& s = p.balls[k];
    const int i = p.body[k];
    append(piece.points, s.centre);
    radius[k] = s.radius;
    const Vec3 vk =
        bodies.velocity[i] + bodies.angular_velocity[i].cross(s.centre - bodies.position[i]);
    speed[k] = vk.norm();
    const Quat& o = bodies.orientation[i];
    for (int c = 0; c < 3; ++c) {
      v[3 * k + c] = vk[c];
      w[3 * k + c] = bodies.angular_velocity[i][c];
    }
    q[4 * k] = o.w();
    for (int c = 0; c < 3; ++c) q[4 * k + 1 + c] = o.vec()[c];
    id[k] = i;
  }
  piece.add_cells(n, 1, kVtkVertex);
  piece.point_data.scalars = "radius";
  piece.point_data.vectors = "velocity";
  piece.point_data.add("radius", 1, std::move(radius));
  piece.point_data.add("velocity", 3, std::move(v));
  piece.point_data.add("speed", 1, std::move(speed));
  piece.point_data.add("angular_velocity", 3, std::move(w));
  piece.point_data.add("orientation", 4, std::move(q));
  piece.point_data.add("id", std::move(id));
  return piece;
}

/// Boxes as hexahedra: VTK_HEXAHEDRON order, the -z face with its right-hand normal towards
/// +z, then the +z face.
VtuPiece box_piece(const BlockPieces& p, const Bodies& bodies) {
  static const double kCorner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                       {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  VtuPiece piece;
  for (const ShapeDrawing::Box& b : p.boxes) {
    const Vec3& h = b.half_extents;
    for (const auto& c : kCorner)
      append(piece.points,
             b.position + b.rotation * Vec3(c[0] * h.x(), c[1] * h.y(), c[2] * h.z()));
  }
  piece.add_cells(p.boxes.size(), 8, kVtkHexahedron);
  body_cell_data(piece, p.body, bodies);
  return piece;
}

/// Convex hulls: one polygon cell per face, each hull's vertices once.
VtuPiece hull_piece(const BlockPieces& p, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<int> owner;
  for (std::size_t k = 0; k < p.hulls.size(); ++k) {
    const ShapeDrawing::Hull& h = p.hulls[k];
    const std::int64_t first = static_cast<std::int64_t>(piece.point_count());
    for (const Vec3& v : h.hull->vertices) append(piece.points, h.position + h.rotation * v);
    for (int f = 0; f < h.hull->face_count(); ++f) {
      for (int v : h.hull->face(f)) piece.connectivity.push_back(first + v);
      piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
      piece.types.push_back(kVtkPolygon);
      owner.push_back(p.body[k]);
    }
  }
  body_cell_data(piece, owner, bodies);
  return piece;
}

/// Appends the triangles of `mesh` (vertices in the frame of `rotation`, `position`) as
/// triangle cells of `body`.
void add_triangles(VtuPiece& piece, std::vector<int>& owner, int body, const Vec3& position,
                   const Mat3& rotation, const std::vector<Vec3>& vertices,
                   const std::vector<std::array<int, 3>>& triangles) {
  const std::int64_t first = static_cast<std::int64_t>(piece.point_count());
  for (const Vec3& v : vertices) append(piece.points, position + rotation * v);
  for (const auto& t : triangles) {
    for (int c = 0; c < 3; ++c) piece.connectivity.push_back(first + t[c]);
    piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
    piece.types.push_back(kVtkTriangle);
    owner.push_back(body);
  }
}

/// Triangle surfaces (level-set grains' zero contours), posed.
VtuPiece surface_piece(const BlockPieces& p, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<int> owner;
  for (std::size_t k = 0; k < p.surfaces.size(); ++k) {
    const ShapeDrawing::Surface& s = p.surfaces[k];
    add_triangles(piece, owner, p.body[k], s.position, s.rotation, s.mesh->vertices,
                  s.mesh->triangles);
  }
  body_cell_data(piece, owner, bodies);
  return piece;
}

/// Mesh walls (static): their triangles, cell data id.
VtuPiece mesh_piece(const std::vector<int>& meshes, const Bodies& bodies,
                    const ShapeTable& shapes) {
  VtuPiece piece;
  std::vector<int> owner;
  for (int i : meshes) {
    const TriangleMesh& m = shapes.mesh(bodies.shape[i]);
    add_triangles(piece, owner, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(),
                  m.vertices, m.triangles);
  }
  piece.cell_data.add("id", std::vector<std::int64_t>(owner.begin(), owner.end()));
  return piece;
}

/// Terrains (static): the surface triangles, two per raster cell split along the diagonal the
/// distance uses. A raster of more than kMaxTerrainNodes nodes is drawn every `stride` nodes
/// (the simulation uses all of them). Cell data id.
VtuPiece terrain_piece(const std::vector<int>& terrains, const Bodies& bodies,
                       const ShapeTable& shapes) {
  VtuPiece piece;
  std::vector<int> owner;
  for (int i : terrains) {
    const HeightMap& m = shapes.terrain(bodies.shape[i]).map;
    const double nodes = double(m.nx) * m.ny;
    const int stride =
        std::max(1, static_cast<int>(std::ceil(std::sqrt(nodes / VtkWriter::kMaxTerrainNodes))));
    std::vector<int> xs, ys;
    for (int a = 0; a < m.nx - 1; a += stride) xs.push_back(a);
    xs.push_back(m.nx - 1);
    for (int b = 0; b < m.ny - 1; b += stride) ys.push_back(b);
    ys.push_back(m.ny - 1);
    std::vector<Vec3> vertices;
    for (int b : ys)
      for (int a : xs) vertices.emplace_back(m.x0 + a * m.dx, m.y0 + b * m.dy, m.at(a, b));
    const int nx = static_cast<int>(xs.size());
    std::vector<std::array<int, 3>> triangles;
    for (int b = 0; b + 1 < static_cast<int>(ys.size()); ++b)
      for (int a = 0; a + 1 < nx; ++a) {
        const int c00 = b * nx + a, c10 = c00 + 1, c01 = c00 + nx, c11 = c01 + 1;
        triangles.push_back({c00, c10, c11});
        triangles.push_back({c00, c11, c01});
      }
    add_triangles(piece, owner, i, bodies.position[i], bodies.orientation[i].toRotationMatrix(),
                  vertices, triangles);
  }
  piece.cell_data.add("id", std::vector<std::int64_t>(owner.begin(), owner.end()));
  return piece;
}

/// Wall quads `which` of `quads`, cell data id.
VtuPiece wall_piece(const std::vector<WallQuad>& quads, const std::vector<int>& which) {
  VtuPiece piece;
  std::vector<std::int64_t> id;
  for (int k : which) {
    // Counter-clockwise about the plane's normal (towards the free side), so a viewer can cull
    // the walls it sees from behind (the near walls of a container).
    std::array<Vec3, 4> c = quads[k].corners;
    if ((c[1] - c[0]).cross(c[3] - c[0]).dot(quads[k].normal) < 0.0) std::swap(c[1], c[3]);
    for (const Vec3& p : c) append(piece.points, p);
    id.push_back(quads[k].body);
  }
  piece.add_cells(which.size(), 4, kVtkQuad);
  piece.cell_data.add("id", std::move(id));
  return piece;
}

/// The links of every net as lines between their nodes' centres (broken links left out): cell
/// data tension [N] (spring and dashpot, > 0 pulls), strain, net (index in World::nets);
/// point data id (the node's body id).
VtuPiece net_piece(const std::vector<Net>& nets, const Bodies& bodies) {
  VtuPiece piece;
  std::vector<std::int64_t> id, net_index;
  std::vector<double> tension, strain;
  for (std::size_t k = 0; k < nets.size(); ++k) {
    const Net& n = nets[k];
    std::vector<std::int64_t> point(bodies.count(), -1);  // body id -> point
    for (int i : n.nodes) {
      point[i] = static_cast<std::int64_t>(piece.point_count());
      append(piece.points, bodies.position[i]);
      id.push_back(i);
    }
    for (const NetLink& l : n.links) {
      if (l.broken) continue;
      piece.connectivity.push_back(point[l.a]);
      piece.connectivity.push_back(point[l.b]);
      piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
      piece.types.push_back(kVtkLine);
      tension.push_back(l.tension);
      strain.push_back(l.strain);
      net_index.push_back(static_cast<std::int64_t>(k));
    }
  }
  piece.point_data.add("id", std::move(id));
  piece.cell_data.scalars = "tension";
  piece.cell_data.add("tension", 1, std::move(tension));
  piece.cell_data.add("strain", 1, std::move(strain));
  piece.cell_data.add("net", std::move(net_index));
  return piece;
}

/// A unit vector perpendicular to n (n unit).
Vec3 perpendicular(const Vec3& n) {
  const Vec3 a = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  return (a - a.dot(n) * n).normalized();
}

}  // namespace

std::vector<std::string_view> vtk_block_names() {
  std::vector<std::string_view> names;
  for (const Block& b : kBlocks) names.push_back(b.name);
  return names;
}

bool is_vtk_frame_file(std::string_view name) {
  // PREFIX_DIGITS.EXT
  auto numbered = [&](std::string_view prefix, std::string_view ext) {
    return name.size() > prefix.size() + 1 + ext.size() && name.starts_with(prefix) &&
           name[prefix.size()] == '_' && name.ends_with(ext) &&
           name.find_first_not_of("0123456789", prefix.size() + 1) == name.size() - ext.size();
  };
  if (numbered("frame", ".vtm")) return true;
  for (const Block& b : kBlocks)
    if (numbered(b.name, ".vtu")) return true;
  for (std::string_view p : kOldPrefixes)
    if (numbered(p, ".vtu")) return true;
  return false;
}

VtkWriter::VtkWriter(std::string directory, std::vector<WallQuad> walls, VtkEncoding encoding)
    : directory_(std::move(directory)),
      walls_(std::move(walls)),
      encoding_(encoding),
      versions_(static_cast<std::size_t>(kBlockCount)) {
  for (const WallQuad& w : walls_) {
    // The rectangle's axes: its edges, or for a plain plane (all corners at its point) two
    // directions in the plane.
    Floor f;
    f.origin = w.corners[0];
    const Vec3 e1 = w.corners[1] - w.corners[0], e3 = w.corners[3] - w.corners[0];
    const bool plain = !(e1.norm() > 0.0 && e3.norm() > 0.0);
    if (plain) {
      f.u = perpendicular(w.normal.normalized());
      f.v = w.normal.normalized().cross(f.u);
    } else {
      f.u = e1.normalized();
      f.v = e3.normalized();
    }
    // A rectangle starts as the quad; a plain plane's starts empty (only grains extend it).
    f.u_min = f.v_min = std::numeric_limits<double>::infinity();
    f.u_max = f.v_max = -std::numeric_limits<double>::infinity();
    if (!plain)
      for (const Vec3& c : w.corners) f.cover(c - f.origin, 0.0);
    floors_.push_back(f);
  }
}

void VtkWriter::grow_floors(const World& world) {
  const Bodies& bodies = world.bodies;
  const ShapeTable& shapes = world.shapes;
  for (std::size_t k = 0; k < walls_.size(); ++k) {
    if (!walls_[k].floor) continue;
    Floor& f = floors_[k];
    for (int i = 0; i < bodies.count(); ++i) {
      // Grains are the bodies with surface nodes (walls have none).
      if (!bodies.is_active(i) || !shapes.kind(bodies.shape[i]).nodes) continue;
      const double r = shapes.bounding_radius[bodies.shape[i]];
      const Vec3 d = bodies.position[i] - f.origin;
      if (!std::isfinite(r) || !d.allFinite()) continue;
      f.cover(d, r);
    }
  }
}

std::vector<WallQuad> VtkWriter::floor_quads() const {
  std::vector<WallQuad> out = walls_;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!out[k].floor) continue;
    Floor f = floors_[k];
    if (!(f.u_min <= f.u_max && f.v_min <= f.v_max)) f.u_min = f.u_max = f.v_min = f.v_max = 0.0;
    out[k].corners = {
        f.origin + f.u_min * f.u + f.v_min * f.v, f.origin + f.u_max * f.u + f.v_min * f.v,
        f.origin + f.u_max * f.u + f.v_max * f.v, f.origin + f.u_min * f.u + f.v_max * f.v};
  }
  return out;
}

template <class Build>
std::string VtkWriter::static_file(int b, const std::vector<int>& items, long step, Build build) {
  if (items.empty()) return {};
  std::vector<StaticVersion>& versions = versions_[static_cast<std::size_t>(b)];
  if (!versions.empty() && versions.back().items == items) return versions.back().file;
  versions.push_back({items, block_file(b, step)});
  write_vtu(directory_ + "/frames/" + versions.back().file, build(items), encoding_);
  return versions.back().file;
}

void VtkWriter::write_frame(const World& world) {
  const Bodies& bodies = world.bodies;
  const ShapeTable& shapes = world.shapes;
  // Each active grain's pieces come from its shape's record (shapes/shape_kind.hpp); each list
  // of them goes, in body order, to the block of its shape type and kind, with the id of its
  // body. A wall is drawn whole by the block of its type.
  std::vector<BlockPieces> pieces(static_cast<std::size_t>(kBlockCount));
  ShapeDrawing drawing;
  auto route = [&](ShapeType t, Drawn d, const auto& from, auto BlockPieces::*list, int body) {
    if (from.empty()) return;
    const int b = block_of(t, d);
    if (b < 0)
      throw std::logic_error(fmt::format("no VTK block draws the pieces (kind {}) of a {}",
                                         static_cast<int>(d), shape_type_name(t)));
    BlockPieces& p = pieces[static_cast<std::size_t>(b)];
    (p.*list).insert((p.*list).end(), from.begin(), from.end());
    p.body.insert(p.body.end(), from.size(), body);
  };
  for (int i = 0; i < bodies.count(); ++i) {
    if (!bodies.is_active(i)) continue;
    const int s = bodies.shape[i];
    const ShapeKind& kind = shapes.kind(s);
    if (!kind.draw) {
      for (const Drawn d : {Drawn::Meshes, Drawn::Terrain})
        if (const int b = block_of(kind.type, d); b >= 0)
          pieces[static_cast<std::size_t>(b)].body.push_back(i);
      continue;
    }
    drawing.clear();
    kind.draw(shapes, s, bodies.position[i], bodies.orientation[i].toRotationMatrix(), drawing);
    route(kind.type, Drawn::Balls, drawing.balls, &BlockPieces::balls, i);
    route(kind.type, Drawn::Boxes, drawing.boxes, &BlockPieces::boxes, i);
    route(kind.type, Drawn::Hulls, drawing.hulls, &BlockPieces::hulls, i);
    route(kind.type, Drawn::Surfaces, drawing.surfaces, &BlockPieces::surfaces, i);
  }
  grow_floors(world);
  const long step = world.step_count();
  std::vector<std::string> files(static_cast<std::size_t>(kBlockCount));
  // Grain blocks: a file per frame when the frame has something of the kind.
  auto grains = [&](int b, bool empty, auto build) {
    if (empty) return;
    files[b] = block_file(b, step);
    write_vtu(directory_ + "/frames/" + files[b], build(), encoding_);
  };
  // Static blocks: a new file only when what they draw changes.
  std::vector<int> live_walls;
  for (std::size_t k = 0; k < walls_.size(); ++k)
    if (bodies.is_active(walls_[k].body)) live_walls.push_back(static_cast<int>(k));
  for (int b = 0; b < kBlockCount; ++b) {
    const BlockPieces& p = pieces[static_cast<std::size_t>(b)];
    switch (kBlocks[b].drawn) {
      case Drawn::Balls:
        grains(b, p.balls.empty(), [&] { return sphere_piece(p, bodies); });
        break;
      case Drawn::Boxes:
        grains(b, p.boxes.empty(), [&] { return box_piece(p, bodies); });
        break;
      case Drawn::Hulls:
        grains(b, p.hulls.empty(), [&] { return hull_piece(p, bodies); });
        break;
      case Drawn::Surfaces:
        grains(b, p.surfaces.empty(), [&] { return surface_piece(p, bodies); });
        break;
      case Drawn::Nets:
        grains(b, world.nets.empty(), [&] { return net_piece(world.nets, bodies); });
        break;
      case Drawn::Walls:
        files[b] = static_file(b, live_walls, step, [&](const std::vector<int>& which) {
          return wall_piece(floor_quads(), which);
        });
        break;
      case Drawn::Meshes:
        files[b] = static_file(b, p.body, step, [&](const std::vector<int>& which) {
          return mesh_piece(which, bodies, shapes);
        });
        break;
      case Drawn::Terrain:
        files[b] = static_file(b, p.body, step, [&](const std::vector<int>& which) {
          return terrain_piece(which, bodies, shapes);
        });
        break;
    }
  }

  std::vector<VtmBlock> blocks;
  for (int b = 0; b < kBlockCount; ++b) blocks.push_back({std::string(kBlocks[b].name), files[b]});
  const std::string vtm = fmt::format("frames/frame_{:06d}.vtm", step);
  write_bytes(directory_ + "/" + vtm, encode_vtm(blocks));
  entries_.push_back({world.time(), vtm});
  ++frames_;
}

void VtkWriter::write_pvd() {
  // The floors now cover every grain of every frame: every frame's walls are redrawn with them.
  const std::vector<WallQuad> quads = floor_quads();
  for (const StaticVersion& v : versions_[static_cast<std::size_t>(block_of(Drawn::Walls))])
    write_vtu(directory_ + "/frames/" + v.file, wall_piece(quads, v.items), encoding_);
  write_bytes(directory_ + "/particles.pvd", encode_pvd(entries_));
}

void VtkWriter::save(ByteWriter& out) const {
  out.put(static_cast<std::uint64_t>(floors_.size()));
  for (const Floor& f : floors_)
    out.put(f.u_min), out.put(f.u_max), out.put(f.v_min), out.put(f.v_max);
  for (const auto& versions : versions_) {
    out.put(static_cast<std::uint64_t>(versions.size()));
    for (const StaticVersion& v : versions) out.put(v.items), out.put(v.file);
  }
  out.put(static_cast<std::uint64_t>(entries_.size()));
  for (const PvdEntry& e : entries_) out.put(e.time), out.put(e.file);
  out.put(frames_);
}

void VtkWriter::load(ByteReader& in) {
  if (in.count(32) != floors_.size())
    throw std::invalid_argument("frames: another number of walls than the scenario's");
  for (Floor& f : floors_) in.get(f.u_min), in.get(f.u_max), in.get(f.v_min), in.get(f.v_max);
  for (auto& versions : versions_) {
    versions.resize(in.count(16));
    for (StaticVersion& v : versions) in.get(v.items, sizeof(int)), in.get(v.file);
  }
  entries_.resize(in.count(16));
  for (PvdEntry& e : entries_) in.get(e.time), in.get(e.file);
  in.get(frames_);
}

}  // namespace etdem
